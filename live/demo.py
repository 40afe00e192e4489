"""The demo's players at their phones: they press "trade" and "pass", and answer the companion's questions.

A camera cannot see a trade (tiles go into the bag and come out again) or a pass; at a real table a
player presses the button. :class:`DemoPhone` does it for :class:`vision.demo.DemoSource`'s simulated
players, from each frame's ``meta`` (the move being made), and starts a new game when the demo films its
next one: pass it to the service as ``GameService(..., phone=DemoPhone())``.

When the companion *needs attention* (a cell it could not read, a tile it read as another), the players
look at the table and tap the right tile, as people would: each such correction goes through
:meth:`GameService.correct_tile` and shows in the event stream; :attr:`DemoPhone.corrections` counts them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from table import Board, QwirkleError
from table.codec import board_from_json
from table.register import register
from vision.frames import Frame

if TYPE_CHECKING:
    from live.service import GameService

log = logging.getLogger(__name__)


class DemoPhone:
    """Presses the buttons of the demo's players, once per turn."""

    def __init__(self) -> None:
        self._pressed: set[tuple[int, int]] = set()
        self._game: int | None = None
        self.corrections = 0

    def __call__(self, frame: Frame, service: GameService) -> None:
        meta: dict[str, Any] = frame.meta
        move, phase = meta.get("move"), meta.get("phase")
        game = meta.get("game", 0)
        if self._game is not None and game != self._game:  # the demo films its next game: a new game
            state = service.state()
            service.new_game([p["name"] for p in state["players"]], variant=state["variant"])
        self._game = game
        if phase == "settled":
            self._answer(meta, service)
        if not move or phase not in ("reach", "settled"):
            return
        # reach frames show the move being made; settled frames the last one made (a pass has no reach)
        made = (meta.get("game", 0), meta["turn"] if phase == "reach" else meta["turn"] - 1)
        if made in self._pressed:
            return
        try:
            if move["kind"] == "trade" and phase == "reach":
                self._pressed.add(made)
                service.declare_trade(1, turn=made[1] + 1)  # the demo gives no count; it changes no score
            elif move["kind"] == "pass" and phase == "settled":
                self._pressed.add(made)
                service.pass_turn(turn=made[1] + 1)
            elif move["kind"] == "draw" and phase == "settled":  # Qwirkle Cubes: drawing is a turn
                self._pressed.add(made)
                service.draw(turn=made[1] + 1)
            elif move["kind"] == "reroll" and phase == "reach":
                self._pressed.add(made)
                service.declare_reroll(1, turn=made[1] + 1)
        except QwirkleError as err:  # the scoreboard shows what is wrong; the demo plays on
            log.warning("demo phone: %s", err)

    def _answer(self, meta: dict[str, Any], service: GameService) -> None:
        """Correct the cells the companion asks about, from what is really on the table."""
        state = service.state()
        pending = state["follow"].get("pending")
        if state["follow"]["status"] != "needs-attention" or not pending:
            return
        shown = board_from_json(meta["board"], where="demo table")
        seen = board_from_json(state["board"], where="scoreboard").without(
            [(r, c) for r, c in pending.get("unreadable", [])]
        )
        seen = Board({**dict(seen), **dict(board_from_json(pending.get("placed", []), where="pending"))})
        to_table = register(shown, seen)  # scoreboard cells -> the demo's table cells
        asked = [tuple(c) for c in pending.get("unreadable", [])]
        asked += [(c["row"], c["col"]) for c in pending.get("changed", [])]
        for row, col in asked:
            truth = shown.get(to_table.cell((row, col)))
            try:
                service.correct_tile(row, col, str(truth) if truth else None)
                self.corrections += 1
            except QwirkleError as err:
                log.warning("demo phone: %s", err)
