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


def test_a_tinted_black_ordinary_is_black_not_a_hue() -> None:
    # a tungsten lamp's cast that white balance leaves on a near-black: a few levels of red make the
    # black ordinary's own saturation high, while against the field's brightness its colour stays faint
    from vision.classify import classify
    from vision.features import measure
    from vision.prototypes import default_prototypes

    tiles = [Tile(c, "cross") for c in HERKLE.colours] + [Tile("black", "pale"), Tile("black", "fess")]
    patches = _patches(tiles).astype(np.float32)
    dark = patches.max(axis=3) < 70
    patches[dark] *= np.array([0.4, 1.0, 1.3], np.float32)  # BGR: the dark pixels only turn warm
    patches = np.clip(patches, 0, 255).astype(np.uint8)
    seen = view_shields(patches, field_colour(patches))
    black = [i for i, t in enumerate(tiles) if t.colour == "black"]
    hues = [i for i, t in enumerate(tiles) if t.colour not in ("black", "white")]
    assert seen.found[black].all()
    assert (seen.saturation[black] > 0.6).all()  # the tint alone would read as a hue
    assert (seen.chroma[black] < 0.3).all() and (seen.chroma[hues] > 0.4).all()
    named = classify(measure(patches), np.ones(3), default_prototypes(HERKLE))
    for i in black:
        assert named.colours[i] == "black" or named.colour_confidence[i] == 0.0, named.colours[i]
    assert sum(named.colours[i] == "black" and named.colour_confidence[i] > 0 for i in black) >= 2
