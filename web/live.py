"""Live state: ``GET /api/state`` and ``GET /events`` (Server-Sent Events).

``/api/state`` answers the whole game as JSON with an ``ETag`` of its version (a poll with a matching
``If-None-Match`` gets a bodiless 304), and with ``?since=V&wait=S`` it waits up to S seconds for a version
newer than V before answering (a long poll: the pages' fallback when event streams fail).

``/events`` sends one ``state`` event per change, ``id:`` being the version, so a browser's automatic
reconnect resumes with ``Last-Event-ID`` and gets the current state at once if it missed anything. Idle
streams get a comment line every ``SSE_KEEPALIVE`` seconds, which also reveals vanished clients. Each stream
holds a server thread, so their number is capped (``SSE_MAX_STREAMS``): past it the answer is 503 and the
page falls back to polling.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from web.context import Table, table
from web.errors import ApiError

bp = Blueprint("live", __name__)


def _number(name: str, text: str | None, *, default: float, low: float, high: float) -> float:
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise ApiError(400, f"{name}: expected a number, got {text[:20]!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name}: must be {low:g} to {high:g}, got {value:g}")
    return value


@bp.get("/api/state")
def state() -> ResponseReturnValue:
    shared = table()
    since = _number("since", request.args.get("since"), default=-1, low=-1, high=2**53)
    wait = _number(
        "wait", request.args.get("wait"), default=0, low=0, high=float(current_app.config["LONG_POLL_MAX"])
    )
    if wait > 0 and since >= shared.service.version:
        shared.service.wait_for_change(int(since), wait)
    version, text = shared.state_json()
    # The server's clock lets phones run the turn timer against ``turn_deadline`` without trusting theirs.
    headers = {"ETag": f'"v{version}"', "Cache-Control": "no-cache", "X-Server-Time": f"{time.time():.3f}"}
    if request.headers.get("If-None-Match") == headers["ETag"]:
        return Response(status=304, headers=headers)
    return Response(text, mimetype="application/json", headers=headers)


def _last_event_id() -> int:
    text = request.headers.get("Last-Event-ID") or request.args.get("since") or ""
    try:
        return int(text)
    except ValueError:
        return -1


def _stream(shared: Table, since: int, keepalive: float) -> Iterator[str]:
    yield "retry: 2000\n\n"
    seen, quiet_since = since, time.monotonic()
    while not shared.closing.is_set():
        if shared.service.version == seen:
            # Short waits, so that a stopping server ends its streams within a second.
            shared.service.wait_for_change(seen, min(keepalive, 1.0))
        version, text = shared.state_json()
        if version != seen:
            seen, quiet_since = version, time.monotonic()
            yield f"id: {version}\nevent: state\ndata: {text}\n\n"
        elif time.monotonic() - quiet_since >= keepalive:
            quiet_since = time.monotonic()
            yield ": keep-alive\n\n"


@bp.get("/events")
def events() -> ResponseReturnValue:
    shared = table()
    if not shared.streams.acquire(blocking=False):
        raise ApiError(
            503, "too many live streams open: poll /api/state instead", headers={"Retry-After": "5"}
        )
    response = Response(
        _stream(shared, _last_event_id(), float(current_app.config["SSE_KEEPALIVE"])),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(shared.streams.release)
    return response


@bp.get("/api/games")
def games() -> ResponseReturnValue:
    """Every stored game, newest first."""
    return jsonify(games=table().service.games())


@bp.get("/api/export")
def export() -> ResponseReturnValue:
    """One game as JSON (``?game=ID``; default the current one), as a download."""
    game_id = request.args.get("game")
    if game_id is not None and not game_id.isdigit():
        raise ApiError(400, f"game: expected a game number, got {game_id[:20]!r}")
    service = table().service
    if game_id is not None and int(game_id) not in {g["id"] for g in service.games()}:
        raise ApiError(404, f"game {game_id}: no such game")
    data = service.export(int(game_id) if game_id else None)
    response = jsonify(data)
    response.headers["Content-Disposition"] = f'attachment; filename="qwirkle-game-{data["id"]}.json"'
    return response
