"""live/service.py's calibration hooks: the latest raw frame for the wizard, and a calibration set on the
running service (frames read through ``calibration.read_calibrated``, an event, the state says so)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import calibration
from calibration import Calibration, arrangement, calibrate_from_photo
from live.service import GameService
from table import GameError, tileset
from vision.frames import Frame
from vision.reading import Reading
from vision.render import Conditions, Scene, render

from .conftest import Idle

CLASSIC = tileset("classic")


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """A rendered photo of the 36-tile arrangement (the wizard's second choice)."""
    conditions = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    return render(Scene(arrangement(CLASSIC), "classic", conditions, size=(768, 1024), table_seed=11)).image


@pytest.fixture(scope="module")
def cal(photo: np.ndarray) -> Calibration:
    learned, _ = calibrate_from_photo(photo, arrangement(CLASSIC), tileset=CLASSIC, how="arrangement")
    return learned


def test_latest_frame_is_none_then_the_raw_frame(tmp_path: Path, photo: np.ndarray) -> None:
    with GameService(tmp_path / "g.sqlite3", source=Idle()) as svc:
        assert svc.latest_frame() is None
        svc.feed(Frame(photo, 0, 0.0))
        got = svc.latest_frame()
        assert got is not None and got.shape == photo.shape and np.array_equal(got, photo)


def test_set_calibration_announces_and_reads_through_it(
    tmp_path: Path, photo: np.ndarray, cal: Calibration, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    real = calibration.read_calibrated

    def spy(image: np.ndarray, **kwargs: Any) -> Reading:
        seen.append(kwargs["calibration"])
        found: Reading = real(image, **kwargs)
        return found

    monkeypatch.setattr(calibration, "read_calibrated", spy)
    svc = GameService(tmp_path / "g.sqlite3")
    svc.new_game(["Ann", "Bob"], variant="classic")
    assert svc.state()["calibration"] is None
    before = svc.version
    state = svc.set_calibration(cal)
    assert state["version"] == svc.version > before
    assert svc.events_since(before)[-1]["kind"] == "calibration"
    assert state["calibration"] == {"learned_from": "arrangement", "when": None}
    svc.feed(Frame(photo, 0, 0.0))  # the first frame counts as motion
    svc.feed(Frame(photo, 1, 1.0))  # still: read
    assert seen == [cal]
    reading = svc._frame_reading
    assert reading is not None and reading.board == arrangement(CLASSIC)
    svc.close()


def test_a_calibration_for_another_edition_is_refused(tmp_path: Path, cal: Calibration) -> None:
    svc = GameService(tmp_path / "g.sqlite3")
    svc.new_game(["Ann", "Bob"], variant="connect")
    before = svc.version
    with pytest.raises(GameError, match="made for classic, the game is connect"):
        svc.set_calibration(cal)
    assert svc.version == before and svc.state()["calibration"] is None
    with pytest.raises(TypeError, match=r"expected a calibration\.Calibration"):
        svc.set_calibration({"tileset": "classic"})
    svc.close()


def test_the_constructor_takes_a_calibration(tmp_path: Path, cal: Calibration) -> None:
    svc = GameService(tmp_path / "g.sqlite3", calibration=cal)
    assert svc.state()["calibration"] == {"learned_from": "arrangement", "when": None}
    svc.close()
