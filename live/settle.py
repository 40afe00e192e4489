"""When has the table settled: no hand over it, no motion, the same reading for long enough.

Two stages, so that the slow reader only runs on still frames. :class:`MotionDetector` compares each
frame with the previous one on a small blurred grey copy, after removing the global change of brightness
(slow lighting drift and auto-exposure are not motion). :class:`Settler` then asks for readings once the
picture has been still for ``quiet`` seconds, and declares the table settled when two readings without a
hand agree across at least ``hold`` seconds with no motion between them.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import cv2
import numpy as np

from table import Board

EPSILON = 1e-6  # seconds: frame times are sums of 1/fps steps, rounding must not cost a frame


class MotionDetector:
    """Whether a frame differs from the previous one by more than noise and lighting drift.

    Parameters
    ----------
    width : int
        Frames are shrunk to this width (keeping the aspect) before comparing.
    threshold : float
        Grey levels (0..255) a shrunk pixel must change by, beyond the frame's median change, to count.
    fraction : float
        The share of shrunk pixels that must change for the frame to count as motion. A hand over the
        table changes several percent of the picture; a reflection sweeping over glossy tiles a fraction
        of one. Motion only gates the reader (the readings must still agree), so small changes may pass.
    """

    def __init__(self, *, width: int = 96, threshold: float = 10.0, fraction: float = 0.02) -> None:
        if width < 8 or threshold <= 0 or not 0 < fraction < 1:
            raise ValueError(
                f"MotionDetector: need width >= 8, threshold > 0, 0 < fraction < 1; "
                f"got {width}, {threshold}, {fraction}"
            )
        self.width, self.threshold, self.fraction = width, threshold, fraction
        self._last: np.ndarray | None = None

    def reset(self) -> None:
        self._last = None

    def update(self, image: np.ndarray) -> bool:
        """Take the next frame (H×W×3 BGR uint8, or H×W grey); return True if it moved.

        The first frame (and a frame of another size) counts as motion.
        """
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.dtype != np.uint8:
            got = getattr(image, "shape", type(image).__name__), getattr(image, "dtype", "")
            raise ValueError(f"motion: expected an H×W×3 uint8 frame, got {got[0]} {got[1]}")
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape
        small = cv2.resize(
            grey, (self.width, max(1, round(h * self.width / w))), interpolation=cv2.INTER_AREA
        )
        small = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            return True
        diff = small - last
        diff -= float(np.median(diff))
        return float(np.mean(np.abs(diff) > self.threshold)) > self.fraction


@dataclass(frozen=True)
class Settled:
    """A settled reading: its key (what was read) and the frame time it was first seen."""

    key: Hashable
    since: float


def reading_key(board: Board, uncertain: frozenset[tuple[int, int, str]]) -> Hashable:
    """What must stay the same for the table to count as settled."""
    return (board, uncertain)


class Settler:
    """The settle logic on frame times (seconds); no clock of its own, so replays and tests are exact.

    Parameters
    ----------
    quiet : float
        Seconds without motion before a frame is worth reading.
    hold : float
        Seconds two agreeing readings must span.
    recheck : float
        Once settled, seconds between re-readings of a still table (to notice a change motion missed).
    """

    def __init__(self, *, quiet: float = 0.1, hold: float = 0.3, recheck: float = 2.0) -> None:
        if quiet < 0 or hold < 0 or recheck <= 0:
            raise ValueError(
                f"Settler: need quiet, hold >= 0 and recheck > 0; got {quiet}, {hold}, {recheck}"
            )
        self.quiet, self.hold, self.recheck = quiet, hold, recheck
        self._moved_at: float | None = None
        self._candidate: Settled | None = None
        self._read_at: float | None = None
        self.settled: Settled | None = None

    def moved(self, at: float) -> None:
        """Motion in the frame taken at ``at``: whatever was settled is no longer."""
        self._moved_at = at
        self._candidate = None
        self.settled = None

    def wants_reading(self, at: float) -> bool:
        """Whether the frame taken at ``at`` should be read."""
        if self._moved_at is not None and at - self._moved_at < self.quiet - EPSILON:
            return False
        if self.settled is not None:
            return self._read_at is None or at - self._read_at >= self.recheck - EPSILON
        return True

    def offer(self, at: float, key: Hashable, *, busy: bool) -> Settled | None:
        """A reading of the frame taken at ``at``; return the settled reading when it newly settles."""
        self._read_at = at
        if busy:
            self._candidate = None
            self.settled = None
            return None
        if self.settled is not None:
            if self.settled.key == key:
                return None
            self.settled = None
        if self._candidate is None or self._candidate.key != key:
            self._candidate = Settled(key, at)
            if self.hold > 0:
                return None
        if at - self._candidate.since >= self.hold - EPSILON:
            self.settled = self._candidate
            return self.settled
        return None
