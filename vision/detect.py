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

from vision.geometry import distances

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


def _isotropy(moments: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Per blob (n,), the smaller over the larger eigenvalue of its pixels' second moments (1 for a disc or
    a square, near 0 for a line); ``moments`` (n, 3) are the means of its pixels' row², row·column and
    column², ``centres`` (n, 2) its centroid ``(row, col)``."""
    mr, mc = centres[:, 0], centres[:, 1]
    a = moments[:, 0] - mr * mr
    b = moments[:, 1] - mr * mc
    c = moments[:, 2] - mc * mc
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
    mean = local_mean(q, window)
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
        gap = distances(more.centres, found.centres)
        more = more.take((gap >= 0.5 * np.maximum(more.extents[:, None], found.extents[None])).all(axis=1))
    if len(found) < FEW:
        # too few to fit a grid through: there are no groups to join wrongly, the others are all there is
        return Blobs(
            np.concatenate([found.centres, more.centres]),
            np.concatenate([found.extents, more.extents]),
            np.concatenate([found.areas, more.areas]),
        )
    return Blobs(found.centres, found.extents, found.areas, more.centres)


def lit_mask(q: np.ndarray, *, window: int | None = None, mean: np.ndarray | None = None) -> np.ndarray:
    """Where the strength image (H, W) uint8 is lit: at least PAINT_FRACTION of its local mean over a
    ``window`` box (default as :func:`find_blobs`'s; or the ``mean`` (H, W) uint8 of :func:`local_mean`
    given), uint8 0/1 (H, W): what passes for paint."""
    return _lit(q, local_mean(q, window) if mean is None else mean, PAINT_FRACTION)


def local_mean(q: np.ndarray, window: int | None = None) -> np.ndarray:
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
    # the components without OpenCV's statistics (several times slower on a picture mostly painted, as a
    # printed board is): those are summed over the runs of the labels along the rows
    n, runs = _components(paint)
    shape = (paint.shape[0], paint.shape[1])
    area, top, bottom, left, right = runs.extents(n)
    bw, bh = right - left + 1, bottom - top + 1
    extent = np.maximum(bw, bh).astype(np.float64)
    keep = (
        (area >= min_area) & (extent < huge) & (area >= 0.2 * bw * bh) & (np.minimum(bw, bh) >= 0.35 * extent)
    )
    keep[0] = False  # label 0 is the dark background
    # the blobs that passed so far, renumbered 1..k-1: the table or a printed board around the tiles can be
    # most of the picture, and none of it needs looking at
    k = int(keep.sum()) + 1
    ids = np.zeros(n, np.int64)
    ids[keep] = np.arange(1, k)
    mine = runs.take(keep[runs.label])
    mine_ids = ids[mine.label]
    # OpenCV's centroids: the blobs' exact pixel sums over their areas
    sums = mine.sums(mine_ids, k)
    count = np.concatenate([[1.0], area[keep]])
    centres = sums[:, :2] / count[:, None]
    inside: np.ndarray = np.zeros(k)
    rim_count: np.ndarray = np.zeros(k, np.int64)
    rim_mean: np.ndarray = np.zeros(k)
    if k > 1:
        # the rest is looked at in the box around those blobs and their two-pixel rims
        box = mine.box(2, shape)
        inside = np.bincount(
            mine_ids, mine.totals(cv2.integral(q[box]), (box[0].start, box[1].start)), minlength=k
        )
        # mean strength on a two-pixel rim around each blob: each pixel's highest number two pixels about,
        # numbered in the narrowest type that holds them (cv2.dilate takes no 32-bit integers)
        narrow = np.uint8 if k <= 256 else np.uint16 if k <= 65536 else np.float32
        grown = cv2.dilate(mine.image(mine_ids.astype(narrow), box), np.ones((5, 5), np.uint8))
        # grown but not paint (paint, 0 or 1, times the highest number): found once, then gathered twice
        rim = np.flatnonzero(grown > paint[box].astype(grown.dtype, copy=False) * (k - 1))
        rim_ids = grown.ravel().take(rim).astype(np.int64)
        rim_count = np.bincount(rim_ids, minlength=k)
        rim_mean = np.bincount(rim_ids, q[box].ravel().take(rim), minlength=k) / np.maximum(rim_count, 1)
    good = (rim_count > 0) & (rim_mean < RIM_CONTRAST * (inside / count))
    good &= _isotropy(sums[:, 2:] / count[:, None], centres) >= ISOTROPY
    keep[keep] = good[1:]
    blobs = Blobs(centres[1:][good[1:]], extent[keep], area[keep].astype(np.float64))
    if within is not None:
        return blobs, None
    refused = ~keep & (area >= min_area)  # a blob standing apart later is no smaller than min_area
    refused[0] = False
    refused_runs = runs.take(refused[runs.label])
    whole = (slice(0, shape[0]), slice(0, shape[1]))
    return blobs, refused_runs.image(np.ones(len(refused_runs.label), np.uint8), whole)


def _components(paint: np.ndarray) -> tuple[int, _Runs]:
    """The 4-connected components of an opened mask (H, W) uint8 0/1 (a union of 3×3 squares, clipped
    at the border to no less than 2×2), as runs labelled 1..n-1 in the order of each component's first
    pixel along the rows (OpenCV's own 4-connected labels), and n.

    OpenCV's 8-connected labelling is 2.4 times cheaper; it differs only across a corner-only contact, a
    pixel whose upper diagonal neighbour is set and the two pixels both touch clear. In an opened mask such
    a lower pixel is the top corner of its square, so its row neighbour in that square is set, joined to it
    and to the rest of the square, and no corner pixel itself; left out, the mask keeps its 4-connected
    components less those pixels and has no corner-only contact left. Such a pixel starts a run at most,
    so each run takes its first or second pixel's label."""
    h, w = paint.shape
    m = paint.view(bool).ravel()
    cut = m.copy()
    grid = cut.reshape(h, w)
    # a lower pixel stays where its upper-left neighbour is clear or the pixel above or left of it set,
    # looked up along the flattened rows (the first column, which has none, is put back)
    cut[w + 1 :] &= ~m[: -w - 1] | m[1:-w] | m[w:-1]
    grid[:, 0] = paint[:, 0]
    # likewise with its upper-right neighbour and the pixel right of it (the last column put back)
    last = grid[:, -1].copy()
    cut[w:-1] &= ~m[1:-w] | m[: -w - 1] | m[w + 1 :]
    grid[:, -1] = last
    n, labelled = _labelled(grid.view(np.uint8))
    labels = np.asarray(labelled).ravel()
    runs = _Runs.of(labels.reshape(h, w), paint)
    cleared = np.flatnonzero(runs.label == 0)
    runs.label[cleared] = labels[runs.row[cleared] * w + runs.first[cleared] + 1]
    # numbered again in the order of the components' first runs (the runs are in order along the rows)
    first = np.full(n, len(runs.label))
    np.minimum.at(first, runs.label, np.arange(len(runs.label)))
    order = np.zeros(n, np.int64)
    order[np.argsort(first[1:]) + 1] = np.arange(1, n)
    return n, _Runs(order[runs.label], runs.row, runs.first, runs.last)


def _labelled(mask: np.ndarray) -> tuple[int, np.ndarray]:
    """OpenCV's 8-connected labelling of a mask (H, W) uint8: the count of labels and the labels (H, W),
    uint16 where they fit (cheaper to write and read; OpenCV refuses rather than overflow them, and the
    labels are the same), else int32."""
    try:
        n, labels = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_16U)
    except cv2.error:
        n, labels = cv2.connectedComponents(mask, connectivity=8)
    return n, np.asarray(labels)


@dataclass(frozen=True)
class _Runs:
    """The runs of equal labels other than 0 (the background) along the rows of a label image: each run's
    label, row and first and last column (K,) int64. Sums over a blob's pixels are sums over its runs (a
    few thousand instead of hundreds of thousands of pixels)."""

    label: np.ndarray
    row: np.ndarray
    first: np.ndarray
    last: np.ndarray

    @staticmethod
    def of(labels: np.ndarray, mask: np.ndarray | None = None) -> _Runs:
        """The runs of a label image (H, W) int. ``mask`` (H, W) uint8, if given, gives the runs instead,
        each labelled as its first pixel: where it is nonzero exactly where the labels are and they were
        labelled with 4- or 8-connectivity, two labelled pixels side by side along a row are of one label,
        so the runs are those of the mask (a quarter of the bytes to compare)."""
        h, w = labels.shape
        flat = labels.ravel() if mask is None else mask.ravel()
        change = np.empty(h * w, bool)
        np.not_equal(flat[1:], flat[:-1], out=change[1:])
        change[::w] = True  # every row starts a run
        starts = np.flatnonzero(change)
        length = np.diff(starts, append=h * w)
        painted = np.flatnonzero(flat[starts])  # the background's runs (label 0) are left out
        starts, length = starts.take(painted), length.take(painted)
        row = starts // w
        first = starts - row * w
        return _Runs(labels.ravel()[starts].astype(np.int64), row, first, first + length - 1)

    def take(self, keep: np.ndarray) -> _Runs:
        """The runs of ``keep`` (a mask or indices) only (a mask found once as indices: cheaper to take)."""
        at = np.flatnonzero(keep) if keep.dtype == bool else keep
        return _Runs(self.label.take(at), self.row.take(at), self.first.take(at), self.last.take(at))

    def extents(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per label 0..n-1: its pixel count, first row, last row, first column and last column, each
        (n,) int64 (OpenCV's component statistics; label 0's, the background's, are not found)."""
        area = np.bincount(self.label, self.last - self.first + 1, minlength=n).astype(np.int64)
        top, bottom = np.full(n, self.row.max(initial=0)), np.zeros(n, np.int64)
        left, right = np.full(n, self.last.max(initial=0)), np.zeros(n, np.int64)
        np.minimum.at(top, self.label, self.row)
        np.maximum.at(bottom, self.label, self.row)
        np.minimum.at(left, self.label, self.first)
        np.maximum.at(right, self.label, self.last)
        return area, top, bottom, left, right

    def sums(self, ids: np.ndarray, n: int) -> np.ndarray:
        """Per id 0..n-1 of the runs' ``ids`` (K,), the sums (n, 5) float64 of its pixels' row, column,
        row², row·column and column² (whole numbers: exact, whatever the order they are added in)."""
        r, a, b = self.row, self.first, self.last
        length = b - a + 1
        col_sum = (a + b) * length // 2
        col_sq = (b * (b + 1) * (2 * b + 1) - (a - 1) * a * (2 * a - 1)) // 6
        terms = (r * length, col_sum, r * r * length, r * col_sum, col_sq)
        return np.stack([np.bincount(ids, t, minlength=n) for t in terms], axis=1)

    def box(self, margin: int, shape: tuple[int, int]) -> tuple[slice, slice]:
        """The rows and columns of the runs, ``margin`` more each way, within an image of ``shape``."""
        if len(self.row) == 0:
            return slice(0, 0), slice(0, 0)
        h, w = shape
        rows = slice(max(int(self.row.min()) - margin, 0), min(int(self.row.max()) + margin + 1, h))
        return rows, slice(max(int(self.first.min()) - margin, 0), min(int(self.last.max()) + margin + 1, w))

    def image(self, values: np.ndarray, box: tuple[slice, slice]) -> np.ndarray:
        """The image (rows, columns of ``box``, which holds every run) of each run painted in its value of
        ``values`` (K,), 0 elsewhere, of ``values``' dtype: the runs, in order along the rows, repeated out
        with the gaps between them (cheaper than a lookup per pixel of a label image)."""
        rows, cols = box
        h, w = rows.stop - rows.start, cols.stop - cols.start
        start = (self.row - rows.start) * w + (self.first - cols.start)
        end = start + (self.last - self.first + 1)
        gaps = start - np.concatenate([[0], end[:-1]])
        tail = h * w - (int(end[-1]) if len(end) else 0)
        lengths = np.append(np.stack([gaps, end - start], axis=1).ravel(), tail)
        painted = np.zeros(2 * len(values) + 1, values.dtype)  # each gap's 0, then its run's value
        painted[1::2] = values
        return np.repeat(painted, lengths).reshape(h, w)

    def totals(self, integral: np.ndarray, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
        """Each run's sum (K,) float64 of the image whose :func:`cv2.integral` (H+1, W+1) is given, that
        image's pixel (0, 0) being the runs' ``origin`` (row, col)."""
        flat, step = integral.ravel(), integral.shape[1]
        above = (self.row - origin[0]) * step
        below = above + step
        first = self.first - origin[1]
        after = self.last + 1 - origin[1]
        to_end = flat[below + after] - flat[above + after]
        before = flat[below + first] - flat[above + first]
        return np.asarray(to_end - before, np.float64)
