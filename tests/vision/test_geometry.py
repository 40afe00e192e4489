"""vision/geometry.py: the fast forms give NumPy's values exactly (the reader's readings must not move)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.geometry import (
    apply_homography,
    chessboard,
    distances,
    fit_homography,
    lengths,
    median,
    quantile,
    remap,
    spread,
)


@pytest.mark.parametrize(("n", "k"), [(1, 1), (7, 30), (40, 3), (0, 5)])
def test_distances_lengths_and_chessboard_are_numpys_to_the_last_bit(n: int, k: int) -> None:
    rng = np.random.default_rng(n * 100 + k)
    points, others = rng.normal(0, 300, (n, 2)), rng.normal(0, 300, (k, 2))
    points[: n // 2] = np.round(points[: n // 2])  # whole pixels too, and a coordinate equal to another's
    steps = points[:, None] - others[None]
    assert np.array_equal(distances(points, others), np.linalg.norm(steps, axis=2))
    assert np.array_equal(lengths(steps), np.linalg.norm(steps, axis=2))
    assert np.array_equal(chessboard(points), np.abs(points).max(axis=1))
    whole = np.round(points).astype(np.int64)  # cells: integers
    assert np.array_equal(distances(whole, whole), np.linalg.norm(whole[:, None] - whole[None], axis=2))


@pytest.mark.parametrize("n", [1, 2, 3, 8, 9, 40, 71])
def test_median_is_numpys_to_the_last_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    for scale in (1e-3, 1.0, 1e4):
        values = rng.normal(size=(n, 2)) * scale
        assert np.array_equal(median(values), np.median(values, axis=0))
        assert np.array_equal(median(values[:, 0]), np.median(values[:, 0]))
        whole = np.round(values)  # ties and repeated values
        assert np.array_equal(median(whole), np.median(whole, axis=0))


def test_median_of_a_column_with_nan_is_nan_and_other_types_go_to_numpy() -> None:
    values = np.array([[1.0, 2.0], [math.nan, 3.0], [0.5, 4.0]])
    got = median(values)
    assert math.isnan(got[0]) and got[1] == 3.0
    small = np.array([1, 2, 3, 4], np.float32) / np.float32(3)
    assert median(small).dtype == np.median(small).dtype and median(small) == np.median(small)


@pytest.mark.parametrize("n", [2, 3, 8, 9, 40, 71])
def test_quantile_is_numpys_to_the_last_bit(n: int) -> None:
    rng = np.random.default_rng(n)
    for q in (0.25, 0.1, 0.5, 0.9, float(rng.random())):
        spaced, whole = rng.normal(size=n) * 1e3, np.round(rng.normal(size=n) * 3)  # ties, repeats
        for values in (spaced, whole, np.abs(spaced)):
            assert quantile(values, q) == float(np.quantile(values, q))
        far = np.abs(rng.normal(size=n))
        far[rng.integers(0, n, size=max(n // 3, 1))] = np.inf  # points with no neighbour
        with np.errstate(invalid="ignore"):  # NumPy warns where it weighs inf against inf
            got, want = quantile(far, q), float(np.quantile(far, q))
        assert got == want or (math.isnan(got) and math.isnan(want))


def test_quantile_with_nan_is_nan_and_the_ends_go_to_numpy() -> None:
    assert math.isnan(quantile(np.array([1.0, math.nan, 3.0]), 0.25))
    values = np.array([4.0, 1.0, 3.0])
    assert quantile(values, 0.0) == 1.0 and quantile(values, 1.0) == 4.0


def test_spread_is_the_covariances_smaller_axis() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        cells = rng.integers(-4, 5, size=(int(rng.integers(3, 30)), 2))
        for points in (cells, cells.astype(np.float64) * 37.3 + 0.1):
            want = float(np.sqrt(max(np.linalg.eigvalsh(np.cov(points.T))[0], 0.0)))
            assert spread(points) == want
    assert spread(np.array([[0, 0], [1, 1], [2, 2], [3, 3]])) == 0.0  # on one line
    assert spread(np.zeros((2, 2))) == 0.0


def test_a_homography_the_caller_knows_spans_an_area_is_the_same_fit() -> None:
    cells = np.array([[r, c] for r in range(4) for c in range(5)], np.float64)
    assert spread(cells) >= 1.0  # what spanning promises
    h = np.array([[40.0, 3.0, 100.0], [-2.0, 41.0, 200.0], [1e-4, 2e-4, 1.0]])
    points = apply_homography(h, cells)
    assert np.array_equal(
        fit_homography(cells, points, tolerance=2.0),
        fit_homography(cells, points, tolerance=2.0, spanning=True),
    )
    assert np.abs(apply_homography(fit_homography(cells, points, spanning=True), cells) - points).max() < 1e-3


#: map shapes as the reader cuts them: patches of 12, 16 and 32 pixels, table samples of 4, one wide map
MAPS = [(3588, 12), (2352, 16), (2272, 32), (324, 4), (97, 12), (9, 999)]


@pytest.mark.parametrize(("channels", "dtype"), [(3, np.uint8), (4, np.uint8), (1, np.float32)])
@pytest.mark.parametrize(("rows", "width"), MAPS)
def test_remap_of_a_narrow_map_laid_wider_is_opencvs_to_the_last_bit(
    channels: int, dtype: type, rows: int, width: int
) -> None:
    rng = np.random.default_rng(rows * width)
    image: np.ndarray = (rng.random((90, 120, channels)) * 255).astype(dtype).squeeze()
    # points in the image, off its edge and exactly on pixel centres
    ys = (rng.random((rows, width)) * 96 - 3).astype(np.float32)
    xs = (rng.random((rows, width)) * 126 - 3).astype(np.float32)
    ys[::5] = np.round(ys[::5])
    want = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    got = remap(image, ys, xs)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got, want)
