"""vision/perspective.py: a steep camera's perspective from the spacing of the points alone."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import apply_homography, local_axes, similarity
from vision.perspective import Perspective, estimate_perspective, foreshortening, leftover_stretch


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


#: A table seen foreshortened by cos 35° along rows, turned 20°, 40 px a cell.
_TURN = np.radians(20.0)
_SEEN = (
    40.0
    * np.array([[np.cos(_TURN), -np.sin(_TURN)], [np.sin(_TURN), np.cos(_TURN)]])
    @ np.diag([np.cos(np.radians(35.0)), 1.0])
)


def _affine_view(cells: np.ndarray) -> np.ndarray:
    return np.asarray(cells @ _SEEN.T + np.array([300.0, 200.0]))


def test_an_affine_map_through_a_few_tiles_measures_the_foreshortening() -> None:
    cells = np.array([(0, 0), (0, 1), (1, 1), (1, 2), (0, 2)], np.float64)
    centres = _affine_view(cells)
    grid = similarity(cells, centres)  # what the grid of so few tiles is: one scale both ways
    found = foreshortening(grid, cells, centres, within=0.25)
    assert found is not None
    assert np.allclose(local_axes(found, cells), _SEEN.T[None], atol=1e-9)
    # the similarity's axes are stretched against the true ones
    s = np.linalg.svd(np.linalg.solve(_SEEN, local_axes(grid, cells)[0].T), compute_uv=False)
    assert s[0] / s[1] > 1.15


def test_tiles_on_one_line_or_a_homographys_worth_give_no_affine_map() -> None:
    row = np.array([(0, c) for c in range(5)], np.float64)
    assert foreshortening(similarity(row, _affine_view(row)), row, _affine_view(row), within=0.25) is None
    two = row[:2]
    assert foreshortening(similarity(two, _affine_view(two)), two, _affine_view(two), within=0.25) is None


def test_four_tiles_spread_a_cell_give_a_homography_through_them() -> None:
    cells = np.array([(0, 0), (0, 2), (2, 0), (2, 2), (1, 1)], np.float64)
    pts = _seen(cells, (0.002, 0.0))
    found = foreshortening(similarity(cells, pts), cells, pts, within=0.25)
    assert found is not None
    assert np.allclose(apply_homography(found, cells), pts, atol=1e-6)


def test_an_affine_map_must_hold_its_tiles_and_keep_the_grids_hand() -> None:
    cells = np.array([(0, 0), (0, 1), (1, 1), (1, 2)], np.float64)
    centres = _affine_view(cells)
    mirrored = similarity(cells, centres) @ np.diag([1.0, -1.0, 1.0])
    assert foreshortening(mirrored, cells, centres, within=0.25) is None
    block = np.array([(r, c) for r in range(2) for c in range(4)], np.float64)
    pushed = _affine_view(block)
    pushed[5] += 0.7 * 40.0  # a tile two thirds of a cell off the grid of the others
    assert foreshortening(similarity(block, pushed), block, pushed, within=0.25) is None
    assert foreshortening(similarity(block, pushed), block, _affine_view(block), within=0.25) is not None


def test_foreshortening_names_bad_input() -> None:
    with pytest.raises(ValueError, match="cells and centres"):
        foreshortening(np.eye(3), np.zeros((3, 2)), np.zeros((4, 2)), within=0.25)


def _stretched(outline: np.ndarray, along: float, by: float) -> np.ndarray:
    """The radial profile (RAYS,) of ``outline`` (a radial profile) stretched ``by`` along the direction
    ``along`` (radians from the column axis, turning towards the row axis), over its mean."""
    a = np.arange(len(outline)) * (2 * np.pi / len(outline))
    points = outline[:, None] * np.column_stack([np.cos(a - along), np.sin(a - along)])
    points[:, 0] *= by
    angle = (np.arctan2(points[:, 1], points[:, 0]) + along) % (2 * np.pi)
    order = np.argsort(angle)
    r = np.interp(a, angle[order], np.hypot(*points.T)[order], period=2 * np.pi)
    return np.asarray(r / r.mean())


def _shapes() -> list[np.ndarray]:
    """Radial profiles of a circle, a square and a diamond (64 rays)."""
    a = np.arange(64) * (2 * np.pi / 64)
    square = 1 / np.maximum(np.abs(np.cos(a)), np.abs(np.sin(a)))
    return [np.ones(64), square, 1 / (np.abs(np.cos(a)) + np.abs(np.sin(a)))]


def test_the_stretch_left_in_a_layouts_patches_is_found_from_its_symbols() -> None:
    along, by = np.radians(30.0), 1.2
    found = leftover_stretch(np.array([_stretched(s, along, by) for s in _shapes()]))
    assert found is not None
    u = np.array([np.sin(along), np.cos(along)])  # (row, col)
    assert u @ found @ u == pytest.approx(np.sqrt(by), abs=0.02)
    assert np.linalg.det(found) == pytest.approx(1.0, abs=1e-6)


def test_no_stretch_is_taken_out_of_square_enough_too_stretched_or_disagreeing_symbols() -> None:
    shapes = _shapes()
    assert leftover_stretch(np.array([_stretched(s, 0.5, 1.01) for s in shapes])) is None
    assert leftover_stretch(np.array([_stretched(s, 0.5, 1.6) for s in shapes])) is None
    assert leftover_stretch(np.array([_stretched(s, 0.5, 1.2) for s in shapes[:2]])) is None
    # three symbols stretched one way and two across it: no camera does that
    crossing = np.array(
        [_stretched(s, 0.0, 1.25) for s in shapes] + [_stretched(s, 1.6, 1.25) for s in shapes[:2]]
    )
    assert leftover_stretch(crossing, agreeing=0.5) is not None
    assert leftover_stretch(crossing) is None
