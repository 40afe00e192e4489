"""A second look through a noise filter (calibration.denoise): how the two readings are put together, the
held-out score that decides it, and the calibration file that keeps it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration import Calibration, load, save
from calibration.denoise import _lined_up, denoised, held_out_shapes, named_through_filter
from table import PlacedTile, Tile, tileset
from vision import default_prototypes
from vision.features import Measurements, measure
from vision.learning import learn_prototypes
from vision.prototypes import painted_patches
from vision.reading import Reading, ReadTile, Uncertain

RED_CIRCLE, RED_SQUARE, BLUE_CLOVER = Tile("red", "circle"), Tile("red", "square"), Tile("blue", "clover")
#: cell (row, col) to image (row, col): 40 pixels a cell, turned a little, shifted
GRID = np.array([[39.0, 5.0, 300.0], [-5.0, 39.0, 200.0], [0.0, 0.0, 1.0]])


def _reading(
    tiles: dict[tuple[int, int], tuple[Tile, float]], unsure: dict[tuple[int, int], str], h: np.ndarray
) -> Reading:
    return Reading(
        tuple(ReadTile(PlacedTile(*cell, tile), conf) for cell, (tile, conf) in tiles.items()),
        tuple(Uncertain(*cell, why) for cell, why in unsure.items()),
        10.0,
        {"cell_to_image": h.tolist()},
    )


def test_the_plain_reading_places_and_the_filtered_one_names() -> None:
    plain = _reading(
        {
            (0, 0): (RED_CIRCLE, 0.95),  # the same through the filter: kept
            (0, 1): (RED_CIRCLE, 0.95),  # another tile through the filter: uncertain
            (0, 2): (RED_SQUARE, 0.4),  # a guess the filter confirms: read
            (0, 3): (RED_SQUARE, 0.4),  # a guess the filter does not confirm: uncertain
            (0, 4): (BLUE_CLOVER, 0.9),  # not found through the filter: kept
            (0, 5): (BLUE_CLOVER, 0.9),  # uncertain through the filter: uncertain
        },
        # named through the filter / not / not, as its colour was in doubt (the filter does not change it)
        {(1, 0): "occluded", (1, 1): "blur", (1, 2): "low-confidence"},
        GRID,
    )
    # the filtered reading's cells have another origin (its grid found another first tile)
    moved = GRID @ np.array([[1.0, 0, 2], [0, 1, -3], [0, 0, 1]])
    filtered = _reading(
        {
            (-2, 3): (RED_CIRCLE, 0.9),
            (-2, 4): (RED_SQUARE, 0.99),
            (-2, 5): (RED_SQUARE, 0.8),
            (-2, 6): (RED_CIRCLE, 0.8),
            (-1, 3): (BLUE_CLOVER, 0.7),
            (5, 5): (BLUE_CLOVER, 0.99),  # only the filtered reading found it: not added
            (-1, 5): (RED_SQUARE, 0.95),
        },
        {(-2, 8): "low-confidence"},
        moved,
    )
    both = named_through_filter(plain, filtered)
    assert {t.placed.cell: t.placed.tile for t in both.tiles} == {
        (0, 0): RED_CIRCLE,
        (0, 2): RED_SQUARE,
        (0, 4): BLUE_CLOVER,
        (1, 0): BLUE_CLOVER,
    }
    assert {(u.row, u.col): u.reason for u in both.uncertain} == {
        (0, 1): "low-confidence",
        (0, 3): "low-confidence",
        (0, 5): "low-confidence",
        (1, 1): "blur",
        (1, 2): "low-confidence",
    }
    assert both.geometry == plain.geometry and both.elapsed_ms == 20.0


def test_readings_whose_grids_do_not_line_up_are_not_put_together() -> None:
    plain = _reading({(0, 0): (RED_CIRCLE, 0.3), (0, 1): (RED_SQUARE, 0.9)}, {(0, 2): "blur"}, GRID)
    half_a_cell_off = GRID @ np.array([[1.0, 0, 0.5], [0, 1, 0], [0, 0, 1]])
    filtered = _reading({(0, 0): (RED_CIRCLE, 0.9), (0, 2): (RED_SQUARE, 0.9)}, {}, half_a_cell_off)
    for other in (filtered, replace(filtered, geometry={})):
        both = named_through_filter(plain, other)  # the plain reading, its guess uncertain
        assert [t.placed for t in both.tiles] == [PlacedTile(0, 1, RED_SQUARE)]
        assert [(u.row, u.col, u.reason) for u in both.uncertain] == [
            (0, 0, "low-confidence"),
            (0, 2, "blur"),
        ]


def test_cells_past_a_seam_where_the_maps_part_are_left_out_and_the_rest_line_up() -> None:
    # the filtered reading's cells in the plain one's: past a seam (the last two) the maps part by half a cell
    off = np.array([[0.02, -0.03], [0.01, 0.05], [-0.04, 0.0], [0.03, 0.47], [0.0, -0.51]])
    near = _lined_up(off)
    assert near is not None and near.tolist() == [True, True, True, False, False]
    # most cells off: the grids do not line up
    assert _lined_up(off[2:]) is None
    assert _lined_up(np.zeros((0, 2))) is None


def test_the_filter_keeps_a_symbols_edge_and_takes_single_pixels_off() -> None:
    image = np.zeros((40, 40, 3), np.uint8)
    image[10:30, 10:30] = 200
    noisy = image.copy()
    noisy[5, 5] = noisy[20, 20] = (90, 90, 90)
    out = denoised(noisy)
    assert out.shape == image.shape and out.dtype == np.uint8
    assert (out[5, 5] == 0).all() and (out[20, 20] == 200).all()  # the odd pixels are gone
    assert (out[10, 12:28] == 200).all() and (out[9, 12:28] == 0).all()  # the edge stays where it was


@pytest.fixture(scope="module")
def painted() -> tuple[Measurements, list[Tile]]:
    stack, every = painted_patches(tileset("classic"))
    return measure(np.concatenate([stack, stack[::-1]])), every + every[::-1]


def test_held_out_shapes_names_each_tile_by_what_the_others_teach(
    painted: tuple[Measurements, list[Tile]],
) -> None:
    measured, tiles = painted

    def learn(m: Measurements, t: list[Tile]) -> object:
        return learn_prototypes([(m, t)], tileset=tileset("classic"))

    right, log_p = held_out_shapes(measured, tiles, learn)  # type: ignore[arg-type]
    assert right == len(tiles)  # the painted model, every tile twice: each named by its twin
    assert -0.1 < log_p <= 0.0


def test_the_file_keeps_the_filtered_prototypes(tmp_path: Path) -> None:
    protos = default_prototypes(tileset("classic"))
    shifted = replace(protos, colours={**protos.colours, "red": protos.colours["red"] + 1.0})
    back = load(save(Calibration("classic", protos, filtered=shifted), tmp_path / "cal.json"))
    assert back.filtered is not None
    assert np.allclose(back.filtered.colours["red"], protos.colours["red"] + 1.0, atol=1e-3)
    assert load(save(Calibration("classic", protos), tmp_path / "plain.json")).filtered is None
