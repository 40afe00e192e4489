"""Judging a settled table, and the corrections people make on the phone.

A settled reading is mapped onto the confirmed board (:func:`live.turns.observe`) and compared with it
(:func:`live.turns.compare`): a legal placement is scored for the player to move, an illegal one is a
dispute, a declared trade with nothing new is that player's turn, and anything else needs attention.
The corrections (a tile, *keep*, *accept*, *cancel*) change the game or the reader's fixes and judge the
still table again. Part of :class:`live.service.GameService`.
"""

from __future__ import annotations

import time
from typing import Any

from live.corrections import (
    TileInput,
    acceptable,
    corrected,
    kept,
    parse_tile,
    pending_item,
    with_missed,
)
from live.session import Session
from live.state import ServiceState
from live.turns import Change, Fix, Observation, compare, observe
from table import Cell, GameError
from table.codec import violation_to_json
from table.game import turn_to_json
from vision.reading import Reading


class Judging(ServiceState):
    """The judging layer of the game service (see :class:`live.service.GameService`)."""

    # Corrections --------------------------------------------------------------------------------------
    def correct_tile(self, row: int, col: int, tile: TileInput) -> dict[str, Any]:
        """Say what the tile at (row, col) really is (None: there is no tile there).

        On a confirmed cell this amends the turn that placed it (every later turn is re-checked and
        re-scored); on a new cell it corrects the reading of the pending placement; on a cell where the
        reader sees nothing, the tile was missed when it was placed: it joins the latest placement (which
        is re-checked and re-scored). Either way the reader's later readings of that cell are taken as
        this tile.
        """
        with self._lock:
            session = self._need_game()
            cell = (row, col)
            fixed = parse_tile(tile, session.game.tileset)
            if cell in session.game.board:
                session.game = corrected(session.game, {cell: fixed})
                session.fixes[cell] = Fix(fixed, always=fixed is not None)
            elif self._seen_at(cell):
                session.fixes[cell] = Fix(fixed)
            elif fixed is None:
                raise GameError(f"({row},{col}): no tile there and none read there; nothing to correct")
            else:
                session.game = with_missed(session.game, cell, fixed)
                session.fixes[cell] = Fix(fixed, always=True)
            self._store_change("correction", {"row": row, "col": col, "tile": str(fixed) if fixed else None})
            self._reconsider()
            return self.state()

    def accept_reading(self) -> dict[str, Any]:
        """The pending reading is right: confirmed tiles read differently now were misread when placed,
        so their turns are amended; then the table is judged again."""
        with self._lock:
            session = self._need_game()
            change = self._current_change()
            if change is None:
                raise GameError("nothing to accept: the table is not settled")
            amend = acceptable(change)
            if amend:
                session.game = corrected(session.game, amend)
                self._store_change("correction", {"accepted": [list(c) for c in amend]})
            self._reconsider(force=True)
            return self.state()

    def resolve(self, action: str) -> dict[str, Any]:
        """Settle the pending item: ``keep`` (the board is right, the reader wrong where they differ),
        ``accept`` (see :meth:`accept_reading`) or ``cancel`` (withdraw a declared trade or re-roll)."""
        if action == "accept":
            return self.accept_reading()
        with self._lock:
            session = self._need_game()
            if action == "cancel":
                if session.declared is None:
                    raise GameError("nothing to cancel: no trade or re-roll was declared")
                session.declared = None
                self._store_change("cancel", {})
            elif action == "keep":
                change = self._current_change()
                if change is None:
                    raise GameError("nothing to keep: the table is not settled")
                fixes = kept(change)
                session.fixes.update(fixes)
                self._store_change("keep", {"cells": [list(c) for c in sorted(fixes)]})
            else:
                raise GameError(f"resolve: unknown action {action!r} (keep, accept, cancel)")
            self._reconsider(force=True)
            return self.state()

    # Judging a settled table ----------------------------------------------------------------------------
    def _observe(self, reading: Reading, session: Session, *, fixes: bool = True) -> Observation:
        game = session.game
        return observe(
            reading,
            game.board,
            fixed=game.layout is not None,
            hint=session.registration,
            fixes=session.fixes if fixes else None,
        )

    def _current_change(self) -> Change | None:
        session = self._session
        if session is None or self._calm is None:
            return None
        return compare(session.game.board, self._observe(self._calm, session))

    def _reconsider(self, *, force: bool = False) -> None:
        """Judge the still table again after a change made on the phone (a correction, a declaration)."""
        if self._calm is not None:
            self._judge(self._calm, settled_at=None)
        elif force or self._source is None:
            self._set_pending(None)

    def _judge(self, reading: Reading, *, settled_at: float | None) -> None:
        session = self._session
        if session is None or session.game.over:
            self._set_pending(None)
            return
        game = session.game
        raw = self._observe(reading, session, fixes=False)
        for cell in [c for c, f in session.fixes.items() if c not in game.board and not f.always]:
            if cell not in raw.board and cell not in raw.unknown:
                del session.fixes[cell]  # the tile the fix was about has been taken away
        seen = self._observe(reading, session)
        change = compare(game.board, seen)
        extra: dict[str, Any] = {"settled_at": settled_at} if settled_at is not None else {}
        if change.needs_attention:
            self._set_pending(pending_item("needs-attention", change, change.reasons()))
            return
        if change.placed:
            declared = session.declared
            if declared is not None:
                why = f"{declared.player} declared a {declared.kind} but tiles were placed"
                self._set_pending(pending_item("needs-attention", change, [why]))
                return
            found = game.violations(change.placed)
            if not found:
                try:
                    session.registration = seen.registration
                    turn = game.play(change.placed)
                except GameError as err:
                    self._set_pending(pending_item("dispute", change, [str(err)]))
                    return
                self._pending = None
                self._after_move("turn", {"turn": turn_to_json(turn), "source": "camera", **extra})
                return
            item = pending_item("dispute", change, [v.message for v in found])
            item["violations"] = [violation_to_json(v) for v in found]
            self._set_pending(item)
            return
        session.registration = seen.registration
        self._pending = None
        if session.declared is not None:
            declared, session.declared = session.declared, None
            action = game.trade if declared.kind == "trade" else game.reroll
            turn = action(declared.count)
            self._after_move("turn", {"turn": turn_to_json(turn), "source": "declared", **extra})
            return
        self._set_pending(None)

    def _after_move(self, kind: str, data: dict[str, Any], *, reconsider: bool = True) -> None:
        """Store and announce a move already applied to the game (the store first)."""
        session = self._session
        assert session is not None
        self._turn_started = time.time()
        self._pending = None
        self._store_change(kind, data)
        if reconsider and kind != "turn":
            self._reconsider()

    def _seen_at(self, cell: Cell) -> bool:
        if self._calm is None or self._session is None:
            return False
        seen = self._observe(self._calm, self._session)
        return cell in seen.board or cell in seen.unknown
