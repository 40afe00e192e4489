"""White balance learned at calibration and applied to every frame before it is read.

A camera whose white balance is locked (or a phone's that guessed wrong) under warm or cool light delivers
frames with a strong cast; the reader's white balance on the tiles' black bodies corrects the colours it
names, but not what its symbol detector sees first (a board or table that turns saturated orange). The cure
is what the camera's own colour gains do: per-channel gains in linear light, estimated once on the
calibration photo and applied to every later frame, so frames stay comparable all game.

The estimate is the grey-edge hypothesis (:func:`device.quality.colour_cast`), iterated: apply the gains,
measure what cast is left, correct, until the frame's edges are neutral. Gains are BGR, linear light, with
green fixed at 1.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.lighting import linear_to_srgb
from device.quality import colour_cast
from vision.prototypes import srgb_to_linear

#: Longer side of the copy the balance is estimated on.
WORK_SIDE = 512
#: Gains are kept within this factor of 1 either way (beyond it the channel is mostly noise).
MAX_GAIN = 8.0


def _lut(gain: float) -> np.ndarray:
    """The 8-bit lookup table that multiplies sRGB-encoded values by ``gain`` in linear light."""
    linear = srgb_to_linear(np.arange(256) / 255.0) * gain
    return np.asarray(np.clip(np.rint(linear_to_srgb(linear) * 255.0), 0, 255).astype(np.uint8))


def apply_balance(image: np.ndarray, gains: np.ndarray | tuple[float, float, float]) -> np.ndarray:
    """The frame with each channel multiplied by ``gains`` in linear light.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR, sRGB-encoded.
    gains : array-like, shape (3,)
        Linear-light BGR gains (:func:`estimate_balance`).

    Returns
    -------
    ndarray, shape (H, W, 3), dtype uint8
        A new BGR frame (``image`` itself when every gain is 1).
    """
    g = np.asarray(gains, np.float64).reshape(3)
    if np.allclose(g, 1.0, atol=1e-3):
        return image
    lut = np.stack([_lut(float(x)) for x in g], axis=1)[:, None, :]  # (256, 1, 3): one table per channel
    return cv2.LUT(image, lut)


def estimate_balance(image: np.ndarray, *, rounds: int = 4, tolerance: float = 0.01) -> np.ndarray:
    """Linear-light BGR gains (3,) (green 1) that make the frame's edges neutral (grey-edge).

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR frame of the table.
    rounds : int
        At most this many correct-and-measure rounds.
    tolerance : float
        Stop when the remaining cast is within this (relative) of neutral.
    """
    h, w = image.shape[:2]
    f = min(1.0, WORK_SIDE / max(h, w))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    gains = np.ones(3)
    for _ in range(rounds):
        cast = colour_cast(apply_balance(small, gains))
        if abs(cast.red - 1) <= tolerance and abs(cast.blue - 1) <= tolerance:
            break
        # the cast is measured on sRGB-encoded values: about the 1/2.2 power of the linear ratio
        gains = gains * np.array([cast.blue, 1.0, cast.red]) ** -2.2
        gains = np.clip(gains / gains[1], 1 / MAX_GAIN, MAX_GAIN)
    return np.asarray(gains)
