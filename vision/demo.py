"""The demo frame source: a seeded game played turn by turn in front of a rendered camera.

:class:`DemoSource` plays a whole game with :class:`table.simulate.Simulation` (real hands and bag, the
rules core's legal and best plays), then films it: the table settles, a player's hand reaches over the
board and the new tiles appear under it, the hand withdraws; trades and re-rolls are a hand passing
without change; now and then the camera is bumped (it stays where it was knocked to) and the light drifts
slowly all along. Every frame carries its ground truth in :attr:`Frame.meta`.

``DemoSource(realtime=False, settle=1, reach=2)`` is the fast pace for tests: frames come as fast as they
render and frame times advance by ``1/fps`` per frame.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from table import Board, PlacedTile, Score, connect_layout
from table.codec import board_to_json
from table.moves import Play
from table.simulate import Simulation
from vision.frames import Frame, FrameSource, SourceError
from vision.render import Conditions, Scene, cells_to_image, random_conditions, render
from vision.render_hand import SKINS, Hand

# The light drifts all along (in frame time): the lamp's direction swings ±DRIFT_DEGREES as daylight moves
# round the room (a sine of t / DRIFT_DIRECTION_S: at most 0.25 degrees a second; the renderer puts the
# lamp's reflection on another tile at every whole degree, so a faster swing makes the reflection hop from
# tile to tile several times a second, which no real light does), and the exposure breathes by
# ±DRIFT_EXPOSURE (clouds, the camera's auto-exposure) over a couple of minutes.
DRIFT_DEGREES, DRIFT_DIRECTION_S = 25.0, 100.0
DRIFT_EXPOSURE, DRIFT_EXPOSURE_S = 0.07, 26.5


@dataclass(frozen=True)
class TurnRecord:
    """One turn of a simulated game: the move (``play``, ``trade``, ``reroll``, ``draw`` or ``pass``), the
    tiles placed, the board before and after, the score, and every side's score after the turn."""

    number: int
    player: str
    kind: str
    placed: tuple[PlacedTile, ...]
    before: Board
    after: Board
    score: Score | None
    scores: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "player": self.player,
            "kind": self.kind,
            "placed": board_to_json(self.placed)["tiles"],
            "score": self.score.total if self.score else None,
            "scores": dict(self.scores),
        }


def play_game(
    *, variant: str = "classic", seed: int = 0, players: Sequence[str] = ("Ann", "Bob"), max_turns: int = 400
) -> list[TurnRecord]:
    """Play a whole seeded game (or ``max_turns`` turns) and return its turns."""
    sim = Simulation(seed, variant=variant, players=players, greed=0.7)
    out: list[TurnRecord] = []
    while not sim.game.over and len(out) < max_turns:
        before = sim.game.board
        turn = sim.step()
        move = turn.move
        placed = move.tiles if isinstance(move, Play) else ()
        kind = {"Play": "play", "Trade": "trade", "Reroll": "reroll", "Draw": "draw"}.get(
            type(move).__name__, "pass"
        )
        out.append(
            TurnRecord(
                turn.number,
                turn.player,
                kind,
                placed,
                before,
                sim.game.board,
                turn.score,
                dict(sim.game.scores),
            )
        )
    return out


def framing(
    board: Board, *, variant: str, size: tuple[int, int], rotation: float = 0.0, margin: float = 1.5
) -> tuple[tuple[float, float], float]:
    """Where to aim and the largest px per tile that keeps ``board`` (or the printed board), turned by
    ``rotation`` degrees, in a frame of ``size`` with ``margin`` cells to spare on every side:
    ``((row, col) centre, px_per_tile)``."""
    if variant == "connect":
        layout = connect_layout()
        r0, c0, r1, c1 = 0, 0, layout.rows - 1, layout.cols - 1
    elif board:
        (r0, c0), (r1, c1) = board.bounds
    else:
        r0 = c0 = r1 = c1 = 0
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    a = math.radians(rotation)
    tall = rows * abs(math.cos(a)) + cols * abs(math.sin(a)) + 2 * margin
    wide = rows * abs(math.sin(a)) + cols * abs(math.cos(a)) + 2 * margin
    fit = min(size[0] / tall, size[1] / wide)
    return ((r0 + r1 + 1) / 2, (c0 + c1 + 1) / 2), float(np.clip(fit, 20.0, 400.0))


@dataclass(frozen=True)
class _Shot:
    scene: Scene
    meta: dict[str, Any]


class DemoSource(FrameSource):
    """A rendered game played turn by turn: a :class:`FrameSource` for ``qwirkle serve --source demo``.

    Parameters
    ----------
    variant : str
        The edition.
    seed : int
        The same seed films the same games, frame for frame.
    size : (int, int)
        Frame height and width.
    players : sequence of str
        Two to four names; they sit at the bottom, top, left and right of the picture.
    fps : float
        Frames per second of the source's clock (and of the pace, when ``realtime``).
    realtime : bool
        Pace :meth:`read` to ``fps``; False returns frames as fast as they render (tests).
    settle : int
        Frames of a still table after each turn.
    reach : int
        Frames of a hand over the table per move (at least 2).
    bump_chance : float
        Chance per turn that the camera is knocked (a blurred frame, then a slightly moved view).
    loop : bool
        Start a new game (next seed) when one ends; otherwise the final table stays in view for ever.
    max_turns : int
        Cut each game short after this many turns (the film then ends as if the game had).
    conditions : dict, optional
        Fixed :class:`vision.render.Conditions` values (``light="warm"``, ``table="green-felt"``, ...);
        ``px_per_tile`` is an upper bound, lowered where the game's final table would not fit the frame.
    wait_for : callable, optional
        ``wait_for(k)`` is asked before a player reaches in for turn ``k + 1``: while it answers False
        (the scoreboard has not yet confirmed ``k`` turns, say), the settled table stays in view, for at
        most ``patience`` frames. Polite players: the demo then never races ahead of the service.
    patience : int
        The most frames to wait for ``wait_for`` per turn.

    ``Frame.meta`` holds ``truth`` (the renderer's truth: tiles, uncertain cells, geometry), ``phase``
    (``settled``, ``reach`` or ``bump``), ``game`` (counts games from 0), ``turn`` (turns completed on
    the table shown), ``move`` (the move being made, or the last one made, as :meth:`TurnRecord.to_json`),
    ``board`` (the tiles on the table, board JSON), ``over`` (every turn of the game has been played on
    the table shown) and ``variant``.
    """

    name = "demo"

    def __init__(
        self,
        *,
        variant: str = "classic",
        seed: int = 0,
        size: tuple[int, int] = (960, 1280),
        players: Sequence[str] = ("Ann", "Bob"),
        fps: float = 2.0,
        realtime: bool = True,
        settle: int = 4,
        reach: int = 4,
        bump_chance: float = 0.08,
        loop: bool = True,
        max_turns: int = 400,
        conditions: dict[str, Any] | None = None,
        wait_for: Callable[[int], bool] | None = None,
        patience: int = 40,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"demo: fps must be positive, got {fps}")
        if settle < 1 or reach < 2:
            raise ValueError(
                f"demo: settle must be at least 1 and reach at least 2, got {settle} and {reach}"
            )
        if not 0.0 <= bump_chance <= 1.0:
            raise ValueError(f"demo: bump_chance must be 0..1, got {bump_chance}")
        self.variant, self.seed, self.size = variant, seed, size
        self.players = tuple(players)
        self.fps, self.realtime = fps, realtime
        if max_turns < 1:
            raise ValueError(f"demo: max_turns must be at least 1, got {max_turns}")
        self.settle, self.reach, self.bump_chance, self.loop = settle, reach, bump_chance, loop
        self.max_turns = max_turns
        self.fixed = dict(conditions or {})
        Conditions(**self.fixed)  # fail early on unknown or bad conditions
        self.wait_for, self.patience = wait_for, patience
        self._shots: Iterator[_Shot] | None = None
        self._index = 0
        self._started = 0.0

    def open(self) -> None:
        self._shots = self._film()
        self._index = 0
        self._started = time.monotonic()

    def close(self) -> None:
        self._shots = None

    def game_seed(self, game: int) -> int:
        """The seed of the ``game``-th game filmed (counting from 0): :func:`play_game` replays it."""
        return int(np.random.SeedSequence([self.seed & 0xFFFFFFFF, game]).generate_state(1)[0])

    def read(self) -> Frame:
        if self._shots is None:
            raise SourceError("demo: the source is not open (use it as a context manager, or call open())")
        shot = next(self._shots)
        out = render(shot.scene)
        index = self._index
        self._index += 1
        if self.realtime:
            wait = self._started + index / self.fps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        return Frame(out.image, index, index / self.fps, {**shot.meta, "truth": out.truth})

    def skip(self) -> tuple[float, dict[str, Any]]:
        """Let the next frame go by unseen, without rendering it (a camera's frames that arrive while
        the reader is still busy are dropped): its frame time and its ``meta`` without ``truth``."""
        if self._shots is None:
            raise SourceError("demo: the source is not open (use it as a context manager, or call open())")
        shot = next(self._shots)
        index = self._index
        self._index += 1
        return index / self.fps, dict(shot.meta)

    # The script ---------------------------------------------------------------------------------------
    def _film(self) -> Iterator[_Shot]:
        game = 0
        while True:
            yield from self._film_game(game)
            if not self.loop:
                return
            game += 1

    def _film_game(self, game: int) -> Iterator[_Shot]:
        gseed = self.game_seed(game)
        rng = np.random.default_rng([gseed, 9])
        turns = play_game(variant=self.variant, seed=gseed, players=self.players, max_turns=self.max_turns)
        start = turns[0].before if turns else Board()
        final = turns[-1].after if turns else start
        fixed = dict(self.fixed)
        fixed.setdefault("tilt", float(rng.uniform(0, 18)))
        fixed.setdefault("light", str(rng.choice(["neutral", "warm", "cool"])))
        base = random_conditions(rng, variant=self.variant, **fixed)
        centre, fit = framing(final, variant=self.variant, size=self.size, rotation=base.rotation)
        base = replace(base, px_per_tile=min(fit, base.px_per_tile))  # the final table stays in view
        frame = 0
        view = base

        def shot(board: Board, phase: str, turn: int, move: TurnRecord | None, hand: Hand | None) -> _Shot:
            nonlocal frame
            t = frame / self.fps  # the light drifts in seconds, whatever the frame rate
            drift = replace(
                view,
                light_direction=(view.light_direction + DRIFT_DEGREES * math.sin(t / DRIFT_DIRECTION_S))
                % 360,
                exposure=float(
                    np.clip(view.exposure * (1 + DRIFT_EXPOSURE * math.sin(t / DRIFT_EXPOSURE_S)), 0.05, 4.0)
                ),
            )
            scene = Scene(
                board,
                self.variant,
                drift,
                self.size,
                centre=centre,
                hand=hand,
                table_seed=gseed,
                seed=gseed + frame,
            )
            meta = {
                "phase": phase,
                "game": game,
                "turn": turn,
                "move": move.to_json() if move else None,
                "board": board_to_json(board.placed),
                "over": turn == len(turns),
                "variant": self.variant,
            }
            frame += 1
            return _Shot(scene, meta)

        board, last = start, None
        for k, t in enumerate(turns):
            for _ in range(self.settle):
                yield shot(board, "settled", k, last, None)
            for _ in range(self.patience if self.wait_for is not None else 0):
                if self.wait_for is not None and self.wait_for(k):
                    break
                yield shot(board, "settled", k, last, None)
            if rng.random() < self.bump_chance:  # a knock: one frame shaken blurry, then a moved view
                view, steady = replace(view, blur=view.blur + 4.0), self._bump(view, rng)
                yield shot(board, "bump", k, last, None)
                view = steady
            if t.kind not in ("pass", "draw"):
                for hand, down in self._reach(t, view, centre, rng, k):
                    yield shot(board.with_tiles(t.placed) if down else board, "reach", k, t, hand)
            board, last = t.after, t
        for _ in range(self.settle * 3):
            yield shot(board, "settled", len(turns), last, None)
        while not self.loop:
            yield shot(board, "settled", len(turns), last, None)

    @staticmethod
    def _bump(view: Conditions, rng: np.random.Generator) -> Conditions:
        return replace(
            view,
            shift=(view.shift[0] + float(rng.normal(0, 0.25)), view.shift[1] + float(rng.normal(0, 0.25))),
            rotation=(view.rotation + float(rng.normal(0, 1.5))) % 360,
            tilt=float(np.clip(view.tilt + rng.normal(0, 1.5), 0, 60)),
        )

    def _reach(
        self, t: TurnRecord, view: Conditions, centre: tuple[float, float], rng: np.random.Generator, k: int
    ) -> Iterator[tuple[Hand, bool]]:
        """The hand's path over the table for turn ``t``: (hand, whether the new tiles are down yet)."""
        seat = self.players.index(t.player) if t.player in self.players else k % len(self.players)
        angle = (0.0, 180.0, 90.0, 270.0)[seat % 4] + float(rng.normal(0, 12))
        probe = Scene(Board(), self.variant, view, self.size, centre=centre)
        if t.placed:
            cells = np.array([[p.row + 0.5, p.col + 0.5] for p in t.placed])
            target = cells_to_image(probe, cells.mean(axis=0, keepdims=True))[0]
        else:  # a trade: the hand goes to the bag beside the board
            target = np.array([self.size[0] * rng.uniform(0.2, 0.8), self.size[1] * rng.uniform(0.2, 0.8)])
        target = target / np.array(self.size, float)
        a = math.radians(angle)
        entry = target + 0.9 * np.array([math.cos(a), -math.sin(a)])  # behind the hand, off the picture
        skin = SKINS[(seat + int(self.seed)) % len(SKINS)]
        n = self.reach
        for j in range(n):
            s = math.sin(math.pi * (j + 1) / (n + 1)) ** 0.5  # in, over the cells, out
            where = entry + (target - entry) * s
            hand = Hand(float(where[0]), float(where[1]), angle, 2.7, skin, 80.0)
            yield hand, j >= n // 2
