"""Herkle's shields: the ordinary told from the grey field it is painted on.

A Herkle tile is a mid-grey shield on the black body with the ordinary (fess, pale, bend, cross, saltire,
chevron) painted across it. Measured by paint strength alone, as the other editions are, the shield reads
badly: a green ordinary is hardly stronger than the grey field, a black one is weaker, and white and black
differ from each other only in lightness, which the normalised paint drops. Here the field is the
reference instead. Every shield of a frame has the same field, which covers most of each shield, so the
frame's field colour is the commonest colour of the lit middles of its patches. In each patch the shield
is the convex hull of its lit pixels (a black ordinary splits the field, never the hull), the ordinary is
whatever in the shield is unlike the field, its colour is measured on its solid middle, and its
silhouette is drawn together with the shield's (so every tile shows which way is up) in the shield's own
frame: centred on the shield and scaled to its size.

All functions take (N, S, S, 3) BGR uint8 patches cut in the grid's axes (:mod:`vision.patches`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from table import TileSet
from vision.prototypes import painted_patches

#: A pixel is lit (part of the shield) above this fraction of the way from the body to the field.
LIT = 0.5
#: A pixel differs from the field (is the ordinary) from this distance to it, over the field's
#: brightest channel, fully from twice that.
UNLIKE = 0.25
#: The field is grey: its saturation ((max - min) / max) stays below this under every light rendered
#: (0.17 at most under warm light), while the chromatic ordinaries' is 0.6 and more.
GREY = 0.35
#: Side of the silhouettes (finer than the other editions' :data:`vision.features.MASK`: a chevron's
#: angle must show).
SIZE = 24
#: The silhouette's root-mean-square radius (of the shield), as a fraction of SIZE.
SPREAD = 0.30
#: A whole shield covers at least this fraction of the frame's median shield's area, and its centroid
#: lies at most this far (in cells) from its cell's middle.
WHOLE = 0.8
CENTRED = 0.1
#: The silhouette is blurred by this many of its pixels (sigma): a shield found a pixel off, or cut by
#: its cell's edge, then still lies close to its shape's.
SOFTEN = 1.0
#: The ordinary (with its dark outline) covers at most this fraction of its shield (0.78 for the
#: saltire, the widest, on the painted model; 0.77 for 99 in 100 of a rendered set's).
MOST = 0.9
#: Weight of the field in the silhouette (the ordinary is 1, outside the shield 0).
FIELD_WEIGHT = 0.5


@dataclass(frozen=True)
class ShieldView:
    """Per patch (N): what the shield shows.

    Attributes
    ----------
    paint : ndarray, shape (N, 3), float64
        Mean BGR of the ordinary's solid middle (the field's colour where no ordinary is found).
    lightness : ndarray, shape (N,)
        The ordinary's brightest channel over the field's: near 1.8 for white, 0.3 for black.
    saturation : ndarray, shape (N,)
        The ordinary's (max - min) / max over its channels: low for white, black (and the field).
    chroma : ndarray, shape (N,)
        The ordinary's (max - min) over the field's brightest channel: low for black and the field
        (however the few levels of a near-black are tinted), high for a hue.
    silhouette : ndarray, shape (N, SIZE, SIZE), float32
        The ordinary (1) on the field (:data:`FIELD_WEIGHT`), centred on the shield and scaled to it.
    outline : ndarray, shape (N, SIZE, SIZE), float32
        The shield alone, drawn as the silhouette is.
    found : ndarray, shape (N,), bool
        A whole shield and an ordinary on it were found.
    """

    paint: np.ndarray
    lightness: np.ndarray
    saturation: np.ndarray
    chroma: np.ndarray
    silhouette: np.ndarray
    outline: np.ndarray
    found: np.ndarray


def field_colour(patches: np.ndarray) -> np.ndarray:
    """The frame's field colour (3,) BGR: the commonest of the greyish colours lit on the patches' shields
    (white ordinaries are greyish too, but every shield has more field than ordinary), each patch
    voting once.

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches of one frame's Herkle tiles.
    """
    _check(patches)
    n, s = patches.shape[:2]
    x = patches[:, _disc(s, 0.45)].astype(np.float32)  # (N, K, 3)
    if x.size == 0:
        return np.zeros(3)
    light = x.max(axis=2)
    lo, hi = np.quantile(light, 0.1), np.quantile(light, 0.9)
    greyish = (light > lo + 0.3 * (hi - lo)) & (x.max(axis=2) - x.min(axis=2) < GREY * np.maximum(light, 1.0))
    # each patch's own middle first, then their median: a patch of something else (the table seen
    # through a gap) is one vote, however much of it is grey
    own = np.array([np.median(x[i][greyish[i]], axis=0) for i in range(n) if greyish[i].sum() > 10])
    if len(own) == 0:
        return np.zeros(3)
    middle = np.median(own, axis=0)
    pixels = x[greyish]
    for _ in range(3):  # the median of the colours near the last median: the mode, not the mix
        near = np.linalg.norm(pixels - middle, axis=1) < 0.3 * max(float(middle.max()), 1.0)
        if near.sum() <= 20:
            break
        middle = np.median(pixels[near], axis=0)
    return np.asarray(middle, np.float64)


def view_shields(patches: np.ndarray, field: np.ndarray) -> ShieldView:
    """Find each patch's shield and the ordinary on it (see :class:`ShieldView`).

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches, one cell each, in the grid's axes.
    field : ndarray, shape (3,)
        The frame's field colour (:func:`field_colour`).
    """
    _check(patches)
    n, s = patches.shape[:2]
    x = patches.astype(np.float32)
    light = x.max(axis=3)
    u = (np.arange(s) + 0.5) / s - 0.5
    edge = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :])
    core = _disc(s, 0.35)
    body = np.quantile(light[:, edge > 0.40], 0.2, axis=1) if n else np.zeros(0)
    paint = np.zeros((n, 3))
    lightness, saturation, chroma = np.zeros(n), np.zeros(n), np.zeros(n)
    silhouette = np.zeros((n, SIZE, SIZE), np.float32)
    outline = np.zeros((n, SIZE, SIZE), np.float32)
    found = np.zeros(n, bool)
    area, off = np.zeros(n), np.zeros(n)
    for i in range(n):
        local = _local_field(x[i][core], np.asarray(field, np.float32))
        bright = max(float(local.max()), 1.0)
        lit = (light[i] > body[i] + LIT * (bright - body[i])) & (edge < 0.44)
        lit = cv2.morphologyEx(lit.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        points = np.argwhere(lit > 0)
        if len(points) < s * s // 20:
            continue
        shield = np.zeros((s, s), np.uint8)
        cv2.fillConvexPoly(shield, cv2.convexHull(points[:, ::-1].astype(np.int32)), 1)
        unlike = np.linalg.norm(x[i] - local, axis=2) / bright
        ordinary = np.clip((unlike - UNLIKE) / UNLIKE, 0.0, 1.0) * shield
        solid = cv2.erode((ordinary > 0.9).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        if solid.sum() < 3 or ordinary.sum() > MOST * shield.sum():
            continue  # no ordinary, or "all ordinary": the field is not this shield's (glare, the table)
        paint[i] = x[i][solid].mean(axis=0)
        lightness[i] = paint[i].max() / bright
        saturation[i] = (paint[i].max() - paint[i].min()) / max(float(paint[i].max()), 1.0)
        chroma[i] = (paint[i].max() - paint[i].min()) / bright
        drawn = np.maximum(ordinary, FIELD_WEIGHT * shield).astype(np.float32)
        silhouette[i] = _framed(drawn, shield.astype(np.float32))
        outline[i] = _framed(shield.astype(np.float32), shield.astype(np.float32))
        found[i] = True
        area[i] = shield.sum()
        rows, cols = np.nonzero(shield)
        off[i] = max(abs(u[rows].mean()), abs(u[cols].mean()))
    # a shield cut by the cell's edge, or a piece of one (a black ordinary splits the field), is no whole
    # shield: smaller than the frame's shields, or off its cell's middle
    if found.any():
        typical = float(np.median(area[found]))
        found &= (area >= WHOLE * typical) & (off <= CENTRED)
    return ShieldView(paint, lightness, saturation, chroma, silhouette, outline, found)


@functools.cache
def shield_templates(tiles: TileSet) -> dict[str, np.ndarray]:
    """Each ordinary's silhouette (:attr:`ShieldView.silhouette`) on the painted model of the tiles,
    square-on: shape name to (SIZE, SIZE) float32."""
    stack, every = painted_patches(tiles)
    seen = view_shields(stack, field_colour(stack))
    return {s: seen.silhouette[[t.shape == s for t in every]].mean(axis=0) for s in tiles.shapes}


@functools.cache
def shield_outline(tiles: TileSet) -> np.ndarray:
    """The shield's outline (:attr:`ShieldView.outline`) on the painted model, the mean over the tiles."""
    stack, _ = painted_patches(tiles)
    return np.asarray(view_shields(stack, field_colour(stack)).outline.mean(axis=0), np.float32)


def outline_misfit(outlines: np.ndarray, template: np.ndarray) -> np.ndarray:
    """How far each outline (N, SIZE, SIZE) is from the template's shield at its nearest quarter turn
    (root-mean-square difference, 0..1): a cell of table framed by tiles, or a hand, is not
    shield-shaped."""
    misfits = [np.sqrt(((outlines - np.rot90(template, k)[None]) ** 2).mean(axis=(1, 2))) for k in range(4)]
    return np.asarray(np.min(misfits, axis=0))


@functools.cache
def shield_lightness(tiles: TileSet) -> dict[str, float]:
    """Each colour's :attr:`ShieldView.lightness` on the painted model of the tiles: colour name to the
    median over its ordinaries (how much lighter or darker than the field its paint is)."""
    stack, every = painted_patches(tiles)
    seen = view_shields(stack, field_colour(stack))
    return {c: float(np.median(seen.lightness[[t.colour == c for t in every]])) for c in tiles.colours}


def _local_field(core: np.ndarray, field: np.ndarray) -> np.ndarray:
    """The field's colour in one patch: the median of its middle's pixels near the frame's field (the
    light falls off across the table), the frame's where too few are."""
    local = field
    for _ in range(2):
        near = np.linalg.norm(core - local, axis=1) < UNLIKE * max(float(local.max()), 1.0)
        if near.sum() <= 10:
            break
        local = np.median(core[near], axis=0)
    return np.asarray(local, np.float32)


def _framed(drawn: np.ndarray, shield: np.ndarray) -> np.ndarray:
    """``drawn`` moved so the shield's centroid is in the middle and scaled to a fixed spread (root mean
    square radius of the shield), shrunk to SIZE×SIZE and softened."""
    s = len(shield)
    u = np.arange(s) - (s - 1) / 2
    total = max(float(shield.sum()), 1e-6)
    cy = float((shield * u[:, None]).sum()) / total
    cx = float((shield * u[None, :]).sum()) / total
    r2 = (u[:, None] - cy) ** 2 + (u[None, :] - cx) ** 2
    spread = np.sqrt(max(float((shield * r2).sum()) / total, 1.0))
    k = SPREAD * SIZE / spread
    centre = (s - 1) / 2
    m = np.array([[k, 0, (SIZE - 1) / 2 - k * (centre + cx)], [0, k, (SIZE - 1) / 2 - k * (centre + cy)]])
    small = cv2.warpAffine(drawn, m, (SIZE, SIZE), flags=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), SOFTEN), np.float32)


def _disc(s: int, radius: float) -> np.ndarray:
    u = (np.arange(s) + 0.5) / s - 0.5
    return np.asarray(np.hypot(u[:, None], u[None, :]) < radius)


def _check(patches: np.ndarray) -> None:
    if patches.ndim != 4 or patches.shape[3] != 3 or patches.dtype != np.uint8:
        raise ValueError(
            f"patches must be (N, S, S, 3) uint8, got shape {patches.shape} dtype {patches.dtype}"
        )
