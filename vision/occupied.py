"""Which cells hold tiles: the working copy of a frame, the symbol candidates in it, the grid through them,
and the probes that find the tiles the detector missed next to the ones it found (:class:`Located`).

The working copy is the frame shrunk by a whole factor (a tile stays TILE_PX wide or more). Symbol
candidates (:mod:`vision.detect`) placed on the grid (:mod:`vision.lattice`) are kept where their patch
shows a contrasted symbol; then the cells next to them are looked at, round after round outwards
(:func:`look`): a symbol whose tip touches its tile's edge, or whose paint runs into the table, is found
there. :mod:`vision.reader` names what is found.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.detect import Blobs, find_blobs, strength
from vision.features import MAX_REACH, Measurements, Presence, measure, presence
from vision.geometry import local_axes
from vision.lattice import Lattice, cell_keys, fit_lattice
from vision.patches import PATCH
from vision.patches import cut_patches as _cut

#: The working copy's longer side on the first pass, and the least tile width it is shrunk to (by a
#: whole factor: INTER_AREA is fastest on them, and the patches are cut at 32 pixels a cell anyway).
FIRST_PASS = 700
TILE_PX = 28.0
#: A patch whose paint stands out less than this from its body holds no tile.
MIN_CONTRAST = 0.7
#: How many times the cells next to the tiles found so far are probed for tiles the detector missed (a
#: row of missed tiles is found one cell further each time; it stops early when nothing new shows).
PROBE_ROUNDS = 8
#: Full looks at a probe, each recentred on the paint the one before showed.
LOOKS = 2
#: A probe's symbol lies within this many cells of where its cell was predicted.
RECENTRE = 0.4


@dataclass(frozen=True)
class Located:
    """Where the tiles are: the working copy, its scale, and per occupied cell its centre and axes."""

    work: np.ndarray
    scale: float
    lattice: Lattice
    cells: np.ndarray  # (N, 2) int
    centres: np.ndarray  # (N, 2) work pixels
    patches: np.ndarray  # (N, S, S, 3)
    measured: Measurements

    def take(self, keep: np.ndarray) -> Located:
        """The tiles of ``keep`` (a mask or indices) only."""
        return replace(
            self,
            cells=self.cells[keep],
            centres=self.centres[keep],
            patches=self.patches[keep],
            measured=self.measured.take(keep),
        )


def candidates(image: np.ndarray) -> tuple[np.ndarray, float, Blobs, Lattice] | None:
    """The working copy (the frame shrunk by the largest whole factor that leaves a tile TILE_PX wide),
    its scale, the symbol candidates in it and the lattice fitted to them (side neighbours nearest)."""
    h, w = image.shape[:2]
    scale = 1.0 / max(1, round(max(h, w) / FIRST_PASS))
    work = _resize(image, scale)
    blobs = find_blobs(strength(work)).typical()
    if len(blobs) == 0:
        return None
    lattice = fit_lattice(blobs.centres, blobs.extents)
    if lattice.pitch < 0.9 * TILE_PX or lattice.pitch >= 2 * TILE_PX:
        better = 1.0 / max(1, int(lattice.pitch / (scale * TILE_PX)))
        if better != scale:
            scale = better
            work = _resize(image, scale)
            blobs = find_blobs(strength(work)).typical()
            if len(blobs) == 0:
                return None
            lattice = fit_lattice(blobs.centres, blobs.extents)
    return work, scale, blobs, lattice


def occupied(work: np.ndarray, scale: float, blobs: Blobs, lattice: Lattice) -> Located | None:
    """Measure the cells of the placed candidates, then look for missed tiles next to them."""
    cells = lattice.cells[lattice.placed]
    centres = blobs.centres[lattice.placed]
    axes = local_axes(lattice.homography, cells.astype(np.float64))
    patches = _cut(work, centres, axes)
    p = presence(patches)
    keep = (p.contrast > MIN_CONTRAST) & (p.reach < MAX_REACH)
    if not keep.any():
        return None
    located = Located(
        work, scale, lattice, cells[keep], centres[keep], patches[keep], measure(patches[keep], p.take(keep))
    )
    return probed(located, located.cells)


def probed(located: Located, tried: np.ndarray) -> Located:
    """``located`` with the tiles found by probing the cells next to its tiles, not ``tried`` (K, 2) yet,
    round after round outwards."""
    lattice, cells, centres = located.lattice, located.cells, located.centres
    patches, measured = [located.patches], [located.measured]
    for _ in range(PROBE_ROUNDS):
        probe, guess = _neighbours(lattice, cells, centres, tried)
        if len(probe) == 0:
            break
        tried = np.concatenate([tried, probe])
        rows, where, cut, m = look(
            located.work, guess, local_axes(lattice.homography, probe.astype(np.float64))
        )
        if m is None:
            break
        cells = np.concatenate([cells, probe[rows]])
        centres = np.concatenate([centres, where])
        patches.append(cut)
        measured.append(m)
    if len(measured) == 1:
        return located
    return replace(
        located, cells=cells, centres=centres, patches=np.concatenate(patches), measured=concat(measured)
    )


def look(
    work: np.ndarray, predicted: np.ndarray, axes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None]:
    """Look for symbols at predicted cell centres (N, 2) of the working copy, cells' axes (N, 2, 2).

    Returns the rows (K,) of the predictions where a tile was found, its symbol's centre (K, 2), its patch
    and its measurements (None when none is found).
    """
    none = (np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, PATCH, PATCH, 3), np.uint8), None)
    # a coarse first look (a quarter of the pixels) at every prediction, full ones where paint shows
    first = presence(_cut(work, predicted, axes, size=PATCH // 2))
    rows = np.flatnonzero(first.contrast > MIN_CONTRAST)
    if len(rows) == 0:
        return none
    predicted, axes = predicted[rows], axes[rows]
    # recentre on the symbol found, then look again
    guess = predicted + np.einsum("nk,nkd->nd", first.offset[rows], axes)
    again = _cut(work, guess, axes)
    second = presence(again)
    found = second.found(MIN_CONTRAST)
    # the coarse look sees a symbol that the prediction missed by a fifth of a cell only in part, and its
    # centroid moves the patch only part of the way: where paint shows, recentre again
    for _ in range(LOOKS - 1):
        retry = np.flatnonzero(~found & (second.contrast > MIN_CONTRAST))
        if len(retry) == 0:
            break
        guess[retry] += np.einsum("nk,nkd->nd", second.offset[retry], axes[retry])
        again[retry] = _cut(work, guess[retry], axes[retry])
        second = _with(second, retry, presence(again[retry]))
        found = second.found(MIN_CONTRAST)
    # a symbol found far from its cell's prediction is a neighbour's
    found &= _near(guess, predicted, axes, RECENTRE)
    if not found.any():
        return none
    return rows[found], guess[found], again[found], measure(again[found], second.take(found))


def _neighbours(
    lattice: Lattice, cells: np.ndarray, centres: np.ndarray, tried: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cells not ``tried`` (K, 2) yet next to occupied ones (sides and corners), and where to look for
    them (the grid's prediction moved by the neighbours' own offsets from it, which follows a drifting
    row)."""
    residual = centres - lattice.point(cells.astype(np.float64))
    around = (cells[:, None, :] + AROUND[None]).reshape(-1, 2)
    source = np.repeat(np.arange(len(cells)), len(AROUND))
    fresh = ~np.isin(cell_keys(around), cell_keys(tried))
    if not fresh.any():
        return np.zeros((0, 2), np.int64), np.zeros((0, 2))
    # the distinct cells, sorted (their keys sort as the cells do), and which of them each one is
    _, first, which = np.unique(cell_keys(around[fresh]), return_index=True, return_inverse=True)
    keys, which = around[fresh][first], which.reshape(-1)
    shift = np.zeros((len(keys), 2))
    np.add.at(shift, which, residual[source[fresh]])
    shift /= np.bincount(which, minlength=len(keys))[:, None]
    return keys.astype(np.int64), lattice.point(keys.astype(np.float64)) + shift


def _near(points: np.ndarray, targets: np.ndarray, axes: np.ndarray, cells: float) -> np.ndarray:
    """Whether each point (N, 2) lies within ``cells`` cells of its target along both of its axes."""
    steps = np.linalg.solve(axes.transpose(0, 2, 1), (points - targets)[..., None])[..., 0]
    return np.asarray(np.abs(steps).max(axis=1) < cells)


def _with(p: Presence, rows: np.ndarray, new: Presence) -> Presence:
    """``p`` with its ``rows`` replaced by ``new``'s."""
    out = {f: getattr(p, f).copy() for f in Presence.__dataclass_fields__ if f != "radius"}
    for f, v in out.items():
        v[rows] = getattr(new, f)
    return Presence(**out, radius=p.radius)


AROUND = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], np.int64)


def concat(parts: list[Measurements]) -> Measurements:
    return Measurements(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in Measurements.__dataclass_fields__)
    )


def _resize(image: np.ndarray, scale: float) -> np.ndarray:
    if scale >= 0.999:
        return image
    h, w = image.shape[:2]
    size = (max(round(w * scale), 1), max(round(h * scale), 1))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)
