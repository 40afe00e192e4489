"""Cutting one square patch per grid cell out of a frame, resampled into the grid's own axes.

A patch is the top face of one cell seen square-on: the homography's local axes undo the camera's
perspective and the layout's rotation, so a tile's symbol comes out upright (modulo a quarter turn) and at
one scale whatever the camera. All patches are cut by one :func:`cv2.remap` call (a few for
very many patches).
"""

from __future__ import annotations

import numpy as np

from vision.geometry import remap

#: Patch side in pixels; a classic symbol then spans 16..29 of them.
PATCH = 32
#: The part of a cell, in cells a side, that must lie inside the frame for its tile to be read: the face
#: short of its edge, where the measurements find paint, its centre and its outline (chessboard radius
#: below 0.46, :mod:`vision.features`). The rest is the face's edge and the gap between tiles (a face
#: 29 mm on a 30.5 mm pitch spans 0.95 of the cell), black body or table whether seen or cut off: the
#: whole cell's square (1.0) left tiles whose faces lay wholly in a 200 px-a-tile frame uncertain.
FACE_SPAN = 0.92


def cut_patches(
    image: np.ndarray, centres: np.ndarray, axes: np.ndarray, *, size: int = PATCH, span: float = 1.0
) -> np.ndarray:
    """Square patches centred on image points.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR frame (or its working copy).
    centres : ndarray, shape (N, 2), float
        ``(row, col)`` patch centres in ``image`` pixels.
    axes : ndarray, shape (N, 2, 2), float
        Per patch, the image vectors of one cell step down and one step right.
    size : int
        Patch side in pixels.
    span : float
        How many cells the patch side covers.

    Returns
    -------
    ndarray, shape (N, size, size, 3), dtype uint8
        BGR patches, row 0 at the top of the cell; pixels outside the image are black.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be BGR uint8 (H, W, 3), got shape {image.shape} dtype {image.dtype}")
    n = len(centres)
    if n == 0:
        return np.zeros((0, size, size, 3), np.uint8)
    per_call = max(32767 // size, 1)  # cv2.remap takes maps of at most 32767 rows
    if n > per_call:
        return np.concatenate(
            [
                cut_patches(image, centres[k : k + per_call], axes[k : k + per_call], size=size, span=span)
                for k in range(0, n, per_call)
            ]
        )
    t = (((np.arange(size) + 0.5) / size - 0.5) * span).astype(np.float32)  # cell units across the patch
    centres = np.asarray(centres, np.float32)
    down, right = np.asarray(axes[:, 0], np.float32), np.asarray(axes[:, 1], np.float32)
    # centre + t_i·down + t_j·right, added in that order: the first two terms per patch row (N, size),
    # the third per patch column (N, size), then one sum over the whole (N, size, size) map
    along = centres[:, :, None] + down[:, :, None] * t  # (N, 2, size)
    across = right[:, :, None] * t
    rows = along[:, 0, :, None] + across[:, 0, None, :]
    cols = along[:, 1, :, None] + across[:, 1, None, :]
    out = remap(image, rows.reshape(n * size, size), cols.reshape(n * size, size))
    return out.reshape(n, size, size, 3)


def inside_fraction(
    shape: tuple[int, int], centres: np.ndarray, axes: np.ndarray, *, span: float = 1.0
) -> np.ndarray:
    """How much of each cell's square (N,) lies inside an image of ``shape`` (H, W), sampled 5×5; the
    square is ``span`` cells a side (:data:`FACE_SPAN`: the part of a cell the measurements read). The
    image is its pixels' squares, -0.5 .. H - 0.5 in its (row, col) pixel coordinates."""
    t = np.linspace(-0.5, 0.5, 5) * span
    # centre + t_i·down + t_j·right in that order, the first two terms per sample row (N, 2, 5)
    along = centres[:, :, None] + axes[:, 0, :, None] * t
    across = axes[:, 1, :, None] * t
    rows = along[:, 0, :, None] + across[:, 0, None, :]
    cols = along[:, 1, :, None] + across[:, 1, None, :]
    h, w = shape
    ok = (rows >= -0.5) & (rows <= h - 0.5) & (cols >= -0.5) & (cols <= w - 0.5)
    return np.asarray(ok.reshape(len(centres), -1).mean(axis=1))
