"""Fixtures for the web tests: a real game service without a camera, and the app around it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from live.service import GameService
from web import create_app

PIN = "4321"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GameService]:
    svc = GameService(str(tmp_path / "games.sqlite3"))
    svc.start()
    yield svc
    svc.close()


@pytest.fixture
def app(service: GameService) -> Flask:
    return create_app(service, {"PIN": PIN, "TESTING": True, "SSE_KEEPALIVE": 0.2})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf(client: FlaskClient) -> str:
    token: str = client.get("/api/session").get_json()["csrf"]
    return token


def unlock(client: FlaskClient, pin: str = PIN) -> str:
    """Unlock the client's session with ``pin``; return its CSRF token."""
    token = csrf(client)
    response = client.post("/api/unlock", json={"pin": pin}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200, response.get_json()
    return token


@pytest.fixture
def unlocked(client: FlaskClient) -> tuple[FlaskClient, dict[str, str]]:
    """A client whose session knows the PIN, and the headers its changes carry."""
    return client, {"X-CSRF-Token": unlock(client)}


def post(client: FlaskClient, path: str, body: Any, headers: dict[str, str]) -> Any:
    return client.post(path, json=body, headers=headers)
