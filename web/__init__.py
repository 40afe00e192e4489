"""The scoreboard web app (Flask): app factory, one blueprint per area.

``create_app(service, config)`` builds the app around one running game service (:mod:`live.service`);
nothing happens at import time and nothing lives in module globals, so tests build as many apps as they
like. The areas:

========== =============================================================================
pages      the HTML pages: scoreboard, board, history, dispute checker, set-up, join
live       ``/api/state`` (with ETag and long-poll) and ``/events`` (Server-Sent Events)
security   the table's PIN, the signed session, CSRF tokens, rate-limited PIN attempts
game       every change to the game (new game, corrections, undo/redo, trades, the end)
dispute    ``/api/check`` and ``/api/spots``: legal or not, and why, for any placement
camera     ``/camera.jpg`` and ``/camera.mjpeg``: what the camera sees, for a person to trust it
calibrate  the calibration wizard: ``/calibrate`` and ``/api/calibrate`` (learn, contact sheet, accept)
========== =============================================================================
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from typing import Any

from flask import Flask

from web import calibrate, camera, dispute, game, live, pages, security
from web.context import Table
from web.errors import register_error_handlers
from web.security import RateLimiter

DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 64 * 1024,  # every request body is small JSON; anything bigger is a 413
    "SESSION_COOKIE_NAME": "qwirkle",
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "PERMANENT_SESSION_LIFETIME": 12 * 3600,
    "PIN_ATTEMPTS_PER_CLIENT": 5,  # wrong PINs allowed per client address in PIN_WINDOW seconds
    "PIN_ATTEMPTS_TOTAL": 20,  # wrong PINs allowed from all clients together in PIN_WINDOW seconds
    "PIN_WINDOW": 60.0,
    "SSE_KEEPALIVE": 15.0,  # seconds between comment lines on an idle event stream
    "SSE_MAX_STREAMS": 48,  # concurrent event streams; more get a 503 and the page polls instead
    "LONG_POLL_MAX": 20.0,  # the longest ``/api/state?wait=`` a client may ask for
    "MJPEG_MAX_VIEWERS": 4,
    "MJPEG_FPS": 2.0,
    "PUBLIC_URL": None,  # the URL phones use (for the join page's QR code); None: the request's own
    "CALIBRATION_PATH": None,  # where an accepted calibration is saved; None: only kept while serving
}


def create_app(service: Any, config: Mapping[str, Any] | None = None) -> Flask:
    """The scoreboard app for one game service.

    Parameters
    ----------
    service : live.service.GameService
        The running game service (already started, or started by the caller); the app only calls it.
    config : mapping, optional
        Flask settings and ours (see ``DEFAULTS``); ``PIN`` (digits) and ``SECRET_KEY`` are drawn at
        random when absent, so every start of ``qwirkle serve`` has a fresh PIN unless one is given.
    """
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config["SECRET_KEY"] = secrets.token_bytes(32)
    app.config["PIN"] = f"{secrets.randbelow(10_000):04d}"
    if config:
        app.config.update(config)
    pin = str(app.config["PIN"])
    if not pin.isdigit() or not 4 <= len(pin) <= 8:
        raise ValueError(f"PIN {pin!r}: must be 4 to 8 digits")

    app.extensions["qwirkle"] = Table(
        service=service,
        pin=pin,
        limiter=RateLimiter(
            per_client=int(app.config["PIN_ATTEMPTS_PER_CLIENT"]),
            total=int(app.config["PIN_ATTEMPTS_TOTAL"]),
            window=float(app.config["PIN_WINDOW"]),
        ),
        closing=threading.Event(),
        streams=threading.BoundedSemaphore(int(app.config["SSE_MAX_STREAMS"])),
        viewers=threading.BoundedSemaphore(int(app.config["MJPEG_MAX_VIEWERS"])),
    )

    for blueprint in (pages.bp, live.bp, security.bp, game.bp, dispute.bp, camera.bp, calibrate.bp):
        app.register_blueprint(blueprint)
    register_error_handlers(app)
    return app
