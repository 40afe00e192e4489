"""What the service must remember of a game across a crash: the game and the follow state around it.

A :class:`Session` is the game (its set-up and moves, from which all else is replayed) plus the people's
corrections to the reader (:class:`live.turns.Fix` per cell), a trade or re-roll declared on a phone and
not yet seen through, and the last registration of the reader onto the board. Its JSON is the snapshot
the store keeps; :meth:`Session.from_json` re-checks every move while rebuilding it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from live.turns import Fix
from table import Board, Cell, Game
from table.codec import tile_from_json
from table.errors import BoardFormatError
from table.register import IDENTITY, Registration

FORMAT = "qwirkle-live/1"


@dataclass
class Declared:
    """A trade or re-roll a player announced; it becomes their turn once the table shows nothing new."""

    kind: str  # "trade" or "reroll"
    count: int
    player: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "count": self.count, "player": self.player}


@dataclass
class Session:
    game: Game
    fixes: dict[Cell, Fix] = field(default_factory=dict)
    declared: Declared | None = None
    registration: Registration = IDENTITY

    @property
    def confirmed(self) -> Board:
        return self.game.board

    def to_json(self) -> dict[str, Any]:
        game = self.game
        return {
            "format": FORMAT,
            "game": game.to_json(),
            "fixes": [{"row": r, "col": c, **fix.to_json()} for (r, c), fix in sorted(self.fixes.items())],
            "declared": self.declared.to_json() if self.declared else None,
            "registration": self.registration.to_json(),
            "summary": {
                "variant": game.variant,
                "players": list(game.players),
                "scores": dict(game.scores),
                "over": game.over,
                "winners": game.winners(),
                "turns": len(game.history),
            },
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str) -> Session:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BoardFormatError(f"{where}: not a stored game (expected format {FORMAT!r})")
        game = Game.from_json(data.get("game"), where=where)
        fixes: dict[Cell, Fix] = {}
        for i, item in enumerate(data.get("fixes") or []):
            at = f"{where}: fix {i + 1}"
            if (
                not isinstance(item, dict)
                or type(item.get("row")) is not int
                or type(item.get("col")) is not int
            ):
                raise BoardFormatError(f"{at}: expected integer row and col, got {item!r}")
            tile = item.get("tile")
            parsed = tile_from_json(tile, where=at, tileset=game.tileset) if tile is not None else None
            fixes[(item["row"], item["col"])] = Fix(parsed, bool(item.get("always")))
        declared = None
        if isinstance(d := data.get("declared"), dict):
            declared = Declared(str(d.get("kind")), int(d.get("count", 0)), str(d.get("player")))
        reg = data.get("registration") or {}
        shift = reg.get("shift", [0, 0])
        registration = Registration(int(reg.get("turns", 0)) % 4, (int(shift[0]), int(shift[1])))
        return cls(game, fixes, declared, registration)
