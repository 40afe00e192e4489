"""vision/paint_checks.py: whether what a probe sees is a tile's paint, and the table's colour."""

from __future__ import annotations

import cv2
import numpy as np

from vision.features import measure
from vision.lattice import fit_lattice
from vision.paint_checks import SIDE_SQUASH, pure, squash, table_colour, unlike, without_table
from vision.patches import PATCH

FELT = (40, 110, 40)


def test_the_table_colour_is_read_two_cells_from_the_tiles() -> None:
    # three tiles on green felt, cells 40 pixels wide; one more tile two cells off is outvoted
    work = np.full((400, 400, 3), FELT, np.uint8)
    centres = np.array([[200.0, 200.0], [160.0, 200.0], [200.0, 160.0], [120.0, 120.0]])
    for y, x in centres.astype(int):
        cv2.rectangle(work, (x - 18, y - 18), (x + 18, y + 18), (30, 30, 30), -1)
        cv2.circle(work, (x, y), 10, (30, 200, 230), -1)
    grid = fit_lattice(centres[:3], np.full(3, 20.0))
    table = table_colour(work, grid, grid.cells[grid.placed])
    assert table is not None and np.allclose(table, FELT, atol=2)


def test_paint_of_the_table_colour_is_not_taken_for_a_symbol() -> None:
    # the felt itself, a yellow symbol, the felt in a tile's shade
    paint = np.array([[42.0, 108.0, 41.0], [30.0, 200.0, 230.0], [20.0, 55.0, 20.0]])
    assert unlike(paint, np.array(FELT, np.float64)).tolist() == [False, True, False]


def test_paint_is_pure_where_the_symbols_middle_shows_its_colour() -> None:
    blue = np.array([200.0, 90.0, 30.0])
    patch = np.zeros((2, 32, 32, 3), np.uint8)
    patch[:, 8:24, 8:24] = blue.astype(np.uint8)
    # the first patch's paint measured as itself; the second's mixed with an orange neighbour's
    mixed = (blue + np.array([40.0, 140.0, 230.0])) / 2
    found = pure(patch, np.array([blue, mixed]))
    assert found.tolist() == [True, False]


def test_a_symbol_squashed_as_on_a_cube_side_face_is_told_from_a_whole_one() -> None:
    # a yellow disc on a black body, and the same disc seen on a side face under a 35° camera (squashed
    # to tan 35° of its width along the lean): only the second is squashed past SIDE_SQUASH
    patches = np.full((2, PATCH, PATCH, 3), 25, np.uint8)
    middle = (PATCH // 2, PATCH // 2)
    radius = PATCH // 4
    cv2.circle(patches[0], middle, radius, (30, 200, 230), -1)
    cv2.ellipse(
        patches[1], middle, (radius, round(radius * np.tan(np.radians(35.0)))), 0, 0, 360, (30, 200, 230), -1
    )
    squashed = squash(measure(patches))
    assert squashed[0] < SIDE_SQUASH <= squashed[1], squashed


def test_paint_is_pure_where_the_middle_shows_the_colour_blind_mark() -> None:
    # the colour-blind edition's inner mark shows the black body in the symbol's middle: only the lit
    # pixels there are compared with the paint measured
    orange = np.array([40.0, 140.0, 230.0])
    patch = np.full((1, 32, 32, 3), 25, np.uint8)
    cv2.circle(patch[0], (16, 16), 11, orange.tolist(), -1)
    cv2.rectangle(patch[0], (14, 14), (17, 17), (25, 25, 25), -1)
    assert pure(patch, orange[None]).tolist() == [True]


def test_the_table_past_a_tiles_body_is_painted_out() -> None:
    # a yellow disc on a black body whose patch shows the white table along two sides; the same with the
    # table in the middle (a hole in the layout) shows the table there
    table = np.array([200.0, 205.0, 210.0])
    patches = np.full((2, 32, 32, 3), 25, np.uint8)
    patches[:, :4] = patches[:, :, :4] = table.astype(np.uint8)
    cv2.circle(patches[0], (17, 17), 8, (30, 200, 230), -1)
    cv2.rectangle(patches[1], (10, 10), (24, 24), table.tolist(), -1)
    cleaned, bare = without_table(patches, table)
    assert bare.tolist() == [True, False]
    assert cleaned[0, :4].max() < 40 and cleaned[0, :, :4].max() < 40
    assert np.array_equal(cleaned[0, 10:24, 10:24], patches[0, 10:24, 10:24])
