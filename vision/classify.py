"""Naming each measured tile's colour and shape, with a confidence.

Both are nearest-prototype decisions with a soft-max confidence: a tile halfway between two prototypes
gets 0.5, one far from every prototype gets a low *fit* as well (something that is not a tile, or a tile
seen badly). Shapes are compared by outline descriptor (:func:`vision.outline.outline`), each feature
in its prototype's own spread, and by how far the outline is from a fourfold symmetry (a leaning cube's
side face, a symbol smeared by other paint: a poor fit, never another shape); calibrated, under the
spreads learned under the calibration photo's light, with each tile's own noise in the confidence
and by the symbol's size as the photo showed it (its paint's coverage of the cell), the fit then
counting only the asymmetry the outline's own noise does not explain (:func:`name_shapes`). A tile's
paint is read as it is and with what may be a lamp's reflection on its glossy top taken off
(:func:`vision.prototypes.colour_features`), and the reading nearer a colour is kept. Colours
adapt to the frame: after a first pass, each colour's prototype moves halfway to the mean of the tiles
confidently given that colour in this frame (when there are a few), and the tiles are named again;
this absorbs what the white balance left of the light. The colour-blind edition's inner mark is a
second colour cue, its distance joined to the paint's. Herkle's ordinaries, which are not
star-shaped, are named on their shields (:mod:`vision.shield_names`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.features import Measurements
from vision.named import Named, colour_distance, softmax, softmax_best
from vision.outline import asymmetry, harmonics, outline
from vision.prototypes import (
    HOLES_BY_COLOUR,
    OPEN,
    Prototypes,
    colour_features,
    mark_descriptor,
)
from vision.shield_names import name_shields, on_shields, silhouette_distance

#: The spread of an outline's departure from a fourfold symmetry (:func:`vision.outline.asymmetry`):
#: whole symbols stay within about one (0.03 on the real Connect photos, 0.08 on rendered tilted
#: cubes); a squashed side face or a symbol with other paint run into it reaches four to ten. It adds
#: to every shape's distance alike, so it lowers the fit, not the choice.
ASYMMETRY_SPREAD = 0.04
#: The spread of a shape's paint coverage of its cell (:attr:`vision.features.Measurements.coverage`)
#: about the calibration photo's (:attr:`vision.prototypes.Prototypes.coverages`): within one rendered
#: game under one light a shape's tiles scatter by 0.016 to 0.036 (flat tiles) and up to 0.08 (leaning
#: cubes), more than the calibration photo's own (0.003 to 0.03: one moment, tiles square to the camera).
#: The circle covers about 0.06 more than the square or diamond, the criss-cross and starburst 0.06 to 0.1
#: less: a weak cue alone, but one that does not depend on the outline's noise.
COVERAGE_SPREAD = 0.04
#: The radial profile's noise is not white: neighbouring rays sample the same pixels, so it falls with
#: the harmonic. Harmonics no fourfold symbol holds and a squashed or cut symbol adds little to
#: (NOISE_HARMONICS) measure it; on whole symbols of rendered games the root-mean-square of the asymmetry's
#: harmonics (1, 2, 3, 5, 6, 7) is 2.45 to 3.36 times theirs (median by light and edition, flat tiles;
#: green in a tenth of the light alike), NOISE_RATIO.
NOISE_HARMONICS = (9, 10, 11, 13, 14, 15)
NOISE_RATIO = 2.8
#: The 95th percentile of F(12, 12): a tile's asymmetry is noise alone when its power, per harmonic, is
#: within this factor of what its NOISE_HARMONICS predict (six complex harmonics each side).
NOISE_F = 2.69
#: How far (log gain, any channel) a frame's bodies' balance may lie from a calibration photo's for the
#: light to count as the photo's: under the light of the photo, frames of rendered games lay at most 0.28
#: from it (median 0.03-0.20 per game); a warm lamp switched on after a daylight calibration moved it by
#: 0.53 or more (median 0.67), and a dim light after a warm one by 0.62 or more.
SAME_LIGHT = 0.3
#: The shape confidence of a calibrated tile whose shape its calibration photo leaves in doubt
#: (:attr:`vision.prototypes.Prototypes.doubts`): as near the one name as the other, so uncertain.
DOUBTED = 0.5
#: Blur rounds a symbol's corners and lobes: it takes the eightfold harmonic (signed, in the fourfold
#: frame) toward nothing, never past it. Where a tile's lies between nothing and a shape's middle, blur
#: may have put it there: counted in a spread at least this fraction of the middle (blurred to nothing,
#: two spreads), not only in the shape's own spread, measured mostly on sharp symbols
#: (:func:`_named_with_own_noise`). On the rendered sets a diamond whose eightfold harmonic blur took
#: below 0.012 (middle 0.036, spread 0.011) lay about 3.5 of the diamond's spreads off and 2.5 of the
#: clover's wide ones, and was named a clover, though its fourfold harmonic (0.09-0.15) lay below 95 in
#: 100 blurred clovers' (0.18 and more).
BLUR_REACH = 0.5


def classify(m: Measurements, gains: np.ndarray, prototypes: Prototypes) -> Named:
    """Name the colour and shape of measured tiles.

    Parameters
    ----------
    m : Measurements
        The tiles' measurements (N).
    gains : ndarray, shape (3,)
        The frame's white balance (:func:`vision.prototypes.white_balance`).
    prototypes : Prototypes
        Reference colours and shapes; a calibration's :attr:`~vision.prototypes.Prototypes.body_gains`
        take the place of ``gains`` under the same light (:func:`_light_gains`).
    """
    gains = _light_gains(gains, prototypes)
    if prototypes.tileset == "herkle":
        return name_shields(m, gains, prototypes)
    names = list(prototypes.colours)
    centres = np.array([prototypes.colours[k] for k in names])
    # each tile's paint as it is and with what may be a lamp's reflection taken off (the body lighter
    # than the frame's black in every channel): the reading that lies nearer a colour is kept
    feats, lit = colour_features(m, gains), colour_features(m, gains, reflection=True)
    dist, dist_lit = colour_distance(feats, centres), colour_distance(lit, centres)
    glossy = dist_lit.min(axis=1) < dist.min(axis=1)
    feats, dist = np.where(glossy[:, None], lit, feats), np.where(glossy[:, None], dist_lit, dist)
    conf = softmax_best(dist, prototypes.colour_spread)
    best = dist.argmin(axis=1)
    adapted = centres.copy()
    for k in range(len(names)):
        members = (best == k) & (conf > 0.9)
        if members.sum() >= 3:
            adapted[k] = 0.5 * centres[k] + 0.5 * feats[members].mean(axis=0)
    dist = colour_distance(feats, adapted)
    both = np.hypot(dist / prototypes.colour_spread, _mark_distance(m, prototypes, names))
    best = both.argmin(axis=1)
    colour_conf = softmax_best(both, 1.0)
    colour_fit = dist[np.arange(len(best)), best] / prototypes.colour_spread

    shapes, shape_conf, shape_fit = name_shapes(m, prototypes)
    colours = [names[k] for k in best]
    if prototypes.doubts:
        shape_conf = _doubted(m, prototypes, colours, shapes, shape_conf)
    return Named(colours, shapes, colour_conf, shape_conf, colour_fit, shape_fit)


def _light_gains(gains: np.ndarray, prototypes: Prototypes) -> np.ndarray:
    """The balance (3,) to name a frame's colours under: a calibration's ``body_gains`` (its colours were
    learned under them) while the frame's own ``gains`` lie within :data:`SAME_LIGHT` of them in every
    channel, else (the light has changed since, and the frame's bodies tell more of it) the frame's."""
    learned = prototypes.body_gains
    if learned is None or np.abs(np.log(np.maximum(gains, 1e-6) / learned)).max() > SAME_LIGHT:
        return gains
    return learned


def name_shapes(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The shapes of measured tiles (every edition but Herkle's), as :func:`classify` names them.

    Each tile's shape depends on that tile alone: the nearest shape by :func:`shape_distance` (calibrated:
    under the learned spreads), the confidence (N,) with the tile's own noise counted
    (:func:`_named_with_own_noise`) and the fit (N,), in spreads of the edition, to the shape named. With a
    calibration's coverage for every shape, the symbol's size joins the outline in the choice and the
    confidence (:data:`COVERAGE_SPREAD`), and the fit counts only the asymmetry beyond the tile's own
    noise (:func:`beyond_noise`).
    """
    shape_names, sdist = shape_distance(m, prototypes)
    if prototypes.outlines and prototypes.learned_spreads:
        spreads, noise = light_spreads(prototypes), prototypes.asymmetry_noise
    elif prototypes.outlines:
        # the edition's spreads were measured on whole symbols, whose asymmetry is about ASYMMETRY_SPREAD
        spreads, noise = prototypes.outline_spreads, ASYMMETRY_SPREAD
    else:
        shape_best = sdist.argmin(axis=1)
        return [shape_names[k] for k in shape_best], softmax_best(sdist, 1.0), sdist.min(axis=1)
    shape_best, shape_conf = _named_with_own_noise(m, prototypes, spreads, noise)
    shape_fit = sdist[np.arange(len(shape_best)), shape_best]
    return [shape_names[k] for k in shape_best], shape_conf, shape_fit


def _named_with_own_noise(
    m: Measurements, prototypes: Prototypes, spreads: dict[str, np.ndarray], noise: float
) -> tuple[np.ndarray, np.ndarray]:
    """Each tile's nearest shape (N,) under the outline ``spreads`` and the confidence (N,) in it.

    Calibrated, the spreads are how far each shape's tiles scatter under the calibration photo's light
    (:func:`light_spreads`) instead of the edition's: in dim light or on small tiles a shape's tiles
    scatter wider than the edition's spreads; in clean light narrower (a starburst's eightfold harmonic,
    whose spread holds every printing, is what this camera shows of it). A tile can be noisier than the
    spreads allow (fewer levels of light on it, blur, a smudge): what its profile holds beyond a symbol's
    harmonics (:func:`vision.outline.asymmetry`, twelve real Fourier coefficients) measures its own noise,
    about ``asymmetry / sqrt(12)`` in each coefficient if the noise is white. The spreads hold some noise
    already, ``noise`` in asymmetry (calibrated: the photo's own tiles', :attr:`Prototypes.asymmetry_noise`;
    the edition's: whole symbols', :data:`ASYMMETRY_SPREAD`); only what a tile shows beyond it (in power)
    is its own. The confidence is the lower of the call's soft-max probability under the spreads and
    under the spreads widened by that noise (added in quadrature), so a tile whose own noise reaches
    from one shape to another is uncertain, not a guess (a blurred diamond, its corners' eightfold
    harmonic gone, lies a few of the diamond's narrow spreads from it and was named a clover, whose
    spreads are wide, with full confidence); one no noisier than that is not counted noisy twice.
    Uncalibrated (the edition's spreads, measured mostly on sharp symbols; only where holes in the layout
    are told by the table's colour, :data:`vision.prototypes.HOLES_BY_COLOUR`), blur's way toward a
    shape is counted too (:data:`BLUR_REACH`): the shape is chosen so, and the confidence is at most
    the call's soft-max probability under the shapes' own spreads, so a tile the two ways name apart (a
    blurred diamond, nearer the clover in the clover's wide spreads) is uncertain, not a confident
    guess either way. The fit (:func:`shape_distance`) is unchanged: it stays the guard.
    """
    names, offset, spread, size = _outline_offsets(m, prototypes, spreads)
    wide = spread[None]
    if not (prototypes.learned_spreads or _sized(prototypes)) and prototypes.tileset in HOLES_BY_COLOUR:
        middle = np.array([prototypes.outlines[k] for k in names])
        wide = np.repeat(wide, len(offset), axis=0)
        wide[:, :, 1] = _blur_spread(offset[:, 0] + middle[0], middle, spread)
    closed = np.array([prototypes.outline_spreads[k] < OPEN for k in names])  # open: says nothing
    beyond = np.maximum(asymmetry(m.radial) ** 2 - noise**2, 0.0)
    own = np.where(closed, (beyond / 12)[:, None, None], 0.0)
    plain = _in_spreads((offset / wide) ** 2, size)
    # (the size: a cue the outline's noise does not touch)
    noisier = _in_spreads(offset**2 / (wide**2 + own), size)
    best = plain.argmin(axis=1)
    rows = np.arange(len(best))
    sure = np.minimum(softmax(plain)[rows, best], softmax(noisier)[rows, best])
    sharp = _in_spreads((offset / spread[None]) ** 2, size)
    return best, np.minimum(sure, softmax(sharp)[rows, best])


def _doubted(
    m: Measurements,
    prototypes: Prototypes,
    colours: Sequence[str],
    shapes: Sequence[str],
    confidence: np.ndarray,
) -> np.ndarray:
    """The shape ``confidence`` (N,) of tiles named ``colours`` and ``shapes`` (N each), at most
    :data:`DOUBTED` where the calibration photo leaves the shape in doubt: the tile's log-odds of its
    shape over another, as :func:`name_shapes` decides (:func:`decision_distances`), is below what the
    photo's tile of that colour and other shape reached toward it (:attr:`Prototypes.doubts`). The reader
    is then no surer of the pair than its photo was."""
    names, distance = decision_distances(m, prototypes)
    out = np.array(confidence, np.float64)
    for i, (colour, shape) in enumerate(zip(colours, shapes, strict=True)):
        named = distance[i, names.index(shape)]
        for other, d in zip(names, distance[i].tolist(), strict=True):
            need = prototypes.doubts.get((colour, shape, other))
            if need is not None and 0.5 * (d**2 - named**2) < need:
                out[i] = min(out[i], DOUBTED)
    return out


def decision_distances(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray]:
    """The shapes (K) of ``prototypes``' outlines and each measured tile's distance (N, K), in spreads, to
    each, as :func:`name_shapes` chooses by: under the outline spreads the calibration photo's light gives
    (:func:`light_spreads`; the edition's where there are none) and, calibrated, the symbol's size; before
    counting the tile's own noise. Half the difference of two squared distances is the log-odds of the
    nearer shape over the other."""
    names, offset, spread, size = _outline_offsets(m, prototypes, light_spreads(prototypes))
    return names, _in_spreads((offset / spread[None]) ** 2, size)


def shape_probabilities(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray]:
    """Calibrated: the shapes (K) and each one's soft-max probability (N, K) for each measured tile under the
    outline spreads the calibration photo's light gives (:func:`light_spreads`) and the symbol's size, as
    :func:`name_shapes` weighs them before counting the tile's own noise (:func:`decision_distances`)."""
    names, distance = decision_distances(m, prototypes)
    return names, softmax(distance)


def _outline_offsets(
    m: Measurements, prototypes: Prototypes, spreads: dict[str, np.ndarray]
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray | None]:
    """The shapes (K) of ``prototypes``' outlines, each tile's outline offset (N, K, F) from each shape's,
    the shapes' ``spreads`` (K, F) and the symbol's size distances (N, K; None uncalibrated,
    :func:`size_distance`)."""
    names = list(prototypes.outlines)
    middle = np.array([prototypes.outlines[k] for k in names])
    spread = np.array([spreads[k] for k in names])
    offset = outline(m.radial)[:, None, :] - middle[None]
    return names, offset, spread, size_distance(m, prototypes, names)


def _in_spreads(squared: np.ndarray, size: np.ndarray | None) -> np.ndarray:
    """Each tile's distance (N, K) in spreads from each shape: from its outline's squared offsets (N, K, F)
    in spreads, joined with the symbol's size distance ``size`` (N, K; None uncalibrated)."""
    distance = np.sqrt(squared.sum(axis=2))
    return distance if size is None else np.asarray(np.hypot(distance, size))


def light_spreads(prototypes: Prototypes) -> dict[str, np.ndarray]:
    """Each shape's outline spreads as a calibrated classifier names shapes: the spreads learned under the
    calibration photo's light (:attr:`Prototypes.learned_spreads`) where there are some, except for
    features the edition leaves open (a starburst's eightfold phase), which keep its spread."""
    return {
        k: np.where(v < OPEN, prototypes.learned_spreads.get(k, v), v)
        for k, v in prototypes.outline_spreads.items()
    }


def shape_distance(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray]:
    """Each tile's distance to each shape's prototype, as the classifier measures it.

    By outline descriptor where the prototypes have outlines (each feature in its shape's spread, plus
    the outline's asymmetry, alike for every shape); for Herkle by the ordinary's silhouette on its
    shield (:mod:`vision.shields`, the frame's "up" voted over the tiles; NaN for a tile whose shield
    is not whole, which the reader does not name); else by silhouette with the frame's "up" voted
    (:func:`vision.shield_names.silhouette_distance`).

    The eightfold harmonic's size repeats its signed value wherever a shape fixes the harmonic's phase
    (every shape but the starburst, whose phase the edition leaves open, :data:`vision.prototypes.OPEN`):
    there it counts once, through the signed value, or a symbol blurred round (a criss-cross at 40 px per
    tile under warm, cool or dim light) lay two misfits from its shape for one cause. Only where holes in
    the layout are told by the table's colour (:data:`vision.prototypes.HOLES_BY_COLOUR`): on Connect's
    printed board the fit stays the guard against a hole's white square, which lies at its limit. And
    only uncalibrated: a calibration's middles are the photo's own symbols under its light, blurred as
    the frames' are, and its tests were measured with the count as it was (counted once, the calibrated
    colour-blind game under its dim shift read 11 tiles fewer, 7 more wrong).

    Parameters
    ----------
    m : Measurements
        The tiles' measurements (N).
    prototypes : Prototypes
        Reference shapes.

    Returns
    -------
    names : list of str
        The K shape names, in column order.
    distance : ndarray, shape (N, K), float64
        Distances in spreads.
    """
    if prototypes.tileset == "herkle":
        _, found, names, shielded = on_shields(m, prototypes)
        distance = np.full((len(m), len(names)), np.nan)
        distance[found] = shielded
        return names, distance
    if prototypes.outlines:
        names = list(prototypes.outlines)
        middle = np.array([prototypes.outlines[k] for k in names])
        spread = np.array([prototypes.outline_spreads[k] for k in names])
        z = (outline(m.radial)[:, None, :] - middle[None]) / spread[None]
        lopsided = asymmetry(m.radial)
        if _sized(prototypes):
            lopsided = beyond_noise(m.radial)
        elif prototypes.tileset in HOLES_BY_COLOUR:  # a fixed eightfold phase: its size counted once
            z[:, :, 2] *= spread[None, :, 1] >= OPEN
        lopsided = (lopsided / ASYMMETRY_SPREAD)[:, None]  # alike for every shape
        return names, np.asarray(np.sqrt((z**2).sum(axis=2) + lopsided**2))
    return silhouette_distance(m, prototypes)


def _blur_spread(features: np.ndarray, middle: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """The spread (N, K) each tile's signed eightfold harmonic is counted in against each shape: the
    shape's own, or where the tile's lies between nothing and the shape's middle (blur's way) and the
    shape fixes the harmonic's phase, at least :data:`BLUR_REACH` of the middle. ``features`` (N, 4)
    outline descriptors (:func:`vision.outline.outline`), ``middle`` and ``spread`` (K, 4) the shapes'."""
    m8, s8 = middle[None, :, 1], spread[None, :, 1]
    toward = features[:, 1:2] * np.sign(m8)
    blurred = (toward >= 0) & (toward <= np.abs(m8)) & (s8 < OPEN)
    return np.where(blurred, np.maximum(s8, BLUR_REACH * np.abs(m8)), s8)


def beyond_noise(radial_profile: np.ndarray) -> np.ndarray:
    """The asymmetry (N,) of outlines (:func:`vision.outline.asymmetry`) that their own noise leaves.

    Few levels of light make a symbol's edge, and so its radial profile, noisy; that noise adds to the
    asymmetry as a squashed side face or a cut symbol does. It is measured apart, on harmonics no
    fourfold symbol holds and those add little to (:data:`NOISE_HARMONICS`), and carried over to the
    asymmetry's by :data:`NOISE_RATIO`. Where the asymmetry is what that noise makes (within the 95 %
    point of its F distribution, :data:`NOISE_F`), the noise beyond a whole symbol's (the part
    :data:`ASYMMETRY_SPREAD` does not already hold) is taken off it; where it is more (a side face,
    another symbol's paint run in), nothing is: such an outline is no noisy whole symbol.
    """
    lopsided = asymmetry(radial_profile)
    # the mean power per harmonic
    noise = NOISE_RATIO**2 * np.mean(np.abs(harmonics(radial_profile, NOISE_HARMONICS)) ** 2, axis=0)
    whole = ASYMMETRY_SPREAD**2 / 6
    own = np.where(lopsided**2 / 6 <= NOISE_F * noise, np.maximum(noise - whole, 0.0), 0.0)
    return np.asarray(np.sqrt(np.maximum(lopsided**2 - 6 * own, 0.0)))


def size_distance(m: Measurements, prototypes: Prototypes, names: Sequence[str]) -> np.ndarray | None:
    """Each tile's distance (N, K) from the sizes of the shapes ``names`` (K) as a calibration photo showed
    them (:attr:`vision.prototypes.Prototypes.coverages`), in :data:`COVERAGE_SPREAD`; None where the
    prototypes do not carry a size for every shape with an outline (uncalibrated)."""
    if not _sized(prototypes):
        return None
    size = np.array([prototypes.coverages[k] for k in names])
    return np.asarray((m.coverage[:, None] - size[None]) / COVERAGE_SPREAD)


def _sized(prototypes: Prototypes) -> bool:
    """Whether the prototypes carry a calibration's coverage for every shape with an outline: a calibrated
    reader then names shapes by size too, and lets a tile's outline have the noise it shows."""
    return bool(prototypes.outlines) and set(prototypes.outlines) <= set(prototypes.coverages)


def _mark_distance(m: Measurements, prototypes: Prototypes, names: list[str]) -> np.ndarray:
    """Each tile's distance (N, K) from each colour's inner mark, in spreads (the colour-blind edition's
    second colour cue); zero where the edition has no marks, or no mark is seen in the tile."""
    out = np.zeros((len(m), len(names)))
    if not prototypes.marks or len(m) == 0:
        return out
    desc, seen = mark_descriptor(m.hole)
    for k, name in enumerate(names):
        if name in prototypes.marks:
            z = (desc - prototypes.marks[name]) / prototypes.mark_spreads[name]
            out[:, k] = np.where(seen, np.sqrt((z**2).sum(axis=1)), 0.0)
    return out
