"""What a Herkle ordinary's silhouette on its shield (:attr:`vision.shields.ShieldView.silhouette`) shows
beside its distance from each shape's: how it rises to a point (:func:`arch`: a chevron) and whether it
has arms across the shield's middle both ways (:func:`arm`: a cross); and the painted model's
silhouettes and lightness each ordinary is compared with (:func:`shield_templates`,
:func:`shield_lightness`). :mod:`vision.classify` names Herkle's tiles with these.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from table import TileSet
from vision.prototypes import painted_patches
from vision.shields import FIELD_WEIGHT, SIZE, field_colour, view_shields

#: A column of the silhouette counts in :func:`arch` when it holds this many pixels of ordinary (an eighth
#: of its height).
ARCH_COLUMN = 3.0
#: A cross's arm (:func:`arm`) is read in the silhouette's columns further than this many pixels from the
#: shield's middle line, where a pale's band is not (on the painted model, outlined and softened, it holds
#: under a fifth of ordinary past 4 pixels; the shield reaches 8.5)...
ARM_OUTSIDE = 4.0
#: ... on the rows within this many pixels of the shield's middle (the painted cross's arm, 4.5 pixels
#: high, lies across the middle: its rows peak within a pixel of it).
ARM_NEAR = 2.0
#: The ordinaries' silhouettes on the painted model (the renderer's faces, square-on and sharp) are taken
#: through this blur (sigma, in patch pixels): a camera's lens, the working copy and the patch's
#: resampling soften every tile's edges, and a sharp model's silhouettes lie further from the tiles seen
#: than a softened one's. Each rendered tile's silhouette lies nearest its own shape's at 0.8 to 1.2
#: (root-mean-square distance, flat there: a rendered calibration game, 24 frames and 383 tiles, 0.098
#: sharp and 0.094 at 0.8; 25 frames of the rendered set (seed 31), 604 tiles, 0.095 and 0.092); the
#: least of that range is taken. The shield's outline stays sharp (MISFIT was measured against it), and
#: so does the ordinaries' lightness (read on their solid middles, which blur hardly changes).
CAMERA_BLUR = 0.8


@functools.cache
def shield_templates(tiles: TileSet) -> dict[str, np.ndarray]:
    """Each ordinary's silhouette (:attr:`vision.shields.ShieldView.silhouette`) on the painted model of
    the tiles, square-on and softened as a camera sees it (:data:`CAMERA_BLUR`): shape name to
    (SIZE, SIZE) float32."""
    stack, every = painted_patches(tiles)
    stack = np.stack([cv2.GaussianBlur(patch, (0, 0), CAMERA_BLUR) for patch in stack])
    seen = view_shields(stack, field_colour(stack))
    return {s: seen.silhouette[[t.shape == s for t in every]].mean(axis=0) for s in tiles.shapes}


@functools.cache
def shield_lightness(tiles: TileSet) -> dict[str, float]:
    """Each colour's :attr:`vision.shields.ShieldView.lightness` on the painted model of the tiles: colour
    name to the median over its ordinaries (how much lighter or darker than the field its paint is)."""
    stack, every = painted_patches(tiles)
    seen = view_shields(stack, field_colour(stack))
    return {c: float(np.median(seen.lightness[[t.colour == c for t in every]])) for c in tiles.colours}


def arch(silhouettes: np.ndarray) -> np.ndarray:
    """How much each ordinary rises to a point (N,): the slope of its middle row against the distance
    from the shield's middle column (or the same turned a quarter, whichever is steeper), unsigned.

    A chevron's two arms rise to a point (0.68 on the painted model); a fess is a level band, and a
    pale, cross, saltire or bend is symmetric about the middle, so their middles lie level (0.3 and
    less). It does not change when the ordinary sits a little high or low on its shield, which the
    silhouette's difference does.

    Parameters
    ----------
    silhouettes : ndarray, shape (N, SIZE, SIZE)
        :attr:`vision.shields.ShieldView.silhouette`: the ordinary 1 on the field FIELD_WEIGHT.
    """
    ordinary = _ordinary(silhouettes)
    c = np.arange(SIZE) - (SIZE - 1) / 2
    slopes = []
    for o in (ordinary, np.swapaxes(ordinary, 1, 2)):
        mass = o.sum(axis=1)  # (N, SIZE) per column
        middle = (o * c[None, :, None]).sum(axis=1) / np.maximum(mass, 1e-6)
        weight = np.where(mass >= ARCH_COLUMN, mass, 0.0)
        x = np.abs(c)[None]
        total = np.maximum(weight.sum(axis=1, keepdims=True), 1e-6)
        dx = x - (weight * x).sum(axis=1, keepdims=True) / total
        dy = middle - (weight * middle).sum(axis=1, keepdims=True) / total
        slopes.append(np.abs((weight * dx * dy).sum(axis=1)) / np.maximum((weight * dx**2).sum(axis=1), 1e-6))
    return np.asarray(np.maximum(*slopes))


def arm(silhouettes: np.ndarray) -> np.ndarray:
    """How clearly each ordinary has arms across the shield's middle both ways (N,): a cross's.

    Across the columns away from the shield's middle line (:data:`ARM_OUTSIDE`), the share of each row
    that is ordinary; the arm is how far the most ordinary of the rows through the middle
    (:data:`ARM_NEAR`) stands above the median row (what a band tilted, painted fat or cut short by its
    shield leaves in those columns along its whole length); the same turned a quarter, and the lesser
    of the two. A cross's arm and bar both cross the middle (0.54 on the painted model); a pale or fess is
    one band, which crosses it one way only, and a bend, saltire or chevron crosses the outer columns
    away from the middle (all 0.14 and less). A quarter turn changes nothing.

    Parameters
    ----------
    silhouettes : ndarray, shape (N, SIZE, SIZE)
        :attr:`vision.shields.ShieldView.silhouette`: the ordinary 1 on the field FIELD_WEIGHT.
    """
    ordinary = _ordinary(silhouettes)
    shield = silhouettes > 0.5 * FIELD_WEIGHT
    c = np.abs(np.arange(SIZE) - (SIZE - 1) / 2)
    out = np.zeros((2, len(silhouettes)))
    for k, (o, inside) in enumerate(
        ((ordinary, shield), (np.swapaxes(ordinary, 1, 2), np.swapaxes(shield, 1, 2)))
    ):
        outer = inside & (c > ARM_OUTSIDE)[None, None, :]
        count = outer.sum(axis=2)  # (N, SIZE) per row
        share = (o * outer).sum(axis=2) / np.maximum(count, 1)
        for i in range(len(o)):
            rows = count[i] >= 4  # the shield's rows with some width outside the middle
            middle = rows & (c <= ARM_NEAR)
            if middle.any():
                out[k, i] = share[i, middle].max() - np.median(share[i, rows])
    return np.asarray(out.min(axis=0))


def _ordinary(silhouettes: np.ndarray) -> np.ndarray:
    """How much of each silhouette pixel (N, SIZE, SIZE) is ordinary, 0..1 (the field, FIELD_WEIGHT, 0)."""
    return np.clip((silhouettes - FIELD_WEIGHT) / (1.0 - FIELD_WEIGHT), 0.0, 1.0)
