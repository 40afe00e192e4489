"""Fitting the grid the tiles lie on: which cell each symbol candidate is in, and where every cell is.

Tiles pushed together by hand keep a regular spacing locally but drift over a long line, sit a few
degrees askew, and come in separate groups. So cells are assigned *locally*: each candidate takes its
cell from an already placed neighbour, rounding the step between them in the neighbour's own local basis
(a spanning tree grown shortest step first, in the largest group of candidates:
:mod:`vision.spanning_tree`). Separate groups are then joined where the placed points put them, and only
where that is clear (:mod:`vision.shifts`); one homography through all the points finally predicts where
the empty cells are. Under a steep camera the grid is also fitted with the perspective taken out of the
points (:mod:`vision.perspective`), and kept where more points fit it; where no steep camera is seen, it
is also fitted with the trees' local bases kept square (drifting rows shear a refitted basis), kept alike.
Last, where the layout shows seams (gaps of a fraction of a cell between two rows or two columns, along
the whole layout), it is fitted with the seams taken out of the points (:mod:`vision.seams`).

The lattice's orientation comes from the directions between neighbouring candidates (modulo a quarter
turn) and its pitch from their spacing; neither is a constant. Points are ``(row, col)`` pixels, cells
``(row, col)`` integers with an arbitrary origin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import (
    apply_homography,
    chessboard,
    distances,
    fit_homography,
    local_axes,
    median,
    quantile,
    similarity,
)
from vision.joins import connected, join_groups, spreads
from vision.perspective import estimate_perspective
from vision.seams import without_seams
from vision.shifts import OFF_GRID
from vision.spanning_tree import Near, grow, rotated_basis

#: Without neighbours to measure, a tile is this many times its symbol's extent (classic symbols span
#: 0.55..0.9 of the face).
TILE_PER_SYMBOL = 1.35


@dataclass(frozen=True)
class Lattice:
    """The grid fitted to a set of points.

    Attributes
    ----------
    cells : ndarray, shape (N, 2), int64
        The cell of each input point; rows of ``placed`` False are points left out (two on one cell).
    placed : ndarray, shape (N,), bool
        Whether each input point got a cell of its own.
    homography : ndarray, shape (3, 3)
        Cell centre ``(row, col)`` to image point ``(row, col)``.
    pitch : float
        Pixels per cell near the middle of the points.
    angle : float
        Degrees the grid's column axis is turned from the image's (counter-clockwise seen on screen is
        negative: a grid turned so that its rows run down to the right has a positive angle).
    """

    cells: np.ndarray
    placed: np.ndarray
    homography: np.ndarray
    pitch: float
    angle: float

    def point(self, cells: np.ndarray) -> np.ndarray:
        """Image ``(row, col)`` of cell centres (..., 2)."""
        return apply_homography(self.homography, cells)

    def cell_of(self, points: np.ndarray) -> np.ndarray:
        """Fractional cells of image points (..., 2)."""
        return apply_homography(np.linalg.inv(self.homography), points)


def cell_keys(cells: np.ndarray) -> np.ndarray:
    """One integer per cell (..., 2) int, for set operations on arrays of cells (``np.isin``)."""
    c = np.asarray(cells, np.int64).reshape(-1, 2)
    return np.asarray(c[:, 0] * (1 << 32) + c[:, 1])


def among(cells: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Which ``cells`` (N, 2) int are among ``others`` (M, 2) int: ``np.isin`` of their
    :func:`cell_keys`, looked up in a table over the cells' bounding box (the probes' cells
    lie close together; sorting their keys, as ``np.isin`` does, costs more)."""
    if len(cells) == 0 or len(others) == 0:
        return np.zeros(len(cells), bool)
    lo = np.minimum(cells.min(axis=0), others.min(axis=0))
    rows, cols = (np.maximum(cells.max(axis=0), others.max(axis=0)) - lo + 1).tolist()
    if rows * cols > 1 << 20:
        return np.asarray(np.isin(cell_keys(cells), cell_keys(others)))
    table = np.zeros((rows, cols), bool)
    table[others[:, 0] - lo[0], others[:, 1] - lo[1]] = True
    return np.asarray(table[cells[:, 0] - lo[0], cells[:, 1] - lo[1]])


#: The eight cells around a cell, as (row, col) steps.
AROUND = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], np.int64)


def fit_lattice(
    points: np.ndarray,
    extents: np.ndarray,
    *,
    diagonal: bool = False,
    join: bool = True,
    seams: bool = True,
) -> Lattice:
    """Fit a grid to symbol centres.

    Parameters
    ----------
    points : ndarray, shape (N, 2), float
        Candidate symbol centres, ``(row, col)`` pixels, N ≥ 1.
    extents : ndarray, shape (N,), float
        Their sizes in pixels (used only when there are no neighbours to measure the pitch from).
    diagonal : bool
        Take the nearest neighbours to be diagonal ones (the printed start of Qwirkle Connect, where no two
        tiles touch along a side).
    join : bool
        Join the other groups to the first (False: only the first group, the largest group's
        spanning tree, gets cells).
    seams : bool
        Also fit the grid with the layout's seams taken out (:func:`_unseamed`): not for points that may
        lie off their tiles' middles (Herkle's shields: on fresh rendered Herkle frames a group went a cell
        off).

    Returns
    -------
    Lattice
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0:
        raise ValueError(f"points must have shape (N, 2) with N ≥ 1, got {pts.shape}")
    fallback = float(median(extents)) * TILE_PER_SYMBOL
    if len(pts) == 1:
        h = np.array([[fallback, 0, pts[0, 0]], [0, fallback, pts[0, 1]], [0, 0, 1.0]])
        return Lattice(np.zeros((1, 2), np.int64), np.ones(1, bool), h, fallback, 0.0)
    d = _distances(pts)
    # a fragment of a symbol (a glint, a split blob) sits closer to a bigger blob than tiles ever do
    spacing = float(median(d.min(axis=1)))
    big_first = np.argsort(-np.asarray(extents, dtype=np.float64), kind="stable")
    dropped = np.zeros(len(pts), bool)
    close = d < 0.5 * spacing
    for i in big_first[np.any(close, axis=1)[big_first]]:  # a point with nothing that close drops nothing
        if not dropped[i]:
            dropped |= close[i] & (extents <= extents[i])
    d[dropped, :] = d[:, dropped] = np.inf
    # the grid grown with local bases that follow the points wins, unless another fits more points and no
    # smaller a share of the points it places: under a steep camera the grid fitted on the points with the
    # perspective taken out, then that one with bases kept square; else the grid with bases kept square
    # (drifting rows shear a refitted basis step by step until a whole part is placed on diagonal cells,
    # while a cell is seen as a square turned and scaled, where no steep camera foreshortens it). Where
    # every usable point fits, none can win, and the others are not fitted.
    best = _fitted(pts, d, dropped, diagonal=diagonal, join=join)
    usable = int((~dropped).sum())
    if _fitting(best, pts) == usable:
        return best
    tilt = estimate_perspective(pts, d.min(axis=1))
    flat, e = pts, d
    if tilt is None:
        best = _better(best, _fitted(pts, d, dropped, diagonal=diagonal, join=join, square=True), pts)
    else:
        flat = tilt.flatten(pts)
        e = _distances(flat)
        e[dropped, :] = e[:, dropped] = np.inf
        for square in (False, True):
            if _fitting(best, pts) < usable:
                rectified = _fitted(
                    flat, e, dropped, diagonal=diagonal, join=join, back=tilt.to_image(), square=square
                )
                best = _better(best, rectified, pts)
    # last, the grid with the layout's seams taken out (of the points without the perspective, if any)
    if seams and not diagonal and _fitting(best, pts) < usable:
        best = _unseamed(best, pts, flat, e, dropped, join=join)
    return best


def _unseamed(
    best: Lattice, pts: np.ndarray, flat: np.ndarray, d: np.ndarray, dropped: np.ndarray, *, join: bool
) -> Lattice:
    """The grid fitted with the layout's seams taken out of the points ``flat`` (``pts`` without the
    perspective, if any; distances ``d``; :mod:`vision.seams`), where every point it places fits its one
    homography there, and they outnumber the points ``pts`` that fit ``best``'s by as many as the seams
    found; its homography is then refitted through ``pts`` themselves. Else ``best``."""
    pairs = _Pairs.of(d)
    theta, pitch = _orientation(flat, d, pairs)
    pitch = _refine_pitch(flat, pairs, theta, pitch)
    seams = without_seams(flat, d, theta, pitch)
    if seams is None:
        return best
    moved, found = seams
    e = _distances(moved)
    e[dropped, :] = e[:, dropped] = np.inf
    other = _fitted(moved, e, dropped, diagonal=False, join=join, seamed=True)
    # a point the seams leave off its cell shows a seam not found (a step across it rounded either way);
    # each seam is a line and a gap chosen to fit the points: it must bring one more point onto the grid
    b = _fitting(other, moved)
    if b < _fitting(best, pts) + found or b < other.placed.sum():
        return best
    return _through(other.cells, other.placed, pts, best.pitch)


def _better(lattice: Lattice, other: Lattice, pts: np.ndarray) -> Lattice:
    """``other`` where more of the points ``pts`` fit its one homography than ``lattice``'s, and no smaller
    a share of the points it places (a grid with wrong steps places many points that no one homography
    fits); else ``lattice``."""
    a, b = _fitting(lattice, pts), _fitting(other, pts)
    return other if b > a and b * lattice.placed.sum() >= a * other.placed.sum() else lattice


def _distances(pts: np.ndarray) -> np.ndarray:
    """Distances between the points (N, N), a point's to itself infinite."""
    d = distances(pts, pts)
    np.fill_diagonal(d, np.inf)
    return d


def _fitting(lattice: Lattice, pts: np.ndarray) -> int:
    """How many placed points lie within :data:`~vision.shifts.OFF_GRID` of their cells under the
    lattice's one homography."""
    off = chessboard(lattice.cell_of(pts) - lattice.cells)
    return int(((off < OFF_GRID) & lattice.placed).sum())


def _fitted(
    pts: np.ndarray,
    d: np.ndarray,
    dropped: np.ndarray,
    *,
    diagonal: bool,
    join: bool,
    back: np.ndarray | None = None,
    square: bool = False,
    seamed: bool = False,
) -> Lattice:
    """The grid through ``pts`` (distances ``d``, without the ``dropped`` fragments); ``back`` takes
    ``pts`` to the image when they are not in it; ``square``: the trees' local bases kept square
    (:func:`~vision.spanning_tree.grow`); ``seamed``: the points are the layout's with its seams taken out
    (:func:`vision.joins.join_groups`)."""
    pairs = _Pairs.of(d)
    theta, pitch = _orientation(pts, d, pairs)
    if diagonal:
        theta, pitch = theta + math.pi / 4, pitch / math.sqrt(2)
        theta -= math.pi / 2 if theta > math.pi / 4 else 0.0
    pitch = _refine_pitch(pts, pairs, theta, pitch)
    # the close pairs the trees step along and the groups are made of, listed once for every group
    near = _neighbours(d, d < 2.3 * pitch)
    root = _largest_group_root(pts, d, pitch, ~dropped, near)
    cells, placed = grow(pts, d, theta, pitch, ~dropped, near, root, square=square)
    maps: dict[int, tuple[np.ndarray, np.ndarray] | None] = {}
    if join:
        cells, placed = join_groups(
            pts, d, cells, placed, theta, pitch, ~dropped, near, maps, square=square, seamed=seamed
        )
    # the last group's prediction may have been fitted through exactly these points
    fitted = maps.get(int(placed.sum()))
    if fitted is None:
        return _through(cells, placed, pts, pitch, back=back)
    h = fitted[0] if back is None else back @ fitted[0]
    return _lattice(cells, placed, h)


def _through(
    cells: np.ndarray, placed: np.ndarray, pts: np.ndarray, pitch: float, *, back: np.ndarray | None = None
) -> Lattice:
    """The lattice of ``cells`` whose homography is fitted through the ``placed`` points ``pts``;
    ``back`` takes ``pts`` to the image when they are not in it."""
    # fit_homography's own test of the points' spread, told beforehand
    src, dst = cells[placed].astype(np.float64), pts[placed]
    if len(src) >= 4 and spreads(cells[placed], 1.0):
        h = fit_homography(src, dst, tolerance=0.3 * pitch, spanning=True)
    else:
        h = similarity(src, dst)
    return _lattice(cells, placed, h if back is None else back @ h)


def _lattice(cells: np.ndarray, placed: np.ndarray, h: np.ndarray) -> Lattice:
    """The lattice of ``cells`` under the homography ``h`` (cell to image), with its pitch and angle."""
    centre = cells[placed].mean(axis=0)
    axes = local_axes(h, centre)
    size = float(np.sqrt(abs(np.linalg.det(axes))))
    angle = math.degrees(math.atan2(axes[1, 0], axes[1, 1]))
    return Lattice(cells, placed, h, size, angle)


@dataclass(frozen=True)
class _Pairs:
    """The pairs of points ``i < j`` (K,) intp, in the order of ``np.nonzero(np.triu(mask, 1))``, with their
    distances (K,): the pairs closer than a limit are then a selection, not a new scan of the matrix."""

    i: np.ndarray
    j: np.ndarray
    dist: np.ndarray

    @staticmethod
    def of(d: np.ndarray) -> _Pairs:
        """The pairs of a distance matrix (N, N)."""
        i, j = np.triu_indices(len(d), 1)
        return _Pairs(i, j, d[i, j])

    def closer(self, limit: float) -> tuple[np.ndarray, np.ndarray]:
        """The pairs ``(i, j)`` closer than ``limit``."""
        keep = self.dist < limit
        return self.i[keep], self.j[keep]


def _orientation(pts: np.ndarray, d: np.ndarray, pairs: _Pairs) -> tuple[float, float]:
    """The grid's column-axis angle (radians, in (-π/4, π/4]) and a first pitch.

    The directions to close neighbours fix the axes modulo an eighth of a turn (side and diagonal
    neighbours agree on ``8φ``); of the two candidate axes, the true one has side neighbours at the
    shortest spacing (with another axis choice the side neighbours would be half-steps). Spacings are
    compared relative to each point's nearest neighbour, so that a tilted camera's changing scale does not
    make the diagonals on the near side look shorter than the sides on the far side.
    """
    own = d.min(axis=1)  # each point's nearest neighbour: the local scale (a tilted camera changes it)
    nearest = quantile(own, 0.25)
    i, j = pairs.closer(1.6 * nearest)
    step = pts[j] - pts[i]
    phi = np.arctan2(step[:, 0], step[:, 1])
    base = float(np.angle(np.exp(8j * phi).sum()) / 8)
    best: tuple[float, float, float] | None = None
    for theta in (base, base + math.pi / 4):
        off = np.angle(np.exp(4j * (phi - theta))) / 4
        side = np.abs(off) < math.radians(20)
        if side.any():
            relative = float(median(d[i[side], j[side]] / own[i[side]]))
            if best is None or relative < best[2] * 0.85:
                best = (theta, float(median(d[i[side], j[side]])), relative)
    theta, pitch = (best[0], best[1]) if best is not None else (base, nearest)
    return float(np.angle(np.exp(4j * theta)) / 4), pitch


def _refine_pitch(pts: np.ndarray, pairs: _Pairs, theta: float, pitch: float) -> float:
    unturn = np.linalg.inv(rotated_basis(theta, 1.0)).T  # image steps to lattice steps of one pixel
    raw = np.zeros((0, 2))
    for _ in range(3):
        i, j = pairs.closer(2.6 * pitch)
        if len(i) == 0:
            break
        if len(i) != len(raw):  # the pairs closer than a limit: as many as before, the same ones
            raw = np.asarray((pts[j] - pts[i]) @ unturn)
        steps = raw / pitch
        k = np.round(steps)
        good = (chessboard(steps - k) < 0.3) & ((k[:, 0] != 0) | (k[:, 1] != 0))
        if not good.any():
            break
        whole = k[good]
        pitch = float((whole * raw[good]).sum() / (whole * whole).sum())
    return pitch


def _neighbours(d: np.ndarray, near: np.ndarray) -> Near:
    """For each point, the points ``near`` it (ascending) with their distances."""
    i, k = np.nonzero(near)
    pairs = list(zip(d[i, k].tolist(), k.tolist(), strict=True))
    ends = np.cumsum(np.count_nonzero(near, axis=1)).tolist()
    return [pairs[start:end] for start, end in zip([0, *ends], ends, strict=False)]


def _largest_group_root(
    pts: np.ndarray, d: np.ndarray, pitch: float, usable: np.ndarray, neighbours: Near
) -> int:
    """The tree's root: in the largest group of usable points (the most constrained geometry, which the
    other groups are then joined to rather than it to them), the point with the most side or diagonal
    neighbours, then the one nearest the group's middle."""
    left = usable.copy()
    best = np.zeros(0, np.int64)
    while left.any():
        group = connected(neighbours, int(np.flatnonzero(left)[0]), left)
        left[group] = False
        if len(group) > len(best):
            best = group
    close = (d[np.ix_(best, best)] < 1.6 * pitch).sum(axis=1)
    middle = np.linalg.norm(pts[best] - median(pts[best]), axis=1)
    return int(best[np.lexsort((middle, -close))[0]])
