"""Herkle: naming each ordinary on its shield, against the shield's grey field.

Herkle's ordinaries are not star-shaped, so they are named on their shields (:mod:`vision.shields`): the
shape by silhouette, with the frame's "up" voted over every tile (a fess is a pale turned), joined with the
ordinary's arch (a chevron's arms rise to a point, a fess is level; calibrated, against the arches the
photo showed) and, between a cross and a pale or fess, its arm; the colour against the shield's grey
field. Where the names cannot be told apart (a fess from a pale when the frame's "up" is not known; an
ordinary about as grey as its field) the tile is left uncertain.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from table import tileset
from vision.features import Measurements
from vision.named import Named, colour_distance, softmax_best
from vision.ordinaries import arch, arm, shield_lightness, shield_templates
from vision.prototypes import Prototypes, colour_features, painted_prototypes
from vision.shields import BLACK_RISE, ShieldView, field_gains, shield_view

#: How clearly (in shape spreads, summed over the frame's tiles) the tiles must vote for the frame's
#: "up" parity before a shape whose name depends on it (Herkle's fess and pale) is named.
PARITY_VOTE = 2.0
#: Herkle: the spread of an ordinary's silhouette on its shield (:mod:`vision.shields`) about its
#: shape's, root-mean-square over the silhouette: the other silhouettes' (SHAPE_SPREAD), not fitted. On
#: a rendered Herkle set (seed 31) the tiles named right lie 1.2 to 2.4 spreads from their shape (a
#: tenth to nine tenths), so it is no outlier test; the soft-max over it gives the confidence.
SHIELD_SPREAD = 0.05
#: Herkle: the spread of an ordinary's arch (:func:`vision.ordinaries.arch`) about its shape's on the painted
#: model: the rendered tiles scatter by 0.08 to 0.15 about their shape's median, which lies up to 0.24
#: from the painted model's (bend, saltire); together about 0.3. It tells a chevron, whose silhouette
#: is about as near the fess's as its own when it is painted flatter, from a fess.
ARCH_SPREAD = 0.3
#: Herkle: the spread of an ordinary's arm (:func:`vision.ordinaries.arm`) about its shape's on the painted
#: model, for the ordinaries it tells apart: on 120 frames rendered with other seeds than the evaluated
#: set's (5 and 7; 1,448 whole shields of those shapes), root-mean-square 0.058 for crosses, 0.016 for
#: pales and fesses, where the painted cross's arm is 0.54 and theirs 0.
ARM_SPREAD = 0.06
#: Herkle: the ordinaries that share a cross's bar and differ from it by its arm.
BARRED = ("pale", "fess")
#: Herkle: an ordinary at least this saturated ((max - min) / max of its paint) is a hue (red, yellow,
#: green, blue: 0.74 and more on rendered sets), one below the other bound is grey like the field
#: (white or black: 0.38 and less); between, it is not named.
CHROMATIC_SATURATION = 0.6
NEUTRAL_SATURATION = 0.5
#: Herkle: a hue's colour is strong against the field's brightness too (its max - min over the
#: field's brightest channel: 0.54 and more on rendered sets, warm-calibrated included), while a black
#: ordinary's is weak however its few levels are tinted (0.21 and less, where its saturation under a
#: tungsten lamp reaches 0.8 and it was read red); between the two bounds it is not named.
CHROMATIC_CHROMA = 0.4
NEUTRAL_CHROMA_FIELD = 0.3
#: Colours whose prototype's chroma (Lab a, b) is below this are neutral: Herkle's white and black, which
#: differ only in lightness, which the normalised paint discards: they are named by their lightness
#: against the shield's grey field instead (:func:`name_shields`).
NEUTRAL_CHROMA = 20.0


def name_shields(m: Measurements, gains: np.ndarray, prototypes: Prototypes) -> Named:
    """Herkle: name each ordinary against its shield's field (:mod:`vision.shields`).

    Shapes are the ordinaries' silhouettes drawn on their shields, against the painted model's, with the
    frame's "up" voted as for any silhouette (:func:`silhouette_distance`; the shield's flat top and
    round foot make every tile's vote count). Colours: an ordinary unlike the field in hue is named by
    the paint prototypes among the chromatic colours, balanced on the shields' grey field rather than
    ``gains``, the bodies' (:func:`vision.shields.field_gains`; calibration learns them so too); one
    about as grey as the field by how much lighter or darker than the field it is, against the painted
    model's white and black, and only when it is further from the field than halfway to that colour
    (black also as dark as the body, :data:`vision.shields.BLACK_RISE`). An ordinary in between, or no
    shield found: not named (confidence 0).
    """
    n = len(m)
    tiles = tileset(prototypes.tileset)
    view, found, shape_names, sdist = on_shields(m, prototypes)
    names = list(prototypes.colours)
    centres = np.array([prototypes.colours[k] for k in names])
    # Which colours are grey is a property of the tiles (their painted model), not of a calibration:
    # white and black learned under a tinted lamp can carry the lamp's hue.
    painted = painted_prototypes(tiles).colours
    neutral = np.array([float(np.hypot(*painted[k][1:3])) < NEUTRAL_CHROMA for k in names])
    colours = [names[0]] * n
    colour_conf, colour_fit = np.zeros(n), np.zeros(n)
    shapes = [shape_names[0]] * n
    shape_conf, shape_fit = np.zeros(n), np.zeros(n)
    if view is None or not len(found):
        return Named(colours, shapes, colour_conf, shape_conf, colour_fit, shape_fit)
    seen = dataclasses.replace(m.take(found), paint=view.paint[found])
    hue = np.flatnonzero(~neutral)
    cdist = colour_distance(colour_features(seen, field_gains(view, gains)), centres[hue])
    cconf = softmax_best(cdist, prototypes.colour_spread)
    lightness = shield_lightness(tiles)
    for j, i in enumerate(found):
        shapes[i] = shape_names[int(sdist[j].argmin())]
        shape_fit[i] = sdist[j].min()
        saturation, light = view.saturation[i], np.log(max(view.lightness[i], 1e-3))
        if saturation >= CHROMATIC_SATURATION and view.chroma[i] < CHROMATIC_CHROMA:
            if view.chroma[i] >= NEUTRAL_CHROMA_FIELD:
                continue  # saturated for itself, faint against the field: not named
            saturation = 0.0  # a dark grey whose few levels are tinted: no hue
        if saturation >= CHROMATIC_SATURATION:
            k = int(cdist[j].argmin())
            colours[i], colour_conf[i] = names[hue[k]], cconf[j]
            colour_fit[i] = cdist[j, k] / prototypes.colour_spread
        elif saturation < NEUTRAL_SATURATION:
            grey = min(np.flatnonzero(neutral), key=lambda k: abs(light - np.log(lightness[names[k]])))
            model = np.log(lightness[names[grey]])
            colours[i] = names[grey]
            # darker than the field: black only when as dark as the body (a grey between is a white
            # ordinary in shadow taken for the field, the field then read as the ordinary)
            black = model > 0 or view.rise[i] <= BLACK_RISE
            colour_conf[i] = float(light * model > 0 and abs(light) >= 0.5 * abs(model) and black)
    shape_conf[found] = softmax_best(sdist, 1.0)
    return Named(colours, shapes, colour_conf, shape_conf, colour_fit, shape_fit)


def on_shields(
    m: Measurements, prototypes: Prototypes
) -> tuple[ShieldView | None, np.ndarray, list[str], np.ndarray]:
    """Herkle: the frame's shields, the indices (F,) of the tiles whose shield is whole, the shape
    names (K) and those tiles' distances (F, K) in spreads from each ordinary's silhouette on the
    painted model's shield, the frame's "up" voted over them (:func:`silhouette_distance`)."""
    tiles = tileset(prototypes.tileset)
    names = list(tiles.shapes)
    none = np.zeros(0, np.intp), names, np.zeros((0, len(names)))
    if not len(m):
        return None, *none
    # whole shields only: of the frame's size, centred and shield-shaped (completed where a dark
    # ordinary cut the lit field's corners)
    view = shield_view(m.patch, outline=True)
    if not view.found.any():
        return view, *none
    found = np.flatnonzero(view.found)
    seen = dataclasses.replace(m.take(found), silhouette=view.silhouette[found])
    templates = shield_templates(tiles)
    against = dataclasses.replace(prototypes, shapes=templates, shape_spread=SHIELD_SPREAD)
    # the ordinaries' arches as the calibration photo showed them, else the painted model's
    painted = arch(np.array([templates[k] for k in templates]))
    middle = np.array([float(prototypes.arches.get(k, a)) for k, a in zip(templates, painted, strict=True)])
    rise = arch(view.silhouette[found])[:, None] - middle[None]
    names, distance = silhouette_distance(seen, against, also=rise / ARCH_SPREAD)
    arms = arm(view.silhouette[found])[:, None] - arm(np.array([templates[k] for k in names]))[None]
    return view, found, names, _told_by_arm(distance, names, arms / ARM_SPREAD)


def _told_by_arm(distance: np.ndarray, names: list[str], arms: np.ndarray) -> np.ndarray:
    """Herkle: silhouette distances (F, K) with a cross told from a pale or fess by its arm.

    A cross shares its bar with a pale (and a fess, a pale turned) and differs by the arm across it, a
    small part of the silhouette, which the silhouette's distance weighs no more than its noise. Where
    a tile's two nearest ordinaries are a cross and a pale or fess, the arm's distances ``arms`` (F, K),
    in spreads from each ordinary's on the painted model (:func:`vision.ordinaries.arm`), decide between
    them: the likelihood ratio the arm gives moves the one it fits worse away (its squared distance
    grows by the difference of the two's squared arm distances). The one it fits better keeps its
    distance, and so does every other ordinary: the arm tells which of the two, never how sure the pair
    is against a third. Where the arm fits neither, or both alike, little changes.
    """
    cross = names.index("cross")
    bars = [names.index(k) for k in BARRED]
    nearest = np.argsort(distance, axis=1)[:, :2]
    pair = (nearest == cross).any(axis=1) & np.isin(nearest, [cross, *bars]).all(axis=1)
    z2 = arms**2
    out = distance.copy()
    for i in np.flatnonzero(pair):
        bar = int(nearest[i][nearest[i] != cross][0])
        worse = z2[i, bar] - z2[i, cross]  # > 0: the arm fits the cross better than the bar
        if worse > 0:  # a pale and a fess alike lack the arm
            out[i, bars] = np.sqrt(distance[i, bars] ** 2 + worse)
        else:
            out[i, cross] = np.sqrt(distance[i, cross] ** 2 - worse)
    return out


def silhouette_distance(
    m: Measurements, prototypes: Prototypes, *, also: np.ndarray | None = None
) -> tuple[list[str], np.ndarray]:
    """Silhouette distances (N, K) in spreads, with the frame's "up" voted over its tiles.

    The grid's axes are known only modulo a quarter turn, and Herkle's ordinaries are not: a fess is a pale
    turned. Each tile is compared with the templates as they are and turned a half turn (the *even*
    parity) and turned a quarter or three (the *odd* one); every tile votes for the parity it fits better
    (each ordinary is clipped to the shield, which is taller than wide, so even a cross tells), each vote
    capped at one spread, and every tile is then named in the winning parity. When the vote is not clear, a
    tile whose name depends on the parity (a fess or a pale) is as near the one name as the other: its
    confidence is at most one half, so it is uncertain, never read as the other. ``also`` (N, K): distances
    in spreads by a cue that a quarter turn does not change (Herkle's :func:`vision.ordinaries.arch`), joined
    to the silhouette's in both parities (they multiply as likelihoods).
    """
    names = list(prototypes.shapes)
    sil = m.silhouette.reshape(len(m), -1)
    by_parity = []
    for turns in ((0, 2), (1, 3)):
        per_turn = []
        for k in turns:
            templates = np.array([np.rot90(prototypes.shapes[n], k) for n in names]).reshape(len(names), -1)
            per_turn.append(np.sqrt(((sil[:, None, :] - templates[None]) ** 2).mean(axis=2)))
        distance = np.minimum(*per_turn) / prototypes.shape_spread
        by_parity.append(distance if also is None else np.hypot(distance, also))
    even, odd = by_parity
    vote = float(np.clip(odd.min(axis=1) - even.min(axis=1), -1.0, 1.0).sum())
    chosen, other = (even, odd) if vote >= 0 else (odd, even)
    if abs(vote) < PARITY_VOTE:
        rows = np.flatnonzero(chosen.argmin(axis=1) != other.argmin(axis=1))
        chosen = chosen.copy()
        chosen[rows, other.argmin(axis=1)[rows]] = chosen[rows].min(axis=1)  # two names, equally near
    return names, chosen
