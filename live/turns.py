"""What happened on the table: a settled reading compared with the last confirmed board.

:func:`observe` puts a reading into board cells (registration, then the corrections people made on the
phone); :func:`compare` lists the new tiles (a placement), and everything that a turn cannot explain:
confirmed tiles gone (removed or moved), confirmed tiles read as another tile (misread or swapped), and
new cells holding something the reader could not classify. Those need a person: the service shows them
as "needs attention" and never guesses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from table import Board, Cell, PlacedTile, Tile
from table.codec import board_to_json, tile_to_json
from table.lines import cell_text
from table.register import IDENTITY, Registration, register
from vision.reading import Reading, Uncertain

# Reasons the reader gives for cells that mean "something is moving over the table", not "unreadable".
BUSY_REASONS = frozenset({"occluded", "hand", "motion", "blur"})
# Reasons that make a whole reading unusable: its cells are not board cells (the printed board was not found).
UNUSABLE_REASONS = frozenset({"unregistered"})
# What a busy reason becomes when the picture has stayed still (see :func:`doubted`).
STILL_REASON = "hidden-but-still"


@dataclass(frozen=True, slots=True)
class Fix:
    """A person's word about one cell: it holds ``tile`` (None: nothing, ignore what is read there).

    A fix applies where the reader sees something; ``always`` makes it apply to a confirmed cell even when
    the reader sees nothing there (the players say the tile is still down).
    """

    tile: Tile | None
    always: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"tile": tile_to_json(self.tile) if self.tile else None, "always": self.always}


@dataclass(frozen=True)
class Observation:
    """A settled reading in board cells: the tiles read, and the cells holding something unreadable."""

    board: Board
    unknown: frozenset[Cell] = frozenset()
    registration: Registration = IDENTITY


def busy(reading: Reading) -> bool:
    """Whether the reader saw a hand or motion over the table, or could not place its cells on the
    printed board: either way the reading cannot settle anything."""
    return any(u.reason in BUSY_REASONS or u.reason in UNUSABLE_REASONS for u in reading.uncertain)


def doubted(reading: Reading) -> Reading:
    """``reading`` with its cells hidden by a hand or motion taken as merely unreadable: for a picture that
    has stayed still too long for a hand to be there, so that people are asked rather than kept waiting."""
    uncertain = tuple(
        Uncertain(u.row, u.col, STILL_REASON) if u.reason in BUSY_REASONS else u for u in reading.uncertain
    )
    return replace(reading, uncertain=uncertain)


def observe(
    reading: Reading,
    confirmed: Board,
    *,
    fixed: bool,
    hint: Registration | None = None,
    fixes: Mapping[Cell, Fix] | None = None,
) -> Observation:
    """Map ``reading`` onto ``confirmed`` (identity when ``fixed``: a printed board), then apply ``fixes``."""
    read = reading.board
    reg = IDENTITY if fixed else register(confirmed, read, hint=hint)
    tiles = dict(reg.board(read))
    unknown = set(reg.cells((u.row, u.col) for u in reading.uncertain)) - set(tiles)
    for cell, fix in (fixes or {}).items():
        seen = cell in tiles or cell in unknown
        if not (seen or (fix.always and cell in confirmed)):
            continue
        unknown.discard(cell)
        if fix.tile is None:
            tiles.pop(cell, None)
        else:
            tiles[cell] = fix.tile
    return Observation(Board(tiles), frozenset(unknown), reg)


@dataclass(frozen=True)
class Change:
    """The difference between the confirmed board and a settled observation."""

    placed: tuple[PlacedTile, ...] = ()
    removed: tuple[PlacedTile, ...] = ()
    changed: tuple[tuple[Cell, Tile, Tile], ...] = ()  # (cell, confirmed tile, tile read now)
    unreadable: tuple[Cell, ...] = ()

    @property
    def needs_attention(self) -> bool:
        return bool(self.removed or self.changed or self.unreadable)

    @property
    def nothing(self) -> bool:
        return not self.placed and not self.needs_attention

    def reasons(self) -> list[str]:
        """One sentence per problem, for people."""
        out = [f"{p.tile} at {cell_text(p.cell)} is gone (removed or moved)" for p in self.removed]
        out += [f"{cell_text(c)} was {was}, now reads as {now}" for c, was, now in self.changed]
        out += [f"something at {cell_text(c)} could not be read" for c in self.unreadable]
        return out

    def cells(self) -> list[Cell]:
        return sorted({p.cell for p in self.removed} | {c for c, _, _ in self.changed} | set(self.unreadable))

    def to_json(self) -> dict[str, Any]:
        return {
            "placed": board_to_json(self.placed)["tiles"],
            "removed": board_to_json(self.removed)["tiles"],
            "changed": [
                {"row": c[0], "col": c[1], "was": tile_to_json(was), "now": tile_to_json(now)}
                for c, was, now in self.changed
            ],
            "unreadable": [list(c) for c in self.unreadable],
        }


def compare(confirmed: Board, seen: Observation) -> Change:
    """What changed from ``confirmed`` to ``seen``. Cells read as unknown hide nothing confirmed."""
    board = seen.board
    placed = tuple(PlacedTile(r, c, t) for (r, c), t in sorted(board.items()) if (r, c) not in confirmed)
    removed = tuple(
        PlacedTile(r, c, t)
        for (r, c), t in sorted(confirmed.items())
        if (r, c) not in board and (r, c) not in seen.unknown
    )
    changed = tuple(
        (cell, t, board[cell]) for cell, t in sorted(confirmed.items()) if cell in board and board[cell] != t
    )
    unreadable = tuple(sorted(c for c in seen.unknown if c not in confirmed))
    return Change(placed, removed, changed, unreadable)
