"""vision/prototypes.py: prototypes are data (the defaults, a JSON round trip, malformed files)."""

from __future__ import annotations

import numpy as np
import pytest

from table import tileset
from vision import Prototypes, default_prototypes


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
