"""Corrections made on a phone, as plain functions on the game: what a person says about a tile.

A correction of a confirmed tile amends the turn that placed it (every later turn is re-checked and
re-scored); the amending is done on a copy, so a correction the rules refuse changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from live.turns import Change, Fix
from table import Cell, Game, GameError, IllegalPlacementError, PlacedTile, Tile, TileSet
from table.codec import placement_from_json, tile_from_json
from table.moves import Play

TileInput = Tile | str | Mapping[str, str] | None


def parse_tile(tile: TileInput, tileset: TileSet) -> Tile | None:
    """A tile given as a :class:`Tile`, ``"red:circle"``, ``"Ro"`` or tile JSON (None stays None)."""
    if tile is None:
        return None
    if isinstance(tile, Tile):
        return tileset.check(tile)
    if isinstance(tile, str):
        return tileset.parse(tile)
    return tile_from_json(tile, where="tile", tileset=tileset)


def parse_placement(placement: Any, tileset: TileSet) -> tuple[PlacedTile, ...]:
    """Placed tiles, or the contract's placement JSON (``{"tiles": [...]}`` or a bare list)."""
    if isinstance(placement, dict | list) and not all(isinstance(p, PlacedTile) for p in placement):
        return placement_from_json(placement, where="placement", tileset=tileset)
    return tuple(placement)


def turn_placing(game: Game, cell: Cell) -> tuple[int, Play]:
    """The number and move of the turn that put a tile on ``cell``."""
    for turn in game.history:
        if isinstance(turn.move, Play) and any(p.cell == cell for p in turn.move.tiles):
            return turn.number, turn.move
    raise GameError(f"({cell[0]},{cell[1]}) is a printed start tile: it cannot be corrected")


def corrected(game: Game, fixes: Mapping[Cell, Tile | None]) -> Game:
    """A copy of ``game`` whose confirmed tiles at ``fixes`` are the given tiles (None: no tile)."""
    trial = Game.from_json(game.to_json())
    for cell, tile in fixes.items():
        number, move = turn_placing(trial, cell)
        kept = tuple(p for p in move.tiles if p.cell != cell)
        if tile is None and not kept:
            raise GameError(f"({cell[0]},{cell[1]}) was turn {number}'s only tile: undo that turn instead")
        new = kept if tile is None else (*kept, PlacedTile(cell[0], cell[1], tile))
        trial.amend(number, Play(tuple(sorted(new))))
    return trial


def with_missed(game: Game, cell: Cell, tile: Tile) -> Game:
    """A copy of ``game`` whose latest placement also holds ``tile`` at ``cell``: the camera missed it."""
    where = f"({cell[0]},{cell[1]}): no tile there and none read there; nothing to correct"
    trial = Game.from_json(game.to_json())
    for turn in reversed(trial.history):
        if isinstance(turn.move, Play):
            try:
                trial.amend(turn.number, Play(tuple(sorted((*turn.move.tiles, PlacedTile(*cell, tile))))))
            except (GameError, IllegalPlacementError) as err:
                raise GameError(
                    f"{where}, nor a tile the camera missed in turn {turn.number}: {err}"
                ) from err
            return trial
    raise GameError(f"{where}, and no placement to add it to")


def acceptable(change: Change) -> dict[Cell, Tile | None]:
    """What accepting a reading amends: each confirmed tile read differently is taken as read.

    Tiles gone or cells unreadable cannot be accepted; the error says what to do instead.
    """
    if change.nothing:
        raise GameError("nothing to accept: the table matches the board")
    if change.removed:
        cells = ", ".join(f"({p.row},{p.col})" for p in change.removed)
        raise GameError(f"tiles cannot leave the table ({cells}): put them back, or resolve 'keep'")
    if change.unreadable:
        r, c = change.unreadable[0]
        raise GameError(f"({r},{c}) could not be read: correct that tile first")
    return {cell: now for cell, _was, now in change.changed}


def kept(change: Change) -> dict[Cell, Fix]:
    """The fixes that make the reader agree with the board where they differ ("keep")."""
    if not change.needs_attention:
        raise GameError("nothing to keep: no tile needs attention")
    fixes = {p.cell: Fix(p.tile, always=True) for p in change.removed}
    fixes.update({cell: Fix(was, always=True) for cell, was, _now in change.changed})
    fixes.update({cell: Fix(None) for cell in change.unreadable})
    return fixes


def pending_item(kind: str, change: Change, reasons: list[str]) -> dict[str, Any]:
    """The pending item of ``/api/state``: what kind, why, where, and what was seen."""
    cells = change.cells() or [p.cell for p in change.placed]
    return {"kind": kind, "reasons": reasons, "cells": [list(c) for c in cells], **change.to_json()}
