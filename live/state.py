"""The game service's state: the game, its store and event stream, and the follow status around them.

:class:`ServiceState` is the bottom layer of :class:`live.service.GameService` (which documents the whole
public API): it builds the service, answers ``state()`` and the version queries, and holds the plumbing
every change goes through (stored before it is announced). :mod:`live.judging` judges settled tables on
top of it, :mod:`live.camera` runs the camera loop, :mod:`live.service` adds the set-up, phone and query
calls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from live.events import EventLog
from live.session import Session
from live.settle import Evidence, MotionDetector, Settler
from live.store import GameStore
from table import GameError, Layout
from table.codec import board_to_json, layout_to_json
from vision.frames import Frame, FrameSource
from vision.reading import Reading

if TYPE_CHECKING:
    from live.service import GameService


Reader = Callable[[np.ndarray], Reading]


class ServiceState:
    """Construction, state and plumbing of the game service (see :class:`live.service.GameService`)."""

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
        self._evidence = Evidence()  # the readings since the table last moved, merged
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
            out["calibration"] = calibration_summary(self._calibration)
            return out

    # Plumbing -----------------------------------------------------------------------------------------
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
                self._evidence.reset()
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


def calibration_summary(calibration: Any) -> dict[str, Any] | None:
    """What the state says about the calibration in use: where it was learned from and when."""
    if calibration is None:
        return None
    source = getattr(calibration, "source", None) or {}
    when = getattr(calibration, "created", "") or None
    return {"learned_from": source.get("known", "prototypes"), "when": when}
