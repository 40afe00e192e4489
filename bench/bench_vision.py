"""The reader's speed and memory: ``read_table`` on a 2040×1536 frame against OpenCV decoding that JPEG.

Target: reading takes at most 3× the decode, as a ratio of medians measured in one run (reads and decodes
interleaved, so both see the same machine load), and one read peaks under 300 MB (measured in a fresh
process as its maximum resident size, everything loaded). Frames: a rendered classic table, and the
real Connect photo ``connect-game1/1_20`` when ``../shared/datasets`` is present.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "datasets" / "connect-game1"
SIZE = (1536, 2040)
RUNS = 15


def _rendered() -> tuple[bytes, str, Any]:
    from table import tileset
    from vision.render import random_scene, render

    scene = random_scene(seed=3, variant="classic", size=SIZE, hand=0.0, tiles=40, px_per_tile=85.0, tilt=8.0)
    out = render(scene)
    ok, buf = cv2.imencode(".jpg", out.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes(), "classic", (tileset("classic"), None)


def _real() -> tuple[bytes, str, Any] | None:
    path = REAL / "frames" / "1_20.jpg"
    if not path.is_file():
        return None
    from table import connect_layout, tileset

    return path.read_bytes(), "connect", (tileset("connect"), connect_layout())


def _time(data: bytes, context: Any) -> tuple[float, float]:
    from vision import read_table

    tiles, layout = context
    buf = np.frombuffer(data, np.uint8)
    image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    read_table(image, tileset=tiles, layout=layout)  # warm-up: prototypes, imports
    decode, read = [], []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        image = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
        t1 = time.perf_counter()
        read_table(image, tileset=tiles, layout=layout)
        t2 = time.perf_counter()
        decode.append((t1 - t0) * 1000)
        read.append((t2 - t1) * 1000)
    return statistics.median(decode), statistics.median(read)


# The peak is the process's VmHWM, not getrusage's ru_maxrss: Linux keeps ru_maxrss across execve, so a
# child started from a large parent (a full ``make bench``) would report the parent's peak.
_PEAK = """
import sys, cv2, numpy as np
from table import tileset, connect_layout
from vision import read_table
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
variant = sys.argv[1]
image = cv2.imdecode(np.frombuffer(sys.stdin.buffer.read(), np.uint8), cv2.IMREAD_COLOR)
layout = connect_layout() if variant == "connect" else None
read_table(image[:64, :64].copy(), tileset=tileset(variant), layout=layout)
before = hwm()
read_table(image, tileset=tileset(variant), layout=layout)
print(before, hwm())
"""


def _peak(data: bytes, variant: str) -> tuple[float, float]:
    """Max resident MB of a fresh process before and after one read (everything imported and decoded)."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, variant], input=data, capture_output=True, check=True, cwd=ROOT
    )
    before, after = (float(v) for v in done.stdout.split())
    return before, after


def run() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    frames = [("rendered classic", _rendered()), ("real connect 1_20", _real())]
    for label, frame in frames:
        if frame is None:
            continue
        data, variant, context = frame
        decode, read = _time(data, context)
        rows.append(
            {
                "name": f"read 2040x1536 ({label})",
                "median": round(read, 2),
                "unit": "ms",
                "target": "<= 3x decode",
                "decode_ms": round(decode, 2),
                "ratio": round(read / decode, 3),
                # the reader's Python suffers more from a busy neighbour than the SIMD decode does
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
        before, after = _peak(data, variant)
        rows.append(
            {
                "name": f"read peak memory ({label})",
                "median": round(after, 1),
                "unit": "MB",
                "target": "<= 300",
                "before_read_mb": round(before, 1),
            }
        )
    return rows


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
