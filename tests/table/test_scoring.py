"""Scoring, including every worked example of seed 003 (the colour-blind edition's rule book).

The colour-blind edition plays like classic: its inner shape/colour pair is the colour (inner square =
red, inner diamond = blue, inner clover = green, inner circle = orange) and its outer shape is the shape.
"""

from table import Board, parse_placement, score, violations
from table.layout import Layout
from table.tiles import COLOUR_BLIND

B = Board.from_text
P = parse_placement


def points(board: str, placement: str, **kw) -> int:
    b, p = B(board), P(placement)
    assert not violations(b, p, tileset=COLOUR_BLIND), violations(b, p, tileset=COLOUR_BLIND)
    return score(b, p, **kw).total


class TestSeed003ScoringSection:
    """The four turns of the scoring section: 3, 3, 7 and 12 points."""

    def test_opening_outer_clover_line_scores_3(self):
        assert points("", "Rc@0,0 Bc@0,1 Gc@0,2") == 3

    def test_two_inner_blue_tiles_make_a_blue_line_of_3(self):
        assert points("Rc Bc Gc", "Bs@1,1 Bd@2,1") == 3

    def test_three_outer_circles_score_4_for_the_blue_line_and_3_for_the_circles(self):
        s = score(B("Rc Bc Gc / 1 Bs / 1 Bd"), P("Oo@3,0 Bo@3,1 Go@3,2"))
        assert s.total == 7
        assert sorted(line.points for line in s.lines) == [3, 4]

    def test_completing_the_outer_circle_line_is_a_qwirkle_of_12(self):
        s = score(B("Rc Bc Gc / 1 Bs / 1 Bd / Oo Bo Go"), P("Yo@3,3 Ro@3,4 Po@3,5"))
        assert s.total == 12
        assert s.qwirkles == 1 and s.lines[0].qwirkle


class TestSeed003SampleGame:
    """Turns 1, 2, 3 and 11 of the sample game: 3, 7, 4 and 18 points."""

    def test_1_anna_three_inner_red_tiles(self):
        assert points("", "Rc@0,0 Rd@0,1 Ro@0,2") == 3

    def test_2_chris_4_for_the_red_line_and_3_for_the_outer_square_line(self):
        assert points("Rc Rd Ro", "Rs@0,3 Bs@1,3 Gs@2,3") == 7

    def test_3_sally_2_for_the_circle_line_and_2_for_the_blue_line(self):
        assert points("Rc Rd Ro Rs / 3 Bs / 3 Gs", "Bo@1,2") == 4

    def test_11_sally_red_qwirkle_plus_two_lines_of_3_scores_18(self):
        # The rule book names the lines "inner square/red QWIRKLE" (6 + 6), a line of 3 and an "outer X line"
        # of 3. Both placed tiles are red, so the other line of 3 runs through a red tile: an outer diamond
        # line here (the book's "inner diamond/blue" cannot hold a red tile; the count is the same).
        board = "1 Rc Ro Rs Rt / Bd 4 Yx / Gd 4 Gx"
        s = score(B(board), P("Rd@0,0 Rx@0,5"))
        assert not violations(B(board), P("Rd@0,0 Rx@0,5"))
        assert s.total == 18
        assert sorted(line.points for line in s.lines) == [3, 3, 12]


def test_each_line_counts_once_and_a_tile_in_two_lines_counts_twice():
    s = score(B("Ro Rx / Bo"), P("Bx@1,1"))
    assert [line.cells for line in s.lines] == [((1, 0), (1, 1)), ((0, 1), (1, 1))]
    assert s.total == 4


def test_the_shared_line_comes_first_and_counts_once():
    s = score(B("Ro Rx Rd"), P("Rs@0,3 Rt@0,4"))
    assert len(s.lines) == 1 and s.total == 5


def test_a_lone_tile_on_an_empty_table_scores_1():
    s = score(Board(), P("Ro@0,0"))
    assert s.total == 1 and s.lines[0].cells == ((0, 0),)


def test_two_qwirkles_in_one_turn_add_12():
    # column 0 and row 5 each get their sixth tile from the one tile at (5,0)
    board = B("Ro / Bo / Go / Yo / Oo / 1 Px Pd Ps Pt Pc")
    s = score(board, P("Po@5,0"))
    assert s.qwirkles == 2 and s.total == 24


def test_printed_board_bonus_cells_add_their_points():
    layout = Layout("connect", 16, 16, bonus={(0, 1): 1, (0, 2): 2}, start_tiles=B("Ro"))
    s = score(B("Ro"), P("Rx@0,1 Rd@0,2"), layout=layout)
    assert s.line_points == 3 and s.bonus == 3 and s.total == 6


def test_connect_game1_first_move():
    """Move 1 of the real Connect game (connect-game1/moves.jsonl): 8 line points + 2 bonus."""
    from table import connect_layout

    layout = connect_layout()
    placed = P("Gs@9,3 Gx@10,3 Gc@12,3")
    assert not violations(layout.start_tiles, placed, layout=layout)
    s = score(layout.start_tiles, placed, layout=layout)
    assert (s.line_points, s.bonus, s.total) == (8, 2, 10)
