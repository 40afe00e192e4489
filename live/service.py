"""The game service: one object that owns the camera loop, the game state, the store and the event stream.

``qwirkle serve`` (through the web app) and ``qwirkle follow`` both use it. Sketch::

    from live.service import GameService

    with GameService("games.sqlite3", source=DemoSource(seed=1)) as svc:   # start() ... stop()
        svc.new_game(["Ann", "Bob"], variant="classic")
        v = svc.wait_for_change(svc.version, timeout=30)                   # for Server-Sent Events
        print(svc.state()["scores"])

Construction
    ``GameService(store_path, *, source=None, reader=None, variant="classic", layout=None,
    calibration=None, clock=time.monotonic, settler=None, motion=None, retry_seconds=2.0, phone=None)``.
    ``source`` is a :class:`vision.frames.FrameSource` (None: no camera, moves come from the phone);
    ``reader`` maps a BGR frame to a :class:`vision.reading.Reading` (None: ``vision.read_table`` with
    the game's tile set and layout and ``calibration``, a :class:`calibration.Calibration` read through
    :func:`calibration.read_calibrated`, or bare :class:`vision.Prototypes`); ``phone(frame, service)``
    is called with each frame before it is judged (the demo's simulated players press their buttons:
    :class:`live.demo.DemoPhone`).
    The latest game in the store is resumed.

Life cycle
    ``start()`` runs the camera loop in one background thread (no-op without a source), ``stop()`` ends
    it; the service is also a context manager. ``close()`` stops and closes the store.

State and changes
    ``state() -> dict``: the ``/api/state`` JSON. Keys: ``version``, ``game_id``, ``variant``,
    ``players`` (name, side, hand), ``sides``, ``scores``, ``teams``, ``to_move``, ``turn_seconds``,
    ``turn_deadline`` (epoch seconds, or None), ``board`` (``{"tiles": [...]}``), ``layout`` (JSON or
    None), ``turns`` (number, player, side, move, points, lines, bonus, out_bonus, bag_after), ``bag``,
    ``over``, ``ending``, ``winners``, ``can_undo``, ``can_redo``, ``follow`` (``status``: ``off``,
    ``watching``, ``settling``, ``needs-attention``, ``dispute`` or ``camera-lost``; ``pending``: the
    dispute or attention item or None; ``declared``: a trade/re-roll awaiting the table, or None) and
    ``camera`` (``source``, ``status``: ``off``/``ok``/``lost``, ``error``, ``frames``). Without a game
    the game keys are empty (``players == []``, ``game_id is None``).
    ``version`` grows with every change; ``wait_for_change(since, timeout) -> int`` blocks until the
    version differs from ``since`` (thread-safe; a ``since`` from before a restart returns at once).
    ``events_since(version)`` lists the recent changes (version, kind, data).

Actions (each is one event with the next version; stored before it is announced)
    ``new_game(players, *, variant=None, teams=None, first=0, turn_seconds=None, layout=None)``,
    ``play(placement)`` (a placement typed on the phone), ``declare_trade(count, *, turn=None)``,
    ``declare_reroll(count, *, turn=None)``, ``draw(*, turn=None)`` (Cubes), ``pass_turn(*, turn=None)``
    (``turn``: the number the
    phone expects the new turn to get; a stale press, e.g. retried after a restart, is refused),
    ``correct_tile(row, col, tile_or_None)``,
    ``accept_reading()`` and ``resolve(action)`` (``"keep"``, ``"accept"`` or ``"cancel"``) for the
    pending item, ``adjust(side, points, note="")``, ``undo()``, ``redo()``, ``end_game()``.
    Bad calls raise the rules core's exceptions (:class:`table.GameError`,
    :class:`table.IllegalPlacementError`, :class:`table.BoardFormatError`, ...) with one-line messages,
    and change nothing.

Queries
    ``check(placement) -> dict`` (the contract's ``check`` JSON on the current board),
    ``spots(tile) -> dict`` (``{"cells": [[r, c], ...]}``), ``export(game_id=None) -> dict`` (a game with
    its moves, final state and stored events), ``games() -> list[dict]`` (every stored game, newest
    first), ``snapshot() -> bytes | None`` (the latest frame as JPEG with the recognised tiles marked),
    ``latest_frame() -> ndarray | None`` (the last raw BGR frame, for the calibration wizard).

Calibration
    ``set_calibration(cal)``: later frames are read with ``cal`` (one ``calibration`` event); the state's
    ``calibration`` is ``{"learned_from", "when"}`` or None. ``calibration`` and ``source`` (read-only):
    the one in use and the camera.

How a turn is seen: see :mod:`live.settle` (when the table is settled), :mod:`table.register` (the reading
mapped onto the board) and :mod:`live.turns` (what changed). New tiles are a placement: legal ones are
scored for the player to move; illegal ones become a *dispute* with the rules' reasons, never scored.
Nothing new after a declared trade or re-roll makes it that player's turn. A confirmed tile gone or read
as another, or a new cell that cannot be read, *needs attention*: a person resolves it on the phone.

The class is built in layers, one module each: :mod:`live.state` (construction, ``state()``, the store
and event plumbing), :mod:`live.judging` (judging a settled table; corrections), :mod:`live.camera` (the
camera loop, ``feed``, snapshots, calibration) and this module (set-up, phone moves, queries).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from live.camera import CameraLoop
from live.corrections import (
    TileInput,
    parse_placement,
    parse_tile,
)
from live.session import Declared, Session
from live.state import Reader
from table import Game, GameError, Layout, spots
from table.codec import check_to_json
from table.game import turn_to_json
from table.scoring import score


class GameService(CameraLoop):
    """See the module docstring for the whole public API."""

    # Set-up -------------------------------------------------------------------------------------------
    def new_game(
        self,
        players: Iterable[str],
        *,
        variant: str | None = None,
        teams: Iterable[Iterable[str]] | None = None,
        first: int = 0,
        turn_seconds: int | None = None,
        layout: Layout | None = None,
    ) -> dict[str, Any]:
        """Start a game; ``first`` is the index in ``players`` of who starts (the order stays clockwise)."""
        names = list(players)
        if not 0 <= first < max(1, len(names)):
            raise GameError(f"first player: no player number {first} among {len(names)}")
        names = names[first:] + names[:first]
        variant = variant or (layout.variant if layout else self._defaults[0])
        if layout is None and self._defaults[1] is not None and self._defaults[1].variant == variant:
            layout = self._defaults[1]
        game = Game(
            names,
            variant=variant,
            teams=[list(t) for t in teams] if teams is not None else None,
            layout=layout,
            turn_seconds=turn_seconds,
        )
        with self._lock:
            session = Session(game)
            version = self._events.next_version()
            data = {"players": names, "variant": game.variant}
            self._game_id = self._store.create(session.to_json(), version=version, kind="new-game", data=data)
            self._session, self._pending = session, None
            self._turn_started = time.time()
            self._events.publish("new-game", data, at=self.clock())
            self._status = self._follow_status()
            self._reconsider()
            return self.state()

    # Moves from the phone -----------------------------------------------------------------------------
    def play(self, placement: Any) -> dict[str, Any]:
        """Record a placement typed on the phone (placed tiles, or the contract's placement JSON)."""
        with self._lock:
            session = self._need_game()
            tiles = parse_placement(placement, session.game.tileset)
            turn = session.game.play(tiles)
            self._after_move("turn", {"turn": turn_to_json(turn), "source": "phone"})
            return self.state()

    def declare_trade(self, count: int, *, turn: int | None = None) -> dict[str, Any]:
        """The player to move traded ``count`` tiles; it is their turn once the table shows nothing new.

        Pressing again replaces the declaration (the same one twice is one). ``turn``, the number the
        phone expects the new turn to get (``len(state()["turns"]) + 1``), makes a stale press harmless:
        a press that arrives after that turn was recorded (a retry after a restart) is refused.
        """
        return self._declare("trade", count, turn)

    def declare_reroll(self, count: int, *, turn: int | None = None) -> dict[str, Any]:
        """Qwirkle Cubes: the player to move re-rolled ``count`` cubes (as :meth:`declare_trade`)."""
        return self._declare("reroll", count, turn)

    def draw(self, *, turn: int | None = None) -> dict[str, Any]:
        """Qwirkle Cubes: the player to move draws cubes up to six as their turn (``turn`` as for
        :meth:`declare_trade`)."""
        with self._lock:
            self._expect(turn)
            made = self._need_game().game.draw()
            self._after_move("turn", {"turn": turn_to_json(made), "source": "phone"})
            return self.state()

    def pass_turn(self, *, turn: int | None = None) -> dict[str, Any]:
        """The player to move cannot play and the bag is empty (``turn`` as for :meth:`declare_trade`)."""
        with self._lock:
            self._expect(turn)
            turn_made = self._need_game().game.pass_turn()
            self._after_move("turn", {"turn": turn_to_json(turn_made), "source": "phone"})
            return self.state()

    def adjust(self, side: str, points: int, note: str = "") -> dict[str, Any]:
        with self._lock:
            turn = self._need_game().game.adjust(side, points, note)
            self._after_move("adjust", {"turn": turn_to_json(turn)})
            return self.state()

    def undo(self) -> dict[str, Any]:
        with self._lock:
            session = self._need_game()
            move = session.game.undo()
            session.declared = None
            self._after_move("undo", {"move": str(move)}, reconsider=False)
            return self.state()

    def redo(self) -> dict[str, Any]:
        with self._lock:
            turn = self._need_game().game.redo()
            self._after_move("redo", {"turn": turn_to_json(turn)})
            return self.state()

    def end_game(self) -> dict[str, Any]:
        with self._lock:
            turn = self._need_game().game.finish()
            self._after_move("end", {"turn": turn_to_json(turn)})
            return self.state()

    # Queries ------------------------------------------------------------------------------------------
    def check(self, placement: Any) -> dict[str, Any]:
        """The contract's ``check`` JSON for ``placement`` on the current board (the dispute checker)."""
        with self._lock:
            session = self._need_game()
            tiles = parse_placement(placement, session.game.tileset)
            found = session.game.violations(tiles)
            points = None if found else score(session.game.board, tiles, layout=session.game.layout)
            return check_to_json(found, points)

    def spots(self, tile: TileInput) -> dict[str, Any]:
        with self._lock:
            session = self._need_game()
            parsed = parse_tile(tile, session.game.tileset)
            if parsed is None:
                raise GameError("spots: which tile?")
            game = session.game
            cells = spots(game.board, parsed, tileset=game.tileset, layout=game.layout)
            return {"cells": [list(c) for c in cells]}

    def games(self) -> list[dict[str, Any]]:
        return [
            {"id": g.id, "created": g.created, "updated": g.updated, "over": g.over, **g.snapshot["summary"]}
            for g in self._store.games()
        ]

    def export(self, game_id: int | None = None) -> dict[str, Any]:
        """One game as JSON: set-up and moves (``game``, loadable by ``Game.from_json``), its final
        ``state`` and its stored ``events``. Default: the current game."""
        game_id = self._game_id if game_id is None else game_id
        if game_id is None:
            raise GameError("export: no game yet")
        stored = self._store.load(game_id)
        session = Session.from_json(stored.snapshot, where=f"{self._store.path}: game {game_id}")
        return {
            "id": game_id,
            "created": stored.created,
            "updated": stored.updated,
            "game": session.game.to_json(),
            "state": session.game.state(),
            "events": self._store.events(game_id),
        }

    # Plumbing -----------------------------------------------------------------------------------------
    def _declare(self, kind: str, count: int, turn: int | None) -> dict[str, Any]:
        with self._lock:
            self._expect(turn)
            session = self._need_game()
            trial = Game.from_json(session.game.to_json())  # check the action without making it
            (trial.trade if kind == "trade" else trial.reroll)(count)
            if session.declared == Declared(kind, count, session.game.player):
                return self.state()  # the same button pressed twice
            if self._source is None:
                action = session.game.trade if kind == "trade" else session.game.reroll
                made = action(count)
                self._after_move("turn", {"turn": turn_to_json(made), "source": "declared"})
                return self.state()
            session.declared = Declared(kind, count, session.game.player)
            self._store_change("declared", session.declared.to_json())
            self._reconsider()
            return self.state()


__all__ = ["GameService", "Reader"]
