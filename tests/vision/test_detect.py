"""vision/detect.py: symbol candidates are paint ringed by a dark body, as wide one way as the other."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect import Blobs, _components, _Runs, find_blobs, lit_mask, strength
from vision.render import random_scene, render


def _table(*shapes: tuple[str, tuple[int, int], tuple[int, int]]) -> np.ndarray:
    """A light table with black tile bodies, each carrying one painted red shape."""
    image = np.full((240, 400, 3), (150, 160, 170), np.uint8)
    for kind, (row, col), (h, w) in shapes:
        cv2.rectangle(image, (col - 28, row - 28), (col + 28, row + 28), (28, 26, 28), -1)
        if kind == "ellipse":
            cv2.ellipse(image, (col, row), (w, h), 45, 0, 360, (30, 30, 170), -1)
        else:
            cv2.rectangle(image, (col - w, row - h), (col + w, row + h), (30, 30, 170), -1)
    return image


def test_a_flat_symbol_is_not_a_candidate() -> None:
    # a disc and a square on their tiles; a symbol seen edge-on (a cube's side face) is a flat ellipse,
    # here turned so that its bounding box is square
    image = _table(
        ("ellipse", (60, 60), (18, 18)), ("box", (60, 160), (15, 15)), ("ellipse", (60, 260), (5, 20))
    )
    blobs = find_blobs(strength(image))
    cols = sorted(round(c) for c in blobs.centres[:, 1])
    assert cols == [60, 160]


def test_paint_without_a_dark_rim_is_not_a_candidate() -> None:
    image = np.full((200, 300, 3), (150, 160, 170), np.uint8)
    cv2.circle(image, (150, 100), 18, (30, 30, 170), -1)  # painted straight on the table
    assert len(find_blobs(strength(image))) == 0


def test_typical_keeps_the_blobs_of_the_common_size() -> None:
    extents = np.array([30.0, 31, 29, 32, 30, 8, 60])  # a glint and the table through a hole
    blobs = Blobs(np.zeros((7, 2)), extents, extents**2)
    assert sorted(blobs.typical().extents.tolist()) == [29.0, 30.0, 30.0, 31.0, 32.0]


def test_rejects_a_colour_image() -> None:
    with pytest.raises(ValueError, match="2-D uint8"):
        find_blobs(np.zeros((10, 10, 3), np.uint8))


def _bright_table(grey: range) -> np.ndarray:
    """A bright table with five tiles carrying red discs; the bodies of those in ``grey`` lit grey."""
    image = np.full((240, 480, 3), 200, np.uint8)
    for i, col in enumerate((60, 140, 220, 300, 380)):
        row = 60 if i % 2 else 170
        body = (90, 90, 90) if i in grey else (28, 26, 28)
        cv2.rectangle(image, (col - 28, row - 28), (col + 28, row + 28), body, -1)
        cv2.circle(image, (col, row), 16, (30, 30, 170), -1)
    return image


def test_a_symbol_whose_body_passes_for_paint_stands_apart() -> None:
    # a grey-lit body passes for paint at PAINT_FRACTION of the local mean and joins its symbol to the
    # table (one blob as wide as the picture); at APART_FRACTION it does not
    blobs = find_blobs(strength(_bright_table(range(1, 4, 2))))
    assert sorted(round(c) for c in blobs.centres[:, 1]) == [60, 220, 380]
    assert sorted(round(c) for c in blobs.apart[:, 1]) == [140, 300]


def test_with_too_few_candidates_those_apart_are_candidates() -> None:
    # all five bodies lit grey: too few candidates for a grid to spoil, every symbol is one
    blobs = find_blobs(strength(_bright_table(range(5))))
    assert sorted(round(c) for c in blobs.centres[:, 1]) == [60, 140, 220, 300, 380]
    assert len(blobs.apart) == 0


def test_a_symbol_found_at_the_lower_threshold_is_not_also_apart() -> None:
    image = _table(("box", (60, 60), (15, 15)), ("box", (60, 160), (15, 15)), ("box", (160, 260), (15, 15)))
    blobs = find_blobs(strength(image))
    assert len(blobs) == 3 and len(blobs.apart) == 0
    assert len(blobs.take(np.array([True, False, True])).scaled(2.0)) == 2


def test_run_sums_are_opencvs_component_statistics() -> None:
    # the paint of a rendered table labelled as the detector labels it: the statistics summed over the
    # runs are OpenCV's own, to the last bit, and the second moments are the pixels' own sums
    scene = random_scene(seed=5, variant="classic", size=(240, 320), tiles=12, px_per_tile=40.0)
    q = strength(render(scene).image)
    paint = lit_mask(q)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(paint, connectivity=4)
    area, top, bottom, left, right = _Runs.of(labels).extents(n)
    assert n > 10
    # every label but the background's, 0
    assert np.array_equal(area[1:], stats[1:, cv2.CC_STAT_AREA])
    box = np.stack([left, top, right - left + 1, bottom - top + 1], axis=1)
    assert np.array_equal(box[1:], stats[1:, :4])
    runs = _Runs.of(labels)
    # read off the mask instead of the labels: the same runs
    masked = _Runs.of(labels, paint)
    for field in ("label", "row", "first", "last"):
        assert np.array_equal(getattr(runs, field), getattr(masked, field))
    sums = runs.sums(runs.label, n)
    assert np.array_equal(sums[1:, [1, 0]] / area[1:, None], centroids[1:])
    rows, cols = np.nonzero(np.ones_like(labels, bool))
    ids = labels.ravel()
    for k, v in enumerate((rows * rows, rows * cols, cols * cols), start=2):
        assert np.array_equal(sums[1:, k], np.bincount(ids, v.astype(np.float64), minlength=n)[1:])
    assert np.array_equal(
        np.bincount(runs.label, runs.totals(cv2.integral(q)), minlength=n)[1:],
        np.bincount(ids, q.ravel().astype(np.float64), minlength=n)[1:],
    )


def test_runs_paint_back_their_labels() -> None:
    # the runs of a rendered table's labels, painted back in their labels, are the label image again,
    # whole or within a box around some of them; a box without runs is all background
    scene = random_scene(seed=7, variant="classic", size=(240, 320), tiles=12, px_per_tile=40.0)
    paint = lit_mask(strength(render(scene).image))
    n, labels = cv2.connectedComponents(paint, connectivity=4)
    runs = _Runs.of(labels, paint)
    whole = (slice(0, 240), slice(0, 320))
    assert n > 10 and np.array_equal(runs.image(runs.label.astype(np.uint16), whole), labels)
    some = runs.take(runs.label % 3 == 1)
    box = some.box(2, labels.shape)
    expected = np.where(labels % 3 == 1, labels, 0)[box].astype(np.uint16)
    painted = some.image(some.label.astype(np.uint16), box)
    assert painted.dtype == np.uint16 and np.array_equal(painted, expected)
    none = runs.take(np.zeros(len(runs.label), bool))
    assert np.array_equal(none.image(np.ones(0, np.uint8), whole), np.zeros((240, 320), np.uint8))


def _opened(mask: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))


def _opencv_components(paint: np.ndarray) -> tuple[int, _Runs]:
    n, labels = cv2.connectedComponents(paint, connectivity=4)
    return n, _Runs.of(labels, paint)


def test_components_are_opencvs_4_connected_labels() -> None:
    # opened masks, dense and sparse, touching the border (where the opening leaves 2×2 corners), and a
    # rendered table's paint: the components found through 8-connected labelling are OpenCV's 4-connected
    # ones, run for run, in OpenCV's numbering
    rng = np.random.default_rng(3)
    masks = [
        _opened((rng.random((int(h), int(w))) < rng.uniform(0.3, 0.95)).astype(np.uint8))
        for h, w in rng.integers(3, 40, (400, 2))
    ]
    scene = random_scene(seed=5, variant="classic", size=(240, 320), tiles=12, px_per_tile=40.0)
    masks.append(_opened(lit_mask(strength(render(scene).image))))
    # squares touching only at their corners, down to the left and down to the right
    corners = np.zeros((12, 9), np.uint8)
    corners[0:3, 0:3] = corners[3:6, 3:6] = corners[3:6, 6:9] = corners[0:3, 6:9] = 1
    corners[6:9, 0:3] = corners[9:12, 3:6] = 1
    masks.append(corners)
    diagonal = 0
    for paint in masks:
        n, runs = _components(paint)
        expected_n, expected = _opencv_components(paint)
        assert n == expected_n
        for field in ("label", "row", "first", "last"):
            assert np.array_equal(getattr(runs, field), getattr(expected, field))
        diagonal += n > cv2.connectedComponents(paint, connectivity=8)[0]
    # the case the corner contacts make: 8-connected labelling alone would join components
    assert diagonal > 10


def test_components_beyond_16_bit_labels() -> None:
    # more components than 16-bit labels hold (OpenCV refuses them): labelled as 32-bit, the same runs
    paint = np.zeros((3 * 260, 3 * 260), np.uint8)
    for r in range(0, paint.shape[0], 3):
        paint[r, ::3] = 1
    n, runs = _components(paint)
    expected_n, expected = _opencv_components(paint)
    assert n == expected_n == 260 * 260 + 1
    for field in ("label", "row", "first", "last"):
        assert np.array_equal(getattr(runs, field), getattr(expected, field))
