"""Finding Herkle's shields in a frame: one candidate per tile, keyed to the lit shield on the black body.

The paint detector (:mod:`vision.detect`) looks for paint ringed by the black body. On a Herkle tile the
grey field and the ordinary painted across it are both lit and fill almost the whole face: the body shows
only as a thin rim, which the camera's blur and a light table bridge here and there, while the ordinary's
outline (and a black ordinary) cut the lit field into pieces. Connected paint then gives pieces of shields,
and shields run into each other and into the table.

Here every shield is found by its core instead: the pixels lying at least ``d`` pixels inside the lit part of
the frame (the distance transform of the paint detector's lit mask, :func:`vision.detect.lit_mask`). A bridge
narrower than ``2·d`` (a rim bridged by blur, a shield's corner touching its neighbour's) leaves no core,
while the middle of a whole shield does: one compact blob per shield. The depth is chosen per frame,
scale-free: the one at which the most square cores of about one size appear (below the shields' inner radius
the cores are the shields; far below it they run together; above it they vanish), the middle one where
several depths give as many. Around it, a compact blob
that is two shields run together is split where a deeper level shows their two cores, and a shield whose core
vanished (a smaller one, further from a tilted camera) is taken from a shallower level. A core's centroid is
the candidate, its extent plus ``2·d`` the shield's width. Last, every shield shows the frame's field colour
(:func:`vision.shields.field_colour`) somewhere in its middle: a blob without any is the table seen through a
hole in the layout, framed by the tiles around it, and is dropped (when the field colour fits most blobs, so
that it was found). Before that, the blobs must be paint: a dark table in dim light passes for lit against its
own dim mean but for the gaps its noise leaves, and between those gaps lie hundreds of square cores, no
brighter than the table. Where the median blob's middle is not brighter than the local mean by more than
the frame's noise (:func:`contrast`), the blobs are the table's noise: the frame is looked at again
smoothed by a small box, then a wider one (a dim frame at full resolution is noisy enough to break the
body's rims and punch gaps in the table, pixel by pixel; smoothed by 3 pixels, a third as noisy, its rims
are whole again), its blobs measured against the noise of the frame as it was (the smoothed frame's
neighbouring pixels differ little however noisy it is); where they fail at every width, no blob is a
shield. Under a lamp no camera balanced (uncorrected tungsten) nothing lit on the shields is grey: the
field's own colour, the one most shields show, is the lamp's, and the frame scaled channel by channel to
make it grey again (:func:`field_cast`) is read instead.

All points are ``(row, col)`` in the coordinates of the image passed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from table import tileset
from vision.detect import Blobs, lit_mask, local_mean, strength
from vision.geometry import holds, local_axes, similarity
from vision.patches import cut_patches
from vision.shields import GREY, MISFIT, field_colour, outline_misfit, shield_outline, view_shields

#: Depths tried, as fractions of the lit mask's shorter side (a tile is 1/30 to 1/4 of a frame's shorter
#: side at the working scales the reader uses), in steps of a quarter.
DEPTHS = tuple(float(v) for v in 0.003 * 1.25 ** np.arange(14))
#: Around the chosen depth, this many levels deeper and shallower are looked at for more shields.
AROUND = 3
#: A core is compact (a bridge's remains, the table's, are not): the shorter side of its bounding box is
#: at least this fraction of the longer, and it fills at least this fraction of the box.
COMPACT = 0.5
FILL = 0.4
#: A core taken as a shield is squarer still (a shield is about as high as wide; two shields' cores run
#: together are about twice as long as wide), and no mere remnant: at least this fraction of its depth wide.
SQUARE = 0.65
SOLID = 0.5
#: Shields are this range of times the size of the chosen level's median one (whole shields measure
#: 0.8..1.28 of it for 98 in 100 of a rendered set's; the pieces of a shield split by a black ordinary
#: 0.65..0.78).
SIZE_RANGE = (0.8, 1.3)
#: A blob at most this many shields long may be shields run together, split by a deeper level.
SPLIT = 2.5
#: A shield's middle has at least this share of pixels of the field colour (within FIELD_TOLERANCE of its
#: brightest channel); the test is made when the median blob has FIELD_AGREES or more (on 100 frames of a
#: rendered set, 18 whole shields fail it, and 46 of the 85 blobs that are no tile).
FIELD_SHARE = 0.05
FIELD_TOLERANCE = 0.3
FIELD_AGREES = 0.3
#: Shields are paint: the middle of the median blob is brighter than the frame's local mean strength by
#: more than this many times the frame's pixel noise (:func:`contrast`). Cores in the noise of a dark table
#: in dim light sit at the mean (medians -0.3..0.2 on dim rendered Herkle frames); shields' are 9 and more.
CONTRAST = 1.0
#: Where the cores are none or the table's noise, the frame is looked at again smoothed by a box this wide,
#: then wider (the calibration game under its dim shift, 38 px tiles on green felt: 0 shields of 35 at full
#: resolution, 34 smoothed by 3 pixels, the median blob's contrast -0.2 and 10; a noisier camera, twice
#: the read noise at half the light: 0 of 43 smoothed by 3, 27 by 5).
SMOOTHING = (1, 3, 5)
#: A lamp's cast (:func:`field_cast`) is told on this many shields or more, and it lies near the colours of
#: black bodies, the lamps no camera balanced (a light that tints a grey past GREY is a warm one: an
#: uncorrected 2800 K tungsten lamp 0.74, the coolest shade, 7500 K, 0.07): red over green over blue, the
#: log of green over red between these shares of blue's (0.27-0.38 for black bodies from 2000 to 5000 K
#: against 6500 K, in linear light and through any power of it; an ordinary taken for the field, red or
#: blue, lies outside).
CAST_SHIELDS = 4
LOCUS = (0.2, 0.6)
#: :func:`lit_field` votes for colours in bins of this many levels a channel, a patch voting for every
#: colour near which (its bin and the 26 around it) at least LIT_SHARE of its lit middle lies.
BIN = 16
LIT_SHARE = 0.1


@dataclass(frozen=True)
class _Level:
    """The cores at one depth: their labels (H, W) int32, the compact ones (``ids`` their labels,
    ``blobs`` with the depth added back to their extents) and which of them are square."""

    labels: np.ndarray
    ids: np.ndarray
    blobs: Blobs
    square: np.ndarray


def find_shields(image: np.ndarray) -> Blobs:
    """Herkle shield candidates in a BGR frame (or its working copy), one per shield.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR image.

    Returns
    -------
    Blobs
        Per shield: the centroid of its core ``(row, col)``, its extent (the core's larger side plus twice
        its depth, about the shield's width) and the core's area.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be BGR uint8 (H, W, 3), got shape {image.shape} dtype {image.dtype}")
    q = strength(image)
    mean = local_mean(q)  # kept for the blobs' contrast
    for box in SMOOTHING:
        seen = image if box == 1 else cv2.blur(image, (box, box))
        smooth = q if box == 1 else strength(seen)
        found = _cores_of(smooth, mean if box == 1 else local_mean(smooth))
        # the blobs must be brighter than the table by the noise of the frame itself (smoothed, its
        # neighbouring pixels' differences no longer tell its noise)
        if len(found) > 0 and np.median(contrast(q, mean, found)) > CONTRAST:
            break
    else:
        return Blobs(np.zeros((0, 2)), np.zeros(0), np.zeros(0))  # none, or the table's noise
    share = field_share(seen, found)
    if np.median(share) < FIELD_AGREES:
        return found  # the field colour was not found: no blob is told from the table by it
    return found.take(share >= FIELD_SHARE)


def _cores_of(q: np.ndarray, mean: np.ndarray) -> Blobs:
    """The shields' cores in a frame's strength ``q`` (H, W) uint8, lit against its local ``mean`` (H, W)
    uint8."""
    # at half the resolution (the rims between shields kept dark), a quarter of the work
    half = _shields(_halved(lit_mask(q, mean=mean)))
    return Blobs(half.centres * 2 + 0.5, half.extents * 2, half.areas * 4)


def field_share(image: np.ndarray, blobs: Blobs) -> np.ndarray:
    """Per blob (N,), the share of its middle (a disc of 0.4 its extent) that has the field colour of the
    frame's blobs (:func:`vision.shields.field_colour`, most blobs being shields)."""
    axes = np.zeros((len(blobs), 2, 2))
    axes[:, 0, 0] = axes[:, 1, 1] = blobs.extents
    patches = cut_patches(image, blobs.centres, axes, size=16)
    field = field_colour(patches).astype(np.float32)
    u = (np.arange(16) + 0.5) / 16 - 0.5
    middle = patches[:, np.hypot(u[:, None], u[None, :]) < 0.4].astype(np.float32)
    near = np.linalg.norm(middle - field, axis=2) < FIELD_TOLERANCE * max(float(field.max()), 1.0)
    return np.asarray(near.mean(axis=1))


def field_cast(image: np.ndarray, blobs: Blobs) -> np.ndarray | None:
    """Per-channel gains (3,) that turn the shields' field grey, where a lamp's colour no camera balance
    undid tints it past any grey (no greyish colour lit on the shields, :func:`vision.shields.field_colour`,
    and the colour most of them show, :func:`lit_field`, saturated beyond
    :data:`vision.shields.GREY`); None where the field is grey or not told.

    The field is painted grey, so it shows the light's colour: each channel scaled to the field's
    brightest, every neutral of the frame is neutral again, the tiles' bodies, the white and black
    ordinaries and the field alike (:func:`balanced`). The scaling is of the encoded levels: a camera's
    tone curve is a power of the light, near enough, whatever power it is, and a scaling of the light is
    one of its power. (Scaled in sRGB's linear light instead, the calibration game under uncorrected
    tungsten read 288 tiles right against 356: its frames' tone curve is steeper than sRGB's, and the
    bodies' blue, a few levels, came out lit.)

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR frame (or its working copy) the ``blobs`` (:func:`find_shields`) were found in.
    """
    if len(blobs) == 0:
        return None
    axes = np.zeros((len(blobs), 2, 2))
    axes[:, 0, 0] = axes[:, 1, 1] = blobs.extents
    patches = cut_patches(image, blobs.centres, axes, size=16)
    if field_colour(patches).any():
        return None
    field = lit_field(patches)
    if field is None or field.min() < 1.0 or field.max() - field.min() < GREY * field.max():
        return None
    # a lamp's colour: red over green over blue, green's fall a share of blue's (in logs)
    blue, green = np.log(field[:2] / field[2])
    if len(blobs) < CAST_SHIELDS or not blue <= green <= 0 or not LOCUS[0] <= green / blue <= LOCUS[1]:
        return None
    return np.asarray(field.max() / field)


def lit_field(patches: np.ndarray) -> np.ndarray | None:
    """The frame's field colour (3,) BGR found without asking it to be grey: the lit colour shown on the
    most of the patches' shields (each patch one vote, for every colour at least LIT_SHARE of its lit
    middle lies near), refined as :func:`vision.shields.field_colour` refines it. Every shield shows the
    field, while its ordinary's colour is one of six, so where a lamp tints the field past
    :data:`vision.shields.GREY` it is still the colour most shields show. None where another colour, far
    from it, shows on as many (a few shields, all with ordinaries of one colour, or a single one).

    Parameters
    ----------
    patches : ndarray, shape (N, S, S, 3), dtype uint8
        BGR patches of one frame's Herkle tiles.
    """
    if patches.ndim != 4 or patches.shape[3] != 3 or patches.dtype != np.uint8:
        raise ValueError(f"patches must be (N, S, S, 3) uint8, got {patches.shape} {patches.dtype}")
    u = (np.arange(patches.shape[1]) + 0.5) / patches.shape[1] - 0.5
    x = patches[:, np.hypot(u[:, None], u[None, :]) < 0.45].astype(np.float32)  # (N, K, 3)
    if x.size == 0:
        return None
    light = x.max(axis=2)
    lo, hi = np.quantile(light, 0.1), np.quantile(light, 0.9)
    lit = light > lo + 0.3 * (hi - lo)
    # per patch, the colours (bins of BIN levels a channel, with their 26 neighbours) near which at least
    # LIT_SHARE of its lit middle lies
    side = 256 // BIN
    bins = np.minimum(x // BIN, side - 1).astype(np.int64) @ np.array([side * side, side, 1])
    steps = [(a, b, c) for a in range(3) for b in range(3) for c in range(3)]
    votes = np.zeros((side, side, side))
    for i in range(len(x)):
        count = np.bincount(bins[i][lit[i]], minlength=side**3).reshape(side, side, side).astype(np.float32)
        padded = np.pad(count, 1)
        near = sum(padded[a : a + side, b : b + side, c : c + side] for a, b, c in steps)
        votes += near >= LIT_SHARE * max(int(lit[i].sum()), 1)
    best = np.unravel_index(int(np.argmax(votes)), votes.shape)
    middle = (np.array(best) + 0.5) * BIN
    pixels = x[lit]
    for _ in range(3):  # the median of the colours near the last median: the mode, not the mix
        near_best = np.linalg.norm(pixels - middle, axis=1) < 0.3 * max(float(middle.max()), 1.0)
        if near_best.sum() <= 20:
            return None
        middle = np.median(pixels[near_best], axis=0)
    # no other colour, far from it, shows on as many shields
    centres = (np.argwhere(votes >= votes.max()) + 0.5) * BIN
    if (np.linalg.norm(centres - middle, axis=1) > 0.3 * max(float(middle.max()), 1.0)).any():
        return None
    return np.asarray(middle, np.float64)


def balanced(image: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """``image`` (H, W, 3) BGR uint8 with each channel's levels scaled by its gain (3,) (:func:`field_cast`),
    rounded and clipped to white."""
    return np.asarray(cv2.transform(image, np.diag(np.asarray(gains, np.float64))))


def contrast(q: np.ndarray, mean: np.ndarray, blobs: Blobs) -> np.ndarray:
    """Per blob (N,), how much brighter than the local ``mean`` (H, W) uint8 the strength ``q`` (H, W)
    uint8 is in its middle (a square 0.4 its extent wide), in units of the frame's pixel noise: the
    robust standard deviation (1.4826 times the median absolute value, over √2) of the differences
    between side neighbours on every fourth row (edges are few among them), at least one level."""
    steps = cv2.absdiff(q[::4, 1:], q[::4, :-1])
    counts = np.bincount(steps.ravel(), minlength=256)
    mad = int(np.searchsorted(np.cumsum(counts), (counts.sum() + 1) // 2))
    noise = max(1.4826 * mad / np.sqrt(2), 1.0)
    integral = cv2.integral(q)  # int32, (H + 1, W + 1)
    h, w = q.shape
    half = np.maximum(blobs.extents * 0.2, 1.0)
    top = np.clip(np.round(blobs.centres[:, 0] - half), 0, h - 1).astype(np.int64)
    bottom = np.clip(np.round(blobs.centres[:, 0] + half) + 1, top + 1, h).astype(np.int64)
    left = np.clip(np.round(blobs.centres[:, 1] - half), 0, w - 1).astype(np.int64)
    right = np.clip(np.round(blobs.centres[:, 1] + half) + 1, left + 1, w).astype(np.int64)
    total = integral[bottom, right] - integral[top, right] - integral[bottom, left] + integral[top, left]
    middle = total / ((bottom - top) * (right - left))
    # the local mean is a wide box's (an eighth of the frame): its value at the centre is the middle's
    return np.asarray((middle - mean[(top + bottom) // 2, (left + right) // 2]) / noise)


def _shields(lit: np.ndarray) -> Blobs:
    """The shields in a lit mask (H, W) uint8 0/1."""
    # the depth with the most shields, counted at half this resolution again (cheaper, and as telling)
    coarse = _halved(lit)
    depth = _inside(coarse)
    counts = [_count(_cores(depth, fraction * min(coarse.shape))) for fraction in DEPTHS]
    k = _middle_of_most(counts)
    inside = _inside(lit)
    levels = {
        j: _cores(inside, DEPTHS[j] * min(lit.shape))
        for j in range(max(k - AROUND, 0), min(k + AROUND + 1, len(DEPTHS)))
    }
    if counts[k] == 0 or len(levels[k].blobs) == 0:
        return Blobs(np.zeros((0, 2)), np.zeros(0), np.zeros(0))
    size = float(np.median(levels[k].blobs.extents))
    chosen = [levels[k].blobs.take(_typical(levels[k].blobs, size) & levels[k].square)]
    for j in [*range(k + 1, max(levels) + 1), *range(k - 1, min(levels) - 1, -1)]:
        level = levels[j]
        # the blob of the level nearer the chosen one that holds each core (deeper), or the core's own
        # blob (shallower), must hold no shield yet
        near = levels[j - 1] if j > k else level
        taken = _label_at(near.labels, np.concatenate([c.centres for c in chosen]))
        own = _label_at(near.labels, level.blobs.centres)
        fresh = _typical(level.blobs, size) & level.square & ~np.isin(own, taken)
        if j > k:  # deeper, only inside a compact blob a few shields long: shields run together
            fresh &= np.isin(own, near.ids[near.blobs.extents <= SPLIT * size])
        chosen.append(level.blobs.take(fresh))
    return Blobs(
        np.concatenate([c.centres for c in chosen]),
        np.concatenate([c.extents for c in chosen]),
        np.concatenate([c.areas for c in chosen]),
    )


def _middle_of_most(counts: list[int]) -> int:
    """The depth (index) in the middle of the first run of consecutive depths with the most shields.

    Between the depths at which the shields run together (too shallow) and those at which they vanish
    (too deep), the count stays at its most over a run of depths, and the middle of that run is furthest
    from both failures. The coarse copy's halving darkens the rims, so its shields come apart at a
    shallower depth than they do at the resolution the cores are then taken from: the run's first depth
    (the first of the most) can still show shields run together there (a light table: 3 shields of 22).
    """
    k = int(np.argmax(counts))
    end = k
    while end + 1 < len(counts) and counts[end + 1] == counts[k]:
        end += 1
    return (k + end) // 2


def _count(level: _Level) -> int:
    """How many of a level's cores are square and of about the median one's size."""
    if len(level.blobs) == 0:
        return 0
    return int((_typical(level.blobs, float(np.median(level.blobs.extents))) & level.square).sum())


def _halved(lit: np.ndarray) -> np.ndarray:
    """A lit mask at half the resolution, a pixel lit only where all four of its pixels are (a rim stays
    dark)."""
    return np.ascontiguousarray(cv2.erode(lit, np.ones((2, 2), np.uint8), anchor=(0, 0))[::2, ::2])


def _inside(lit: np.ndarray) -> np.ndarray:
    """How deep each pixel lies inside the lit mask: its distance transform (H, W) float32."""
    return np.asarray(cv2.distanceTransform(lit, cv2.DIST_L2, cv2.DIST_MASK_5))


def _cores(inside: np.ndarray, depth: float) -> _Level:
    """The cores ``depth`` pixels or more inside the lit mask (``inside``: its distance transform)."""
    core = (inside >= depth).view(np.uint8)
    _, labels, stats, centroids = cv2.connectedComponentsWithStats(core, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    extent = np.maximum(bw, bh).astype(np.float64)
    short = np.minimum(bw, bh)
    keep = (extent < min(inside.shape) / 4) & (short >= COMPACT * extent) & (area >= FILL * bw * bh)
    blobs = Blobs(centroids[1:][keep][:, ::-1].astype(np.float64), extent[keep] + 2 * depth, area[keep])
    square = (short[keep] >= SQUARE * extent[keep]) & (extent[keep] >= SOLID * depth)
    return _Level(labels, np.flatnonzero(keep) + 1, blobs, square)


def _typical(blobs: Blobs, size: float) -> np.ndarray:
    """Which blobs are of a shield's size, ``size`` the median shield's extent."""
    return np.asarray((blobs.extents >= SIZE_RANGE[0] * size) & (blobs.extents <= SIZE_RANGE[1] * size))


def _label_at(labels: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The label under each point (N, 2) ``(row, col)``."""
    rc = np.clip(np.round(points).astype(np.int64), 0, np.array(labels.shape) - 1)
    return np.asarray(labels[rc[:, 0], rc[:, 1]])


def truer_axes(
    work: np.ndarray,
    centres: np.ndarray,
    cells: np.ndarray,
    grid: np.ndarray,
    cut: np.ndarray,
    *,
    within: float,
) -> np.ndarray:
    """Of the homographies ``grid`` and ``cut`` (3, 3; :func:`vision.geometry.foreshortened`), the one in
    whose axes the Herkle shields at ``centres`` (N, 2) on ``cells`` (N, 2) fit the shield's outline
    better (the median of :func:`vision.shields.outline_misfit` over the shields seen). A homography
    through a narrow layout measures the camera's foreshortening, or takes a row bent by drift for it:
    the shields, all of one known form, tell which. Where they fit neither (a median misfit above
    :data:`vision.shields.MISFIT`: a homography through a few shields can stretch the cells along one
    axis), the similarity through the shields is taken if they fit it better, and it puts every shield
    ``within`` cells of its centre and turns no cell inside out."""
    tried = [grid] if cut is grid else [grid, cut]
    misfit = [_misfit(work, centres, cells, h) for h in tried]
    if min(misfit) > MISFIT:
        where = cells.astype(np.float64)
        flat = similarity(where, centres)
        if holds(flat, grid, where, centres, within=within):
            tried.append(flat)
            misfit.append(_misfit(work, centres, cells, flat))
    return tried[int(np.argmin(misfit))]


def _misfit(work: np.ndarray, centres: np.ndarray, cells: np.ndarray, h: np.ndarray) -> float:
    """The median :func:`vision.shields.outline_misfit` of the shields at ``centres`` (N, 2) on ``cells``
    (N, 2), cut in the axes of the homography ``h`` (inf where none is seen)."""
    outline = shield_outline(tileset("herkle"))
    patches = cut_patches(work, centres, local_axes(h, cells.astype(np.float64)))
    view = view_shields(patches, field_colour(patches), outline=outline)
    shown = view.outline.reshape(len(patches), -1).any(axis=1)
    return float(np.median(outline_misfit(view.outline[shown], outline))) if shown.any() else np.inf
