"""Measuring the reader against a labelled dataset (the ``../shared/datasets`` format).

A dataset is a folder with ``frames/<id>.jpg``, ``truth/<id>.json`` (``tiles``, and for rendered sets also
``variant``, ``conditions`` and ``uncertain``) and optionally ``board.json`` (a printed board's layout).
Each frame is read; on a free table the reading is first registered onto the truth (quarter turns and a
shift, as the game service does), with a layout board cells are compared as they are.

Counted per tile of the truth: *right* (its cell read with its colour and shape), *wrong* (read as
another tile: a silent error), *uncertain* (reported as not readable) or *missed*. Tiles the truth itself
lists as uncertain (hidden by a hand, cut by the frame's edge) are right when read right or reported
uncertain. A read tile on a cell the truth has empty is an *extra* (also a silent error). A frame is
*exact* when every tile is right and nothing extra is read. Cells the truth lists as ``occluded`` (tiles
or empty cells a hand covers) are counted, and how many of them the reader reported uncertain.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from table import Board, Layout, TileSet, tileset
from table.codec import board_from_json, layout_from_json
from table.register import register
from vision.learning import learn_prototypes
from vision.prototypes import Prototypes
from vision.reader import measure_tiles, read_table
from vision.reading import Reading

UNREAD = "(uncertain)"
MISSED = "(missed)"


class DatasetError(ValueError):
    """A dataset folder that cannot be evaluated; the message names the file at fault."""


@dataclass
class Tally:
    """Counts over a set of frames."""

    frames: int = 0
    exact: int = 0
    tiles: int = 0
    right: int = 0
    wrong: int = 0
    uncertain: int = 0
    missed: int = 0
    extra: int = 0
    false_alarms: int = 0
    occluded: int = 0
    occluded_reported: int = 0
    colours: Counter[tuple[str, str]] = field(default_factory=Counter)
    shapes: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        for name in (
            "frames",
            "exact",
            "tiles",
            "right",
            "wrong",
            "uncertain",
            "missed",
            "extra",
            "false_alarms",
            "occluded",
            "occluded_reported",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.colours.update(other.colours)
        self.shapes.update(other.shapes)

    @property
    def accuracy(self) -> float:
        return self.right / self.tiles if self.tiles else 1.0

    def summary(self) -> dict[str, Any]:
        return {
            "frames": self.frames,
            "frames_exact": self.exact,
            "tiles": self.tiles,
            "tile_accuracy": round(self.accuracy, 5),
            "right": self.right,
            "wrong": self.wrong,
            "extra": self.extra,
            "uncertain": self.uncertain,
            "missed": self.missed,
            "uncertain_on_empty_cells": self.false_alarms,
            "occluded_cells": self.occluded,
            "occluded_cells_reported": self.occluded_reported,
        }


def score_frame(reading: Reading, truth: dict[str, Any], *, layout: Layout | None, where: str) -> Tally:
    """Compare one reading with one truth JSON (see the module docstring for what counts)."""

    want = board_from_json(truth, where=where)
    doubtful = {(u["row"], u["col"]) for u in truth.get("uncertain", [])}
    read = reading.board
    unsure = {(u.row, u.col) for u in reading.uncertain}
    if layout is None and read:
        motion = register(want, read)
        read = motion.board(read)
        unsure = set(motion.cells(unsure))
    t = Tally(frames=1, tiles=len(want))
    for cell, tile in want.items():
        got = read.get(cell)
        if got == tile or (got is None and cell in doubtful):
            t.right += 1
        elif got is not None:
            t.wrong += 1
        elif cell in unsure:
            t.uncertain += 1
        else:
            t.missed += 1
        shown = UNREAD if got is None and cell in unsure else MISSED if got is None else None
        t.colours[(tile.colour, shown or got.colour)] += 1  # type: ignore[union-attr]
        t.shapes[(tile.shape, shown or got.shape)] += 1  # type: ignore[union-attr]
    hidden = {(u["row"], u["col"]) for u in truth.get("uncertain", []) if u.get("reason") == "occluded"}
    t.occluded = len(hidden)
    t.occluded_reported = len(hidden & unsure)
    t.extra = sum(1 for cell in read if cell not in want)
    t.false_alarms = sum(1 for cell in unsure if cell not in want)
    t.exact = int(t.right == t.tiles and t.extra == 0)
    return t


def evaluate(
    folder: Path, *, calibrate_on: str | None = None, scale: float = 1.0, limit: int | None = None
) -> dict[str, Any]:
    """Read every frame of a dataset and measure the reader.

    Parameters
    ----------
    folder : Path
        The dataset folder.
    calibrate_on : str, optional
        A frame id whose truth tiles teach the prototypes first (as ``qwirkle calibrate`` would); that
        frame is still evaluated.
    scale : float
        Resize every frame by this factor before reading (to test other resolutions).
    limit : int, optional
        Evaluate only the first ``limit`` frames.

    Returns
    -------
    dict
        ``overall`` (:meth:`Tally.summary`), ``colour_confusion`` and ``shape_confusion`` (truth name to
        read name to count, with ``(uncertain)`` and ``(missed)``), ``by_condition`` for rendered sets,
        ``timing`` (median read and decode milliseconds and their ratio), and ``frames`` (per frame).
    """
    frames, layout, variant = _dataset(folder)
    if limit is not None:
        frames = frames[:limit]
    tiles_of = tileset(variant)
    calibration = _calibrate(folder, calibrate_on, tiles_of, layout, scale) if calibrate_on else None
    total = Tally()
    groups: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    per_frame, read_ms, decode_ms = [], [], []
    for ident in frames:
        truth = _json(folder / "truth" / f"{ident}.json")
        started = time.perf_counter()
        image = _image(folder, ident, scale)
        decode_ms.append((time.perf_counter() - started) * 1000)
        frame_set = tileset(truth.get("variant", variant))
        reading = read_table(image, tileset=frame_set, layout=layout, calibration=calibration)
        read_ms.append(reading.elapsed_ms)
        tally = score_frame(reading, truth, layout=layout, where=f"truth/{ident}.json")
        total.add(tally)
        for name, value in _conditions(truth).items():
            groups[name][value].add(tally)
        per_frame.append({"id": ident, **tally.summary(), "elapsed_ms": round(reading.elapsed_ms, 1)})
    read_median = statistics.median(read_ms) if read_ms else 0.0
    decode_median = statistics.median(decode_ms) if decode_ms else 0.0
    return {
        "dataset": str(folder),
        "variant": variant,
        "calibrated_on": calibrate_on,
        "scale": scale,
        "overall": total.summary(),
        "colour_confusion": _matrix(total.colours),
        "shape_confusion": _matrix(total.shapes),
        "by_condition": {
            name: {value: t.summary() for value, t in sorted(values.items())}
            for name, values in groups.items()
        },
        "timing": {
            "read_median_ms": round(read_median, 2),
            "decode_median_ms": round(decode_median, 2),
            "read_over_decode": round(read_median / decode_median, 3) if decode_median else None,
        },
        "frames": per_frame,
    }


def report_text(result: dict[str, Any]) -> str:
    """A human-readable summary of :func:`evaluate`'s result."""
    o = result["overall"]
    t = result["timing"]
    lines = [
        f"{result['dataset']} ({result['variant']}, scale {result['scale']}"
        + (f", calibrated on {result['calibrated_on']})" if result["calibrated_on"] else ")"),
        f"tiles right: {o['right']}/{o['tiles']} = {100 * o['tile_accuracy']:.2f} %   "
        f"frames exact: {o['frames_exact']}/{o['frames']}",
        f"wrong {o['wrong']}, extra {o['extra']}, uncertain {o['uncertain']}, missed {o['missed']}, "
        f"uncertain on empty cells {o['uncertain_on_empty_cells']}",
        f"occluded cells reported uncertain: {o['occluded_cells_reported']}/{o['occluded_cells']}",
        f"read median {t['read_median_ms']} ms, decode median {t['decode_median_ms']} ms, "
        f"ratio {t['read_over_decode']}",
    ]
    for title, key in (("colour", "colour_confusion"), ("shape", "shape_confusion")):
        lines.append(f"{title} confusion (truth -> read):")
        for name, row in result[key].items():
            lines.append(f"  {name:>12}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    for name, values in result["by_condition"].items():
        lines.append(f"by {name}:")
        for value, s in values.items():
            lines.append(
                f"  {value:>14}: {100 * s['tile_accuracy']:6.2f} % of {s['tiles']} tiles, "
                f"exact {s['frames_exact']}/{s['frames']}, wrong {s['wrong'] + s['extra']}"
            )
    return "\n".join(lines)


def _dataset(folder: Path) -> tuple[list[str], Layout | None, str]:
    if not (folder / "truth").is_dir() or not (folder / "frames").is_dir():
        raise DatasetError(f"{folder}: not a dataset (needs frames/ and truth/ folders)")
    frames = sorted(p.stem for p in (folder / "truth").glob("*.json"))
    if not frames:
        raise DatasetError(f"{folder}/truth: no truth files")
    layout = None
    board = folder / "board.json"
    if board.is_file():
        layout = layout_from_json(_json(board), where=str(board))
    first = _json(folder / "truth" / f"{frames[0]}.json")
    variant = str(first.get("variant") or (layout.variant if layout else "classic"))
    return frames, layout, variant


def _calibrate(
    folder: Path, ident: str, tiles_of: TileSet, layout: Layout | None, scale: float
) -> Prototypes:
    path = folder / "truth" / f"{ident}.json"
    if not path.is_file():
        raise DatasetError(f"{path}: no such truth file to calibrate on")
    known: Board = board_from_json(_json(path), where=str(path), tileset=tiles_of)
    try:
        measured, tiles, _ = measure_tiles(_image(folder, ident, scale), known, tileset=tiles_of)
    except ValueError as err:  # the known tiles are not where the truth says, or not seen at all
        raise DatasetError(
            f"{folder / 'frames' / (ident + '.jpg')}: {err}, so it cannot be calibrated on"
        ) from None
    if len(tiles) < 6:
        raise DatasetError(f"{path}: only {len(tiles)} known tiles found in the photo, too few to calibrate")
    return learn_prototypes([(measured, tiles)], tileset=tiles_of)


def _image(folder: Path, ident: str, scale: float) -> np.ndarray:
    path = folder / "frames" / f"{ident}.jpg"
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise DatasetError(f"{path}: missing or not a readable image")
    if scale != 1.0:
        method = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=method)
    return image


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DatasetError(f"{path}: cannot read JSON ({err})") from None


def _conditions(truth: dict[str, Any]) -> dict[str, str]:
    """The named conditions of a rendered frame, bucketed (nothing for real photos)."""
    c = truth.get("conditions")
    if not isinstance(c, dict):
        return {}
    px = float(c.get("px_per_tile", 0))
    tilt = float(c.get("tilt", 0))
    out = {
        "variant": str(truth.get("variant", "?")),
        "light": str(c.get("light", "?")),
        "table": str(c.get("table", "?")),
        "px_per_tile": "<50" if px < 50 else "50-90" if px < 90 else "90-150" if px < 150 else ">=150",
        "tilt": "0-10" if tilt < 10 else "10-25" if tilt < 25 else ">=25",
        "hand": "yes" if truth.get("hand") else "no",
    }
    return out


def _matrix(pairs: Counter[tuple[str, str]]) -> dict[str, dict[str, int]]:
    rows: dict[str, dict[str, int]] = defaultdict(dict)
    for (want, got), n in sorted(pairs.items()):
        rows[want][got] = n
    return dict(rows)
