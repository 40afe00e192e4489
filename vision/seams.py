"""Seams in a layout: a straight gap between two rows (or two columns) of tiles, running across the whole
layout, taken out of the points before the grid is fitted (:func:`vision.lattice.fit_lattice`), as
:mod:`vision.perspective` takes out a steep camera.

A layout pushed together in two parts keeps each part's spacing, but leaves a gap of a fraction of a cell
between them. A step across that gap measures ``1 + g`` cells, and for ``g`` near a half it is rounded
the wrong way as often as not: whole groups were then put a cell off, or left out. Along a seam every
step across it measures the same ``1 + g`` (a step over an empty cell ``2 + g``), while no step across it
measures one cell; so a seam is found as a line that the long steps all cross and the one-cell steps
never do, and the points past it are moved back by the gap. Points are ``(row, col)`` pixels.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import median
from vision.spanning_tree import rotated_basis

#: A step across a seam measures this many cells along its axis, relative to the one-cell steps near it
#: (a gap shorter than a fifth of a cell is rounded right; two cells, one tile missing, measure 2 give or
#: take a tenth as the scale changes across the layout); a step over an empty cell and across a seam, one
#: cell more. Where the tiles beside a seam leave holes, the steps over them are most of what crosses it.
SEAM_STEP = (1.18, 1.75)
#: Pairs of points this many cells apart or closer are the steps measured (two cells and a gap of SEAM_STEP).
REACH = 2.8
#: A step this many cells or less off its axis (or off one cell across it) counts as a step along it.
ACROSS = 0.3
#: Steps shorter than this (cells) are one-cell steps.
UNIT = 1.12
#: One-cell steps this many cells or nearer a step measure its local cell.
LOCAL = 2.5
#: Fewer steps than this across a line do not make it a seam.
MIN_STEPS = 3
#: The steps across a seam measure its gap alike: their spread (cells, robust) is at most this.
SPREAD = 0.2
#: At most this many seams are taken out.
MOST = 4
#: A seam runs along the other axis: its slope (cells across per cell along) is at most this.
SLOPE = 0.15


def without_seams(
    pts: np.ndarray, d: np.ndarray, theta: float, pitch: float
) -> tuple[np.ndarray, int] | None:
    """The points with every seam found taken out: the points past a seam moved back by its gap.

    Parameters
    ----------
    pts : ndarray, shape (N, 2), float
        Symbol centres, ``(row, col)`` pixels.
    d : ndarray, shape (N, N), float
        Their distances, infinite for a point to itself and for points to leave out.
    theta : float
        The grid's column-axis angle, radians.
    pitch : float
        Pixels per cell.

    Returns
    -------
    (ndarray, int) or None
        The points (N, 2) and how many seams were taken out; None when no seam is found.
    """
    i, j = np.nonzero(np.triu(d < REACH * pitch, 1))
    if len(i) < MIN_STEPS:
        return None
    unturn = np.linalg.inv(rotated_basis(theta, pitch)).T
    out = pts.copy()
    found = 0
    for _ in range(MOST):
        # seams measured on the points with the seams found taken out: the steps across them are one cell
        # again, so they no longer take a one-cell step for part of another seam
        q = out @ unturn  # lattice coordinates, one cell a unit
        for axis in (0, 1):
            shift = _seam(out, q, i, j, axis)
            if shift is not None:
                past, gap = shift
                out[past] -= gap
                found += 1
                break
        else:
            break
    return (out, found) if found else None


def _seam(
    pts: np.ndarray, q: np.ndarray, i: np.ndarray, j: np.ndarray, axis: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The points past a seam across ``axis`` (N,) bool and its gap (2,) pixels, or None.

    ``q`` (N, 2) are the points ``pts`` (N, 2) in lattice coordinates (one cell a unit), ``i`` and ``j``
    (K,) the pairs of close points. A seam is the line, turned at most :data:`SLOPE` from the other axis,
    that at least :data:`MIN_STEPS` steps of :data:`SEAM_STEP` (or one cell more) cross and no one-cell
    step does; of such lines, the one the most steps cross; the lines are drawn through the middles of
    the one-cell steps across (a step over an empty cell has its middle in that cell, not on the seam).
    Every step across it, the longer ones too, must measure about the same gap beside its whole cells
    (:data:`SPREAD`).
    """
    step = q[j] - q[i]
    back = step[:, axis] < 0
    lo, hi = np.where(back, j, i), np.where(back, i, j)
    step[back] *= -1
    other = 1 - axis
    # side and diagonal steps: the part along the axis crosses the seam alike
    sideways = np.abs(step[:, other])
    along = (np.abs(sideways - np.round(sideways)) < ACROSS) & (sideways < 1.5) & (step[:, axis] > 0.6)
    lo, hi, step = lo[along], hi[along], step[along]
    unit = step[:, axis] < UNIT
    if unit.sum() < MIN_STEPS:
        return None
    mid = (q[lo] + q[hi]) / 2
    # each step measured against the one-cell steps near it (a tilted camera changes the scale)
    near = np.linalg.norm(mid[:, None, :] - mid[None, unit, :], axis=2) < LOCAL
    lengths = step[unit, axis]
    near[~near.any(axis=1)] = True  # a step with no one-cell step near it: all of them
    local = np.nanmedian(np.where(near, lengths, np.nan), axis=1)
    ratio = step[:, axis] / local
    # whole cells a step spans beside the gap it may cross: two from SEAM_STEP's least gap short of two (a
    # step over an empty cell)
    least = SEAM_STEP[0] - 1
    whole = np.where(ratio <= 2 - least, 1.0, 2.0)
    excess = ratio - whole
    seam = (excess >= least) & (excess <= SEAM_STEP[1] - 1)
    if seam.sum() < MIN_STEPS:
        return None
    # the seam's line: of the lines through one or two middles of long one-cell steps (along the other
    # axis), the one the most long steps cross while no one-cell step does
    one = seam & (whole == 1)
    v, u = mid[one, axis], mid[one, other]
    k, m = np.triu_indices(len(v))
    run = u[m] - u[k]
    apart = np.abs(run) >= 1
    slope = (v[m] - v[k]) / np.where(apart, run, 1.0) * apart  # through one middle: along the axis
    ok = (np.abs(slope) <= SLOPE) & (apart | (k == m))
    slope, offset = slope[ok], (v[k] - slope * u[k])[ok]
    side = q[None, :, axis] - (slope[:, None] * q[None, :, other] + offset[:, None])  # (lines, N)
    crossing = (side[:, lo] < 0) & (side[:, hi] > 0)
    score = np.where((crossing & unit).any(axis=1), -1, (crossing & seam).sum(axis=1))
    if len(score) == 0 or score.max() < MIN_STEPS:
        return None
    best = int(np.argmax(score))
    across, side = crossing[best] & seam, side[best]
    # every step across measures the same gap, the longer ones too
    gaps = excess[across]
    every = excess[crossing[best]]
    if 1.4826 * median(np.abs(every - median(every))) > SPREAD:
        return None
    px = pts[hi[across]] - pts[lo[across]]
    gap = np.median(px * (gaps / ratio[across])[:, None], axis=0)
    return side > 0, gap
