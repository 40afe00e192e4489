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

The camera model of the rendered games: a frame every ``1/fps`` seconds of frame time (4 fps, 960×1280
by default: what the Pi camera gives the service); the service takes a frame when it is done with the
last one, so the frames that arrive while it reads are dropped, and never rendered. What a frame costs
the service is its CPU time (this process, all threads), so the other jobs on this shared machine do not
stretch it. The players wait for the scoreboard and correct it on the phone (:class:`live.demo.DemoPhone`:
a tile it asks about or got wrong, a placement it did not count); every correction is logged with its
turn and cause. A turn is right when its kind, tiles and score are the rendered game's (after any
correction); ``turns_corrected`` counts the turns that needed one.

Latency: from the frame time of the first frame showing a turn's final table (no hand; dropped or not) to
the moment the service, having processed the frame that announced the score, is done with it.

``python -m bench.bench_live --rendered 50 --reader real --turns 16 --out FILE.jsonl`` runs a campaign,
one JSON line per game as it goes (a restarted campaign skips the seeds already in the file);
``--summary FILE.jsonl`` totals one. Campaign files kept in ``bench/live_campaigns/`` show in ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from live.demo import DemoPhone
from live.service import GameService
from live.sim import NAMES, ScriptedTable, scripted_moves
from table import PlacedTile, Tile
from table.moves import move_to_json
from vision.reading import Reading, ReadTile, Uncertain

LATENCY_TARGET_S = 1.0
FPS = 4.0  # the camera's frame rate in the rendered games
SIZE = (960, 1280)  # the rendered frames, H×W: what the Pi camera gives the service
PATIENCE = 24  # frames (6 s at 4 fps) the players wait for the scoreboard before they play on regardless


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
    fps: float = FPS,
    size: tuple[int, int] = SIZE,
    turns: int | None = None,
) -> dict[str, Any]:
    """One rendered game (its first ``turns`` turns) filmed by a camera at ``fps`` and followed by a
    service; ``reader``: ``truth`` (the renderer's ground truth) or ``real`` (``vision.read_table``).

    The camera model: a frame every ``1/fps`` seconds; the service takes each frame when it is done with
    the last one, so frames that arrive while it is busy are dropped (and never rendered). The time a
    frame costs the service is its CPU time (this process, all threads), so other jobs on the machine
    do not count. The players wait for the scoreboard (at most ``PATIENCE`` frames a turn) and correct it
    on the phone (:class:`live.demo.DemoPhone`).
    """
    from vision.demo import DemoSource

    current: dict[str, Any] = {}
    source = DemoSource(
        seed=seed, realtime=False, fps=fps, settle=2, reach=3, loop=False, size=size,
        max_turns=turns or 400, patience=PATIENCE,
    )  # fmt: skip
    read = _truth_reader(current) if reader == "truth" else None
    expected: dict[int, dict[str, Any]] = {}
    settled_at: dict[int, float] = {}
    published: dict[int, float] = {}
    work: list[float] = []
    frames = rendered = 0
    free_at = 0.0  # frame time at which the service is done with the frames it took
    last = 0
    phone = DemoPhone()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        service = GameService(f"{tmp}/g.sqlite3", source=source, reader=read, phone=phone)
        service.new_game(list(source.players))
        source.wait_for = lambda k: phone.checked(k, service)  # they glance at the scoreboard, then play
        with source:
            while True:
                at = frames / fps
                frames += 1
                if at < free_at - 1e-9:  # the service is still busy: this frame is dropped
                    at, meta = source.skip()
                    frame = None
                else:
                    frame = source.read()
                    meta = frame.meta
                    rendered += 1
                turn, move = meta["turn"], meta["move"]
                if meta["phase"] == "settled" and turn > 0:
                    expected[turn] = move
                    settled_at.setdefault(turn, at)
                if frame is not None:
                    current["truth"] = meta["truth"]
                    before = len(service.state()["turns"])
                    cpu = time.process_time()
                    service.feed(frame)
                    spent = time.process_time() - cpu
                    work.append(spent)
                    free_at = at + spent
                    done = len(service.state()["turns"])
                    for n in range(before + 1, done + 1):
                        published.setdefault(n, free_at)
                    if done > before:
                        last = frames
                if meta["over"] and (len(service.state()["turns"]) >= turn or frames - last > 4 * PATIENCE):
                    phone.checked(turn, service)  # a last glance at the scoreboard
                    break  # the film is over and the service caught up (or never will)
        state = service.state()
        service.close()
    typed = {c["turn"] for c in phone.log if c["why"] == "typed"}
    row = _compare(state, expected, settled_at, published, work, typed=typed)
    row.update(
        frames=frames,
        rendered=rendered,
        seconds=round(time.perf_counter() - started, 1),
        corrections=phone.log,
    )
    return row


def _compare(
    state: dict[str, Any],
    expected: dict[int, dict[str, Any]],
    settled_at: dict[int, float],
    published: dict[int, float],
    work: list[float],
    *,
    typed: set[int],
) -> dict[str, Any]:
    """Turns right against the film; latency over the placements the camera scored (not those typed on
    the phone, nor trades and passes, which a button press publishes before the table settles)."""
    turns = state["turns"]
    right = 0
    wrong: list[dict[str, Any]] = []
    for n, want in sorted(expected.items()):
        got = turns[n - 1] if n <= len(turns) else None
        ok = got is not None and got["move"]["kind"] == want["kind"]
        if ok and got is not None and want["kind"] == "play":
            same = _tiles(got["move"]["tiles"]) == _tiles(want["placed"])
            ok = same and got["points"] - got["out_bonus"] == want["score"]
        right += ok
        if not ok:
            wrong.append({"turn": n, "want": want, "got": got["move"] if got else None})
    scored = sorted(n for n in published if n in settled_at and n not in typed)
    latencies = [published[n] - settled_at[n] for n in scored if expected[n]["kind"] == "play"]
    return {
        "turns": len(expected),
        "right": right,
        "wrong": wrong,
        "phantoms": max(0, len(turns) - len(expected)),
        "latency": statistics.median(latencies) if latencies else float("nan"),
        "latencies": [round(v, 3) for v in latencies],
        "frame_work": statistics.median(work) if work else float("nan"),
        "status": state["follow"]["status"],
    }


def _tiles(tiles: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The tiles of a placement without their cells (a free table's origin is arbitrary)."""
    return sorted((t["colour"], t["shape"]) for t in tiles)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The totals of a rendered campaign (one row per game, as :func:`rendered_game` gives them)."""
    corrected = sorted({(r["seed"], c["turn"]) for r in rows for c in r["corrections"]})
    latencies = [v for r in rows for v in r["latencies"]]
    why: dict[str, int] = {}
    for r in rows:
        for c in r["corrections"]:
            key = c["why"] + (f" ({c['hidden']})" if c.get("hidden") else "")
            why[key] = why.get(key, 0) + 1
    return {
        "games": len(rows),
        "turns": sum(r["turns"] for r in rows),
        "right": sum(r["right"] for r in rows),
        "phantoms": sum(r["phantoms"] for r in rows),
        "turns_corrected": len(corrected),
        "corrections": sum(len(r["corrections"]) for r in rows),
        "corrections_why": why,
        "latency": statistics.median(latencies) if latencies else float("nan"),
        "frame_work": statistics.median(r["frame_work"] for r in rows),
        "seconds_per_game": statistics.median(r["seconds"] for r in rows),
        "games_all_right": sum(r["right"] == r["turns"] and not r["phantoms"] for r in rows),
    }


def rendered_games(games: int, *, reader: str, seed: int = 500, turns: int | None = None) -> dict[str, Any]:
    return summarise(
        [{"seed": seed + g, **rendered_game(seed + g, reader=reader, turns=turns)} for g in range(games)]
    )


CAMPAIGNS = Path(__file__).parent / "live_campaigns"  # the JSON lines of the big rendered campaigns


def _rendered_rows(name: str, r: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    return [
        {
            "name": f"{name}: turns right",
            "median": r["right"] / max(1, r["turns"]),
            "unit": "frac",
            "target": 1.0,
            "games": r["games"],
            "turns": r["turns"],
            "phantoms": r["phantoms"],
            "turns_corrected": r["turns_corrected"],
            "corrections_why": r["corrections_why"],
            **extra,
        },
        {
            "name": f"{name}: settle-to-score latency",
            "median": r["latency"],
            "unit": "s",
            "target": LATENCY_TARGET_S,
            "ratio": round(r["latency"] / LATENCY_TARGET_S, 3),
            "seconds_per_game": r["seconds_per_game"],
            **extra,
        },
    ]


def run() -> list[dict[str, Any]]:
    """``make bench``: scripted games, one short rendered game per reader, and the totals of the rendered
    campaigns stored in ``bench/live_campaigns/`` (run by the CLI: they take hours)."""
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
        rows += _rendered_rows(
            f"rendered game (8 turns), {reader} reader", rendered_games(1, reader=reader, turns=8)
        )
    for path in sorted(CAMPAIGNS.glob("*.jsonl")):
        lines = _lines(path)
        if lines:
            first = lines[0]
            where = {"from": f"bench/live_campaigns/{path.name}", "size": first["size"], "fps": first["fps"]}
            rows += _rendered_rows(f"rendered campaign, {first['reader']} reader", summarise(lines), **where)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="live-game campaigns")
    parser.add_argument("--scripted", type=int, default=0, help="scripted games to play")
    parser.add_argument("--rendered", type=int, default=0, help="rendered games to play")
    parser.add_argument("--reader", choices=["truth", "real"], default="truth")
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--size", default="x".join(map(str, SIZE)), help="rendered frame HxW")
    parser.add_argument("--fps", type=float, default=FPS, help="the camera's frame rate")
    parser.add_argument("--turns", type=int, help="only the first N turns of each rendered game")
    parser.add_argument("--out", type=Path, help="append a JSON line per game (seeds in it are skipped)")
    parser.add_argument("--summary", type=Path, help="print the totals of a campaign's JSON lines and stop")
    args = parser.parse_args(argv)
    if args.summary:
        print(json.dumps(summarise(_lines(args.summary)), indent=1))
        return 0
    size = tuple(int(v) for v in args.size.split("x"))
    if len(size) != 2:
        parser.error(f"--size: expected HxW, got {args.size}")
    if args.scripted:
        print(json.dumps({"scripted": scripted_games(args.scripted, seed=args.seed)}), flush=True)
    done = {r["seed"] for r in _lines(args.out)} if args.out and args.out.exists() else set()
    for seed in range(args.seed, args.seed + args.rendered):
        if seed in done:
            continue
        row = rendered_game(seed, reader=args.reader, size=(size[0], size[1]), fps=args.fps, turns=args.turns)
        line = json.dumps({"seed": seed, "reader": args.reader, "size": list(size), "fps": args.fps, **row})
        print(line, flush=True)
        if args.out:
            with args.out.open("a", encoding="utf-8") as out:
                out.write(line + "\n")
    return 0


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
