"""Drive a game service with frames whose readings the test chooses (a stamped image, a fake reader)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from live.service import GameService
from table import Board
from vision.frames import Frame, FrameSource
from vision.reading import Reading, ReadTile, Uncertain


class Idle(FrameSource):
    """A camera the test feeds by hand (the service is never started)."""

    name = "test"

    def open(self) -> None: ...

    def read(self) -> Frame:
        raise AssertionError("the test feeds frames itself")

    def close(self) -> None: ...


def reading(board: Board | str, *, hidden: tuple[tuple[int, int], ...] = (), unsure=()) -> Reading:
    """What a reader would say: the tiles of ``board`` except ``hidden`` cells (occluded by a hand)."""
    if isinstance(board, str):
        board = Board.from_text(board)
    tiles = tuple(ReadTile(p, 0.9) for p in board.placed if p.cell not in hidden)
    uncertain = tuple(Uncertain(r, c, "occluded") for r, c in hidden)
    uncertain += tuple(Uncertain(r, c, "low-confidence") for r, c in unsure)
    return Reading(tiles, uncertain)


class Table:
    """Shows readings to a service, 10 frames a second of frame time; motion when ``moving``."""

    def __init__(self, service_factory) -> None:
        self.readings: dict[int, Reading] = {}
        self.n = 0
        self.t = 0.0
        self.service: GameService = service_factory(self)

    def reader(self, image: np.ndarray) -> Reading:
        return self.readings[int(image[0, 0, 0]) | int(image[0, 1, 0]) << 8]

    def show(self, shown: Reading | Board | str, *, frames: int = 8, moving: bool = False) -> None:
        if not isinstance(shown, Reading):
            shown = reading(shown)
        for _ in range(frames):
            self.n += 1
            self.t += 0.1
            image = np.full((60, 80, 3), 100, np.uint8)
            if moving:  # a hand: a dark block that moves each frame
                x = (self.n * 9) % 60
                image[20:50, x : x + 20] = 30
            image[0, 0, 0], image[0, 1, 0] = self.n & 255, self.n >> 8
            self.readings[self.n] = shown
            self.service.feed(Frame(image, self.n, self.t))

    def hand(self, shown: Reading | Board | str, frames: int = 4) -> None:
        self.show(shown, frames=frames, moving=True)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "games.sqlite3")


@pytest.fixture
def table(store: str) -> Iterator[Table]:
    """A service with a camera the test drives, and a two-player classic game started."""
    made = Table(lambda t: GameService(store, source=Idle(), reader=t.reader))
    made.service.new_game(["Ann", "Bob"])
    yield made
    made.service.close()
