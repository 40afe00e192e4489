"""Calibration on the real Connect photos (``../shared/datasets/connect-game1``; skipped when absent),
turned to uncorrected tungsten light by :mod:`calibration.lighting`: learning from the start position makes
a late frame readable that the default colours mostly cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration import calibrate_from_photo, read_calibrated
from calibration.lighting import SHIFTS, shift_light
from table import connect_layout, tileset
from vision.evaluate import score_frame


def _image(folder: Path, ident: str) -> np.ndarray:
    image = cv2.imread(str(folder / "frames" / f"{ident}.jpg"), cv2.IMREAD_COLOR)
    assert image is not None
    return np.asarray(image)


def test_warm_light_calibrated_from_the_start_position(connect_game1: Path) -> None:
    layout, tiles = connect_layout(), tileset("connect")
    start = shift_light(_image(connect_game1, "1_00"), SHIFTS["warm"], seed=1)
    cal, report = calibrate_from_photo(start, layout.start_tiles, tileset=tiles, layout=layout)
    assert (report.found, report.read_right) == (24, 24)
    assert report.photo["cast_gains"][0] > 2.0  # the cast, measured: blue must be brought back up
    late = shift_light(_image(connect_game1, "1_20"), SHIFTS["warm"], seed=2)
    truth = json.loads((connect_game1 / "truth" / "1_20.json").read_text(encoding="utf-8"))
    plain = score_frame(
        read_calibrated(late, None, tileset=tiles, layout=layout), truth, layout=layout, where="1_20"
    )
    mine = score_frame(
        read_calibrated(late, cal, tileset=tiles, layout=layout), truth, layout=layout, where="1_20"
    )
    assert plain.accuracy < 0.8
    assert mine.accuracy >= 0.97 and mine.wrong + mine.extra == 0
