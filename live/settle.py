"""When has the table settled: no hand over it, no motion, the same reading for long enough.

Two stages, so that the slow reader only runs on still frames. :class:`MotionDetector` compares each
frame with the previous one on a small blurred grey copy, after removing the global change of brightness
(slow lighting drift and auto-exposure are not motion). :class:`Settler` then asks for readings once the
picture has been still for ``quiet`` seconds, and declares the table settled when two readings without a
hand agree across at least ``hold`` seconds with no motion between them.

What two readings must agree on is not each raw reading but :class:`Evidence`: every reading of the
table since it last moved, merged. The reader misses a tile in a frame now and then far more often than
it invents one, and a tile does not come and go without a hand over the table: merged, a tile read in any
of the latest still frames stays on the table, where two raw readings may well agree on the miss.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import cv2
import numpy as np

from table import Board, Cell, PlacedTile, Tile
from table.register import IDENTITY, Registration, register
from vision.reading import Reading, ReadTile, Uncertain

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

    def still_for(self, at: float) -> float:
        """Seconds the picture has been still at ``at`` (infinite before any motion)."""
        return float("inf") if self._moved_at is None else at - self._moved_at

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


class Evidence:
    """The latest readings of the table since it last moved, merged into one.

    A cell holds a tile when any of the last ``window`` readings found one there (the reader's common
    failure is a missed tile, not an invented one), as the latest of them read it. Cells the latest
    reading could not classify stay uncertain unless a tile is kept there. On a free table each reading
    is first registered onto the merged one (its origin and quarter turn are the reader's choice per
    frame); with a printed board (``fixed``) cells are board cells already.
    """

    def __init__(self, *, window: int = 3) -> None:
        if window < 1:
            raise ValueError(f"Evidence: window must be at least 1, got {window}")
        self.window = window
        self.reset()

    def reset(self) -> None:
        """The table moved: start again."""
        self._boards: list[Board] = []  # the latest readings, in the cells of the first one
        self._confidence: dict[Cell, float] = {}
        self._merged = Board()
        self._registration: Registration = IDENTITY

    def add(self, reading: Reading, *, fixed: bool) -> Reading:
        """Take one more reading of the still table (no hand over it); return the merged reading, in the
        cells of the first reading since :meth:`reset`."""
        if self._boards and not fixed:
            self._registration = register(self._merged, reading.board, hint=self._registration)
        moved = self._registration if not fixed else IDENTITY
        board = moved.board(reading.board)
        self._confidence.update({moved.cell(t.placed.cell): t.confidence for t in reading.tiles})
        self._boards = [*self._boards[1 - self.window :], board] if self.window > 1 else [board]
        tiles: dict[Cell, Tile] = {}
        for seen in self._boards:  # oldest first: the latest reading of a cell wins
            tiles.update(seen.items())
        self._merged = Board(tiles)
        uncertain = []
        for u in reading.uncertain:
            cell = moved.cell((u.row, u.col))
            if cell not in tiles:
                uncertain.append(Uncertain(cell[0], cell[1], u.reason))
        read = tuple(
            ReadTile(PlacedTile(r, c, t), self._confidence[(r, c)]) for (r, c), t in sorted(tiles.items())
        )
        return Reading(read, tuple(uncertain), reading.elapsed_ms)
