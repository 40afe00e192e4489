"""Shapes the rules of the game put in doubt: a name the photo cannot tell from another that breaks a line.

A blurred symbol keeps its fourfold harmonic and loses its sharper ones first, so two shapes can fit the
outline within the reader's fit cut: a diamond blurred round (its corners' eightfold harmonic gone) lies a
few of the diamond's narrow spreads from it and about as many of the clover's wide ones from the clover,
and was named a clover with confidence (tilt 35°, 40 px per tile, dim light). The tile's neighbours often
tell: a Qwirkle line is one colour or one shape and never holds a tile twice. Where a tile's name breaks a
line it forms with the tiles read with it, and another shape that its outline also fits within the fit cut
keeps every line through it valid, the photo has not told the two apart and the rules say the named one is
wrong: the tile is left uncertain (its shape confidence is at most one half, two names equally near), not
renamed. A reading records illegal plays too, so the rules only doubt a name the photo leaves open; a tile
whose outline fits one shape alone keeps its name, legal or not.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from table import Tile
from table.lines import AXES, MAX_LINE, line_ok, line_through
from vision.classify import shape_distance
from vision.features import Measurements
from vision.named import Named
from vision.prototypes import Prototypes

#: A doubted tile's shape confidence: two names equally near.
EVEN = 0.5


def doubted(
    named: Named,
    cells: np.ndarray,
    m: Measurements,
    prototypes: Prototypes,
    *,
    least: float,
    max_fit: float,
) -> Named:
    """``named`` with the shape confidence at most :data:`EVEN` where the rules put a tile's shape in doubt.

    Parameters
    ----------
    named : Named
        The tiles' names (N).
    cells : ndarray, shape (N, 2), int
        Each tile's (row, col) cell; any quarter turn or shift of the grid's cells alike.
    m : Measurements
        The tiles' measurements (N), as ``named`` was named from.
    prototypes : Prototypes
        The prototypes they were named with.
    least : float
        The confidence a tile is read at (the others count in no line).
    max_fit : float
        The fit cut, in spreads, for the name read and for another shape to be one the outline fits.

    Only editions whose shapes are named by their outline (:func:`vision.classify.shape_distance`): not
    Herkle, whose ordinaries are named on their shields with the frame's "up" voted over every tile.
    """
    if not prototypes.outlines:  # Herkle's ordinaries: named on their shields, the frame's "up" voted
        return named
    read = np.flatnonzero(
        (named.confidence >= least) & (named.shape_fit <= max_fit) & (named.colour_fit <= max_fit)
    )
    at = np.asarray(cells, np.int64).reshape(-1, 2)[read]
    listed = read.tolist()  # plain ints: a list indexed by NumPy integers is slow
    colours = [named.colours[i] for i in listed]
    shapes = [named.shapes[i] for i in listed]
    broken = read[_in_broken_line(at, _ids(colours), _ids(shapes))]
    if not len(broken):
        return named
    where = [(int(r), int(c)) for r, c in np.asarray(cells, np.int64).tolist()]
    tiles = {where[i]: Tile(named.colours[i], named.shapes[i]) for i in listed}
    names, distance = shape_distance(m.take(broken), prototypes)
    doubt = np.zeros(len(named.shapes), bool)
    for j, i in enumerate(broken):
        cell = where[i]
        for k in np.flatnonzero(distance[j] <= max_fit):
            if names[k] != named.shapes[i] and _valid(
                {**tiles, cell: Tile(named.colours[i], names[k])}, cell
            ):
                doubt[i] = True
                break
    if not doubt.any():
        return named
    return dataclasses.replace(
        named,
        shape_confidence=np.where(doubt, np.minimum(named.shape_confidence, EVEN), named.shape_confidence),
    )


def _valid(tiles: dict[tuple[int, int], Tile], cell: tuple[int, int]) -> bool:
    """Whether both lines through ``cell`` (which holds a tile of ``tiles``) are valid."""
    return all(line_ok([tiles[c] for c in line_through(tiles, cell, axis)]) for axis in AXES)


def _ids(names: list[str]) -> np.ndarray:
    """Each name's index (N,) among the distinct names, in order of first appearance."""
    index = {k: j for j, k in enumerate(dict.fromkeys(names))}
    return np.array([index[k] for k in names], np.int64)


def _in_broken_line(cells: np.ndarray, colours: np.ndarray, shapes: np.ndarray) -> np.ndarray:
    """Which tiles (N,) at ``cells`` (N, 2) with ``colours`` and ``shapes`` (N,) ids lie in an invalid line.

    A line (a run of side-by-side tiles along a row or a column) is valid when it holds one tile, or at
    most six all of one colour with distinct shapes, or all of one shape with distinct colours
    (:func:`table.lines.line_ok`). Every run of both axes is judged at once (the rows' runs, then the
    columns' as rows of the cells transposed, kept apart by an offset), its distinct colours and shapes
    counted as the bits set in the union of one bit per id.
    """
    n = len(cells)
    if n < 2:
        return np.zeros(n, bool)
    cells = cells - cells.min()
    across = np.concatenate([cells[:, 0], cells[:, 1] + int(cells.max()) + 2])
    along = np.concatenate([cells[:, 1], cells[:, 0]])
    order = np.lexsort((along, across))
    apart = (np.diff(across[order]) != 0) | (np.diff(along[order]) != 1)
    starts = np.flatnonzero(np.concatenate([[True], apart]))
    size = np.diff(np.append(starts, 2 * n))
    tiles = order % n
    n_colours = _BITS[np.bitwise_or.reduceat(1 << colours[tiles], starts)]
    n_shapes = _BITS[np.bitwise_or.reduceat(1 << shapes[tiles], starts)]
    one_way = ((n_colours == 1) & (n_shapes == size)) | ((n_shapes == 1) & (n_colours == size))
    ok = (size == 1) | ((size <= MAX_LINE) & one_way)
    out = np.zeros(n, bool)
    out[tiles[np.repeat(~ok, size)]] = True
    return out


#: How many bits each number below 2 ** 8 has set (an edition has at most eight colours or shapes).
_BITS = np.array([bin(k).count("1") for k in range(1 << 8)])
