"""vision/occlusion.py: a hand over the table makes the cells it covers `occluded`; a table does not."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
import pytest

from table import tileset
from table.codec import board_from_json
from table.register import register
from vision import read_table
from vision.lattice import fit_lattice
from vision.occlusion import covered_cells
from vision.reading import Reading
from vision.render import Rendered, random_scene, render

EASY: dict[str, object] = {
    "light": "neutral",
    "tilt": 0.0,
    "px_per_tile": 50.0,
    "blur": 0.4,
    "noise": 1.0,
    "jpeg_quality": 95,
}


@cache
def _read(seed: int, *, hand: float, table: str) -> tuple[Rendered, Reading]:
    scene = random_scene(
        seed=seed,
        variant="classic",
        size=(600, 800),
        tiles=24,
        hand=hand,
        table=table,
        **EASY,
    )
    out = render(scene)
    return out, read_table(out.image, tileset=tileset("classic"))


def _occluded(reading: Reading) -> set[tuple[int, int]]:
    return {(u.row, u.col) for u in reading.uncertain if u.reason == "occluded"}


def test_cells_under_a_hand_are_reported_occluded() -> None:
    out, reading = _read(1, hand=1.0, table="green-felt")
    hidden = {(u["row"], u["col"]) for u in out.truth["uncertain"] if u["reason"] == "occluded"}
    motion = register(board_from_json(out.truth, where="truth"), reading.board)
    reported = set(motion.cells(_occluded(reading)))
    assert len(reported & hidden) >= 5
    assert len(reported - hidden) <= len(reported) // 4  # mostly where the hand really is


@pytest.mark.parametrize("table", ["cloth-pattern", "light-wood", "white-laminate"])
def test_a_table_alone_covers_nothing(table: str) -> None:
    _, reading = _read(2, hand=0.0, table=table)
    assert reading.tiles and not _occluded(reading)


def test_an_arm_leaving_the_picture_past_the_last_cells_in_view_is_a_cover() -> None:
    # two rows of tiles on light wood, cells 40 pixels wide; an arm comes in through the bottom edge, which
    # lies a quarter of a cell below the last row of cells in view: that row is at the frame's edge, and
    # the cell under the arm next to the tiles is covered
    work = np.full((400, 400, 3), (120, 160, 190), np.uint8)
    centres = []
    for y in (90, 130):
        for x in range(90, 331, 40):
            cv2.rectangle(work, (x - 18, y - 18), (x + 18, y + 18), (30, 30, 30), -1)
            cv2.circle(work, (x, y), 9, (30, 200, 230), -1)
            centres.append((y, x))
    cv2.rectangle(work, (185, 150), (235, 399), (140, 160, 230), -1)
    points = np.array(centres, np.float64)
    grid = fit_lattice(points, np.full(len(points), 18.0))
    cells = grid.cells[grid.placed]
    covered = covered_cells(work, grid, cells, np.ones(3))
    under = grid.cell_of(np.array([[170.0, 210.0]]))[0].round().astype(int)
    assert covered.tolist() == [under.tolist()]
