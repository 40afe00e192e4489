import pytest

from table import TILESETS, Tile, TileError, UnknownVariantError, tileset
from table.tiles import CLASSIC, CONNECT, CUBES, HERKLE


def test_every_set_has_36_distinct_tiles_with_unique_codes():
    for ts in TILESETS.values():
        tiles = ts.tiles()
        assert len(set(tiles)) == 36
        assert len({t.code for t in tiles}) == 36
        assert all(Tile.from_code(t.code) == t for t in tiles)


def test_bag_sizes_follow_the_editions():
    assert CLASSIC.total == 108
    assert tileset("colour-blind").total == 108
    assert HERKLE.total == 108
    assert CONNECT.total == 108
    assert CUBES.total == 90


def test_names_follow_the_contract():
    assert CLASSIC.colours == ("red", "orange", "yellow", "green", "blue", "purple")
    assert CLASSIC.shapes == ("circle", "criss-cross", "diamond", "square", "starburst", "clover")
    assert CONNECT.colours == ("red", "orange", "yellow", "green", "blue", "white")
    assert set(HERKLE.colours) == {"red", "white", "yellow", "green", "blue", "black"}
    assert set(HERKLE.shapes) == {"fess", "pale", "bend", "cross", "saltire", "chevron"}
    assert CUBES.shapes == CLASSIC.shapes and CUBES.rolled


def test_parse_accepts_names_and_codes_and_checks_membership():
    assert CLASSIC.parse("Red:Circle") == Tile("red", "circle")
    assert CLASSIC.parse("Bx") == Tile("blue", "criss-cross")
    assert HERKLE.parse("Kz") == Tile("black", "saltire")
    with pytest.raises(TileError, match="classic has no colour 'black'"):
        CLASSIC.parse("Kz")
    with pytest.raises(TileError, match="connect has no colour 'purple'"):
        CONNECT.parse("purple:circle")
    with pytest.raises(TileError, match="expected colour:shape"):
        Tile.parse("red")
    with pytest.raises(TileError, match="tile code 'Qq'"):
        Tile.from_code("Qq")


def test_unknown_variant_names_the_known_ones():
    with pytest.raises(UnknownVariantError, match="known: classic, colour-blind, herkle, cubes, connect"):
        tileset("chess")


def test_limits_per_tile_and_per_cube_colour():
    red_circle = Tile("red", "circle")
    assert CLASSIC.limit_message(red_circle, 3) is None
    assert "only 3 of each tile" in (CLASSIC.limit_message(red_circle, 4) or "")
    assert CUBES.limit_message(red_circle, 15) is None
    assert "only 15 of each colour" in (CUBES.limit_message(red_circle, 16) or "")
