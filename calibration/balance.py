"""White balance learned at calibration and applied to every frame before it is read.

A camera whose white balance is locked (or a phone's that guessed wrong) under warm or cool light delivers
frames with a strong cast; the reader's white balance on the tiles' black bodies corrects the colours it
names, but not what its symbol detector sees first (a board or table that turns saturated orange). The cure
is what the camera's own colour gains do: per-channel gains in linear light, estimated once on the
calibration photo and applied to every later frame, so frames stay comparable all game.

The estimate is the grey-edge hypothesis (:func:`device.quality.colour_cast`), iterated: apply the gains,
measure what cast is left, correct, until the frame's edges are neutral. Gains are BGR, linear light, with
green fixed at 1. A calibration photo's known tiles are also a colour chart (:func:`chart_balance`): their
paints' known channel ratios tell the light where a coloured table misleads the edges.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.lighting import linear_to_srgb
from device.quality import colour_cast
from table import Tile, TileSet
from vision.features import Measurements, measure
from vision.learning import named_paint
from vision.prototypes import painted_patches, srgb_to_linear

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


#: A paint channel tells the light's colour when it is at least this fraction of the paint's brightest.
CHART_CHANNEL = 0.1
#: The fewest known tiles that must show a channel pair for :func:`chart_balance` to correct that channel.
CHART_TILES = 3


def chart_balance(
    measured: Measurements, tiles: Sequence[Tile], tileset: TileSet, gains: np.ndarray
) -> np.ndarray:
    """Linear-light BGR gains (3,) (green 1) from known tiles used as a colour chart.

    The known tiles' paints are known colours: the painted model's (:func:`vision.prototypes.painted_patches`,
    measured on real tiles in daylight). Under a light of another colour each paint's channels scale by that
    light's gains (von Kries), so the ratio of blue to green, and of red to green, of every tile that shows
    both channels (each at least :data:`CHART_CHANNEL` of its paint's brightest, in the model and in the
    photo) tells what is left of the light's cast in the photo balanced by ``gains``; the median over the
    tiles is kept. Unlike the grey-edge estimate (:func:`estimate_balance`), a coloured table does not
    mislead it. A channel shown by fewer than :data:`CHART_TILES` tiles keeps ``gains``' value.

    Parameters
    ----------
    measured : Measurements
        The known tiles measured in the photo balanced by ``gains`` (N).
    tiles : sequence of Tile
        Their identities (N).
    tileset : TileSet
    gains : ndarray, shape (3,)
        The balance the photo was measured under.
    """
    reference = _chart(tileset)
    seen = _paint(named_paint(measured, tileset))
    want = np.array([reference[t] for t in tiles]).reshape(-1, 3)
    out = np.asarray(gains, np.float64).copy()
    for c in (0, 2):
        shown = (want[:, [c, 1]] >= CHART_CHANNEL * want.max(axis=1, keepdims=True)).all(axis=1)
        shown &= (seen[:, [c, 1]] >= CHART_CHANNEL * seen.max(axis=1, keepdims=True)).all(axis=1)
        if shown.sum() >= CHART_TILES:
            ratio = np.log(want[shown, c] / want[shown, 1]) - np.log(seen[shown, c] / seen[shown, 1])
            out[c] *= float(np.exp(np.median(ratio)))
    return np.asarray(np.clip(out / out[1], 1 / MAX_GAIN, MAX_GAIN))


@functools.cache
def _chart(tileset: TileSet) -> dict[Tile, np.ndarray]:
    """Each tile's paint above its body in the painted model (linear light, (3,)): the chart's colours."""
    stack, every = painted_patches(tileset)
    return dict(zip(every, _paint(named_paint(measure(stack), tileset)), strict=True))


def _paint(m: Measurements) -> np.ndarray:
    """Each tile's paint above its body in linear light (N, 3), never below a trace."""
    return np.asarray(np.maximum(srgb_to_linear(m.paint / 255.0) - srgb_to_linear(m.body / 255.0), 1e-6))
