"""calibration/geometry.py: the table plane from a chessboard or ChArUco sheet rendered and warped with a
known homography, the lens from a synthetically distorted view, and the geometry of a reading."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.geometry import (
    apply_homography,
    charuco_board,
    chessboard_image,
    find_charuco,
    find_chessboard,
    fit_lens,
    geometry_from_reading,
    undistort,
)
from table import connect_layout

SIZE = (480, 640)  # rows, cols


def _warp(sheet: np.ndarray, sheet_rc: np.ndarray, image_rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sheet (grey) pasted into a SIZE photo so that its points ``sheet_rc`` land on ``image_rc``;
    returns the BGR photo and the sheet-pixel -> image homography in (row, col) form."""
    h_xy = cv2.getPerspectiveTransform(
        np.asarray(sheet_rc, np.float32)[:, ::-1].copy(), np.asarray(image_rc, np.float32)[:, ::-1].copy()
    )
    photo = cv2.warpPerspective(sheet, h_xy, SIZE[::-1], flags=cv2.INTER_AREA, borderValue=140)
    swap = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
    return cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR), swap @ h_xy @ swap


def test_chessboard_plane_is_recovered_to_a_fraction_of_a_pixel() -> None:
    square, margin = 40, 40
    sheet = chessboard_image((7, 9), square_px=square, margin_px=margin)
    h, w = sheet.shape
    corners = np.array([[0, 0], [0, w - 1], [h - 1, w - 1], [h - 1, 0]], np.float64)
    target = np.array([[70, 110], [40, 560], [440, 600], [410, 60]], np.float64)  # a tilted view
    photo, truth = _warp(sheet, corners, target)
    plane, image_rc, sheet_rc = find_chessboard(photo, inner=(6, 8), square_mm=25.0)
    assert plane.corners == 48
    assert plane.rms_px < 0.3
    # every inner corner, in sheet millimetres, must come back where the known warp put it
    inner = np.array(
        [
            (margin + (i + 1) * square - 0.5, margin + (j + 1) * square - 0.5)
            for i in range(6)
            for j in range(8)
        ]
    )
    expected = apply_homography(truth, inner)
    mm = apply_homography(plane.image_to_plane, expected)
    spacing = np.diff(mm.reshape(6, 8, 2), axis=1)
    assert np.allclose(np.linalg.norm(spacing, axis=2), 25.0, atol=0.3)
    back = apply_homography(np.linalg.inv(plane.image_to_plane), sheet_rc)
    error = np.linalg.norm(back - image_rc, axis=1)
    assert error.max() < 0.5
    # the found corners are the true ones (the chessboard may be numbered from either end)
    found = np.sort(image_rc, axis=0)
    assert np.abs(found - np.sort(expected, axis=0)).max() < 0.6


def test_missing_chessboard_is_a_clear_error() -> None:
    blank = np.full((*SIZE, 3), 128, np.uint8)
    with pytest.raises(ValueError, match=r"no chessboard with 6×8 inner corners"):
        find_chessboard(blank, inner=(6, 8))


def test_charuco_plane_survives_a_covered_corner() -> None:
    board = charuco_board((5, 7), square_mm=30.0, marker_mm=22.0)
    sheet = board.generateImage((7 * 60 + 60, 5 * 60 + 60), marginSize=30)  # 60 px squares
    h, w = sheet.shape
    corners = np.array([[0, 0], [0, w - 1], [h - 1, w - 1], [h - 1, 0]], np.float64)
    target = np.array([[60, 90], [50, 580], [430, 560], [420, 70]], np.float64)
    photo, truth = _warp(sheet, corners, target)
    photo[300:, 420:] = (30, 30, 30)  # a hand over one corner of the sheet
    plane, image_rc, sheet_rc = find_charuco(photo, squares=(5, 7), square_mm=30.0, marker_mm=22.0)
    assert 6 <= plane.corners < 24
    assert plane.rms_px < 0.5
    # sheet millimetres -> sheet pixels is a plain scale (60 px per 30 mm square) plus the margin
    px = sheet_rc * 2.0 + 30 - 0.5
    expected = apply_homography(truth, px)
    assert np.abs(image_rc - expected).max() < 0.8


def test_unknown_dictionary_and_missing_sheet() -> None:
    with pytest.raises(ValueError, match="unknown ArUco dictionary"):
        charuco_board((5, 7), square_mm=30, marker_mm=22, dictionary="DICT_NOPE")
    with pytest.raises(ValueError, match="ChArUco corners"):
        find_charuco(np.full((*SIZE, 3), 128, np.uint8), squares=(5, 7), square_mm=30, marker_mm=22)


def test_lens_distortion_is_recovered_from_one_tilted_view() -> None:
    w, h = 800, 600
    k1 = -0.18
    matrix = np.array([[700.0, 0, (w - 1) / 2], [0, 700.0, (h - 1) / 2], [0, 0, 1]])
    dist = np.array([k1, 0.0, 0, 0, 0])
    sheet = chessboard_image((9, 12), square_px=40, margin_px=40)
    sh, sw = sheet.shape
    # an ideal (pinhole) photo of the sheet, seen at a slant, then distorted by the lens
    corners = np.array([[0, 0], [0, sw - 1], [sh - 1, sw - 1], [sh - 1, 0]], np.float64)
    # where a pinhole camera (f = 700 px) 600 mm away, turned 25° about the x axis, sees the sheet's corners
    world = np.c_[(corners[:, ::-1] - [sw / 2, sh / 2]) * 0.9, np.zeros(4)]  # 0.9 mm per sheet pixel
    rotation, _ = cv2.Rodrigues(np.array([np.radians(25.0), np.radians(8.0), 0.0]))
    xy, _ = cv2.projectPoints(world, rotation, np.array([0.0, 0.0, 600.0]), matrix, np.zeros(5))
    target = xy.reshape(-1, 2)[:, ::-1]
    ideal, _ = _warp_size(sheet, corners, target, (h, w))
    grid = np.indices((h, w)).reshape(2, -1).T[:, ::-1].astype(np.float32)  # (x, y) of every pixel
    undone = cv2.undistortPoints(grid.reshape(-1, 1, 2), matrix, dist, P=matrix).reshape(h, w, 2)
    photo = cv2.remap(ideal, undone[..., 0], undone[..., 1], cv2.INTER_LINEAR, borderValue=140)
    photo = cv2.cvtColor(photo, cv2.COLOR_GRAY2BGR)
    _, image_rc, sheet_rc = find_chessboard(photo, inner=(8, 11), square_mm=20.0)
    lens = fit_lens([(image_rc, sheet_rc)], (w, h))
    assert lens.rms_px < 0.5
    assert lens.distortion[0] == pytest.approx(k1, abs=0.04)
    straight = undistort(photo, lens)
    plane, _, _ = find_chessboard(straight, inner=(8, 11), square_mm=20.0)
    before, _, _ = find_chessboard(photo, inner=(8, 11), square_mm=20.0)
    assert plane.rms_px < 0.5 < before.rms_px  # a straight grid again: one homography fits it
    with pytest.raises(ValueError, match="calibrated on 800×600"):
        undistort(photo[:300], lens)


def _warp_size(
    sheet: np.ndarray, src: np.ndarray, dst: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    h_xy = cv2.getPerspectiveTransform(
        np.asarray(src, np.float32)[:, ::-1].copy(), np.asarray(dst, np.float32)[:, ::-1].copy()
    )
    return cv2.warpPerspective(sheet, h_xy, size[::-1], flags=cv2.INTER_AREA, borderValue=140), h_xy


def test_geometry_of_a_reading_with_a_layout() -> None:
    h = np.array([[50.0, 0, 100], [0, 50, 200], [0, 0, 1]])  # cell (r, c) -> image (100 + 50 r, 200 + 50 c)
    found = {"cell_to_image": h.tolist(), "pitch": 50.0, "angle": 0.0}
    g = geometry_from_reading(found, layout=connect_layout())
    assert g.pitch == 50.0
    assert g.play_area is not None
    assert np.allclose(g.play_area[0], [75, 175])
    assert np.allclose(g.play_area[2], [100 + 50 * 15.5, 200 + 50 * 15.5])
    assert geometry_from_reading({}).pitch is None
