"""What the app factory attaches to the app: the game service and the web layer's own shared parts."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import current_app

if TYPE_CHECKING:
    from web.security import RateLimiter


@dataclass
class Table:
    """Everything the views share, kept on ``app.extensions["qwirkle"]`` (never in module globals).

    Attributes
    ----------
    service : live.service.GameService
        The game: state, changes, corrections, checks, camera snapshots.
    pin : str
        The table's PIN; every change needs it once per session.
    limiter : RateLimiter
        Counts wrong PIN attempts.
    closing : threading.Event
        Set when the server stops, so open event streams end.
    streams, viewers : threading.BoundedSemaphore
        Caps on concurrent event streams and MJPEG viewers (each holds a server thread).
    """

    service: Any
    pin: str
    limiter: RateLimiter
    closing: threading.Event
    streams: threading.BoundedSemaphore
    viewers: threading.BoundedSemaphore
    _cached: tuple[int, str] = (-1, "")
    _cache_lock: threading.Lock = field(default_factory=threading.Lock)
    _jpeg: tuple[float, bytes | None] = (-1e9, None)

    def state_json(self) -> tuple[int, str]:
        """The service's state as compact JSON text and its version, serialised once per version.

        Thirty phones on the event stream get the same text for a change instead of thirty encodings.
        """
        with self._cache_lock:
            if self._cached[0] == self.service.version:
                return self._cached
        state = self.service.state()
        text = json.dumps(state, separators=(",", ":"))
        with self._cache_lock:
            if state["version"] >= self._cached[0]:
                self._cached = (int(state["version"]), text)
        return int(state["version"]), text

    def snapshot_jpeg(self, max_age: float) -> bytes | None:
        """The service's annotated camera frame, encoded again only when the last is ``max_age`` s old."""
        with self._cache_lock:
            at, cached = self._jpeg
            if time.monotonic() - at < max_age:
                return cached
        fresh: bytes | None = self.service.snapshot()
        with self._cache_lock:
            self._jpeg = (time.monotonic(), fresh)
        return fresh


def table() -> Table:
    """The current app's :class:`Table`."""
    found: Table = current_app.extensions["qwirkle"]
    return found


def service() -> Any:
    """The current app's game service."""
    return table().service
