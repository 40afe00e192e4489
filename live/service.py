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
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from live.corrections import TileInput, acceptable, corrected, kept, parse_placement, parse_tile, pending_item
from live.events import EventLog
from live.session import Declared, Session
from live.settle import MotionDetector, Settler, reading_key
from live.store import GameStore
from live.turns import Change, Fix, Observation, busy, compare, observe
from table import Cell, Game, GameError, Layout, spots
from table.codec import board_to_json, check_to_json, layout_to_json, violation_to_json
from table.game import turn_to_json
from table.scoring import score
from vision.frames import Frame, FrameSource, SourceError, SourceUnavailableError
from vision.reading import Reading

log = logging.getLogger(__name__)

Reader = Callable[[np.ndarray], Reading]


class GameService:
    """See the module docstring for the whole public API."""

    def __init__(
        self,
        store_path: str | Path,
        *,
        source: FrameSource | None = None,
        reader: Reader | None = None,
        variant: str = "classic",
        layout: Layout | None = None,
        calibration: Any = None,
        clock: Callable[[], float] = time.monotonic,
        settler: Settler | None = None,
        motion: MotionDetector | None = None,
        retry_seconds: float = 2.0,
        phone: Callable[[Frame, GameService], None] | None = None,
    ) -> None:
        self.clock = clock
        self._lock = threading.RLock()
        self._store = GameStore(store_path)
        self._events = EventLog(self._store.max_version())
        self._source = source
        self._reader = reader
        self._defaults = (variant, layout)
        self._calibration = calibration
        self._settler = settler or Settler()
        self._motion = motion or MotionDetector()
        self._retry = retry_seconds
        self._phone = phone
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        # The game and what follows it.
        self._session: Session | None = None
        self._game_id: int | None = None
        self._pending: dict[str, Any] | None = None
        self._calm: Reading | None = None  # the settled reading while the table stays still
        self._busy = False
        self._turn_started = time.time()
        # The camera.
        self._camera: dict[str, Any] = {
            "source": getattr(source, "name", None),
            "status": "off",
            "error": None,
        }
        self._frames = 0
        self._frame: Frame | None = None
        self._frame_reading: Reading | None = None
        self._still_tiles = False
        self._status = self._follow_status()
        latest = self._store.latest()
        if latest is not None:
            self._session = Session.from_json(latest.snapshot, where=f"{self._store.path}: game {latest.id}")
            self._game_id = latest.id

    # Life cycle ---------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the camera loop in a background thread (nothing to do without a source)."""
        if self._source is None or (self._thread and self._thread.is_alive()):
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="qwirkle-camera", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the camera loop and wait for it (at most ``timeout`` seconds)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._lock:
            self._calm = None
            if self._camera["status"] != "off":
                self._camera.update(status="off", error=None)
                self._changed("camera", {"status": "off"})

    def close(self) -> None:
        self.stop()
        self._store.close()

    def __enter__(self) -> GameService:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # State --------------------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return self._events.version

    def wait_for_change(self, since: int, timeout: float) -> int:
        return self._events.wait_for_change(since, timeout)

    def events_since(self, version: int) -> list[dict[str, Any]]:
        return [e.to_json() for e in self._events.since(version)]

    def state(self) -> dict[str, Any]:
        with self._lock:
            out: dict[str, Any] = {"version": self.version, "game_id": self._game_id}
            session = self._session
            if session is None:
                out.update(
                    variant=self._defaults[0], players=[], sides=[], scores={}, teams=None, to_move=None,
                    turn_seconds=None, turn_deadline=None, board=board_to_json(()), layout=None, turns=[],
                    bag=0, over=False, ending=None, winners=[], can_undo=False, can_redo=False,
                )  # fmt: skip
            else:
                game = session.game
                out.update(game.state())
                out.update(
                    sides=list(game.sides),
                    teams=[list(t) for t in game.teams] if game.teams else None,
                    turn_seconds=game.turn_seconds,
                    turn_deadline=(
                        self._turn_started + game.turn_seconds
                        if game.turn_seconds and not game.over
                        else None
                    ),
                    layout=layout_to_json(game.layout) if game.layout else None,
                    can_undo=bool(game.history),
                )
            out["follow"] = {
                "status": self._status,
                "pending": self._pending,
                "declared": session.declared.to_json() if session and session.declared else None,
            }
            out["camera"] = {**self._camera, "frames": self._frames}
            out["calibration"] = _calibration_json(self._calibration)
            return out

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

    # Corrections --------------------------------------------------------------------------------------
    def correct_tile(self, row: int, col: int, tile: TileInput) -> dict[str, Any]:
        """Say what the tile at (row, col) really is (None: there is no tile there).

        On a confirmed cell this amends the turn that placed it (every later turn is re-checked and
        re-scored); on a new cell it corrects the reading of the pending placement. Either way the reader's
        later readings of that cell are taken as this tile.
        """
        with self._lock:
            session = self._need_game()
            cell = (row, col)
            fixed = parse_tile(tile, session.game.tileset)
            if cell in session.game.board:
                session.game = corrected(session.game, {cell: fixed})
                session.fixes[cell] = Fix(fixed, always=fixed is not None)
            else:
                if not self._seen_at(cell):
                    raise GameError(f"({row},{col}): no tile there and none read there; nothing to correct")
                session.fixes[cell] = Fix(fixed)
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

    def snapshot(self) -> bytes | None:
        """The latest frame as JPEG with the recognised tiles marked, or None before the first frame."""
        from live.overlay import annotate

        with self._lock:
            frame, reading = self._frame, self._frame_reading
        if frame is None:
            return None
        return annotate(frame.image, reading)

    def latest_frame(self) -> np.ndarray | None:
        """The last raw frame (BGR uint8, H×W×3) the camera gave, or None before the first one."""
        with self._lock:
            return None if self._frame is None else self._frame.image

    # Calibration --------------------------------------------------------------------------------------
    @property
    def source(self) -> FrameSource | None:
        """The camera (None: moves come from the phone); its locked settings go into a calibration."""
        return self._source

    @property
    def calibration(self) -> Any:
        """The calibration frames are read with (None: the tile set's defaults)."""
        return self._calibration

    def set_calibration(self, calibration: Any) -> dict[str, Any]:
        """Read every later frame with ``calibration`` (a :class:`calibration.Calibration`, or None for
        the defaults); one ``calibration`` event so the pages refresh.

        A calibration made for another edition than the running game's is refused (:class:`GameError`).
        """
        from calibration import Calibration

        if calibration is not None and not isinstance(calibration, Calibration):
            raise TypeError(f"set_calibration: expected a calibration.Calibration, got {type(calibration)}")
        with self._lock:
            session = self._session
            if calibration is not None and session is not None:
                name = session.game.tileset.name
                if calibration.tileset != name:
                    raise GameError(f"calibration: made for {calibration.tileset}, the game is {name}")
            self._calibration = calibration
            self._calm = None  # judge the table again with the new eyes
            self._changed("calibration", {"calibration": _calibration_json(calibration)})
            return self.state()

    # The camera loop ----------------------------------------------------------------------------------
    def _run(self) -> None:
        assert self._source is not None
        while not self._stopping.is_set():
            try:
                with self._source as source:
                    self._camera_status("ok", None)
                    while not self._stopping.is_set():
                        self.feed(source.read())
            except SourceError as err:
                self._camera_status("lost", str(err))
                if not isinstance(err, SourceUnavailableError):
                    log.warning("camera: %s", err)
                self._stopping.wait(self._retry)
            except Exception as err:  # a reader or source bug must not end the loop: say so, retry
                log.exception("camera loop failed")
                self._camera_status("lost", f"{type(err).__name__}: {err}")
                self._stopping.wait(self._retry)

    def feed(self, frame: Frame) -> None:
        """Process one frame (the camera loop calls this; tests and ``follow`` may call it directly)."""
        with self._lock:
            self._frame = frame
            self._frames += 1
            if self._camera["status"] != "ok":
                self._camera_status("ok", None)
        if self._phone is not None:
            self._phone(frame, self)
        at = frame.timestamp
        if self._motion.update(frame.image):
            self._settler.moved(at)
            self._still_tiles = False  # whether a reading since the table went still found tiles
            with self._lock:
                self._calm = None
                self._set_busy(True)
            return
        if not self._settler.wants_reading(at):
            return
        reader = self._reader_now()
        if reader is None:
            return
        try:
            reading = reader(frame.image)
        except Exception as err:  # one unreadable frame must not stop the game: skip it, say why
            log.warning("reader failed on frame %d: %s", frame.index, err)
            with self._lock:
                self._camera["error"] = f"reader: {type(err).__name__}: {err}"
                self._calm = None
            return
        if not reading.tiles and not reading.uncertain and (self._still_tiles or self._confirmed_tiles()):
            return  # nothing found on a table that holds tiles: a failed reading, not an empty table
        self._still_tiles = bool(reading.tiles)
        is_busy = busy(reading)
        key = reading_key(reading.board, frozenset((u.row, u.col, u.reason) for u in reading.uncertain))
        settled = self._settler.offer(at, key, busy=is_busy)
        with self._lock:
            self._frame_reading = reading
            if is_busy or self._settler.settled is None:
                self._calm = None
                self._set_busy(True)
                return
            if settled is not None:
                self._calm = reading
                self._busy = False
                self._judge(reading, settled_at=settled.since)

    def _confirmed_tiles(self) -> int:
        with self._lock:
            return len(self._session.game.board) if self._session is not None else 0

    def _reader_now(self) -> Reader | None:
        if self._reader is not None:
            return self._reader
        with self._lock:
            session = self._session
        if session is None:
            return None
        from calibration import Calibration, read_calibrated
        from vision import read_table

        tiles, layout, calibration = session.game.tileset, session.game.layout, self._calibration
        if isinstance(calibration, Calibration):
            usable = calibration if calibration.tileset == tiles.name else None  # another edition's: no
            return partial(read_calibrated, calibration=usable, tileset=tiles, layout=layout)

        def read(image: np.ndarray) -> Reading:
            reading: Reading = read_table(image, tileset=tiles, layout=layout, calibration=calibration)
            return reading

        return read

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

    def _after_move(self, kind: str, data: dict[str, Any], *, reconsider: bool = True) -> None:
        """Store and announce a move already applied to the game (the store first)."""
        session = self._session
        assert session is not None
        self._turn_started = time.time()
        self._pending = None
        self._store_change(kind, data)
        if reconsider and kind != "turn":
            self._reconsider()

    def _store_change(self, kind: str, data: dict[str, Any]) -> None:
        session, game_id = self._session, self._game_id
        assert session is not None and game_id is not None
        version = self._events.next_version()
        try:
            self._store.record(
                game_id, session.to_json(), version=version, kind=kind, data=data, over=session.game.over
            )
        except Exception:
            self._session = Session.from_json(self._store.load(game_id).snapshot, where="store")
            raise
        self._status = self._follow_status()
        self._events.publish(kind, data, at=self.clock())

    def _set_pending(self, item: dict[str, Any] | None) -> None:
        if item == self._pending and self._status == self._follow_status(item):
            return
        self._pending = item
        self._changed("follow", {"pending": item})

    def _set_busy(self, value: bool) -> None:
        with self._lock:
            if self._busy != value:
                self._busy = value
                self._changed("follow", {})

    def _camera_status(self, status: str, error: str | None) -> None:
        with self._lock:
            self._camera.update(status=status, error=error)
            if status != "ok":
                self._calm = None
            self._changed("camera", {"status": status, "error": error})

    def _changed(self, kind: str, data: dict[str, Any]) -> None:
        """Announce a change that is not stored (follow status, camera); only when the state moved."""
        status = self._follow_status()
        if kind == "follow" and status == self._status and "pending" not in data:
            return
        self._status = status
        event = self._events.publish(kind, {**data, "status": status}, at=self.clock())
        self._store.note_version(event.version)

    def _follow_status(self, pending: dict[str, Any] | None = None) -> str:
        pending = pending if pending is not None else getattr(self, "_pending", None)
        if self._camera["status"] == "lost":
            return "camera-lost"
        if pending is not None:
            return str(pending["kind"])
        if self._camera["status"] != "ok":
            return "off"
        return "settling" if self._busy else "watching"

    def _expect(self, turn: int | None) -> None:
        """Refuse a press meant for another turn than the next one."""
        due = len(self._need_game().game.history) + 1
        if turn is not None and turn != due:
            raise GameError(f"turn {turn}: already recorded or not yet due (the next turn is {due})")

    def _need_game(self) -> Session:
        if self._session is None:
            raise GameError("no game yet: start one first")
        return self._session

    def _seen_at(self, cell: Cell) -> bool:
        if self._calm is None or self._session is None:
            return False
        seen = self._observe(self._calm, self._session)
        return cell in seen.board or cell in seen.unknown


def _calibration_json(calibration: Any) -> dict[str, Any] | None:
    """What the state says about the calibration in use: where it was learned from and when."""
    if calibration is None:
        return None
    source = getattr(calibration, "source", None) or {}
    when = getattr(calibration, "created", "") or None
    return {"learned_from": source.get("known", "prototypes"), "when": when}


__all__ = ["GameService", "Reader"]
