"""Placement validation: every rule a placement breaks, with the cells involved, in plain words.

Checking is separate from applying, as in python-chess: :func:`violations` explains, :func:`is_legal`
answers, and :meth:`table.game.Game.play` applies. :func:`board_violations` says why a whole board is
impossible (a reading that no legal game could have produced).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from table.board import NEIGHBOURS, Board, Cell, PlacedTile
from table.errors import ImpossibleBoardError
from table.layout import Layout
from table.lines import AXES, MAX_LINE, cell_text, describe, line_ok, line_through, lines_through
from table.scoring import Score, score_lines
from table.tiles import CLASSIC, Tile, TileSet


class Rule(StrEnum):
    """The rules a placement or a board can break (their values are the JSON ``rule`` strings)."""

    EMPTY = "empty-placement"
    UNKNOWN_TILE = "unknown-tile"
    OFF_BOARD = "off-board"
    SAME_CELL_TWICE = "same-cell-twice"
    CELL_TAKEN = "cell-taken"
    NOT_ONE_LINE = "not-one-line"
    GAP = "gap-in-line"
    NOT_CONNECTED = "not-connected"
    MIXED_LINE = "mixed-line"
    DUPLICATE = "duplicate-in-line"
    TOO_LONG = "line-too-long"
    TOO_MANY = "too-many-copies"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: which, where (the cells to highlight), and a sentence for a person."""

    rule: Rule
    cells: tuple[Cell, ...]
    message: str


def violations(
    board: Board,
    placement: Iterable[PlacedTile],
    *,
    tileset: TileSet = CLASSIC,
    layout: Layout | None = None,
) -> tuple[Violation, ...]:
    """Every rule that putting ``placement`` on ``board`` breaks; empty when the placement is legal.

    The board is taken as it is (see :func:`board_violations` to judge the board itself).
    """
    return check(board, placement, tileset=tileset, layout=layout)[0]


def check(
    board: Board,
    placement: Iterable[PlacedTile],
    *,
    tileset: TileSet = CLASSIC,
    layout: Layout | None = None,
) -> tuple[tuple[Violation, ...], Score | None]:
    """The violations of ``placement`` and, when there are none, its score, in one pass over the lines."""
    placed = sorted(placement)
    if not placed:
        return (Violation(Rule.EMPTY, (), "the placement has no tiles"),), None
    found: list[Violation] = []
    tiles = board._tiles  # read-only use of the board's dict: this is the hot path of every check
    merged = dict(tiles)
    landed: list[Cell] = []
    seen: dict[Cell, Tile] = {}
    for p in placed:
        cell, tile = (p.row, p.col), p.tile
        if not tileset.has(tile):
            found.append(
                Violation(
                    Rule.UNKNOWN_TILE, (cell,), f"{tile} at {cell_text(cell)}: {_unknown(tile, tileset)}"
                )
            )
        if layout is not None and not layout.contains(cell):
            found.append(_off_board(cell, tile, layout))
        if cell in seen:
            found.append(
                Violation(
                    Rule.SAME_CELL_TWICE,
                    (cell,),
                    f"cell {cell_text(cell)} is given two tiles: {seen[cell]} and {tile}",
                )
            )
            continue
        seen[cell] = tile
        if cell in tiles:
            found.append(
                Violation(
                    Rule.CELL_TAKEN,
                    (cell,),
                    f"cell {cell_text(cell)} already holds {tiles[cell]}; {tile} cannot go there",
                )
            )
            continue
        merged[cell] = tile
        landed.append(cell)

    cells = sorted(seen)
    if len(cells) > 1:
        found.extend(_shape_violations(cells, merged))
    if tiles and landed and not any((r + dr, c + dc) in tiles for r, c in landed for dr, dc in NEIGHBOURS):
        found.append(
            Violation(Rule.NOT_CONNECTED, tuple(landed), "no placed tile touches a tile already on the table")
        )
    lines = lines_through(merged, landed)
    for line in lines:
        row = [merged[c] for c in line]
        if not line_ok(row):
            found.extend(line_violations(row, line))
    found.extend(_copy_violations(board, [(c, merged[c]) for c in landed], tileset))
    if found:
        return tuple(found), None
    return (), score_lines(merged, landed, lines, layout=layout)


def _shape_violations(cells: list[Cell], merged: dict[Cell, Tile]) -> list[Violation]:
    """Not one line, or gaps in the one line (``cells`` sorted, two or more)."""
    first, last = cells[0], cells[-1]
    if first[0] == last[0]:
        axis = (0, 1)
    elif all(c[1] == first[1] for c in cells):
        axis = (1, 0)
    else:
        return [
            Violation(
                Rule.NOT_ONE_LINE,
                tuple(cells),
                "the placed tiles are not in one row or one column: " + ", ".join(map(cell_text, cells)),
            )
        ]
    dr, dc = axis
    span = max(last[0] - first[0], last[1] - first[1])
    holes = [(first[0] + k * dr, first[1] + k * dc) for k in range(span + 1)]
    holes = [h for h in holes if h not in merged]
    if not holes:
        return []
    return [
        Violation(
            Rule.GAP, tuple(holes), f"the placed tiles leave a gap at {', '.join(map(cell_text, holes))}"
        )
    ]


def is_legal(
    board: Board,
    placement: Iterable[PlacedTile],
    *,
    tileset: TileSet = CLASSIC,
    layout: Layout | None = None,
) -> bool:
    """Whether putting ``placement`` on ``board`` breaks no rule."""
    return not violations(board, placement, tileset=tileset, layout=layout)


def line_violations(line: list[Tile], cells: tuple[Cell, ...]) -> list[Violation]:
    """What is wrong with one line of two or more tiles (empty when it is valid)."""
    found: list[Violation] = []
    where = describe(cells)
    if len(line) > MAX_LINE:
        found.append(
            Violation(Rule.TOO_LONG, cells, f"{where} has {len(line)} tiles; a line holds at most {MAX_LINE}")
        )
    colours = {t.colour for t in line}
    shapes = {t.shape for t in line}
    if len(colours) > 1 and len(shapes) > 1:
        found.append(
            Violation(
                Rule.MIXED_LINE,
                cells,
                f"{where} is neither one colour nor one shape: {', '.join(str(t) for t in line)}",
            )
        )
    twins: dict[Tile, list[Cell]] = {}
    for tile, cell in zip(line, cells, strict=True):
        twins.setdefault(tile, []).append(cell)
    for tile, at in twins.items():
        if len(at) > 1:
            found.append(
                Violation(
                    Rule.DUPLICATE,
                    tuple(at),
                    f"{where} holds {tile} {len(at)} times, at {', '.join(map(cell_text, at))}",
                )
            )
    return found


def _copy_violations(board: Board, landed: list[tuple[Cell, Tile]], tileset: TileSet) -> list[Violation]:
    """More copies of a tile (or, for Cubes, more cubes of a colour) than the set has."""
    found: list[Violation] = []
    per_colour = tileset.per_colour is not None

    def key(tile: Tile) -> object:
        return tile.colour if per_colour else tile

    on_board: Mapping[Any, int] = board.colour_counts if per_colour else board.counts
    added = Counter(key(t) for _, t in landed)
    for kind, n in added.items():
        example = next(t for _, t in landed if key(t) == kind)
        why = tileset.limit_message(example, on_board[kind] + n)
        if why:
            cells = tuple(c for c, t in landed if key(t) == kind)
            what = example.colour if per_colour else str(example)
            found.append(
                Violation(Rule.TOO_MANY, cells, f"{what} at {', '.join(map(cell_text, cells))}: {why}")
            )
    return found


def _off_board(cell: Cell, tile: Tile, layout: Layout) -> Violation:
    return Violation(
        Rule.OFF_BOARD, (cell,), f"{tile} at {cell_text(cell)} is off the {layout.rows}×{layout.cols} board"
    )


def _unknown(tile: Tile, tileset: TileSet) -> str:
    if tile.colour not in tileset.colours:
        return f"{tileset.name} has no colour {tile.colour!r}"
    return f"{tileset.name} has no shape {tile.shape!r}"


def board_violations(
    board: Board, *, tileset: TileSet = CLASSIC, layout: Layout | None = None
) -> tuple[Violation, ...]:
    """Why no legal game reaches ``board``: unknown tiles, cells off the printed board, invalid lines,
    more copies of a tile than the set has, or (without a printed board) tiles in separate groups."""
    found: list[Violation] = []
    tiles = board._tiles
    for (r, c), tile in sorted(tiles.items()):
        if not tileset.has(tile):
            found.append(
                Violation(
                    Rule.UNKNOWN_TILE, ((r, c),), f"{tile} at {cell_text((r, c))}: {_unknown(tile, tileset)}"
                )
            )
        if layout is not None and not layout.contains((r, c)):
            found.append(_off_board((r, c), tile, layout))
    seen: set[tuple[Cell, ...]] = set()
    for cell in sorted(tiles):
        for ax in AXES:
            line = line_through(tiles, cell, ax)
            if len(line) > 1 and line not in seen:
                seen.add(line)
                found.extend(line_violations([tiles[c] for c in line], line))
    found.extend(_copy_violations(Board(), sorted(tiles.items()), tileset))
    if layout is None and tiles:
        groups = _groups(tiles)
        if len(groups) > 1:
            found.append(
                Violation(
                    Rule.NOT_CONNECTED,
                    tuple(sorted(groups[1])),
                    f"the tiles form {len(groups)} separate groups; every play must touch the tiles down",
                )
            )
    return tuple(found)


def check_board(board: Board, *, tileset: TileSet = CLASSIC, layout: Layout | None = None) -> Board:
    """Return ``board`` if a legal game can reach it, else raise :class:`ImpossibleBoardError`."""
    found = board_violations(board, tileset=tileset, layout=layout)
    if found:
        raise ImpossibleBoardError(found)
    return board


def _groups(tiles: dict[Cell, Tile]) -> list[set[Cell]]:
    left = set(tiles)
    groups: list[set[Cell]] = []
    while left:
        stack = [left.pop()]
        group = set(stack)
        while stack:
            r, c = stack.pop()
            for dr, dc in NEIGHBOURS:
                n = (r + dr, c + dc)
                if n in left:
                    left.remove(n)
                    group.add(n)
                    stack.append(n)
        groups.append(group)
    groups.sort(key=lambda g: (-len(g), min(g)))
    return groups
