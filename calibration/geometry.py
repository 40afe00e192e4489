"""Geometry of the view: the table plane, the lens, the tile size and the play area.

* :func:`find_chessboard` and :func:`find_charuco` find a printed sheet lying on the table and fit the
  homography from image pixels to the sheet's millimetres (:class:`Plane`); a ChArUco sheet still works
  when tiles or a hand cover part of it.
* :func:`fit_lens` estimates the lens's radial distortion from one or more such views
  (:class:`Lens`); :func:`undistort` then straightens frames.
* :func:`geometry_from_reading` takes what the reader found in the calibration photo: the tile pitch in
  pixels, the grid's angle, the board-cell-to-image homography and, with a printed board, the play area.

Image points are ``(row, col)`` everywhere here; :func:`to_xy` and :func:`from_xy` are the one place where
they meet OpenCV's ``(x, y)``. :class:`Lens` holds OpenCV's own camera matrix and distortion vector (in its
``(x, y)`` form), since only OpenCV reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from table import Layout


def to_xy(points_rc: np.ndarray) -> np.ndarray:
    """OpenCV's ``(x, y)`` of ``(row, col)`` points, shape (..., 2) float32."""
    return np.ascontiguousarray(np.asarray(points_rc, np.float32)[..., ::-1])


def from_xy(points_xy: np.ndarray) -> np.ndarray:
    """``(row, col)`` of OpenCV's ``(x, y)`` points, shape (N, 2) float64."""
    return np.asarray(points_xy, np.float64).reshape(-1, 2)[:, ::-1].copy()


def apply_homography(h: np.ndarray, points_rc: np.ndarray) -> np.ndarray:
    """``(row, col)`` points (N, 2) through a 3×3 homography that maps homogeneous ``(row, col, 1)``."""
    p = np.asarray(points_rc, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ np.asarray(h, np.float64).T
    return np.asarray(q[:, :2] / q[:, 2:3])


@dataclass(frozen=True)
class Plane:
    """The table plane, from a sheet lying on it.

    Attributes
    ----------
    image_to_plane : ndarray, shape (3, 3)
        Image ``(row, col, 1)`` to sheet ``(row, col, w)`` in millimetres (squares when the square size
        is unknown).
    square_mm : float or None
        The sheet's square size.
    rms_px : float
        Root-mean-square distance, in image pixels, between the found corners and the fitted plane's.
    corners : int
        How many corners were found.
    """

    image_to_plane: np.ndarray
    square_mm: float | None
    rms_px: float
    corners: int

    def to_json(self) -> dict[str, Any]:
        return {
            "image_to_plane": np.round(self.image_to_plane, 10).tolist(),
            "square_mm": self.square_mm,
            "rms_px": round(self.rms_px, 4),
            "corners": self.corners,
        }


@dataclass(frozen=True)
class Lens:
    """Radial lens distortion in OpenCV's form: ``camera_matrix`` (3, 3) and ``distortion`` (5,)
    (k1, k2, p1, p2, k3), for frames of ``size`` (width, height); ``rms_px`` is the reprojection error."""

    camera_matrix: np.ndarray
    distortion: np.ndarray
    size: tuple[int, int]
    rms_px: float

    def to_json(self) -> dict[str, Any]:
        return {
            "camera_matrix": np.round(self.camera_matrix, 6).tolist(),
            "distortion": np.round(self.distortion, 8).tolist(),
            "size": list(self.size),
            "rms_px": round(self.rms_px, 4),
        }


@dataclass(frozen=True)
class Geometry:
    """What calibration knows about the view (every part optional).

    Attributes
    ----------
    pitch : float or None
        Image pixels per cell (one tile and its gap) at the middle of the tiles.
    angle : float or None
        Degrees the grid is turned, clockwise on screen.
    cell_to_image : ndarray, shape (3, 3), or None
        Cell centre ``(row, col, 1)`` of the known board to image ``(row, col)``, homogeneous.
    play_area : ndarray, shape (K, 2), or None
        The play area's outline in image ``(row, col)`` pixels (a printed board's four corners).
    plane : Plane or None
    lens : Lens or None
    """

    pitch: float | None = None
    angle: float | None = None
    cell_to_image: np.ndarray | None = None
    play_area: np.ndarray | None = None
    plane: Plane | None = None
    lens: Lens | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "pitch": None if self.pitch is None else round(self.pitch, 3),
            "angle": None if self.angle is None else round(self.angle, 3),
            "cell_to_image": None if self.cell_to_image is None else np.round(self.cell_to_image, 8).tolist(),
            "play_area": None if self.play_area is None else np.round(self.play_area, 2).tolist(),
            "plane": None if self.plane is None else self.plane.to_json(),
            "lens": None if self.lens is None else self.lens.to_json(),
        }


def _grey(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        shape = getattr(image, "shape", None)
        raise ValueError(f"image must be BGR or grey uint8, got {type(image).__name__} of shape {shape}")
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def fit_plane(image_rc: np.ndarray, plane_rc: np.ndarray, *, square_mm: float | None = None) -> Plane:
    """The homography from image points (N, 2) to their sheet positions (N, 2), both ``(row, col)``.

    ``square_mm`` only records the unit of ``plane_rc``.
    """
    src, dst = np.asarray(image_rc, np.float64), np.asarray(plane_rc, np.float64)
    if len(src) < 4 or src.shape != dst.shape:
        raise ValueError(f"need at least 4 matching points, got {len(src)} and {len(dst)}")
    h, _ = cv2.findHomography(src[:, ::-1], dst[:, ::-1], method=0)
    if h is None:
        raise ValueError("the points do not determine a plane (are they all on one line?)")
    swap = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
    h = swap @ h @ swap  # (x, y) form -> (row, col) form
    back = apply_homography(np.linalg.inv(h), dst)
    rms = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    return Plane(h / h[2, 2], square_mm, rms, len(src))


def find_chessboard(
    image: np.ndarray, *, inner: tuple[int, int], square_mm: float | None = None
) -> tuple[Plane, np.ndarray, np.ndarray]:
    """Find a chessboard sheet with ``inner`` = (rows, cols) inner corners and fit the table plane.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3) or (H, W), dtype uint8
        The photo (BGR or grey).
    inner : (int, int)
        Inner corners per column and per row of the printed chessboard (a 9×7-square sheet has (6, 8)).
    square_mm : float, optional
        The printed square's side; sheet coordinates are then millimetres, else squares.

    Returns
    -------
    plane : Plane
    image_rc, sheet_rc : ndarray, shape (N, 2)
        The corners found and their sheet positions (for :func:`fit_lens`).

    Raises
    ------
    ValueError
        The chessboard is not in the photo (or not all of it).
    """
    grey = _grey(image)
    rows, cols = inner
    found, corners = cv2.findChessboardCornersSB(grey, (cols, rows), flags=cv2.CALIB_CB_EXHAUSTIVE)
    if not found:
        raise ValueError(f"no chessboard with {rows}×{cols} inner corners in the photo (it must all show)")
    image_rc = from_xy(corners)
    unit = 1.0 if square_mm is None else float(square_mm)
    grid = np.array([(i, j) for i in range(rows) for j in range(cols)], np.float64) * unit
    return fit_plane(image_rc, grid, square_mm=square_mm), image_rc, grid


def charuco_board(
    squares: tuple[int, int], *, square_mm: float, marker_mm: float, dictionary: str = "DICT_4X4_50"
) -> Any:
    """OpenCV's ChArUco board of ``squares`` = (rows, cols) squares (``cv2.aruco.CharucoBoard``)."""
    rows, cols = squares
    names = getattr(cv2.aruco, dictionary, None)
    if names is None or not dictionary.startswith("DICT_"):
        raise ValueError(f"unknown ArUco dictionary {dictionary!r}")
    marks = cv2.aruco.getPredefinedDictionary(names)
    return cv2.aruco.CharucoBoard((cols, rows), float(square_mm), float(marker_mm), marks)


def find_charuco(
    image: np.ndarray,
    *,
    squares: tuple[int, int],
    square_mm: float,
    marker_mm: float,
    dictionary: str = "DICT_4X4_50",
) -> tuple[Plane, np.ndarray, np.ndarray]:
    """Find a ChArUco sheet (partly covered is fine) and fit the table plane in millimetres.

    Parameters are those of :func:`charuco_board`; returns as :func:`find_chessboard`.

    Raises
    ------
    ValueError
        Fewer than 6 of the sheet's corners were found.
    """
    grey = _grey(image)
    board = charuco_board(squares, square_mm=square_mm, marker_mm=marker_mm, dictionary=dictionary)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(grey)
    if ids is None or len(ids) < 6:
        found = 0 if ids is None else len(ids)
        raise ValueError(f"only {found} ChArUco corners found in the photo (need 6; is the sheet in view?)")
    xyz = board.getChessboardCorners()[ids.ravel()]
    sheet_rc = np.asarray(xyz[:, :2], np.float64)[:, ::-1]
    image_rc = from_xy(corners)
    return fit_plane(image_rc, sheet_rc, square_mm=square_mm), image_rc, sheet_rc


def fit_lens(views: Sequence[tuple[np.ndarray, np.ndarray]], size: tuple[int, int]) -> Lens:
    """Radial distortion (k1, k2) and focal length from sheet views, principal point at the centre.

    Parameters
    ----------
    views : sequence of (image_rc, sheet_rc)
        What :func:`find_chessboard` or :func:`find_charuco` return for each photo (one tilted view is
        enough for k1, k2; more views, turned differently, fit better).
    size : (int, int)
        Frame width and height.
    """
    if not views:
        raise ValueError("need at least one view of the sheet")
    objects = [np.c_[s[:, ::-1], np.zeros(len(s))].astype(np.float32) for _, s in views]
    points = [to_xy(i).reshape(-1, 1, 2) for i, _ in views]
    w, h = size
    f0 = float(max(w, h))
    start = np.array([[f0, 0, (w - 1) / 2], [0, f0, (h - 1) / 2], [0, 0, 1]], np.float64)
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K3
    )
    rms, matrix, dist, _, _ = cv2.calibrateCamera(objects, points, (w, h), start, np.zeros(5), flags=flags)
    return Lens(np.asarray(matrix), np.asarray(dist, np.float64).ravel()[:5], (w, h), float(rms))


def undistort(image: np.ndarray, lens: Lens) -> np.ndarray:
    """The frame with the lens's distortion removed (same size and camera matrix)."""
    h, w = image.shape[:2]
    if (w, h) != lens.size:
        raise ValueError(f"frame is {w}×{h} but the lens was calibrated on {lens.size[0]}×{lens.size[1]}")
    return cv2.undistort(image, lens.camera_matrix, lens.distortion)


def geometry_from_reading(
    found: dict[str, Any], *, to_known: np.ndarray | None = None, layout: Layout | None = None
) -> Geometry:
    """What a reading's ``geometry`` (:func:`vision.read_table`) says about the view.

    ``to_known`` (3×3) takes known-board cells to the reading's cells when they differ (a free table
    registered onto the known board); with ``layout``, the play area is its outline.
    """
    if not found:
        return Geometry()
    h = np.asarray(found["cell_to_image"], np.float64)
    if to_known is not None:
        h = h @ to_known
    area = None
    if layout is not None:
        corners = np.array(
            [
                [-0.5, -0.5],
                [-0.5, layout.cols - 0.5],
                [layout.rows - 0.5, layout.cols - 0.5],
                [layout.rows - 0.5, -0.5],
            ]
        )
        area = apply_homography(h, corners)
    return Geometry(float(found["pitch"]), float(found["angle"]), h / h[2, 2], area)


def chessboard_image(squares: tuple[int, int], *, square_px: int, margin_px: int = 0) -> np.ndarray:
    """A printable chessboard of ``squares`` = (rows, cols) squares, grey uint8 (white margin around)."""
    rows, cols = squares
    board = (np.indices((rows, cols)).sum(axis=0) % 2 == 0).astype(np.uint8) * 255
    board = np.kron(255 - board, np.ones((square_px, square_px), np.uint8))
    return np.pad(board, margin_px, constant_values=255)
