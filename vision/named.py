"""What a tile's name is: its colour and shape, with a confidence and a fit, and the soft-max that gives them.

Both editions' namings (:mod:`vision.classify`, and Herkle's on its shields, :mod:`vision.shield_names`)
name by distances in spreads to each prototype: the nearest is the name, its soft-max probability the
confidence, its distance the fit (how far the tile lies from every prototype: something that is not a
tile, or a tile seen badly).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.prototypes import LIGHTNESS_WEIGHT


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


def colour_distance(feats: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Distances (N, K) between colour features (N, 3) and colour prototypes (K, 3), both normalised-paint
    Lab (:func:`vision.prototypes.colour_features`), with L* weighted by LIGHTNESS_WEIGHT; in Lab units
    (divide by the prototypes' ``colour_spread`` for spreads)."""
    w = np.array([LIGHTNESS_WEIGHT, 1.0, 1.0])
    return np.asarray(np.sqrt((((feats[:, None, :] - centres[None]) * w) ** 2).sum(axis=2)))


def softmax_best(dist: np.ndarray, spread: float) -> np.ndarray:
    """The soft-max probability of the nearest prototype, from distances (N, K)."""
    if dist.shape[1] == 0:
        return np.zeros(len(dist))
    return np.asarray(softmax(dist / spread).max(axis=1))


def softmax(dist: np.ndarray) -> np.ndarray:
    """Each prototype's soft-max probability (N, K) from distances in spreads (N, K)."""
    z = -0.5 * dist**2
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return np.asarray(p / p.sum(axis=1, keepdims=True))
