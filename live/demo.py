"""The demo's players at their phones: they press "trade" and "pass", and answer the companion's questions.

A camera cannot see a trade (tiles go into the bag and come out again) or a pass; at a real table a
player presses the button. :class:`DemoPhone` does it for :class:`vision.demo.DemoSource`'s simulated
players, from each frame's ``meta`` (the move being made), and starts a new game when the demo films its
next one: pass it to the service as ``GameService(..., phone=DemoPhone())``.

When the companion asks (*needs attention*: a cell it could not read, a tile it read as another or no
longer sees; a *dispute* over a placement the demo never made), or when the scoreboard shows a tile that
is not the one on the table, the players look at the table and tap the right tile, as people would. Each
correction goes through :meth:`GameService.correct_tile` and shows in the event stream;
:attr:`DemoPhone.corrections` counts them and :attr:`DemoPhone.log` says which turn each was for and why.
A placement the scoreboard has not counted after ``TYPE_AFTER`` settled frames (the camera saw nothing
new), or after twice as many whatever the companion asked meanwhile, is typed on the phone
(:meth:`GameService.play`); a turn counted so wrong that it does not look like the table is undone and
typed. The log counts those as corrections too.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from table import Board, Cell, QwirkleError, Tile
from table.codec import board_from_json
from table.register import register
from vision.frames import Frame

if TYPE_CHECKING:
    from live.service import GameService

log = logging.getLogger(__name__)

PRESSES = ("trade", "reroll", "pass", "draw")  # the moves a camera cannot see: a phone button each
TYPE_AFTER = 9  # settled frames the players wait before typing (2.25 s at 4 fps: after the 2 s re-read)


class DemoPhone:
    """Presses the buttons of the demo's players, once per turn, and corrects the scoreboard."""

    def __init__(self) -> None:
        self._pressed: set[tuple[int, int]] = set()
        self._game: int | None = None
        self._tables: dict[int, Board] = {}  # the table after each turn of the game filmed
        self._waited: dict[int, int] = {}  # settled frames the scoreboard has been a turn behind the table
        self._moves: dict[int, dict[str, Any]] = {}  # the move made in each turn of the game filmed
        self._tried_turns: set[tuple[int, str]] = set()
        self._tried: set[tuple[int, int, int, int, str]] = set()
        self.log: list[dict[str, Any]] = []

    @property
    def corrections(self) -> int:
        return len(self.log)

    def __call__(self, frame: Frame, service: GameService) -> None:
        meta: dict[str, Any] = frame.meta
        move, phase = meta.get("move"), meta.get("phase")
        game = meta.get("game", 0)
        if self._game is not None and game != self._game:  # the demo films its next game: a new game
            state = service.state()
            service.new_game([p["name"] for p in state["players"]], variant=state["variant"])
            self._tables, self._waited, self._moves = {}, {}, {}
            self._tried_turns = set()
        self._game = game
        if phase == "settled":
            self._answer(meta, service)
        if not move or phase not in ("reach", "settled"):
            return
        # reach frames show the move being made; settled frames the last one made (a pass has no reach)
        made = (meta.get("game", 0), meta["turn"] if phase == "reach" else meta["turn"] - 1)
        kind = move["kind"]
        if made in self._pressed or kind not in PRESSES or (kind in ("pass", "draw") and phase != "settled"):
            return  # a trade or re-roll is pressed as the hand goes to the bag (or after, if not yet due)
        self._pressed.add(made)
        try:
            if kind in ("trade", "reroll"):  # the demo gives no count; it changes no score
                (service.declare_trade if kind == "trade" else service.declare_reroll)(1, turn=made[1] + 1)
            else:
                (service.pass_turn if kind == "pass" else service.draw)(turn=made[1] + 1)
        except QwirkleError as err:  # the scoreboard shows what is wrong; the demo plays on
            log.warning("demo phone: %s", err)
            if made[1] + 1 > len(service.state()["turns"]) + 1:
                self._pressed.discard(made)  # not yet due (the scoreboard is behind): press again later

    def checked(self, turns: int, service: GameService) -> bool:
        """Whether the scoreboard has counted ``turns`` turns; if so the players glance at it, and tap any
        tile it shows wrong or lacks against the table as it was after those turns. Use it as the demo's
        ``wait_for``: the players reach for the next turn once it answers True."""
        state = service.state()
        if len(state["turns"]) < turns:
            return False
        if state["follow"]["pending"] is None and turns in self._tables and state["board"]["tiles"]:
            board = board_from_json(state["board"], where="scoreboard")
            then = self._tables[turns]
            reg = register(board, then)
            table = reg.board(then)  # the table in the scoreboard's cells
            if 2 * reg.matched >= len(board):
                wrong = [(c, table.get(c), "scored-wrong") for c, t in board.items() if table.get(c) != t]
                missed = sorted((c for c in table if c not in board), key=lambda c: _distance(c, board))
                wrong += [(c, table[c], "missed-at-placing") for c in missed]  # nearest first: each touches
                self._correct(wrong, state, service, {})
            elif (turns, "retyped") not in self._tried_turns:  # no tap can fix that: undo it, type it
                self._tried_turns.add((turns, "retyped"))
                self._retype(turns, service)
        return True

    def _retype(self, turns: int, service: GameService) -> None:
        """Undo the scoreboard's last turn and type the placement really made in it."""
        move = self._moves.get(turns)
        if not move or move["kind"] != "play":
            return
        try:
            service.undo()
        except QwirkleError as err:
            log.warning("demo phone: %s", err)
            return
        board = board_from_json(service.state()["board"], where="scoreboard")
        self._play(turns, move, board, self._tables[turns], service, why="retyped")

    def _answer(self, meta: dict[str, Any], service: GameService) -> None:
        """Answer what the companion asks about, or type a placement it did not count, from the table."""
        if "board" not in meta:
            return  # a frame that does not say what is on the table: nothing to check against
        shown = board_from_json(meta["board"], where="demo table")
        self._tables[meta["turn"]] = shown
        if meta["turn"] and meta["move"]:
            self._moves[meta["turn"]] = meta["move"]
        state = service.state()
        board = board_from_json(state["board"], where="scoreboard")
        pending = state["follow"].get("pending")
        status = state["follow"]["status"]
        if meta["turn"] == len(state["turns"]) + 1 and meta["move"] and meta["move"]["kind"] == "play":
            self._waited[meta["turn"]] = waited = self._waited.get(meta["turn"], 0) + 1
            # the placement is not counted: type it once the companion has seen nothing new for a while,
            # or once answering its questions has not helped for twice as long
            if (waited >= TYPE_AFTER and status == "watching") or waited == 2 * TYPE_AFTER:
                self._waited[meta["turn"]] = 2 * TYPE_AFTER + 1  # typed (or tried): once
                self._play(meta["turn"], meta["move"], board, shown, service, why="typed")
                return
        if status not in ("needs-attention", "dispute") or not pending:
            return
        unreadable = [(r, c) for r, c in pending.get("unreadable", [])]
        placed = board_from_json(pending.get("placed", []), where="pending")
        seen = Board({**dict(board.without(unreadable)), **dict(placed)})
        reg = register(seen, shown)
        table = reg.board(shown)  # the table in the scoreboard's cells
        asked = [(c, table.get(c), "unreadable") for c in unreadable]
        asked += [
            ((c["row"], c["col"]), table.get((c["row"], c["col"])), "misread") for c in pending["changed"]
        ]
        asked += [
            ((t["row"], t["col"]), table.get((t["row"], t["col"])), "missed") for t in pending["removed"]
        ]
        asked += [
            (p.cell, table.get(p.cell), "misread") for p in placed.placed if table.get(p.cell) != p.tile
        ]
        truth_uncertain = meta.get("truth", {}).get("uncertain", [])
        self._correct(
            asked, state, service, {reg.cell((u["row"], u["col"])): u["reason"] for u in truth_uncertain}
        )

    def _correct(
        self,
        asked: list[tuple[Cell, Tile | None, str]],
        state: dict[str, Any],
        service: GameService,
        hidden: dict[Cell, str],
    ) -> None:
        """Tap each (cell, the tile really there, why) on the phone, once; log what was taken."""
        for (row, col), truth, why in asked:
            key = (self._game or 0, len(state["turns"]), row, col, str(truth))
            if key in self._tried:
                continue  # asked and answered already; the companion may still be catching up
            self._tried.add(key)
            try:
                service.correct_tile(row, col, str(truth) if truth else None)
            except QwirkleError as err:
                log.warning("demo phone: %s", err)
                continue
            self.log.append(
                {
                    "game": self._game,
                    "turn": _turn_of(service.state(), (row, col)),
                    "cell": [row, col],
                    "why": why,
                    "truth": str(truth) if truth else None,
                    "hidden": hidden.get((row, col)),
                }
            )

    def _play(
        self, turn: int, move: dict[str, Any], board: Board, shown: Board, service: GameService, *, why: str
    ) -> None:
        """Type the placement of ``move`` (the demo's cells) on the phone, in the scoreboard's cells."""
        placed = board_from_json(move["placed"], where="demo move")
        tiles = register(board, shown).board(placed) if board else placed
        try:
            service.play(tuple(tiles.placed))
        except QwirkleError as err:
            log.warning("demo phone: %s", err)
            return
        cells = [list(c) for c in sorted(tiles)]
        self.log.append({"game": self._game, "turn": turn, "cell": cells, "why": why, "hidden": None})


def _distance(cell: Cell, board: Board) -> int:
    """Steps from ``cell`` to the nearest tile of ``board`` (not empty)."""
    return min(abs(cell[0] - r) + abs(cell[1] - c) for r, c in board)


def _turn_of(state: dict[str, Any], cell: Cell) -> int:
    """The number of the turn that placed ``cell`` on the scoreboard, or of the turn being judged."""
    for turn in state["turns"]:
        tiles = turn["move"].get("tiles", []) if turn["move"]["kind"] == "play" else []
        if any((t["row"], t["col"]) == cell for t in tiles):
            return int(turn["number"])
    return len(state["turns"]) + 1
