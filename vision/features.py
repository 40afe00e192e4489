"""What the reader measures on each cell's patch: is a tile there, its paint colour, its symbol's
silhouette, and how trustworthy the view is (blur, glare).

Everything is computed for all patches at once on an (N, S, S, 3) stack. The measurements are plain
arrays in a :class:`Measurements`; :mod:`vision.classify` turns them into names with the help of
prototypes, and calibration learns prototypes from them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import strength
from vision.geometry import remap

#: Side of the silhouette a shape is compared on.
MASK = 16
#: A tile's paint is ringed by at least this dark fraction of body.
RIM_DARK = 0.6
#: A tile's paint covers at most this fraction of the band along the cell's edge.
MAX_REACH = 0.5
#: Patches measured per cv2.remap call (it takes images of at most 32767 rows).
CHUNK = 256
#: The silhouette's root-mean-square radius, as a fraction of MASK.
SPREAD = 0.22
#: Rays of the radial profile (angles, evenly spaced from the grid's column axis) and samples along each.
RAYS = 64
#: How far the rays reach, in cells (a criss-cross's tips come within a few per cent of the face's corner).
REACH = 0.5


@dataclass(frozen=True)
class Measurements:
    """Per-patch measurements (N patches).

    Attributes
    ----------
    paint : ndarray, shape (N, 3), float64
        Mean BGR of the symbol's paint (its inner part, away from the blurred edge).
    body : ndarray, shape (N, 3), float64
        Mean BGR of the tile body around the symbol.
    contrast : ndarray, shape (N,)
        Paint strength over body strength, as (paint - body) / paint, 0..1.
    frame : ndarray, shape (N,)
        How dark the patch's outer frame is on its three darkest sides: near 1 for a tile, low for an
        empty cell on a light table.
    rim : ndarray, shape (N,)
        Dark fraction of the ring around the paint (see :class:`Presence`).
    coverage : ndarray, shape (N,)
        Fraction of the cell covered by paint.
    offset : ndarray, shape (N, 2)
        The symbol's centroid relative to the patch centre, in cells ``(row, col)``.
    silhouette : ndarray, shape (N, MASK, MASK), float32
        The symbol's paint mask, centred on its centroid, 0..1.
    sharpness : ndarray, shape (N,)
        Edge steepness of the symbol relative to its contrast (low when blurred).
    glare : ndarray, shape (N,)
        Fraction of the cell that is blown-out white where the body should be dark.
    radial : ndarray, shape (N, RAYS), float32
        The symbol's radius along each ray from its centre, divided by the mean radius: ray ``k`` leaves
        at ``2πk/RAYS`` from the grid's column axis, turning towards its row axis (see :func:`radial`).
    hole : ndarray, shape (N, RAYS), float32
        The radius of the hole in the symbol along the same rays, over the symbol's mean radius: the
        colour-blind edition's inner mark (see :func:`profiles`).
    patch : ndarray, shape (N, S, S, 3), uint8
        The patches measured (Herkle's shields are looked at again with the whole frame's field colour,
        :mod:`vision.shields`).
    """

    paint: np.ndarray
    body: np.ndarray
    contrast: np.ndarray
    frame: np.ndarray
    rim: np.ndarray
    coverage: np.ndarray
    offset: np.ndarray
    silhouette: np.ndarray
    sharpness: np.ndarray
    glare: np.ndarray
    radial: np.ndarray
    hole: np.ndarray
    patch: np.ndarray

    def __len__(self) -> int:
        return len(self.paint)

    def take(self, keep: np.ndarray) -> Measurements:
        return Measurements(*(getattr(self, f)[keep] for f in self.__dataclass_fields__))


@dataclass(frozen=True)
class _Grid:
    """The constant masks of an S×S patch (S = ``len(u)``): ``u`` the pixel centres in cells from the middle
    (-0.5..0.5), ``radius`` the chessboard distance from the middle (S, S), and the masks and flat
    indices the measurements use."""

    u: np.ndarray
    radius: np.ndarray
    inside: np.ndarray  # radius < 0.46: the cell's face, short of its edge
    edge: np.ndarray  # radius < 0.48
    band: np.ndarray  # 0.40 < radius < 0.46: just inside the face's edge
    band_size: int
    body: np.ndarray  # flat indices of radius > 0.40
    core: np.ndarray  # flat indices within 0.30 of the middle
    core_mask: np.ndarray
    ring: np.ndarray  # radius > 0.38
    r2: np.ndarray  # squared pixel distance from the middle


@functools.cache
def _grid(s: int) -> _Grid:
    u = (np.arange(s) + 0.5) / s - 0.5
    radius = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :])
    core = np.hypot(u[:, None], u[None, :]) < 0.30
    band = (radius > 0.40) & (radius < 0.46)
    px = np.arange(s) - (s - 1) / 2
    grid = _Grid(
        u=u,
        radius=radius,
        inside=radius < 0.46,
        edge=radius < 0.48,
        band=band,
        band_size=int(band.sum()),
        body=np.flatnonzero(radius > 0.40),
        core=np.flatnonzero(core),
        core_mask=core,
        ring=radius > 0.38,
        r2=px[:, None] ** 2 + px[None, :] ** 2,
    )
    for value in vars(grid).values():  # shared by every call: never to be written to
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return grid


_SQUARE5 = np.ones((5, 5), np.uint8)


@dataclass(frozen=True)
class Presence:
    """The cheap part of the measurements, enough to tell a tile from an empty cell (N patches).

    ``level`` is each patch's paint strength rescaled so that the body is 0 and the paint 1,
    ``radius`` the chessboard distance of each pixel from the patch centre (0..0.5, shape (S, S)).
    ``frame``, ``rim`` and ``reach`` are found from ``level`` when first asked for (a coarse look at
    the cells next to the tiles reads only ``contrast`` and ``offset``): ``frame`` is how dark the
    patch's outer frame is on its three darkest sides, ``rim`` the dark fraction of a two-pixel ring
    around the paint (a painted symbol is ringed by the black body; a mark printed on a board or a
    pattern on a cloth is not), ``reach`` the painted fraction of the band just inside the cell's edge
    (a symbol leaves most of it black, the table seen through an empty cell between tiles fills it).
    """

    contrast: np.ndarray
    coverage: np.ndarray
    offset: np.ndarray
    level: np.ndarray
    radius: np.ndarray

    def take(self, keep: np.ndarray) -> Presence:
        return Presence(
            self.contrast[keep], self.coverage[keep], self.offset[keep], self.level[keep], self.radius
        )

    @functools.cached_property
    def frame(self) -> np.ndarray:
        """How dark each patch's frame is on its three darkest sides (N,)."""
        return _frame_darkness(*_line_counts(self._dark))

    @functools.cached_property
    def rim(self) -> np.ndarray:
        """The dark fraction (N,) of a two-pixel ring around each patch's paint."""
        n, s = self.level.shape[:2]
        grown = cv2.dilate(self._paint.view(np.uint8).reshape(n * s, s), _SQUARE5).reshape(n, s, s)
        edge = (grown > 0) & ~self._paint & _grid(s).edge
        return np.asarray(_count(edge & self._dark) / np.maximum(_count(edge), 1))

    @functools.cached_property
    def reach(self) -> np.ndarray:
        """The painted fraction (N,) of the band just inside each cell's edge."""
        g = _grid(self.level.shape[1])
        return np.asarray(_count(self._paint & g.band) / max(g.band_size, 1))

    @functools.cached_property
    def _paint(self) -> np.ndarray:
        return np.asarray((self.level > 0.5) & _grid(self.level.shape[1]).inside)

    @functools.cached_property
    def _dark(self) -> np.ndarray:
        return np.asarray(self.level < 0.35)

    def found(self, min_contrast: float, *, framed: bool = True) -> np.ndarray:
        """Patches that look like a tile centred in its cell: contrasted paint of a symbol's size in the
        middle, a dark frame around it (unless not ``framed``: the dark ring around the paint is then the
        only sign of a tile's body)."""
        return np.asarray(
            (self.contrast > min_contrast)
            & ((self.frame > 0.5) | (not framed))
            & (self.rim > RIM_DARK)
            & (self.reach < MAX_REACH)
            & (self.coverage > 0.08)
            & (self.coverage < 0.65)
            & (np.abs(self.offset).max(axis=1) < 0.2)
        )


def presence(patches: np.ndarray) -> Presence:
    """Measure how much each patch looks like a tile (see :class:`Presence`).

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches, one cell each, in the grid's axes (:func:`vision.patches.cut_patches`).
    """
    if patches.ndim != 4 or patches.shape[3] != 3 or patches.dtype != np.uint8:
        raise ValueError(
            f"patches must be (N, S, S, 3) uint8, got shape {patches.shape} dtype {patches.dtype}"
        )
    n, s = patches.shape[0], patches.shape[1]
    g = _grid(s)
    q8 = strength(patches.reshape(n * s, s, 3)).reshape(n, s * s)
    # the quantiles of the uint8 strengths are those of their float copies, found faster
    body_level = _quantile(q8[:, g.body], 0.25).astype(np.float32)
    paint_level = _quantile(q8[:, g.core], 0.90).astype(np.float32)
    span = np.maximum(paint_level - body_level, 1.0)
    level = q8.reshape(n, s, s).astype(np.float32)
    level -= body_level[:, None, None]
    level /= span[:, None, None]
    mask = (level > 0.5) & g.inside
    contrast = (paint_level - body_level) / np.maximum(paint_level, 1.0)
    per_row, per_col = _line_counts(mask)
    count = per_row.sum(axis=1)
    coverage = count / (s * s)
    area = np.maximum(count, 1)
    # the centroid from the painted pixels per row and per column (sums of multiples of 1/(2s): exact)
    offset = np.stack([per_row @ g.u / area, per_col @ g.u / area], axis=1)
    return Presence(contrast, coverage, offset, level, g.radius)


def measure(patches: np.ndarray, found: Presence | None = None) -> Measurements:
    """Measure a stack of cell patches.

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches, one cell each, in the grid's axes (:func:`vision.patches.cut_patches`).
    found : Presence, optional
        :func:`presence` of the same patches, if already known.

    Returns
    -------
    Measurements
    """
    p = found if found is not None else presence(patches)
    level = p.level
    g = _grid(level.shape[1])
    solid = (level > 0.75) & g.inside
    ring = (level < 0.35) & g.ring
    paint, body = _masked_means(patches, solid, ring)
    silhouette = _centred(np.clip(level, 0, 1) * g.inside, p.offset)
    sharpness = _sharpness(level)
    glare = _count((_darkest(patches) > 235) & g.ring) / g.ring.size / max(float(g.ring.mean()), 1e-6)
    return Measurements(
        paint,
        body,
        p.contrast,
        p.frame,
        p.rim,
        p.coverage,
        p.offset,
        silhouette,
        sharpness,
        glare,
        *profiles(level, symbol_centre(level, p.offset)),
        patches,
    )


def symbol_centre(level: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Each symbol's own centre (N, 2), in cells ``(row, col)`` from the patch centre.

    ``offset`` is the centroid of all the paint in the cell, which paint that is not the symbol's pulls
    aside: a leaning cube's side face, a neighbour's edge, the table past the face. The symbol is the
    connected part of the paint (``level`` above one half) that covers most of the cell's middle (every
    symbol covers its centre, or rings it around the colour-blind inner mark); its centroid is returned
    for the patches where other paint was found, ``offset`` for the others.
    """
    n, s = level.shape[:2]
    g = _grid(s)
    out = np.array(offset, np.float64, copy=True)
    if n == 0:
        return out
    # count the parts of paint of all patches in one labelling, the patches stacked with an empty row
    # after each (no part runs from one into the next); only where there are several are they told apart
    paint = np.zeros((n, s + 1, s), np.uint8)
    paint[:, :s] = (level > 0.5) & g.inside
    _, labels = cv2.connectedComponents(paint.reshape(n * (s + 1), s), connectivity=8)
    labels = labels.reshape(n, -1)
    # the lowest label of each patch's paint, less one (a patch without paint: the largest uint32)
    lowest = (labels - 1).view(np.uint32).min(axis=1).astype(np.int64) + 1
    # one part of paint (or none): the centroid is the symbol's
    for i in np.flatnonzero(lowest < labels.max(axis=1)):
        count, labels = cv2.connectedComponents(paint[i, :s], connectivity=8)
        main = np.bincount(labels[g.core_mask], minlength=count)[1:].argmax() + 1
        rows, cols = np.nonzero(labels == main)
        out[i] = (g.u[rows].mean(), g.u[cols].mean())
    return out


def outline(radial_profile: np.ndarray) -> np.ndarray:
    """A symbol's outline descriptor from its radial profile (:func:`radial`): shape (N, 4) float64.

    The columns are Fourier coefficients of the profile that tell the classic symbols apart whatever the
    painter's hand: the fourfold harmonic signed by where its peaks lie (positive on the grid's axes, as a
    diamond's corners or a clover's lobes; negative on the diagonals, as a square's corners or a
    criss-cross's tips), the eightfold harmonic in the same frame (positive when the peaks are sharper than
    the valleys, as a diamond's; negative when the valleys are, as between a clover's round lobes), the
    eightfold harmonic's size (a starburst's eight points) and the twelvefold's (the sharpness of a
    criss-cross's tips). A tile askew by a few degrees turns the fourfold harmonic's phase; the frame is
    turned with it before the eightfold one is read.
    """
    r = np.asarray(radial_profile, np.float64)
    a = np.arange(r.shape[1]) * (2 * np.pi / r.shape[1])
    h4, h8, h12 = (2 * (r * np.exp(-1j * k * a)).mean(axis=1) for k in (4, 8, 12))
    phase = np.angle(h4)
    turn = np.where(np.abs(phase) <= np.pi / 2, phase, phase - np.sign(phase) * np.pi)  # peaks' offset x4
    return np.column_stack(
        [np.real(h4 * np.exp(-1j * turn)), np.real(h8 * np.exp(-2j * turn)), np.abs(h8), np.abs(h12)]
    )


def asymmetry(radial_profile: np.ndarray) -> np.ndarray:
    """How far each outline (N,) is from a fourfold symmetry, from its radial profile (:func:`radial`).

    Every symbol of the star-shaped editions looks the same after a quarter turn, so its profile holds
    only the harmonics 4, 8, 12, ... What the lower others (1, 2, 3, 5, 6, 7) add up to, in fractions of
    the mean radius, is what is not such a symbol: a leaning cube's side face (a symbol squashed flat),
    a symbol cut by the frame, a hand or a neighbour's paint run into it, the table through a gap.
    """
    r = np.asarray(radial_profile, np.float64)
    a = np.arange(r.shape[1]) * (2 * np.pi / r.shape[1])
    odd = np.array([2 * (r * np.exp(-1j * k * a)).mean(axis=1) for k in (1, 2, 3, 5, 6, 7)])
    return np.asarray(np.sqrt((np.abs(odd) ** 2).sum(axis=0)))


def radial(level: np.ndarray, offset: np.ndarray, *, rays: int = RAYS) -> np.ndarray:
    """The symbol's radial profile: its radius along ``rays`` rays from its centre, over the mean radius.

    Along each ray the paint level is sampled outwards from the centre; whatever lies before the ray is
    first fully in the paint counts as paint (the colour-blind edition's inner mark is a hole in the
    symbol, not its edge), and the radius is where the paint first ends, found to a fraction of a pixel as
    the sum of the running minimum of the clipped level (stray paint beyond a gap is ignored). Every
    classic symbol is star-shaped about its centre, so the profile is its whole outline.

    Parameters
    ----------
    level : ndarray, shape (N, S, S), float32
        Paint level per patch (body 0, paint 1; :attr:`Presence.level`).
    offset : ndarray, shape (N, 2)
        Symbol centre relative to the patch centre, in cells ``(row, col)``.

    Returns
    -------
    ndarray, shape (N, rays), float32
    """
    return profiles(level, offset, rays=rays)[0]


def profiles(level: np.ndarray, offset: np.ndarray, *, rays: int = RAYS) -> tuple[np.ndarray, np.ndarray]:
    """The symbol's radial profile (:func:`radial`) and its hole's, from one sampling of the rays.

    The hole's profile is, along each ray, how far from the centre the paint is not yet fully there (the
    colour-blind edition's inner mark; near zero for a solid symbol), over the symbol's mean radius.
    Both are (N, rays) float32.
    """
    n, s = level.shape[:2]
    if n > CHUNK:  # cv2.remap takes at most 32767 rows
        parts = [profiles(level[k : k + CHUNK], offset[k : k + CHUNK], rays=rays) for k in range(0, n, CHUNK)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    if n == 0:
        return np.zeros((0, rays), np.float32), np.zeros((0, rays), np.float32)
    down, across = _rays(s, rays)  # (steps, rays): each sample's offset from the centre, pixels
    steps = len(down)
    centre = (s - 1) / 2 + np.asarray(offset, np.float32) * s  # (N, 2) (row, col) pixels
    # the samples step by step (steps, N·rays), so that the running minima and maxima along the rays
    # below are a few operations on whole rows: the rays' offsets repeated for each patch, plus its centre
    # repeated for each ray (whole rows at a time, not a broadcast with rows of one patch's rays)
    rows = np.tile(down, (1, n))
    rows += np.repeat(centre[:, 0], rays)
    np.clip(rows, 0, s - 1, out=rows)
    rows += np.repeat(np.arange(n, dtype=np.float32) * s, rays)
    cols = np.tile(across, (1, n))
    cols += np.repeat(centre[:, 1], rays)
    np.clip(cols, 0, s - 1, out=cols)
    stacked = np.ascontiguousarray(level.reshape(n * s, s), dtype=np.float32)
    v = remap(stacked, rows, cols)
    np.clip(v, 0.0, 1.0, out=v)
    # the paint starts where a ray is first fully in it (its edge with a hole is only half paint)
    full = np.maximum(0.9 * v.max(axis=0), 0.5)
    waiting = v < full  # (the levels are finite)
    holed = np.divide(v, full, out=rows)  # the map's memory, no longer needed
    np.clip(holed, 0.0, 1.0, out=holed)
    for k in range(1, steps):  # running along the rays, in place
        np.logical_and(waiting[k - 1], waiting[k], out=waiting[k])
        np.maximum(holed[k - 1], holed[k], out=holed[k])
    solid = v  # the levels, 1 before the paint starts
    np.copyto(solid, np.float32(1.0), where=waiting)
    for k in range(1, steps):
        np.minimum(solid[k - 1], solid[k], out=solid[k])
    r = _ray_sums(solid).reshape(n, rays)
    hole = _ray_sums(np.subtract(1.0, holed, out=holed)).reshape(n, rays)
    mean = np.maximum(r.mean(axis=1, keepdims=True), 1e-6)
    return np.asarray(r / mean, np.float32), np.asarray(hole / mean, np.float32)


@functools.cache
def _rays(s: int, rays: int) -> tuple[np.ndarray, np.ndarray]:
    """The row and column offsets (steps, rays), float32, of the samples along :func:`profiles`' rays
    from a symbol's centre, in pixels of an S×S patch: half-pixel steps out to REACH cells."""
    steps = max(round(REACH * s * 2), 4)
    t = (np.arange(steps, dtype=np.float32) + 0.5) * (REACH * s / steps)
    a = np.arange(rays, dtype=np.float32) * np.float32(2 * np.pi / rays)
    down, across = np.sin(a)[None, :] * t[:, None], np.cos(a)[None, :] * t[:, None]
    down.flags.writeable = across.flags.writeable = False
    return down, across


def _ray_sums(values: np.ndarray) -> np.ndarray:
    """The sums (M,) along the first axis of (steps, M) float32 values, each added in the order NumPy's
    pairwise summation adds a contiguous row of ``steps`` (eight running partial sums, joined pairwise,
    then the remainder), so the float32 results are those of ``values.T.copy().sum(axis=1)`` without
    the transposed copy."""
    steps = len(values)
    if steps < 8 or steps > 128:  # NumPy adds these rows one by one, or in blocks
        return np.asarray(np.ascontiguousarray(values.T).sum(axis=1))
    part = values[:8].copy()
    whole = steps - steps % 8
    for k in range(8, whole, 8):
        part += values[k : k + 8]
    out = (part[0] + part[1]) + (part[2] + part[3])
    out += (part[4] + part[5]) + (part[6] + part[7])
    for k in range(whole, steps):
        out += values[k]
    return np.asarray(out)


def _quantile(values: np.ndarray, fraction: float) -> np.ndarray:
    """The ``fraction`` quantile of each row of (N, K) uint8 values (the nearest rank; NumPy's stable
    sort of 8-bit values is a radix sort, faster than a partition)."""
    k = min(round(fraction * (values.shape[1] - 1)), values.shape[1] - 1)
    return np.asarray(np.sort(values, axis=1, kind="stable")[:, k])


def _masked_means(px: np.ndarray, *masks: np.ndarray) -> list[np.ndarray]:
    """Mean BGR (N, 3) of each patch's pixels (N, S, S, 3) under each of its masks (N, S, S), all in one
    matrix product: the float32 sums of whole 8-bit values stay exact (below 2**24), whatever order they
    are added in."""
    n = len(px)
    w = np.stack(masks, axis=1).reshape(n, len(masks), -1).astype(np.float32)
    total = w.sum(axis=2)
    out = (w @ px.reshape(n, -1, 3).astype(np.float32)) / np.maximum(total, 1)[:, :, None]
    return [np.asarray(out[:, k], dtype=np.float64) for k in range(len(masks))]


def _line_counts(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How many pixels of each patch's mask (N, S, S) are set in each row and in each column: two
    (N, S) int64 arrays (counted as float32 matrix products, exact below 2**24)."""
    ones = np.ones(mask.shape[1], np.float32)
    m = mask.astype(np.float32)
    return (m @ ones).astype(np.int64), (ones @ m).astype(np.int64)


def _count(mask: np.ndarray) -> np.ndarray:
    """How many pixels of each patch's mask (N, S, S) bool are set: (N,) int32 (whole numbers, as the
    mask's sum would give, counted by OpenCV in one pass)."""
    n = len(mask)
    if n == 0:
        return np.zeros(0, np.int32)
    flat = np.ascontiguousarray(mask).view(np.uint8).reshape(n, -1)
    return np.asarray(cv2.reduce(flat, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S)).reshape(n)


def _darkest(patches: np.ndarray) -> np.ndarray:
    """The darkest channel of each pixel of BGR patches (N, S, S, 3) uint8: (N, S, S) uint8."""
    n, s = patches.shape[:2]
    if n == 0:
        return np.zeros((0, s, s), np.uint8)
    b, g, r = cv2.split(patches.reshape(n * s, s, 3))
    return np.asarray(cv2.min(cv2.min(b, g), r)).reshape(n, s, s)


def _frame_darkness(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """How dark the frame is on its three darkest sides (the fraction of the third darkest side): a tall
    tile seen at an angle may show the table past one edge of its top face, never past three. ``rows``
    and ``cols`` (N, S) count the dark pixels in each row and column of the patches."""
    s = rows.shape[1]
    k = max(round(s * 0.1), 1)
    sides = [rows[:, :k], rows[:, -k:], cols[:, :k], cols[:, -k:]]
    return np.asarray(np.sort([side.sum(axis=1) / (k * s) for side in sides], axis=0)[1])


def _centred(level: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Each silhouette moved so its centroid is in the middle and scaled to a fixed spread (root mean
    square radius), then shrunk to MASK×MASK: shape without size or position."""
    n, s = level.shape[:2]
    flat = level.reshape(n, s * s)
    total = np.maximum(flat.sum(axis=1).astype(np.float64), 1e-6)
    cy, cx = offset[:, 0] * s, offset[:, 1] * s
    moment = (flat * _grid(s).r2.reshape(-1)).sum(axis=1)  # each row summed as one patch alone would be
    spread = np.sqrt(np.maximum(moment / total - cy * cy - cx * cx, 1.0))
    k = SPREAD * MASK / spread
    centre = (s - 1) / 2
    m = np.zeros((n, 2, 3))
    m[:, 0, 0] = m[:, 1, 1] = k
    m[:, 0, 2] = (MASK - 1) / 2 - k * (centre + cx)
    m[:, 1, 2] = (MASK - 1) / 2 - k * (centre + cy)
    out = np.empty((n, MASK, MASK), np.float32)
    for i in range(n):
        cv2.warpAffine(level[i], m[i], (MASK, MASK), dst=out[i], flags=cv2.INTER_AREA)
    return out


def _sharpness(level: np.ndarray) -> np.ndarray:
    """Mean gradient of the normalised strength across the symbol's edge (about 0.5 per pixel when sharp
    at the patch's resolution, falling as blur widens the edge)."""
    top = level[:, :-1, :-1]
    g = np.abs(level[:, :-1, 1:] - top)
    np.maximum(g, np.abs(level[:, 1:, :-1] - top), out=g)
    edge = g > 0.1
    np.multiply(g, edge, out=g)
    return np.asarray(g.sum(axis=(1, 2)) / np.maximum(_count(edge), 1))
