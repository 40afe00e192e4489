"""Rules-core benchmarks: `check` on a ~100-tile board, and the best play for a 6-tile hand.

Boards come from seeded simulated games (:mod:`table.simulate`), hands from the simulation's real bag,
so the numbers reflect positions a real game reaches. Targets (issue 2): check <= 50 us on a ~100-tile
board; best play <= 20 ms at 100 tiles.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from table import best_play, check, legal_plays
from table.board import Board
from table.simulate import Simulation
from table.tiles import CLASSIC, Tile

SEEDS = range(12)


def _positions(tiles: int) -> list[tuple[Board, list[Tile]]]:
    """Boards of about ``tiles`` tiles, each with a 6-tile hand drawn from the tiles not on the board
    (late in a game the real hands hold fewer than six, which would flatter the timings)."""
    out = []
    for seed in SEEDS:
        sim = Simulation(seed, greed=0.3)
        board = sim.play_until(tiles=tiles).board
        left = Counter(dict.fromkeys(CLASSIC.tiles(), 3))
        left.subtract(board.counts)
        hand = random.Random(seed).sample(sorted(left.elements()), 6)
        out.append((board, hand))
    return out


def _per_call(fn: Callable[[], object], *, min_time: float = 0.05) -> float:
    """CPU seconds per call of ``fn``, from a loop long enough to time reliably.

    Process CPU time, not wall time: on a shared machine the wall clock also counts the time other
    processes held the CPU, which says nothing about this code.
    """
    n = 1
    while True:
        start = time.process_time()
        for _ in range(n):
            fn()
        elapsed = time.process_time() - start
        if elapsed >= min_time:
            return elapsed / n
        n *= 2


def run() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    checks = []
    for board, hand in _positions(100):
        plays = sorted(legal_plays(board, hand), key=len)
        if plays:
            play = plays[-1]  # the longest play: the most work for the checker
            checks.append(_per_call(partial(check, board, play)))
    rows.append(
        {
            "name": "check (violations and score), ~100-tile board",
            "median": statistics.median(checks) * 1e6,
            "unit": "us",
            "target": "<= 50 us",
            "boards": len(checks),
        }
    )
    for size in (20, 60, 100):
        times = [_per_call(partial(best_play, b, h), min_time=0.1) for b, h in _positions(size)]
        rows.append(
            {
                "name": f"best play, 6-tile hand, {size}-tile board",
                "median": statistics.median(times) * 1e3,
                "unit": "ms",
                "max": round(max(times) * 1e3, 2),
                **({"target": "<= 20 ms"} if size == 100 else {}),
            }
        )
    return rows
