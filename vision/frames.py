"""The frame-source interface: where frames come from (Pi camera, OpenCV camera, a folder, the demo).

Every source is a context manager yielding :class:`Frame` objects; implementations live in
:mod:`vision.sources` (cameras, folders) and :mod:`vision.demo` (the rendered demo game).

Frames are BGR uint8 arrays of shape (H, W, 3), whatever the camera delivers natively: each source sets
its colour order explicitly and converts once, here at the edge.
"""

from __future__ import annotations

import abc
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
