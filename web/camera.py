"""What the camera sees, with the grid it recognised drawn over it, so a person can trust the reading.

``GET /camera.jpg`` is the latest annotated frame (404 before the first one); ``GET /camera.mjpeg`` is
the same as a Motion-JPEG stream at ``MJPEG_FPS`` for a tablet or a TV. Snapshots are encoded at most
``MJPEG_FPS`` times a second whoever asks, and each MJPEG viewer holds a server thread, so their number
is capped (``MJPEG_MAX_VIEWERS``; past it, 503).
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, current_app
from flask.typing import ResponseReturnValue

from web.context import Table, table
from web.errors import ApiError

bp = Blueprint("camera", __name__)

BOUNDARY = "qwirkleframe"


@bp.get("/camera.jpg")
def snapshot() -> ResponseReturnValue:
    jpeg = table().snapshot_jpeg(1.0 / float(current_app.config["MJPEG_FPS"]))
    if jpeg is None:
        raise ApiError(404, "no camera picture yet (no camera, or no frame so far)")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def _frames(shared: Table, period: float) -> Iterator[bytes]:
    sent = None
    while not shared.closing.is_set():
        jpeg = shared.snapshot_jpeg(period)
        if jpeg is not None and jpeg is not sent:
            sent = jpeg
            yield (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n".encode()
                + jpeg
                + b"\r\n"
            )
        shared.closing.wait(period)


@bp.get("/camera.mjpeg")
def stream() -> ResponseReturnValue:
    shared = table()
    if not shared.viewers.acquire(blocking=False):
        raise ApiError(503, "too many camera viewers: use /camera.jpg", headers={"Retry-After": "10"})
    response = Response(
        _frames(shared, 1.0 / float(current_app.config["MJPEG_FPS"])),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store"},
    )
    response.call_on_close(shared.viewers.release)
    return response
