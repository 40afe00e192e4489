"""Every error as a clear one-line answer: JSON ``{"error": ...}`` for the API, a short page otherwise.

Bad input is a 4xx naming the field at fault; a game action the game does not allow (nothing to undo,
the game is over) is a 409 with the rules core's own sentence. Nothing in the game changes on an error.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from live.store import StoreError
from table.errors import GameError, IllegalPlacementError, QwirkleError

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A request the API refuses: ``status`` (4xx) and a message for a person."""

    def __init__(self, status: int, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def _wants_json() -> bool:
    return request.path.startswith(("/api/", "/events", "/camera"))


def _answer(status: int, message: str, headers: dict[str, str] | None = None) -> tuple[Response | str, int]:
    if _wants_json():
        response = jsonify(error=message)
        response.headers.update(headers or {})
        return response, status
    return render_template("error.html", status=status, message=message), status


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(err: ApiError) -> tuple[Response | str, int]:
        return _answer(err.status, err.message, err.headers)

    @app.errorhandler(IllegalPlacementError)
    def illegal(err: IllegalPlacementError) -> tuple[Response | str, int]:
        return _answer(409, str(err))

    @app.errorhandler(GameError)
    def game_error(err: GameError) -> tuple[Response | str, int]:
        return _answer(409, str(err))

    @app.errorhandler(StoreError)
    def store_error(err: StoreError) -> tuple[Response | str, int]:
        log.error("game store: %s", err)
        return _answer(503, str(err))

    @app.errorhandler(QwirkleError)
    def bad_input(err: QwirkleError) -> tuple[Response | str, int]:
        return _answer(400, str(err))

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> tuple[Response | str, int]:
        status = err.code or 500
        message = {
            404: f"{request.path}: no such page",
            405: f"{request.method} {request.path}: method not allowed",
            413: f"request body too large (at most {app.config['MAX_CONTENT_LENGTH']} bytes)",
        }.get(status, err.description or err.name)
        return _answer(status, message)

    @app.errorhandler(Exception)
    def unexpected(err: Exception) -> tuple[Response | str, int]:
        log.exception("unexpected error in %s %s", request.method, request.path)
        return _answer(500, f"internal error ({type(err).__name__}); the server log has the details")
