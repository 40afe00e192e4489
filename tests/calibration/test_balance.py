"""calibration/balance.py: the white balance of a calibration photo, from its edges (grey-edge) and from its
known tiles used as a colour chart."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import arrangement
from calibration.balance import apply_balance, chart_balance
from calibration.known import measure_known
from calibration.lighting import SHIFTS, illuminant_gains, shift_light
from table import tileset
from vision.render import Conditions, Scene, render

CLASSIC = tileset("classic")
CONDITIONS = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="green-felt", jpeg_quality=92)


@pytest.fixture(scope="module")
def daylight() -> np.ndarray:
    scene = Scene(arrangement(CLASSIC), "classic", CONDITIONS, size=(768, 1024), table_seed=11, seed=0)
    return render(scene).image


def _chart(photo: np.ndarray, gains: np.ndarray) -> np.ndarray:
    measured, tiles = measure_known(apply_balance(photo, gains), arrangement(CLASSIC), CLASSIC)
    assert len(tiles) >= 30
    return chart_balance(measured, tiles, CLASSIC, gains)


def test_the_known_paints_tell_a_tungsten_light(daylight: np.ndarray) -> None:
    warm = shift_light(daylight, SHIFTS["warm"], seed=0)
    inverse = 1 / illuminant_gains(SHIFTS["warm"].kelvin)
    inverse /= inverse[1]  # about (3.9, 1, 0.46): blue lifted, red lowered
    # measured under the half-way correction a calibration tries first, the chart finds the rest
    for start in (np.ones(3), np.sqrt(inverse)):
        gains = _chart(warm, start)
        assert np.allclose(np.log(gains), np.log(inverse), atol=np.log(1.25)), gains


def test_the_known_paints_see_no_cast_in_daylight(daylight: np.ndarray) -> None:
    gains = _chart(daylight, np.ones(3))
    assert np.allclose(gains, 1.0, atol=0.12), gains


def test_a_channel_few_tiles_show_keeps_its_gain(daylight: np.ndarray) -> None:
    measured, tiles = measure_known(daylight, arrangement(CLASSIC), CLASSIC)
    reds = np.array([t.colour == "red" for t in tiles])  # red paint shows almost no blue or green
    gains = chart_balance(
        measured.take(reds), [t for t, r in zip(tiles, reds, strict=True) if r], CLASSIC, np.ones(3)
    )
    assert gains[0] == 1.0 and gains[1] == 1.0
