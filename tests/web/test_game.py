"""Every change route: it does its one thing, and bad input is a clear 4xx that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from live.service import GameService

Unlocked = tuple[FlaskClient, dict[str, str]]

RC = {"colour": "red", "shape": "circle"}


def tiles(*cells: tuple[int, int, str, str]) -> dict[str, Any]:
    return {"tiles": [{"row": r, "col": c, "colour": col, "shape": s} for r, c, col, s in cells]}


@pytest.fixture
def game(unlocked: Unlocked) -> Unlocked:
    """An unlocked client and a two-player game with one turn played (Ann: red circle, red square)."""
    client, headers = unlocked
    assert client.post("/api/game/new", json={"players": ["Ann", "Bob"]}, headers=headers).status_code == 200
    placement = tiles((0, 0, "red", "circle"), (0, 1, "red", "square"))
    response = client.post("/api/game/play", json={"placement": placement}, headers=headers)
    assert response.status_code == 200, response.get_json()
    return client, headers


def test_new_game_with_teams_and_a_timer(unlocked: Unlocked, service: GameService) -> None:
    client, headers = unlocked
    body = {"players": ["Ann", "Bob", "Cid", "Dee"], "teams": True, "turn_seconds": 60, "variant": "herkle"}
    response = client.post("/api/game/new", json=body, headers=headers)
    assert response.status_code == 200
    state = service.state()
    assert response.get_json()["version"] == state["version"]
    assert state["variant"] == "herkle" and state["turn_seconds"] == 60
    assert state["sides"] == ["Ann & Cid", "Bob & Dee"]
    assert state["turn_deadline"] is not None


def test_new_game_with_a_chosen_first_player(unlocked: Unlocked, service: GameService) -> None:
    client, headers = unlocked
    response = client.post(
        "/api/game/new", json={"players": ["Ann", "Bob", "Cid"], "first": 1}, headers=headers
    )
    assert response.status_code == 200
    assert service.state()["to_move"] == "Bob"


def test_play_scores_the_turn(game: Unlocked, service: GameService) -> None:
    state = service.state()
    assert state["scores"] == {"Ann": 2, "Bob": 0}
    assert state["to_move"] == "Bob"


def test_trade_pass_undo_redo_and_end(game: Unlocked, service: GameService) -> None:
    client, headers = game
    assert client.post("/api/game/trade", json={"count": 3}, headers=headers).status_code == 200
    assert service.state()["turns"][-1]["move"] == {"kind": "trade", "count": 3}
    assert client.post("/api/game/undo", json={}, headers=headers).status_code == 200
    assert len(service.state()["turns"]) == 1
    assert client.post("/api/game/redo", json={}, headers=headers).status_code == 200
    assert len(service.state()["turns"]) == 2
    # Passing is only for an empty bag: the service says so, as a 409.
    response = client.post("/api/game/pass", json={}, headers=headers)
    assert response.status_code == 409 and "bag" in response.get_json()["error"]
    assert client.post("/api/game/end", json={}, headers=headers).status_code == 200
    state = service.state()
    assert state["over"] and state["winners"] == ["Ann"]


def test_reroll_is_for_cubes_only(game: Unlocked, service: GameService) -> None:
    client, headers = game
    before = service.version
    response = client.post("/api/game/reroll", json={"count": 2}, headers=headers)
    assert response.status_code == 409 and "Cubes" in response.get_json()["error"]
    assert service.version == before


def test_correct_a_misread_tile_rescores_the_turn(game: Unlocked, service: GameService) -> None:
    client, headers = game
    response = client.post(
        "/api/game/tile",
        json={"row": 0, "col": 1, "tile": {"colour": "red", "shape": "diamond"}},
        headers=headers,
    )
    assert response.status_code == 200, response.get_json()
    board = service.state()["board"]["tiles"]
    assert {"row": 0, "col": 1, "colour": "red", "shape": "diamond"} in board


def test_fix_a_score(game: Unlocked, service: GameService) -> None:
    client, headers = game
    body = {"side": "Bob", "points": 5, "note": "missed a line"}
    assert client.post("/api/game/adjust", json=body, headers=headers).status_code == 200
    assert service.state()["scores"]["Bob"] == 5


def test_resolve_with_nothing_pending_is_a_409(game: Unlocked) -> None:
    client, headers = game
    for action in ("keep", "accept", "cancel"):
        response = client.post("/api/game/resolve", json={"action": action}, headers=headers)
        assert response.status_code == 409, action
        assert response.get_json()["error"].startswith("nothing to")


BAD: list[tuple[str, Any, int, str]] = [
    # malformed bodies
    ("/api/game/new", b"{not json", 400, "not valid JSON"),
    ("/api/game/new", [1, 2], 400, "expected a JSON object"),
    ("/api/game/new", {"players": "Ann"}, 400, "players: expected a list"),
    ("/api/game/new", {"players": ["Ann"]}, 400, "players: expected a list of 2 to 4"),
    ("/api/game/new", {"players": ["Ann", "Bob", "Cid", "Dee", "Eve"]}, 400, "2 to 4"),
    ("/api/game/new", {"players": ["Ann", 7]}, 400, "players[1]: expected a string"),
    ("/api/game/new", {"players": ["Ann", ""]}, 400, "players[1]: must not be empty"),
    ("/api/game/new", {"players": ["Ann", "B" * 41]}, 400, "at most 40"),
    ("/api/game/new", {"players": ["Ann", "Ann"]}, 409, "must differ"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "teams": True}, 400, "team play needs 4"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "teams": "yes"}, 400, "teams: expected true or false"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "variant": "chess"}, 400, "variant 'chess'"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "turn_seconds": -5}, 400, "turn_seconds: must be 0 to"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "turn_seconds": 1.5}, 400, "expected an integer"),
    ("/api/game/new", {"players": ["Ann", "Bob"], "first": 2}, 400, "first: must be 0 to 1"),
    ("/api/game/play", {}, 400, "placement: missing"),
    ("/api/game/play", {"placement": {"tiles": []}}, 400, "1 to 6 placed tiles"),
    ("/api/game/play", {"placement": {"tiles": [{"row": 0, "col": 2}]}}, 400, "colour and shape"),
    ("/api/game/play", {"placement": tiles((0, 2, "pink", "circle"))}, 400, "no colour 'pink'"),
    ("/api/game/play", {"placement": tiles((0, 2, "red", "circle"))}, 409, "illegal placement"),
    ("/api/game/play", {"placement": tiles((5, 5, "red", "diamond"))}, 409, "touches"),
    ("/api/game/trade", {"count": 0}, 400, "count: must be 1 to 6"),
    ("/api/game/trade", {"count": "2"}, 400, "count: expected an integer"),
    ("/api/game/trade", {"count": True}, 400, "count: expected an integer"),
    ("/api/game/tile", {"row": 0, "col": 1}, 400, "tile: missing"),
    ("/api/game/tile", {"row": "0", "col": 1, "tile": None}, 400, "row: expected an integer"),
    ("/api/game/tile", {"row": 0, "col": 1, "tile": "red"}, 400, "tile: expected an object"),
    ("/api/game/tile", {"row": 0, "col": 1, "tile": {"colour": "red"}}, 400, "colour and shape"),
    ("/api/game/tile", {"row": 9, "col": 9, "tile": RC}, 409, "nothing to correct"),
    ("/api/game/resolve", {"action": "explode"}, 400, "keep, accept or cancel"),
    # unknown players
    ("/api/game/adjust", {"side": "Zed", "points": 3}, 409, "no side 'Zed'"),
    ("/api/game/adjust", {"side": "Bob", "points": 0}, 400, "changes nothing"),
    ("/api/game/adjust", {"side": "Bob", "points": 10_000}, 400, "points: must be"),
    ("/api/game/adjust", {"side": "Bob"}, 400, "points: missing"),
    ("/api/game/adjust", {"side": "Bob", "points": 2, "note": 5}, 400, "note: expected a string"),
    ("/api/game/redo", {}, 409, "nothing to redo"),
]


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_a_clear_4xx_that_changes_nothing(
    game: Unlocked, service: GameService, case: tuple[str, Any, int, str]
) -> None:
    path, body, status, words = case
    client, headers = game
    before = service.state()
    if isinstance(body, bytes):
        response = client.post(path, data=body, content_type="application/json", headers=headers)
    else:
        response = client.post(path, json=body, headers=headers)
    assert response.status_code == status, response.get_json()
    error = response.get_json()["error"]
    assert words in error and "\n" not in error
    assert service.state() == before


def test_a_body_that_is_not_json_is_a_415(game: Unlocked, service: GameService) -> None:
    client, headers = game
    before = service.version
    response = client.post("/api/game/trade", data="count=2", headers=headers)
    assert response.status_code == 415
    assert "application/json" in response.get_json()["error"]
    assert service.version == before


def test_an_oversized_body_is_a_413(game: Unlocked, service: GameService) -> None:
    client, headers = game
    before = service.state()
    huge = {"players": ["Ann", "Bob"], "padding": "x" * 100_000}
    response = client.post("/api/game/new", json=huge, headers=headers)
    assert response.status_code == 413
    assert "too large" in response.get_json()["error"]
    assert service.state() == before


def test_undo_with_no_game_is_a_409(unlocked: Unlocked) -> None:
    client, headers = unlocked
    response = client.post("/api/game/undo", json={}, headers=headers)
    assert response.status_code == 409
    assert "no game yet" in response.get_json()["error"]


def test_get_on_a_change_route_is_a_405(client: FlaskClient) -> None:
    response = client.get("/api/game/undo")
    assert response.status_code == 405
    assert "not allowed" in response.get_json()["error"]
