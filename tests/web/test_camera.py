"""The camera's view for people: a snapshot and an MJPEG stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import numpy as np
from flask.testing import FlaskClient

from live.service import GameService
from vision.frames import Frame
from web import create_app

from .conftest import PIN


def frame() -> Frame:
    image = np.zeros((120, 160, 3), np.uint8)
    image[40:80, 60:100] = (40, 200, 40)
    return Frame(image, 0, 0.0)


def test_no_picture_before_the_first_frame_is_a_404(client: FlaskClient) -> None:
    response = client.get("/camera.jpg")
    assert response.status_code == 404
    assert "no camera picture" in response.get_json()["error"]


def test_the_snapshot_is_a_jpeg(service: GameService) -> None:
    service.feed(frame())
    client = create_app(service, {"PIN": PIN}).test_client()
    response = client.get("/camera.jpg")
    assert response.status_code == 200 and response.mimetype == "image/jpeg"
    assert response.data[:2] == b"\xff\xd8"
    assert response.headers["Cache-Control"] == "no-store"


def test_the_mjpeg_stream_sends_frames_and_caps_viewers(service: GameService) -> None:
    service.feed(frame())
    client = create_app(service, {"PIN": PIN, "MJPEG_MAX_VIEWERS": 1, "MJPEG_FPS": 20}).test_client()
    response = client.get("/camera.mjpeg", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "multipart/x-mixed-replace"
    part = next(iter(cast(Iterator[bytes], response.response)))
    assert part.startswith(b"--qwirkleframe\r\nContent-Type: image/jpeg\r\n")
    assert b"\xff\xd8" in part
    refused = client.get("/camera.mjpeg")
    assert refused.status_code == 503
    response.close()
    again = client.get("/camera.mjpeg", buffered=False)
    assert again.status_code == 200
    again.close()
