"""calibration/lighting.py and calibration/balance.py: shifting the light of a photo, and balancing it
back."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.balance import apply_balance, estimate_balance
from calibration.lighting import SHIFTS, Shift, illuminant_gains, planckian_xy, shift_dataset, shift_light
from device.quality import colour_cast


def _scene() -> np.ndarray:
    """A grey-world test card: neutral greys plus a few saturated patches (BGR uint8)."""
    rng = np.random.default_rng(0)
    image = np.zeros((240, 320, 3), np.uint8)
    for i in range(12):
        for j in range(16):
            level = int(rng.integers(30, 220))
            image[i * 20 : (i + 1) * 20, j * 20 : (j + 1) * 20] = level
    image[40:80, 40:80] = (30, 40, 200)  # red
    image[120:160, 200:240] = (200, 120, 30)  # blue
    return image


def test_planckian_locus_and_gains() -> None:
    x, y = planckian_xy(6500)
    assert x == pytest.approx(0.3135, abs=0.002) and y == pytest.approx(0.3237, abs=0.002)
    assert np.allclose(illuminant_gains(6500), 1.0)
    b, g, r = illuminant_gains(2800)
    assert r > 1.5 and b < 0.3 and 0.7 < g < 1.0  # tungsten: much red, little blue
    b2, _, r2 = illuminant_gains(7500)
    assert b2 > 1.0 > r2
    with pytest.raises(ValueError, match=r"1667\.\.25000"):
        planckian_xy(1000)


def test_shift_light_changes_what_it_says() -> None:
    image = _scene()
    same = shift_light(image, Shift())
    assert np.abs(same.astype(int) - image).max() <= 1  # the identity shift (sRGB round trip)
    warm = shift_light(image, SHIFTS["warm"])
    grey = warm[100:120, 100:120].reshape(-1, 3).mean(axis=0)
    assert grey[2] > grey[1] > grey[0] * 1.5  # a grey patch turns orange
    dim = shift_light(image, SHIFTS["dim"], seed=3)
    ratio = dim.astype(float).mean() / image.astype(float).mean()
    assert 0.3 < ratio < 0.5  # a tenth of the light is about 0.38 of the 8-bit values
    assert not np.array_equal(dim, shift_light(image, SHIFTS["dim"], seed=4))  # noise
    assert np.array_equal(dim, shift_light(image, SHIFTS["dim"], seed=3))  # seeded
    with pytest.raises(ValueError, match="BGR uint8"):
        shift_light(image.astype(np.float32), SHIFTS["warm"])
    with pytest.raises(ValueError, match="exposure"):
        Shift(exposure=0)


def test_shift_dataset_copies_the_truth(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "frames").mkdir(parents=True)
    (src / "truth").mkdir()
    cv2.imwrite(str(src / "frames" / "1_00.jpg"), _scene())
    (src / "truth" / "1_00.json").write_text(json.dumps({"tiles": []}), encoding="utf-8")
    (src / "moves.jsonl").write_text("", encoding="utf-8")
    assert shift_dataset(src, tmp_path / "out", SHIFTS["cool"]) == 1
    assert (tmp_path / "out" / "truth" / "1_00.json").is_file()
    assert (tmp_path / "out" / "moves.jsonl").is_file()
    assert json.loads((tmp_path / "out" / "shift.json").read_text())["kelvin"] == 7500.0
    with pytest.raises(ValueError, match="no JPEG frames"):
        shift_dataset(tmp_path / "out" / "truth", tmp_path / "x", SHIFTS["cool"])


@pytest.mark.parametrize("name", ["warm", "cool"])
def test_balance_undoes_a_cast(name: str) -> None:
    image = _scene()
    shifted = shift_light(image, SHIFTS[name])
    before = colour_cast(shifted)
    gains = estimate_balance(shifted)
    after = colour_cast(apply_balance(shifted, gains))
    assert abs(np.log(after.red)) < 0.05 and abs(np.log(after.blue)) < 0.05
    assert abs(np.log(before.red / before.blue)) > 4 * abs(np.log(after.red / after.blue))
    # the gains it finds undo the light's: their product is roughly constant across channels
    product = gains * illuminant_gains(SHIFTS[name].kelvin)
    assert product.max() / product.min() < 1.35


def test_balance_of_a_neutral_frame_is_near_one() -> None:
    gains = estimate_balance(_scene())
    assert np.allclose(gains, 1.0, atol=0.08)
    image = _scene()
    assert apply_balance(image, np.ones(3)) is image
