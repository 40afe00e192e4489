"""The calibration wizard's routes: learn from the camera's latest frame, show the contact sheet, accept.

Every refused request answers a clear 4xx and changes nothing: no new version, no calibration in use,
no file written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from calibration import arrangement, load
from live.service import GameService
from table import connect_layout, tileset
from vision.frames import Frame, FrameSource
from vision.pi_camera import CameraSettings
from vision.render import Conditions, Scene, render
from web import create_app

from .conftest import PIN, csrf, unlock

CLASSIC = tileset("classic")


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """A rendered photo of the 36-tile arrangement, as the camera would give it."""
    conditions = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    return render(Scene(arrangement(CLASSIC), "classic", conditions, size=(768, 1024), table_seed=11)).image


@pytest.fixture
def seen(tmp_path: Path, photo: np.ndarray) -> Iterator[GameService]:
    """A service whose camera has given one frame of the arrangement, with a classic game."""
    svc = GameService(str(tmp_path / "games.sqlite3"))
    svc.new_game(["Ann", "Bob"], variant="classic")
    svc.feed(Frame(photo, 0, 0.0))
    yield svc
    svc.close()


def _client(svc: GameService, **config: object) -> tuple[FlaskClient, dict[str, str]]:
    app: Flask = create_app(svc, {"PIN": PIN, "TESTING": True, **config})
    client = app.test_client()
    return client, {"X-CSRF-Token": unlock(client)}


def test_the_page_and_the_set_up_link(client: FlaskClient) -> None:
    page = client.get("/calibrate")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "calibrate.js" in text and 'value="arrangement"' in text and 'value="start"' in text
    assert 'href="/calibrate"' in client.get("/setup").get_data(as_text=True)


def test_changes_need_the_pin_and_the_csrf_token(seen: GameService) -> None:
    client = create_app(seen, {"PIN": PIN, "TESTING": True}).test_client()
    assert client.post("/api/calibrate", json={"known": "arrangement"}).status_code == 403
    locked = client.post(
        "/api/calibrate", json={"known": "arrangement"}, headers={"X-CSRF-Token": csrf(client)}
    )
    assert locked.status_code == 401
    assert client.post("/api/calibrate/accept", json={"id": 1}).status_code == 403


def test_no_frame_yet_is_a_clear_409(
    unlocked: tuple[FlaskClient, dict[str, str]], service: GameService
) -> None:
    client, headers = unlocked
    before = service.version
    response = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers)
    assert response.status_code == 409
    assert "no camera picture yet" in response.get_json()["error"]
    assert service.version == before
    assert client.get("/api/calibrate/sheet.jpg").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"known": "everything"}, 400, "known: expected start, arrangement or board"),
        ({}, 400, "known"),
        ({"known": 7}, 400, "known"),
        ({"known": "board"}, 409, "the board has no confirmed tiles yet"),
        ({"known": "start"}, 409, "a classic game has no printed start position"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    seen: GameService, body: dict[str, object], status: int, message: str
) -> None:
    client, headers = _client(seen)
    before = seen.version
    response = client.post("/api/calibrate", json=body, headers=headers)
    assert response.status_code == status
    assert message in response.get_json()["error"]
    assert seen.version == before and seen.calibration is None
    garbage = client.post(
        "/api/calibrate", data=b"{not json", headers={**headers, "Content-Type": "application/json"}
    )
    assert garbage.status_code == 400


def test_learn_look_and_accept(seen: GameService, tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    client, headers = _client(seen, CALIBRATION_PATH=str(path))
    before = seen.version
    response = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers)
    assert response.status_code == 200, response.get_json()
    out = response.get_json()
    report = out["report"]
    assert out["id"] == 1 and out["variant"] == "classic"
    assert report["known"] == 36 and report["found"] == 36 and report["read_right"] == 36
    assert set(report["colour_margins"]) == set(CLASSIC.colours)
    assert set(report["shape_margins"]) == set(CLASSIC.shapes)
    assert isinstance(report["warnings"], list)
    sheet = client.get("/api/calibrate/sheet.jpg")
    assert sheet.status_code == 200 and sheet.mimetype == "image/jpeg" and sheet.data[:2] == b"\xff\xd8"
    # Looking changes nothing: no version, no calibration in use, no file.
    assert seen.version == before and seen.calibration is None and not path.exists()

    stale = client.post("/api/calibrate/accept", json={"id": 2}, headers=headers)
    assert stale.status_code == 409 and "replaced" in stale.get_json()["error"]
    assert client.post("/api/calibrate/accept", json={"id": "one"}, headers=headers).status_code == 400
    assert seen.calibration is None and not path.exists()

    accepted = client.post("/api/calibrate/accept", json={"id": 1}, headers=headers)
    assert accepted.status_code == 200, accepted.get_json()
    assert accepted.get_json() == {"version": seen.version, "saved": str(path)}
    assert seen.version > before
    state = client.get("/api/state").get_json()
    assert state["calibration"]["learned_from"] == "arrangement" and state["calibration"]["when"]
    saved = load(path)
    assert saved.tileset == "classic" and saved.source["known"] == "arrangement"
    assert seen.calibration is not None and saved.created == seen.calibration.created
    # The attempt is used up.
    assert client.get("/api/calibrate/sheet.jpg").status_code == 404
    again = client.post("/api/calibrate/accept", json={"id": 1}, headers=headers)
    assert again.status_code == 409 and "take the photo first" in again.get_json()["error"]


def test_accept_without_a_path_keeps_it_in_use_only(seen: GameService) -> None:
    client, headers = _client(seen)
    out = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers).get_json()
    accepted = client.post("/api/calibrate/accept", json={"id": out["id"]}, headers=headers)
    assert accepted.status_code == 200 and accepted.get_json()["saved"] is None
    assert seen.state()["calibration"]["learned_from"] == "arrangement"


def test_a_file_that_cannot_be_written_changes_nothing(seen: GameService, tmp_path: Path) -> None:
    path = tmp_path / "missing" / "cal.json"
    client, headers = _client(seen, CALIBRATION_PATH=str(path))
    out = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers).get_json()
    refused = client.post("/api/calibrate/accept", json={"id": out["id"]}, headers=headers)
    assert refused.status_code == 503 and "cannot save the calibration" in refused.get_json()["error"]
    assert seen.calibration is None and seen.state()["calibration"] is None and not path.exists()


def test_a_calibration_for_another_edition_is_not_accepted(seen: GameService, tmp_path: Path) -> None:
    path = tmp_path / "cal.json"
    client, headers = _client(seen, CALIBRATION_PATH=str(path))
    out = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers).get_json()
    seen.new_game(["Ann", "Bob"], variant="connect")
    before = seen.version
    refused = client.post("/api/calibrate/accept", json={"id": out["id"]}, headers=headers)
    assert (
        refused.status_code == 409 and "made for classic, the game is connect" in refused.get_json()["error"]
    )
    assert seen.version == before and seen.calibration is None and not path.exists()


def test_a_printed_boards_start_position(tmp_path: Path) -> None:
    layout = connect_layout()
    conditions = Conditions(px_per_tile=44.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    image = render(Scene(layout.start_tiles, "connect", conditions, size=(768, 1024), table_seed=11)).image
    svc = GameService(str(tmp_path / "games.sqlite3"))
    try:
        svc.new_game(["Ann", "Bob"], variant="connect")
        svc.feed(Frame(image, 0, 0.0))
        client, headers = _client(svc)
        response = client.post("/api/calibrate", json={"known": "start"}, headers=headers)
        assert response.status_code == 200, response.get_json()
        out = response.get_json()
        assert out["variant"] == "connect" and out["report"]["found"] == len(layout.start_tiles) == 24
        assert out["report"]["read_right"] == 24
        accepted = client.post("/api/calibrate/accept", json={"id": out["id"]}, headers=headers)
        assert accepted.status_code == 200
        assert svc.state()["calibration"]["learned_from"] == "layout"
        assert svc.calibration is not None and svc.calibration.geometry.play_area is not None
    finally:
        svc.close()


class LockedCamera(FrameSource):
    """A camera that, like the Pi camera once open, reports the values it locked (the test feeds frames)."""

    name = "locked"
    settings = CameraSettings(15000, 2.0, (1.8, 1.5), lens_position=1.2)

    def open(self) -> None: ...

    def read(self) -> Frame:
        raise AssertionError("the test feeds frames itself")

    def close(self) -> None: ...


def test_the_cameras_locked_values_are_kept_with_the_calibration(tmp_path: Path, photo: np.ndarray) -> None:
    svc = GameService(str(tmp_path / "games.sqlite3"), source=LockedCamera())
    try:
        svc.new_game(["Ann", "Bob"], variant="classic")
        svc.feed(Frame(photo, 0, 0.0))
        client, headers = _client(svc, CALIBRATION_PATH=str(tmp_path / "cal.json"))
        out = client.post("/api/calibrate", json={"known": "arrangement"}, headers=headers).get_json()
        accepted = client.post("/api/calibrate/accept", json={"id": out["id"]}, headers=headers)
        assert accepted.status_code == 200
        assert load(tmp_path / "cal.json").camera == LockedCamera.settings
    finally:
        svc.close()
