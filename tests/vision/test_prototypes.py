"""vision/prototypes.py: prototypes are data (the defaults, a JSON round trip, malformed files)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from table import Tile, tileset
from vision import Prototypes, default_prototypes
from vision.features import measure
from vision.prototypes import COLOUR_SPREAD, colour_features, paint_patches, srgb_to_linear


def test_every_tileset_has_defaults() -> None:
    for name in ("classic", "colour-blind", "herkle", "cubes", "connect"):
        p = default_prototypes(tileset(name))
        assert set(p.colours) == set(tileset(name).colours)
        assert set(p.shapes) == set(tileset(name).shapes)


def test_json_round_trip() -> None:
    p = default_prototypes(tileset("connect"))
    back = Prototypes.from_json(p.to_json(), where="p.json")
    assert back.tileset == "connect"
    for k, v in p.colours.items():
        assert np.allclose(back.colours[k], v, atol=1e-3)


def test_json_round_trip_keeps_the_outlines() -> None:
    p = default_prototypes(tileset("classic"))
    back = Prototypes.from_json(p.to_json(), where="p.json")
    assert set(back.outlines) == set(tileset("classic").shapes)
    for k, v in p.outlines.items():
        assert np.allclose(back.outlines[k], v, atol=1e-3)
        assert np.allclose(back.outline_spreads[k], p.outline_spreads[k], atol=1e-3)


def test_json_round_trip_keeps_the_colour_blind_marks() -> None:
    p = default_prototypes(tileset("colour-blind"))
    assert set(p.marks) == set(tileset("colour-blind").colours)
    back = Prototypes.from_json(p.to_json(), where="p.json")
    for k, v in p.marks.items():
        assert np.allclose(back.marks[k], v, atol=1e-3)
        assert np.allclose(back.mark_spreads[k], p.mark_spreads[k], atol=1e-3)
    data = p.to_json()
    del data["mark_spreads"]["red"]
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*mark_spreads"):
        Prototypes.from_json(data, where="p.json")
    assert default_prototypes(tileset("classic")).marks == {}


def test_herkle_is_named_by_silhouette_and_the_others_by_outline() -> None:
    assert default_prototypes(tileset("herkle")).outlines == {}
    for name in ("classic", "colour-blind", "cubes", "connect"):
        assert set(default_prototypes(tileset(name)).outlines) == set(tileset(name).shapes)


def test_outline_spreads_must_be_positive() -> None:
    data = default_prototypes(tileset("classic")).to_json()
    data["outline_spreads"]["circle"] = [0.0, 0.01, 0.01, 0.01]
    with pytest.raises(ValueError, match=r"p\.json"):
        Prototypes.from_json(data, where="p.json")


def test_malformed_json_names_the_file() -> None:
    with pytest.raises(ValueError, match=r"p\.json"):
        Prototypes.from_json({"tileset": "classic", "colours": {"red": [1, 2]}, "shapes": {}}, where="p.json")


def test_a_lamps_reflection_on_one_tile_does_not_pale_its_colour() -> None:
    # a glossy top reflects the lamp over paint and body alike (the same light added to every channel):
    # what the body gains over the frame's black beyond its own colour is taken off the paint too
    tiles = [Tile(c, "square") for c in ("red", "orange", "yellow", "green", "blue", "purple")]
    m = measure(paint_patches(tiles, variant="classic", rng=np.random.default_rng(0)))
    m = dataclasses.replace(m, body=np.repeat(np.median(m.body, axis=0)[None], len(m), axis=0))
    clean = colour_features(m, np.ones(3))
    lit = 0.08  # linear light, about a fifth of the way from the body's black to mid-grey
    paint, body = m.paint.copy(), m.body.copy()
    paint[0] = linear_to_srgb(srgb_to_linear(paint[0] / 255) + lit) * 255
    body[0] = linear_to_srgb(srgb_to_linear(body[0] / 255) + lit) * 255
    shown = dataclasses.replace(m, paint=paint, body=body)
    glossy = colour_features(shown, np.ones(3), reflection=True)
    assert np.allclose(glossy[0], clean[0], atol=0.5)
    # read as it is, the red pales towards pink by far more than a colour's spread
    paled = colour_features(shown, np.ones(3))
    assert np.linalg.norm(paled[0] - clean[0]) > 3 * COLOUR_SPREAD
    assert np.array_equal(paled[1:], clean[1:])


def linear_to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


def test_json_round_trip_keeps_a_calibrations_body_balance() -> None:
    p = dataclasses.replace(default_prototypes(tileset("classic")), body_gains=np.array([0.5, 1.3, 1.2]))
    back = Prototypes.from_json(p.to_json(), where="p.json")
    assert back.body_gains is not None and np.allclose(back.body_gains, [0.5, 1.3, 1.2])
    plain = default_prototypes(tileset("classic")).to_json()
    assert "body_gains" not in plain and Prototypes.from_json(plain, where="p.json").body_gains is None
    with pytest.raises(ValueError, match="body_gains"):
        Prototypes.from_json({**p.to_json(), "body_gains": [0.5, 0.0, 1.2]}, where="p.json")


def test_json_round_trip_keeps_a_calibrations_doubts() -> None:
    """A calibration's doubts round-trip as [colour, named, other, log-odds]; none are written when there
    are none, and an entry naming no colour or shape of the edition is refused."""
    doubts = {("purple", "diamond", "clover"): 2.98, ("blue", "square", "criss-cross"): 0.5}
    p = dataclasses.replace(default_prototypes(tileset("classic")), doubts=doubts)
    back = Prototypes.from_json(p.to_json(), where="p.json")
    assert back.doubts == doubts
    plain = default_prototypes(tileset("classic")).to_json()
    assert "doubts" not in plain and Prototypes.from_json(plain, where="p.json").doubts == {}
    for wrong in (["pink", "diamond", "clover", 1.0], ["red", "oval", "clover", 1.0], ["red", "diamond"]):
        with pytest.raises(ValueError, match=r"p\.json: malformed prototypes"):
            Prototypes.from_json({**p.to_json(), "doubts": [wrong]}, where="p.json")
