"""What the reader measures on each cell's patch: is a tile there, its paint colour, its symbol's
silhouette and outline (:mod:`vision.outline`), and how trustworthy the view is (blur, glare).

Everything is computed for all patches at once on an (N, S, S, 3) stack. The measurements are plain
arrays in a :class:`Measurements`; :mod:`vision.classify` turns them into names with the help of
prototypes, and calibration learns prototypes from them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.detect import strength
from vision.outline import Later, profiles_later

#: Side of the silhouette a shape is compared on.
MASK = 16
#: A tile's paint is ringed by at least this dark fraction of body.
RIM_DARK = 0.6
#: A tile's paint covers at most this fraction of the band along the cell's edge.
MAX_REACH = 0.5
#: The silhouette's root-mean-square radius, as a fraction of MASK.
SPREAD = 0.22
#: A symbol's centre is found from its paint within this chessboard distance of its paint's median, in
#: cells (a symbol reaches about 0.30 to 0.39 of a cell from its centre; a neighbour's paint joined to
#: it lies beyond).
WITHIN = 0.38


class _OnRead:
    """A :class:`Measurements` field that may be given as a :class:`~vision.outline.Later` computation,
    made when the field is first read: a star-shaped edition's reader names shapes by outline and never
    reads the silhouettes, and only the colour-blind edition reads the hole profiles (finding both took 3 %
    of a read's instructions). A field given as an array is that array."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> np.ndarray:
        if obj is None:
            raise AttributeError(self.slot[1:])  # a field without a default (as dataclasses asks)
        value = obj.__dict__[self.slot]
        if isinstance(value, Later):
            value = obj.__dict__[self.slot] = value()
        return np.asarray(value)

    def __set__(self, obj: Any, value: np.ndarray | Later) -> None:
        obj.__dict__[self.slot] = value

    def given(self, obj: Any) -> np.ndarray | Later:
        """The field of ``obj`` as given: an array, or a computation not made yet."""
        value: np.ndarray | Later = obj.__dict__[self.slot]
        return value


@dataclass(frozen=True)
class Measurements:
    """Per-patch measurements (N patches).

    Attributes
    ----------
    paint : ndarray, shape (N, 3), float64
        Mean BGR of the symbol's paint (its inner part, away from the blurred edge; where other paint shows
        in the cell, of the symbol's own part, :func:`symbol_parts`).
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
    sharpness : ndarray, shape (N,)
        Edge steepness of the symbol relative to its contrast (low when blurred).
    glare : ndarray, shape (N,)
        Fraction of the cell that is blown-out white where the body should be dark.
    radial : ndarray, shape (N, RAYS), float32
        The symbol's radius along each ray from its centre, divided by the mean radius: ray ``k`` leaves
        at ``2πk/RAYS`` from the grid's column axis, turning towards its row axis
        (:func:`vision.outline.radial`).
    patch : ndarray, shape (N, S, S, 3), uint8
        The patches measured (Herkle's shields are looked at again with the whole frame's field colour,
        :mod:`vision.shields`).
    silhouette : ndarray, shape (N, MASK, MASK), float32
        The symbol's paint mask, centred on its centroid, 0..1 (found when first read).
    hole : ndarray, shape (N, RAYS), float32
        The radius of the hole in the symbol along the rays of ``radial``, over the symbol's mean radius: the
        colour-blind edition's inner mark (see :func:`vision.outline.profiles`; found when first read).
    """

    paint: np.ndarray
    body: np.ndarray
    contrast: np.ndarray
    frame: np.ndarray
    rim: np.ndarray
    coverage: np.ndarray
    offset: np.ndarray
    sharpness: np.ndarray
    glare: np.ndarray
    radial: np.ndarray
    patch: np.ndarray
    # found when first read (a field with no default: given, as an array or a computation to make)
    silhouette: _OnRead = _OnRead()
    hole: _OnRead = _OnRead()

    def __len__(self) -> int:
        return len(self.paint)

    def take(self, keep: np.ndarray) -> Measurements:
        """The patches of ``keep`` (a mask or indices) only (what is not found yet is found for them
        when first read)."""
        columns: dict[str, Any] = {f: _taken(_given(self, f), keep) for f in self.__dataclass_fields__}
        return Measurements(**columns)


def concat(parts: list[Measurements]) -> Measurements:
    """The measurements of ``parts``, one after the other (what is not found yet is found when first
    read)."""
    columns: dict[str, Any] = {}
    for f in Measurements.__dataclass_fields__:
        given = [_given(p, f) for p in parts]
        arrays = [v for v in given if not isinstance(v, Later)]
        columns[f] = np.concatenate(arrays) if len(arrays) == len(given) else Later.joined(given)
    return Measurements(**columns)


def _given(m: Measurements, name: str) -> np.ndarray | Later:
    """Field ``name`` of ``m`` as given: an array, or a computation not made yet."""
    field = vars(Measurements).get(name)
    return field.given(m) if isinstance(field, _OnRead) else np.asarray(getattr(m, name))


def _taken(value: np.ndarray | Later, keep: np.ndarray) -> np.ndarray | Later:
    return value.take(keep) if isinstance(value, Later) else value[keep]


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
    rim_band: np.ndarray  # WITHIN + 0.02 < radius < 0.46: where a neighbour's paint may join a symbol


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
        rim_band=(radius > WITHIN + 0.02) & (radius < 0.46),
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
        """The patches of ``keep`` (a mask or indices) only, with what was already found of them (each
        patch's ``frame``, ``rim`` and ``reach`` are its own: none looks at another patch)."""
        out = Presence(
            self.contrast[keep], self.coverage[keep], self.offset[keep], self.level[keep], self.radius
        )
        for name in _FOUND_LATER:
            if name in self.__dict__:
                out.__dict__[name] = self.__dict__[name][keep]
        return out

    def with_rows(self, rows: np.ndarray, new: Presence) -> Presence:
        """These patches with those of ``rows`` (indices) replaced by ``new``'s (what was already found of
        the others is kept, and found of ``new``'s)."""
        fields = {f: getattr(self, f).copy() for f in Presence.__dataclass_fields__ if f != "radius"}
        for f, v in fields.items():
            v[rows] = getattr(new, f)
        out = Presence(**fields, radius=self.radius)
        for name in _FOUND_LATER:
            if name in self.__dict__:
                merged = self.__dict__[name].copy()
                merged[rows] = getattr(new, name)
                out.__dict__[name] = merged
        return out

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


#: What :class:`Presence` finds when first asked for, per patch.
_FOUND_LATER = ("frame", "rim", "reach", "_paint", "_dark")


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
    rows, own = symbol_parts(level)
    if len(rows):
        # where other paint shows in the cell (the light table past the face's edge, a neighbour's paint
        # or side face), the paint's colour is its symbol's own: the part's paint near its median pixel
        mine = solid[rows] & own
        bare = _count(mine) == 0  # (no pixel of the part is fully in the paint: keep all the paint)
        mine[bare] = solid[rows][bare]
        solid[rows] = mine  # (solid is this call's own array)
    paint, body = _masked_means(patches, solid, ring)
    # the silhouettes and hole profiles are found when first read (see _OnRead)
    silhouette = Later(lambda: _centred(np.clip(level, 0, 1) * g.inside, p.offset))
    sharpness = _sharpness(level)
    glare = _count((_darkest(patches) > 235) & g.ring) / g.ring.size / max(float(g.ring.mean()), 1e-6)
    centre = np.array(p.offset, np.float64, copy=True)
    centre[rows] = _centroid(own, g.u)
    radial, hole = profiles_later(level, centre)
    return Measurements(
        paint,
        body,
        p.contrast,
        p.frame,
        p.rim,
        p.coverage,
        p.offset,
        sharpness,
        glare,
        radial,
        patches,
        silhouette=silhouette,
        hole=hole,
    )


def symbol_centre(level: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Each symbol's own centre (N, 2), in cells ``(row, col)`` from the patch centre: the centroid of
    its own paint (:func:`symbol_parts`) for the patches where other paint was found, ``offset`` (the
    centroid of all the paint in the cell) for the others."""
    rows, own = symbol_parts(level)
    out = np.array(offset, np.float64, copy=True)
    out[rows] = _centroid(own, _grid(level.shape[1]).u)
    return out


def symbol_parts(level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The patches (K,) whose paint (``level`` (N, S, S) above one half) is not all their symbol's, and
    each one's symbol's own paint (K, S, S) bool.

    Paint that is not the symbol's pulls the centroid aside and tints the paint's colour: a leaning
    cube's side face, a neighbour's edge, the light table past the face. The symbol is the connected part
    of the paint that covers most of the cell's middle (every symbol covers its centre, or rings it
    around the colour-blind inner mark). Paint of a neighbour (a cube's side face, the table) may join
    the symbol's part through a blurred neck, so only the part's paint within WITHIN of its median pixel
    (a chessboard distance) is kept, where the symbol lies (the whole part where none lies within).
    Listed are the patches with several parts of paint or paint in the band just inside the cell's edge;
    in the others all the paint is the symbol's.
    """
    n, s = level.shape[:2]
    g = _grid(s)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros((0, s, s), bool)
    # count the parts of paint of all patches in one labelling, the patches stacked with an empty row
    # after each (no part runs from one into the next); only where there are several are they told apart
    paint = np.zeros((n, s + 1, s), np.uint8)
    paint[:, :s] = (level > 0.5) & g.inside
    _, labels = cv2.connectedComponents(paint.reshape(n * (s + 1), s), connectivity=8)
    labels = labels.reshape(n, -1)
    # the lowest label of each patch's paint, less one (a patch without paint: the largest uint32)
    lowest = (labels - 1).view(np.uint32).min(axis=1).astype(np.int64) + 1
    # one part of paint (or none), short of the band inside the cell's edge: the centroid is the symbol's
    several = lowest < labels.max(axis=1)
    edged = _count(paint[:, :s].view(bool) & g.rim_band) > 0
    rows = np.flatnonzero(several | edged)
    parts = paint[rows, :s].view(bool)  # (the one part of paint where there is one)
    for k in np.flatnonzero(several[rows]):
        count, labels = cv2.connectedComponents(paint[rows[k], :s], connectivity=8)
        main = np.bincount(labels[g.core_mask], minlength=count)[1:].argmax() + 1
        parts[k] = labels == main
    return rows, _near_median(parts, g.u)


def _near_median(part: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Each patch's part of paint (N, S, S) bool within WITHIN (a chessboard distance) of its median
    pixel, ``u`` (S,) the pixel centres in cells; the whole part where none lies within."""
    per_row, per_col = _line_counts(part)
    total = per_row.sum(axis=1)
    centre = np.stack([_median_at(per_row, total, u), _median_at(per_col, total, u)], axis=1)
    near_row = np.abs(u[None, :] - centre[:, :1]) < WITHIN  # (N, S)
    near_col = np.abs(u[None, :] - centre[:, 1:]) < WITHIN
    near = part & near_row[:, :, None] & near_col[:, None, :]
    none = _count(near) == 0
    near[none] = part[none]
    return np.asarray(near)


def _centroid(part: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The centroid (N, 2) ``(row, col)`` in cells of each patch's mask (N, S, S) bool, ``u`` (S,) the
    pixel centres in cells."""
    in_row, in_col = _line_counts(part)
    count = in_row.sum(axis=1)
    return np.asarray(np.stack([in_row @ u, in_col @ u], axis=1) / np.maximum(count, 1)[:, None])


def _median_at(counts: np.ndarray, total: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The median (N,) of the pixel coordinates ``u`` (S,) taken ``counts`` (N, S) times each (``total``
    (N,) in all): the mean of the two middle ones for an even total."""
    running = np.cumsum(counts, axis=1)
    low = (running > ((total - 1) // 2)[:, None]).argmax(axis=1)
    high = (running > (total // 2)[:, None]).argmax(axis=1)
    return np.asarray((u[low] + u[high]) / 2)


def _quantile(values: np.ndarray, fraction: float) -> np.ndarray:
    """The ``fraction`` quantile of each row of (N, K) uint8 values (the nearest rank; NumPy's stable
    sort of 8-bit values is a radix sort, faster than a partition)."""
    k = min(round(fraction * (values.shape[1] - 1)), values.shape[1] - 1)
    return np.asarray(np.sort(values, axis=1, kind="stable")[:, k])


def _masked_means(px: np.ndarray, *masks: np.ndarray) -> list[np.ndarray]:
    """Mean BGR (N, 3) of each patch's pixels (N, S, S, 3) under each of its masks (N, S, S): each
    channel plane's dot products with each mask, row by row (far fewer instructions than a batch of
    small matrix products); the float32 sums of whole 8-bit values stay exact (below 2**24), whatever
    order they are added in."""
    n, s = px.shape[:2]
    if n == 0:
        return [np.zeros((0, 3)) for _ in masks]
    planes = [c.reshape(n, -1).astype(np.float32) for c in cv2.split(px.reshape(n * s, s, 3))]
    out = []
    for mask in masks:
        w = mask.reshape(n, -1).astype(np.float32)
        sums = np.stack([np.einsum("np,np->n", w, c) for c in planes], axis=1)
        out.append(np.asarray(sums / np.maximum(w.sum(axis=1), 1)[:, None], dtype=np.float64))
    return out


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
