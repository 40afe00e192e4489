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
from vision.geometry import chessboard
from vision.outline import Later, profiles_later
from vision.patch_masks import line_counts, patch_grid, pixel_count, symbol_centres, symbol_parts

#: Side of the silhouette a shape is compared on.
MASK = 16
#: A tile's paint is ringed by at least this dark fraction of body.
RIM_DARK = 0.6
#: A tile's paint covers at most this fraction of the band along the cell's edge.
MAX_REACH = 0.5
#: The silhouette's root-mean-square radius, as a fraction of MASK.
SPREAD = 0.22


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
        in the cell, of the symbol's own part, :func:`vision.patch_masks.symbol_parts`).
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
        return _frame_darkness(*line_counts(self._dark))

    @functools.cached_property
    def rim(self) -> np.ndarray:
        """The dark fraction (N,) of a two-pixel ring around each patch's paint."""
        n, s = self.level.shape[:2]
        grown = cv2.dilate(self._paint.view(np.uint8).reshape(n * s, s), _SQUARE5).reshape(n, s, s)
        edge = (grown > 0) & ~self._paint & patch_grid(s).edge
        return np.asarray(pixel_count(edge & self._dark) / np.maximum(pixel_count(edge), 1))

    @functools.cached_property
    def reach(self) -> np.ndarray:
        """The painted fraction (N,) of the band just inside each cell's edge."""
        g = patch_grid(self.level.shape[1])
        return np.asarray(pixel_count(self._paint & g.band) / max(g.band_size, 1))

    @functools.cached_property
    def _paint(self) -> np.ndarray:
        return np.asarray((self.level > 0.5) & patch_grid(self.level.shape[1]).inside)

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
            & (chessboard(self.offset) < 0.2)
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
    g = patch_grid(s)
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
    per_row, per_col = line_counts(mask)
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
    g = patch_grid(level.shape[1])
    solid = (level > 0.75) & g.inside
    ring = (level < 0.35) & g.ring
    rows, own = symbol_parts(level)
    if len(rows):
        # where other paint shows in the cell (the light table past the face's edge, a neighbour's paint
        # or side face), the paint's colour is its symbol's own: the part's paint near its median pixel
        mine = solid[rows] & own
        bare = pixel_count(mine) == 0  # (no pixel of the part is fully in the paint: keep all the paint)
        mine[bare] = solid[rows][bare]
        solid[rows] = mine  # (solid is this call's own array)
    paint, body = _masked_means(patches, solid, ring)
    # the silhouettes and hole profiles are found when first read (see _OnRead)
    silhouette = Later(lambda: _centred(np.clip(level, 0, 1) * g.inside, p.offset))
    sharpness = _sharpness(level)
    glare = pixel_count((_darkest(patches) > 235) & g.ring) / g.ring.size / max(float(g.ring.mean()), 1e-6)
    radial, hole = profiles_later(level, symbol_centres(p.offset, rows, own))
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
    moment = (flat * patch_grid(s).r2.reshape(-1)).sum(axis=1)  # each row summed as one patch alone would be
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
    return np.asarray(g.sum(axis=(1, 2)) / np.maximum(pixel_count(edge), 1))
