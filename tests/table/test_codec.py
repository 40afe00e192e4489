import pytest

from table import Board, BoardFormatError, Game, GameError, parse_placement
from table.codec import (
    board_from_json,
    check_to_json,
    layout_from_json,
    layout_to_json,
    placement_from_json,
)
from table.layout import connect_layout
from table.rules import violations
from table.scoring import score
from table.tiles import CLASSIC, CONNECT


def test_board_json_in_the_contract_shape():
    data = {"tiles": [{"row": 3, "col": -1, "colour": "red", "shape": "circle"}]}
    board = board_from_json(data, where="b.json", tileset=CLASSIC)
    assert board == Board.from_text("3,-1: Ro")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], r"b.json: tile 1: expected an object"),
        ({"tiles": "x"}, r'b.json: expected \{"tiles": \[...\]\}'),
        (
            {"tiles": [{"row": 0, "col": 0, "colour": "pink", "shape": "circle"}]},
            "b.json: tile 1: .*no colour 'pink'",
        ),
        (
            {"tiles": [{"row": "0", "col": 0, "colour": "red", "shape": "circle"}]},
            "row and col must be integers",
        ),
        ({"tiles": [{"row": 0, "col": 0, "colour": 1, "shape": "circle"}]}, "must be strings"),
        (
            {"tiles": [{"row": 0, "col": 0, "colour": "red", "shape": "circle"}] * 2},
            r"b.json: cell \(0, 0\): holds two tiles",
        ),
    ],
)
def test_bad_board_json_names_the_file_and_the_entry(data, message):
    with pytest.raises(BoardFormatError, match=message):
        board_from_json(data, where="b.json", tileset=CLASSIC)


def test_placement_accepts_a_bare_list():
    assert placement_from_json([{"row": 0, "col": 0, "colour": "red", "shape": "circle"}], where="p") == (
        parse_placement("Ro@0,0")
    )


def test_layout_round_trips_and_rejects_unknown_keys():
    layout = connect_layout()
    assert layout_from_json(layout_to_json(layout), where="l") == layout
    assert len(layout.start_tiles) == 24 and len(layout.bonus) == 48
    assert all(CONNECT.has(t) for t in layout.start_tiles.values())
    with pytest.raises(BoardFormatError, match="unknown layout keys colour"):
        layout_from_json({"rows": 2, "cols": 2, "colour": 1}, where="l")
    with pytest.raises(BoardFormatError, match=r"off the 2×2 board"):
        layout_from_json({"rows": 2, "cols": 2, "bonus": [{"row": 5, "col": 0, "points": 1}]}, where="l")


def test_check_json_legal_and_illegal():
    board = Board.from_text("Ro Rx")
    legal = parse_placement("Rd@0,2")
    data = check_to_json(violations(board, legal), score(board, legal))
    assert data == {
        "legal": True,
        "score": 3,
        "violations": [],
        "lines": [{"cells": [[0, 0], [0, 1], [0, 2]], "points": 3, "qwirkle": False}],
        "bonus": 0,
    }
    bad = parse_placement("Bs@0,2")
    data = check_to_json(violations(board, bad), None)
    assert data["legal"] is False and data["score"] is None and data["lines"] == []
    assert data["violations"][0]["rule"] == "mixed-line"
    assert data["violations"][0]["cells"] == [[0, 0], [0, 1], [0, 2]]


def test_saved_games_that_cannot_be_replayed_are_rejected():
    with pytest.raises(BoardFormatError, match="not a saved game"):
        Game.from_json({"moves": []})
    good = Game(["Ann", "Bob"]).to_json()
    with pytest.raises(BoardFormatError, match="move 1: unknown move kind 'jump'"):
        Game.from_json({**good, "moves": [{"kind": "jump"}]})
    with pytest.raises(GameError, match="2 to 4 players"):
        Game.from_json({**good, "players": ["Ann"]})
