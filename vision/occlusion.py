"""Cells something other than a tile covers: a hand reaching over the table, an arm, a cup.

The empty cells in and around the layout mostly show the table (or the printed board). A cell whose
colour is unlike almost all the others, and that is not a tile's dark body, shows something lying over
the table; where several such cells touch, it is a hand or the like, and every cell it covers is
reported ``occluded`` (a tile may be under it). No skin colour is assumed: hands, sleeves and gloves
differ, and so do tables; what counts is being unlike the table around the tiles.

Cells are ``(row, col)`` in the reader's own grid (:class:`vision.lattice.Lattice`).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import local_axes
from vision.lattice import Lattice
from vision.patches import cut_patches, inside_fraction

#: Side of the coarse patch a cell's colour is read from.
SIDE = 12
#: Lab distance (lightness at half weight) within which two cells show the same surface.
SAME = 14.0
#: A cell is unlike the table when fewer than this fraction of the empty cells look like it.
RARE = 0.15
#: A cell this dark (0..255, its darkest channel) and this near neutral (Lab chroma) is a tile's black
#: body, not a hand.
BODY = 60
NEUTRAL = 8.0
#: The fewest touching unlike cells that make a cover (a hand spans several cells).
LEAST = 4
#: How many cells beyond the tiles' bounding box the search reaches (towards the frame's edges).
REACH = 10
#: How many cells, at most, stand for the table when cells are compared.
SAMPLE = 64


def covered_cells(work: np.ndarray, lattice: Lattice, occupied: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Empty cells in and around the layout that something lying over the table hides.

    Every cell of the grid seen in the frame is looked at; a group of side-touching cells unlike the
    table (:data:`RARE`) that reaches the frame's edge (a cell within half a cell of it: an arm comes from
    outside the picture, past the last cells whose centres are in view; a pattern on a cloth repeats in
    patches that do not join) covers whatever lies under it.

    Parameters
    ----------
    work : ndarray, shape (H, W, 3), dtype uint8
        The (working copy of the) frame, BGR.
    lattice : Lattice
        The grid in ``work``'s pixels.
    occupied : ndarray, shape (N, 2), int
        Cells holding a tile.
    gains : ndarray, shape (3,)
        The frame's white balance (:func:`vision.prototypes.white_balance`).

    Returns
    -------
    ndarray, shape (K, 2), int64
        The covered cells next to a tile (sides or corners): where one may be hidden or be put next.
    """
    if len(occupied) == 0:
        return np.zeros((0, 2), np.int64)
    cells = _cells_in_view(work.shape[:2], lattice, occupied)
    if len(cells) < 4 * LEAST:
        return np.zeros((0, 2), np.int64)
    centres = lattice.point(cells.astype(np.float64))
    axes = local_axes(lattice.homography, cells.astype(np.float64))
    # a cell within half a cell of the frame's edge (the next cell's centre may lie outside the frame)
    edge = inside_fraction(work.shape[:2], centres, 2 * axes) < 0.99
    patches = cut_patches(work, centres, axes, size=SIDE, span=0.8).astype(np.float32)
    # each patch's mean colour: float32 sums of whole 8-bit values are exact in any order
    pixels = patches.reshape(len(patches), -1, 3)
    colour = (np.ones(pixels.shape[1], np.float32) @ pixels) / np.float32(pixels.shape[1])
    balanced = np.clip(colour / gains / 255.0, 0, 1).astype(np.float32)
    lab = cv2.cvtColor(balanced[None], cv2.COLOR_BGR2LAB)[0] * np.array([0.5, 1.0, 1.0], np.float32)
    reference = lab[:: max(len(lab) // SAMPLE, 1)]  # an even sample of the cells stands for all of them
    # Euclidean distances (N, K), channel by channel
    step = [lab[:, None, k] - reference[None, :, k] for k in range(3)]
    distance = np.sqrt(step[0] * step[0] + step[1] * step[1] + step[2] * step[2])
    body = (colour.min(axis=1) < BODY) & (np.hypot(lab[:, 1], lab[:, 2]) < NEUTRAL)  # a tile's black
    unlike = ((distance < SAME).mean(axis=1) < RARE) & ~body
    taken = set(map(tuple, np.asarray(occupied).tolist()))
    keep = {c for g in _groups(cells[unlike], {tuple(c) for c in cells[unlike & edge].tolist()}) for c in g}
    out = [c for c in keep if any((c[0] + dr, c[1] + dc) in taken for dr in (-1, 0, 1) for dc in (-1, 0, 1))]
    return np.array(sorted(out), np.int64).reshape(-1, 2)


def _cells_in_view(shape: tuple[int, int], lattice: Lattice, occupied: np.ndarray) -> np.ndarray:
    """The empty cells whose centres lie in a frame of ``shape`` (H, W), at most REACH cells beyond
    the tiles."""
    h, w = shape
    corners = np.array([[0.0, 0.0], [0.0, w - 1.0], [h - 1.0, 0.0], [h - 1.0, w - 1.0]])
    span = lattice.cell_of(corners)
    lo = np.floor(np.maximum(span.min(axis=0), occupied.min(axis=0) - REACH)).astype(np.int64)
    hi = np.ceil(np.minimum(span.max(axis=0), occupied.max(axis=0) + REACH)).astype(np.int64)
    rows, cols = np.mgrid[lo[0] : hi[0] + 1, lo[1] : hi[1] + 1]
    cells = np.stack([rows.ravel(), cols.ravel()], axis=1)
    p = lattice.point(cells.astype(np.float64))
    inside = (p[:, 0] >= 0) & (p[:, 0] <= h - 1) & (p[:, 1] >= 0) & (p[:, 1] <= w - 1)
    # the tiles' cells struck off the box of cells, in place of a search among them
    free = np.ones(rows.shape, bool)
    there = occupied[np.all((occupied >= lo) & (occupied <= hi), axis=1)] - lo
    free[there[:, 0], there[:, 1]] = False
    return np.asarray(cells[inside & free.ravel()], np.int64)


def _groups(cells: np.ndarray, edge: set[tuple[int, ...]]) -> list[list[tuple[int, int]]]:
    """The groups of side-touching ``cells`` with at least LEAST cells and one on the frame's ``edge``."""
    left = {(int(r), int(c)) for r, c in cells}
    out: list[list[tuple[int, int]]] = []
    while left:
        todo = [left.pop()]
        group = list(todo)
        while todo:
            r, c = todo.pop()
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in left:
                    left.remove(n)
                    todo.append(n)
                    group.append(n)
        if len(group) >= LEAST and any(g in edge for g in group):
            out.append(group)
    return out
