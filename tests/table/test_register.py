"""Registration: a reading mapped onto the confirmed board under quarter turns and shifts, no mirror."""

import pytest

from table import Board
from table.board import transform_cell
from table.register import Registration, _turned, register

BOARD = Board.from_text("Ro Rx Rd Rs / Bo 3 Bs / Go")


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
@pytest.mark.parametrize("shift", [(0, 0), (5, -7), (-2, 3)])
def test_a_moved_reading_is_mapped_back(turns, shift):
    seen = BOARD.transformed(shift=shift, turns=turns)
    reg = register(BOARD, seen)
    assert reg.board(seen) == BOARD
    assert reg.matched == len(BOARD) and reg.conflicts == 0


def test_new_tiles_land_in_board_cells():
    grown = BOARD.with_tiles([*Board.from_text("-1,3: Ys").placed])
    seen = grown.transformed(shift=(4, 4), turns=1)
    assert register(BOARD, seen).board(seen) == grown


def test_a_misread_tile_does_not_move_the_registration():
    seen = Board({**BOARD, (0, 1): Board.from_text("Bx")[(0, 0)]}).transformed(shift=(1, 1), turns=2)
    reg = register(BOARD, seen)
    assert reg.matched == len(BOARD) - 1 and reg.conflicts == 1
    assert reg.cell(next(c for c, t in seen.items() if t.colour == "blue" and t.shape == "criss-cross")) == (
        0,
        1,
    )


def test_a_mirror_image_is_not_a_match():
    mirrored = BOARD.transformed(mirror=True)
    assert register(BOARD, mirrored).board(mirrored) != BOARD


def test_ties_keep_the_last_motion():
    one = Board.from_text("Ro")
    seen = Board.from_text("Ro Rx").transformed(turns=1)
    hint = Registration(turns=1)
    reg = register(one, seen, hint=hint)
    assert reg.turns == 1  # any quarter turn fits a single tile; the camera's last one is kept
    assert register(Board(), seen, hint=hint) == Registration(1, (0, 0))


def test_cells_turned_as_transform_cell_turns_them() -> None:
    pairs = [((r, c), k) for k, (r, c) in enumerate([(0, 0), (3, -2), (-5, 7), (1, 1), (-4, -6)])]
    for turns in range(4):
        assert _turned(pairs, turns) == [(transform_cell(cell, turns=turns), k) for cell, k in pairs]
