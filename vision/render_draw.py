"""Compositing for the renderer: textures warped onto image quadrilaterals, canvases warped into the view.

The image being built is a float32 BGR array (H, W, 3) in 0..255; points are ``(row, col)``, converted to
OpenCV's ``(x, y)`` only through :func:`vision.render_camera.to_xy`.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.render_camera import homography_rc, to_xy


def paste_quad(
    image: np.ndarray,
    texture: np.ndarray,
    quad_rc: np.ndarray,
    *,
    gain: float | np.ndarray = 1.0,
) -> None:
    """Warp a BGRA texture onto a quadrilateral of ``image``, in place, with anti-aliased edges.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype float32
        The picture being built (BGR, 0..255).
    texture : ndarray, shape (h, w, 4), dtype uint8 or float32
        BGR colour and alpha (0..255 for uint8, 0..1 for float32).
    quad_rc : ndarray, shape (4, 2)
        Image ``(row, col)`` of the texture's top-left, top-right, bottom-right and bottom-left corners.
    gain : float or ndarray of shape (3,)
        Multiplies the texture's colour (shading).
    """
    quad = np.asarray(quad_rc, np.float64)
    h, w = image.shape[:2]
    r0, c0 = np.floor(quad.min(axis=0)).astype(int) - 1
    r1, c1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, h), min(c1, w)
    if r1 <= r0 or c1 <= c0:
        return
    th, tw = texture.shape[:2]
    src = np.array([[-0.5, -0.5], [-0.5, tw - 0.5], [th - 0.5, tw - 0.5], [th - 0.5, -0.5]])
    m = homography_rc(src, quad - np.array([r0, c0]))
    # warp with a transparent border: texture pixels outside the quad come out with alpha 0
    warped = cv2.warpPerspective(
        texture, m, (c1 - c0, r1 - r0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    ).astype(np.float32)
    alpha = warped[..., 3:4] * (1 / 255 if texture.dtype == np.uint8 else 1.0)
    roi = image[r0:r1, c0:c1]
    roi *= 1 - alpha
    roi += warped[..., :3] * (np.asarray(gain, np.float32) * alpha)


def fill_quad(mask: np.ndarray, quad_rc: np.ndarray, value: float = 1.0) -> None:
    """Fill a convex ``(row, col)`` polygon into a float32 mask, anti-aliased (8× sub-pixel), in place."""
    pts = np.round(to_xy(quad_rc) * 8).astype(np.int32)
    cv2.fillConvexPoly(mask, pts, value, cv2.LINE_AA, 3)


def coverage(mask: np.ndarray, quad_rc: np.ndarray) -> float:
    """The mean of ``mask`` (H, W, values 0..1) over a convex ``(row, col)`` polygon; 0 if it is off-image."""
    quad = np.asarray(quad_rc, np.float64)
    h, w = mask.shape[:2]
    r0, c0 = np.floor(quad.min(axis=0)).astype(int)
    r1, c1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    r0, c0, r1, c1 = max(r0, 0), max(c0, 0), min(r1, h), min(c1, w)
    if r1 <= r0 or c1 <= c0:
        return 0.0
    inside = np.zeros((r1 - r0, c1 - c0), np.float32)
    fill_quad(inside, quad - np.array([r0, c0]))
    total = polygon_area(quad)
    return float((inside * mask[r0:r1, c0:c1]).sum() / total) if total > 0 else 0.0


def polygon_area(quad_rc: np.ndarray) -> float:
    """Area in pixels of a simple polygon given as ``(row, col)`` points."""
    q = np.asarray(quad_rc, np.float64)
    r, c = q[:, 0], q[:, 1]
    nxt = np.r_[1 : len(q), 0]
    return 0.5 * abs(float(np.dot(r, c[nxt]) - np.dot(c, r[nxt])))


def visible_fraction(quad_rc: np.ndarray, size: tuple[int, int]) -> float:
    """How much of a convex ``(row, col)`` polygon lies inside an image of ``size`` (height, width)."""
    h, w = size
    frame = to_xy(np.array([[-0.5, -0.5], [-0.5, w - 0.5], [h - 0.5, w - 0.5], [h - 0.5, -0.5]]))
    quad = to_xy(quad_rc)
    if polygon_area(quad_rc) <= 0:
        return 0.0
    if cv2.contourArea(quad, oriented=True) < 0:
        quad = quad[::-1].copy()
    area, _ = cv2.intersectConvexConvex(frame, quad)
    return float(area) / polygon_area(quad_rc)


def warp_canvas(
    canvas: np.ndarray, homography: np.ndarray, size: tuple[int, int], *, border: int = cv2.BORDER_REFLECT
) -> np.ndarray:
    """Warp a flat canvas into the image (``size`` = height, width) with an OpenCV-form homography."""
    return cv2.warpPerspective(
        canvas, homography, (size[1], size[0]), flags=cv2.INTER_LINEAR, borderMode=border
    )


def rotate(points: np.ndarray, degrees: float) -> np.ndarray:
    """Turn world ``(X, Y)`` points (N, 2) about the origin by ``degrees``, clockwise as seen in the image."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    turned: np.ndarray = np.asarray(points, np.float64) @ np.array([[c, s], [-s, c]])
    return turned
