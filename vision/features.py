"""What the reader measures on each cell's patch: is a tile there, its paint colour, its symbol's
silhouette, and how trustworthy the view is (blur, glare).

Everything is computed for all patches at once on an (N, S, S, 3) stack. The measurements are plain
arrays in a :class:`Measurements`; :mod:`vision.classify` turns them into names with the help of
prototypes, and calibration learns prototypes from them.
"""

from __future__ import annotations

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
class Presence:
    """The cheap part of the measurements, enough to tell a tile from an empty cell (N patches).

    ``rim`` is the dark fraction of a two-pixel ring around the paint (a painted symbol is ringed by
    the black body; a mark printed on a board or a pattern on a cloth is not). ``reach`` is the painted
    fraction of the band just inside the cell's edge: a symbol leaves most of it black, the table seen
    through an empty cell between tiles fills it. ``level`` is each patch's
    paint strength rescaled so that the body is 0 and the paint 1,
    ``radius`` the chessboard distance of each pixel from the patch centre (0..0.5, shape (S, S)).
    """

    contrast: np.ndarray
    frame: np.ndarray
    rim: np.ndarray
    reach: np.ndarray
    coverage: np.ndarray
    offset: np.ndarray
    level: np.ndarray
    radius: np.ndarray

    def take(self, keep: np.ndarray) -> Presence:
        return Presence(
            self.contrast[keep],
            self.frame[keep],
            self.rim[keep],
            self.reach[keep],
            self.coverage[keep],
            self.offset[keep],
            self.level[keep],
            self.radius,
        )

    def found(self, min_contrast: float) -> np.ndarray:
        """Patches that look like a tile centred in its cell: contrasted paint of a symbol's size in the
        middle, a dark frame around it."""
        return np.asarray(
            (self.contrast > min_contrast)
            & (self.frame > 0.5)
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
    q = strength(patches.reshape(n * s, s, 3)).reshape(n, s, s).astype(np.float32)
    u = (np.arange(s) + 0.5) / s - 0.5
    radius = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :])
    core = np.hypot(u[:, None], u[None, :]) < 0.30
    body_level = _quantile(q[:, radius > 0.40], 0.25)
    paint_level = _quantile(q[:, core], 0.90)
    span = np.maximum(paint_level - body_level, 1.0)
    level = (q - body_level[:, None, None]) / span[:, None, None]
    mask = (level > 0.5) & (radius < 0.46)
    contrast = (paint_level - body_level) / np.maximum(paint_level, 1.0)
    coverage = mask.mean(axis=(1, 2))
    area = np.maximum(mask.sum(axis=(1, 2)), 1)
    offset = np.stack(
        [(mask * u[:, None]).sum(axis=(1, 2)) / area, (mask * u[None, :]).sum(axis=(1, 2)) / area], axis=1
    )
    dark = level < 0.35
    frame = _frame_darkness(dark)
    grown = cv2.dilate(mask.astype(np.uint8).reshape(n * s, s), np.ones((5, 5), np.uint8)).reshape(n, s, s)
    edge = (grown > 0) & ~mask & (radius < 0.48)
    rim = (edge & dark).sum(axis=(1, 2)) / np.maximum(edge.sum(axis=(1, 2)), 1)
    band = (radius > 0.40) & (radius < 0.46)
    reach = (mask & band).sum(axis=(1, 2)) / max(int(band.sum()), 1)
    return Presence(contrast, frame, rim, reach, coverage, offset, level, radius)


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
    level, radius = p.level, p.radius
    inner = radius < 0.46
    solid = (level > 0.75) & inner
    dark = level < 0.35
    ring = dark & (radius > 0.38)
    paint = _masked_mean(patches, solid)
    body = _masked_mean(patches, ring)
    silhouette = _centred(np.clip(level, 0, 1) * inner, p.offset)
    sharpness = _sharpness(level, (level > 0.5) & inner)
    lo = np.minimum(np.minimum(patches[..., 0], patches[..., 1]), patches[..., 2])
    glare = ((lo > 235) & (radius > 0.38)).mean(axis=(1, 2)) / max(float((radius > 0.38).mean()), 1e-6)
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
    u = (np.arange(s) + 0.5) / s - 0.5
    core = np.hypot(u[:, None], u[None, :]) < 0.30
    inner = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :]) < 0.46
    out = np.array(offset, np.float64, copy=True)
    for i in range(n):
        count, labels = cv2.connectedComponents(((level[i] > 0.5) & inner).astype(np.uint8), connectivity=8)
        if count <= 2:  # one part of paint (or none): the centroid is the symbol's
            continue
        main = np.bincount(labels[core], minlength=count)[1:].argmax() + 1
        rows, cols = np.nonzero(labels == main)
        out[i] = (u[rows].mean(), u[cols].mean())
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
    steps = max(round(REACH * s * 2), 4)  # half-pixel steps
    t = (np.arange(steps, dtype=np.float32) + 0.5) * (REACH * s / steps)
    a = np.arange(rays, dtype=np.float32) * np.float32(2 * np.pi / rays)
    centre = (s - 1) / 2 + np.asarray(offset, np.float32) * s  # (N, 2) (row, col) pixels
    rows = centre[:, 0, None, None] + np.sin(a)[None, :, None] * t[None, None, :]
    cols = centre[:, 1, None, None] + np.cos(a)[None, :, None] * t[None, None, :]
    rows = np.clip(rows, 0, s - 1) + (np.arange(n, dtype=np.float32) * s)[:, None, None]
    cols = np.clip(cols, 0, s - 1)
    stacked = np.ascontiguousarray(level.reshape(n * s, s), dtype=np.float32)
    v = remap(stacked, rows.reshape(n * rays, steps), cols.reshape(n * rays, steps)).reshape(n, rays, steps)
    v = np.clip(v, 0.0, 1.0)
    # the paint starts where a ray is first fully in it (its edge with a hole is only half paint)
    full = np.maximum(0.9 * v.max(axis=2, keepdims=True), 0.5)
    started = np.maximum.accumulate(v >= full, axis=2)
    r = np.minimum.accumulate(np.where(started, v, 1.0), axis=2).sum(axis=2)
    hole = (1.0 - np.maximum.accumulate(np.clip(v / full, 0.0, 1.0), axis=2)).sum(axis=2)
    mean = np.maximum(r.mean(axis=1, keepdims=True), 1e-6)
    return np.asarray(r / mean, np.float32), np.asarray(hole / mean, np.float32)


def _quantile(values: np.ndarray, fraction: float) -> np.ndarray:
    """The ``fraction`` quantile of each row of (N, K) values (the nearest rank, by partition)."""
    k = min(round(fraction * (values.shape[1] - 1)), values.shape[1] - 1)
    return np.asarray(np.partition(values, k, axis=1)[:, k])


def _masked_mean(px: np.ndarray, mask: np.ndarray) -> np.ndarray:
    w = mask.astype(np.float32)
    total = w.sum(axis=(1, 2))
    out = np.einsum("nij,nijc->nc", w, px.astype(np.float32)) / np.maximum(total, 1)[:, None]
    return np.asarray(out, dtype=np.float64)


def _frame_darkness(dark: np.ndarray) -> np.ndarray:
    """How dark the frame is on its three darkest sides (the fraction of the third darkest side): a tall
    tile seen at an angle may show the table past one edge of its top face, never past three."""
    s = dark.shape[1]
    k = max(round(s * 0.1), 1)
    sides = [dark[:, :k, :], dark[:, -k:, :], dark[:, :, :k], dark[:, :, -k:]]
    return np.asarray(np.sort([side.mean(axis=(1, 2)) for side in sides], axis=0)[1])


def _centred(level: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Each silhouette moved so its centroid is in the middle and scaled to a fixed spread (root mean
    square radius), then shrunk to MASK×MASK: shape without size or position."""
    n, s = level.shape[:2]
    u = np.arange(s) - (s - 1) / 2
    r2 = u[:, None] ** 2 + u[None, :] ** 2
    out = np.empty((n, MASK, MASK), np.float32)
    for i in range(n):
        w = level[i]
        total = max(float(w.sum()), 1e-6)
        cy, cx = offset[i, 0] * s, offset[i, 1] * s
        spread = np.sqrt(max(float((w * r2).sum()) / total - cy * cy - cx * cx, 1.0))
        k = SPREAD * MASK / spread
        centre = (s - 1) / 2
        m = np.array([[k, 0, (MASK - 1) / 2 - k * (centre + cx)], [0, k, (MASK - 1) / 2 - k * (centre + cy)]])
        out[i] = cv2.warpAffine(w.astype(np.float32), m, (MASK, MASK), flags=cv2.INTER_AREA)
    return out


def _sharpness(level: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean gradient of the normalised strength across the symbol's edge (about 0.5 per pixel when sharp
    at the patch's resolution, falling as blur widens the edge)."""
    gy = np.abs(np.diff(level, axis=1))[:, :, :-1]
    gx = np.abs(np.diff(level, axis=2))[:, :-1, :]
    g = np.maximum(gx, gy)
    edge = g > 0.1
    return np.asarray((g * edge).sum(axis=(1, 2)) / np.maximum(edge.sum(axis=(1, 2)), 1))
