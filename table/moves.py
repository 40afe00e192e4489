"""The moves of a game, as small immutable values with a JSON form.

A game is its set-up plus the stack of moves made so far; everything else (board, scores, bag, hands,
whose turn) is derived by replaying them, which is what makes undo, redo and amending a past turn exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from table.board import PlacedTile, placement_text
from table.codec import board_to_json, placement_from_json
from table.errors import BoardFormatError
from table.tiles import TileSet


@dataclass(frozen=True, slots=True)
class Play:
    """Tiles put on the table."""

    tiles: tuple[PlacedTile, ...]

    def __str__(self) -> str:
        return f"play {placement_text(self.tiles)}"


@dataclass(frozen=True, slots=True)
class Trade:
    """``count`` tiles swapped with the bag; the turn passes, nothing scores."""

    count: int

    def __str__(self) -> str:
        return f"trade {self.count}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """Qwirkle Cubes: ``count`` cubes of the hand re-rolled as the turn's action."""

    count: int

    def __str__(self) -> str:
        return f"re-roll {self.count}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Qwirkle Cubes: the turn's action is drawing (and rolling) cubes until the hand holds six again."""

    def __str__(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Pass:
    """No play possible and nothing left to draw."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Adjust:
    """A score correction for one side, agreed at the table; the turn does not pass."""

    side: str
    points: int
    note: str = ""

    def __str__(self) -> str:
        return f"adjust {self.side} {self.points:+d}"


@dataclass(frozen=True, slots=True)
class Finish:
    """The players end the game early; no one gets the going-out bonus."""

    def __str__(self) -> str:
        return "finish"


Move = Play | Trade | Reroll | Draw | Pass | Adjust | Finish


def move_to_json(move: Move) -> dict[str, Any]:
    match move:
        case Play(tiles):
            return {"kind": "play", "tiles": board_to_json(tiles)["tiles"]}
        case Trade(count):
            return {"kind": "trade", "count": count}
        case Reroll(count):
            return {"kind": "reroll", "count": count}
        case Draw():
            return {"kind": "draw"}
        case Pass():
            return {"kind": "pass"}
        case Adjust(side, points, note):
            return {"kind": "adjust", "side": side, "points": points, "note": note}
        case Finish():
            return {"kind": "finish"}


def move_from_json(data: Any, *, where: str, tileset: TileSet | None = None) -> Move:
    if not isinstance(data, dict):
        raise BoardFormatError(f"{where}: expected a move object, got {type(data).__name__}")
    kind = data.get("kind")
    if kind == "play":
        tiles = placement_from_json(data.get("tiles"), where=where, tileset=tileset)
        return Play(tuple(sorted(tiles)))
    if kind in ("trade", "reroll"):
        count = data.get("count")
        if type(count) is not int:
            raise BoardFormatError(f"{where}: {kind} needs an integer count, got {count!r}")
        return Trade(count) if kind == "trade" else Reroll(count)
    if kind == "draw":
        return Draw()
    if kind == "pass":
        return Pass()
    if kind == "adjust":
        side, points, note = data.get("side"), data.get("points"), data.get("note", "")
        if not isinstance(side, str) or type(points) is not int or not isinstance(note, str):
            raise BoardFormatError(f"{where}: adjust needs a side (string) and points (integer)")
        return Adjust(side, points, note)
    if kind == "finish":
        return Finish()
    raise BoardFormatError(
        f"{where}: unknown move kind {kind!r} (play, trade, reroll, draw, pass, adjust, finish)"
    )
