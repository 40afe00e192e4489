"""Test helpers: cell patches painted square-on, and the names the classifier gives them."""

from __future__ import annotations

import numpy as np

from table import Tile, tileset
from vision.classify import classify
from vision.features import measure
from vision.prototypes import default_prototypes, paint_patches


def painted(tiles: list[Tile], variant: str, *, turns: int = 0, seed: int = 1) -> np.ndarray:
    """One cell patch per tile, square-on, the face turned ``turns`` quarter turns in the grid's axes."""
    patches = paint_patches(tiles, variant=variant, rng=np.random.default_rng(seed), imperfection=0.3)
    return np.rot90(patches, turns, axes=(1, 2)).copy()


def names_of(tiles: list[Tile], variant: str, turns: int = 0) -> list[tuple[str, str, float]]:
    """The (colour, shape, confidence) the edition's prototypes give each painted tile."""
    measured = measure(painted(tiles, variant, turns=turns))
    names = classify(measured, np.ones(3), default_prototypes(tileset(variant)))
    return list(zip(names.colours, names.shapes, names.confidence.tolist(), strict=True))
