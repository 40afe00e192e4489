"""Following live games: turns right, phantom turns, corrections needed, and the latency from the table
settling to the new score on the event stream.

Two kinds of games:

* scripted (:mod:`live.sim`): the players wait for the scoreboard, with hands, bumps that turn and shift
  the reader's grid, light drift, one-frame misreads, illegal placements taken back and tiles knocked
  off; a fake reader decodes the frames. This measures the turn logic alone.
* rendered (:class:`vision.demo.DemoSource`): photographic frames of a seeded game with real hands
  passing over the table, trades (declared on the "phone" by :class:`live.demo.DemoPhone`), camera
  bumps and light drift. Read either by the real reader (``vision.read_table``) or by an oracle that
  returns the renderer's ground truth for the frame (turn logic on real motion, perfect reading).

Latency: frames are fed as a camera would deliver them; a turn's latency is the frame time from the first
frame showing its final table (no hand) to the frame whose processing announced the score, plus the
wall-clock time that processing took. ``python -m bench.bench_live --rendered 50`` runs a bigger campaign.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from live.demo import DemoPhone
from live.service import GameService
from live.sim import NAMES, ScriptedTable, scripted_moves
from table import PlacedTile, Tile
from table.moves import move_to_json
from vision.frames import Frame
from vision.reading import Reading, ReadTile, Uncertain

LATENCY_TARGET_S = 1.0


def scripted_games(games: int, *, seed: int = 1000, limit: int | None = 40) -> dict[str, Any]:
    """Play ``games`` scripted games; count turns right, phantoms, and frame-time latency."""
    right = total = phantoms = 0
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(games):
            moves = scripted_moves(seed + g, limit=limit)
            table = ScriptedTable(moves, seed=seed + g, bumps=0.15, mistakes=0.05, knocks=0.03, misreads=0.02)
            service = GameService(f"{tmp}/s{g}.sqlite3", source=table, reader=table.read_frame)
            table.attach(service)
            service.new_game(NAMES[:2])
            published: list[float] = []
            with table as source:
                while len(service.state()["turns"]) < len(moves) and not service.state()["over"]:
                    frame = source.read()
                    before = len(service.state()["turns"])
                    started = time.perf_counter()
                    service.feed(frame)
                    if len(service.state()["turns"]) > before:
                        published.append(frame.timestamp + time.perf_counter() - started)
            got = [t["move"] for t in service.state()["turns"]]
            want = [move_to_json(m) for m in moves]
            right += sum(a == b for a, b in zip(got, want, strict=False))
            total += len(want)
            phantoms += max(0, len(got) - len(want))
            latencies += [p - s for p, s in zip(published, table.stats.settled_at, strict=False)]
            service.close()
    return {"turns": total, "right": right, "phantoms": phantoms, "latency": statistics.median(latencies)}


def _truth_reader(current: dict[str, Any]) -> Callable[[Any], Reading]:
    def read(image: Any) -> Reading:
        truth = current["truth"]
        hidden = {(u["row"], u["col"]) for u in truth["uncertain"]}
        tiles = tuple(
            ReadTile(PlacedTile(t["row"], t["col"], Tile(t["colour"], t["shape"])), 1.0)
            for t in truth["tiles"]
            if (t["row"], t["col"]) not in hidden
        )
        return Reading(tiles, tuple(Uncertain(u["row"], u["col"], u["reason"]) for u in truth["uncertain"]))

    return read


def rendered_game(
    seed: int,
    *,
    reader: str = "truth",
    fps: float = 5.0,
    size: tuple[int, int] = (480, 640),
    turns: int | None = None,
) -> dict[str, Any]:
    """One rendered game fed frame by frame (its first ``turns`` turns); ``reader``: ``truth`` or ``real``."""
    from vision.demo import DemoSource

    current: dict[str, Any] = {}
    source = DemoSource(seed=seed, realtime=False, fps=fps, settle=4, reach=3, loop=False, size=size)
    read = _truth_reader(current) if reader == "truth" else None
    expected: dict[int, dict[str, Any]] = {}
    settled_at: dict[int, float] = {}
    published: dict[int, float] = {}
    work: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = GameService(f"{tmp}/g.sqlite3", source=source, reader=read, phone=DemoPhone())
        service.new_game(list(source.players))
        with source:
            while True:
                try:
                    frame: Frame = source.read()
                except StopIteration:  # the film is over (the service never caught up)
                    break
                meta = frame.meta
                current["truth"] = meta["truth"]
                turn, move = meta["turn"], meta["move"]
                if meta["phase"] == "settled" and turn > 0:
                    expected[turn] = move
                    settled_at.setdefault(turn, frame.timestamp)
                before = len(service.state()["turns"])
                started = time.perf_counter()
                service.feed(frame)
                spent = time.perf_counter() - started
                work.append(spent)
                if len(service.state()["turns"]) > before:
                    published[len(service.state()["turns"])] = frame.timestamp + spent
                if (meta["over"] or (turns is not None and turn > turns)) and meta["phase"] == "reach":
                    break  # the film is over, or the next turn after the last one judged has begun
                if meta["over"] and len(service.state()["turns"]) >= turn:
                    break
        state = service.state()
        service.close()
    return _compare(state, expected, settled_at, published, work)


def _compare(
    state: dict[str, Any],
    expected: dict[int, dict[str, Any]],
    settled_at: dict[int, float],
    published: dict[int, float],
    work: list[float],
) -> dict[str, Any]:
    turns = state["turns"]
    right = 0
    wrong: list[int] = []
    for n, want in sorted(expected.items()):
        ok = n <= len(turns) and turns[n - 1]["move"]["kind"] == want["kind"]
        if ok and want["kind"] == "play":
            got = turns[n - 1]
            same = _tiles(got["move"]["tiles"]) == _tiles(want["placed"])
            ok = same and got["points"] - got["out_bonus"] == want["score"]
        right += ok
        if not ok:
            wrong.append(n)
    latencies = [published[n] - settled_at[n] for n in published if n in settled_at]
    return {
        "turns": len(expected),
        "right": right,
        "wrong": wrong,
        "phantoms": max(0, len(turns) - len(expected)),
        "latency": statistics.median(latencies) if latencies else float("nan"),
        "frame_work": statistics.median(work),
        "status": state["follow"]["status"],
    }


def _tiles(tiles: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The tiles of a placement without their cells (a free table's origin is arbitrary)."""
    return sorted((t["colour"], t["shape"]) for t in tiles)


def rendered_games(
    games: int, *, reader: str, seed: int = 500, size: tuple[int, int] = (480, 640)
) -> dict[str, Any]:
    rows = [rendered_game(seed + g, reader=reader, size=size) for g in range(games)]
    return {
        "games": games,
        "turns": sum(r["turns"] for r in rows),
        "right": sum(r["right"] for r in rows),
        "phantoms": sum(r["phantoms"] for r in rows),
        "latency": statistics.median(r["latency"] for r in rows),
        "frame_work": statistics.median(r["frame_work"] for r in rows),
        "games_all_right": sum(r["right"] == r["turns"] and not r["phantoms"] for r in rows),
    }


def run() -> list[dict[str, Any]]:
    """``make bench``: a few games of each kind (the full campaigns take the CLI)."""
    rows: list[dict[str, Any]] = []
    s = scripted_games(10)
    rows.append(
        {
            "name": "scripted games: turns followed right",
            "median": s["right"] / s["turns"],
            "unit": "frac",
            "target": 1.0,
            "turns": s["turns"],
            "phantoms": s["phantoms"],
        }
    )
    rows.append(
        {
            "name": "scripted games: settle-to-score latency (frame time)",
            "median": s["latency"],
            "unit": "s",
            "target": LATENCY_TARGET_S,
            "ratio": round(s["latency"] / LATENCY_TARGET_S, 3),
        }
    )
    for reader in ("truth", "real"):
        r = rendered_games(1, reader=reader)
        rows.append(
            {
                "name": f"rendered game, {reader} reader: turns right",
                "median": r["right"] / max(1, r["turns"]),
                "unit": "frac",
                "target": 1.0,
                "turns": r["turns"],
                "phantoms": r["phantoms"],
            }
        )
        rows.append(
            {
                "name": f"rendered game, {reader} reader: settle-to-score latency",
                "median": r["latency"],
                "unit": "s",
                "target": LATENCY_TARGET_S,
                "frame_work_s": round(r["frame_work"], 4),
            }
        )
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="live-game campaigns")
    parser.add_argument("--scripted", type=int, default=0, help="scripted games to play")
    parser.add_argument("--rendered", type=int, default=0, help="rendered games to play")
    parser.add_argument("--reader", choices=["truth", "real"], default="truth")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--size", default="480x640", help="rendered frame HxW (default 480x640)")
    parser.add_argument("--turns", type=int, help="only the first N turns of each rendered game")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    assert len(size) == 2, "--size is HxW"
    if args.scripted:
        print(json.dumps({"scripted": scripted_games(args.scripted, seed=args.seed)}), flush=True)
    if args.rendered:
        for g in range(args.rendered):
            row = rendered_game(args.seed + g, reader=args.reader, size=(size[0], size[1]), turns=args.turns)
            print(json.dumps({"seed": args.seed + g, "reader": args.reader, **row}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
