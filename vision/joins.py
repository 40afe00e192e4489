"""Joining the separate groups of a layout to the grid its largest group was given
(:func:`vision.lattice.fit_lattice`).

Each other group is grown from its own root (:mod:`vision.spanning_tree`) and shifted to agree with
where the points placed so far put it: a group next to them by where their map predicts it
(:func:`vision.shifts.near_shift`, checked by :func:`vision.shifts.checked_shift`), a group across a
wide gap by one rigid grid with them (:func:`vision.shifts.rigid_shift`). Points are ``(row, col)``
pixels, cells ``(row, col)`` integers.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import (
    apply_homography,
    chessboard,
    distances,
    fit_homography,
    median,
    similarity,
    spread,
)
from vision.shifts import OFF_GRID, checked_shift, lands_on, near_shift, rigid_shift
from vision.spanning_tree import NEIGHBOURS, Near, grow

#: A point of a joined group this far (cells) from where the placed points put it is left for a later
#: group of its own: its group's own tree went astray there.
JOIN_MISFIT = 0.45
#: A group further than this many cells from the placed ones is joined by a rigid fit (:func:`rigid_shift`).
FAR = 3.0
#: A far group of fewer points joins only where one shift fits it clearly (never by the fallback to the
#: prediction), and only beside at least NEIGHBOURS placed points: one or two tiles fit a grid
#: extrapolated that far at some whole shift by chance (under a steep camera, rendered Connect boards show
#: it), and a homography through a few placed points bends to take them a cell off.
FAR_GROUP = 3


def join_groups(  # noqa: PLR0917 (the lattice's state, passed along as it is)
    pts: np.ndarray,
    d: np.ndarray,
    cells: np.ndarray,
    placed: np.ndarray,
    theta: float,
    pitch: float,
    usable: np.ndarray,
    neighbours: Near,
    maps: dict[int, tuple[np.ndarray, np.ndarray] | None],
    *,
    square: bool,
    seamed: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Give the points of other groups cells, nearest group first, each grown from its own root and
    shifted (:func:`near_shift`) to agree with where the groups placed so far put it (:func:`_predict`,
    which keeps its homography in ``maps`` while no point is added). ``seamed``: the points are the
    layout's with the seams found taken out: the layout is not taken as one regular grid (a seam not
    found may lie between a far group and the placed points)."""
    cells, placed = cells.copy(), placed.copy()
    taken = {(r, c) for r, c in cells[placed].tolist()}
    pending = ~placed & usable
    seam = seamed  # whether a near group lay between whole cells: the layout is not one regular grid
    while pending.any():
        rest, done = np.nonzero(pending)[0], np.nonzero(placed)[0]
        # the pending point nearest to a placed one starts the next group
        j = int(rest[np.argmin(d[np.ix_(rest, done)].min(axis=1))])
        group = connected(neighbours, j, pending)
        far = float(d[np.ix_(group, done)].min()) > FAR * pitch
        # a group next to the placed points is grown from the point closest to them: the join is decided
        # where it touches them (a far group is fitted whole, grown from its best-connected point)
        start = int(np.searchsorted(group, j))
        root = None if far else start
        sub = (pts[group], d[np.ix_(group, group)], theta, pitch, usable[group], _within(neighbours, group))
        sub_cells, sub_placed = grow(*sub, root, square=square)
        mine = sub_cells[sub_placed]
        frac = _predict(pts, cells, placed, group[sub_placed], pitch, maps) - mine
        # across a wide gap (a hand between two parts of the layout) the map is extrapolated far: the
        # group must fit one rigid grid with the placed points, and at one shift only
        predicted = None  # the group's shift as the placed points' map predicts it
        if far:
            agree = np.ones(len(frac), bool)
            predicted = np.asarray(np.round(median(frac)), np.int64)
            # one or two tiles join only by a clear fit, and only beside a well-determined grid
            small = len(frac) < FAR_GROUP
            offset = None
            if not small or len(done) >= NEIGHBOURS:
                group_pts = pts[group[sub_placed]]
                fits = rigid_shift(
                    pts[done], cells[done], group_pts, mine, frac, fallback=not small, one_grid=not seam
                )
                offset = None if fits is None or lands_on(mine + fits, taken) else fits
        else:
            # only the points that agree with the root (within OFF_GRID) join with it: where the others
            # disagree, the group's own tree went astray (a seam, a tile pushed askew)
            agree = chessboard(frac - frac[int(np.searchsorted(np.flatnonzero(sub_placed), start))])
            agree = agree <= OFF_GRID
            middle = median(frac[agree])
            seam |= bool(np.abs(middle - np.round(middle)).max() > OFF_GRID)
            predicted = near_shift(frac[agree], mine[agree], taken)
            # the map extrapolated from the placed points chose the shift; the group's own spacing and
            # the placed points around it must not say it lies elsewhere
            offset = None
            if predicted is not None:
                offset = checked_shift(
                    pts[done], cells[done], pts[group[sub_placed]][agree], mine[agree], predicted, taken
                )
        misfit = chessboard(frac - offset) if offset is not None else np.full(len(frac), np.inf)
        if offset is not None and predicted is not None and (offset != predicted).any():
            # the grid through the group and the placed points (around it; for a far group, all of them)
            # chose another shift than the map: it put every point it was fitted to within RIGID_OTHER
            # (a far group's: RIGID_FIT) of its cell, however far the map extrapolated across the gap
            misfit[agree] = 0.0
        misfit[~agree] = np.inf
        fitting = np.nonzero(sub_placed)[0][misfit <= JOIN_MISFIT]
        if offset is not None and len(fitting):
            moved = (sub_cells[fitting] + offset).tolist()
            for k, (r, c) in zip(group[fitting].tolist(), moved, strict=True):
                if (r, c) not in taken:  # a point that finds its cell taken stays unplaced
                    cells[k] = (r, c)
                    taken.add((r, c))
                    placed[k] = True
        # what did not fit is tried again as a group of its own unless nothing fitted; a near group's
        # points beyond its tree's reach (past a seam inside the group) are tried again in any case
        pending[group if far else group[sub_placed]] = False
        if placed[group].any():
            pending[group[~placed[group]]] = True
    return cells, placed


def _predict(  # noqa: PLR0917 (the lattice's state, passed along as it is)
    pts: np.ndarray,
    cells: np.ndarray,
    placed: np.ndarray,
    which: np.ndarray,
    pitch: float,
    maps: dict[int, tuple[np.ndarray, np.ndarray] | None],
) -> np.ndarray:
    """Fractional cells of the points ``which`` (a group) as the placed points see them: through a
    homography once they cover an area (a tilted camera's perspective carries across a gap), else
    through a similarity fitted to the dozen nearest to the group (a homography or an affine map fitted
    to a thin line of tiles extrapolates wildly sideways).
    ``maps`` holds the homography and its inverse (None: no homography) by the number of placed points
    (points are only ever added, so an equal number is the same points)."""
    done = np.nonzero(placed)[0]
    if len(done) not in maps:
        src = cells[done].astype(np.float64)
        h = None
        if len(done) >= 6 and spreads(cells[done], 1.5):
            h = fit_homography(src, pts[done], tolerance=0.3 * pitch, spanning=True)
        maps.clear()
        maps[len(done)] = None if h is None else (h, np.linalg.inv(h))
    fitted = maps[len(done)]
    if fitted is not None:
        return apply_homography(fitted[1], pts[which])
    gap = distances(pts[done], pts[which]).min(axis=1)
    local = done[np.argsort(gap)[:NEIGHBOURS]]
    h = similarity(cells[local].astype(np.float64), pts[local])
    return apply_homography(np.linalg.inv(h), pts[which])


def spreads(cells: np.ndarray, least: float) -> bool:
    """Whether :func:`~vision.geometry.spread` of the cells (N, 2) int is ``least`` or more: told from
    exact integer sums where the answer is clear by a millionth of the covariance's trace (the
    eigenvalue NumPy computes lies far closer than that to the exact one), else by ``spread`` itself.

    The smaller eigenvalue of a symmetric 2×2 ``[[a, b], [b, c]]`` is ``(a + c - √((a - c)² + 4b²)) / 2``,
    so it is at least ``k`` exactly where ``a + c - 2k ≥ 0`` and ``(a + c - 2k)² ≥ (a - c)² + 4b²``; the
    covariance times ``n(n - 1)`` has whole entries, and so has the test scaled by the denominators."""
    n = len(cells)
    if n < 3:
        return spread(cells) >= least
    c = np.asarray(cells, np.int64)
    sr, sc = c.sum(axis=0).tolist()
    (srr, src), (_, scc) = (c.T @ c).tolist()
    a, b, e = n * srr - sr * sr, n * src - sr * sc, n * scc - sc * sc  # the covariance times n(n - 1)
    pairs, trace, disc = n * (n - 1), a + e, (a - e) ** 2 + 4 * b * b
    p, q = least.as_integer_ratio()
    # k·n(n - 1) for k = least² ± (trace / n(n - 1) + 1) / 10⁶, times q²·10⁶: whole numbers
    scale, margin = q * q * 10**6, q * q * (trace + pairs)
    for k, above in ((p * p * pairs * 10**6 + margin, True), (p * p * pairs * 10**6 - margin, False)):
        room = scale * trace - 2 * k
        at_least = room >= 0 and room * room >= scale * scale * disc
        if at_least == above:
            return above
    return spread(np.asarray(cells, np.float64)) >= least


def connected(neighbours: Near, start: int, allowed: np.ndarray) -> np.ndarray:
    """Indices (ascending) connected to ``start`` through allowed points, each a neighbour of the last
    (:func:`vision.lattice._neighbours`)."""
    ok = allowed.tolist()
    seen = {start}
    frontier = seen
    while frontier:
        frontier = {k for i in frontier for _, k in neighbours[i] if ok[k]} - seen
        seen |= frontier
    return np.array(sorted(seen), np.intp)


def _within(neighbours: Near, group: np.ndarray) -> Near:
    """The neighbours (:func:`vision.lattice._neighbours`) of the points ``group`` (ascending indices)
    among themselves, numbered by their place in ``group``."""
    members = group.tolist()
    place = {k: n for n, k in enumerate(members)}
    return [[(dist, place[k]) for dist, k in neighbours[g] if k in place] for g in members]
