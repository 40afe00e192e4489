"""Finding tile symbols in a frame: bright or coloured blobs held inside a dark tile body.

Every edition's tile is a dark block with a painted symbol (or, for Herkle, a grey shield) on top. The
detector works on a *strength* image that is high for paint and low for the black body,
``Q = min(255, 2·max(B, G, R) − min(B, G, R))`` (white, colours and grey all score high; dark green or
blue still beat the body by a wide margin because chroma counts twice). A pixel is *paint* when its
strength is above a fraction of the local mean; a blob of paint whose outer rim is much darker than its
inside is a symbol candidate. No size, colour or table constant is involved: the lattice fit
(:mod:`vision.lattice`) decides which candidates are tiles.

All points are ``(row, col)`` in the coordinates of the image passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Paint is brighter than this fraction of the local mean strength.
PAINT_FRACTION = 0.55
#: A candidate's rim must be darker than this fraction of its inside.
RIM_CONTRAST = 0.5


@dataclass(frozen=True)
class Blobs:
    """Symbol candidates.

    Attributes
    ----------
    centres : ndarray, shape (N, 2), float64
        ``(row, col)`` of each blob's centroid.
    extents : ndarray, shape (N,), float64
        The larger side of each blob's bounding box, pixels.
    areas : ndarray, shape (N,), float64
        Pixel count of each blob.
    """

    centres: np.ndarray
    extents: np.ndarray
    areas: np.ndarray

    def __len__(self) -> int:
        return len(self.centres)

    def take(self, keep: np.ndarray) -> Blobs:
        return Blobs(self.centres[keep], self.extents[keep], self.areas[keep])

    def scaled(self, factor: float) -> Blobs:
        """The same blobs in an image ``factor`` times as large."""
        return Blobs(self.centres * factor, self.extents * factor, self.areas * factor**2)


def strength(image: np.ndarray) -> np.ndarray:
    """The paint strength ``Q`` of a BGR uint8 image (H, W, 3): uint8 (H, W)."""
    b, g, r = cv2.split(image)
    hi = cv2.max(cv2.max(b, g), r)
    lo = cv2.min(cv2.min(b, g), r)
    doubled = cv2.add(hi, hi, dtype=cv2.CV_16U)
    return np.asarray(cv2.subtract(doubled, lo, dtype=cv2.CV_16U)).clip(0, 255).astype(np.uint8)


def find_blobs(q: np.ndarray, *, window: int | None = None, min_area: float = 12.0) -> Blobs:
    """Symbol candidates in a strength image.

    Parameters
    ----------
    q : ndarray, shape (H, W), dtype uint8
        Paint strength (:func:`strength`).
    window : int, optional
        Side of the box over which the local mean strength is taken (odd); default an eighth of the
        shorter image side, a few tiles wide at every scale the reader works at.
    min_area : float
        Smallest blob kept, pixels.

    Returns
    -------
    Blobs
    """
    if q.ndim != 2 or q.dtype != np.uint8:
        raise ValueError(f"strength image must be 2-D uint8, got shape {q.shape} dtype {q.dtype}")
    h, w = q.shape
    win = (window or max(min(h, w) // 8, 3)) | 1
    mean = cv2.blur(q, (win, win))
    raw = (q.astype(np.float32) >= mean.astype(np.float32) * PAINT_FRACTION).astype(np.uint8)
    # cut the one- or two-pixel bridges where a symbol's tip comes close to its tile's edge
    paint = np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(paint, connectivity=4)
    # mean strength on a two-pixel rim around each blob and inside it
    grown = cv2.dilate(labels.astype(np.float32), np.ones((3, 3), np.uint8), iterations=2)
    rim = paint == 0
    rim_labels = grown[rim].astype(np.int64)
    rim_count = np.bincount(rim_labels, minlength=n)
    rim_sum = np.bincount(rim_labels, q[rim].astype(np.float64), minlength=n)
    inside = np.bincount(labels.ravel(), q.ravel().astype(np.float64), minlength=n)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    extent = np.maximum(bw, bh).astype(np.float64)
    rim_mean = rim_sum / np.maximum(rim_count, 1)
    inside_mean = inside / np.maximum(area, 1)
    keep = (
        (area >= min_area)
        & (rim_count > 0)
        & (rim_mean < RIM_CONTRAST * inside_mean)
        & (extent < min(h, w) / 4)
        & (area >= 0.2 * bw * bh)
        & (np.minimum(bw, bh) >= 0.35 * extent)
    )
    keep[0] = False  # label 0 is the dark background
    return Blobs(centroids[keep][:, ::-1].astype(np.float64), extent[keep], area[keep])
