"""The constant masks of a cell's patch, counting a mask's pixels, and which of a patch's paint is its
symbol's own (the part covering the cell's middle) where other paint shows in the cell.

Patches are (N, S, S) stacks in the grid's axes, (row, col) order; a pixel's centre lies ``u`` cells from
the patch's middle (-0.5..0.5). :mod:`vision.features` measures with these.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

#: A symbol's centre is found from its paint within this chessboard distance of its paint's median, in
#: cells (a symbol reaches about 0.30 to 0.39 of a cell from its centre; a neighbour's paint joined to
#: it lies beyond).
WITHIN = 0.38


@dataclass(frozen=True)
class PatchGrid:
    """The constant masks of an S×S patch (S = ``len(u)``): ``u`` the pixel centres in cells from the middle
    (-0.5..0.5), ``radius`` the chessboard distance from the middle (S, S), and the masks and flat
    indices the measurements use."""

    u: np.ndarray
    radius: np.ndarray
    inside: np.ndarray  # radius < 0.46: the cell's face, short of its edge
    edge: np.ndarray  # radius < 0.48
    band: np.ndarray  # 0.40 < radius < 0.46: just inside the face's edge
    band_size: int
    body: np.ndarray  # flat indices of radius > 0.40
    core: np.ndarray  # flat indices within 0.30 of the middle
    core_mask: np.ndarray
    ring: np.ndarray  # radius > 0.38
    r2: np.ndarray  # squared pixel distance from the middle
    rim_band: np.ndarray  # WITHIN + 0.02 < radius < 0.46: where a neighbour's paint may join a symbol


@functools.cache
def patch_grid(s: int) -> PatchGrid:
    """The masks of an S×S patch, made once for each S and shared (read-only)."""
    u = (np.arange(s) + 0.5) / s - 0.5
    radius = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :])
    core = np.hypot(u[:, None], u[None, :]) < 0.30
    band = (radius > 0.40) & (radius < 0.46)
    px = np.arange(s) - (s - 1) / 2
    grid = PatchGrid(
        u=u,
        radius=radius,
        inside=radius < 0.46,
        edge=radius < 0.48,
        band=band,
        band_size=int(band.sum()),
        body=np.flatnonzero(radius > 0.40),
        core=np.flatnonzero(core),
        core_mask=core,
        ring=radius > 0.38,
        r2=px[:, None] ** 2 + px[None, :] ** 2,
        rim_band=(radius > WITHIN + 0.02) & (radius < 0.46),
    )
    for value in vars(grid).values():  # shared by every call: never to be written to
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return grid


def line_counts(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many pixels of each patch's mask (N, S, S) are set in each row and in each column: two
    (N, S) int64 arrays (counted as float32 matrix products, exact below 2**24)."""
    ones = np.ones(mask.shape[1], np.float32)
    m = mask.astype(np.float32)
    return (m @ ones).astype(np.int64), (ones @ m).astype(np.int64)


def pixel_count(mask: np.ndarray) -> np.ndarray:
    """How many pixels of each patch's mask (N, S, S) bool are set: (N,) int32 (whole numbers, as the
    mask's sum would give, counted by OpenCV in one pass)."""
    n = len(mask)
    if n == 0:
        return np.zeros(0, np.int32)
    flat = np.ascontiguousarray(mask).view(np.uint8).reshape(n, -1)
    return np.asarray(cv2.reduce(flat, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S)).reshape(n)


def symbol_centres(offset: np.ndarray, rows: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Each symbol's own centre (N, 2), in cells ``(row, col)`` from the patch centre: the centroid of
    its own paint ``own`` (K, S, S) for the patches ``rows`` (K,) where other paint was found
    (:func:`symbol_parts`), ``offset`` (N, 2; the centroid of all the paint in the cell) for the others."""
    out = np.array(offset, np.float64, copy=True)
    out[rows] = _centroid(own, patch_grid(own.shape[-1]).u)
    return out


def symbol_parts(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The patches (K,) whose paint (``level`` (N, S, S) above one half) is not all their symbol's, and
    each one's symbol's own paint (K, S, S) bool.

    Paint that is not the symbol's pulls the centroid aside and tints the paint's colour: a leaning
    cube's side face, a neighbour's edge, the light table past the face. The symbol is the connected part
    of the paint that covers most of the cell's middle (every symbol covers its centre, or rings it
    around the colour-blind inner mark). Paint of a neighbour (a cube's side face, the table) may join
    the symbol's part through a blurred neck, so only the part's paint within WITHIN of its median pixel
    (a chessboard distance) is kept, where the symbol lies (the whole part where none lies within).
    Listed are the patches with several parts of paint or paint in the band just inside the cell's edge;
    in the others all the paint is the symbol's.
    """
    n, s = level.shape[:2]
    g = patch_grid(s)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros((0, s, s), bool)
    # count the parts of paint of all patches in one labelling, the patches stacked with an empty row
    # after each (no part runs from one into the next); only where there are several are they told apart
    paint = np.zeros((n, s + 1, s), np.uint8)
    paint[:, :s] = (level > 0.5) & g.inside
    _, labels = cv2.connectedComponents(paint.reshape(n * (s + 1), s), connectivity=8)
    labels = labels.reshape(n, -1)
    # the lowest label of each patch's paint, less one (a patch without paint: the largest uint32)
    lowest = (labels - 1).view(np.uint32).min(axis=1).astype(np.int64) + 1
    # one part of paint (or none), short of the band inside the cell's edge: the centroid is the symbol's
    several = lowest < labels.max(axis=1)
    edged = pixel_count(paint[:, :s].view(bool) & g.rim_band) > 0
    rows = np.flatnonzero(several | edged)
    parts = paint[rows, :s].view(bool)  # (the one part of paint where there is one)
    for k in np.flatnonzero(several[rows]):
        count, labels = cv2.connectedComponents(paint[rows[k], :s], connectivity=8)
        main = np.bincount(labels[g.core_mask], minlength=count)[1:].argmax() + 1
        parts[k] = labels == main
    return rows, _near_median(parts, g.u)


def _near_median(part: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each patch's part of paint (N, S, S) bool within WITHIN (a chessboard distance) of its median
    pixel, ``u`` (S,) the pixel centres in cells; the whole part where none lies within."""
    per_row, per_col = line_counts(part)
    total = per_row.sum(axis=1)
    centre = np.stack([_median_at(per_row, total, u), _median_at(per_col, total, u)], axis=1)
    near_row = np.abs(u[None, :] - centre[:, :1]) < WITHIN  # (N, S)
    near_col = np.abs(u[None, :] - centre[:, 1:]) < WITHIN
    near = part & near_row[:, :, None] & near_col[:, None, :]
    none = pixel_count(near) == 0
    near[none] = part[none]
    return np.asarray(near)


def _centroid(part: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The centroid (N, 2) ``(row, col)`` in cells of each patch's mask (N, S, S) bool, ``u`` (S,) the
    pixel centres in cells."""
    in_row, in_col = line_counts(part)
    count = in_row.sum(axis=1)
    return np.asarray(np.stack([in_row @ u, in_col @ u], axis=1) / np.maximum(count, 1)[:, None])


def _median_at(counts: np.ndarray, total: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The median (N,) of the pixel coordinates ``u`` (S,) taken ``counts`` (N, S) times each (``total``
    (N,) in all): the mean of the two middle ones for an even total."""
    running = np.cumsum(counts, axis=1)
    low = (running > ((total - 1) // 2)[:, None]).argmax(axis=1)
    high = (running > (total // 2)[:, None]).argmax(axis=1)
    return np.asarray((u[low] + u[high]) / 2)
