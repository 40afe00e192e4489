"""Load on the scoreboard: phones on the event stream plus polling, against ``qwirkle serve --source demo``.

Starts the real server in its own process on loopback, opens ``--sse`` event streams (30 phones) and
``--pollers`` polling clients (``/api/state`` with ``If-None-Match`` once a second), and while the demo
game runs, makes a known change through the API every ``--every`` seconds, behind the PIN (one score
correction, then undo and redo in turn, so the game keeps a real game's size). It measures, per change
and per phone, the time from sending the change to the phone receiving a state at least that new
(``latency``), changes a phone never received (``lost``), the longest silence on any stream (``stall``;
keep-alive comments count), poll errors, and the server's memory (VmRSS of the ``serve`` process,
sampled with every change). Targets (issue 6): a change on every phone within 1 s; no lost event, no
stall; ``serve`` on the demo ≤ 250 MB.

``make bench`` runs a short load (20 s); the full one is ``python -m bench.bench_web --seconds 300``.
Loopback only, bounded: every client ends with the run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.process import HOST, free_port, rss_mb

ROOT = Path(__file__).resolve().parents[1]
PIN = "7531"


@dataclass
class Phone:
    """One event-stream client: when it received which version, and its longest silence."""

    port: int
    received: list[tuple[float, int]] = field(default_factory=list)
    longest_gap: float = 0.0
    error: str | None = None

    def run(self, stop: threading.Event) -> None:
        try:
            conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            if response.status != 200:
                self.error = f"HTTP {response.status}"
                return
            last = time.monotonic()
            while not stop.is_set():
                line = response.readline()
                if not line:
                    if not stop.is_set():
                        self.error = "stream closed by the server"
                    return
                now = time.monotonic()
                if line.strip():
                    self.longest_gap = max(self.longest_gap, now - last)
                    last = now
                if line.startswith(b"id:"):
                    self.received.append((now, int(line[3:].strip())))
            conn.close()
        except OSError as err:
            if not stop.is_set():
                self.error = str(err)


@dataclass
class Poller:
    """A phone on the polling fallback: a conditional GET once a second."""

    port: int
    requests: int = 0
    not_modified: int = 0
    errors: int = 0

    def run(self, stop: threading.Event) -> None:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=10)
        etag = ""
        while not stop.wait(1.0):
            try:
                conn.request("GET", "/api/state", headers={"If-None-Match": etag} if etag else {})
                response = conn.getresponse()
                response.read()
                self.requests += 1
                if response.status == 304:
                    self.not_modified += 1
                elif response.status == 200:
                    etag = response.getheader("ETag") or ""
                else:
                    self.errors += 1
            except (OSError, http.client.HTTPException):
                if stop.is_set():
                    break
                self.errors += 1
                conn.close()
                conn = http.client.HTTPConnection(HOST, self.port, timeout=10)
        conn.close()


class Table:
    """A logged-in client that makes changes through the API (the PIN, the session cookie, CSRF)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=10)
        self.cookie = ""
        session = self._call("GET", "/api/session")
        self.csrf = session["csrf"]
        self._call("POST", "/api/unlock", {"pin": PIN})

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json", "Cookie": self.cookie}
        if method == "POST":
            headers["X-CSRF-Token"] = self.csrf
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = self.conn.getresponse()
        data = json.loads(response.read() or b"null")
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: HTTP {response.status} {data}")
        return data

    def change(self, path: str, body: Any = None) -> int:
        """Make one change; its version."""
        version: int = self._call("POST", path, body or {})["version"]
        return version


def load(*, seconds: float, sse: int, pollers: int, every: float, source: str = "demo") -> dict[str, Any]:
    """Run the load once; return the measured numbers."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "qwirkle", "serve", "--source", source]
    server = subprocess.Popen(
        [*command, "--host", HOST, "--port", str(port), "--pin", PIN],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    stop = threading.Event()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((HOST, port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    err = server.stderr.read().decode() if server.stderr else ""
                    raise RuntimeError(f"qwirkle serve did not start: {err.strip()[-500:]}") from None
                time.sleep(0.2)
        table = Table(port)
        if not table._call("GET", "/api/state")["players"]:  # no camera: a game started on a phone
            table._call("POST", "/api/game/new", {"players": ["Ann", "Bob"]})
        sides = table._call("GET", "/api/state")["sides"]
        phones = [Phone(port) for _ in range(sse)]
        polls = [Poller(port) for _ in range(pollers)]
        clients: list[Phone | Poller] = [*phones, *polls]
        threads = [threading.Thread(target=c.run, args=(stop,), daemon=True) for c in clients]
        for t in threads:
            t.start()
        time.sleep(1.0)
        changes: list[tuple[float, int]] = []
        rss: list[float] = []
        started = time.monotonic()
        # A score correction, then undo and redo in turn: a change every time, and a game of the size a
        # real one has (corrections piling up would make every state, and so the load, grow without end).
        changes.append((time.monotonic(), table.change("/api/game/adjust", {"side": sides[0], "points": 1})))
        undo = True
        while time.monotonic() - started < seconds:
            time.sleep(every)
            sent = time.monotonic()
            try:
                version = table.change("/api/game/undo" if undo else "/api/game/redo")
            except RuntimeError:  # the camera confirmed a turn in between: nothing to redo
                version = table.change("/api/game/adjust", {"side": sides[0], "points": 1})
                undo = False
            changes.append((sent, version))
            undo = not undo
            rss.append(rss_mb(server.pid))
        time.sleep(2.0)  # grace for the last change to arrive
        stop.set()
        rss.append(rss_mb(server.pid))
    finally:
        stop.set()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    latencies: list[float] = []
    lost = 0
    for phone in phones:
        for at, version in changes:
            arrived = next((t for t, v in phone.received if v >= version), None)
            if arrived is None:
                lost += 1
            else:
                latencies.append(max(0.0, arrived - at))
    latencies.sort()
    return {
        "seconds": seconds,
        "changes": len(changes),
        "phones": sse,
        "pollers": pollers,
        "stream_errors": [p.error for p in phones if p.error],
        "lost": lost,
        "latency_ms_median": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "latency_ms_p95": 1000 * latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan"),
        "latency_ms_max": 1000 * latencies[-1] if latencies else float("nan"),
        "longest_silence_s": max((p.longest_gap for p in phones), default=0.0),
        "polls": sum(p.requests for p in polls),
        "polls_not_modified": sum(p.not_modified for p in polls),
        "poll_errors": sum(p.errors for p in polls),
        "rss_mb_max": max(rss, default=0.0),
        "rss_mb_median": statistics.median(rss) if rss else 0.0,
    }


def run() -> list[dict[str, Any]]:
    """``make bench``: a 20-second load with 30 phones on the stream and 10 polling."""
    out = load(seconds=20, sse=30, pollers=10, every=0.5)
    extra = {
        "changes": out["changes"],
        "lost": out["lost"],
        "stream_errors": len(out["stream_errors"]),
        "poll_errors": out["poll_errors"],
    }
    return [
        {"name": "30 phones: change to phone, median", "median": out["latency_ms_median"], "unit": "ms",
         "target": 1000, **extra},
        {"name": "30 phones: change to phone, p95", "median": out["latency_ms_p95"], "unit": "ms",
         "target": 1000},
        {"name": "30 phones: changes never received", "median": out["lost"], "unit": "", "target": 0},
        {"name": "30 phones: longest silence on a stream", "median": out["longest_silence_s"], "unit": "s",
         "target": 16},
        {"name": "serve --source demo under load: RSS max", "median": out["rss_mb_max"], "unit": "MB",
         "target": 250, "rss_median": round(out["rss_mb_median"], 1)},
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="how long (the full test: 300)")
    parser.add_argument("--sse", type=int, default=30, help="phones on the event stream (default 30)")
    parser.add_argument("--pollers", type=int, default=10, help="phones polling (default 10)")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between changes (default 0.5)")
    parser.add_argument("--source", default="demo", help='the serve --source (default demo; "" for none)')
    args = parser.parse_args(argv)
    if not (
        0 < args.seconds <= 3600 and 0 <= args.sse <= 100 and 0 <= args.pollers <= 100 and args.every >= 0.05
    ):
        parser.error(
            "bounded load only: seconds 0..3600, up to 100 clients of each kind, changes >= 50 ms apart"
        )
    print(json.dumps(load(seconds=args.seconds, sse=args.sse, pollers=args.pollers, every=args.every,
                          source=args.source), indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
