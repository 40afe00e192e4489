"""The dispute checker's routes: any placement, any past turn, "where can this tile go"."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from live.service import GameService
from table import parse_placement
from web.dispute import check_past_turn


def tiles(text: str) -> dict[str, Any]:
    return {
        "tiles": [
            {"row": p.row, "col": p.col, "colour": p.tile.colour, "shape": p.tile.shape}
            for p in parse_placement(text)
        ]
    }


@pytest.fixture
def played(service: GameService) -> GameService:
    """Ann: red circle + red square (2); Bob: blue circle under the red circle (2); Ann: a Qwirkle row."""
    service.new_game(["Ann", "Bob"])
    service.play(parse_placement("Ro@0,0 Rs@0,1"))
    service.play(parse_placement("Bo@1,0"))
    service.play(parse_placement("Rd@0,2 Rx@0,3 Rt@0,4 Rc@0,5"))
    return service


def test_a_legal_proposal_scores_with_its_lines(client: FlaskClient, played: GameService) -> None:
    result = client.post("/api/check", json={"placement": tiles("Bs@1,1")}).get_json()
    assert result["legal"] is True and result["score"] == 4
    assert sorted(len(line["cells"]) for line in result["lines"]) == [2, 2]


def test_an_illegal_proposal_names_each_rule_and_its_cells(client: FlaskClient, played: GameService) -> None:
    result = client.post("/api/check", json={"placement": tiles("Gx@1,1 Gs@1,3")}).get_json()
    assert result["legal"] is False and result["score"] is None
    rules = {v["rule"] for v in result["violations"]}
    assert "gap-in-line" in rules
    assert all(v["message"] and v["cells"] for v in result["violations"])


def test_checking_changes_nothing(client: FlaskClient, played: GameService) -> None:
    before = played.state()
    client.post("/api/check", json={"placement": tiles("Bs@1,1")})
    client.post("/api/check", json={"turn": 3})
    client.post("/api/spots", json={"tile": {"colour": "blue", "shape": "square"}})
    assert played.state() == before


def test_a_past_turn_is_judged_on_the_board_before_it(client: FlaskClient, played: GameService) -> None:
    result = client.post("/api/check", json={"turn": 3}).get_json()
    assert result["legal"] is True
    assert result["score"] == 12 == result["recorded"]
    assert [line["qwirkle"] for line in result["lines"]] == [True]
    assert result["player"] == "Ann" and result["turn"] == 3


def test_the_first_turn_is_judged_on_an_empty_table(played: GameService) -> None:
    result = check_past_turn(played.state(), 1)
    assert result["legal"] is True and result["score"] == 2


def test_where_can_this_tile_go(client: FlaskClient, played: GameService) -> None:
    cells = client.post("/api/spots", json={"tile": {"colour": "blue", "shape": "square"}}).get_json()[
        "cells"
    ]
    assert [1, 1] in cells
    assert cells == sorted(cells)


BAD: list[tuple[str, Any, int, str]] = [
    ("/api/check", {}, 400, 'expected {"placement"'),
    ("/api/check", {"placement": "Ro@0,0"}, 400, "placement: expected"),
    (
        "/api/check",
        {"placement": {"tiles": [{"row": 1, "col": 1, "colour": "teal", "shape": "circle"}]}},
        400,
        "teal",
    ),
    ("/api/check", {"placement": tiles("Bs@1,1 Bd@1,2 Bx@1,3 Bt@1,4 Bc@1,5 Bo@1,6 Bo@1,7")}, 400, "1 to 6"),
    ("/api/check", {"turn": 0}, 400, "turn: must be 1 to 3"),
    ("/api/check", {"turn": 99}, 400, "turn: must be 1 to 3"),
    ("/api/check", {"turn": "2"}, 400, "turn: expected an integer"),
    ("/api/spots", {}, 400, "tile: missing"),
    ("/api/spots", {"tile": "red:circle"}, 400, "tile: expected an object"),
    ("/api/spots", {"tile": {"colour": "red", "shape": "fess"}}, 400, "no shape 'fess'"),
    ("/api/check", b"[", 400, "not valid JSON"),
]


@pytest.mark.parametrize("case", BAD)
def test_bad_questions_are_a_clear_400(
    client: FlaskClient, played: GameService, case: tuple[str, Any, int, str]
) -> None:
    path, body, status, words = case
    if isinstance(body, bytes):
        response = client.post(path, data=body, content_type="application/json")
    else:
        response = client.post(path, json=body)
    assert response.status_code == status, response.get_json()
    assert words in response.get_json()["error"]


def test_a_past_turn_that_placed_nothing_is_a_400(client: FlaskClient, played: GameService) -> None:
    played.declare_trade(2)
    response = client.post("/api/check", json={"turn": 4})
    assert response.status_code == 400
    assert "placed no tiles (trade)" in response.get_json()["error"]


def test_questions_without_a_game_are_a_409(client: FlaskClient) -> None:
    response = client.post("/api/check", json={"placement": tiles("Ro@0,0")})
    assert response.status_code == 409
    assert "no game yet" in response.get_json()["error"]
