"""Measuring calibration: accuracy of the reader on a labelled dataset, uncalibrated and calibrated, under
shifted light. Run ``python -m calibration.trial --help``.

Two kinds of dataset (the ``../shared/datasets`` format, also what ``qwirkle render-dataset`` writes):

* with a printed board (``board.json``, Qwirkle Connect): calibrated on one frame's known tiles, by default
  the start position ``<game>_00`` (its printed start tiles);
* a free table (rendered game sequences): calibrated on a rendered photo of :func:`arrangement` (the 36
  distinct tiles in order) taken with the same camera, table and light as the game's first frame, then
  shifted like the frames. That is what a user does: lay out the tiles, photograph them, play. The photo
  is rendered by today's renderer, so the frames must be too: games rendered before a change to the tiles'
  painting show other symbols than the photo, and calibration then learns tiles the game does not hold.
  Render such games again (``qwirkle render-dataset ... --games``, same seed) before measuring.

Each dataset is copied into a scratch folder with every frame shifted (:mod:`calibration.lighting`), the
calibration photo shifted the same way, and every frame is read without and with the calibration. Tiles are
counted by :func:`vision.evaluate.score_frame`.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.appearance import CalibrationFailed, arrangement, calibrate_from_photo, read_calibrated
from calibration.file import Calibration
from calibration.lighting import SHIFTS, Shift, shift_dataset, shift_light
from table import Layout, tileset
from table.codec import board_from_json, layout_from_json
from vision.evaluate import Tally, score_frame


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _frames(folder: Path) -> list[str]:
    return sorted(p.stem for p in (folder / "truth").glob("*.json"))


def _layout(folder: Path) -> Layout | None:
    board = folder / "board.json"
    return layout_from_json(_json(board), where=str(board)) if board.is_file() else None


def calibrate_game(
    folder: Path, game: str, shift: Shift | None, *, seed: int = 0
) -> tuple[Calibration | None, dict[str, Any]]:
    """The calibration of one game of a (possibly shifted) dataset, and its report (JSON); when calibration
    fails (:class:`CalibrationFailed`), None and ``{"failed": reason}``: the game is read uncalibrated, as a
    user whose calibration was refused would."""
    layout = _layout(folder)
    first = f"{game}_00"
    truth = _json(folder / "truth" / f"{first}.json")
    variant = str(truth.get("variant") or (layout.variant if layout else "classic"))
    tiles = tileset(variant)
    if layout is not None:
        image = cv2.imread(str(folder / "frames" / f"{first}.jpg"), cv2.IMREAD_COLOR)
        known = board_from_json(truth, where=first, tileset=tiles)
    else:
        image, known = _arrangement_photo(truth, variant), arrangement(tiles)
        if shift is not None:
            image = shift_light(image, shift, seed=seed)
    if image is None:
        raise ValueError(f"{folder}/frames/{first}.jpg: not a readable image")
    try:
        found, report = calibrate_from_photo(image, known, tileset=tiles, layout=layout, photo=first)
    except CalibrationFailed as err:
        return None, {"failed": str(err)}
    return found, report.to_json()


def _arrangement_photo(truth: dict[str, Any], variant: str) -> np.ndarray:
    """A rendered photo of the 36 distinct tiles in order, under the frame ``truth``'s camera and light."""
    from vision.render import Conditions, Scene, render

    c: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in truth["conditions"].items()}
    c["shift"] = (0.0, 0.0)  # the arrangement sits where the camera aims,
    c["gaps"] = 0.0  # laid out tightly,
    # square to the picture, as a user lays it out, within 5 degrees (the game's own angle, scaled down:
    # a block at 45 degrees has no "top row")
    c["rotation"] = (float(c["rotation"]) - 90.0 * round(float(c["rotation"]) / 90.0)) / 9.0
    c["px_per_tile"] = min(float(c["px_per_tile"]), truth["height"] / 9.0)  # all of it in view
    scene = Scene(
        arrangement(tileset(variant)),
        variant,
        Conditions(**c),
        size=(int(truth["height"]), int(truth["width"])),
        table_seed=int(truth.get("table_seed", 0)),
        seed=int(truth.get("seed", 0)),
    )
    rendered = render(scene)
    if rendered.jpeg is not None:
        decoded = cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)
        if decoded is not None:
            return np.asarray(decoded)
    return rendered.image


def accuracy(folder: Path, calibrations: dict[str, Calibration | None]) -> Tally:
    """Tiles read right over every frame of ``folder``, each game read with its calibration (or none)."""
    layout = _layout(folder)
    total = Tally()
    for ident in _frames(folder):
        truth = _json(folder / "truth" / f"{ident}.json")
        variant = str(truth.get("variant") or (layout.variant if layout else "classic"))
        image = cv2.imread(str(folder / "frames" / f"{ident}.jpg"), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{folder}/frames/{ident}.jpg: not a readable image")
        cal = calibrations.get(ident.split("_")[0])
        reading = read_calibrated(image, cal, tileset=tileset(variant), layout=layout)
        total.add(score_frame(reading, truth, layout=layout, where=ident))
    return total


def trial(dataset: Path, shift_name: str | None, *, scratch: Path, seed: int = 1) -> dict[str, Any]:
    """Uncalibrated and calibrated accuracy on ``dataset`` under the named shift (None: as it is)."""
    shift = None if shift_name is None else SHIFTS[shift_name]
    folder = dataset
    if shift is not None:
        folder = scratch / f"{dataset.name}-{shift_name}"
        shift_dataset(dataset, folder, shift, seed=seed)
    games = sorted({ident.split("_")[0] for ident in _frames(folder)})
    calibrations: dict[str, Calibration | None] = {}
    reports, times = {}, []
    for game in games:
        started = time.perf_counter()
        calibrations[game], reports[game] = calibrate_game(folder, game, shift, seed=seed)
        # the calibration's own time; a refused one is timed whole (with the rendering of its photo)
        times.append(reports[game].get("elapsed_ms", (time.perf_counter() - started) * 1000))
    plain = accuracy(folder, {})
    calibrated = accuracy(folder, calibrations)
    return {
        "dataset": str(dataset),
        "shift": shift_name,
        "uncalibrated": plain.summary(),
        "calibrated": calibrated.summary(),
        "calibration_ms": [round(t) for t in times],
        "reports": reports,
    }


def _errors(summary: dict[str, Any]) -> str:
    """What went wrong, naming (of the tiles the reader found) apart from finding."""
    found = summary["tiles"] - summary["missed"]
    misnamed = summary["wrong"] + summary["extra"] + summary["uncertain"]
    return (
        f"misnamed {misnamed} of {found} found: wrong {summary['wrong']}, extra {summary['extra']}, "
        f"uncertain {summary['uncertain']}; missed {summary['missed']}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m calibration.trial", description="reader accuracy, uncalibrated and calibrated"
    )
    parser.add_argument("datasets", nargs="+", type=Path, metavar="DATASET_DIR")
    parser.add_argument("--shift", action="append", choices=[*SHIFTS, "none"], help="default: all three")
    parser.add_argument("--scratch", type=Path, help="where shifted copies go (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per trial")
    args = parser.parse_args(argv)
    names = args.shift or list(SHIFTS)
    with tempfile.TemporaryDirectory(prefix="qwirkle-trial-") as temp:
        scratch = args.scratch or Path(temp)
        for dataset in args.datasets:
            for name in names:
                result = trial(dataset, None if name == "none" else name, scratch=scratch)
                if args.json:
                    print(json.dumps({k: v for k, v in result.items() if k != "reports"}), flush=True)
                    continue
                u, c = result["uncalibrated"], result["calibrated"]
                print(
                    f"{dataset.name:>24} {name:>5}: uncalibrated {100 * u['tile_accuracy']:6.2f} % "
                    f"({_errors(u)}), calibrated {100 * c['tile_accuracy']:6.2f} % "
                    f"({_errors(c)}, exact {c['frames_exact']}/{c['frames']}), "
                    f"calibration {result['calibration_ms']} ms",
                    flush=True,
                )
                for game, report in result["reports"].items():
                    if "failed" in report:
                        print(f"{'':>24} game {game}: calibration refused ({report['failed']})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
