"""Finding tile symbols in a frame: bright or coloured blobs held inside a dark tile body.

Every edition's tile is a dark block with a painted symbol (or, for Herkle, a grey shield) on top. The
detector works on a *strength* image that is high for paint and low for the black body,
``Q = min(255, 2·max(B, G, R) − min(B, G, R))`` (white, colours and grey all score high; dark green or
blue still beat the body by a wide margin because chroma counts twice). A pixel is *paint* when its
strength is above a fraction of the local mean; a blob of paint whose outer rim is much darker than its
inside is a symbol candidate. Where a tile's body is lit almost as bright as the local mean it passes for
paint and joins its symbol to the table; at a higher fraction the symbol stands apart (``Blobs.apart``:
evidence for the probes, not points to fit the grid through). No size, colour or table constant is
involved: the lattice fit (:mod:`vision.lattice`) decides which candidates are tiles.

All points are ``(row, col)`` in the coordinates of the image passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Paint is brighter than this fraction of the local mean strength.
PAINT_FRACTION = 0.55
#: At this higher fraction a tile's body no longer passes for paint where it is lit almost as bright as
#: the local mean (a bright table all round; a colour-blind symbol's hole leaves less paint in the mean):
#: a symbol joined to the table through its body at PAINT_FRACTION stands apart (:attr:`Blobs.apart`).
APART_FRACTION = 1.0
#: With fewer candidates than this at PAINT_FRACTION (a few large tiles on a bright table, whose bodies
#: all pass for paint), those standing apart are candidates too.
FEW = 3
#: Candidates standing apart are looked for within this many median candidate sizes of the others (about
#: three tiles: the probes that take them look at the cells next to the tiles found).
NEAR = 4.0
#: A candidate's rim must be darker than this fraction of its inside.
RIM_CONTRAST = 0.5
#: A symbol's paint is as wide one way as the other (every symbol has a fourfold symmetry, and a tilted
#: camera foreshortens a top face little): the smaller over the larger second moment is at least this.
#: The symbol painted on a side face of a leaning cube, seen edge-on, is much flatter.
ISOTROPY = 0.4
#: Symbol candidates are this range of times the median candidate's size.
SIZE_RANGE = (0.45, 1.4)


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
    apart : ndarray, shape (K, 2), float64
        ``(row, col)`` of the candidates that stand apart only at APART_FRACTION (none within half a
        blob's extent of one above). They do not fit the grid: one more symbol beside a seam between
        groups a third of a cell apart can join the groups a cell off. They are evidence where a cell next
        to the tiles is probed (:mod:`vision.occupied`).
    """

    centres: np.ndarray
    extents: np.ndarray
    areas: np.ndarray
    apart: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def __len__(self) -> int:
        return len(self.centres)

    def take(self, keep: np.ndarray) -> Blobs:
        return Blobs(self.centres[keep], self.extents[keep], self.areas[keep], self.apart)

    def typical(self) -> Blobs:
        """The blobs of about the median size: one edition's symbols are all much the same size, while the
        table seen through a hole between tiles is larger and a glint or a crack between tiles smaller."""
        if len(self) < 3:
            return self
        m = float(np.median(self.extents))
        return self.take((self.extents >= SIZE_RANGE[0] * m) & (self.extents <= SIZE_RANGE[1] * m))

    def scaled(self, factor: float) -> Blobs:
        """The same blobs in an image ``factor`` times as large."""
        return Blobs(
            self.centres * factor, self.extents * factor, self.areas * factor**2, self.apart * factor
        )


def strength(image: np.ndarray) -> np.ndarray:
    """The paint strength ``Q`` of a BGR uint8 image (H, W, 3): uint8 (H, W)."""
    b, g, r = cv2.split(image)
    hi = cv2.max(cv2.max(b, g), r)
    lo = cv2.min(cv2.min(b, g), r)
    # 2·hi − lo as hi + (hi − lo): both steps stay in uint8 (hi ≥ lo), the sum saturating at 255
    return np.asarray(cv2.add(hi, cv2.subtract(hi, lo)))


def _isotropy(rows: np.ndarray, cols: np.ndarray, labels: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Per label (n,), the smaller over the larger eigenvalue of its pixels' second moments (1 for a
    disc or a square, near 0 for a line); ``rows`` and ``cols`` are its pixels', ``centres`` (n, 2) the
    labels' centroids ``(row, col)``."""
    n = len(centres)
    count = np.maximum(np.bincount(labels, minlength=n), 1)

    def mean(v: np.ndarray) -> np.ndarray:
        return np.bincount(labels, v.astype(np.float64), minlength=n) / count

    mr, mc = centres[:, 0], centres[:, 1]
    a = mean(rows * rows) - mr * mr
    b = mean(rows * cols) - mr * mc
    c = mean(cols * cols) - mc * mc
    root = np.sqrt(((a - c) / 2) ** 2 + b * b)
    hi, lo = (a + c) / 2 + root, (a + c) / 2 - root
    return np.asarray(np.clip(lo, 0, None) / np.maximum(hi, 1e-9))


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
        Found at PAINT_FRACTION, with those standing apart only at APART_FRACTION as ``apart``.
    """
    if q.ndim != 2 or q.dtype != np.uint8:
        raise ValueError(f"strength image must be 2-D uint8, got shape {q.shape} dtype {q.dtype}")
    h, w = q.shape
    mean = _local_mean(q, window)
    huge = min(h, w) / 4
    found, refused = _blobs_at(q, mean, PAINT_FRACTION, min_area, huge)
    assert refused is not None  # looked for everywhere
    top = np.zeros(2, np.int64)
    if len(found) >= FEW:
        # only around the candidates (a few tiles' margin): the probes look no further
        margin = NEAR * float(np.median(found.extents))
        top = np.maximum(np.floor(found.centres.min(axis=0) - margin), 0).astype(np.int64)
        end = np.ceil(found.centres.max(axis=0) + margin).astype(np.int64) + 1
        crop = (slice(top[0], end[0]), slice(top[1], end[1]))
        q, mean, refused = q[crop], mean[crop], refused[crop]
    # paint at the higher fraction is paint at the lower one, and an opening keeps that order: a symbol
    # standing apart lies inside one blob of the first pass, and only a blob refused there can hold one
    more, _ = _blobs_at(q, mean, APART_FRACTION, min_area, huge, within=refused)
    more = Blobs(more.centres + top, more.extents, more.areas)
    if len(found) and len(more):
        gap = np.linalg.norm(more.centres[:, None] - found.centres[None], axis=2)
        more = more.take((gap >= 0.5 * np.maximum(more.extents[:, None], found.extents[None])).all(axis=1))
    if len(found) < FEW:
        # too few to fit a grid through: there are no groups to join wrongly, the others are all there is
        return Blobs(
            np.concatenate([found.centres, more.centres]),
            np.concatenate([found.extents, more.extents]),
            np.concatenate([found.areas, more.areas]),
        )
    return Blobs(found.centres, found.extents, found.areas, more.centres)


def lit_mask(q: np.ndarray, *, window: int | None = None) -> np.ndarray:
    """Where the strength image (H, W) uint8 is lit: at least PAINT_FRACTION of its local mean over a
    ``window`` box (default as :func:`find_blobs`'s), uint8 0/1 (H, W): what passes for paint."""
    return _lit(q, _local_mean(q, window), PAINT_FRACTION)


def _local_mean(q: np.ndarray, window: int | None) -> np.ndarray:
    """The mean of ``q`` (H, W) uint8 over a box ``window`` wide (odd; default an eighth of the shorter
    side), uint8 (H, W)."""
    h, w = q.shape
    win = (window or max(min(h, w) // 8, 3)) | 1
    return np.asarray(cv2.blur(q, (win, win)))


def _lit(q: np.ndarray, mean: np.ndarray, fraction: float) -> np.ndarray:
    """Where ``q`` is at least ``fraction`` of its local ``mean`` (both (H, W) uint8), uint8 0/1."""
    return np.asarray((q >= cv2.convertScaleAbs(mean, alpha=fraction)).view(np.uint8))


def _blobs_at(
    q: np.ndarray,
    mean: np.ndarray,
    fraction: float,
    min_area: float,
    huge: float,
    *,
    within: np.ndarray | None = None,
) -> tuple[Blobs, np.ndarray | None]:
    """The candidates in strength image ``q`` (H, W) uint8 whose paint is brighter than ``fraction`` of
    the local ``mean`` strength (H, W) uint8, smaller than ``huge`` pixels across; looked for only where
    ``within`` (H, W) uint8 is set, if given. Also the mask (H, W) uint8 of the blobs refused (None when
    ``within`` is given: a second look has no use for it)."""
    raw = _lit(q, mean, fraction)
    if within is not None:
        raw = np.asarray(cv2.bitwise_and(raw, within), np.uint8)
    # cut the one- or two-pixel bridges where a symbol's tip comes close to its tile's edge
    paint = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(paint, connectivity=4)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    extent = np.maximum(bw, bh).astype(np.float64)
    keep = (
        (area >= min_area) & (extent < huge) & (area >= 0.2 * bw * bh) & (np.minimum(bw, bh) >= 0.35 * extent)
    )
    keep[0] = False  # label 0 is the dark background
    # the pixel statistics of the blobs that passed so far: the table or a printed board around the
    # tiles can be most of the picture, and none of it needs looking at
    if n <= 256:  # the blobs renumbered by a table lookup, much faster than a gather
        ids = np.zeros(256, np.uint8)
        ids[:n][keep] = np.arange(1, int(keep.sum()) + 1)
        own = np.asarray(cv2.LUT(np.asarray(labels).astype(np.uint8), ids))
    else:
        ids = np.zeros(n, np.uint16 if n < 65536 else np.float32)  # cv2.dilate takes no 32-bit integers
        ids[keep] = np.arange(1, int(keep.sum()) + 1)
        own = np.asarray(np.take(ids, np.asarray(labels)), dtype=ids.dtype)
    k = int(keep.sum()) + 1
    rows, cols, inner = _pixels(own)
    inner_ids = own.ravel()[inner].astype(np.int64)
    flat_q = q.ravel()
    inside = np.bincount(inner_ids, flat_q[inner], minlength=k)
    # mean strength on a two-pixel rim around each blob
    grown = cv2.dilate(own, np.ones((3, 3), np.uint8), iterations=2)
    rim = np.flatnonzero(((grown > 0) & (paint == 0)).ravel())
    rim_ids = grown.ravel()[rim].astype(np.int64)
    rim_count = np.bincount(rim_ids, minlength=k)
    rim_mean = np.bincount(rim_ids, flat_q[rim], minlength=k) / np.maximum(rim_count, 1)
    inside_mean = inside / np.concatenate([[1.0], area[keep]])
    good = (rim_count > 0) & (rim_mean < RIM_CONTRAST * inside_mean)
    # the shape of the blobs ringed dark only (at the higher threshold most pieces of the table are not: on a
    # real photo 8 of 147); OpenCV's centroids are the blobs' exact pixel sums over their areas, as the
    # moments below
    ringed = good[inner_ids]
    if not ringed.all():
        rows, cols, inner_ids = rows[ringed], cols[ringed], inner_ids[ringed]
    centres = np.concatenate([[[0.0, 0.0]], centroids[keep][:, ::-1]])
    good &= _isotropy(rows, cols, inner_ids, centres) >= ISOTROPY
    keep[keep] = good[1:]
    blobs = Blobs(centroids[keep][:, ::-1].astype(np.float64), extent[keep], area[keep])
    if within is not None:
        return blobs, None
    refused = ~keep & (area >= min_area)  # a blob standing apart later is no smaller than min_area
    refused[0] = False
    if n <= 256:
        table = np.zeros(256, np.uint8)
        table[:n] = refused
        refused_mask = np.asarray(cv2.LUT(np.asarray(labels).astype(np.uint8), table))
    else:
        refused_mask = refused.astype(np.uint8)[labels]
    return blobs, refused_mask


def _pixels(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nonzero pixels of a 2-D image (H, W) in raster order, as ``np.flatnonzero`` (found about twice
    as fast): their rows, columns and flat indices, each (K,) int64."""
    xy = cv2.findNonZero(image)
    if xy is None:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    xy = xy.reshape(-1, 2).astype(np.int64)
    rows, cols = xy[:, 1], xy[:, 0]
    return rows, cols, rows * image.shape[1] + cols
