"""The crash campaign: kill -9 the game service at random moments of a game; the resumed game must equal
the uninterrupted one.

Each game is a scripted table (:mod:`live.sim`) played in front of a :class:`live.service.GameService`
running in a child process on its own SQLite store. First the game is played once without
interruption; then again on a fresh store while the child is killed with SIGKILL after a random delay and
restarted on the same store, again and again, until a child finishes the game. The finished games
(moves, scores) and their stored turns must be equal.

    .venv/bin/python scripts/kill9.py --kills 100            # the campaign (prints one JSON line)
    .venv/bin/python scripts/kill9.py child --store S --seed N --moves M   # one life of a service
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HUNG = 120.0  # seconds after which an unkilled child counts as hung
MOST = 40  # kills per game at most; the next life is left to finish


def child(store: str, seed: int, moves: int | None) -> int:
    """Run (or resume) the scripted game on ``store`` to its end; print the stored game as JSON."""
    sys.path.insert(0, str(ROOT))
    from live.service import GameService
    from live.sim import NAMES, ScriptedTable, scripted_moves

    script = scripted_moves(seed, limit=moves)
    table = ScriptedTable(script, seed=seed)
    service = GameService(store, source=table, reader=table.read_frame)
    table.attach(service)
    if service.state()["game_id"] is None:
        service.new_game(NAMES[:2])
    service.start()
    version = service.version
    while not service.state()["over"]:
        if len(service.state()["turns"]) >= len(script):
            service.end_game()
            break
        version = service.wait_for_change(version, 1.0)
    service.stop()
    exported = service.export()
    service.close()
    turns = [e["data"]["turn"]["move"] for e in exported["events"] if e["kind"] == "turn"]
    print(json.dumps({"game": exported["game"], "scores": exported["state"]["scores"], "turn_events": turns}))
    return 0


def _life(store: Path, seed: int, moves: int | None, kill_after: float | None) -> dict[str, Any] | None:
    """One child; killed after ``kill_after`` seconds unless it finishes first (then its result)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "child", "--store", str(store), "--seed", str(seed)]
    if moves is not None:
        cmd += ["--moves", str(moves)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=kill_after or HUNG)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate()
        if kill_after is None:
            tail = " | ".join(err.strip().splitlines()[-5:])
            raise RuntimeError(f"child hung for {HUNG} s: {' '.join(cmd)}: {tail}") from None
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"child failed (exit {proc.returncode}): {err.strip().splitlines()[-1:]}")
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def campaign(
    kills: int, *, seed: int = 0, moves: int | None = None, keep: str | None = None
) -> dict[str, Any]:
    """Kill children at least ``kills`` times over as many games as needed; report what was compared."""
    rng = random.Random(seed)
    games: list[dict[str, Any]] = []
    done = 0
    with tempfile.TemporaryDirectory() as scratch:
        tmp = keep or scratch
        game_seed = seed
        while done < kills:
            started = time.monotonic()
            reference = _life(Path(tmp) / f"ref{game_seed}.sqlite3", game_seed, moves, None)
            span = time.monotonic() - started  # kills land anywhere in a life as long as a whole game
            assert reference is not None
            store = Path(tmp) / f"crash{game_seed}.sqlite3"
            lives = 0
            while True:
                lives += 1
                result = _life(store, game_seed, moves, rng.uniform(0.1, span) if lives <= MOST else None)
                if result is not None:
                    break
            killed = lives - 1
            done += killed
            equal = result == reference
            games.append(
                {"seed": game_seed, "kills": killed, "equal": equal, "turns": len(reference["turn_events"])}
            )
            print(f"game {game_seed}: {killed} kills, equal={equal}", file=sys.stderr, flush=True)
            if not equal:
                games[-1]["difference"] = _difference(reference, result)
            game_seed += 1
    return {"kills": done, "games": len(games), "all_equal": all(g["equal"] for g in games), "detail": games}


def _difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    if a["scores"] != b["scores"]:
        return f"scores {a['scores']} != {b['scores']}"
    if a["turn_events"] != b["turn_events"]:
        return f"{len(a['turn_events'])} stored turns != {len(b['turn_events'])}"
    return "games differ"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    c = sub.add_parser("child")
    c.add_argument("--store", required=True)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--moves", type=int)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--moves", type=int, help="end each game after this many turns (faster)")
    parser.add_argument("--keep", metavar="DIR", help="keep the stores in DIR (to look into a failure)")
    args = parser.parse_args(argv)
    if args.mode == "child":
        return child(args.store, args.seed, args.moves)
    report = campaign(args.kills, seed=args.seed, moves=args.moves, keep=args.keep)
    print(json.dumps(report))
    return 0 if report["all_equal"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
