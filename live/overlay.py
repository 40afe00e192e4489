"""The camera snapshot for the phones: the latest frame with what the reader recognised drawn over it.

The reader's :attr:`vision.reading.Reading.geometry` may hold ``"homography"``: a 3×3 matrix (nested
lists) taking a cell corner ``(col, row, 1)``, in cell units, to image pixels ``(x, y, w)``. With it, each
tile read is outlined at its cell with its code, and each uncertain cell is crossed; without it, the frame
only gets a caption. This is the one place here where (row, col) meets OpenCV's (x, y).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.reading import Reading

GREEN, AMBER, WHITE = (80, 200, 80), (0, 170, 255), (255, 255, 255)


def annotate(image: np.ndarray, reading: Reading | None, *, width: int = 960, quality: int = 80) -> bytes:
    """``image`` (H×W×3 BGR uint8) with ``reading`` drawn on it, scaled to ``width`` px, as JPEG bytes."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.dtype != np.uint8:
        raise ValueError(f"snapshot: expected an H×W×3 uint8 frame, got {getattr(image, 'shape', image)!r}")
    scale = min(1.0, width / image.shape[1])
    out = (
        cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if scale < 1
        else image.copy()
    )
    if reading is not None:
        matrix = reading.geometry.get("homography")
        if matrix is not None:
            h = np.diag([scale, scale, 1.0]) @ np.asarray(matrix, dtype=np.float64)
            for t in reading.tiles:
                _cell(out, h, t.placed.cell, GREEN, t.placed.tile.code)
            for u in reading.uncertain:
                _cell(out, h, (u.row, u.col), AMBER, "?")
        caption = f"{len(reading.tiles)} tiles read, {len(reading.uncertain)} uncertain"
        cv2.putText(out, caption, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, WHITE, 2, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("snapshot: JPEG encoding failed")
    return bytes(data.tobytes())


def _cell(
    out: np.ndarray, h: np.ndarray, cell: tuple[int, int], colour: tuple[int, int, int], text: str
) -> None:
    row, col = cell
    corners = np.array([[col, row], [col + 1, row], [col + 1, row + 1], [col, row + 1]], dtype=np.float64)
    pts = cv2.perspectiveTransform(corners[None], h)[0]  # (x, y) pixels
    cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
    cx, cy = pts.mean(axis=0)
    cv2.putText(out, text, (int(cx) - 10, int(cy) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
