"""A symbol's outline: its radial profile from the paint level of its patch, and the Fourier descriptors
that name its shape (:func:`outline`) or say it is no whole symbol (:func:`asymmetry`).

Profiles are measured for all patches at once on an (N, S, S) stack of paint levels (body 0, paint 1;
:attr:`vision.features.Presence.level`); rays start at a symbol centre given as an offset from the patch
centre in cells ``(row, col)``, at angles ``2πk/RAYS`` from the grid's column axis turning towards its
row axis.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from vision.geometry import remap

#: Patches measured per cv2.remap call (it takes images of at most 32767 rows).
CHUNK = 256
#: Rays of the radial profile (angles, evenly spaced from the grid's column axis) and samples along each.
RAYS = 64
#: How far the rays reach, in cells (a criss-cross's tips come within a few per cent of the face's corner).
REACH = 0.5
#: A paint level below this is the body's (as :class:`vision.features.Presence` takes its dark pixels).
BODY_LEVEL = 0.35
#: At most this fraction of a profile's rays may run in paint onto the face's edge (EDGE) for them to be
#: read from their quarter-turn partners (:func:`_fill_from_turns`).
THROUGH = 0.125
#: The face's edge, as a chessboard distance from the patch's middle in cells: a symbol's paint stops short.
EDGE = 0.48


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
    h4, h8, h12 = harmonics(radial_profile, (4, 8, 12))
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
    odd = harmonics(radial_profile, (1, 2, 3, 5, 6, 7))
    return np.asarray(np.sqrt((np.abs(odd) ** 2).sum(axis=0)))


def harmonics(radial_profile: np.ndarray, orders: tuple[int, ...]) -> np.ndarray:
    """The Fourier coefficients (K, N) complex of radial profiles (N, RAYS) at the K ``orders``, in
    fractions of the mean radius (a profile ``1 + c cos(k a)`` has coefficient ``c`` at order ``k``)."""
    r = np.asarray(radial_profile, np.float64)
    # every order's wave times every profile in one product (each row's mean adds as a row alone would)
    return np.asarray(2 * (r * _waves(tuple(orders), r.shape[1])[:, None, :]).mean(axis=2))


@functools.cache
def _waves(orders: tuple[int, ...], rays: int) -> np.ndarray:
    """``exp(-i·k·a)`` (K, rays) complex at the rays' angles ``a`` for each of the K ``orders``, shared by
    every call (never to be written to)."""
    a = np.arange(rays) * (2 * np.pi / rays)
    waves = np.array([np.exp(-1j * k * a) for k in orders])
    waves.flags.writeable = False
    return waves


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


class Later:
    """An array (N, ...) found when first asked for (called), and only once: what a reading may not
    need, such as the colour-blind edition's hole profiles (:func:`profiles_later`)."""

    def __init__(self, make: Callable[[], np.ndarray]) -> None:
        self._make: Callable[[], np.ndarray] | None = make
        self._value: np.ndarray | None = None

    def __call__(self) -> np.ndarray:
        if self._make is not None:
            self._value, self._make = np.asarray(self._make()), None
        assert self._value is not None
        return self._value

    def take(self, keep: np.ndarray) -> Later:
        """Its rows ``keep`` (a mask or indices), found when first asked for."""
        keep = np.array(keep, copy=True)  # the caller may change its mask afterwards
        return Later(lambda: self()[keep])

    @staticmethod
    def joined(parts: list[np.ndarray | Later]) -> Later:
        """The rows of ``parts`` one after the other, found when first asked for."""
        parts = list(parts)
        return Later(lambda: np.concatenate([p() if isinstance(p, Later) else p for p in parts]))


def profiles(level: np.ndarray, offset: np.ndarray, *, rays: int = RAYS) -> tuple[np.ndarray, np.ndarray]:
    """The symbol's radial profile (:func:`radial`) and its hole's, from one sampling of the rays.

    The hole's profile is, along each ray, how far from the centre the paint is not yet fully there (the
    colour-blind edition's inner mark; near zero for a solid symbol), over the symbol's mean radius.
    Both are (N, rays) float32.
    """
    radial_profile, hole = profiles_later(level, offset, rays=rays)
    return radial_profile, hole()


def profiles_later(level: np.ndarray, offset: np.ndarray, *, rays: int = RAYS) -> tuple[np.ndarray, Later]:
    """:func:`profiles`, the hole's found only when first asked for (only the colour-blind edition's
    reader reads it): the same numbers."""
    n, s = level.shape[:2]
    if n > CHUNK:  # cv2.remap takes at most 32767 rows
        parts = [
            profiles_later(level[k : k + CHUNK], offset[k : k + CHUNK], rays=rays) for k in range(0, n, CHUNK)
        ]
        return np.concatenate([p[0] for p in parts]), Later.joined([p[1] for p in parts])
    if n == 0:
        return np.zeros((0, rays), np.float32), Later(lambda: np.zeros((0, rays), np.float32))
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
    # the paint starts where a ray is first fully in it (its edge with a hole is only half paint); a ray
    # that would pass its first run of paint before it is full takes full as that run has it (past a
    # hole, a thin band of paint blurred below the light table beyond the tile's edge: the ray would run
    # on through the body to the table)
    full = np.maximum(0.9 * v.max(axis=0), 0.5)
    late = np.flatnonzero(v[0] < full)  # (a ray full at its start is full there)
    if len(late):
        late = late[_past_first_run(v[:, late], full[late])]
        full[late] = np.maximum(0.9 * _first_run_peak(v[:, late]), 0.5)
    waiting = v < full  # (the levels are finite)
    holed = np.divide(v, full, out=rows)  # the map's memory, no longer needed
    for k in range(1, steps):  # running along the rays, in place
        np.logical_and(waiting[k - 1], waiting[k], out=waiting[k])
    solid = v  # the levels, 1 before the paint starts
    np.copyto(solid, np.float32(1.0), where=waiting)
    for k in range(1, steps):
        np.minimum(solid[k - 1], solid[k], out=solid[k])
    r = _ray_sums(solid).reshape(n, rays)
    exit_step = _edge_steps(np.asarray(offset, np.float64) * s, s, rays, steps)  # (N, rays)
    last = solid.reshape(steps, n, rays)[exit_step, np.arange(n)[:, None], np.arange(rays)[None, :]]
    _fill_from_turns(r, last > 0.5)
    mean = np.maximum(r.mean(axis=1, keepdims=True), 1e-6)
    return np.asarray(r / mean, np.float32), Later(lambda: _hole(holed, mean))


def _edge_steps(centre: np.ndarray, s: int, rays: int, steps: int) -> np.ndarray:
    """The first sample (N, rays) int of each ray (:func:`_rays`) at or past the face's edge (EDGE cells
    from the patch's middle, as a chessboard distance), or the last sample, from the symbols' centres
    (N, 2) in pixels from the patch's middle."""
    sign, reciprocal = _directions(rays)
    room = (EDGE * s - sign[None] * centre[:, :, None]) * reciprocal[None]  # (N, 2, rays)
    t = room.min(axis=1)  # pixels along the ray to the edge
    step = REACH * s / steps
    return np.asarray(np.clip(np.ceil(t / step - 0.5), 0, steps - 1), np.intp)


@functools.cache
def _directions(rays: int) -> tuple[np.ndarray, np.ndarray]:
    """The signs and reciprocal sizes (2, rays) of the rays' steps down and across (infinite where a ray
    runs along the other axis), shared by every call (never to be written to)."""
    a = np.arange(rays) * (2 * np.pi / rays)
    d = np.stack([np.sin(a), np.cos(a)])
    with np.errstate(divide="ignore"):
        reciprocal = 1 / np.abs(d)
    sign = np.sign(d)
    sign.flags.writeable = reciprocal.flags.writeable = False
    return sign, reciprocal


def _fill_from_turns(r: np.ndarray, through: np.ndarray) -> None:
    """Give each ray of ``r`` (N, rays) float32 that runs in paint onto the face's edge (``through``,
    (N, rays) bool; :func:`_edge_steps`) the middle radius of its quarter-turn partners that do not, in
    place.

    No symbol reaches the face's edge: such a ray ran on into other paint joined to the symbol (a
    neighbouring cube's side face, a neighbour's edge), and every symbol looks the same after a quarter
    turn. Only where at most THROUGH of the rays run through: paint on the face's edge all round is no
    symbol with something joined to it (the table through a gap, a side face seen whole). A ray whose
    partners all run through is left as it is."""
    rays = r.shape[1]
    cut = through.sum(axis=1)
    rows = np.flatnonzero((cut > 0) & (cut <= THROUGH * rays))
    if rays % 4 or not len(rows):
        return
    quarter = r[rows].reshape(len(rows), 4, rays // 4)  # (M, 4 quarter turns, rays a quarter)
    off = through[rows].reshape(len(rows), 4, rays // 4)
    kept = (~off).sum(axis=1, keepdims=True)  # partners not running through, 0..4
    ordered = np.sort(np.where(off, np.inf, quarter), axis=1)
    low = np.take_along_axis(ordered, np.maximum(kept - 1, 0) // 2, axis=1)
    high = np.take_along_axis(ordered, kept // 2 - (kept == 0), axis=1)
    middle = (low + high) / 2
    r[rows] = np.where(off & (kept > 0), middle, quarter).astype(np.float32).reshape(len(rows), rays)


def _past_first_run(v: np.ndarray, full: np.ndarray) -> np.ndarray:
    """Whether each ray (M,) of samples (steps, M) clipped to 0..1 leaves its first run of paint (from the
    first sample at one half or more to the next one as dark as the body, below BODY_LEVEL: a dip of noise
    within the paint does not end it) before it first reaches ``full`` (M,)."""
    step = np.arange(len(v))[:, None]
    start, end = (v >= 0.5).argmax(axis=0), (v >= full).argmax(axis=0)
    return np.asarray(((step > start) & (step < end) & (v < BODY_LEVEL)).any(axis=0))


def _first_run_peak(v: np.ndarray) -> np.ndarray:
    """The highest level (M,) of each ray's first run of paint (:func:`_past_first_run`), from its samples
    (steps, M) clipped to 0..1 (a ray that never reaches one half: its highest level)."""
    above = v >= 0.5
    peak = np.where(above[0], v[0], 0.0)
    entered = above[0].copy()
    done = np.zeros_like(entered)
    for k in range(1, len(v)):
        np.logical_or(done, entered & (v[k] < BODY_LEVEL), out=done)  # the first run ended
        np.maximum(peak, np.where(entered & ~done, v[k], 0.0), out=peak)
        np.logical_or(entered, above[k], out=entered)
    return np.asarray(np.where(entered, peak, v.max(axis=0)))


def _hole(holed: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """The hole's profile (N, rays) float32 from the samples over the full level (steps, N·rays), which
    it takes over, and the symbol's mean radii (N, 1): how far along each ray the running maximum of
    the clipped samples stays short of full paint."""
    np.clip(holed, 0.0, 1.0, out=holed)
    for k in range(1, len(holed)):  # running along the rays, in place
        np.maximum(holed[k - 1], holed[k], out=holed[k])
    hole = _ray_sums(np.subtract(1.0, holed, out=holed)).reshape(len(mean), -1)
    return np.asarray(hole / mean, np.float32)


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
