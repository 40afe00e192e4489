"""Grid geometry shared by the reader: the one place where ``(row, col)`` meets OpenCV's ``(x, y)``.

Everything in :mod:`vision` speaks ``(row, col)``: image points are float ``(row, col)`` pairs (pixel
centres at integers), grid cells are integer ``(row, col)`` pairs. OpenCV wants ``(x, y)``; the functions
here convert at that boundary and nowhere else.

A *cell homography* ``H`` (3×3, float64) maps a grid cell's centre ``(row, col, 1)`` to an image point
``(row, col, 1)`` (homogeneous). Both sides are in ``(row, col)`` order, so ``H`` is not the matrix OpenCV
would use; :func:`fit_homography` and :func:`apply_homography` hide the difference.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: Maps narrower than this are sampled as wider rows (:func:`remap`).
MAP_ROW = 128


def remap(image: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, border: int = 0) -> np.ndarray:
    """Sample ``image`` (bilinear) at the points ``(rows[i, j], cols[i, j])``: the output has the maps'
    shape (float32, at most 32767 rows), outside the image ``border``. OpenCV's ``cv2.remap`` wants
    the ``x`` (column) map first.

    Each output pixel depends on its own map entry only, so a narrow map (one row per patch row, 12 or
    16 pixels) is sampled with several of its rows side by side (MAP_ROW wide or more where its row
    count allows) and the output given back in the maps' shape: OpenCV's work per map row (converting
    it to fixed point, then sampling) is then shared by more pixels (a 12-pixel map of 299 patches took
    0.92 ms, laid 156 wide 0.60 ms), with the same pixels."""
    xs, ys = np.asarray(cols, np.float32), np.asarray(rows, np.float32)
    h, w = ys.shape
    group = _map_group(h, w)
    out = cv2.remap(
        image,
        xs.reshape(h // group, w * group),
        ys.reshape(h // group, w * group),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=border,
    )
    return np.asarray(out).reshape((h, w, *out.shape[2:]))


def _map_group(h: int, w: int) -> int:
    """How many rows of an h×w map :func:`remap` lays side by side: the fewest that make a row MAP_ROW
    wide or more and divide ``h`` (1, the map as it is, where none up to twice that many does)."""
    want = -(-MAP_ROW // max(w, 1))
    return next((g for g in range(want, 2 * want) if h % g == 0), 1)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(row, col)`` points (..., 2) through a 3×3 homography in ``(row, col)`` form."""
    p = np.asarray(points, dtype=np.float64)
    out = p @ h[:2, :2].T + h[:2, 2]
    w = p @ h[2, :2] + h[2, 2]
    return np.asarray(out / w[..., None])


def distances(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Distances (N, K) from each point (N, 2) to each of ``others`` (K, 2): the same bits as
    ``np.linalg.norm(points[:, None] - others[None], axis=2)`` (the two squares added in that order), a
    tenth of its cost (NumPy's reduction over an axis of two takes hundreds of instructions a pair)."""
    down = np.subtract(points[:, 0, None], others[:, 0], dtype=np.float64)
    across = np.subtract(points[:, 1, None], others[:, 1], dtype=np.float64)
    down *= down
    across *= across
    down += across
    return np.asarray(np.sqrt(down, out=down))


def chessboard(steps: np.ndarray) -> np.ndarray:
    """The larger size (N,) of each step's (N, 2) two coordinates: the same values as
    ``np.abs(steps).max(axis=1)``, cheaper."""
    return np.asarray(np.maximum(np.abs(steps[:, 0]), np.abs(steps[:, 1])))


def lengths(steps: np.ndarray) -> np.ndarray:
    """Lengths (...) of steps (..., 2): the same bits as ``np.linalg.norm(steps, axis=-1)``, cheaper."""
    down, across = steps[..., 0], steps[..., 1]
    return np.asarray(np.sqrt(down * down + across * across))


def fit_homography(
    src: np.ndarray, dst: np.ndarray, *, tolerance: float | None = None, spanning: bool = False
) -> np.ndarray:
    """The ``(row, col)``-form homography taking ``src`` (N, 2) to ``dst`` (N, 2), least squares.

    With fewer than 4 points, or points on one line, an affine similarity is fitted instead (which is what
    a camera nearly overhead gives anyway). ``tolerance`` (in ``dst`` units) turns on RANSAC. ``spanning``:
    the caller has made sure of at least 4 points with a :func:`spread` of 1 or more.
    """
    src = np.asarray(src, dtype=np.float64)
    dst = np.asarray(dst, dtype=np.float64)
    if spanning or (len(src) >= 4 and spread(src) >= 1.0):
        method = cv2.RANSAC if tolerance is not None else 0
        h, _ = cv2.findHomography(src[:, ::-1], dst[:, ::-1], method, tolerance or 3.0)
        if h is not None and np.isfinite(h).all() and abs(h[2, 2]) > 1e-12:
            swap = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
            return np.asarray(swap @ h @ swap / h[2, 2])
    return similarity(src, dst)


def similarity(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The least-squares rotation, uniform scale and shift taking ``src`` to ``dst`` (N ≥ 1), as a 3×3."""
    if len(src) == 1:
        return np.array([[1.0, 0, dst[0, 0] - src[0, 0]], [0, 1.0, dst[0, 1] - src[0, 1]], [0, 0, 1]])
    ms, md = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - ms, dst - md
    zs, zd = a[:, 0] + 1j * a[:, 1], b[:, 0] + 1j * b[:, 1]
    k = (np.conj(zs) @ zd) / max(float(np.vdot(zs, zs).real), 1e-12)
    m = np.array([[k.real, -k.imag], [k.imag, k.real]])
    t = md - m @ ms
    return np.array([[m[0, 0], m[0, 1], t[0]], [m[1, 0], m[1, 1], t[1]], [0, 0, 1]])


def spread(points: np.ndarray) -> float:
    """The smaller standard deviation of the points' principal axes (0 for collinear points)."""
    if len(points) < 3:
        return 0.0
    # np.cov(points.T)'s own steps, without its checks of weights and arguments (the same products)
    x = np.array(points.T, ndmin=2, dtype=np.result_type(points, np.float64))
    x -= x.mean(axis=1)[:, None]
    cov = np.dot(x, x.T.conj())
    cov *= np.true_divide(1, x.shape[1] - 1)
    return float(np.sqrt(max(np.linalg.eigvalsh(cov)[0], 0.0)))


def local_axes(h: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """The image vectors of one cell step down and one step right at ``cell`` (..., 2): shape (..., 2, 2)."""
    c = np.asarray(cell, dtype=np.float64)
    half_down, half_right = np.array([0.5, 0.0]), np.array([0.0, 0.5])
    down = apply_homography(h, c + half_down) - apply_homography(h, c - half_down)
    right = apply_homography(h, c + half_right) - apply_homography(h, c - half_right)
    return np.stack([down, right], axis=-2)


def cell_steps(points: np.ndarray, targets: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """The step (N, 2) in cells from each target (N, 2) to its point (N, 2), along its axes (N, 2, 2)."""
    return np.asarray(np.linalg.solve(axes.transpose(0, 2, 1), (points - targets)[..., None])[..., 0])


def cells_off(points: np.ndarray, targets: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Cells (N,) from each point (N, 2) to its target (N, 2), along the farther of its axes (N, 2, 2)."""
    return chessboard(cell_steps(points, targets, axes))


#: A narrow layout's homography is refitted (:func:`foreshortened`) through at least this many tiles
#: (twice the four a homography needs: fewer, through a row bent by drift, bend the far cells' axes)...
FORESHORTEN_POINTS = 8
#: ...spread at least this much (:func:`spread`, cells: more than one row or column).
FORESHORTEN_SPREAD = 0.25


def foreshortened(h: np.ndarray, cells: np.ndarray, centres: np.ndarray, *, within: float) -> np.ndarray:
    """The homography (3, 3) to cut a narrow layout's patches in: ``h`` refitted through its tiles
    ``cells`` (N, 2) float and their image ``centres`` (N, 2) where :func:`fit_homography` gave a
    similarity (a layout spread less than one cell; under a steep camera :mod:`vision.perspective` gives a
    similarity with the perspective of the spacing taken out), else ``h`` itself.

    A similarity has one scale, but a tilted camera foreshortens the table along its lean (by the cosine
    of the tilt: 0.82 at 35°), and the perspective of the spacing changes the scale across the picture,
    not along one direction more than the other. Patches cut in such a grid's axes come out stretched by
    up to 1/cos along one direction (1.22 at 35°), and their outlines no longer fit the symbols'. A
    homography through a narrow layout (two or three rows) still measures that foreshortening where it is
    over-determined (FORESHORTEN_POINTS, FORESHORTEN_SPREAD); it is kept only where it puts every tile
    ``within`` cells of its centre and turns no cell inside out. It gives the axes to cut in only: where a
    cell lies stays ``h``'s (through a narrow row bent by drift, the homography takes the bend for
    perspective and places the far cells worse than the similarity does).
    """
    if len(cells) < FORESHORTEN_POINTS or not FORESHORTEN_SPREAD <= spread(cells) < 1.0:
        return h
    fitted = fit_homography(cells, centres, spanning=True)
    return fitted if holds(fitted, h, cells, centres, within=within) else h


def holds(
    fitted: np.ndarray, grid: np.ndarray, cells: np.ndarray, centres: np.ndarray, *, within: float
) -> bool:
    """Whether the map ``fitted`` (3, 3) puts every tile on ``cells`` (N, 2) float within ``within`` cells
    of its image centre (N, 2) and turns no cell inside out against the grid's map ``grid`` (3, 3): what
    a map refitted through a layout's own tiles must keep to stand in for the grid's."""
    axes = local_axes(fitted, cells)
    if (np.linalg.det(axes) * np.linalg.det(local_axes(grid, cells)) <= 0).any():
        return False
    return bool((cells_off(centres, apply_homography(fitted, cells), axes) <= within).all())


def angle_of(h: np.ndarray, cell: np.ndarray) -> float:
    """Degrees the grid's row axis (the step ``col + 1``) is turned from the image's, at ``cell``."""
    right = local_axes(h, cell)[1]
    return math.degrees(math.atan2(right[0], right[1]))


def median(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)`` of a short array (N,) or (N, K), the same values: the middle one, or
    the mean of the two middle ones (NaN where a NaN is). Sorting a few dozen numbers in Python costs
    less than NumPy's call (other types than float64 go to it: it averages them in their own)."""
    a = np.asarray(values)
    if len(a) == 0 or a.dtype != np.float64:
        return np.asarray(np.median(a, axis=0))
    out = []
    for column in (a[:, None] if a.ndim == 1 else a).T.tolist():
        if any(map(math.isnan, column)):  # (no Python frame per value, as a generator would take)
            out.append(math.nan)
            continue
        column.sort()
        m = len(column) // 2
        out.append(column[m] if len(column) % 2 else (column[m - 1] + column[m]) / 2)
    return np.array(out[0] if a.ndim == 1 else out)


def quantile(values: np.ndarray, q: float) -> float:
    """``np.quantile(values, q)`` of a short float64 array (N,), its default (linear) method, the same value:
    sorted in Python as in :func:`median`, the two values around it weighted as NumPy weighs them (NaN where
    a NaN is; a zero's sign may differ where both 0.0 and -0.0 are among the values; other types, shapes
    and the ends go to NumPy)."""
    a = np.asarray(values)
    virtual = (len(a) - 1) * q
    if a.ndim != 1 or a.dtype != np.float64 or not 0 <= virtual < len(a) - 1:
        return float(np.quantile(a, q))
    v: list[float] = a.tolist()
    if any(math.isnan(x) for x in v):
        return math.nan
    v.sort()
    lower = math.floor(virtual)
    t = virtual - lower
    below, above = v[lower], v[lower + 1]
    step = above - below
    return above - step * (1 - t) if t >= 0.5 else below + step * t
