"""The frame-source interface: where frames come from (Pi camera, OpenCV camera, a folder, the demo).

Every source is a context manager yielding :class:`Frame` objects; implementations live in
:mod:`vision.pi_camera` (the Raspberry Pi camera), :mod:`vision.sources` (OpenCV cameras, folders) and
:mod:`vision.demo` (the rendered demo game). :class:`Pacer` keeps a source to its frame rate.

Frames are BGR uint8 arrays of shape (H, W, 3), whatever the camera delivers natively: each source sets
its colour order explicitly and converts once, here at the edge.
"""

from __future__ import annotations

import abc
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy as np


class SourceError(Exception):
    """A frame source that cannot deliver: it names the source and what went wrong."""


class SourceUnavailableError(SourceError):
    """The camera (or folder, or stream) is absent or vanished; reopening may help later."""


@dataclass(frozen=True)
class Frame:
    """One captured frame.

    Attributes
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The picture, BGR channel order.
    index : int
        Counts frames from 0 since the source was opened.
    timestamp : float
        Seconds (``time.monotonic()`` clock of the capturing process, or a source's own clock for replays).
    meta : dict
        Source-specific facts (exposure, gains, file name, the demo's ground truth, ...).
    """

    image: np.ndarray
    index: int
    timestamp: float
    meta: dict[str, Any] = field(default_factory=dict)


class FrameSource(abc.ABC):
    """A place frames come from. Use as a context manager::

    with OpenCVSource(0) as source:
        frame = source.read()
    """

    name: str = "source"

    @abc.abstractmethod
    def open(self) -> None:
        """Acquire the device or files; raise :class:`SourceUnavailableError` if absent."""

    @abc.abstractmethod
    def read(self) -> Frame:
        """The next frame; raise :class:`SourceUnavailableError` if the source vanished."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device; safe to call twice."""

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class Pacer:
    """Hands out at most ``fps`` frames per second: :meth:`wait` sleeps until the next slot, as a camera's
    read blocks until its next frame (None: no waiting)."""

    def __init__(
        self,
        fps: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if fps is not None and fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.fps = fps
        self.clock = clock
        self.sleep = sleep
        self._next_at = -math.inf

    def wait(self) -> float:
        """Sleep until the next slot if need be; the time then."""
        now = self.clock()
        if self.fps is None:
            return now
        if now < self._next_at:
            self.sleep(self._next_at - now)
            now = self.clock()
        self._next_at = max(now, self._next_at) + 1.0 / self.fps
        return now
