"""Comparing a settled reading with the confirmed board: placements, and what needs a person."""

from live.turns import Fix, busy, compare, observe
from table import Board, PlacedTile, Tile

from .conftest import reading

CONFIRMED = Board.from_text("Ro Rx Rd")


def change(shown, **kw):
    return compare(CONFIRMED, observe(shown, CONFIRMED, fixed=False, **kw))


def test_new_tiles_are_the_placement():
    found = change(reading("Ro Rx Rd Rs"))
    assert found.placed == (PlacedTile(0, 3, Tile("red", "square")),)
    assert not found.needs_attention


def test_removed_changed_and_unreadable_cells_need_attention():
    found = change(reading("Ro 1 Rs", unsure=((1, 0),)))
    assert [p.cell for p in found.removed] == [(0, 1)]
    assert found.changed == (((0, 2), Tile("red", "diamond"), Tile("red", "square")),)
    assert found.unreadable == ((1, 0),)
    assert found.cells() == [(0, 1), (0, 2), (1, 0)]
    assert len(found.reasons()) == 3


def test_an_unreadable_confirmed_cell_hides_nothing():
    assert change(reading("Ro Rx Rd", unsure=((0, 1),))).nothing


def test_fixes_override_the_reader():
    fixes = {(0, 2): Fix(Tile("red", "diamond")), (0, 1): Fix(Tile("red", "criss-cross"), always=True)}
    assert change(reading("Ro 1 Rs"), fixes=fixes).nothing
    ignored = {(0, 3): Fix(None)}
    assert change(reading("Ro Rx Rd Bs"), fixes=ignored).nothing


def test_a_hand_makes_a_reading_busy():
    assert busy(reading("Ro", hidden=((0, 1),)))
    assert not busy(reading("Ro", unsure=((0, 1),)))
