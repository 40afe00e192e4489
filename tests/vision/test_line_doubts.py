"""Tests for vision.line_doubts: a shape the photo leaves open that breaks a line is doubted."""

from __future__ import annotations

import dataclasses

import numpy as np

from table import Tile, tileset
from vision.classify import classify, shape_distance
from vision.features import Measurements, measure
from vision.line_doubts import EVEN, doubted
from vision.outline import RAYS
from vision.prototypes import default_prototypes, paint_patches
from vision.reader import MAX_FIT, MIN_CONFIDENCE

CLASSIC = default_prototypes(tileset("classic"))


def _measured(tiles: list[Tile]) -> Measurements:
    return measure(paint_patches(tiles, variant="classic", rng=np.random.default_rng(3), imperfection=0.3))


def _blurred_diamond(m: Measurements, i: int) -> Measurements:
    """``m`` with tile ``i``'s outline a diamond blurred round: its fourfold harmonic weaker, its eightfold
    one gone (tilt 35°, dim light, 40-50 px per tile)."""
    turn = np.arange(RAYS) * 2 * np.pi / RAYS
    radial = m.radial.copy()
    radial[i] = 1 + 0.097 * np.cos(4 * turn) + 0.001 * np.cos(8 * turn) + 0.005 * np.cos(12 * turn)
    return dataclasses.replace(m, radial=radial.astype(np.float32))


def _doubts(m: Measurements, cells: list[tuple[int, int]]) -> np.ndarray:
    named = classify(m, np.ones(3), CLASSIC)
    after = doubted(named, np.array(cells), m, CLASSIC, least=MIN_CONFIDENCE, max_fit=MAX_FIT)
    return np.asarray(after.shape_confidence < named.shape_confidence)


def test_a_blurred_diamond_fits_a_diamond_and_a_clover() -> None:
    m = _blurred_diamond(_measured([Tile("blue", "diamond")]), 0)
    names, distance = shape_distance(m, CLASSIC)
    named = classify(m, np.ones(3), CLASSIC)
    assert named.shapes == ["clover"] and named.confidence[0] >= MIN_CONFIDENCE
    assert distance[0, names.index("diamond")] <= MAX_FIT and distance[0, names.index("clover")] <= MAX_FIT


def test_a_name_the_photo_leaves_open_that_repeats_a_tile_in_its_line_is_doubted() -> None:
    tiles = [Tile("blue", "clover"), Tile("blue", "diamond"), Tile("blue", "circle")]
    m = _blurred_diamond(_measured(tiles), 1)
    named = classify(m, np.ones(3), CLASSIC)
    assert named.shapes == ["clover", "clover", "circle"]  # two blue clovers in one line: one is wrong
    after = doubted(
        named, np.array([(0, 0), (0, 1), (0, 2)]), m, CLASSIC, least=MIN_CONFIDENCE, max_fit=MAX_FIT
    )
    # the clover the photo shows clearly keeps its name; the blurred one is as near a diamond
    assert after.shape_confidence[0] == named.shape_confidence[0] and after.shape_confidence[1] <= EVEN
    assert after.confidence[1] < MIN_CONFIDENCE


def test_a_valid_line_or_a_clear_shape_is_not_doubted() -> None:
    tiles = [Tile("blue", "square"), Tile("blue", "diamond"), Tile("blue", "circle")]
    m = _blurred_diamond(_measured(tiles), 1)
    assert not _doubts(m, [(0, 0), (0, 1), (0, 2)]).any()  # blue square, clover, circle: a valid line
    # the same tiles apart: no line at all
    assert not _doubts(m, [(0, 0), (5, 5), (0, 2)]).any()
    # a clear clover beside a clear clover of its colour is an illegal line, read as it lies
    clear = _measured([Tile("blue", "clover"), Tile("blue", "clover")])
    assert not _doubts(clear, [(0, 0), (1, 0)]).any()


def test_every_line_is_judged_as_the_rules_judge_it() -> None:
    """The runs judged at once agree with the rules' own walk along each line through each tile."""
    from table.lines import AXES, line_ok, line_through
    from vision.line_doubts import _ids, _in_broken_line

    rng = np.random.default_rng(5)
    classic = tileset("classic")
    colours, shapes = list(classic.colours), list(classic.shapes)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        cells = {(int(r), int(c)) for r, c in rng.integers(0, 6, (n, 2))}
        tiles = {cell: Tile(colours[rng.integers(3)], shapes[rng.integers(3)]) for cell in cells}
        order = list(tiles)
        broken = _in_broken_line(
            np.array(order, np.int64).reshape(-1, 2),
            _ids([tiles[c].colour for c in order]),
            _ids([tiles[c].shape for c in order]),
        )
        walked = [
            not all(line_ok([tiles[c] for c in line_through(tiles, cell, axis)]) for axis in AXES)
            for cell in order
        ]
        assert broken.tolist() == walked
