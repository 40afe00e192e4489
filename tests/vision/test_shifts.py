"""vision/shifts.py: where a separately grown group joins the placed points, and when it is left out."""

from __future__ import annotations

import math

import numpy as np

from vision.geometry import apply_homography
from vision.shifts import fits_elsewhere, near_shift


def _points(cells: list[tuple[int, int]], *, angle: float, pitch: float, skew: float = 0.0) -> np.ndarray:
    """Image points of ``cells`` on a grid turned by ``angle`` degrees, seen with a little perspective."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    h = np.array([[pitch * c, pitch * s, 400.0], [-pitch * s, pitch * c, 500.0], [skew, 0.0, 1.0]])
    return apply_homography(h, np.array(cells, np.float64))


def test_a_shift_the_groups_own_spacing_contradicts_is_refused() -> None:
    # the group fits the placed points' grid cleanly one column from where it is offered
    block = [(r, c) for r in range(4) for c in range(4)]
    group = [(r, c) for r in range(2) for c in range(5, 8)]
    pts = _points(block + group, angle=6.0, pitch=40.0, skew=0.0005)
    cells = np.array(block)
    own = np.array(group) - (0, 5)
    taken = {(r, c) for r, c in block}
    args = (pts[: len(block)], cells, pts[len(block) :], own)
    assert not fits_elsewhere(*args, np.array([0, 5]), taken)
    assert fits_elsewhere(*args, np.array([0, 6]), taken)


def test_a_group_near_a_whole_shift_takes_it() -> None:
    frac = np.array([[0.1, 3.05], [-0.05, 2.9], [0.0, 3.1]])
    own = np.array([[0, 0], [0, 1], [1, 0]])
    assert near_shift(frac, own, {(0, 0), (0, 1), (0, 2)}).tolist() == [0, 3]


def test_a_group_half_a_cell_off_joins_on_the_side_it_touches_or_not_at_all() -> None:
    own = np.array([[0, 0], [1, 0]])
    frac = np.array([[0.0, 2.5], [0.0, 2.5]])  # between columns 2 and 3
    touching_left = {(0, 1), (1, 1)}  # tiles in column 1: column 2 touches them, column 3 does not
    assert near_shift(frac, own, touching_left).tolist() == [0, 2]
    apart = {(5, 9)}  # nothing on either side: halfway is a guess
    assert near_shift(frac, own, apart) is None
