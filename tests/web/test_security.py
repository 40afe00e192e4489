"""The PIN, the signed session, CSRF tokens and rate-limited PIN attempts."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from live.service import GameService
from web import create_app
from web.security import RateLimiter

from .conftest import PIN, csrf, unlock


def test_viewing_needs_no_pin(client: FlaskClient) -> None:
    assert client.get("/api/state").status_code == 200
    session = client.get("/api/session").get_json()
    assert session["unlocked"] is False and len(session["csrf"]) >= 20


def test_a_change_without_the_pin_is_refused_and_changes_nothing(
    client: FlaskClient, service: GameService
) -> None:
    before = service.version
    response = client.post(
        "/api/game/new", json={"players": ["Ann", "Bob"]}, headers={"X-CSRF-Token": csrf(client)}
    )
    assert response.status_code == 401
    assert "PIN" in response.get_json()["error"]
    assert service.version == before and service.state()["players"] == []


def test_a_change_without_the_csrf_token_is_refused_even_when_unlocked(
    client: FlaskClient, service: GameService
) -> None:
    unlock(client)
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        response = client.post("/api/game/new", json={"players": ["Ann", "Bob"]}, headers=headers)
        assert response.status_code == 403
        assert "CSRF" in response.get_json()["error"]
    assert service.state()["players"] == []


def test_the_right_pin_unlocks_the_session_for_later_changes(
    client: FlaskClient, service: GameService
) -> None:
    token = unlock(client)
    assert client.get("/api/session").get_json()["unlocked"] is True
    response = client.post("/api/game/new", json={"players": ["Ann", "Bob"]}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200
    assert [p["name"] for p in service.state()["players"]] == ["Ann", "Bob"]


def test_the_session_is_a_signed_cookie_that_cannot_be_forged(app: Flask) -> None:
    client = app.test_client()
    unlock(client)
    cookie = client.get_cookie("qwirkle")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"
    other = app.test_client()
    value = cookie.value
    tampered = value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB")
    other.set_cookie("qwirkle", tampered)
    assert other.get("/api/session").get_json()["unlocked"] is False


def test_unlocking_needs_the_csrf_token_too(client: FlaskClient) -> None:
    client.get("/api/session")
    response = client.post("/api/unlock", json={"pin": PIN})
    assert response.status_code == 403
    assert client.get("/api/session").get_json()["unlocked"] is False


def test_a_wrong_pin_is_refused_and_says_how_many_tries_are_left(client: FlaskClient) -> None:
    token = csrf(client)
    response = client.post("/api/unlock", json={"pin": "0000"}, headers={"X-CSRF-Token": token})
    assert response.status_code == 403
    assert "wrong PIN (4 more tries" in response.get_json()["error"]
    assert client.get("/api/session").get_json()["unlocked"] is False


def test_pin_attempts_are_rate_limited_per_client(client: FlaskClient) -> None:
    token = csrf(client)
    codes = [
        client.post("/api/unlock", json={"pin": "0000"}, headers={"X-CSRF-Token": token}).status_code
        for _ in range(5)
    ]
    assert codes == [403] * 5
    # Locked out: even the right PIN is not compared now.
    response = client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert client.get("/api/session").get_json()["unlocked"] is False


def test_pin_attempts_are_limited_in_total_across_clients(service: GameService) -> None:
    app = create_app(service, {"PIN": PIN, "PIN_ATTEMPTS_PER_CLIENT": 100, "PIN_ATTEMPTS_TOTAL": 3})
    for i in range(3):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"10.0.0.{i + 1}"
        response = client.post("/api/unlock", json={"pin": "9999"}, headers={"X-CSRF-Token": csrf(client)})
        assert response.status_code == 403
    fresh = app.test_client()
    fresh.environ_base["REMOTE_ADDR"] = "10.0.0.99"
    response = fresh.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": csrf(fresh)})
    assert response.status_code == 429


@pytest.mark.parametrize("body", [{}, {"pin": 1234}, {"pin": ""}, {"pin": "1" * 50}, [PIN]])
def test_a_malformed_unlock_is_a_400(client: FlaskClient, body: object) -> None:
    response = client.post("/api/unlock", json=body, headers={"X-CSRF-Token": csrf(client)})
    assert response.status_code == 400
    assert response.get_json()["error"]


def test_locking_forgets_the_pin(client: FlaskClient) -> None:
    token = unlock(client)
    assert client.post("/api/lock", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    assert client.get("/api/session").get_json()["unlocked"] is False


def test_a_new_pin_locks_every_session(service: GameService) -> None:
    config = {"PIN": PIN, "SECRET_KEY": b"k" * 32}
    old = create_app(service, config).test_client()
    unlock(old)
    cookie = old.get_cookie("qwirkle")
    assert cookie is not None
    renewed = create_app(service, {**config, "PIN": "8765"}).test_client()
    renewed.set_cookie("qwirkle", cookie.value)
    assert renewed.get("/api/session").get_json()["unlocked"] is False


@pytest.mark.parametrize("pin", ["12", "abcd", "123456789"])
def test_a_bad_configured_pin_is_refused(service: GameService, pin: str) -> None:
    with pytest.raises(ValueError, match="PIN"):
        create_app(service, {"PIN": pin})


def test_a_random_pin_is_four_digits(service: GameService) -> None:
    pin = create_app(service).extensions["qwirkle"].pin
    assert len(pin) == 4 and pin.isdigit()


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_rate_limiter_window_slides() -> None:
    clock = FakeClock()
    limiter = RateLimiter(per_client=2, total=10, window=60, clock=clock)
    assert limiter.retry_after("a") == 0
    assert limiter.failed("a") == 1
    clock.now += 10
    assert limiter.failed("a") == 0
    assert limiter.retry_after("a") == pytest.approx(50)
    assert limiter.retry_after("b") == 0
    clock.now += 50.5
    assert limiter.retry_after("a") == pytest.approx(0)
    limiter.succeeded("a")
    assert limiter.retry_after("a") == 0


def test_the_rate_limiter_forgets_stale_clients() -> None:
    clock = FakeClock()
    limiter = RateLimiter(per_client=3, total=10**6, window=1, clock=clock)
    for i in range(3000):
        limiter.failed(f"10.{i}")
        clock.now += 0.01
    assert len(limiter._clients) < 1200


def test_the_rate_limiter_refuses_silly_limits() -> None:
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(per_client=0, total=1, window=1)
