"""``/api/state`` (ETag, long poll), ``/events`` (Server-Sent Events), games and export."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import cast

import pytest
from flask import Flask
from flask.testing import FlaskClient

from live.service import GameService
from web import create_app

from .conftest import PIN


def events(chunks: Iterator[bytes]) -> Iterator[dict[str, str]]:
    """Parse an SSE byte stream into events (dicts of field -> value; comments as {"comment": ...})."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode()
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            event: dict[str, str] = {}
            for line in block.split("\n"):
                name, _, value = line.partition(":")
                event[name or "comment"] = value.strip()
            yield event


def test_state_is_the_whole_game_with_a_version(client: FlaskClient, service: GameService) -> None:
    service.new_game(["Ann", "Bob"])
    response = client.get("/api/state")
    assert response.status_code == 200
    state = response.get_json()
    assert state["version"] == service.version
    assert {"players", "scores", "to_move", "board", "turns", "bag", "follow"} <= set(state)
    assert response.headers["ETag"] == f'"v{state["version"]}"'
    assert float(response.headers["X-Server-Time"]) == pytest.approx(time.time(), abs=5)


def test_a_poll_with_the_current_etag_is_a_bodiless_304(client: FlaskClient, service: GameService) -> None:
    etag = client.get("/api/state").headers["ETag"]
    response = client.get("/api/state", headers={"If-None-Match": etag})
    assert response.status_code == 304 and response.data == b""
    service.new_game(["Ann", "Bob"])
    assert client.get("/api/state", headers={"If-None-Match": etag}).status_code == 200


def test_a_long_poll_answers_as_soon_as_the_state_changes(client: FlaskClient, service: GameService) -> None:
    since = service.version
    timer = threading.Timer(0.3, lambda: service.new_game(["Ann", "Bob"]))
    timer.start()
    started = time.monotonic()
    state = client.get(f"/api/state?since={since}&wait=10").get_json()
    elapsed = time.monotonic() - started
    timer.join()
    assert state["version"] > since and state["players"]
    assert 0.2 < elapsed < 5


def test_a_long_poll_for_an_old_version_answers_at_once(client: FlaskClient, service: GameService) -> None:
    service.new_game(["Ann", "Bob"])
    started = time.monotonic()
    assert client.get("/api/state?since=0&wait=10").get_json()["version"] == service.version
    assert time.monotonic() - started < 2


@pytest.mark.parametrize(
    ("query", "words"),
    [("since=abc", "since: expected a number"), ("wait=500", "wait: must be 0 to 20"), ("wait=-1", "wait")],
)
def test_bad_poll_parameters_are_a_400(client: FlaskClient, query: str, words: str) -> None:
    response = client.get(f"/api/state?{query}")
    assert response.status_code == 400
    assert words in response.get_json()["error"]


def test_the_event_stream_sends_the_state_then_every_change(
    client: FlaskClient, service: GameService
) -> None:
    response = client.get("/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    stream = events(iter(cast(Iterator[bytes], response.response)))
    assert next(stream) == {"retry": "2000"}
    first = next(stream)
    assert first["event"] == "state" and int(first["id"]) == service.version
    service.new_game(["Ann", "Bob"])
    second = next(e for e in stream if "event" in e)
    assert int(second["id"]) == service.version
    assert json.loads(second["data"])["players"][0]["name"] == "Ann"
    response.close()


def test_a_reconnect_with_the_last_event_id_gets_only_newer_states(
    client: FlaskClient, service: GameService
) -> None:
    service.new_game(["Ann", "Bob"])
    response = client.get("/events", buffered=False, headers={"Last-Event-ID": str(service.version)})
    stream = events(iter(cast(Iterator[bytes], response.response)))
    assert next(stream) == {"retry": "2000"}
    assert next(stream) == {"comment": "keep-alive"}  # nothing new: the keep-alive comes first
    service.adjust("Bob", 3)
    update = next(e for e in stream if "event" in e)
    assert json.loads(update["data"])["scores"]["Bob"] == 3
    response.close()


def test_too_many_streams_get_a_503_and_closing_frees_a_place(service: GameService) -> None:
    app = create_app(service, {"PIN": PIN, "SSE_MAX_STREAMS": 2, "SSE_KEEPALIVE": 0.2})
    client = app.test_client()
    open_streams = [client.get("/events", buffered=False) for _ in range(2)]
    refused = client.get("/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "poll /api/state" in refused.get_json()["error"]
    open_streams[0].close()
    again = client.get("/events", buffered=False)
    assert again.status_code == 200
    for response in (again, open_streams[1]):
        response.close()


def test_streams_end_when_the_server_closes(app: Flask, client: FlaskClient) -> None:
    response = client.get("/events", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    app.extensions["qwirkle"].closing.set()
    started = time.monotonic()
    rest = list(chunks)
    assert time.monotonic() - started < 3
    assert len(rest) <= 2
    response.close()


def test_games_and_export(client: FlaskClient, service: GameService) -> None:
    service.new_game(["Ann", "Bob"])
    games = client.get("/api/games").get_json()["games"]
    assert [g["id"] for g in games] == [1]
    response = client.get("/api/export")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.get_json()["game"]["players"] == ["Ann", "Bob"]
    assert client.get("/api/export?game=1").status_code == 200


@pytest.mark.parametrize(("query", "status"), [("game=7", 404), ("game=x", 400)])
def test_export_of_an_unknown_game(
    client: FlaskClient, service: GameService, query: str, status: int
) -> None:
    service.new_game(["Ann", "Bob"])
    response = client.get(f"/api/export?{query}")
    assert response.status_code == status
    assert "game" in response.get_json()["error"]


def test_export_without_any_game_is_a_409(client: FlaskClient) -> None:
    response = client.get("/api/export")
    assert response.status_code == 409
    assert "no game yet" in response.get_json()["error"]
