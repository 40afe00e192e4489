"""The event stream: a version number that grows with every change, and a way to wait for the next one.

Every change of the game service (a confirmed turn, a correction, the follow status moving from
"watching" to "settling") is an :class:`Event` with the next version. Readers such as the web page's
Server-Sent Events wait with :meth:`EventLog.wait_for_change` and then fetch the whole state.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

KEEP = 256  # how many recent events stay in memory for late readers


@dataclass(frozen=True, slots=True)
class Event:
    """One change: its version, what kind of change, the facts of it, and when (service clock)."""

    version: int
    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "kind": self.kind, "data": self.data}


class EventLog:
    """A thread-safe version counter with the recent events.

    Parameters
    ----------
    start : int
        The version before the first event (a resumed service starts beyond every stored version).
    """

    def __init__(self, start: int = 0) -> None:
        self._version = start
        self._recent: deque[Event] = deque(maxlen=KEEP)
        self._changed = threading.Condition()

    @property
    def version(self) -> int:
        return self._version

    def next_version(self) -> int:
        """The version the next published event will carry (callers store it before publishing)."""
        return self._version + 1

    def publish(self, kind: str, data: dict[str, Any] | None = None, *, at: float = 0.0) -> Event:
        """Record a change and wake every waiter."""
        with self._changed:
            self._version += 1
            event = Event(self._version, kind, dict(data or {}), at)
            self._recent.append(event)
            self._changed.notify_all()
        return event

    def wait_for_change(self, since: int, timeout: float) -> int:
        """Block until the version differs from ``since`` (or ``timeout`` seconds pass); return it.

        A ``since`` from another life of the service (larger than the current version, after a restart)
        differs too, so the caller is answered at once and refetches the state.
        """
        with self._changed:
            self._changed.wait_for(lambda: self._version != since, timeout=max(0.0, timeout))
            return self._version

    def since(self, version: int) -> list[Event]:
        """The events after ``version`` still in memory (oldest first)."""
        with self._changed:
            return [e for e in self._recent if e.version > version]
