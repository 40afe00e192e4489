"""Seams in a layout (:mod:`vision.seams`): found from the steps across them, taken out before the grid."""

from __future__ import annotations

import math

import numpy as np

from vision.lattice import fit_lattice
from vision.seams import without_seams
from vision.spanning_tree import rotated_basis

PITCH = 40.0
THETA = math.radians(12.0)


def _layout(row_gap: float, col_gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Cells (N, 2) of a 7×8 layout with a few holes, and their image points (N, 2): rows 4 and beyond
    pulled ``row_gap`` cells away, columns 3 and beyond ``col_gap`` cells."""
    cells = np.array([(r, c) for r in range(7) for c in range(8) if (r * 5 + c * 3) % 7 != 0], np.float64)
    pulled = cells + np.stack([row_gap * (cells[:, 0] >= 4), col_gap * (cells[:, 1] >= 3)], axis=1)
    rng = np.random.default_rng(2)
    pts = pulled @ rotated_basis(THETA, PITCH).T + (200.0, 150.0) + rng.normal(0, 0.5, cells.shape)
    return cells, pts


def _distances(pts: np.ndarray) -> np.ndarray:
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return d


def _beside_holes(gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Cells (N, 2) of six rows by eight columns, column 3 empty but for its first row, and their points
    (N, 2) in pixels, the columns from 4 on pulled ``gap`` cells further (a seam beside holes)."""
    cells = np.array([(r, c) for r in range(6) for c in range(8) if c != 3 or r == 0], np.float64)
    pulled = cells + np.stack([np.zeros(len(cells)), gap * (cells[:, 1] >= 4)], axis=1)
    rng = np.random.default_rng(4)
    return cells, pulled @ rotated_basis(THETA, PITCH).T + (200.0, 150.0) + rng.normal(0, 0.5, cells.shape)


def _off_one_grid(points: np.ndarray, cells: np.ndarray) -> float:
    """How far (cells), at worst, the points (N, 2) lie from one regular grid through their cells (N, 2)."""
    steps = (points - points[0]) @ np.linalg.inv(rotated_basis(THETA, PITCH)).T
    return float(np.abs(steps - (cells - cells[0])).max())


def test_seams_are_taken_out_by_their_gaps() -> None:
    cells, pts = _layout(0.5, 0.45)
    found = without_seams(pts, _distances(pts), THETA, PITCH)
    assert found is not None
    moved, seams = found
    assert seams == 2
    # without the seams the points lie on one regular grid again
    assert _off_one_grid(moved, cells) < 0.08


def test_a_layout_without_seams_has_none() -> None:
    _, pts = _layout(0.0, 0.0)
    assert without_seams(pts, _distances(pts), THETA, PITCH) is None


def test_the_grid_steps_across_seams_as_one_cell() -> None:
    # a gap of half a cell: a step across it measures 1.5 cells and rounds either way
    cells, pts = _layout(0.5, 0.55)
    lattice = fit_lattice(pts, np.full(len(pts), 0.6 * PITCH))
    assert lattice.placed.all()
    assert np.array_equal(lattice.cells - lattice.cells[0], (cells - cells[0]).astype(np.int64))


def test_a_seam_beside_holes_is_found_by_the_steps_over_them() -> None:
    # column 3 holds one tile, in the first row: two one-cell steps cross the seam before column 4 (too
    # few to tell a seam), while the other rows step over the empty cell and across the gap at once (2.45
    # cells), as beside a layout's holes
    cells, pts = _beside_holes(0.45)
    found = without_seams(pts, _distances(pts), THETA, PITCH)
    assert found is not None
    moved, seams = found
    assert seams == 1
    assert _off_one_grid(moved, cells) < 0.08


def test_steps_over_an_empty_cell_without_a_gap_make_no_seam() -> None:
    # the same holes without a gap: the steps over the empty cell measure two cells, no seam
    _, pts = _beside_holes(0.0)
    assert without_seams(pts, _distances(pts), THETA, PITCH) is None
