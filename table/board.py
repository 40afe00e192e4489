"""The board: tiles at integer cells, immutable, with a compact text form.

Coordinates are ``(row, col)``: ``row`` grows down the image, ``col`` to the right; any integers, negative
included. A :class:`Board` never changes; :meth:`Board.with_tiles` returns a new one.

Board literal (like a chess FEN): rows top to bottom separated by ``/``; in a row, two-letter tile codes
(see :mod:`table.tiles`) and numbers for runs of empty cells; spaces are ignored. An optional ``"R,C:"``
prefix gives the cell of the top-left corner (default ``0,0``)::

    Board.from_text("Ro Rx Rd / 1 Gx")        # red circle at (0,0), ..., green criss-cross at (1,1)
    Board.from_text("-2,5: Bs 2 Ys")           # blue square at (-2,5), yellow square at (-2,8)

A placement has the text form ``"Ro@3,4 Rx@3,5"``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from typing import NamedTuple

from table.errors import BoardFormatError, TileError
from table.tiles import Tile

Cell = tuple[int, int]

NEIGHBOURS: tuple[Cell, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))


class PlacedTile(NamedTuple):
    """A tile at a cell. Immutable, hashable, ordered by row, then column."""

    row: int
    col: int
    tile: Tile

    @property
    def cell(self) -> Cell:
        return (self.row, self.col)

    def __str__(self) -> str:
        return f"{self.tile.code}@{self.row},{self.col}"

    @classmethod
    def parse(cls, text: str) -> PlacedTile:
        """Read ``"Ro@3,-1"`` (or ``"red:circle@3,-1"``)."""
        tile_text, sep, where = text.strip().partition("@")
        row_text, comma, col_text = where.partition(",")
        if not sep or not comma:
            raise BoardFormatError(f"placed tile {text!r}: expected CODE@ROW,COL, for example Ro@3,-1")
        try:
            row, col = int(row_text), int(col_text)
        except ValueError:
            raise BoardFormatError(f"placed tile {text!r}: row and column must be integers") from None
        tile = Tile.parse(tile_text) if ":" in tile_text else Tile.from_code(tile_text)
        return cls(row, col, tile)


Placement = tuple[PlacedTile, ...]


def parse_placement(text: str) -> Placement:
    """Read a placement such as ``"Ro@3,4 Rx@3,5"`` (tiles separated by spaces or commas-with-space)."""
    return tuple(PlacedTile.parse(part) for part in text.replace(", ", " ").split())


def placement_text(placement: Iterable[PlacedTile]) -> str:
    return " ".join(str(p) for p in placement)


_ORIGIN = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*:")
_TOKEN = re.compile(r"\d+|[A-Z][a-z]|\S")


class Board(Mapping[Cell, Tile]):
    """An immutable map from cells to tiles.

    Build one from a mapping, from placed tiles (:meth:`of`), from a literal (:meth:`from_text`), or from
    the contract's JSON (:func:`table.codec.board_from_json`).
    """

    __slots__ = ("__dict__", "_tiles")

    def __init__(self, tiles: Mapping[Cell, Tile] | None = None) -> None:
        self._tiles: dict[Cell, Tile] = dict(tiles) if tiles else {}

    @classmethod
    def of(cls, placed: Iterable[PlacedTile]) -> Board:
        """A board holding ``placed``; two tiles on one cell raise :class:`BoardFormatError`."""
        tiles: dict[Cell, Tile] = {}
        for p in placed:
            if p.cell in tiles:
                raise BoardFormatError(f"cell {p.cell}: holds two tiles ({tiles[p.cell]} and {p.tile})")
            tiles[p.cell] = p.tile
        return cls(tiles)

    # Mapping protocol -------------------------------------------------------------------------------
    def __getitem__(self, cell: Cell) -> Tile:
        return self._tiles[cell]

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._tiles)

    def __len__(self) -> int:
        return len(self._tiles)

    def __contains__(self, cell: object) -> bool:
        return cell in self._tiles

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Board):
            return self._tiles == other._tiles
        return NotImplemented

    def __hash__(self) -> int:
        return hash(frozenset(self._tiles.items()))

    def __repr__(self) -> str:
        return f"Board.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        """A multi-line grid for people: codes, ``.`` for empty cells, the origin cell in the header."""
        if not self._tiles:
            return "(empty board)"
        (r0, c0), (r1, c1) = self.bounds
        lines = [f"top-left cell {r0},{c0}"]
        for r in range(r0, r1 + 1):
            cells = (self._tiles[(r, c)].code if (r, c) in self._tiles else " ." for c in range(c0, c1 + 1))
            lines.append(" ".join(cells))
        return "\n".join(lines)

    # Views --------------------------------------------------------------------------------------------
    @cached_property
    def placed(self) -> tuple[PlacedTile, ...]:
        """Every tile as a :class:`PlacedTile`, sorted by row then column."""
        return tuple(PlacedTile(r, c, t) for (r, c), t in sorted(self._tiles.items()))

    @cached_property
    def counts(self) -> Counter[Tile]:
        """How many of each tile are on the board."""
        return Counter(self._tiles.values())

    @cached_property
    def colour_counts(self) -> Counter[str]:
        """How many tiles of each colour are on the board."""
        return Counter(t.colour for t in self._tiles.values())

    @property
    def bounds(self) -> tuple[Cell, Cell]:
        """``((min_row, min_col), (max_row, max_col))``; raises ValueError on an empty board."""
        if not self._tiles:
            raise ValueError("an empty board has no bounds")
        rows = [r for r, _ in self._tiles]
        cols = [c for _, c in self._tiles]
        return (min(rows), min(cols)), (max(rows), max(cols))

    @cached_property
    def frontier(self) -> frozenset[Cell]:
        """The empty cells next to at least one tile."""
        tiles = self._tiles
        return frozenset(
            (r + dr, c + dc) for r, c in tiles for dr, dc in NEIGHBOURS if (r + dr, c + dc) not in tiles
        )

    # Derived boards -----------------------------------------------------------------------------------
    def with_tiles(self, placed: Iterable[PlacedTile]) -> Board:
        """A new board with ``placed`` added; a taken cell raises :class:`BoardFormatError`."""
        tiles = dict(self._tiles)
        for p in placed:
            if p.cell in tiles:
                raise BoardFormatError(f"cell {p.cell}: already holds {tiles[p.cell]}")
            tiles[p.cell] = p.tile
        return Board(tiles)

    def without(self, cells: Iterable[Cell]) -> Board:
        """A new board with the tiles at ``cells`` removed (empty cells are ignored)."""
        tiles = dict(self._tiles)
        for cell in cells:
            tiles.pop(cell, None)
        return Board(tiles)

    def transformed(self, *, shift: Cell = (0, 0), mirror: bool = False, turns: int = 0) -> Board:
        """The same tiles moved rigidly: ``turns`` quarter turns clockwise, then a mirror, then a shift."""
        return Board(
            {transform_cell(cell, shift=shift, mirror=mirror, turns=turns): t for cell, t in self.items()}
        )

    # Text form ----------------------------------------------------------------------------------------
    def to_text(self) -> str:
        """The board literal (see the module docstring); ``""`` for an empty board."""
        if not self._tiles:
            return ""
        (r0, c0), (r1, _) = self.bounds
        rows = []
        for r in range(r0, r1 + 1):
            cols = sorted(c for rr, c in self._tiles if rr == r)
            parts: list[str] = []
            at = c0
            for c in cols:
                if c > at:
                    parts.append(str(c - at))
                parts.append(self._tiles[(r, c)].code)
                at = c + 1
            rows.append(" ".join(parts))
        prefix = "" if (r0, c0) == (0, 0) else f"{r0},{c0}: "
        return prefix + " / ".join(rows)

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Read a board literal (see the module docstring)."""
        origin = _ORIGIN.match(text)
        r0, c0 = (int(origin.group(1)), int(origin.group(2))) if origin else (0, 0)
        body = text[origin.end() :] if origin else text
        tiles: dict[Cell, Tile] = {}
        if not body.strip():
            return cls(tiles)
        for dr, row_text in enumerate(body.split("/")):
            col = c0
            for token in _TOKEN.findall(row_text):
                if token.isdigit():
                    col += int(token)
                    continue
                try:
                    tiles[(r0 + dr, col)] = Tile.from_code(token)
                except TileError as err:
                    raise BoardFormatError(f"board literal {text!r}, row {dr + 1}: {err}") from None
                col += 1
        return cls(tiles)


def transform_cell(cell: Cell, *, shift: Cell = (0, 0), mirror: bool = False, turns: int = 0) -> Cell:
    """Rotate ``cell`` by ``turns`` quarter turns clockwise about the origin, mirror its columns, shift it."""
    r, c = cell
    for _ in range(turns % 4):
        r, c = c, -r
    if mirror:
        c = -c
    return (r + shift[0], c + shift[1])
