"""The demo's players at their phones: they press "trade" and "pass" on the scoreboard.

A camera cannot see a trade (tiles go into the bag and come out again) or a pass; at a real table a
player presses the button. :class:`DemoPhone` does it for :class:`vision.demo.DemoSource`'s simulated
players, from each frame's ``meta`` (the move being made), and starts a new game when the demo films its
next one: pass it to the service as ``GameService(..., phone=DemoPhone())``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from table import QwirkleError
from vision.frames import Frame

if TYPE_CHECKING:
    from live.service import GameService

log = logging.getLogger(__name__)


class DemoPhone:
    """Presses the buttons of the demo's players, once per turn."""

    def __init__(self) -> None:
        self._pressed: set[tuple[int, int]] = set()
        self._game: int | None = None

    def __call__(self, frame: Frame, service: GameService) -> None:
        meta: dict[str, Any] = frame.meta
        move, phase = meta.get("move"), meta.get("phase")
        game = meta.get("game", 0)
        if self._game is not None and game != self._game:  # the demo films its next game: a new game
            state = service.state()
            service.new_game([p["name"] for p in state["players"]], variant=state["variant"])
        self._game = game
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
        except QwirkleError as err:  # the scoreboard shows what is wrong; the demo plays on
            log.warning("demo phone: %s", err)
