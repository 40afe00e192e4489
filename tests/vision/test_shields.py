"""vision/shields.py: Herkle's field, shields and ordinaries, on painted tiles and a rendered frame."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

import vision.shield_names
import vision.shield_probes
import vision.shields
from calibration.lighting import Shift, shift_light
from table import Tile, tileset
from vision.classify import classify
from vision.evaluate import score_frame
from vision.features import measure
from vision.ordinaries import shield_lightness
from vision.patches import PATCH
from vision.prototypes import default_prototypes, paint_patches
from vision.reader import read_table
from vision.render import random_scene, render
from vision.render_tiles import BODY, HERKLE_FIELD, PAINT
from vision.shield_detect import lit_field
from vision.shields import (
    MISFIT,
    TURNS,
    black,
    field_colour,
    field_gains,
    outline_misfit,
    shield_outline,
    shield_view,
    view_shields,
    views_remembered,
)

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


def test_under_a_lamps_cast_the_field_is_the_colour_most_shields_show() -> None:
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True)]
    patches = _patches(tiles)
    assert np.allclose(lit_field(patches), field_colour(patches), atol=8)
    tungsten = Shift(kelvin=2800.0, gamma=1.15)  # uncorrected: the grey field turns orange
    warm = np.stack([shift_light(p, tungsten) for p in patches])
    field = shift_light(np.full((1, 1, 3), HERKLE_FIELD, np.uint8), tungsten)[0, 0]
    assert not field_colour(warm).any()  # nothing lit is grey any more
    assert np.allclose(lit_field(warm), field, atol=0.1 * field.max())  # the painted field's shading
    # two red shields show their ordinary's colour as often as the field: not told
    assert lit_field(warm[[0, 0]]) is None


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


def test_hues_are_balanced_on_the_grey_field_not_the_bodies() -> None:
    """The shields' field is painted grey, so its colour is the light's; the bodies' ring also holds the
    table's colour, and is no reference where the field is found."""
    tiles = [Tile(c, "cross") for c in HERKLE.colours]
    cast = np.array([0.85, 1.0, 1.15])  # a mild warm cast the field stays greyish under (BGR gains)
    plain = _patches(tiles)
    patches = np.clip(plain * cast, 0, 255).astype(np.uint8)
    bodies = np.array([2.0, 1.0, 0.5])
    gains = field_gains(shield_view(patches, outline=False), bodies)
    field = field_colour(plain) * cast
    assert np.allclose(gains, field / field.mean(), atol=0.03)
    table = np.full((2, PATCH, PATCH, 3), BODY, np.uint8)  # no grey field lit anywhere: the bodies' balance
    assert np.array_equal(field_gains(shield_view(table, outline=False), bodies), bodies)


def test_a_square_of_table_is_no_shield() -> None:
    template = shield_outline(HERKLE)
    patches = _patches([Tile("red", "pale"), Tile("blue", "fess")])
    table = np.full((1, PATCH, PATCH, 3), BODY, np.uint8)
    table[0, 2:-2, 2:-2] = HERKLE_FIELD  # grey, framed by dark tiles, but square
    seen = view_shields(np.concatenate([patches, table]), np.asarray(HERKLE_FIELD))
    misfit = outline_misfit(seen.outline, template)
    assert (misfit[:2] < 0.5 * MISFIT).all() and misfit[2] > MISFIT


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


def test_a_rendered_frame_reads_more_tiles_with_whole_shields_and_arches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conditions: dict[str, Any] = {
        "hand": 0.0,
        "light": "neutral",
        "table": "dark-wood",
        "px_per_tile": 42.0,
        "tilt": 8.0,
    }
    conditions |= {"drift": 0.5, "gaps": 0.0, "blur": 0.8, "noise": 1.0, "jpeg_quality": 90, "glare": 0.0}
    scene = render(random_scene(seed=12, variant="herkle", size=(600, 800), tiles=40, **conditions))
    now = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    monkeypatch.setattr(vision.shields, "completed", lambda *args, **kwargs: [])
    monkeypatch.setattr(vision.shields, "middle_part", lambda lit: None)
    monkeypatch.setattr(vision.shield_names, "ARCH_SPREAD", float("inf"))
    before = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    # every tile is read, more than without them (a bend is then uncertain)
    assert now.wrong == now.extra == 0, now.summary()
    assert now.right == now.tiles > before.right, (now.summary(), before.summary())


def test_a_white_ordinary_in_shadow_is_not_read_as_a_black_one() -> None:
    # a white cross in shadow is as light as the frame's field, and the shield's own field, darker still,
    # is then taken for the ordinary: darker than the field by more than halfway to black, yet far
    # lighter than the body, as black paint never is
    tiles = [Tile("white", "cross"), Tile("black", "cross"), Tile("black", "pale"), Tile("red", "fess")]
    tiles += [Tile("blue", "pale"), Tile("yellow", "bend"), Tile("green", "saltire")]
    patches = _patches(tiles)
    shaded = patches[0].astype(np.float32)
    shaded[shaded.max(axis=2) < 1.3 * max(HERKLE_FIELD)] *= 0.85  # the field, not the white cross
    white = shield_lightness(HERKLE)["white"]
    patches[0] = np.clip(shaded / white, 0, 255).astype(np.uint8)
    seen = view_shields(patches, field_colour(patches), outline=shield_outline(HERKLE))
    # the "ordinary" is then the field's four corners: no ordinary is painted in pieces
    assert not seen.found[0]
    with pytest.MonkeyPatch.context() as patch:  # and were it whole, it is far lighter than the body
        patch.setattr(vision.shields, "_split", lambda ordinary: False)
        seen = view_shields(patches, field_colour(patches), outline=shield_outline(HERKLE))
    assert seen.lightness[0] <= vision.shields.DARK  # by lightness alone, a black ordinary
    rise = seen.rise / vision.shields.BLACK_RISE
    assert rise[0] > 1.0 and (rise[1:3] < 0.5).all()
    assert black(seen).tolist() == [False, True, True, False, False, False, False]
    assert seen.found[1:].all()  # (the shaded shield may be completed: its colour is not named below)
    named = classify(measure(patches), np.ones(3), default_prototypes(HERKLE))
    assert named.colour_confidence[0] == 0.0
    assert named.colours[1:3] == ["black", "black"] and (named.colour_confidence[1:3] == 1.0).all()


def test_a_completed_shield_is_ringed_by_the_body() -> None:
    # a black bend or saltire cuts corners off the lit field: completed by the frame's shield when the
    # body's rim rings it, not when a neighbour's lit field lies just outside it (a patch cut off its
    # place, two neighbours' pieces with the rim between them taken for the black ordinary)
    tiles = [Tile("black", "bend"), Tile("black", "saltire"), Tile("red", "fess"), Tile("blue", "pale")]
    tiles += [Tile("yellow", "cross"), Tile("green", "chevron")]
    patches = _patches(tiles)
    field, template = field_colour(patches), shield_outline(HERKLE)
    seen = view_shields(patches, field, outline=template)
    assert seen.found.all() and (seen.ringed[:2] >= vision.shields.RING_DARK).all()
    beside = patches.copy()
    for i in (0, 1):
        beside[i, :, :3] = beside[i, :, -3:] = beside[i, :3] = HERKLE_FIELD
    seen = view_shields(beside, field, outline=template)
    assert (seen.ringed[:2] < vision.shields.RING_DARK).all(), seen.ringed
    assert not seen.found[:2].any() and seen.found[2:].all()


def test_the_shield_seen_off_its_cell_tells_where_it_lies() -> None:
    # a patch cut a few pixels off its tile shows the shield off its middle: its centre says which way
    # (what a probe recentres on), and a shield cut square-on lies in the middle
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True)]
    patches = _patches(tiles)
    field = field_colour(patches)
    square_on = view_shields(patches, field, outline=shield_outline(HERKLE))
    assert (np.abs(square_on.centre).max(axis=1) < 0.05).all(), square_on.centre
    shifted = np.empty_like(patches)
    shifted[:] = BODY
    shifted[:, 3:, :-2] = patches[:, :-3, 2:]  # the tile 3 pixels down and 2 left
    seen = view_shields(shifted, field, outline=shield_outline(HERKLE))
    down, left = (seen.centre - square_on.centre).T * [[PATCH], [-PATCH]]  # pixels moved
    # the way it moved, by at least half as much (the window the lit field is read in cuts the shield's
    # foot and side off, so its hull's middle moves less than the shield) and never more
    assert ((down >= 1.5) & (down <= 3.1)).all() and ((left >= 1.0) & (left <= 2.1)).all(), (down, left)


def test_a_shield_in_a_light_falloffs_shadow_is_found_with_the_frames_field() -> None:
    # the light falls off across the table: a shield's own field, darker than the frame's by more than
    # UNLIKE (nothing in it near the frame's field), is found among its grey pixels, and the shield is whole
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True)]
    patches = _patches(tiles)
    shaded = np.clip(patches.astype(np.float32) * 0.7, 0, 255).astype(np.uint8)
    seen = view_shields(shaded, field_colour(patches), outline=shield_outline(HERKLE))
    assert seen.found.all()
    # the ordinaries told from that field as in full light (a white one in such a shadow is as near the
    # frame's field as its own field is, and is taken for it: not asserted)
    lit = view_shields(patches, field_colour(patches)).paint
    coloured = [t.colour != "white" for t in tiles]
    assert np.allclose(seen.paint[coloured], 0.7 * lit[coloured], atol=12)


def test_a_shield_in_a_light_falloffs_light_takes_its_own_field_not_an_edges_blend() -> None:
    # a shield lit more strongly than the frame's field (by more than UNLIKE) shows few pixels near the
    # frame's field, and those are the blend of its ordinary's edge with its field: its field is the
    # frame's scaled by the falloff, the nearest scale that much of its middle shows
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True) if c != "white"]
    patches = _patches(tiles)
    lit = np.clip(patches.astype(np.float32) * 1.35, 0, 255).astype(np.uint8)
    seen = view_shields(lit, field_colour(patches), outline=shield_outline(HERKLE))
    assert seen.found.all()
    own = view_shields(lit, field_colour(lit), outline=shield_outline(HERKLE))
    assert np.allclose(seen.paint, own.paint, atol=6)
    # how much brighter each shield's field is than the frame's: the light's rise where it lies
    assert np.allclose(seen.falloff / own.falloff, 1.35, atol=0.03), seen.falloff / own.falloff
    assert np.abs(seen.silhouette - own.silhouette).max() < 0.1


def test_an_ordinary_in_two_pieces_is_the_field_taken_for_one() -> None:
    # a black pale lit as brightly as the frame's field elsewhere is taken for the field: the "ordinary"
    # is then the field's two sides, and no ordinary is painted in two pieces
    patches = _patches([Tile("black", "pale"), Tile("red", "fess"), Tile("blue", "cross")])
    field = field_colour(patches)
    pale = patches[0].astype(np.float32)
    dark = pale.max(axis=2) < 0.5 * max(HERKLE_FIELD)
    dark[:3] = dark[-3:] = dark[:, :3] = dark[:, -3:] = False  # the body's rim stays black
    pale[dark] = field
    pale[~dark & (pale.max(axis=2) >= 0.5 * max(HERKLE_FIELD))] *= 1.7  # its field in the light
    patches[0] = np.clip(pale, 0, 255).astype(np.uint8)
    seen = view_shields(patches, field)
    assert not seen.found[0] and seen.found[1:].all()
    assert not vision.shields._split(np.eye(8, dtype=bool) | np.eye(8, dtype=bool)[::-1])  # a saltire


@pytest.mark.parametrize("degrees", [9.0, -9.0])
def test_a_turned_shield_fits_the_painted_shield_turned_as_much(degrees: float) -> None:
    tiles = [Tile("red", "pale"), Tile("blue", "fess"), Tile("green", "cross"), Tile("yellow", "chevron")]
    patches = _patches(tiles)
    s = patches.shape[1]
    turn = cv2.getRotationMatrix2D(((s - 1) / 2, (s - 1) / 2), degrees, 1.0)
    turned = np.array([cv2.warpAffine(p, turn, (s, s), borderMode=cv2.BORDER_REPLICATE) for p in patches])
    seen = view_shields(turned, field_colour(turned))
    template = shield_outline(HERKLE)
    # at a quarter turn the outline is most of the way to MISFIT, which blur and a cut edge then pass
    assert (outline_misfit(seen.outline, template) > 0.65 * MISFIT).all()
    assert (outline_misfit(seen.outline, template, turns=TURNS) < 0.55 * MISFIT).all()


def test_a_shield_askew_of_the_grid_is_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # tiles laid askew (6 degrees, rows straight): a shield turned a few degrees off the grid's axes fits
    # the painted shield turned as much, not at its quarter turns, and is named (it was uncertain before);
    # a shield not whole is also looked at again centred on it and wider, which names these tiles too, so
    # that is left out of both readings here
    monkeypatch.setattr(vision.shield_probes, "RELOOKS", 0)
    conditions: dict[str, Any] = {"hand": 0.0, "askew": 6.0, "tilt": 0.0, "drift": 0.0, "gaps": 0.0}
    scene = render(random_scene(seed=3, variant="herkle", size=(600, 800), tiles=30, **conditions))
    now = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    monkeypatch.setattr(vision.shields, "TURNS", (0.0,))
    before = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    assert now.wrong == now.extra == 0, now.summary()
    assert now.right >= before.right + 2, (now.summary(), before.summary())


def test_shield_views_are_remembered_only_inside_a_calibration(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calibration looks at one photo's known tiles on their shields several times (to learn, to chart the
    light, to report margins): inside ``views_remembered`` a stack of patches is viewed once each way, by
    its content, and its view is read-only; outside, every call looks again."""
    patches = _patches([Tile("red", "fess"), Tile("blue", "cross"), Tile("white", "bend")], seed=1)
    real = view_shields
    calls: list[bool] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("outline") is not None)
        return real(*args, **kwargs)

    monkeypatch.setattr(vision.shields, "view_shields", counted)
    with views_remembered():
        first = shield_view(patches, outline=True)
        again = shield_view(patches.copy(), outline=True)  # the same content
        plain = shield_view(patches, outline=False)
        other = shield_view(patches[:2], outline=True)
    assert calls == [True, False, True]
    assert again is first and plain is not first and len(other.found) == 2
    assert not first.paint.flags.writeable
    direct = real(patches, field_colour(patches), outline=shield_outline(HERKLE))
    assert np.array_equal(first.found, direct.found) and np.array_equal(first.paint, direct.paint)
    shield_view(patches, outline=True)
    assert len(calls) == 4  # outside the block, nothing is remembered
