"""Patches cut again in axes truer than the grid's, where the symbols say they are.

The grid's map cuts every tile's patch in its local axes (:func:`vision.geometry.local_axes`). Where the
map has no foreshortening of its own (a similarity through a few tiles or two or three rows), or was
fitted before the probes found the rest of the layout, a steep camera's lean stretches every patch along
one direction, and every outline gains a second harmonic. Each Qwirkle symbol is as wide one way as the
other, so the symbols themselves tell which axes are true: a recut is kept only where their median
asymmetry (:func:`vision.outline.asymmetry`) falls.

- :func:`recut`: the foreshortened axes through all the tiles, or a map through them;
- :func:`squared`: the stretch the symbols' second moments still show, taken out
  (:func:`vision.perspective.leftover_stretch`).

Both are called by :func:`vision.occupied.occupied`, which passes its ``within`` (how far a tile may lie
from where a map puts it, in cells).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from vision.features import measure, presence
from vision.geometry import apply_homography, cells_off, foreshortened, local_axes
from vision.outline import asymmetry
from vision.patches import cut_patches
from vision.perspective import foreshortening, leftover_stretch

if TYPE_CHECKING:
    from vision.occupied import Located


def recut(located: Located, *, narrow: bool, within: float) -> tuple[Located, np.ndarray]:
    """``located`` with every patch cut again, and measured, in the foreshortened axes through all its
    tiles (:func:`vision.geometry.foreshortened`), where the detector's tiles alone were too few for them
    and the probes found more, or, where the grid is a similarity (``narrow``: its candidates too few or
    on two or three rows) and those axes cannot be fitted, in the map through the tiles
    (:func:`vision.perspective.foreshortening`: an affine map through three tiles or more off one line, a
    homography through four or more spread a cell), each holding its tiles ``within`` cells; kept where
    the symbols are more nearly whole in them (:func:`_truer`); else ``located`` itself. Also the
    homography (3, 3) whose axes the patches returned are cut in."""
    cells = located.cells.astype(np.float64)
    h = located.lattice.homography
    cut: np.ndarray | None = foreshortened(h, cells, located.centres, within=within)
    if cut is h and narrow:
        # the grid's similarity has no foreshortening, and too few tiles or a layout too wide for the
        # foreshortened homography: a map through the tiles measures it (:func:`foreshortening`)
        cut = foreshortening(h, cells, located.centres, within=within)
    if cut is h or cut is None:
        return located, h
    # a homography through a narrow row bent by drift takes the bend for perspective: the symbols, each
    # as wide one way as the other, tell which axes are true
    truer = _truer(located, local_axes(cut, cells))
    return (located, h) if truer is None else (truer, cut)


def squared(located: Located, cut: np.ndarray, *, within: float) -> Located:
    """``located``, whose patches are cut in the axes of the homography ``cut`` (3, 3), with every patch
    cut again, and measured, in those axes with the stretch its symbols still show taken out
    (:func:`vision.perspective.leftover_stretch`: a similarity's one scale, or a map through a few tiles,
    under a tilted camera), kept where the symbols are more nearly whole in them (:func:`_truer`); else,
    or where a tile lies further than ``within`` cells from where ``cut`` puts it, ``located`` itself."""
    cells = located.cells.astype(np.float64)
    axes = local_axes(cut, cells)
    # a map bent out of true (a tile further than within from where it puts it) stretches its patches
    # with its bend, and a stretch its symbols show may be the grid's own doubt
    if cells_off(located.centres, apply_homography(cut, cells), axes).max() > within:
        return located
    stretch = leftover_stretch(located.measured.radial)
    if stretch is None:
        return located
    truer = _truer(located, np.einsum("ij,njk->nik", stretch, axes))
    return located if truer is None else truer


def _truer(located: Located, axes: np.ndarray) -> Located | None:
    """``located`` with every patch cut again in ``axes`` (N, 2, 2) and measured, where the symbols are
    more nearly whole in them (a lower median :func:`vision.outline.asymmetry`: a patch stretched along a
    steep camera's lean adds a second harmonic to every outline); else None."""
    patches = cut_patches(located.work, located.centres, axes)
    measured = measure(patches, presence(patches))
    if np.median(asymmetry(measured.radial)) >= np.median(asymmetry(located.measured.radial)):
        return None
    return replace(located, patches=patches, measured=measured)
