"""Scoring a legal placement.

Every line of two or more tiles through a placed tile scores its length, once; a tile in two lines
counts in both; a line of six (a Qwirkle) scores 6 more; a lone tile on an empty table scores 1 (as a
line of one); on a
printed board every bonus cell a placed tile covers adds its points. The +6 for going out is the
game's (:mod:`table.game`), not the placement's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from table.board import Board, Cell, PlacedTile
from table.layout import Layout
from table.lines import MAX_LINE, lines_through
from table.tiles import Tile

QWIRKLE_BONUS = 6


@dataclass(frozen=True, slots=True)
class ScoredLine:
    """A line that scored: its cells in order, its points (length, +6 for a Qwirkle)."""

    cells: tuple[Cell, ...]
    points: int
    qwirkle: bool


@dataclass(frozen=True, slots=True)
class Score:
    """The points of one placement: the lines, the printed-board bonus, and the total."""

    lines: tuple[ScoredLine, ...]
    bonus: int = 0

    @property
    def line_points(self) -> int:
        return sum(line.points for line in self.lines)

    @property
    def total(self) -> int:
        return self.line_points + self.bonus

    @property
    def qwirkles(self) -> int:
        return sum(line.qwirkle for line in self.lines)


def score(board: Board, placement: Iterable[PlacedTile], *, layout: Layout | None = None) -> Score:
    """The score of putting a legal ``placement`` on ``board`` (the placement is not re-checked).

    Lines come in a fixed order: the line the placed tiles share first, then the crossing lines in the
    order of the placement's cells.
    """
    placed = sorted(placement)
    merged = dict(board._tiles)
    for p in placed:
        merged[p.row, p.col] = p.tile
    cells = [(p.row, p.col) for p in placed]
    return score_lines(merged, cells, lines_through(merged, cells), layout=layout)


def score_lines(
    merged: dict[Cell, Tile],
    cells: list[Cell],
    lines_found: list[tuple[Cell, ...]],
    *,
    layout: Layout | None = None,
) -> Score:
    """The score of the tiles at ``cells`` (sorted), already placed in ``merged``, whose lines of two or
    more are ``lines_found`` (from :func:`table.lines.lines_through`)."""
    lines = [
        ScoredLine(line, len(line) + (QWIRKLE_BONUS if len(line) == MAX_LINE else 0), len(line) == MAX_LINE)
        for line in lines_found
    ]
    if not lines and len(cells) == 1:  # a lone tile on an empty table: a "line" of one, 1 point
        lines.append(ScoredLine((cells[0],), 1, False))
    bonus = sum(layout.bonus_at(c) for c in cells) if layout is not None else 0
    return Score(tuple(lines), bonus)
