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
from table import Board, GameError, tileset
from vision.frames import Frame
from vision.reading import Reading, ReadTile
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
    assert state["calibration"] == {"learned_from": "arrangement", "when": None, "refined": 0}
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
    assert svc.state()["calibration"] == {"learned_from": "arrangement", "when": None, "refined": 0}
    svc.close()


def _line_reading(board: Board) -> Reading:
    return Reading(tuple(ReadTile(p, 0.9) for p in board.placed), ())


def test_a_turn_the_camera_confirms_refines_the_calibration(tmp_path: Path, cal: Calibration) -> None:
    line = Board.from_text("Ro Rx Rd Rs Rt Rc")  # six reds: a legal first turn
    conditions = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    photo = render(Scene(line, "classic", conditions, size=(768, 1024), table_seed=11)).image
    svc = GameService(
        tmp_path / "g.sqlite3", source=Idle(), reader=lambda image: _line_reading(line), calibration=cal
    )
    svc.new_game(["Ann", "Bob"], variant="classic")
    before = svc.version
    for k in range(8):  # the first frame is motion, then the table is still and settles
        svc.feed(Frame(photo, k, 0.5 * k))
    state = svc.state()
    assert [t["points"] for t in state["turns"]] == [12]
    assert state["calibration"]["refined"] == 1
    assert "calibration" in [e["kind"] for e in svc.events_since(before)]
    refined = svc.calibration
    assert refined is not cal and refined.source["refined"] == 1
    assert refined.samples["colours"]["red"] == cal.samples["colours"]["red"] + 6
    svc.close()


def test_a_turn_on_a_photo_without_tiles_leaves_the_calibration(tmp_path: Path, cal: Calibration) -> None:
    line = Board.from_text("Ro Rx Rd")
    blank = np.full((480, 640, 3), 90, np.uint8)  # the reader says three tiles; the photo shows none
    svc = GameService(
        tmp_path / "g.sqlite3", source=Idle(), reader=lambda image: _line_reading(line), calibration=cal
    )
    svc.new_game(["Ann", "Bob"], variant="classic")
    for k in range(8):
        svc.feed(Frame(blank, k, 0.5 * k))
    assert len(svc.state()["turns"]) == 1
    assert svc.calibration is cal and svc.state()["calibration"]["refined"] == 0
    svc.close()
