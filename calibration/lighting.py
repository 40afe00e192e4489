"""Lighting shifts: turn a photo taken under one light into the same scene under another.

Used to test calibration (and the reader) away from the light a dataset was shot in, on real photos and on
rendered ones alike. The model is a camera whose white balance and exposure stay fixed while the light
changes:

1. decode sRGB to linear light;
2. multiply each channel by the ratio of the new illuminant's colour to the reference illuminant's
   (von Kries in camera RGB): a black body of ``kelvin`` against one of ``reference`` kelvin, their
   chromaticities from the Planckian-locus fit of Kim et al. (2002), converted to linear sRGB at equal
   luminance;
3. scale by ``exposure`` (0.35: a third of the light);
4. add sensor noise in linear light: shot noise of variance ``shot * x`` and read noise of standard
   deviation ``read`` (both in units of full scale);
5. re-encode sRGB with an extra tone-curve ``gamma`` (>1 darkens the mid-tones, as a contrastier camera
   curve does), round to 8 bits, and optionally pass through JPEG at ``jpeg_quality``.

:data:`SHIFTS` names the three used for the targets of issue 4: ``warm`` (uncorrected 2800 K tungsten),
``dim`` (a tenth of the light: 8-bit values scaled by about 0.38; noisy, re-compressed) and ``cool``
(7500 K shade, uncorrected).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.prototypes import srgb_to_linear

#: linear sRGB from CIE XYZ (IEC 61966-2-1).
XYZ_TO_SRGB = np.array(
    [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]], np.float64
)


@dataclass(frozen=True, kw_only=True)
class Shift:
    """One change of light (see the module docstring for what each field does)."""

    kelvin: float = 6500.0
    reference: float = 6500.0
    exposure: float = 1.0
    gamma: float = 1.0
    shot: float = 0.0
    read: float = 0.0
    jpeg_quality: int | None = None

    def __post_init__(self) -> None:
        for name in ("kelvin", "reference"):
            value = getattr(self, name)
            if not 1667.0 <= value <= 25000.0:
                raise ValueError(f"{name} must be 1667..25000 K, got {value}")
        if not 0.0 < self.exposure <= 16.0:
            raise ValueError(f"exposure must be in (0, 16], got {self.exposure}")
        if not 0.2 <= self.gamma <= 5.0:
            raise ValueError(f"gamma must be 0.2..5, got {self.gamma}")
        if self.shot < 0 or self.read < 0:
            raise ValueError(f"noise must be non-negative, got shot {self.shot} and read {self.read}")
        if self.jpeg_quality is not None and not 10 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 10..100 or None, got {self.jpeg_quality}")


#: The shifts of issue 4's targets.
SHIFTS: dict[str, Shift] = {
    "warm": Shift(kelvin=2800.0, gamma=1.15, jpeg_quality=90),
    "dim": Shift(exposure=0.1, shot=1 / 800, read=0.004, jpeg_quality=75),
    "cool": Shift(kelvin=7500.0, jpeg_quality=90),
}


def planckian_xy(kelvin: float) -> tuple[float, float]:
    """CIE 1931 chromaticity (x, y) of a black body at ``kelvin`` (1667..25000 K; Kim et al. 2002)."""
    t = float(kelvin)
    if not 1667.0 <= t <= 25000.0:
        raise ValueError(f"kelvin must be 1667..25000, got {kelvin}")
    if t <= 4000:
        x = -0.2661239e9 / t**3 - 0.2343589e6 / t**2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t**3 + 2.1070379e6 / t**2 + 0.2226347e3 / t + 0.240390
    if t <= 2222:
        y = -1.1063814 * x**3 - 1.34811020 * x**2 + 2.18555832 * x - 0.20219683
    elif t <= 4000:
        y = -0.9549476 * x**3 - 1.37418593 * x**2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x**3 - 5.87338670 * x**2 + 3.75112997 * x - 0.37001483
    return x, y


def illuminant_gains(kelvin: float, *, reference: float = 6500.0) -> np.ndarray:
    """Linear BGR gains (3,) that turn a scene lit at ``reference`` K into one lit at ``kelvin`` K, for a
    camera whose white balance stays set for ``reference`` (equal luminance)."""

    def linear_rgb(t: float) -> np.ndarray:
        x, y = planckian_xy(t)
        xyz = np.array([x / y, 1.0, (1 - x - y) / y])
        return np.asarray(np.maximum(XYZ_TO_SRGB @ xyz, 1e-4))

    ratio = linear_rgb(kelvin) / linear_rgb(reference)
    return np.asarray(ratio[::-1])  # RGB -> BGR


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    """sRGB-encoded values in 0..1 of linear light (clipped to 0..1 first)."""
    x = np.clip(x, 0.0, 1.0)
    return np.asarray(np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055))


def _to_linear(image: np.ndarray) -> np.ndarray:
    lut = srgb_to_linear(np.arange(256) / 255.0).astype(np.float32)
    return np.asarray(lut[image])


def _to_srgb(linear: np.ndarray, gamma: float) -> np.ndarray:
    x = np.clip(linear, 0.0, 1.0)
    if gamma != 1.0:
        x = x**gamma  # the extra tone curve, then sRGB's own encoding
    return np.asarray(np.clip(np.rint(linear_to_srgb(x) * 255.0), 0, 255).astype(np.uint8))


def shift_light(image: np.ndarray, shift: Shift, *, seed: int = 0) -> np.ndarray:
    """The photo ``image`` as if taken under the light ``shift`` describes.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The photo, BGR channel order, sRGB-encoded.
    shift : Shift
        The change of light (:data:`SHIFTS` has named ones).
    seed : int
        Seeds the sensor noise.

    Returns
    -------
    ndarray, shape (H, W, 3), dtype uint8
        The shifted photo, BGR.
    """
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        shape = getattr(image, "shape", None)
        raise ValueError(f"image must be BGR uint8 of shape (H, W, 3), got {type(image).__name__} {shape}")
    gains = illuminant_gains(shift.kelvin, reference=shift.reference) * shift.exposure
    linear = _to_linear(image) * gains.astype(np.float32)
    if shift.shot > 0 or shift.read > 0:
        rng = np.random.default_rng(seed)
        sigma = np.sqrt(shift.shot * np.maximum(linear, 0.0) + shift.read**2)
        linear = linear + sigma * rng.standard_normal(linear.shape, dtype=np.float32)
    out = _to_srgb(linear, shift.gamma)
    if shift.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, shift.jpeg_quality])
        if not ok:
            raise RuntimeError("OpenCV could not encode the shifted photo as JPEG")
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("OpenCV could not decode the shifted photo's JPEG")
        out = decoded
    return out


def shift_dataset(source: str | Path, out: str | Path, shift: Shift, *, seed: int = 0) -> int:
    """Copy a labelled dataset (``frames/``, ``truth/``, ``board.json``, ``moves.jsonl``) with every frame
    shifted to another light; returns how many frames were written. Each frame's noise is seeded by
    ``seed`` and its position in name order."""
    src, dst = Path(source), Path(out)
    frames = sorted((src / "frames").glob("*.jpg"))
    if not frames:
        raise ValueError(f"{src}/frames: no JPEG frames to shift")
    (dst / "frames").mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(frames):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        shifted = shift_light(image, shift, seed=seed * 100_003 + i)
        if not cv2.imwrite(str(dst / "frames" / path.name), shifted, [cv2.IMWRITE_JPEG_QUALITY, 97]):
            raise OSError(f"{dst / 'frames' / path.name}: cannot write")
    if (src / "truth").is_dir():
        shutil.copytree(src / "truth", dst / "truth", dirs_exist_ok=True)
    for name in ("board.json", "moves.jsonl"):
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
    (dst / "shift.json").write_text(json.dumps(shift.__dict__) + "\n", encoding="utf-8")
    return len(frames)
