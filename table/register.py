"""Registration: map a reading onto the last confirmed board.

On a free table the reader's origin is arbitrary and its axes may come out turned by quarter turns between
frames (the layout was nudged, the camera bumped). :func:`register` finds the rigid motion (quarter turns,
then a shift; never a mirror) that puts the most read tiles on the same tiles of the confirmed board.
Each pair of equal tiles votes for the motion that would superpose them, so the search costs
O(tiles²/36) per turn and needs no guess of the origin.

With a printed board (a layout) the reader reports board cells itself, so the motion is the identity.
Pure (standard library only): the reader, the game service and calibration all use it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from table import Board, Cell, Tile
from table.board import transform_cell


@dataclass(frozen=True, slots=True)
class Registration:
    """A rigid motion from reader cells to board cells and how well it fits.

    ``turns`` quarter turns clockwise about the reader's origin, then ``shift``. ``matched`` counts the
    confirmed tiles found again, ``conflicts`` the confirmed cells where another tile was read.
    """

    turns: int = 0
    shift: Cell = (0, 0)
    matched: int = 0
    conflicts: int = 0

    def cell(self, cell: Cell) -> Cell:
        return transform_cell(cell, shift=self.shift, turns=self.turns)

    def cells(self, cells: Iterable[Cell]) -> frozenset[Cell]:
        return frozenset(self.cell(c) for c in cells)

    def board(self, board: Board) -> Board:
        return board.transformed(shift=self.shift, turns=self.turns)

    @property
    def identity(self) -> bool:
        return self.turns == 0 and self.shift == (0, 0)

    def to_json(self) -> dict[str, object]:
        return {"turns": self.turns, "shift": list(self.shift)}


IDENTITY = Registration()

_T = TypeVar("_T")


def register(confirmed: Board, seen: Board, *, hint: Registration | None = None) -> Registration:
    """The motion that best maps the reading ``seen`` onto the ``confirmed`` board.

    Best means: most confirmed tiles found again; ties go to the ``hint``'s quarter turns (the last
    motion used, since a camera that moved stays moved), then to fewer conflicting cells, then to the
    shift nearest the hint's, then to fewer turns. With nothing to match, the hint (or the identity) is kept.
    """
    hint = hint or IDENTITY
    if not confirmed or not seen:
        return Registration(hint.turns, hint.shift)
    where: dict[Tile, list[Cell]] = defaultdict(list)
    for cell, tile in confirmed.items():
        where[tile].append(cell)
    items = list(seen.items())
    matching = [(cell, where[tile]) for cell, tile in items if tile in where]
    # counted in a plain dict, in the order a Counter would first see each motion
    votes: dict[tuple[int, Cell], int] = {}
    for turns in range(4):
        for (r, c), targets in _turned(matching, turns):
            for tr, tc in targets:
                motion = (turns, (tr - r, tc - c))
                votes[motion] = votes.get(motion, 0) + 1
    if not votes:
        return Registration(hint.turns, hint.shift)
    most = max(votes.values())
    best: tuple[tuple[int, int, int, int, int], Registration] | None = None
    turned: dict[int, list[tuple[Cell, Tile]]] = {}  # the read tiles turned, once per quarter turn
    known = dict(confirmed.items())
    for (turns, shift), matched in votes.items():
        if matched * 2 < most:
            continue
        if turns not in turned:
            turned[turns] = _turned(items, turns)
        conflicts = 0
        for (r, c), tile in turned[turns]:
            there = known.get((r + shift[0], c + shift[1]))
            if there is not None and there != tile:
                conflicts += 1
        distance = abs(shift[0] - hint.shift[0]) + abs(shift[1] - hint.shift[1])
        key = (-matched, int(turns != hint.turns), conflicts, distance, turns)
        if best is None or key < best[0]:
            best = (key, Registration(turns, shift, matched, conflicts))
    assert best is not None
    return best[1]


def _turned(pairs: list[tuple[Cell, _T]], turns: int) -> list[tuple[Cell, _T]]:
    """``pairs`` of a cell and anything, each cell turned by ``turns`` (0..3) quarter turns clockwise about
    the origin (:func:`table.board.transform_cell`'s turn, written out for each number of turns)."""
    if turns == 0:
        return pairs
    if turns == 1:
        return [((c, -r), v) for (r, c), v in pairs]
    if turns == 2:
        return [((-r, -c), v) for (r, c), v in pairs]
    return [((-c, r), v) for (r, c), v in pairs]
