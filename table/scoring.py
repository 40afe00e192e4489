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
from table.lines import AXES, MAX_LINE, line_through

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
        merged[p.cell] = p.tile
    lines: list[ScoredLine] = []
    seen: set[tuple[Cell, ...]] = set()
    axes = AXES
    if len(placed) > 1:
        along = AXES[0] if placed[0].row == placed[-1].row else AXES[1]
        axes = (along, AXES[1] if along == AXES[0] else AXES[0])
    for ax in axes:
        for p in placed:
            line = line_through(merged, p.cell, ax)
            if len(line) > 1 and line not in seen:
                seen.add(line)
                qwirkle = len(line) == MAX_LINE
                lines.append(ScoredLine(line, len(line) + (QWIRKLE_BONUS if qwirkle else 0), qwirkle))
    if not lines and len(placed) == 1:  # a lone tile on an empty table: a "line" of one, 1 point
        lines.append(ScoredLine((placed[0].cell,), 1, False))
    bonus = sum(layout.bonus_at(p.cell) for p in placed) if layout is not None else 0
    return Score(tuple(lines), bonus)
