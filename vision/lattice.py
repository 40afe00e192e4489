"""Fitting the grid the tiles lie on: which cell each symbol candidate is in, and where every cell is.

Tiles pushed together by hand keep a regular spacing locally but drift over a long line, sit a few
degrees askew, and come in separate groups. So cells are assigned *locally*: each candidate takes its
cell from an already placed neighbour, rounding the step between them in lattice units (a spanning tree
grown shortest step first), and only then is one homography fitted through all of them, for
perspective, to join separate groups and to predict where the empty cells are.

The lattice's orientation comes from the directions between neighbouring candidates (modulo a quarter
turn) and its pitch from their spacing; neither is a constant. Points are ``(row, col)`` pixels, cells
``(row, col)`` integers with an arbitrary origin.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import affine, apply_homography, fit_homography, local_axes

#: Without neighbours to measure, a tile is this many times its symbol's extent (classic symbols span
#: 0.55..0.9 of the face).
TILE_PER_SYMBOL = 1.35
#: A step between two candidates more than this far from whole cells does not place one from the other.
OFF_GRID = 0.3


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


def fit_lattice(points: np.ndarray, extents: np.ndarray, *, diagonal: bool = False) -> Lattice:
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

    Returns
    -------
    Lattice
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) == 0:
        raise ValueError(f"points must have shape (N, 2) with N ≥ 1, got {pts.shape}")
    fallback = float(np.median(extents)) * TILE_PER_SYMBOL
    if len(pts) == 1:
        h = np.array([[fallback, 0, pts[0, 0]], [0, fallback, pts[0, 1]], [0, 0, 1.0]])
        return Lattice(np.zeros((1, 2), np.int64), np.ones(1, bool), h, fallback, 0.0)
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    # a fragment of a symbol (a glint, a split blob) sits closer to a bigger blob than tiles ever do
    spacing = float(np.median(d.min(axis=1)))
    big_first = np.argsort(-np.asarray(extents, dtype=np.float64), kind="stable")
    dropped = np.zeros(len(pts), bool)
    for i in big_first:
        if not dropped[i]:
            dropped |= (d[i] < 0.5 * spacing) & (extents <= extents[i])
    if dropped.any():
        d[dropped, :] = np.inf
        d[:, dropped] = np.inf
    theta, pitch = _orientation(pts, d)
    if diagonal:
        theta, pitch = theta + math.pi / 4, pitch / math.sqrt(2)
        theta -= math.pi / 2 if theta > math.pi / 4 else 0.0
    pitch = _refine_pitch(pts, d, theta, pitch)
    cells, placed = _grow(pts, d, theta, pitch, ~dropped)
    cells, placed = _join(pts, d, cells, placed, theta, pitch, ~dropped)
    h = fit_homography(cells[placed].astype(np.float64), pts[placed], tolerance=0.3 * pitch)
    centre = cells[placed].mean(axis=0)
    axes = local_axes(h, centre)
    size = float(np.sqrt(abs(np.linalg.det(axes))))
    angle = math.degrees(math.atan2(axes[1, 0], axes[1, 1]))
    return Lattice(cells, placed, h, size, angle)


def _orientation(pts: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """The grid's column-axis angle (radians, in (-π/4, π/4]) and a first pitch.

    The directions to close neighbours fix the axes modulo an eighth of a turn (side and diagonal
    neighbours agree on ``8φ``); of the two candidate axes, the true one has side neighbours at the
    shortest spacing (with another axis choice the side neighbours would be half-steps).
    """
    nearest = float(np.quantile(d.min(axis=1), 0.25))
    i, j = np.nonzero(np.triu(d < 1.6 * nearest, 1))
    step = pts[j] - pts[i]
    phi = np.arctan2(step[:, 0], step[:, 1])
    base = float(np.angle(np.exp(8j * phi).sum()) / 8)
    best: tuple[float, float] | None = None
    for theta in (base, base + math.pi / 4):
        off = np.angle(np.exp(4j * (phi - theta))) / 4
        side = np.abs(off) < math.radians(12)
        if side.any():
            spacing = float(np.median(d[i[side], j[side]]))
            if best is None or spacing < best[1] * 0.85:
                best = (theta, spacing)
    theta, pitch = best if best is not None else (base, nearest)
    return float(np.angle(np.exp(4j * theta)) / 4), pitch


def _steps(step: np.ndarray, theta: float, pitch: float) -> np.ndarray:
    """Image steps (..., 2) in lattice units: (rows, cols)."""
    c, s = math.cos(theta), math.sin(theta)
    cols = (step[..., 0] * s + step[..., 1] * c) / pitch
    rows = (step[..., 0] * c - step[..., 1] * s) / pitch
    return np.stack([rows, cols], axis=-1)


def _refine_pitch(pts: np.ndarray, d: np.ndarray, theta: float, pitch: float) -> float:
    for _ in range(3):
        i, j = np.nonzero(np.triu(d < 2.6 * pitch, 1))
        if len(i) == 0:
            break
        raw = _steps(pts[j] - pts[i], theta, 1.0)
        k = np.round(raw / pitch)
        good = (np.abs(raw / pitch - k) < 0.3).all(axis=1) & (np.abs(k).sum(axis=1) > 0)
        if not good.any():
            break
        pitch = float((k[good] * raw[good]).sum() / (k[good] ** 2).sum())
    return pitch


def _grow(
    pts: np.ndarray, d: np.ndarray, theta: float, pitch: float, usable: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cells by a spanning tree over close pairs, grown from the best-connected point."""
    n = len(pts)
    cells = np.zeros((n, 2), np.int64)
    placed = np.zeros(n, bool)
    near = d < 2.3 * pitch
    # the root: the point with the most side or diagonal neighbours, then the one nearest the middle
    close = (d < 1.6 * pitch).sum(axis=1)
    middle = np.linalg.norm(pts - np.median(pts, axis=0), axis=1)
    root = int(np.lexsort((middle, -close, ~usable))[0])
    taken: dict[tuple[int, int], int] = {(0, 0): root}
    placed[root] = True
    heap = [(float(d[root, j]), root, int(j)) for j in np.nonzero(near[root])[0]]
    heapq.heapify(heap)
    while heap:
        _, i, j = heapq.heappop(heap)
        if placed[j]:
            continue
        frac = _steps(pts[j] - pts[i], theta, pitch)
        step = np.round(frac).astype(np.int64)
        if np.abs(frac - step).max() > OFF_GRID:
            continue
        cell = (int(cells[i, 0] + step[0]), int(cells[i, 1] + step[1]))
        if cell in taken or (step == 0).all():
            continue
        cells[j] = cell
        placed[j] = True
        taken[cell] = j
        for k in np.nonzero(near[j] & ~placed)[0]:
            heapq.heappush(heap, (float(d[j, k]), j, int(k)))
    return cells, placed


def _join(  # noqa: PLR0917 (the lattice's state, passed along as it is)
    pts: np.ndarray,
    d: np.ndarray,
    cells: np.ndarray,
    placed: np.ndarray,
    theta: float,
    pitch: float,
    usable: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Give the points of other groups cells, nearest group first, each grown from its own root and
    shifted to agree with an affine map fitted to the groups placed so far (perspective is refined
    later; between neighbouring groups an affine map is off by far less than half a cell)."""
    cells, placed = cells.copy(), placed.copy()
    taken = {(int(r), int(c)) for r, c in cells[placed]}
    pending = ~placed & usable
    while pending.any():
        inverse = np.linalg.inv(_map(pts, cells, placed, theta, pitch))
        rest = np.nonzero(pending)[0]
        # the pending point nearest to a placed one starts the next group
        j = int(rest[np.argmin(d[np.ix_(rest, np.nonzero(placed)[0])].min(axis=1))])
        group = _group(d, j, pending, 2.3 * pitch)
        sub_cells, sub_placed = _grow(pts[group], d[np.ix_(group, group)], theta, pitch, usable[group])
        # the whole-cell shift that best agrees with the map for the whole group
        frac = apply_homography(inverse, pts[group[sub_placed]]) - sub_cells[sub_placed]
        offset = np.round(np.median(frac, axis=0)).astype(np.int64)
        misfit = np.abs(frac - offset).max(axis=1)
        for k in np.nonzero(sub_placed)[0][misfit <= 2 * OFF_GRID]:
            c = (int(sub_cells[k, 0] + offset[0]), int(sub_cells[k, 1] + offset[1]))
            if c not in taken:  # a point that finds its cell taken stays unplaced
                cells[group[k]] = c
                taken.add(c)
                placed[group[k]] = True
        # what did not fit is tried again as a group of its own, unless nothing of this group fitted
        pending[group] = False
        if placed[group].any():
            pending[group[~placed[group]]] = True
    return cells, placed


def _map(pts: np.ndarray, cells: np.ndarray, placed: np.ndarray, theta: float, pitch: float) -> np.ndarray:
    """Cell to image map of the placed points: affine once they span a plane, else the lattice's own
    rotation and pitch through their mean."""
    src, dst = cells[placed].astype(np.float64), pts[placed]
    if placed.sum() >= 6:
        return affine(src, dst)
    c, s = math.cos(theta), math.sin(theta)
    a = pitch * np.array([[c, s], [-s, c]])
    t = dst.mean(axis=0) - a @ src.mean(axis=0)
    return np.array([[a[0, 0], a[0, 1], t[0]], [a[1, 0], a[1, 1], t[1]], [0, 0, 1.0]])


def _group(d: np.ndarray, start: int, allowed: np.ndarray, reach: float) -> np.ndarray:
    """Indices connected to ``start`` through allowed points closer than ``reach`` to each other."""
    seen = {start}
    todo = [start]
    while todo:
        i = todo.pop()
        for k in np.nonzero((d[i] < reach) & allowed)[0]:
            if int(k) not in seen:
                seen.add(int(k))
                todo.append(int(k))
    return np.array(sorted(seen), np.int64)
