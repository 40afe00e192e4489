"""Naming each measured tile's colour and shape, with a confidence.

Both are nearest-prototype decisions with a soft-max confidence: a tile halfway between two prototypes
gets 0.5, one far from every prototype gets a low *fit* as well (something that is not a tile, or a tile
seen badly). Shapes are compared by outline descriptor (:func:`vision.features.outline`), each feature
in its prototype's own spread; Herkle's ordinaries, which are not star-shaped, by silhouette. Colours
adapt to the frame: after a first pass, each colour's prototype moves halfway to the mean of the tiles
confidently given that colour in this frame (when there are a few), and the tiles are named again; this
absorbs what the white balance left of the light. Where the names cannot be told apart (two neutral
colours; a fess from a pale when the frame's "up" is not known) the tile is left uncertain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.features import Measurements, outline
from vision.prototypes import LIGHTNESS_WEIGHT, Prototypes, colour_features

#: How clearly (in shape spreads, summed over the frame's tiles) the tiles must vote for the frame's
#: "up" parity before a shape whose name depends on it (Herkle's fess and pale) is named.
PARITY_VOTE = 2.0
#: Colours whose prototype's chroma (Lab a, b) is below this are neutral: white and black. Two neutral
#: colours in one tile set (Herkle's) differ only in lightness against the shield's grey field, which the
#: normalised paint discards: a tile named either is not trusted (uncertain, never read as the other).
NEUTRAL_CHROMA = 20.0


@dataclass(frozen=True)
class Named:
    """Per tile (N): the chosen names, their confidences (0..1) and fits (distance in spreads)."""

    colours: list[str]
    shapes: list[str]
    colour_confidence: np.ndarray
    shape_confidence: np.ndarray
    colour_fit: np.ndarray
    shape_fit: np.ndarray

    @property
    def confidence(self) -> np.ndarray:
        return np.asarray(np.minimum(self.colour_confidence, self.shape_confidence))


def classify(m: Measurements, gains: np.ndarray, prototypes: Prototypes) -> Named:
    """Name the colour and shape of measured tiles.

    Parameters
    ----------
    m : Measurements
        The tiles' measurements (N).
    gains : ndarray, shape (3,)
        The frame's white balance (:func:`vision.prototypes.white_balance`).
    prototypes : Prototypes
        Reference colours and shapes.
    """
    feats = colour_features(m, gains)
    names = list(prototypes.colours)
    centres = np.array([prototypes.colours[k] for k in names])
    dist = _colour_distance(feats, centres)
    conf = _softmax_best(dist, prototypes.colour_spread)
    best = dist.argmin(axis=1)
    adapted = centres.copy()
    for k in range(len(names)):
        members = (best == k) & (conf > 0.9)
        if members.sum() >= 3:
            adapted[k] = 0.5 * centres[k] + 0.5 * feats[members].mean(axis=0)
    dist = _colour_distance(feats, adapted)
    best = dist.argmin(axis=1)
    colour_conf = _softmax_best(dist, prototypes.colour_spread)
    colour_fit = dist.min(axis=1) / prototypes.colour_spread
    neutral = np.hypot(centres[:, 1], centres[:, 2]) < NEUTRAL_CHROMA
    if neutral.sum() >= 2:  # told apart only by lightness, which the normalised paint does not keep
        colour_conf = np.where(neutral[best], np.minimum(colour_conf, 0.5), colour_conf)

    shape_names, sdist = _shape_distance(m, prototypes)
    shape_best = sdist.argmin(axis=1)
    shape_conf = _softmax_best(sdist, 1.0)
    shape_fit = sdist.min(axis=1)
    return Named(
        [names[k] for k in best],
        [shape_names[k] for k in shape_best],
        colour_conf,
        shape_conf,
        colour_fit,
        shape_fit,
    )


def _shape_distance(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray]:
    """Each tile's distance (N, K) to each shape's prototype, in spreads: by outline where the prototypes
    have outlines, else by silhouette."""
    if prototypes.outlines:
        names = list(prototypes.outlines)
        middle = np.array([prototypes.outlines[k] for k in names])
        spread = np.array([prototypes.outline_spreads[k] for k in names])
        z = (outline(m.radial)[:, None, :] - middle[None]) / spread[None]
        return names, np.asarray(np.sqrt((z**2).sum(axis=2)))
    return _silhouette_distance(m, prototypes)


def _silhouette_distance(m: Measurements, prototypes: Prototypes) -> tuple[list[str], np.ndarray]:
    """Silhouette distances (N, K) in spreads, with the frame's "up" voted over its tiles.

    The grid's axes are known only modulo a quarter turn, and Herkle's ordinaries are not: a fess is a pale
    turned. Each tile is compared with the templates as they are and turned a half turn (the *even*
    parity) and turned a quarter or three (the *odd* one); every tile votes for the parity it fits better
    (each ordinary is clipped to the shield, which is taller than wide, so even a cross tells), each vote
    capped at one spread, and every tile is then named in the winning parity. When the vote is not clear, a
    tile whose name depends on the parity (a fess or a pale) is as near the one name as the other: its
    confidence is at most one half, so it is uncertain, never read as the other.
    """
    names = list(prototypes.shapes)
    sil = m.silhouette.reshape(len(m), -1)
    by_parity = []
    for turns in ((0, 2), (1, 3)):
        per_turn = []
        for k in turns:
            templates = np.array([np.rot90(prototypes.shapes[n], k) for n in names]).reshape(len(names), -1)
            per_turn.append(np.sqrt(((sil[:, None, :] - templates[None]) ** 2).mean(axis=2)))
        by_parity.append(np.minimum(*per_turn) / prototypes.shape_spread)
    even, odd = by_parity
    vote = float(np.clip(odd.min(axis=1) - even.min(axis=1), -1.0, 1.0).sum())
    chosen, other = (even, odd) if vote >= 0 else (odd, even)
    if abs(vote) < PARITY_VOTE:
        rows = np.flatnonzero(chosen.argmin(axis=1) != other.argmin(axis=1))
        chosen = chosen.copy()
        chosen[rows, other.argmin(axis=1)[rows]] = chosen[rows].min(axis=1)  # two names, equally near
    return names, chosen


def _colour_distance(feats: np.ndarray, centres: np.ndarray) -> np.ndarray:
    w = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])
    return np.asarray(np.sqrt((((feats[:, None, :] - centres[None]) * w) ** 2).sum(axis=2)))


def _softmax_best(dist: np.ndarray, spread: float) -> np.ndarray:
    """The soft-max probability of the nearest prototype, from distances (N, K)."""
    if dist.shape[1] == 0:
        return np.zeros(len(dist))
    z = -0.5 * (dist / spread) ** 2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return np.asarray(p.max(axis=1) / p.sum(axis=1))
