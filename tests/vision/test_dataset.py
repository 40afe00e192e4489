"""The reader on the real Connect photos (skipped when ../shared/datasets is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.evaluate import evaluate

pytestmark = [pytest.mark.dataset, pytest.mark.slow]


@pytest.mark.parametrize("scale", [1.0, 2.0, 0.6])
@pytest.mark.parametrize("calibrate_on", [None, "1_00"])
def test_connect_game1(connect_game1: Path, scale: float, calibrate_on: str | None) -> None:
    """The issue's target: ≥ 99.5 % of tiles right over the 21 frames and ≥ 19 frames exact, at the photos'
    2040×1536 and resized to twice and 0.6 times that, with no silent wrong answer; with the default
    prototypes, and with prototypes learned from the first photo (the printed start, which the layout
    knows)."""
    result = evaluate(connect_game1, calibrate_on=calibrate_on, scale=scale)
    overall = result["overall"]
    assert overall["tile_accuracy"] >= 0.995, overall
    assert overall["frames_exact"] >= 19, overall
    assert overall["wrong"] + overall["extra"] == 0, overall
