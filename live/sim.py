"""A scripted table for tests, benchmarks and the crash campaign: simulated players and a fake reader.

:func:`scripted_moves` plays a whole legal game from a seed (real hands from a shuffled bag, the best play
or now and then a trade). :class:`ScriptedTable` is a :class:`vision.frames.FrameSource` acting it out in
front of the camera: hands pass over the table (motion, occluded cells), the camera gets bumped (the
reader's grid turns and shifts), the light drifts, the reader sometimes misreads a tile for a frame, a
player sometimes puts down an illegal placement and takes it back after the dispute, or knocks a tile
off and puts it back. Trades are declared on the "phone" (:meth:`GameService.declare_trade`).

The players wait for the scoreboard: after each turn the table stays still until the service has
confirmed it, so the game is the same however slowly the service runs, and a service restarted after a
crash picks up where the table is. Frames are small BGR images with a stamp that the fake reader,
:meth:`ScriptedTable.read_frame`, decodes; frame times advance by ``1/fps`` per frame (``realtime``
also paces them).
"""

from __future__ import annotations

import random
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from table import Board, Cell, GameError, PlacedTile, Tile, tileset, violations
from table.moves import Move, Play, Trade
from table.register import IDENTITY, Registration
from table.simulate import Simulation
from vision.frames import Frame, FrameSource
from vision.reading import Reading, ReadTile, Uncertain

if TYPE_CHECKING:
    from live.service import GameService

NAMES = ("Ann", "Bob", "Cid", "Dee")
H, W, CELL = 240, 320, 8


class SimulationStuck(RuntimeError):
    """The service did not confirm what the table shows within the patience of the simulated players."""


def scripted_moves(
    seed: int,
    *,
    variant: str = "classic",
    players: int = 2,
    trade_rate: float = 0.08,
    limit: int | None = None,
) -> list[Move]:
    """A whole legal game (plays, trades, passes) as the service should record it, at most ``limit``
    moves: real hands from a shuffled bag (:class:`table.simulate.Simulation`), the best play, now and
    then a trade."""
    sim = Simulation(seed, variant=variant, players=NAMES[:players], trade_rate=trade_rate)
    while not sim.game.over and (limit is None or len(sim.game.history) < limit):
        sim.step()
    return list(sim.game.moves)


@dataclass(frozen=True)
class View:
    """What the camera sees in one frame (world cells)."""

    board: Board
    hand: Cell | None = None  # where a hand is over the table (cells around it are occluded)
    camera: Registration = IDENTITY  # world cells -> reader cells
    light: float = 1.0
    misread: Cell | None = None  # a tile the reader gets wrong in this frame


@dataclass
class Stats:
    """What the table did, for reports: turns shown, disputes and attention items provoked, bumps."""

    plays: int = 0
    trades: int = 0
    passes: int = 0
    mistakes: int = 0
    knocks: int = 0
    bumps: int = 0
    settled_at: list[float] = field(default_factory=list)  # frame time each turn's final table appeared


class ScriptedTable(FrameSource):
    """Act out ``moves`` in front of the camera, waiting for ``service`` after each turn.

    Parameters
    ----------
    moves : list of Move
        From :func:`scripted_moves` (the same seed, variant and players as the service's game).
    seed : int
        Drives the incidents (hands, bumps, mistakes, misreads): each move's from the seed and the move's
        number, so a move is acted out the same way whenever it is played.
    fps : float
        Frame times advance by ``1 / fps``.
    realtime : bool
        Pace frames to the wall clock (for latency measurements) and stamp them with ``time.monotonic``.
    bumps, mistakes, knocks, misreads : float
        Per-turn chances of a camera bump, an illegal placement taken back, a tile knocked off and put
        back, and per-frame chance that one tile is misread.
    free : bool
        A free table (the reader's grid moves with bumps); False for a printed board (fixed cells).
    patience : float
        Seconds of frame time the players wait for the service before :class:`SimulationStuck`.
    """

    name = "scripted"

    def __init__(
        self,
        moves: list[Move],
        *,
        variant: str = "classic",
        seed: int = 0,
        fps: float = 10.0,
        realtime: bool = False,
        bumps: float = 0.1,
        mistakes: float = 0.05,
        knocks: float = 0.03,
        misreads: float = 0.02,
        free: bool = True,
        patience: float = 60.0,
    ) -> None:
        self.moves, self.tileset, self.seed = moves, tileset(variant), seed
        self.rng = random.Random(seed)
        self.fps, self.realtime, self.free, self.patience = fps, realtime, free, patience
        self.rates = {"bumps": bumps, "mistakes": mistakes, "knocks": knocks, "misreads": misreads}
        self.service: GameService | None = None
        self.stats = Stats()
        self._views: Iterator[View] | None = None
        self._last = View(Board())
        self._index = 0
        self._time = 0.0
        self._shown: dict[int, View] = {}
        self._codes = {t: i + 1 for i, t in enumerate(self.tileset.tiles())}
        self.closed = False

    def attach(self, service: GameService) -> None:
        self.service = service

    # FrameSource --------------------------------------------------------------------------------------
    def open(self) -> None:
        self._views = self._script()
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def read(self) -> Frame:
        assert self._views is not None, "open the source first"
        view = next(self._views, None)
        if view is None:
            view = self._last
        self._last = view
        if self.realtime:
            time.sleep(1 / self.fps)
            self._time = time.monotonic()
        else:
            self._time += 1 / self.fps
        self._index += 1
        self._shown[self._index] = view
        self._shown.pop(self._index - 64, None)
        return Frame(self._draw(view, self._index), self._index, self._time, {"view": view})

    # The fake reader ----------------------------------------------------------------------------------
    def read_frame(self, image: np.ndarray) -> Reading:
        """Decode the stamp of a frame this table drew and say what a reader would have read."""
        stamp = int(image[0, 0, 0]) | int(image[0, 1, 0]) << 8 | int(image[0, 2, 0]) << 16
        view = self._shown[stamp]
        hidden = set()
        if view.hand is not None:
            hidden = {(view.hand[0] + dr, view.hand[1] + dc) for dr in (-1, 0, 1) for dc in (-2, -1, 0, 1, 2)}
        cam = view.camera
        tiles = []
        for p in view.board.placed:
            if p.cell in hidden:
                continue
            tile = p.tile
            if p.cell == view.misread:
                tile = self._other(tile)
            tiles.append(ReadTile(PlacedTile(*cam.cell(p.cell), tile), 0.9))
        uncertain = [Uncertain(*cam.cell(c), "occluded") for c in sorted(hidden)]
        return Reading(tuple(tiles), tuple(uncertain))

    # The game acted out -------------------------------------------------------------------------------
    def _script(self) -> Iterator[View]:
        service = self.service
        assert service is not None, "attach the service first"
        state = service.state()
        done = sum(
            1 for t in state["turns"] if t["move"]["kind"] in ("play", "trade", "reroll", "draw", "pass")
        )
        board = Board.of(_placed(state["board"]))  # the table is as the service last confirmed it
        view = View(board)
        for move in self.moves[done:]:
            # each move is acted out the same way whenever it is played: a service killed and restarted
            # mid-game sees the same bumps, mistakes and misreads as one that ran through
            self.rng.seed(f"{self.seed}/{done}")
            yield from self._still(view, 0.5)
            if self.rng.random() < self.rates["bumps"] and len(view.board) > 1:
                view = yield from self._bump(view)
            if self.rng.random() < self.rates["knocks"] and len(view.board) > 2:
                yield from self._knock(view)
            if isinstance(move, Play):
                if self.rng.random() < self.rates["mistakes"]:
                    yield from self._mistake(view, move)
                view = yield from self._place(view, move.tiles)
                self.stats.plays += 1
            elif isinstance(move, Trade):
                yield from self._trade(view, move.count, done + 1)
                self.stats.trades += 1
            else:
                self._press(service.pass_turn, turn=done + 1)
                self.stats.passes += 1
            yield from self._until(lambda n=done + 1: self._turns() >= n, view)
            done += 1
        yield from self._still(view, 1.0)

    def _turns(self) -> int:
        assert self.service is not None
        turns = self.service.state()["turns"]
        return sum(1 for t in turns if t["move"]["kind"] in ("play", "trade", "reroll", "draw", "pass"))

    def _still(self, view: View, seconds: float) -> Iterator[View]:
        for _ in range(max(1, round(seconds * self.fps))):
            yield self._lit(view)

    def _lit(self, view: View) -> View:
        light = min(1.3, max(0.7, view.light + self.rng.uniform(-0.004, 0.004)))
        misread = None
        if view.board and self.rng.random() < self.rates["misreads"]:
            misread = self.rng.choice(view.board.placed).cell
        return replace(view, light=light, misread=misread)

    def _hand(self, view: View, target: Cell, frames: int = 6) -> Iterator[View]:
        r, c = target
        for k in range(frames):
            yield self._lit(replace(view, hand=(r + k % 2, c - frames // 2 + k)))

    def _until(self, done: Any, view: View) -> Iterator[View]:
        waited = 0
        while not done():
            yield self._lit(view)
            waited += 1
            if waited > self.patience * self.fps:
                state = self.service.state() if self.service else {}
                raise SimulationStuck(f"the service did not follow the table: {state.get('follow')}")

    def _status(self, *wanted: str) -> bool:
        assert self.service is not None
        return self.service.state()["follow"]["status"] in wanted

    def _place(self, view: View, tiles: tuple[PlacedTile, ...]) -> Generator[View, None, View]:
        yield from self._hand(view, tiles[0].cell)
        view = replace(view, board=view.board.with_tiles(tiles))
        yield from self._hand(view, tiles[-1].cell, 3)
        self.stats.settled_at.append(self._time + 1 / self.fps)
        return view

    def _trade(self, view: View, count: int, turn: int) -> Iterator[View]:
        assert self.service is not None
        yield from self._hand(view, next(iter(view.board), (0, 0)))
        self._press(self.service.declare_trade, count, turn=turn)
        self.stats.settled_at.append(self._time + 1 / self.fps)

    @staticmethod
    def _press(button: Any, *args: Any, turn: int) -> None:
        """A phone button for turn ``turn``: after a restart the service may already have recorded it
        (from the declaration it stored), and then refuses the press, as it should."""
        try:
            button(*args, turn=turn)
        except GameError as err:
            if "already recorded" not in str(err):
                raise

    def _mistake(self, view: View, move: Play) -> Iterator[View]:
        """Put down the play with one tile swapped for one that breaks a line, wait for the dispute,
        take it all back."""
        first, rest = move.tiles[0], move.tiles[1:]
        bad: tuple[PlacedTile, ...] = ()
        for tile in self.tileset.tiles():
            candidate = (PlacedTile(first.row, first.col, tile), *rest)
            if violations(view.board, candidate, tileset=self.tileset):
                bad = candidate
                break
        if not bad:
            return
        shown = yield from self._place(view, bad)
        self.stats.settled_at.pop()
        yield from self._until(lambda: self._status("dispute", "needs-attention"), shown)
        yield from self._hand(view, first.cell)
        yield from self._until(lambda: not self._status("dispute", "needs-attention"), view)
        self.stats.mistakes += 1

    def _knock(self, view: View) -> Iterator[View]:
        """Knock one tile off the table, wait for "needs attention", put it back."""
        victim = self.rng.choice(view.board.placed)
        off = replace(view, board=view.board.without([victim.cell]))
        yield from self._hand(off, victim.cell)
        yield from self._until(lambda: self._status("needs-attention"), off)
        yield from self._hand(view, victim.cell)
        yield from self._until(lambda: not self._status("needs-attention"), view)
        self.stats.knocks += 1

    def _bump(self, view: View) -> Generator[View, None, View]:
        """Jolt the camera: some frames of motion, then the reader's grid turned and shifted."""
        camera = view.camera
        if self.free:
            turns = (camera.turns + self.rng.choice((0, 1, 3))) % 4
            shift = (camera.shift[0] + self.rng.randint(-3, 3), camera.shift[1] + self.rng.randint(-3, 3))
            camera = Registration(turns, shift)
        for k in range(4):
            yield replace(self._lit(view), hand=(50 + k, 50))  # off-table shake: motion, nothing occluded
        self.stats.bumps += 1
        return replace(view, camera=camera)

    # Drawing ------------------------------------------------------------------------------------------
    def _other(self, tile: Tile) -> Tile:
        shapes = self.tileset.shapes
        return Tile(tile.colour, shapes[(shapes.index(tile.shape) + 1) % len(shapes)])

    def _draw(self, view: View, stamp: int) -> np.ndarray:
        image = np.full((H, W, 3), 90, np.uint8)
        cam = view.camera
        for p in view.board.placed:
            r, c = cam.cell(p.cell)
            y, x = H // 2 + r * CELL, W // 2 + c * CELL
            if 0 <= y < H - CELL and 0 <= x < W - CELL:
                code = self._codes.get(p.tile, 0)
                image[y + 1 : y + CELL - 1, x + 1 : x + CELL - 1] = (20 + 5 * code, 200 - 4 * code, 30 + code)
        if view.hand is not None:
            r, c = cam.cell(view.hand)
            centre = (W // 2 + c * CELL, H // 2 + r * CELL)  # OpenCV's (x, y)
            cv2.ellipse(image, centre, (40, 24), 30, 0, 360, (60, 110, 170), -1)
        image = np.clip(image.astype(np.float32) * view.light, 0, 255).astype(np.uint8)
        image[0, 0:3, 0] = (stamp & 255, stamp >> 8 & 255, stamp >> 16 & 255)
        return np.asarray(image, dtype=np.uint8)


def _placed(board_json: dict[str, Any]) -> list[PlacedTile]:
    return [PlacedTile(t["row"], t["col"], Tile(t["colour"], t["shape"])) for t in board_json["tiles"]]


__all__ = ["ScriptedTable", "SimulationStuck", "Stats", "View", "scripted_moves"]
