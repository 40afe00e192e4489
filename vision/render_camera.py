"""The renderer's camera: a pinhole looking down at the table, possibly tilted, and where it puts things.

World coordinates are millimetres on the table: ``Y`` grows along the board's rows direction before any
rotation (down an upright photo), ``X`` along its columns, and ``Z`` into the table, so a point ``h`` mm
above the table has ``Z = -h``. The world origin is the point the camera aims at.

Image points are ``(row, col)`` float arrays everywhere in the renderer; :func:`to_xy` is the one place
where they meet OpenCV's ``(x, y)`` order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np


def to_xy(points_rc: np.ndarray) -> np.ndarray:
    """OpenCV's ``(x, y)`` order of ``(row, col)`` points: shape (..., 2) float32, the last axis swapped."""
    return np.ascontiguousarray(np.asarray(points_rc, dtype=np.float32)[..., ::-1])


def homography_rc(src_rc: np.ndarray, dst_rc: np.ndarray) -> np.ndarray:
    """The 3×3 homography taking 4 ``(row, col)`` points to 4 others, in OpenCV's ``(x, y)`` form.

    The result is what :func:`cv2.warpPerspective` expects (it maps ``(x, y, 1)`` of the source).
    """
    return cv2.getPerspectiveTransform(to_xy(src_rc), to_xy(dst_rc))


@dataclass(frozen=True)
class Camera:
    """A pinhole camera aimed at the world origin.

    Parameters
    ----------
    size : (int, int)
        Image height and width in pixels.
    focal : float
        Focal length in pixels.
    distance : float
        Millimetres from the camera to the aimed-at point.
    tilt : float
        Degrees between the optical axis and the table's normal (0 = straight overhead).
    tilt_direction : float
        Degrees: which side of the table the camera leans from, measured in the table plane from +Y (the
        bottom of an upright photo) towards +X. At 0 the camera stands on the photo's bottom side, so the
        faces of tall tiles that point to the bottom of the image show.
    roll : float
        Degrees the image is turned about the optical axis.
    """

    size: tuple[int, int]
    focal: float
    distance: float
    tilt: float = 0.0
    tilt_direction: float = 0.0
    roll: float = 0.0

    @cached_property
    def centre(self) -> np.ndarray:
        """The camera's position in world millimetres, shape (3,)."""
        t, a = math.radians(self.tilt), math.radians(self.tilt_direction)
        lean = self.distance * math.sin(t)
        return np.array([lean * math.sin(a), lean * math.cos(a), -self.distance * math.cos(t)])

    @cached_property
    def rotation(self) -> np.ndarray:
        """World-to-camera rotation (3×3): camera ``x`` right, ``y`` down the image, ``z`` forward."""
        z = -self.centre / np.linalg.norm(self.centre)
        y = np.array([0.0, 1.0, 0.0]) - z[1] * z
        if np.linalg.norm(y) < 1e-6:  # looking along Y: cannot happen for tilts below 90 degrees
            y = np.array([1.0, 0.0, 0.0]) - z[0] * z
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        r = math.radians(self.roll)
        cr, sr = math.cos(r), math.sin(r)
        x, y = cr * x + sr * y, -sr * x + cr * y
        return np.stack([x, y, z])

    def project(self, world: np.ndarray) -> np.ndarray:
        """Image ``(row, col)`` of world points.

        Parameters
        ----------
        world : ndarray, shape (..., 3)
            ``(X, Y, Z)`` millimetres.

        Returns
        -------
        ndarray, shape (..., 2), float64
            Image rows and columns (pixel centres at integers).
        """
        p = (np.asarray(world, dtype=np.float64) - self.centre) @ self.rotation.T
        z = np.maximum(p[..., 2], 1e-3)
        h, w = self.size
        col = self.focal * p[..., 0] / z + (w - 1) / 2
        row = self.focal * p[..., 1] / z + (h - 1) / 2
        return np.stack([row, col], axis=-1)

    def unproject_to_table(self, image_rc: np.ndarray, *, height: float = 0.0) -> np.ndarray:
        """World ``(X, Y)`` where rays through image ``(row, col)`` points (..., 2) meet the plane
        ``height`` mm above the table; rays that miss it (above the horizon) are clipped far away."""
        rc = np.asarray(image_rc, dtype=np.float64)
        h, w = self.size
        ray_cam = np.stack(
            [(rc[..., 1] - (w - 1) / 2) / self.focal, (rc[..., 0] - (h - 1) / 2) / self.focal],
            axis=-1,
        )
        ray_cam = np.concatenate([ray_cam, np.ones_like(ray_cam[..., :1])], axis=-1)
        ray = ray_cam @ self.rotation  # camera -> world
        c = self.centre
        dz = np.where(ray[..., 2] > 1e-3, ray[..., 2], 1e-3)
        s = np.minimum((-height - c[2]) / dz, 20 * self.distance)
        hit: np.ndarray = c[:2] + s[..., None] * ray[..., :2]
        return hit

    def plane_homography(
        self, plane_rc: np.ndarray, world_xy: np.ndarray, *, height: float = 0.0
    ) -> np.ndarray:
        """The homography (OpenCV form) from a flat canvas to the image.

        ``plane_rc`` are 4 canvas ``(row, col)`` points and ``world_xy`` their world ``(X, Y)`` millimetres
        on the plane ``height`` mm above the table.
        """
        world = np.concatenate([world_xy, np.full((len(world_xy), 1), -height)], axis=1)
        return homography_rc(plane_rc, self.project(world))


def camera_for(
    *,
    size: tuple[int, int],
    px_per_mm: float,
    fov: float = 62.0,
    tilt: float = 0.0,
    tilt_direction: float = 0.0,
    roll: float = 0.0,
) -> Camera:
    """A camera whose image shows ``px_per_mm`` pixels per millimetre at the aimed-at point.

    ``fov`` is the horizontal field of view in degrees; it sets how strong the perspective is.
    """
    if not 5.0 <= fov <= 120.0:
        raise ValueError(f"fov must be 5..120 degrees, got {fov}")
    if not 0.0 <= tilt <= 60.0:
        raise ValueError(f"tilt must be 0..60 degrees, got {tilt}")
    if px_per_mm <= 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    focal = (size[1] / 2) / math.tan(math.radians(fov) / 2)
    return Camera(size, focal, focal / px_per_mm, tilt, tilt_direction, roll)
