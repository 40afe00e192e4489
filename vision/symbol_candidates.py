"""The symbol candidates of a frame: its working copy (the frame shrunk by the largest whole factor that
leaves a tile TILE_PX wide or more), the candidates the detector finds in it (:mod:`vision.detect`; for
Herkle its shields, :mod:`vision.shield_detect`) and the lattice fitted through them
(:mod:`vision.lattice`). :mod:`vision.occupied` then decides which cells hold tiles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision.detect import Blobs, find_blobs, strength
from vision.lattice import Lattice, fit_lattice
from vision.shield_detect import balanced, field_cast, find_shields

#: The working copy's longer side on the first pass, and the least tile width it is shrunk to (by a
#: whole factor: INTER_AREA is fastest on them, and the patches are cut at 32 pixels a cell anyway).
FIRST_PASS = 700
TILE_PX = 28.0
#: Herkle's shields are taken when the grid places at least this fraction of them (rendered sets: 0.57 and
#: more, half of the frames all of them; cores in the noise of a dark table in dim light: 0.17 and less).
SHIELDS_PLACED = 0.5


def candidates(
    image: np.ndarray, *, tileset: str | None = None, shields: bool = True
) -> tuple[np.ndarray, float, Blobs, Lattice] | None:
    """The working copy (the frame shrunk by the largest whole factor that leaves a tile TILE_PX wide),
    its scale, the symbol candidates in it and the lattice fitted to them (side neighbours nearest).
    ``tileset`` names the edition: Herkle's candidates are its shields (:mod:`vision.shield_detect`), or
    with ``shields`` False its pieces of paint; those are pieces of ordinaries, not symbols, so none of
    them stands apart (:attr:`vision.detect.Blobs.apart`). Shields the grid cannot hold (fewer than
    SHIELDS_PLACED of them placed: the cores found in the noise of a dark table in dim light) give way to
    the pieces of paint. Where a lamp's colour tints Herkle's grey field
    (:func:`vision.shield_detect.field_cast`), the frame scaled to make it grey again is read instead.
    Herkle's grid is fitted without taking out seams (:func:`vision.lattice.fit_lattice`)."""
    if tileset != "herkle":
        return _found_by(image, _paint_blobs)
    if shields:
        found = _found_by(image, find_shields, seams=False)
        gains = None if found is None else field_cast(found[0], found[2])
        if gains is not None:  # a lamp's colour tints the shields' grey field: undone on it
            image = balanced(image, gains)
            found = _found_by(image, find_shields, seams=False)
        if found is not None and found[3].placed.mean() >= SHIELDS_PLACED:
            return found
    return _found_by(image, _paint_pieces, seams=False)


def _found_by(
    image: np.ndarray, find: Callable[[np.ndarray], Blobs], *, seams: bool = True
) -> tuple[np.ndarray, float, Blobs, Lattice] | None:
    h, w = image.shape[:2]
    scale = 1.0 / max(1, round(max(h, w) / FIRST_PASS))
    work = working_copy(image, scale)
    blobs = find(work)
    if len(blobs) == 0:
        return None
    lattice = fit_lattice(blobs.centres, blobs.extents, seams=seams)
    if lattice.pitch < 0.9 * TILE_PX or lattice.pitch >= 2 * TILE_PX:
        better = 1.0 / max(1, int(lattice.pitch / (scale * TILE_PX)))
        if better != scale:
            scale = better
            work = working_copy(image, scale)
            blobs = find(work)
            if len(blobs) == 0:
                return None
            lattice = fit_lattice(blobs.centres, blobs.extents, seams=seams)
    return work, scale, blobs, lattice


def _paint_blobs(work: np.ndarray) -> Blobs:
    return find_blobs(strength(work)).typical()


def _paint_pieces(work: np.ndarray) -> Blobs:
    return replace(_paint_blobs(work), apart=np.zeros((0, 2)))


def working_copy(image: np.ndarray, scale: float) -> np.ndarray:
    """``image`` shrunk by ``scale`` (the inverse of a whole number), each pixel the rounded mean of its
    block (INTER_AREA)."""
    if scale >= 0.999:
        return image
    h, w = image.shape[:2]
    size = (max(round(w * scale), 1), max(round(h * scale), 1))
    k = round(1 / scale)
    if k % 2 and h % k == 0 and w % k == 0:
        # an odd factor's block mean is never halfway between two integers, so the box filter's rounding
        # is INTER_AREA's; the box filter over the whole frame, one pixel in k² kept, is faster (SIMD)
        mean = cv2.blur(image, (k, k), anchor=(0, 0))
        return np.asarray(cv2.resize(mean, size, interpolation=cv2.INTER_NEAREST))
    return np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA))
