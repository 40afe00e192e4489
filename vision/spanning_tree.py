"""The spanning tree that gives each symbol candidate its cell: grown from a root, shortest steps first,
each new point taking its cell from a placed neighbour, the step rounded in that neighbour's own local
basis (:func:`grow`). Used by :func:`vision.lattice.fit_lattice` for the largest group and for each group
it joins. Points are ``(row, col)`` pixels, cells ``(row, col)`` integers with an arbitrary origin.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from vision.geometry import median
from vision.shifts import OFF_GRID

#: A tree step of two cells or more measured this much shorter (cells) leaves the cells between too little
#: room for their tiles: it may as well be one cell less and a gap (tiles never overlap).
ROOM = 0.2
#: How many placed points nearest to a new group (or to a point a long tree step reaches) place it.
NEIGHBOURS = 12

#: Per point, its neighbours closer than 2.3 pitches: (distance, index) pairs by ascending index.
Near = list[list[tuple[float, int]]]


def rotated_basis(theta: float, pitch: float) -> np.ndarray:
    """The image steps (columns: one row down, one column right) of a lattice turned ``theta``, 2×2."""
    c, s = math.cos(theta), math.sin(theta)
    return pitch * np.array([[c, s], [-s, c]])


def grow(  # noqa: PLR0917 (the tree's state, passed along as it is)
    pts: np.ndarray,
    d: np.ndarray,
    theta: float,
    pitch: float,
    usable: np.ndarray,
    neighbours: Near,
    root: int | None = None,
    *,
    square: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Cells by a spanning tree over the close pairs ``neighbours`` (:data:`Near`: those closer than 2.3
    pitches), grown from ``root`` (default: the best-connected point).

    Each placed point carries its own local basis (the image steps of one row and one column there),
    refitted to its placed neighbours: under a tilted camera the pitch and the axes change across the
    picture, and a basis that follows them keeps every step's rounding local. A point's basis is fitted
    when it first places another (to the neighbours placed when it was placed): many never do. The
    tree's state is kept in Python lists (a few dozen points: NumPy's per-call cost would dominate); the
    products whose rounding matters stay NumPy's (:class:`_Basis`).

    ``square``: each refitted basis is replaced by the nearest similarity (a cell seen as a square, turned
    and scaled). A tile's face is a square, but rows pushed askew of each other shear the steps to the
    neighbours, and a basis refitted to them passes its shear on, a fifth at a time, until a whole part
    of the layout is placed on diagonal cells (rendered Cubes frame 194 of seed 31: bases stretched 1.3 to
    1.7 at a camera tilted 8°).
    """
    n = len(pts)
    if root is None:
        # the point with the most side or diagonal neighbours, then the one nearest the middle
        close = (d < 1.6 * pitch).sum(axis=1)
        middle = np.linalg.norm(pts - median(pts), axis=1)
        root = int(np.lexsort((middle, -close, ~usable))[0])
    xy: list[list[float]] = pts.tolist()
    cells: list[tuple[int, int]] = [(0, 0)] * n
    placed = [False] * n
    rank = [n] * n  # when each point was placed (n: not yet)
    bases: list[_Basis | None] = [None] * n
    # the basis a placed point's own is refitted from (its parent's); the root's is fitted to its side
    # neighbours when it first places one (a root with no neighbours never does)
    parents: list[_Basis | None] = [None] * n
    taken: dict[tuple[int, int], int] = {(0, 0): root}
    placed[root] = True
    rank[root] = 0
    order = [root]  # the placed points
    doubtful: set[int] = set()  # points a long step left for lack of room: only a short one places them
    heap = [(dist, root, k) for dist, k in neighbours[root]]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        _, i, j = pop(heap)
        if placed[j]:
            continue
        parent = bases[i]
        if parent is None:
            if i == root:
                parent = _Basis(_root_basis(pts, d[root], root, rotated_basis(theta, pitch)).ravel().tolist())
            else:
                # fitted to the neighbours placed before it was
                fit = parents[i]
                assert fit is not None
                before = rank[i]
                near = [x for _, x in neighbours[i] if rank[x] < before]
                parent = _local_basis(xy, cells, near, i, fit, square=square)
            bases[i] = parent
        fr, fc = parent.solve(xy[j][0] - xy[i][0], xy[j][1] - xy[i][1])
        sr, sc = round(fr), round(fc)  # to even, as np.round
        if max(abs(fr - sr), abs(fc - sc)) > OFF_GRID:
            continue
        cell = (cells[i][0] + sr, cells[i][1] + sc)
        if cell in taken or sr == sc == 0:
            continue
        if max(abs(sr), abs(sc)) > 1:
            if j in doubtful:
                continue
            checked = _long_step(pts, d[j], cells, order, j, cell, (fr, fc))
            if checked is None:
                doubtful.add(j)  # another long step would measure the same gap
                continue
            if checked in taken:
                continue
            cell = checked
        cells[j] = cell
        placed[j] = True
        rank[j] = len(order)
        taken[cell] = j
        order.append(j)
        parents[j] = parent
        for dist, k in neighbours[j]:
            if not placed[k]:
                push(heap, (dist, j, k))
    return np.array(cells, np.int64).reshape(n, 2), np.array(placed, bool)


def _long_step(  # noqa: PLR0917 (the tree's state, passed along as it is)
    pts: np.ndarray,
    dist: np.ndarray,
    cells: list[tuple[int, int]],
    order: list[int],
    j: int,
    cell: tuple[int, int],
    step: tuple[float, float],
) -> tuple[int, int] | None:
    """The cell of point ``j`` (its distances ``dist``) reached by a tree step of more than one cell
    (``step``, fractional cells in the parent's basis, rounded to ``cell``), or None where it is not to be
    trusted.

    A long step multiplies any error of the parent's basis: under a steep camera the rows' spacing
    shrinks across the picture, drifting rows shear it. So where the placed points around ``j`` clearly
    put it on another cell (:func:`_local_cell`), theirs is taken. And a step measured more than ROOM
    short of its whole cells leaves too little room between for the tiles it skips (tiles never
    overlap): one cell less and a gap is as likely, and the point is left for a short step or a group.
    """
    local = _local_cell(pts, dist, cells, order, j)
    if local is not None and local != cell:
        return local
    return None if any(abs(f) < abs(round(f)) - ROOM for f in step) else cell


def _local_cell(
    pts: np.ndarray, dist: np.ndarray, cells: list[tuple[int, int]], order: list[int], j: int
) -> tuple[int, int] | None:
    """The cell an affine map fitted through the NEIGHBOURS placed points nearest to point ``j`` (its
    distances ``dist``) puts ``j`` on, where that is clear (within OFF_GRID); None where those points lie on
    one line or ``j`` lies further from any cell."""
    gaps = dist.tolist()
    near = sorted(order, key=gaps.__getitem__)[:NEIGHBOURS]  # a stable sort, as np.argsort's "stable"
    if len(near) < 3:
        return None
    whole = [cells[k] for k in near]
    src = np.array(whole, np.float64)
    # the means as NumPy's along the first axis: the whole sums exactly, the others in order
    mid_src = np.array([sum(r for r, _ in whole) / len(near), sum(c for _, c in whole) / len(near)])
    (rows, cols), *rest = pts[near].tolist()
    for r, c in rest:
        rows += r
        cols += c
    mid_dst = np.array([rows / len(near), cols / len(near)])
    src -= mid_src
    normal = src.T @ src
    det = normal[0, 0] * normal[1, 1] - normal[0, 1] * normal[1, 0]
    if det < 1e-9 * (normal[0, 0] + normal[1, 1]) ** 2:
        return None  # the placed points lie on one line
    # least squares: image step = m @ cell step (m: the two columns of image steps per row and column)
    m = _solve(normal, src.T @ (pts[near] - mid_dst)).T
    frac = _solve(m, pts[j] - mid_dst) + mid_src
    r, c = round(float(frac[0])), round(float(frac[1]))
    if max(abs(frac[0] - r), abs(frac[1] - c)) > OFF_GRID:
        return None
    return r, c


class _Basis:
    """A local basis (the image steps of one row and one column, 2×2, row-major ``flat``) and the steps
    it solves: ``m⁻¹ v`` in the closed form of :func:`_solve` (the adjugate's product is NumPy's, whose
    fused multiply-adds a plain Python form would not reproduce)."""

    __slots__ = ("adjugate", "flat")

    def __init__(self, flat: list[float]) -> None:
        self.flat = flat
        self.adjugate: tuple[np.ndarray, float] | None = None  # made when first used (a leaf never is)

    def solve(self, dr: float, dc: float) -> list[float]:
        if self.adjugate is None:
            a, b, c, e = self.flat
            self.adjugate = (np.array([[e, -b], [-c, a]]), a * e - b * c)
        m, det = self.adjugate
        r, c = (m @ np.array([dr, dc])).tolist()
        return [r / det, c / det]


def _root_basis(pts: np.ndarray, dist: np.ndarray, root: int, basis: np.ndarray) -> np.ndarray:
    """The root's own basis, fitted to the steps to its side neighbours (those within a third of a cell
    of one cell away under the lattice's global ``basis``): the tree starts in the local scale."""
    (a, b), (c, e) = basis.tolist()
    # the longer of its two steps (columns), as np.linalg.norm(basis, axis=0).max() gives it
    near = np.nonzero(dist < 1.3 * max(math.sqrt(a * a + c * c), math.sqrt(b * b + e * e)))[0]
    steps = pts[near] - pts[root]
    frac = _solve(basis, steps.T).T
    whole = np.round(frac)
    side = [
        n
        for n, ((fr, fc), (wr, wc)) in enumerate(zip(frac.tolist(), whole.tolist(), strict=True))
        if max(abs(fr - wr), abs(fc - wc)) < 0.35 and abs(wr) + abs(wc) == 1
    ]
    if len(side) < 2 or len({(abs(wr), abs(wc)) for wr, wc in whole[side].tolist()}) < 2:
        return basis
    fitted = _solve(whole[side].T @ whole[side], whole[side].T @ steps[side]).T
    (p, q), (u, v) = fitted.tolist()
    change = max(abs(p - a), abs(q - b), abs(u - c), abs(v - e))
    return fitted if change < 0.35 * max(abs(a), abs(b), abs(c), abs(e)) else basis


def _solve(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m⁻¹ v`` for a 2×2 ``m`` (v: (2,) or (2, K)), in closed form (np.linalg is slow on tiny systems)."""
    a, b, c, e = np.asarray(m, np.float64).ravel().tolist()
    det = a * e - b * c
    return np.asarray((np.array([[e, -b], [-c, a]]) @ v) / det)


def _local_basis(
    xy: list[list[float]], cells: list[tuple[int, int]], k: list[int], j: int, parent: _Basis, *, square: bool
) -> _Basis:
    """The basis at point ``j`` fitted to the steps to its placed neighbours ``k`` (least squares), or
    its parent's when they do not span both axes; kept only when it agrees with the parent's within a
    fifth."""
    if len(k) < 2:
        return parent
    rj, cj = cells[j]
    # the normal matrix of whole steps: whole numbers, its determinant exactly (0: collinear steps)
    dc = []
    a = b = e = 0
    for x in k:
        r, c = cells[x][0] - rj, cells[x][1] - cj
        dc.append((r, c))
        a += r * r
        b += r * c
        e += c * c
    if abs(a * e - b * b) < 0.5:
        return parent
    pj = xy[j]
    di = np.array([(xy[x][0] - pj[0], xy[x][1] - pj[1]) for x in k])
    # _solve's closed form, the normal matrix's entries as floats
    fa, fb, fe = float(a), float(b), float(e)
    det = fa * fe - fb * fb
    (p, q), (u, v) = (np.array([[fe, -fb], [-fb, fa]]) @ (np.array(dc, np.float64).T @ di)).tolist()
    new = [p / det, u / det, q / det, v / det]  # the fitted basis is the solution transposed
    if square:
        # the nearest similarity: a cell seen as a square turned and scaled (no shear, no stretch)
        p, q = (new[0] + new[3]) / 2, (new[1] - new[2]) / 2
        new = [p, q, -q, p]
    o = parent.flat
    change = max(abs(new[0] - o[0]), abs(new[1] - o[1]), abs(new[2] - o[2]), abs(new[3] - o[3]))
    return _Basis(new) if change / max(abs(o[0]), abs(o[1]), abs(o[2]), abs(o[3])) < 0.2 else parent
