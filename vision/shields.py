"""Herkle's shields: the ordinary told from the grey field it is painted on.

A Herkle tile is a mid-grey shield on the black body with the ordinary (fess, pale, bend, cross, saltire,
chevron) painted across it. Measured by paint strength alone, as the other editions are, the shield reads
badly: a green ordinary is hardly stronger than the grey field, a black one is weaker, and white and black
differ from each other only in lightness, which the normalised paint drops. Here the field is the reference
instead. Every shield of a frame has the same field, which covers most of each shield, so the frame's field
colour is the commonest colour of the lit middles of its patches. In each patch the shield is the convex hull
of its lit pixels (a black ordinary splits the field, never the hull), the ordinary is whatever in the shield
is unlike the field, its colour is measured on its solid middle, and its silhouette is drawn together with the
shield's (so every tile shows which way is up) in the shield's own frame: centred on the shield and scaled to
its size. The light falls off across the table, so a shield's own field is the frame's scaled by the falloff
where it lies (the nearest scale that much of its middle shows), and an ordinary found in pieces (none is
painted so) is the field taken for one. The lit field is read in a window, the middle of the cell, less what
lies past the body's rim along the window's sides (a strip of the lit table or of a neighbour's shield: it
shows no field, or is thinner than any piece of a shield). Where the hull is not shield-shaped, the shield's
known form decides: a field run into the lit table through a blurred rim is cut from it; a hull cut short (a
black ordinary that reaches the shield's edge takes corners off it, and the window cuts the end off a shield a
little off its patch's middle) lies inside a shield of the frame's size and is completed by it where the
body's dark rim rings it (:mod:`vision.hulls`). What the silhouette shows beside its likeness to each shape's
(a chevron's arch, a cross's arms) and the painted model's silhouettes it is compared with are in
:mod:`vision.ordinaries`.

All functions take (N, S, S, 3) BGR uint8 patches cut in the grid's axes (:mod:`vision.patches`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import cv2
import numpy as np

from table import TileSet, tileset
from vision.hulls import CENTRED, completed, middle_part, peeled, spread_of, window_mask
from vision.prototypes import painted_patches

#: A pixel is lit (part of the shield) above this fraction of the way from the body to the field.
LIT = 0.5
#: A pixel differs from the field (is the ordinary) from this distance to it, over the field's
#: brightest channel, fully from twice that.
UNLIKE = 0.25
#: The field is grey: its saturation ((max - min) / max) stays below this under every light rendered
#: (0.17 at most under warm light), while the chromatic ordinaries' is 0.6 and more.
GREY = 0.35
#: In a patch, the field's lightness is the frame's scaled by one of these factors (the light falls off
#: across the table: 1.4 for a shield in the light of a strong falloff on the rendered set, seed 31), tried
#: nearest 1 first: a white ordinary, 1.8 times the field, lies beyond them...
FALLOFF = tuple(sorted(np.exp(np.linspace(-0.5, 0.5, 11)), key=lambda k: abs(np.log(k))))
#: ... where at least this share of the patch's middle lies near it (the cross, which leaves the least
#: of its field in the middle, leaves 0.16 and more for the 1086 tiles read right on 34 frames of the
#: rendered set, seed 31).
FIELD_CORE = 0.1
#: Side of the silhouettes (finer than the other editions' :data:`vision.features.MASK`: a chevron's
#: angle must show).
SIZE = 24
#: The silhouette's root-mean-square radius (of the shield), as a fraction of SIZE.
SPREAD = 0.30
#: A whole shield covers at least this fraction of the frame's median shield's area, and its centroid
#: lies at most this far (in cells) from its cell's middle.
WHOLE = 0.8
#: A shield whose outline is further than this from the painted shield's (root-mean-square, see
#: :func:`outline_misfit`) is not whole: 0.07 covers nine in ten whole shields on a rendered set (seed 5),
#: a misread ordinary's shield is typically 0.10 away.
MISFIT = 0.09
#: A black ordinary (:func:`black`) is darker than the field by more than halfway to black (0.3 on the
#: painted model, in log terms: the bound :mod:`vision.classify` names black below)...
DARK = 0.55
#: ... and painted the body's black: its paint lies above the body's by at most this fraction of the
#: field's rise above the body (:attr:`ShieldView.rise`; rendered set: 0.17 and less for 99 in 100 black
#: ordinaries, 0.32 at most, while a white ordinary in shadow taken for the field, the true field then
#: read as a dark ordinary, lies at 0.42 and more).
BLACK_RISE = 0.35
#: A shield completed by the frame's (see :func:`vision.hulls.completed`) is ringed by the body's rim: the
#: ring RING pixels wide just outside it is dark over at least RING_DARK of its length (the black shields
#: found whole on 60 frames of a rendered set (seed 31): 0.63 and more for 99 in 100, median 0.84; a patch cut
#: half a cell off, two neighbours' pieces with the rim between them taken for a black pale: 0.57).
RING = 2
RING_DARK = 0.6
#: The silhouette is blurred by this many of its pixels (sigma): a shield found a pixel off, or cut by
#: its cell's edge, then still lies close to its shape's.
SOFTEN = 1.0
#: The ordinary (with its dark outline) covers at most this fraction of its shield (0.78 for the
#: saltire, the widest, on the painted model; 0.77 for 99 in 100 of a rendered set's).
MOST = 0.9
#: An ordinary whose second largest piece is at least this fraction of its largest is two (see
#: :func:`_split`).
PIECE = 0.3
#: Weight of the field in the silhouette (the ordinary is 1, outside the shield 0).
FIELD_WEIGHT = 0.5
#: A tile lies askew of the grid's axes (laid by hand, in a row bent by drift), so a shield is whole when
#: its outline fits the painted shield turned by a quarter turn and by one of these angles (degrees; see
#: :func:`outline_misfit`).
TURNS = tuple(float(a) for a in np.arange(-12.0, 12.1, 3.0))


@dataclass(frozen=True)
class ShieldView:
    """Per patch (N): what the shield shows.

    Attributes
    ----------
    paint : ndarray, shape (N, 3), float64
        Mean BGR of the ordinary's solid middle (the field's colour where no ordinary is found).
    lightness : ndarray, shape (N,)
        The ordinary's brightest channel over the field's: near 1.8 for white, 0.3 for black.
    saturation : ndarray, shape (N,)
        The ordinary's (max - min) / max over its channels: low for white, black (and the field).
    chroma : ndarray, shape (N,)
        The ordinary's (max - min) over the field's brightest channel: low for black and the field
        (however the few levels of a near-black are tinted), high for a hue.
    rise : ndarray, shape (N,)
        The ordinary's brightest channel above the body's (the patch's dark edge), over the field's above
        it: near 0 for black paint (the body's own black), 1 for the field's grey.
    falloff : ndarray, shape (N,)
        The shield's field's brightest channel over the frame's field's: how far the light falls off (or
        rises) where the shield lies (see :func:`_local_field`).
    silhouette : ndarray, shape (N, SIZE, SIZE), float32
        The ordinary (1) on the field (:data:`FIELD_WEIGHT`), centred on the shield and scaled to it.
    outline : ndarray, shape (N, SIZE, SIZE), float32
        The shield alone, drawn as the silhouette is.
    ringed : ndarray, shape (N,)
        How much of the ring just outside the shield (RING pixels wide, inside the patch) is dark: near 1
        where the body's rim rings it, lower where the shield is askew or off its place (its own field
        or a neighbour's then lies on the ring) or the lit table shows through the rim.
    sizes : tuple of float
        The stack's whole shields' median area and root-mean-square radius (see
        :func:`vision.hulls.spread_of`), pixels: what a shield is compared with (NaN where not known).
    found : ndarray, shape (N,), bool
        A whole shield and an ordinary on it were found.
    centre : ndarray, shape (N, 2)
        Where the shield lies: the centroid of the lit field's hull (of its part in the cell's middle where
        a bridge to the lit table or a neighbour was cut; of the frame's shield that completed a hull cut
        short), in cells ``(row, col)`` from the patch centre, 0 where nothing is lit. A probe cut off its
        tile recentres on it.
    field : ndarray, shape (3,), float64
        The frame's field colour BGR the shields were viewed against (:func:`field_colour`).
    """

    paint: np.ndarray
    lightness: np.ndarray
    saturation: np.ndarray
    chroma: np.ndarray
    rise: np.ndarray
    falloff: np.ndarray
    silhouette: np.ndarray
    outline: np.ndarray
    ringed: np.ndarray
    found: np.ndarray
    centre: np.ndarray
    field: np.ndarray
    sizes: tuple[float, float] = (np.nan, np.nan)


def field_colour(patches: np.ndarray) -> np.ndarray:
    """The frame's field colour (3,) BGR: the commonest of the greyish colours lit on the patches' shields
    (white ordinaries are greyish too, but every shield has more field than ordinary), each patch
    voting once.

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches of one frame's Herkle tiles.
    """
    _check(patches)
    n, s = patches.shape[:2]
    x = patches[:, _disc(s, 0.45)].astype(np.float32)  # (N, K, 3)
    if x.size == 0:
        return np.zeros(3)
    light = x.max(axis=2)
    lo, hi = np.quantile(light, 0.1), np.quantile(light, 0.9)
    greyish = (light > lo + 0.3 * (hi - lo)) & (x.max(axis=2) - x.min(axis=2) < GREY * np.maximum(light, 1.0))
    # each patch's own middle first, then their median: a patch of something else (the table seen
    # through a gap) is one vote, however much of it is grey
    own = np.array([np.median(x[i][greyish[i]], axis=0) for i in range(n) if greyish[i].sum() > 10])
    if len(own) == 0:
        return np.zeros(3)
    middle = np.median(own, axis=0)
    pixels = x[greyish]
    for _ in range(3):  # the median of the colours near the last median: the mode, not the mix
        near = np.linalg.norm(pixels - middle, axis=1) < 0.3 * max(float(middle.max()), 1.0)
        if near.sum() <= 20:
            break
        middle = np.median(pixels[near], axis=0)
    return np.asarray(middle, np.float64)


def view_shields(
    patches: np.ndarray,
    field: np.ndarray,
    *,
    outline: np.ndarray | None = None,
    sizes: tuple[float, float] | None = None,
) -> ShieldView:
    """Find each patch's shield and the ordinary on it (see :class:`ShieldView`).

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches, one cell each, in the grid's axes.
    field : ndarray, shape (3,)
        The frame's field colour (:func:`field_colour`).
    outline : ndarray, shape (SIZE, SIZE), optional
        The shield's outline (:func:`shield_outline`). Given, a shield is whole only when it is also
        shield-shaped (:func:`outline_misfit` over :data:`TURNS` at most MISFIT: the painted shield's
        outline, turned by up to a few degrees, as a tile laid askew of the grid's axes is), and a lit
        field whose hull is not is
        completed where it was cut short (:func:`vision.hulls.completed`).
    sizes : tuple of float, optional
        The frame's shields' sizes (:attr:`ShieldView.sizes` of a view of its tiles), when these patches are
        a few of them looked at again; default: the whole shields' among these patches.
    """
    _check(patches)
    n, s = patches.shape[:2]
    x = patches.astype(np.float32)
    light = x.max(axis=3)
    u = (np.arange(s) + 0.5) / s - 0.5
    edge = np.maximum(np.abs(u)[:, None], np.abs(u)[None, :])
    core = _disc(s, 0.35)
    window = window_mask(s)
    body = np.quantile(light[:, edge > 0.40], 0.2, axis=1) if n else np.zeros(0)
    view = ShieldView(
        np.zeros((n, 3)),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.zeros(n),
        np.ones(n),
        np.zeros((n, SIZE, SIZE), np.float32),
        np.zeros((n, SIZE, SIZE), np.float32),
        np.zeros(n),
        np.zeros(n, bool),
        np.zeros((n, 2)),
        np.asarray(field, np.float64),
    )
    hulls = np.zeros((n, s, s), np.uint8)
    lits = np.zeros((n, s, s), np.uint8)
    faces = np.zeros((n, s, s), bool)
    local = np.zeros((n, 3), np.float32)
    for i in range(n):
        local[i] = _local_field(x[i][core], np.asarray(field, np.float32))
        bright = max(float(local[i].max()), 1.0)
        view.falloff[i] = bright / max(float(np.max(field)), 1.0)
        lit = (light[i] > body[i] + LIT * (bright - body[i])) & (window > 0)
        faces[i] = light[i] > body[i] + LIT / 2 * (bright - body[i])
        # opened by a 2×2 square: eroded at its top-left corner, dilated at its bottom-right (OpenCV's
        # MORPH_OPEN does both at one anchor, which moves an even square's opening a pixel down-right)
        opened = cv2.dilate(cv2.erode(lit.astype(np.uint8), _PAIR, anchor=(0, 0)), _PAIR, anchor=(1, 1))
        lits[i] = peeled(opened, np.linalg.norm(x[i] - local[i], axis=2) < UNLIKE * bright, window > 0)
        points = np.argwhere(lits[i] > 0)
        if len(points) < s * s // 20:
            continue
        cv2.fillConvexPoly(hulls[i], cv2.convexHull(points[:, ::-1].astype(np.int32)), 1)
        _describe(view, i, x[i], local[i], body[i], hulls[i])
    area = hulls.sum(axis=(1, 2)).astype(np.float64)
    view.centre[:] = _centroids(hulls)
    off = np.abs(view.centre).max(axis=1)
    # a shield cut by the cell's edge, or a piece of one (a black ordinary splits the field), is no whole
    # shield: smaller than the frame's shields, or off its cell's middle
    if not view.found.any():
        return view
    typical = float(np.median(area[view.found])) if sizes is None else sizes[0]
    whole = view.found & (area >= WHOLE * typical) & (off <= CENTRED)
    if outline is not None:
        whole &= outline_misfit(view.outline, outline, turns=TURNS) <= MISFIT
        seen = view.found.copy()
        cut = np.zeros(n, bool)
        # a shield run into the lit table or into its neighbour's through its blurred rim: the hull of
        # its own lit part, the one in the cell's middle once the bridges are cut
        for j in np.flatnonzero(~whole & (area > 0)):
            middle = middle_part(lits[j])
            if middle is None:
                continue
            view.centre[j] = _centroids(middle[None])[0]
            view.found[j] = False
            cut[j] = True
            _describe(view, int(j), x[j], local[j], body[j], middle)
            whole[j] = bool(
                view.found[j]
                and middle.sum() >= WHOLE * typical
                and np.abs(view.centre[j]).max() <= CENTRED
                and outline_misfit(view.outline[j : j + 1], outline, turns=TURNS)[0] <= MISFIT
            )
        # a hull cut short (by a black ordinary reaching the shield's edge, or by the window the lit
        # field is read in, which a shield a little off its patch's middle reaches past) is completed
        # by the frame's shield, where the body's rim rings it (not a piece of two neighbours with the
        # rim between them taken for a dark ordinary)
        kept = whole & ~cut
        spread = (spread_of(hulls[kept]) if kept.sum() >= 3 else np.nan) if sizes is None else sizes[1]
        sizes = (typical, spread)
        for i, shield in completed(hulls, faces, seen & ~whole, kept, outline, SPREAD * SIZE, spread=spread):
            view.found[i] = False
            _describe(view, i, x[i], local[i], body[i], shield)
            whole[i] = view.found[i] and view.ringed[i] >= RING_DARK
            if whole[i]:  # the shield lies where it was placed, not where its cut hull's middle is
                view.centre[i] = _centroids(shield[None])[0]
    view.found[:] = whole
    return view if sizes is None else replace(view, sizes=sizes)


def field_gains(view: ShieldView, gains: np.ndarray) -> np.ndarray:
    """Herkle: per-channel gains (3,) of the frame's light (as :func:`vision.prototypes.white_balance`'s)
    from the shields' painted grey field (:attr:`ShieldView.field`), what the ordinaries' hues are named
    against; ``gains`` (3,) where no field was found.

    The field is painted grey and fills each shield around its ordinary, so it shows the light's colour
    where the ordinary lies. The tile bodies' balance is measured on a thin ring around the paint, which
    holds the table's colour too: under neutral light yellow ordinaries of the rendered Herkle set lie 4 to
    6 colour spreads from yellow against the bodies' balance, 0.5 to 1.5 against the field's."""
    field = view.field
    return np.asarray(field / field.mean()) if field.min() >= 1.0 else np.asarray(gains)


def black(view: ShieldView) -> np.ndarray:
    """Which ordinaries (N,) are black: darker than the field by more than halfway to black
    (:data:`DARK`) and as dark as the body (:data:`BLACK_RISE`), not a grey between."""
    return np.asarray((view.lightness <= DARK) & (view.rise <= BLACK_RISE))


def _describe(  # noqa: PLR0917 (one row of view_shields, passed its state)
    view: ShieldView, i: int, x: np.ndarray, local: np.ndarray, body: float, shield: np.ndarray
) -> None:
    """Fill row ``i`` of ``view`` from a patch (S, S, 3) float32, its field colour (3,), its body's
    lightness and its shield (S, S) uint8 0/1; ``found`` stays False when the shield shows no ordinary,
    or all ordinary."""
    bright = max(float(local.max()), 1.0)
    unlike = np.linalg.norm(x - local, axis=2) / bright
    ordinary = np.clip((unlike - UNLIKE) / UNLIKE, 0.0, 1.0) * shield
    solid = cv2.erode((ordinary > 0.9).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if solid.sum() < 3 or ordinary.sum() > MOST * shield.sum() or _split(ordinary > 0.5):
        return  # no ordinary, "all ordinary" or two: the field is not this shield's (glare, the table)
    paint = x[solid].mean(axis=0)
    view.paint[i] = paint
    view.lightness[i] = paint.max() / bright
    view.saturation[i] = (paint.max() - paint.min()) / max(float(paint.max()), 1.0)
    view.chroma[i] = (paint.max() - paint.min()) / bright
    view.rise[i] = (paint.max() - body) / max(bright - body, 1.0)
    drawn = np.maximum(ordinary, FIELD_WEIGHT * shield).astype(np.float32)
    view.silhouette[i] = _framed(drawn, shield.astype(np.float32))
    view.outline[i] = _framed(shield.astype(np.float32), shield.astype(np.float32))
    ring = (cv2.dilate(shield, _RING) > 0) & (shield == 0)  # never empty: no shield reaches the edge
    view.ringed[i] = float((x.max(axis=2)[ring] <= body + LIT * (bright - body)).mean())
    view.found[i] = True


def _split(ordinary: np.ndarray) -> bool:
    """Whether an ordinary (S, S) bool lies in two pieces or more of a size (the second largest at least
    PIECE of the largest): every ordinary is painted in one piece, while the field is split by a broad
    one (a pale, a fess), so two such pieces are the field, taken for an ordinary where the ordinary was
    taken for the field (a black pale lit as brightly as the frame's field elsewhere)."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(ordinary.astype(np.uint8), connectivity=8)
    areas = np.sort(stats[1:, cv2.CC_STAT_AREA])[::-1]
    return bool(count > 2 and areas[1] >= PIECE * areas[0])


def _centroids(shields: np.ndarray) -> np.ndarray:
    """Each shield's (N, S, S) centroid (N, 2) ``(row, col)`` in cells from its cell's middle (0 for an
    empty mask)."""
    s = shields.shape[1]
    u = (np.arange(s) + 0.5) / s - 0.5
    total = np.maximum(shields.sum(axis=(1, 2)), 1)
    return np.stack([(shields.sum(axis=2) @ u) / total, (shields.sum(axis=1) @ u) / total], axis=1)


@functools.cache
def shield_outline(tiles: TileSet) -> np.ndarray:
    """The shield's outline (:attr:`ShieldView.outline`) on the painted model, the mean over the tiles."""
    stack, _ = painted_patches(tiles)
    return np.asarray(view_shields(stack, field_colour(stack)).outline.mean(axis=0), np.float32)


def outline_misfit(
    outlines: np.ndarray, template: np.ndarray, *, turns: tuple[float, ...] = (0.0,)
) -> np.ndarray:
    """How far each outline (N, SIZE, SIZE) is from the template's shield at its nearest quarter turn and
    angle of ``turns`` (degrees; :data:`TURNS` for a tile laid askew of the grid's axes, its shield with it):
    the root-mean-square difference, 0..1. A cell of table framed by tiles, or a hand, is not
    shield-shaped."""
    models, norms = _turned(np.ascontiguousarray(template, np.float32).tobytes(), tuple(turns))
    flat = outlines.reshape(len(outlines), -1)
    # squared distances to every model; einsum, not a BLAS product, on these small arrays
    across = np.einsum("nk,jk->nj", flat, models)
    squares = np.einsum("nk,nk->n", flat, flat)[:, None] + norms[None] - 2 * across
    return np.asarray(np.sqrt(np.maximum(squares.min(axis=1), 0.0) / max(flat.shape[1], 1)))


@functools.lru_cache(maxsize=4)
def _turned(template: bytes, turns: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The template (SIZE×SIZE float32, as bytes) at every quarter turn and angle of ``turns`` (degrees,
    counter-clockwise), flattened (K, SIZE²), and their squared norms (K,)."""
    shield = np.frombuffer(template, np.float32).reshape(SIZE, SIZE)
    centre = ((SIZE - 1) / 2, (SIZE - 1) / 2)
    models = np.array(
        [
            cv2.warpAffine(np.rot90(shield, k).copy(), cv2.getRotationMatrix2D(centre, a, 1.0), (SIZE, SIZE))
            for a in turns
            for k in range(4)
        ]
    ).reshape(len(turns) * 4, -1)
    return models, (models**2).sum(axis=1)


def _local_field(core: np.ndarray, field: np.ndarray) -> np.ndarray:
    """The field's colour in one patch (its middle's pixels ``core`` (K, 3)). The light falls off across
    the table, which scales the frame's ``field`` (3,): the field here is the median of the pixels near
    the frame's field scaled by the factor nearest 1 (:data:`FALLOFF`) that at least FIELD_CORE of the
    middle lies near (a few pixels near the frame's field, the blend of an ordinary's edge with a field in
    the light, are not it), then of those near that. The frame's where none is."""
    for k in FALLOFF:
        first = _near_median(core, k * field, UNLIKE, least=FIELD_CORE * len(core))
        if first is not None:
            second = _near_median(core, first, UNLIKE)
            return np.asarray(first if second is None else second, np.float32)
    return np.asarray(field, np.float32)


def _near_median(
    pixels: np.ndarray, colour: np.ndarray, tolerance: float, *, least: float = 10
) -> np.ndarray | None:
    """The median of the ``pixels`` (K, 3) nearer the ``colour`` (3,) than ``tolerance`` times its brightest
    channel; None where ``least`` or fewer are."""
    near = np.linalg.norm(pixels - colour, axis=1) < tolerance * max(float(colour.max()), 1.0)
    return np.asarray(np.median(pixels[near], axis=0)) if near.sum() > least else None


def _framed(drawn: np.ndarray, shield: np.ndarray) -> np.ndarray:
    """``drawn`` moved so the shield's centroid is in the middle and scaled to a fixed spread (root mean
    square radius of the shield), shrunk to SIZE×SIZE and softened."""
    s = len(shield)
    u = np.arange(s) - (s - 1) / 2
    total = max(float(shield.sum()), 1e-6)
    cy = float((shield * u[:, None]).sum()) / total
    cx = float((shield * u[None, :]).sum()) / total
    r2 = (u[:, None] - cy) ** 2 + (u[None, :] - cx) ** 2
    spread = np.sqrt(max(float((shield * r2).sum()) / total, 1.0))
    k = SPREAD * SIZE / spread
    centre = (s - 1) / 2
    m = np.array([[k, 0, (SIZE - 1) / 2 - k * (centre + cx)], [0, k, (SIZE - 1) / 2 - k * (centre + cy)]])
    small = cv2.warpAffine(drawn, m, (SIZE, SIZE), flags=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), SOFTEN), np.float32)


_PAIR = np.ones((2, 2), np.uint8)
_RING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * RING + 1, 2 * RING + 1))


def _disc(s: int, radius: float) -> np.ndarray:
    u = (np.arange(s) + 0.5) / s - 0.5
    return np.asarray(np.hypot(u[:, None], u[None, :]) < radius)


def _check(patches: np.ndarray) -> None:
    if patches.ndim != 4 or patches.shape[3] != 3 or patches.dtype != np.uint8:
        raise ValueError(
            f"patches must be (N, S, S, 3) uint8, got shape {patches.shape} dtype {patches.dtype}"
        )


def shield_view(patches: np.ndarray, *, outline: bool) -> ShieldView:
    """Herkle: :func:`vision.shields.view_shields` of ``patches`` (N, S, S, 3) BGR uint8 against their own
    field colour (:func:`vision.shields.field_colour`), with the shield's outline or without it. Inside
    :func:`views_remembered` a stack of patches is looked at once each way (its view then read-only)."""
    memo = _REMEMBERED.get()
    digest = None if memo is None else hashlib.blake2b(patches.tobytes(), digest_size=16).digest()
    key = (digest, patches.shape, outline)
    if memo is not None and key in memo:
        return memo[key]
    shape = shield_outline(tileset("herkle")) if outline else None
    view = view_shields(patches, field_colour(patches), outline=shape)
    if memo is not None:
        for f in dataclasses.fields(view):
            if isinstance(value := getattr(view, f.name), np.ndarray):
                value.flags.writeable = False
        memo[key] = view
    return view


@contextmanager
def views_remembered() -> Iterator[None]:
    """Within the block, :func:`shield_view` remembers every view by its patches' content (calibration
    looks at one photo's known tiles several times: to learn, to chart the light, to report margins).
    Only for work that changes no setting meanwhile; each block starts empty and forgets on leaving."""
    token = _REMEMBERED.set({})
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


_REMEMBERED: ContextVar[dict[tuple[bytes | None, tuple[int, ...], bool], ShieldView] | None] = ContextVar(
    "remembered shield views", default=None
)
