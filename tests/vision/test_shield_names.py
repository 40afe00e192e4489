"""vision/shield_names.py: Herkle's ordinaries named on their shields, against their field; the frame's "up"
voted, and the names it will not guess (a lone fess or pale, an ordinary as grey as its field)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

import vision.shield_names
from table import Tile, tileset
from tests.vision.painted import names_of, painted
from vision import render_tiles
from vision.classify import classify
from vision.evaluate import score_frame
from vision.features import measure
from vision.patches import PATCH
from vision.prototypes import default_prototypes
from vision.reader import MIN_CONFIDENCE, read_table
from vision.render import random_scene, render
from vision.render_tiles import BODY


def test_herkle_frames_vote_their_up_so_a_fess_is_no_pale() -> None:
    tiles = [Tile("red", "bend"), Tile("blue", "chevron"), Tile("yellow", "fess"), Tile("red", "pale")]
    tiles += [Tile("blue", "bend"), Tile("yellow", "chevron")]
    for turns in range(4):  # the grid's axes are known only modulo a quarter turn
        for tile, (colour, shape, conf) in zip(tiles, names_of(tiles, "herkle", turns), strict=True):
            assert (colour, shape) == (tile.colour, tile.shape) and conf >= 0.6, (turns, tile, shape, conf)


def test_a_lone_herkle_fess_or_pale_is_not_guessed() -> None:
    for tile in (Tile("red", "fess"), Tile("blue", "pale")):
        for turns in (0, 1):  # one tile is too weak a vote for the frame's "up"
            [(_, _, conf)] = names_of([tile], "herkle", turns)
            assert conf <= 0.5, (tile, turns)
    [(_, shape, conf)] = names_of([Tile("yellow", "cross")], "herkle", 1)
    assert shape == "cross" and conf >= 0.6  # a cross is a cross whichever way is up


def test_a_herkle_cross_is_told_from_a_pale_by_its_arm_on_a_rendered_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cross and a pale share the bar and differ by the arm, a small part of the silhouette: crosses seen
    faintly (warm light, a soft lens) lie about as near the pale's silhouette as their own, and the arm
    tells them apart. Nothing is read wrong either way."""
    conditions: dict[str, Any] = {"hand": 0.0, "light": "warm", "table": "green-felt", "px_per_tile": 45.0}
    conditions |= {"tilt": 8.0, "imperfection": 1.2}
    conditions |= {"drift": 0.5, "gaps": 0.0, "blur": 1.0, "noise": 1.0, "jpeg_quality": 75, "glare": 0.0}
    herkle = tileset("herkle")
    scenes = [
        render(random_scene(seed=s, variant="herkle", size=(600, 800), tiles=40, **conditions))
        for s in (27, 28)
    ]
    now = [score_frame(read_table(s.image, tileset=herkle), s.truth, layout=None, where="r") for s in scenes]
    monkeypatch.setattr(vision.shield_names, "ARM_SPREAD", float("inf"))  # the arm then says nothing
    before = [
        score_frame(read_table(s.image, tileset=herkle), s.truth, layout=None, where="r") for s in scenes
    ]
    assert all(t.wrong == t.extra == 0 for t in now + before), [t.summary() for t in now + before]
    assert sum(t.right for t in now) >= sum(t.right for t in before) + 2, [t.summary() for t in now + before]


def test_the_arm_decides_between_a_cross_and_a_pale_only() -> None:
    names = list(tileset("herkle").shapes)
    cross, pale, bend = names.index("cross"), names.index("pale"), names.index("bend")
    distance = np.full((2, len(names)), 4.0)
    distance[:, [cross, pale, bend]] = [[2.0, 2.2, 2.4], [2.0, 2.2, 2.4]]
    arms = np.zeros_like(distance)
    arms[0, [cross, pale]] = [0.5, 6.0]  # arms as a cross's: the pale (and the fess) move away
    arms[1, [cross, pale]] = [6.0, 0.5]  # no arm: the cross moves away
    told = vision.shield_names._told_by_arm(distance, names, arms)
    assert told[0, pale] > 5.0 and told[0, names.index("fess")] > 5.0 and told[0, cross] == 2.0
    assert told[1, cross] > 5.0 and told[1, pale] == 2.2
    # the one the arm fits better keeps its distance, and so does every other ordinary
    assert (told[:, bend] == 2.4).all()
    # a tile whose nearest two are not a cross and a pale or fess is left as it was
    other = distance[:1].copy()
    other[0, names.index("saltire")] = 1.0
    assert np.array_equal(vision.shield_names._told_by_arm(other, names, arms[:1]), other)


def test_herkle_white_and_black_are_told_apart_against_the_field() -> None:
    """White and black differ only in lightness, which the normalised paint drops: they are named by
    how much lighter or darker than the shield's grey field the ordinary is."""
    tiles = [Tile("white", "cross"), Tile("black", "fess"), Tile("white", "bend"), Tile("black", "pale")]
    tiles += [Tile("red", "fess"), Tile("green", "chevron")]
    for tile, (colour, shape, conf) in zip(tiles, names_of(tiles, "herkle"), strict=True):
        assert (colour, shape) == (tile.colour, tile.shape) and conf >= MIN_CONFIDENCE, (tile, colour, conf)


def test_herkle_black_ordinaries_that_cut_the_shields_corners_arenamed() -> None:
    """A black bend or saltire takes the shield's corners off its lit field: the hull of the field is
    blunter than a shield, and is completed by the frame's shield (it was left uncertain before)."""
    tiles = [Tile("black", "bend"), Tile("black", "saltire"), Tile("black", "cross"), Tile("red", "fess")]
    tiles += [Tile("blue", "chevron"), Tile("yellow", "pale"), Tile("green", "bend")]
    for turns in range(4):
        for tile, (colour, shape, conf) in zip(tiles, names_of(tiles, "herkle", turns), strict=True):
            assert (colour, shape) == (tile.colour, tile.shape) and conf >= MIN_CONFIDENCE, (
                turns,
                tile,
                conf,
            )


def test_an_ordinary_as_grey_as_its_field_is_notnamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A white painted nearly the field's grey is neither white nor black: left unnamed."""
    grey = tuple(v + 12 for v in render_tiles.HERKLE_FIELD)
    monkeypatch.setitem(render_tiles.PAINT, "white", grey)
    tiles = [Tile("white", "cross"), Tile("red", "fess"), Tile("blue", "pale"), Tile("yellow", "bend")]
    named = names_of(tiles, "herkle")
    assert named[0][2] < MIN_CONFIDENCE
    assert all(conf >= MIN_CONFIDENCE for _, _, conf in named[1:])


def test_no_shield_no_herkle_name() -> None:
    """A cell of bare body, or of light table framed by tiles, holds no shield: nothing is named."""
    body = np.full((PATCH, PATCH, 3), BODY, np.uint8)
    table = body.copy()
    table[3:-3, 3:-3] = (150, 170, 190)  # the table seen through a gap, square, not a shield
    patches = np.concatenate(
        [painted([Tile("red", "fess"), Tile("blue", "cross")], "herkle"), np.stack([body, table])]
    )
    named = classify(measure(patches), np.ones(3), default_prototypes(tileset("herkle")))
    assert (named.confidence[:2] >= MIN_CONFIDENCE).all()
    assert (named.confidence[2:] < MIN_CONFIDENCE).all()


def test_herkle_white_and_black_learned_under_a_tinted_lamp_are_still_grey() -> None:
    """A calibration under a warm lamp learns white and black with the lamp's hue; which colours are grey
    comes from the tiles, so the ordinaries are still named (this used to fail with an empty choice)."""
    learned = default_prototypes(tileset("herkle"))
    tinted = {
        k: v + np.array([0.0, 30.0, 30.0]) if k in ("white", "black") else v
        for k, v in learned.colours.items()
    }
    calibrated = dataclasses.replace(learned, colours=tinted)
    tiles = [Tile("white", "cross"), Tile("black", "fess"), Tile("red", "fess"), Tile("green", "chevron")]
    named = classify(measure(painted(tiles, "herkle")), np.ones(3), calibrated)
    got = list(zip(named.colours, named.shapes, strict=True))
    assert got == [(t.colour, t.shape) for t in tiles]
    assert (named.confidence >= MIN_CONFIDENCE).all()
