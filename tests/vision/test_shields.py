"""vision/shields.py: Herkle's field, shields and ordinaries, on painted tiles."""

from __future__ import annotations

import numpy as np
import pytest

from table import Tile, tileset
from vision.classify import SHIELD_MISFIT
from vision.patches import PATCH
from vision.prototypes import paint_patches
from vision.render_tiles import BODY, HERKLE_FIELD, PAINT
from vision.shields import field_colour, outline_misfit, shield_outline, view_shields

HERKLE = tileset("herkle")


def _patches(tiles: list[Tile], *, seed: int = 2) -> np.ndarray:
    """One cell patch per tile, the face painted square-on on the body colour (a little imperfect)."""
    return paint_patches(tiles, variant="herkle", rng=np.random.default_rng(seed), imperfection=0.3)


def test_the_field_is_the_shields_grey_even_beside_the_table() -> None:
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True)]
    patches = _patches(tiles)
    assert np.allclose(field_colour(patches), HERKLE_FIELD, atol=8)
    table = np.full((1, PATCH, PATCH, 3), (150, 170, 190), np.uint8)  # a light table seen through a gap
    assert np.allclose(field_colour(np.concatenate([patches[:3], table])), HERKLE_FIELD, atol=8)


def test_the_ordinary_is_told_from_its_field() -> None:
    tiles = [Tile(c, "cross") for c in HERKLE.colours]
    patches = _patches(tiles)
    seen = view_shields(patches, field_colour(patches))
    assert seen.found.all()
    for tile, paint, light, saturation in zip(
        tiles, seen.paint, seen.lightness, seen.saturation, strict=True
    ):
        if tile.colour == "white":
            assert light > 1.4 and saturation < 0.2
        elif tile.colour == "black":
            assert light < 0.5 and saturation < 0.2
        else:  # the ordinary's own paint, not the field's grey
            assert saturation > 0.6
            assert int(np.argmax(paint)) == int(np.argmax(PAINT[tile.colour]))


def test_a_square_of_table_is_no_shield() -> None:
    template = shield_outline(HERKLE)
    patches = _patches([Tile("red", "pale"), Tile("blue", "fess")])
    table = np.full((1, PATCH, PATCH, 3), BODY, np.uint8)
    table[0, 2:-2, 2:-2] = HERKLE_FIELD  # grey, framed by dark tiles, but square
    seen = view_shields(np.concatenate([patches, table]), np.asarray(HERKLE_FIELD))
    misfit = outline_misfit(seen.outline, template)
    assert (misfit[:2] < 0.5 * SHIELD_MISFIT).all() and misfit[2] > SHIELD_MISFIT


def test_patches_must_be_bgr_uint8_stacks() -> None:
    with pytest.raises(ValueError, match=r"patches must be \(N, S, S, 3\) uint8, got shape \(32, 32, 3\)"):
        field_colour(np.zeros((PATCH, PATCH, 3), np.uint8))
