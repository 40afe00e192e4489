"""The contract's JSON forms of tiles, boards, placements, layouts and check results.

Readers take already-parsed JSON (``json.loads`` output) and a ``where`` naming the source (a file name),
so that every error says which file and which entry is at fault in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table.board import Board, Cell, PlacedTile
from table.errors import BoardFormatError, TileError
from table.layout import Layout
from table.rules import Violation
from table.scoring import Score
from table.tiles import Tile, TileSet

JSON = dict[str, Any]


def tile_to_json(tile: Tile) -> JSON:
    return {"colour": tile.colour, "shape": tile.shape}


def placed_to_json(p: PlacedTile) -> JSON:
    return {"row": p.row, "col": p.col, "colour": p.tile.colour, "shape": p.tile.shape}


def board_to_json(placed: Iterable[PlacedTile]) -> JSON:
    """``{"tiles": [...]}`` for a board or a placement, sorted by row then column."""
    return {"tiles": [placed_to_json(p) for p in sorted(placed)]}


def tile_from_json(data: Any, *, where: str, tileset: TileSet | None = None) -> Tile:
    if not isinstance(data, dict):
        raise BoardFormatError(f"{where}: expected an object with colour and shape, got {_kind(data)}")
    colour, shape = data.get("colour"), data.get("shape")
    if not isinstance(colour, str) or not isinstance(shape, str):
        raise BoardFormatError(f"{where}: colour and shape must be strings, got {colour!r} and {shape!r}")
    tile = Tile(colour.lower(), shape.lower())
    if tileset is not None:
        try:
            tileset.check(tile)
        except TileError as err:
            raise BoardFormatError(f"{where}: {err}") from None
    return tile


def placed_from_json(data: Any, *, where: str, tileset: TileSet | None = None) -> PlacedTile:
    tile = tile_from_json(data, where=where, tileset=tileset)
    row, col = data.get("row"), data.get("col")
    if type(row) is not int or type(col) is not int:
        raise BoardFormatError(f"{where}: row and col must be integers, got {row!r} and {col!r}")
    return PlacedTile(row, col, tile)


def placement_from_json(data: Any, *, where: str, tileset: TileSet | None = None) -> tuple[PlacedTile, ...]:
    """Read ``{"tiles": [placed tile, ...]}`` (a bare list is accepted too); cells are not checked here."""
    items = data.get("tiles") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise BoardFormatError(f'{where}: expected {{"tiles": [...]}}, got {_kind(data)}')
    return tuple(
        placed_from_json(item, where=f"{where}: tile {i + 1}", tileset=tileset)
        for i, item in enumerate(items)
    )


def board_from_json(data: Any, *, where: str, tileset: TileSet | None = None) -> Board:
    """Read a board; two tiles on one cell is an error naming the cell."""
    placed = placement_from_json(data, where=where, tileset=tileset)
    try:
        return Board.of(placed)
    except BoardFormatError as err:
        raise BoardFormatError(f"{where}: {err}") from None


def layout_from_json(data: Any, *, where: str) -> Layout:
    if not isinstance(data, dict):
        raise BoardFormatError(f"{where}: expected a layout object, got {_kind(data)}")
    unknown = set(data) - {"variant", "rows", "cols", "bonus", "start_tiles"}
    if unknown:
        raise BoardFormatError(f"{where}: unknown layout keys {', '.join(sorted(unknown))}")
    rows, cols = data.get("rows"), data.get("cols")
    if type(rows) is not int or type(cols) is not int:
        raise BoardFormatError(f"{where}: rows and cols must be integers, got {rows!r} and {cols!r}")
    bonus: dict[Cell, int] = {}
    for i, item in enumerate(data.get("bonus", [])):
        if not isinstance(item, dict) or not all(type(item.get(k)) is int for k in ("row", "col", "points")):
            raise BoardFormatError(
                f"{where}: bonus {i + 1}: expected integer row, col and points, got {item!r}"
            )
        bonus[(item["row"], item["col"])] = item["points"]
    start = board_from_json(data.get("start_tiles", []), where=f"{where}: start_tiles")
    variant = data.get("variant", "connect")
    if not isinstance(variant, str):
        raise BoardFormatError(f"{where}: variant must be a string, got {variant!r}")
    try:
        return Layout(variant, rows, cols, bonus, start)
    except BoardFormatError as err:
        raise BoardFormatError(f"{where}: {err}") from None


def layout_to_json(layout: Layout) -> JSON:
    return {
        "variant": layout.variant,
        "rows": layout.rows,
        "cols": layout.cols,
        "bonus": [{"row": r, "col": c, "points": p} for (r, c), p in sorted(layout.bonus.items())],
        "start_tiles": board_to_json(layout.start_tiles.placed)["tiles"],
    }


def violation_to_json(v: Violation) -> JSON:
    return {"rule": str(v.rule), "cells": [list(c) for c in v.cells], "message": v.message}


def check_to_json(found: Iterable[Violation], points: Score | None) -> JSON:
    """The contract's ``check`` result: legal, score, violations, lines, bonus."""
    found = tuple(found)
    legal = not found and points is not None
    return {
        "legal": legal,
        "score": points.total if legal and points is not None else None,
        "violations": [violation_to_json(v) for v in found],
        "lines": [
            {"cells": [list(c) for c in line.cells], "points": line.points, "qwirkle": line.qwirkle}
            for line in (points.lines if legal and points is not None else ())
        ],
        "bonus": points.bonus if legal and points is not None else 0,
    }


def _kind(data: Any) -> str:
    if isinstance(data, dict):
        return "an object with keys " + ", ".join(map(str, list(data)[:5])) if data else "an empty object"
    return type(data).__name__
