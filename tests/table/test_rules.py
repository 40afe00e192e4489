"""Placement validation: each rule, the cells it names and a readable message."""

import pytest

from table import Board, ImpossibleBoardError, Rule, board_violations, check_board, is_legal, parse_placement
from table import violations as find
from table.layout import Layout
from table.tiles import CUBES, HERKLE

B = Board.from_text
P = parse_placement


def rules(board: str, placement: str, **kw):
    return [v.rule for v in find(B(board), P(placement), **kw)]


def only(board: str, placement: str, **kw):
    found = find(B(board), P(placement), **kw)
    assert len(found) == 1, found
    return found[0]


def test_legal_placements_have_no_violations():
    assert not find(B("Ro Rx Rd"), P("Rs@0,3"))
    assert not find(B("Ro Rx Rd"), P("Rs@0,-1 Rt@0,-2"))
    assert not find(B("Ro Rx Rd"), P("Bo@1,0 Go@2,0"))
    assert is_legal(B("Ro Rx Rd"), P("Rs@0,3"))


def test_first_move_needs_no_neighbour_but_must_be_a_line():
    assert not find(Board(), P("Ro@5,5"))
    assert not find(Board(), P("Ro@0,0 Bo@0,1 Go@0,2"))
    assert rules("", "Ro@0,0 Bs@0,1") == [Rule.MIXED_LINE]


def test_empty_placement():
    assert rules("Ro", "") == [Rule.EMPTY]


def test_not_in_one_line():
    v = only("Ro Rx Rd", "Rs@0,3 Rc@1,4")
    assert v.rule == Rule.NOT_ONE_LINE
    assert v.cells == ((0, 3), (1, 4))
    assert "not in one row or one column" in v.message


def test_gap_in_the_line_names_the_empty_cells():
    v = only("Ro Rx Rd", "Rs@0,3 Rc@0,5")
    assert v.rule == Rule.GAP
    assert v.cells == ((0, 4),)
    assert "(0,4)" in v.message


def test_tiles_on_both_ends_of_a_line_are_one_line_without_gaps():
    assert not find(B("Rx Rd"), P("Ro@0,-1 Rs@0,2"))


def test_cell_taken_names_the_tile_there():
    v = only("Ro Rx", "Rd@0,1")
    assert v.rule == Rule.CELL_TAKEN
    assert v.cells == ((0, 1),)
    assert "already holds red:criss-cross" in v.message


def test_same_cell_twice():
    found = rules("Ro", "Rx@0,1 Rd@0,1")
    assert Rule.SAME_CELL_TWICE in found


def test_touching_nothing():
    v = only("Ro Rx", "Bs@5,5")
    assert v.rule == Rule.NOT_CONNECTED
    assert "touches" in v.message


def test_diagonal_contact_does_not_count():
    assert rules("Ro", "Rx@1,1") == [Rule.NOT_CONNECTED]


def test_mixed_line_names_its_tiles():
    v = only("Ro Rx", "Bs@0,2")
    assert v.rule == Rule.MIXED_LINE
    assert v.cells == ((0, 0), (0, 1), (0, 2))
    assert "neither one colour nor one shape" in v.message and "blue:square" in v.message


def test_duplicate_anywhere_in_the_line():
    v = only("Ro Rx Rd", "Ro@0,3")
    assert v.rule == Rule.DUPLICATE
    assert v.cells == ((0, 0), (0, 3))
    assert "red:circle 2 times" in v.message


def test_identical_tiles_side_by_side():
    assert rules("Ro", "Ro@0,1") == [Rule.DUPLICATE]


def test_duplicate_colour_in_a_shape_line():
    assert rules("Ro Bo", "Ro@0,2") == [Rule.DUPLICATE]


def test_a_crossing_line_is_checked_too():
    # Bs at (1,1) is fine in its row but makes the column red:criss-cross / blue:square mixed
    v = only("Ro Rx / Bo", "Bs@1,1")
    assert v.rule == Rule.MIXED_LINE
    assert v.cells == ((0, 1), (1, 1))


def test_line_longer_than_six():
    board = "Ro Rx Rd Rs Rt Rc"
    found = rules(board, "Ro@0,6")
    assert Rule.TOO_LONG in found and Rule.DUPLICATE in found
    v = next(v for v in find(B(board), P("Ro@0,6")) if v.rule == Rule.TOO_LONG)
    assert "7 tiles" in v.message and "at most 6" in v.message


def test_joining_two_lines_through_a_gap_is_judged_on_the_whole_line():
    # Ro Rx _ Rs Rt: Rd at (0,2) joins both halves into one valid red line of five
    assert not find(B("Ro Rx 1 Rs Rt"), P("Rd@0,2"))
    # but Ro at (0,2) would duplicate the circle of the joined line
    assert rules("Ro Rx 1 Rs Rt", "Ro@0,2") == [Rule.DUPLICATE]


def test_a_fourth_copy_of_a_classic_tile_is_impossible():
    board = "Ro Rx / Bo / Go Gx / 2 / Ro Rd / Bo / Go Gd / 2 / Ro Rs"  # three red circles down
    assert not find(B(board), P("Rc@8,2"))  # another red tile is fine
    found = find(B(board), P("Ro@9,0"))
    v = next(v for v in found if v.rule == Rule.TOO_MANY)
    assert v.cells == ((9, 0),)
    assert "4 copies of red:circle" in v.message and "only 3 of each tile" in v.message


def test_cubes_allow_repeated_tiles_but_only_15_of_a_colour():
    # 15 red cubes already down in lines; a 16th is impossible whatever its face
    rows = ["Ro Rx Rd Rs Rt"] * 3
    board = " / / ".join(rows)  # 15 red cubes in three separate rows
    found = find(B(board), P("Rc@0,5"), tileset=CUBES)
    assert [v.rule for v in found] == [Rule.TOO_MANY]
    assert "16 red cubes" in found[0].message


def test_unknown_tile_for_the_edition():
    v = find(B("Ro"), P("Kz@0,1"))[0]
    assert v.rule == Rule.UNKNOWN_TILE and "classic has no colour 'black'" in v.message
    assert not find(B("Rz"), P("Rv@0,1"), tileset=HERKLE)


def test_off_a_printed_board():
    layout = Layout("connect", 4, 4, start_tiles=B("Ro"))
    v = only("Ro", "Rx@0,-1", layout=layout)
    assert v.rule == Rule.OFF_BOARD and "off the 4×4 board" in v.message


def test_several_violations_are_all_reported():
    found = rules("Ro Rx", "Bs@0,1 Gd@3,3")
    assert Rule.CELL_TAKEN in found and Rule.NOT_ONE_LINE in found


class TestBoards:
    def test_a_reachable_board_passes(self):
        assert check_board(B("Ro Rx Rd / Bo / Go")) == B("Ro Rx Rd / Bo / Go")

    def test_invalid_lines_and_copies_and_groups_are_reported(self):
        found = board_violations(B("Ro Bs / / Ro 1 Ro / / Ro"))
        kinds = {v.rule for v in found}
        assert kinds == {Rule.MIXED_LINE, Rule.TOO_MANY, Rule.NOT_CONNECTED}

    def test_impossible_board_error_names_the_first_problem(self):
        with pytest.raises(ImpossibleBoardError, match="impossible board: the line in row 0"):
            check_board(B("Ro Bs"))

    def test_printed_boards_may_hold_separate_groups(self):
        layout = Layout("connect", 8, 8, start_tiles=B("Ro 6 Bs"))
        assert not board_violations(B("Ro 6 Bs"), layout=layout)
