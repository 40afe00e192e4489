"""vision/hulls.py: the lit field's hull, peeled, cut from bridges and completed, on painted tiles and
rendered frames (through :func:`vision.shields.view_shields`, which reads a patch's shield by it)."""

from __future__ import annotations

import numpy as np
import pytest

import vision.shields
from table import Tile, tileset
from vision.classify import classify
from vision.evaluate import score_frame
from vision.features import measure
from vision.hulls import THIN, peeled, window_mask
from vision.patches import PATCH
from vision.prototypes import default_prototypes, paint_patches, white_balance
from vision.reader import MIN_CONFIDENCE, locate, read_table
from vision.render import random_scene, render
from vision.render_tiles import BODY, HERKLE_FIELD
from vision.shields import MISFIT, black, field_colour, outline_misfit, shield_outline, view_shields

HERKLE = tileset("herkle")


def _patches(tiles: list[Tile], *, seed: int = 2) -> np.ndarray:
    """One cell patch per tile, the face painted square-on on the body colour (a little imperfect)."""
    return paint_patches(tiles, variant="herkle", rng=np.random.default_rng(seed), imperfection=0.3)


def test_a_strip_past_the_rim_is_peeled_and_the_shield_kept() -> None:
    s = PATCH
    window = window_mask(s) > 0
    inside = np.flatnonzero(window.any(axis=1))
    lit = np.zeros((s, s), np.uint8)
    lit[6:-6, 6:-6] = 1  # the shield's field
    field = lit.astype(bool).copy()
    field[12:20, 12:20] = False  # its ordinary
    thin = round(THIN * s)  # a strip along the right side thinner than any piece of a shield
    lit[4:-4, inside[-1] - thin + 1 : inside[-1] + 1] = 1
    lit[inside[0], 8:-8] = 1  # a line along the top, lit over half the window, no field on it
    out = peeled(lit & window, field, window)
    assert out[6:-6, 6:-6].all()  # the shield stays whole
    assert not out[:, inside[-1] - thin + 1 :].any()  # the strip is gone
    assert not out[inside[0]].any()  # and the line
    # a lit part reaching the side that shows the field and is thick is a piece of the shield: kept
    piece = np.zeros((s, s), np.uint8)
    piece[10:22, inside[-1] - 8 : inside[-1] + 1] = 1
    assert np.array_equal(peeled(piece & window, piece.astype(bool), window), piece & window)


def test_a_shield_whose_corners_a_black_ordinary_cut_is_completed() -> None:
    tiles = [Tile("black", "bend"), Tile("black", "saltire"), Tile("red", "fess"), Tile("blue", "pale")]
    tiles += [Tile("yellow", "cross"), Tile("green", "chevron")]
    patches = _patches(tiles)
    field = field_colour(patches)
    template = shield_outline(HERKLE)
    hulls = view_shields(patches, field)
    # the lit field's hull is blunter than a shield where the black ordinary reaches the edge
    assert (outline_misfit(hulls.outline[:2], template) > MISFIT).all()
    seen = view_shields(patches, field, outline=template)
    assert seen.found.all()
    assert (outline_misfit(seen.outline, template) <= MISFIT).all()
    # the rest are their own hulls, unchanged
    assert np.array_equal(seen.silhouette[2:], hulls.silhouette[2:])
    # a square of table framed by tiles is not held by a shield: still no shield
    table = np.full((1, PATCH, PATCH, 3), BODY, np.uint8)
    table[0, 2:-2, 2:-2] = HERKLE_FIELD
    table[0, 12:20, 2:-2] = (30, 30, 30)  # with a dark band across, as a black fess would be
    assert not view_shields(np.concatenate([patches, table]), field, outline=template).found[-1]


def test_a_shield_run_into_the_lit_table_is_cut_from_it(monkeypatch: pytest.MonkeyPatch) -> None:
    tiles = [Tile("red", "pale"), Tile("blue", "fess"), Tile("yellow", "cross"), Tile("green", "chevron")]
    tiles += [Tile("white", "bend"), Tile("red", "pale")]
    patches = _patches(tiles)
    field = field_colour(patches)
    template = shield_outline(HERKLE)
    bridged = patches.copy()
    for i, past in ((0, (150, 170, 190)), (5, HERKLE_FIELD)):  # a light table, a neighbour's grey field
        bridged[i, :, 28:] = past  # just past the tile's edge
        bridged[i, 14:16, 27:28] = past  # seen through a gap that blur made in the rim
    assert view_shields(bridged, field, outline=template).found.all()
    named = classify(measure(bridged), np.ones(3), default_prototypes(HERKLE))
    assert [(named.colours[i], named.shapes[i]) for i in (0, 5)] == [("red", "pale")] * 2
    assert (named.confidence[[0, 5]] >= MIN_CONFIDENCE).all()
    monkeypatch.setattr(vision.shields, "middle_part", lambda lit: None)
    # the light table, no field, also comes off as a strip along the window's side; the neighbour's
    # field only by the cut: without it the hull takes that field in
    assert view_shields(bridged, field, outline=template).found.tolist() == [True] * 5 + [False]


def test_what_lies_past_the_rim_along_the_window_is_no_part_of_the_shield(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a rendered frame on a white table: where a patch sits a little off its tile, a strip of the lit
    # table or of a neighbour's shield shows inside the window past the body's rim and would widen the
    # shield's hull (a shield then taken for another's shape, or for no shield)
    scene = render(random_scene(seed=130, variant="herkle", size=(600, 800), tiles=36, hand=0.0))
    now = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    monkeypatch.setattr(vision.shields, "peeled", lambda lit, field, window: lit)
    before = score_frame(read_table(scene.image, tileset=HERKLE), scene.truth, layout=None, where="r")
    assert now.wrong == now.extra == 0, now.summary()
    assert now.right >= before.right + 2, (now.summary(), before.summary())


def test_a_lit_shield_cut_short_by_its_window_is_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    # a rendered frame (warm light, patterned cloth): shields a little off their patches' middles reach
    # past the window their lit field is read in, and their hulls, cut flat there, are completed by the
    # frame's shield although their ordinaries are lit (not black), and named right
    scene = render(random_scene(seed=3, variant="herkle", size=(600, 800), tiles=30, hand=0.0))
    located = locate(scene.image, tileset="herkle")
    assert located is not None
    completed: list[int] = []

    def recorded(*args: np.ndarray, spread: float) -> list[tuple[int, np.ndarray]]:
        out = _completed(*args, spread=spread)
        completed.extend(i for i, _ in out)
        return out

    _completed = vision.shields.completed
    monkeypatch.setattr(vision.shields, "completed", recorded)
    m = located.measured
    seen = view_shields(m.patch, field_colour(m.patch), outline=shield_outline(HERKLE))
    monkeypatch.undo()
    named = classify(m, white_balance(m.body), default_prototypes(HERKLE))
    truth = {(t["row"], t["col"]): Tile(t["colour"], t["shape"]) for t in scene.truth["tiles"]}
    faces = scene.truth["geometry"]["faces"]
    middles = np.array([np.mean(f["corners"], axis=0) for f in faces]) * located.scale
    lit = [i for i in sorted(set(completed)) if seen.found[i] and not black(seen)[i]]
    assert len(lit) >= 3, lit
    for i in lit:
        face = faces[int(np.linalg.norm(middles - located.centres[i], axis=1).argmin())]
        tile = truth[(face["row"], face["col"])]
        assert (named.colours[i], named.shapes[i]) == (tile.colour, tile.shape), (i, tile)
        assert named.confidence[i] >= MIN_CONFIDENCE
