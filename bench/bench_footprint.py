"""The scoreboard service's footprint: resident memory and CPU of one ``qwirkle serve``-like process
following the demo game at 1 frame per second, with one phone polling ``/api/state`` every 2 s: once on
the demo itself (which renders every frame in the same process) and once on a replay of the demo's frames
from a folder (closer to a Pi, where the camera's ISP makes the frames).

The service runs in a child process (so its numbers are its own); after a warm-up the parent samples the
child's resident set (``/proc/PID/status`` VmRSS) every second and its CPU time (``/proc/PID/stat`` utime
+ stime) over the window. Linux only. ``python -m bench footprint`` runs just this one.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench.process import free_port, rss_mb

ROOT = Path(__file__).resolve().parents[1]
WARMUP_S = 15.0
WINDOW_S = 45.0

CHILD = """
import sys
import threading
import time
from pathlib import Path
from live.service import GameService
from vision.demo import DemoSource
from vision.sources import FolderSource
from web import create_app
from web.server import Server

port, store, replay, counter = int(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])
demo = DemoSource(fps=1.0)
source = FolderSource(replay, hold=1.0, fps=1.0) if replay else demo
service = GameService(store, source=source, variant=demo.variant)
service.new_game(list(demo.players), variant=demo.variant)
server = Server(create_app(service, {"PIN": "1234"}), host="127.0.0.1", port=port)


def count_frames():
    while True:
        Path(f"{counter}.new").write_text(str(service.state()["camera"]["frames"]))
        Path(f"{counter}.new").replace(counter)
        time.sleep(0.5)


service.start()
threading.Thread(target=count_frames, daemon=True).start()
server.run()
"""


def _replay_frames(folder: Path, count: int) -> None:
    """The demo's first ``count`` frames as PNG files, for a replay that costs no rendering."""
    import cv2

    from vision.demo import DemoSource

    with DemoSource(fps=1.0, realtime=False) as demo:
        for i in range(count):
            cv2.imwrite(str(folder / f"{i:04d}.png"), demo.read().image)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _state(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def _frames_read(counter: Path) -> int:
    """The child's own count of frames read (``/api/state`` is cached per version, and frames that change
    nothing do not bump the version), which the child writes twice a second."""
    return int(counter.read_text())


def measure(*, replay: bool, warmup: float = WARMUP_S, window: float = WINDOW_S) -> dict[str, float]:
    """Run the service on the demo (rendering each frame) or on a replay of the demo's frames (the
    Pi-like case: a frame costs nothing to get) and sample it; see the module docstring."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        frames_dir = ""
        counter = Path(tmp) / "frames-read"
        if replay:
            frames_dir = str(Path(tmp) / "frames")
            Path(frames_dir).mkdir()
            _replay_frames(Path(frames_dir), int(warmup + window) + 10)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(port), f"{tmp}/games.sqlite3", frames_dir, str(counter)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    _state(port)
                    break
                except OSError:
                    if child.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("the service did not start") from None
                    time.sleep(0.5)
            time.sleep(warmup)
            frames0 = _frames_read(counter)
            cpu0, t0 = _cpu_s(child.pid), time.monotonic()
            rss = []
            while time.monotonic() - t0 < window:
                rss.append(rss_mb(child.pid))
                if len(rss) % 2 == 0:
                    _state(port)  # the phone
                time.sleep(1.0)
            elapsed = time.monotonic() - t0
            cpu = (_cpu_s(child.pid) - cpu0) / elapsed
            frames = (_frames_read(counter) - frames0) / elapsed
        finally:
            child.terminate()
            child.wait(timeout=30)
    return {"rss_mb": statistics.median(rss), "rss_max_mb": max(rss), "cpu": cpu, "fps": frames}


def run() -> list[dict[str, Any]]:
    rows = []
    for replay, what in ((False, "demo"), (True, "demo frames replayed")):
        m = measure(replay=replay)
        note = {"window_s": WINDOW_S, "frames_per_s": round(m["fps"], 2)}
        rows += [
            {
                "name": f"serve {what} @1 fps: resident memory",
                "median": round(m["rss_mb"], 1),
                "unit": "MB",
                "max": round(m["rss_max_mb"], 1),
                **note,
            },
            {
                "name": f"serve {what} @1 fps: CPU (one core = 100)",
                "median": round(100 * m["cpu"], 1),
                "unit": "%",
                **note,
            },
        ]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
