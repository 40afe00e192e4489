"""What a layout of Qwirkle Cubes shows that is not a tile, though every presence test passes.

- :func:`without_holes`: a hole in the layout, ringed by four cubes, is a well walled by their dark sides,
  with the table at its bottom framed in black;
- :func:`without_side_faces`: under a camera leaning 30° or more, the near side of a cube, painted with
  a symbol of its top face's colour, in the cell in front of it.

Both are called by :func:`vision.occupied.occupied` on a Cubes frame, after the probes; the first on a
classic or colour-blind frame too (:data:`vision.prototypes.HOLES_BY_COLOUR`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from vision.classify import name_shapes
from vision.geometry import local_axes
from vision.lattice import AROUND, among
from vision.paint_checks import (
    HOLE_CHROMA,
    SIDE_CHROMA,
    SIDE_LEAN,
    SIDE_SHADE,
    SIDE_SQUASH,
    SIDE_TILT,
    chroma_gap,
    squash,
    table_colour,
)

if TYPE_CHECKING:
    from vision.occupied import Located
    from vision.prototypes import Prototypes

#: The shapes the table framed by four flat tiles' bodies passes for: a blunt square, which blur rounds
#: towards a circle (a hole under a camera leaning 35 degrees, in dim light on green felt, was named a
#: circle at 0.998, fit 4.7).
HOLE_LIKE = ("square", "circle")


def without_holes(located: Located, *, shapes: Prototypes | None = None) -> Located:
    """``located`` without the cells ringed by four tiles whose paint is the table's own colour (within
    HOLE_CHROMA): among Qwirkle Cubes, a hole in the layout is a well walled by the neighbours' dark
    sides, and the table at its bottom is a square framed in black, which passes every test a symbol on
    its body does; so does the table framed by four flat tiles' bodies. (Not on Connect's printed board,
    whose white squares lie as close to its white tiles' measured paint.) Given ``shapes`` (the edition's,
    or among cubes the prototypes the tiles are named with), a cell whose symbol these name as the reader
    would name a tile (with its confidence and fit cuts, :data:`vision.reader.MIN_CONFIDENCE` and
    :data:`vision.reader.MAX_FIT`) a shape the table framed by four bodies does not pass for (HOLE_LIKE: a
    blunt square, or one blurred round) is kept: a tile of the table's colour (green on green felt) shows
    its own shape."""
    table = table_colour(located.work, located.lattice, located.cells)
    if table is None:
        return located
    hole = chroma_gap(located.measured.paint, table) <= HOLE_CHROMA
    if not hole.any():
        return located
    # the dark ring round a hole is its four neighbours' bodies
    sides = (located.cells[hole][:, None, :] + AROUND[None, :4]).reshape(-1, 2)
    hole[hole] = among(sides, located.cells).reshape(-1, 4).all(axis=1)
    if shapes is not None and hole.any():
        from vision.reader import MAX_FIT, MIN_CONFIDENCE  # the reader's own cuts (it imports this module)

        named, confidence, fit = name_shapes(located.measured.take(hole), shapes)
        other = (
            np.array([name not in HOLE_LIKE for name in named])
            & (confidence >= MIN_CONFIDENCE)
            & (fit <= MAX_FIT)
        )
        hole[np.flatnonzero(hole)[other]] = False
    return located.take(~hole) if hole.any() else located


def without_side_faces(located: Located, cut: np.ndarray) -> Located:
    """``located`` without the cells that show a side face of the cube beside them. Among Qwirkle Cubes,
    a camera leaning over the layout sees the near side of each cube at the layout's edge or across a hole
    in it, painted with a symbol of its top face's colour, in the cell in front of the cube. Such a cell is
    dropped where the camera leans at least 30° there (:data:`~vision.paint_checks.SIDE_TILT`) towards it
    from a neighbour (its cell seen SIDE_LEAN larger along that step, in the homography ``cut`` (3, 3)
    the patches were cut in) whose paint is of its colour (SIDE_CHROMA) and brighter (SIDE_SHADE), and its
    symbol is squashed (SIDE_SQUASH)."""
    cells, m = located.cells, located.measured
    suspect = np.flatnonzero(squash(m) >= SIDE_SQUASH)
    if len(suspect) == 0:
        return located
    at = {(r, c): i for i, (r, c) in enumerate(cells.tolist())}
    bright = m.paint.sum(axis=1)
    here = cells[suspect].astype(np.float64)
    axes = local_axes(cut, here)  # (K, 2, 2): a step down and right
    ends = np.linalg.svd(axes, compute_uv=False)  # (K, 2), larger first
    leaning = ends[:, 1] <= SIDE_TILT * ends[:, 0]
    face = np.zeros(len(cells), bool)
    for k, i in enumerate(suspect.tolist()):
        if not leaning[k]:
            continue
        r, c = cells[i].tolist()
        for dr, dc in AROUND[:4].tolist():
            j = at.get((r + dr, c + dc))
            if j is None or bright[i] > SIDE_SHADE * bright[j]:
                continue
            if chroma_gap(m.paint[i : i + 1], m.paint[j])[0] > SIDE_CHROMA:
                continue
            # the step towards the neighbour, seen at this cell and at the neighbour's
            there = local_axes(cut, np.array([r + dr, c + dc], np.float64))[0 if dr else 1]
            if np.hypot(*axes[k, 0 if dr else 1]) >= SIDE_LEAN * np.hypot(*there):
                face[i] = True
                break
    return located.take(~face) if face.any() else located
