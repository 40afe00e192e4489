"""The reader on the real Connect photos (skipped when ../shared/datasets is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.evaluate import evaluate

pytestmark = [pytest.mark.dataset, pytest.mark.slow]


def test_connect_game1_calibrated_on_its_start(connect_game1: Path) -> None:
    """The issue's target: ≥ 99.5 % of tiles right over the 21 frames, ≥ 19 frames exact. The prototypes
    are learned from the first photo (the printed start, whose tiles the layout knows)."""
    result = evaluate(connect_game1, calibrate_on="1_00")
    overall = result["overall"]
    assert overall["tile_accuracy"] >= 0.995, overall
    assert overall["frames_exact"] >= 19, overall
    assert overall["wrong"] + overall["extra"] == 0, overall
