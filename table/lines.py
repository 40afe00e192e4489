"""Lines: the maximal runs of touching tiles along a row or a column, and what makes one valid.

A line of two or more tiles is valid when its tiles are all one colour with distinct shapes, or all one
shape with distinct colours, and it holds at most six tiles. These helpers work on a plain ``dict`` from
cells to tiles so that the rules, the scoring and the move search share one fast implementation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from table.board import Cell
from table.tiles import Tile

MAX_LINE = 6

ROW: Cell = (0, 1)  # a line along a row: the column changes
COL: Cell = (1, 0)  # a line along a column: the row changes
AXES = (ROW, COL)


def line_through(tiles: Mapping[Cell, Tile], cell: Cell, axis: Cell) -> tuple[Cell, ...]:
    """The cells of the maximal run of tiles through ``cell`` along ``axis``, in order.

    ``cell`` itself is included whether or not it holds a tile; a result of length 1 means no line.
    """
    dr, dc = axis
    r, c = cell
    before: list[Cell] = []
    at = (r - dr, c - dc)
    while at in tiles:
        before.append(at)
        at = (at[0] - dr, at[1] - dc)
    after: list[Cell] = []
    at = (r + dr, c + dc)
    while at in tiles:
        after.append(at)
        at = (at[0] + dr, at[1] + dc)
    if not before and not after:
        return (cell,)
    before.reverse()
    before.append(cell)
    before.extend(after)
    return tuple(before)


def lines_through(tiles: Mapping[Cell, Tile], cells: Sequence[Cell]) -> list[tuple[Cell, ...]]:
    """Every distinct line of two or more tiles through any of ``cells`` (tiles already in ``tiles``).

    When the cells share a row or a column, that shared line comes first, then the crossing lines in the
    order of ``cells``; this is the order in which lines are reported and scored.
    """
    axes = AXES
    if len(cells) > 1:
        axes = (ROW, COL) if cells[0][0] == cells[1][0] else (COL, ROW)
    found: list[tuple[Cell, ...]] = []
    for axis in axes:
        for cell in cells:
            line = line_through(tiles, cell, axis)
            if len(line) > 1 and line not in found:
                found.append(line)
    return found


def line_ok(line: Sequence[Tile]) -> bool:
    """Whether tiles in a row form a valid line (a single tile always does)."""
    n = len(line)
    if n < 2:
        return True
    if n > MAX_LINE:
        return False
    colours = {t.colour for t in line}
    shapes = {t.shape for t in line}
    return (len(colours) == 1 and len(shapes) == n) or (len(shapes) == 1 and len(colours) == n)


def describe(cells: Sequence[Cell]) -> str:
    """``"row 3, columns 1–4"`` or ``"column 2, rows -1–3"`` for the cells of a line."""
    (r0, c0), (r1, c1) = cells[0], cells[-1]
    if r0 == r1:
        return f"the line in row {r0}, columns {c0}–{c1}"
    return f"the line in column {c0}, rows {r0}–{r1}"


def cell_text(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"
