"""``qwirkle follow``: the turns of one game from a sequence of settled photos.

Each photo is read, registered onto the board so far and compared with it exactly as the game service
does with a settled camera frame (:mod:`table.register`, :mod:`live.turns`); the new tiles are checked and
scored by the rules core. There is nobody to ask here, so the photos' story is told as it is: an illegal
placement is reported with its violations and stays on the board (the next photo starts from it), and
what would need attention in a live game (a confirmed tile gone, read as another, or unreadable) is
listed under ``attention`` while the confirmed board keeps what was seen first.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from live.turns import UNUSABLE_REASONS, observe
from table import Board, Cell, Layout, Tile, TileSet, score, violations
from table.codec import board_to_json, violation_to_json
from table.register import IDENTITY
from vision.reading import Reading

Reader = Callable[[np.ndarray], Reading]


class PhotoError(ValueError):
    """A photo that cannot be read; the message names the file."""


def load_photo(path: str | Path) -> np.ndarray:
    """The photo at ``path`` as an H×W×3 BGR uint8 array, or :class:`PhotoError` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise PhotoError(f"{path}: no such file")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise PhotoError(f"{path}: not an image OpenCV can decode")
    return image


def follow_photos(
    paths: Sequence[str | Path],
    *,
    tileset: TileSet,
    layout: Layout | None = None,
    calibration: Any = None,
    reader: Reader | None = None,
) -> list[dict[str, Any]]:
    """One result per consecutive pair of ``paths``: the contract's ``follow`` JSON objects.

    Each has ``before``, ``after`` (the paths as given), ``placed`` (the new tiles, placed-tile JSON),
    ``legal``, ``score`` (None when illegal or nothing was placed) and ``violations``; plus ``attention``
    (sentences, empty when all is well) and ``elapsed_ms`` (reading the ``after`` photo).

    ``reader`` replaces :func:`vision.read_table` (with ``tileset``, ``layout``, ``calibration``).
    """
    if len(paths) < 2:
        raise PhotoError(f"follow: need at least two photos, got {len(paths)}")
    if reader is None:
        from vision import read_table

        def reader(image: np.ndarray) -> Reading:
            found: Reading = read_table(image, tileset=tileset, layout=layout, calibration=calibration)
            return found

    readings = [reader(load_photo(p)) for p in paths]
    story = _story(readings, layout)
    out: list[dict[str, Any]] = []
    confirmed = story.boards[0]
    for k, (before, after) in enumerate(itertools.pairwise(paths), start=1):
        placed = tuple(p for p in story.boards[k].placed if p.cell not in confirmed)
        found = violations(confirmed, placed, tileset=tileset, layout=layout)  # nothing placed: a violation
        points = None if found else score(confirmed, placed, layout=layout)
        out.append(
            {
                "before": str(before),
                "after": str(after),
                "placed": board_to_json(placed)["tiles"],
                "legal": not found,
                "score": points.total if points is not None else None,
                "violations": [violation_to_json(v) for v in found],
                "attention": story.attention[k],
                "elapsed_ms": round(readings[k].elapsed_ms, 1),
            }
        )
        confirmed = story.boards[k]
    return out


@dataclass(frozen=True)
class _Story:
    boards: list[Board]  # the table after each photo
    attention: list[list[str]]  # per photo, what a person would have to look at


def _story(readings: list[Reading], layout: Layout | None) -> _Story:
    """The tiles on the table after each photo, using every photo as evidence.

    A tile never moves once placed, so each cell's tile is the confidence-weighted vote of every photo
    that read it, and it belongs to the photo where its cell turns from empty to occupied: the step that
    disagrees with the fewest photos (sightings before it, misses after it; the earliest of equals). A
    tile unreadable but seen in the photo of its move is credited to that move, and a cell seen in fewer
    photos than it is missed from its first sighting on is dropped as a false detection.
    """
    fixed = layout is not None
    reference = layout.start_tiles if layout is not None else Board()
    hint = IDENTITY
    occupied: list[set[Cell]] = []
    votes: dict[Cell, dict[Tile, float]] = defaultdict(lambda: defaultdict(float))
    for reading in readings:
        usable = Reading(
            reading.tiles, tuple(u for u in reading.uncertain if u.reason not in UNUSABLE_REASONS)
        )
        seen = observe(usable, reference, fixed=fixed, hint=hint)
        hint = seen.registration
        cells = set(seen.board) | set(seen.unknown)
        occupied.append({c for c in cells if layout is None or layout.contains(c)})
        for t in reading.tiles:
            votes[hint.cell(t.placed.cell)][t.placed.tile] += t.confidence
        reference = Board({**seen.board, **reference})
    n = len(readings)
    first: dict[Cell, int] = {}
    for cell in set().union(*occupied):
        occ = [cell in o for o in occupied]
        best, errors = None, sum(occ)  # never placed: every sighting is a false one
        seen_before = 0
        for k in range(n):
            if occ[k]:
                wrong = seen_before + sum(not o for o in occ[k:])  # sightings before, misses after
                if wrong < errors:
                    best, errors = k, wrong
            seen_before += occ[k]
        if best is not None:
            first[cell] = best
    identity = {cell: max(v.items(), key=lambda kv: kv[1])[0] for cell, v in votes.items() if v}
    if layout is not None:  # the printed start tiles are known whatever the photos show
        identity.update(layout.start_tiles)
        first.update(dict.fromkeys(layout.start_tiles, 0))
    boards, attention = [], []
    for k in range(n):
        boards.append(Board({c: identity[c] for c, j in first.items() if j <= k and c in identity}))
        attention.append(
            [
                f"something at ({r},{c}) could not be read in any photo"
                for (r, c), j in sorted(first.items())
                if j == k and (r, c) not in identity
            ]
        )
    return _Story(boards, attention)
