"""vision/perspective.py: a steep camera's perspective from the spacing of the points alone."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import apply_homography
from vision.perspective import Perspective, estimate_perspective


def _seen(cells: np.ndarray, g: tuple[float, float]) -> np.ndarray:
    """Cells 40 px apart around (400, 500) under the projective map ``u / (1 + g·u)``."""
    u = 40.0 * cells - 40.0 * cells.mean(axis=0)
    return np.asarray(u / (1 + u @ np.array(g))[:, None] + np.array([400.0, 500.0]))


def _nearest(points: np.ndarray) -> np.ndarray:
    d = np.linalg.norm(points[:, None] - points[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return np.asarray(d.min(axis=1))


BOARD = np.array([(r, c) for r in range(7) for c in range(9) if (r * 3 + c) % 4], np.float64)


def test_the_perspective_of_a_steep_camera_is_found_and_taken_out() -> None:
    g = (0.0012, -0.0004)  # the spacing changes by about 1.8 across the layout
    pts = _seen(BOARD, g)
    found = estimate_perspective(pts, _nearest(pts))
    assert found is not None
    assert np.allclose(found.g, g, atol=0.00015)
    flat = found.flatten(pts)
    steps = np.linalg.norm(flat[:, None] - flat[None], axis=2)[
        np.isclose(np.abs(BOARD[:, None] - BOARD[None]).sum(axis=2), 1)
    ]
    assert steps.max() / steps.min() < 1.1  # one size of tile again
    assert np.allclose(apply_homography(found.to_image(), flat), pts)


def test_a_camera_straight_overhead_has_none() -> None:
    pts = _seen(BOARD, (0.0, 0.0)) + np.random.default_rng(3).normal(0, 1.5, (len(BOARD), 2))
    assert estimate_perspective(pts, _nearest(pts)) is None


def test_too_few_points_estimate_nothing() -> None:
    pts = _seen(BOARD[:11], (0.0, 0.0025))  # two rows, the spacing halving along them
    assert estimate_perspective(pts, _nearest(pts)) is None
    assert estimate_perspective(pts, _nearest(pts), min_points=8) is not None


def test_points_left_out_do_not_count() -> None:
    pts = _seen(BOARD, (0.0012, -0.0004))
    near = _nearest(pts)
    near[: len(near) - 11] = np.inf
    assert estimate_perspective(pts, near) is None


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match=r"points must be \(N, 2\)"):
        estimate_perspective(np.zeros((5, 3)), np.zeros(5))


def test_the_middle_stays_put() -> None:
    tilt = Perspective(np.array([100.0, 200.0]), np.array([0.001, 0.002]))
    assert np.allclose(tilt.flatten(np.array([[100.0, 200.0]])), [[100.0, 200.0]])
