"""The reader's accuracy on rendered sets: every tile set under random conditions, and the classic set
under each named condition held fixed (light, camera tilt, resolution, a hand over the table).

Each set is rendered afresh with ``vision.render_dataset.write_dataset`` (seeded: the same frames every
run) into a temporary folder and measured with ``vision.evaluate.evaluate``, exactly as
``qwirkle render-dataset`` and ``qwirkle evaluate`` do. Target (issue 3): at least 99.5 % of tiles right
per tile set and per condition, and no silent errors where a right answer is not possible.

``QWIRKLE_BENCH_FRAMES`` sets the frames per set (default 200, as the target asks); the sets run on every
core. ``python -m bench accuracy`` runs just this suite (about 10 minutes on 2 cores at 200 frames).
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from typing import Any

FRAMES = int(os.environ.get("QWIRKLE_BENCH_FRAMES", "200"))
SEED = 31
TARGET = ">= 99.5 %"

# (name, variant, frame size (height, width), fixed conditions, chance of a hand)
SETS: tuple[tuple[str, str, tuple[int, int], dict[str, Any], float], ...] = (
    ("classic, random conditions", "classic", (768, 1024), {}, 0.25),
    ("colour-blind, random conditions", "colour-blind", (768, 1024), {}, 0.25),
    ("connect, random conditions", "connect", (768, 1024), {}, 0.25),
    ("cubes, random conditions", "cubes", (768, 1024), {}, 0.25),
    ("herkle, random conditions", "herkle", (768, 1024), {}, 0.25),
    ("classic, warm light", "classic", (768, 1024), {"light": "warm"}, 0.25),
    ("classic, cool light", "classic", (768, 1024), {"light": "cool"}, 0.25),
    ("classic, dim light", "classic", (768, 1024), {"light": "dim"}, 0.25),
    ("classic, camera tilted 20 deg", "classic", (768, 1024), {"tilt": 20.0}, 0.25),
    ("classic, camera tilted 35 deg", "classic", (768, 1024), {"tilt": 35.0}, 0.25),
    ("classic, 40 px per tile", "classic", (768, 1024), {"px_per_tile": 40.0}, 0.25),
    ("classic, 200 px per tile (2040x1536)", "classic", (1536, 2040), {"px_per_tile": 200.0}, 0.25),
    ("classic, a hand in every frame", "classic", (768, 1024), {}, 1.0),
)


def measure(spec: tuple[str, str, tuple[int, int], dict[str, Any], float]) -> dict[str, Any]:
    """Render one set and evaluate the reader on it; one result row."""
    from pathlib import Path

    from vision.evaluate import evaluate
    from vision.render_dataset import write_dataset

    name, variant, size, conditions, hand = spec
    with tempfile.TemporaryDirectory() as tmp:
        write_dataset(tmp, n=FRAMES, seed=SEED, variant=variant, size=size, hand=hand, **conditions)
        overall = evaluate(Path(tmp))["overall"]
    return {
        "name": f"{name}: tiles right",
        "median": round(100 * overall["tile_accuracy"], 2),
        "unit": "%",
        "target": TARGET,
        "frames": overall["frames"],
        "tiles": overall["tiles"],
        "frames_exact": overall["frames_exact"],
        "silent": overall["wrong"] + overall["extra"],
        "uncertain": overall["uncertain"],
        "missed": overall["missed"],
    }


def run() -> list[dict[str, Any]]:
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(measure, SETS))


if __name__ == "__main__":
    for row in run():
        print(row)
