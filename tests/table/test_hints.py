from itertools import combinations

from table import (
    Board,
    Tile,
    best_play,
    first_player,
    is_legal,
    largest_group,
    legal_plays,
    parse_placement,
    score,
    spots,
)
from table.board import PlacedTile
from table.layout import Layout
from table.simulate import random_board
from table.tiles import CUBES

B = Board.from_text
T = Tile.from_code


def test_spots_lists_every_legal_cell_sorted():
    assert spots(B("Ro Rx"), T("Rd")) == [(-1, 0), (-1, 1), (0, -1), (0, 2), (1, 0), (1, 1)]
    assert spots(B("Ro Rx"), T("Bo")) == [(-1, 0), (1, 0)]
    assert spots(B("Ro Rx"), T("Bs")) == []


def test_spots_on_an_empty_table_is_the_origin():
    assert spots(Board(), T("Ro")) == [(0, 0)]


def test_spots_respects_copies_and_the_printed_board():
    three = B("Ro Rx / 2 / Ro Rd / 2 / Ro Rs")
    assert spots(three, T("Ro")) == []
    layout = Layout("connect", 2, 2, start_tiles=B("Ro"))
    assert spots(B("Ro"), T("Rx"), layout=layout) == [(0, 1), (1, 0)]


def test_spots_agrees_with_the_validator_on_random_boards():
    for seed in range(5):
        board = random_board(30, seed=seed)
        for tile in [T("Ro"), T("Gs"), T("Pc"), T("Yt")]:
            expected = sorted(c for c in board.frontier if is_legal(board, (PlacedTile(c[0], c[1], tile),)))
            assert spots(board, tile) == expected


def test_legal_plays_are_legal_and_complete_on_a_small_board():
    board = B("Ro Rx")
    hand = [T(c) for c in ("Rd", "Rs", "Bo", "Bx")]
    found = {frozenset(p) for p in legal_plays(board, hand)}
    assert all(is_legal(board, p) for p in found)
    # brute force: every subset of the hand on every arrangement of cells near the board
    cells = [(r, c) for r in range(-3, 4) for c in range(-3, 5) if (r, c) not in board]
    brute: set[frozenset[PlacedTile]] = set()
    for t in hand:
        for cell in cells:
            p = (PlacedTile(cell[0], cell[1], t),)
            if is_legal(board, p):
                brute.add(frozenset(p))
    for a, b in combinations(hand, 2):
        for c1 in cells:
            for c2 in cells:
                if c1 != c2:
                    p = (PlacedTile(*c1, a), PlacedTile(*c2, b))
                    if is_legal(board, p):
                        brute.add(frozenset(p))
    two_or_less = {p for p in found if len(p) <= 2}
    assert two_or_less == brute


def test_best_play_takes_the_qwirkle():
    best = best_play(B("Ro Rx Rd"), [T(c) for c in ("Rs", "Rt", "Rc", "Bo", "Go", "Yx")])
    assert best is not None
    assert best.score.total == 12
    assert {p.tile for p in best.placement} == {T("Rs"), T("Rt"), T("Rc")}


def test_best_play_is_never_beaten_by_another_legal_play():
    board = random_board(40, seed=11)
    hand = [T(c) for c in ("Ro", "Rx", "Bo", "Gs", "Yd", "Pc")]
    best = best_play(board, hand)
    assert best is not None
    assert all(score(board, p).total <= best.score.total for p in legal_plays(board, hand))


def test_best_play_is_none_when_nothing_fits():
    assert best_play(B("Ro Rx Rd Rs Rt Rc"), []) is None
    assert best_play(B("Ro"), [T("Bs")]) is None


def test_cubes_hands_may_repeat_a_tile():
    plays = list(legal_plays(B("Ro"), [T("Bo"), T("Bo")], tileset=CUBES))
    assert plays and all(len(p) == 1 for p in plays)  # two blue circles can never share a line


def test_largest_group_counts_distinct_tiles():
    hand = [T(c) for c in ("Rs", "Ro", "Bo", "Go", "Od", "Pt")]  # the rule book's example: 3 circles
    assert largest_group(hand) == 3
    assert largest_group([T("Ro"), T("Ro")]) == 1


def test_first_player_returns_ties():
    a = [T(c) for c in ("Ro", "Rx", "Rd")]
    b = [T(c) for c in ("Bo", "Go", "Yo")]
    c = [T(c) for c in ("Bo", "Gx")]
    assert first_player([a, b, c]) == [0, 1]
    assert first_player([c, a]) == [1]


def test_parse_placement_used_for_hints_roundtrip():
    best = best_play(B("Ro"), [T("Rx")])
    assert best is not None and best.placement == parse_placement(str(best.placement[0]))
