import pytest

from table import Board, BoardFormatError, PlacedTile, Tile, parse_placement
from table.board import transform_cell

RED_CIRCLE = Tile("red", "circle")


def test_literal_reads_codes_gaps_rows_and_origin():
    board = Board.from_text("-2,5: Bs 2 Ys / / Ro")
    assert dict(board) == {
        (-2, 5): Tile("blue", "square"),
        (-2, 8): Tile("yellow", "square"),
        (0, 5): RED_CIRCLE,
    }


@pytest.mark.parametrize("text", ["Ro Rx Rd / 1 Gx", "-3,-4: Bo / 2 Bx", "0,7: Yd 12 Yo", ""])
def test_literal_round_trips(text):
    board = Board.from_text(text)
    assert Board.from_text(board.to_text()) == board


def test_literal_rejects_unknown_codes_naming_the_row():
    with pytest.raises(BoardFormatError, match="row 2"):
        Board.from_text("Ro / Qq")


def test_board_is_immutable_and_with_tiles_returns_a_new_board():
    board = Board.from_text("Ro")
    bigger = board.with_tiles(parse_placement("Rx@0,1"))
    assert len(board) == 1 and len(bigger) == 2
    with pytest.raises(BoardFormatError, match=r"cell \(0, 0\): already holds red:circle"):
        board.with_tiles(parse_placement("Bo@0,0"))
    with pytest.raises(TypeError):
        board[(5, 5)] = RED_CIRCLE  # type: ignore[index]


def test_of_rejects_two_tiles_on_one_cell():
    with pytest.raises(BoardFormatError, match="holds two tiles"):
        Board.of([PlacedTile(0, 0, RED_CIRCLE), PlacedTile(0, 0, Tile("red", "square"))])


def test_equal_boards_hash_alike_and_views_are_sorted():
    a = Board.from_text("Ro Rx / Bo")
    b = Board.of(reversed(a.placed))
    assert a == b and hash(a) == hash(b)
    assert [p.cell for p in a.placed] == [(0, 0), (0, 1), (1, 0)]
    assert a.bounds == ((0, 0), (1, 1))
    assert a.frontier == {(-1, 0), (-1, 1), (0, 2), (1, 1), (2, 0), (0, -1), (1, -1)}


def test_counts_and_without():
    board = Board.from_text("Ro Rx / Ro")
    assert board.counts[RED_CIRCLE] == 2
    assert board.colour_counts["red"] == 3
    assert board.without([(1, 0), (9, 9)]) == Board.from_text("Ro Rx")


def test_transform_cell_quarter_turns_and_mirror():
    assert transform_cell((1, 2), turns=1) == (2, -1)
    assert transform_cell((1, 2), turns=4) == (1, 2)
    assert transform_cell((1, 2), mirror=True, shift=(10, 10)) == (11, 8)


def test_placement_text_forms():
    placed = parse_placement("Ro@3,-1 blue:square@3,0")
    assert placed == (PlacedTile(3, -1, RED_CIRCLE), PlacedTile(3, 0, Tile("blue", "square")))
    assert str(placed[0]) == "Ro@3,-1"
    with pytest.raises(BoardFormatError, match="expected CODE@ROW,COL"):
        parse_placement("Ro3,4")
    with pytest.raises(BoardFormatError, match="must be integers"):
        parse_placement("Ro@a,4")


def test_str_draws_a_grid_for_people():
    assert str(Board.from_text("Ro 1 Rx")) == "top-left cell 0,0\nRo  . Rx"
    assert str(Board()) == "(empty board)"
