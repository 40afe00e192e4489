"""vision/classify.py: names, confidences, and the names it will not guess (Herkle's "up", white or black)."""

from __future__ import annotations

import numpy as np

from table import Tile, tileset
from vision.classify import classify
from vision.features import measure
from vision.patches import PATCH
from vision.prototypes import default_prototypes
from vision.render_tiles import BODY, paint_face


def _patches(tiles: list[Tile], variant: str, *, turns: int = 0, seed: int = 1) -> np.ndarray:
    """One cell patch per tile, square-on, the face turned ``turns`` quarter turns in the grid's axes."""
    rng = np.random.default_rng(seed)
    face = round(PATCH * 29 / 30.5)
    at = (PATCH - face) // 2
    out = np.empty((len(tiles), PATCH, PATCH, 3), np.uint8)
    for i, tile in enumerate(tiles):
        patch = np.empty((PATCH, PATCH, 3), np.float32)
        patch[:] = BODY
        painted = paint_face(tile, variant=variant, size=face, rng=rng, imperfection=0.3)
        alpha = painted[..., 3:].astype(np.float32) / 255
        window = patch[at : at + face, at : at + face]
        window[:] = painted[..., :3] * alpha + window * (1 - alpha)
        out[i] = np.rot90(np.clip(patch, 0, 255).astype(np.uint8), turns)
    return out


def _named(tiles: list[Tile], variant: str, turns: int = 0) -> list[tuple[str, str, float]]:
    measured = measure(_patches(tiles, variant, turns=turns))
    named = classify(measured, np.ones(3), default_prototypes(tileset(variant)))
    return list(zip(named.colours, named.shapes, named.confidence.tolist(), strict=True))


def test_classic_tiles_are_named_confidently() -> None:
    tiles = [Tile(c, s) for c, s in zip(tileset("classic").colours, tileset("classic").shapes, strict=True)]
    for tile, (colour, shape, conf) in zip(tiles, _named(tiles, "classic"), strict=True):
        assert (colour, shape) == (tile.colour, tile.shape) and conf > 0.9


def test_herkle_frames_vote_their_up_so_a_fess_is_no_pale() -> None:
    tiles = [Tile("red", "bend"), Tile("blue", "chevron"), Tile("yellow", "fess"), Tile("red", "pale")]
    tiles += [Tile("blue", "bend"), Tile("yellow", "chevron")]
    for turns in range(4):  # the grid's axes are known only modulo a quarter turn
        for tile, (colour, shape, conf) in zip(tiles, _named(tiles, "herkle", turns), strict=True):
            assert (colour, shape) == (tile.colour, tile.shape) and conf >= 0.6, (turns, tile, shape, conf)


def test_a_lone_herkle_fess_or_pale_is_not_guessed() -> None:
    for tile in (Tile("red", "fess"), Tile("blue", "pale")):
        for turns in (0, 1):  # one tile is too weak a vote for the frame's "up"
            [(_, _, conf)] = _named([tile], "herkle", turns)
            assert conf <= 0.5, (tile, turns)
    [(_, shape, conf)] = _named([Tile("yellow", "cross")], "herkle", 1)
    assert shape == "cross" and conf >= 0.6  # a cross is a cross whichever way is up


def test_herkle_white_and_black_are_never_trusted() -> None:
    for colour, _, conf in _named([Tile("white", "cross"), Tile("black", "saltire")], "herkle"):
        assert conf <= 0.5, colour
