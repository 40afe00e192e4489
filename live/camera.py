"""The game service's camera loop: frames in, motion and settling, readings, and the latest frame out.

Each frame goes through :meth:`CameraLoop.feed`: the phone's hook (the demo's players), the motion
check, and, once the table is still, the reader; the readings since the table last moved are merged
(:class:`live.settle.Evidence`) and, once settled, judged (:mod:`live.judging`). The loop runs in one
background thread between ``start()`` and ``stop()``, and retries a camera that vanished. Part of
:class:`live.service.GameService`.
"""

from __future__ import annotations

import logging
import threading
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, cast

import numpy as np

from live.judging import Judging
from live.settle import reading_key
from live.state import Reader, calibration_summary
from live.turns import busy, doubted
from table import GameError
from vision.frames import Frame, FrameSource, SourceError, SourceUnavailableError
from vision.reading import Reading

if TYPE_CHECKING:
    from live.service import GameService

log = logging.getLogger(__name__)

# Seconds of a still picture after which the reader's "a hand hides these cells" is doubted: the cells are
# taken as unreadable, which needs attention, instead of keeping the table unsettled for ever.
DOUBT_AFTER_S = 1.5


class CameraLoop(Judging):
    """The camera layer of the game service (see :class:`live.service.GameService`)."""

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

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

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
            self._phone(frame, cast("GameService", self))  # the layers make one GameService
        at = frame.timestamp
        if self._motion.update(frame.image):
            self._settler.moved(at)
            self._evidence.reset()
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
        if is_busy and self._settler.still_for(at) >= DOUBT_AFTER_S:
            reading = doubted(reading)  # no hand stays that still: ask about those cells instead
            is_busy = busy(reading)
        with self._lock:
            self._frame_reading = reading
            if is_busy:
                self._evidence.reset()
            else:
                fixed = self._session is not None and self._session.game.layout is not None
                reading = self._evidence.add(reading, fixed=fixed)
        key = reading_key(reading.board, frozenset((u.row, u.col, u.reason) for u in reading.uncertain))
        settled = self._settler.offer(at, key, busy=is_busy)
        with self._lock:
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
            self._evidence.reset()
            self._changed("calibration", {"calibration": calibration_summary(calibration)})
            return self.state()
