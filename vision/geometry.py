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


def remap(image: np.ndarray, rows: np.ndarray, cols: np.ndarray, *, border: int = 0) -> np.ndarray:
    """Sample ``image`` (bilinear) at the points ``(rows[i, j], cols[i, j])``: the output has the maps'
    shape (float32, at most 32767 rows), outside the image ``border``. OpenCV's ``cv2.remap`` wants
    the ``x`` (column) map first."""
    return np.asarray(
        cv2.remap(
            image,
            np.asarray(cols, np.float32),
            np.asarray(rows, np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=border,
        )
    )


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(row, col)`` points (..., 2) through a 3×3 homography in ``(row, col)`` form."""
    p = np.asarray(points, dtype=np.float64)
    out = p @ h[:2, :2].T + h[:2, 2]
    w = p @ h[2, :2] + h[2, 2]
    return np.asarray(out / w[..., None])


def fit_homography(src: np.ndarray, dst: np.ndarray, *, tolerance: float | None = None) -> np.ndarray:
    """The ``(row, col)``-form homography taking ``src`` (N, 2) to ``dst`` (N, 2), least squares.

    With fewer than 4 points, or points on one line, an affine similarity is fitted instead (which is what
    a camera nearly overhead gives anyway). ``tolerance`` (in ``dst`` units) turns on RANSAC.
    """
    src = np.asarray(src, dtype=np.float64)
    dst = np.asarray(dst, dtype=np.float64)
    if len(src) >= 4 and spread(src) >= 1.0:
        method = cv2.RANSAC if tolerance is not None else 0
        h, _ = cv2.findHomography(src[:, ::-1], dst[:, ::-1], method, tolerance or 3.0)
        if h is not None and np.isfinite(h).all() and abs(h[2, 2]) > 1e-12:
            swap = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
            return np.asarray(swap @ h @ swap / h[2, 2])
    return similarity(src, dst)


def affine(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The least-squares affine map taking ``src`` to ``dst`` (N, 2), as a 3×3; a similarity below 3
    points or on one line."""
    if len(src) < 3 or spread(src) < 0.5:
        return similarity(src, dst)
    a = np.hstack([src, np.ones((len(src), 1))])
    m, *_ = np.linalg.lstsq(a, dst, rcond=None)
    return np.vstack([m.T, [0.0, 0, 1]])


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
    return float(np.sqrt(max(np.linalg.eigvalsh(np.cov(points.T))[0], 0.0)))


def local_axes(h: np.ndarray, cell: np.ndarray) -> np.ndarray:
    """The image vectors of one cell step down and one step right at ``cell`` (..., 2): shape (..., 2, 2)."""
    c = np.asarray(cell, dtype=np.float64)
    half_down, half_right = np.array([0.5, 0.0]), np.array([0.0, 0.5])
    down = apply_homography(h, c + half_down) - apply_homography(h, c - half_down)
    right = apply_homography(h, c + half_right) - apply_homography(h, c - half_right)
    return np.stack([down, right], axis=-2)


def angle_of(h: np.ndarray, cell: np.ndarray) -> float:
    """Degrees the grid's row axis (the step ``col + 1``) is turned from the image's, at ``cell``."""
    right = local_axes(h, cell)[1]
    return math.degrees(math.atan2(right[0], right[1]))
