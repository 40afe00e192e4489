"""The calibration wizard: teach the reader this table, light and tile set from the phone.

``GET /calibrate`` is the page. ``POST /api/calibrate`` (PIN) learns from the camera's latest frame of
known tiles (``{"known": "start" | "arrangement" | "board"}``: a printed board's start position, the 36
tiles in the stated 6×6 order, or the confirmed board as it is now) and answers the report (found, read
right, per-class margins, warnings) with an ``id``; ``GET /api/calibrate/sheet.jpg`` is that attempt's
contact sheet; ``POST /api/calibrate/accept`` (PIN, ``{"id": n}``) puts it in use on the game service and
saves it to ``CALIBRATION_PATH`` when one is configured. Retaking is posting again. Until accepted,
nothing changes: an attempt lives only in the app (``app.extensions["qwirkle-calibration"]``).
A calibration keeps the lens and plane of the one in use and the values the camera is locked to.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import cv2
from flask import Blueprint, Response, current_app, jsonify, render_template
from flask.blueprints import BlueprintSetupState
from flask.typing import ResponseReturnValue

from table import Board, Layout, connect_layout, tileset
from table.codec import board_from_json, layout_from_json
from web.context import service
from web.errors import ApiError
from web.parse import json_body
from web.security import pin_required

bp = Blueprint("calibrate", __name__)

KNOWN = ("start", "arrangement", "board")
EXTENSION = "qwirkle-calibration"


@dataclass
class Attempt:
    """The latest calibration attempt awaiting a person's verdict (one per app)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    running: threading.Lock = field(default_factory=threading.Lock)  # one calibration at a time
    number: int = 0
    calibration: Any = None
    sheet: bytes | None = None


@bp.record_once
def _attach(state: BlueprintSetupState) -> None:
    state.app.extensions[EXTENSION] = Attempt()


def _attempt() -> Attempt:
    found: Attempt = current_app.extensions[EXTENSION]
    return found


@bp.get("/calibrate")
def page() -> ResponseReturnValue:
    return render_template("calibrate.html", page="calibrate")


def _known(kind: str, state: dict[str, Any]) -> tuple[Board, Layout | None]:
    """The tiles the photo shows, and the printed board they are on (None: a free table)."""
    tiles = tileset(state["variant"])
    layout = layout_from_json(state["layout"], where="layout") if state["layout"] else None
    if kind == "arrangement":
        from calibration import arrangement

        return arrangement(tiles), None
    if kind == "start":
        if layout is None and state["variant"] == "connect":
            layout = connect_layout()
        if layout is None or len(layout.start_tiles) == 0:
            raise ApiError(409, f"known: a {state['variant']} game has no printed start position")
        return layout.start_tiles, layout
    board = board_from_json(state["board"], where="board", tileset=tiles)
    if len(board) == 0:
        raise ApiError(409, "known: the board has no confirmed tiles yet")
    return board, layout


@bp.post("/api/calibrate")
@pin_required
def calibrate() -> ResponseReturnValue:
    from calibration import Calibration, CalibrationFailed, calibrate_from_photo
    from calibration.camera import camera_lock

    kind = json_body().text("known", max_length=20)
    if kind not in KNOWN:
        raise ApiError(400, f"known: expected start, arrangement or board, got {kind!r}")
    svc = service()
    frame = svc.latest_frame()
    if frame is None:
        raise ApiError(409, "no camera picture yet (no camera, or no frame so far): nothing to learn from")
    state = svc.state()
    known, layout = _known(kind, state)
    attempt = _attempt()
    if not attempt.running.acquire(blocking=False):
        raise ApiError(409, "a calibration is already running: wait for it")
    try:
        cal, report = calibrate_from_photo(
            frame,
            known,
            tileset=tileset(state["variant"]),
            layout=layout,
            base=svc.calibration if isinstance(svc.calibration, Calibration) else None,  # lens, plane
            photo="camera",
            how=_how(kind),
            camera=camera_lock(svc.source),  # what a Pi camera is locked to, for its next start
        )
    except CalibrationFailed as err:
        raise ApiError(422, f"calibration failed: {err}") from None
    finally:
        attempt.running.release()
    ok, jpeg = cv2.imencode(".jpg", report.contact_sheet, [cv2.IMWRITE_JPEG_QUALITY, 88])
    with attempt.lock:
        attempt.number += 1
        attempt.calibration, attempt.sheet = cal, jpeg.tobytes() if ok else None
        number = attempt.number
    return jsonify(id=number, known=kind, variant=state["variant"], report=report.to_json())


def _how(kind: str) -> str:
    """The file's ``source.known`` for a wizard choice."""
    return {"start": "layout", "arrangement": "arrangement", "board": "board"}[kind]


@bp.get("/api/calibrate/sheet.jpg")
def sheet() -> ResponseReturnValue:
    attempt = _attempt()
    with attempt.lock:
        jpeg = attempt.sheet
    if jpeg is None:
        raise ApiError(404, "no calibration attempt to show: take the photo first")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/api/calibrate/accept")
@pin_required
def accept() -> ResponseReturnValue:
    from calibration import save

    number = json_body().integer("id", low=1, high=2**31)
    attempt = _attempt()
    with attempt.lock:
        if attempt.calibration is None:
            raise ApiError(409, "nothing to accept: take the photo first")
        if number != attempt.number:
            raise ApiError(409, f"id: attempt {number} was replaced by attempt {attempt.number}; look again")
        cal = dataclasses.replace(
            attempt.calibration, created=datetime.now(UTC).isoformat(timespec="seconds")
        )
        svc = service()
        before = svc.calibration
        state = svc.set_calibration(cal)  # refuses (409) a calibration of another edition than the game's
        path = current_app.config.get("CALIBRATION_PATH")
        if path:
            try:
                save(cal, path)
            except OSError as err:
                svc.set_calibration(before)
                raise ApiError(503, f"{path}: cannot save the calibration ({err.strerror or err})") from None
        attempt.calibration, attempt.sheet = None, None
    return jsonify(version=state["version"], saved=str(path) if path else None)
