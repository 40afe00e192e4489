"""Open to view, PIN to change: the table's PIN, the signed session, CSRF tokens, rate-limited attempts.

Anyone on the network may watch. A change (a correction, undo, a new game) needs the table's short PIN,
shown on the device's own console and on its own join page. A correct PIN marks the session as unlocked;
the session lives in Flask's signed cookie (``HttpOnly``, ``SameSite=Strict``) and holds a keyed digest of
the PIN, so a new PIN locks every phone again. Every state-changing request must also carry the session's
CSRF token in an ``X-CSRF-Token`` header (the pages read it from a ``<meta>`` tag): a foreign page cannot
set that header without a CORS preflight, which this app never grants. Wrong PINs are counted per client
address and in total over a sliding window; past either limit the answer is 429 until the window clears,
and the PIN is not even compared.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import Blueprint, current_app, jsonify, request, session
from flask.typing import ResponseReturnValue

from web.context import table
from web.errors import ApiError
from web.parse import json_body

bp = Blueprint("security", __name__)

F = TypeVar("F", bound=Callable[..., Any])


class RateLimiter:
    """Counts failures per client and in total over a sliding window of ``window`` seconds.

    Thread-safe; memory stays bounded because stale clients are dropped whenever the table grows.
    """

    def __init__(
        self, *, per_client: int, total: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if per_client < 1 or total < 1 or window <= 0:
            raise ValueError(f"RateLimiter: limits must be positive, got {per_client}, {total}, {window}")
        self.per_client = per_client
        self.total = total
        self.window = window
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def _prune(self, times: deque[float], now: float) -> None:
        while times and times[0] <= now - self.window:
            times.popleft()

    def retry_after(self, client: str) -> float:
        """Seconds until ``client`` may try again; 0 if it may try now."""
        with self._lock:
            now = self._clock()
            self._prune(self._all, now)
            times = self._clients.get(client, deque())
            self._prune(times, now)
            waits = []
            if len(times) >= self.per_client:
                waits.append(times[0] + self.window - now)
            if len(self._all) >= self.total:
                waits.append(self._all[0] + self.window - now)
            return max(waits, default=0.0)

    def failed(self, client: str) -> int:
        """Record a failure; return how many more ``client`` may make in the current window."""
        with self._lock:
            now = self._clock()
            if len(self._clients) > 1024:
                for key in [k for k, v in self._clients.items() if not v or v[-1] <= now - self.window]:
                    del self._clients[key]
            times = self._clients.setdefault(client, deque())
            self._prune(times, now)
            times.append(now)
            self._all.append(now)
            return max(0, self.per_client - len(times))

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


def _pin_tag(pin: str) -> str:
    key = current_app.config["SECRET_KEY"]
    key = key if isinstance(key, bytes) else str(key).encode()
    return hmac.new(key, b"pin:" + pin.encode(), hashlib.sha256).hexdigest()[:32]


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def is_unlocked() -> bool:
    tag = session.get("pin")
    return isinstance(tag, str) and hmac.compare_digest(tag, _pin_tag(table().pin))


def check_csrf() -> None:
    sent = request.headers.get("X-CSRF-Token", "")
    token = session.get("csrf")
    if not isinstance(token, str) or not hmac.compare_digest(sent, token):
        raise ApiError(403, "missing or stale CSRF token: reload the page and try again")


def pin_required(view: F) -> F:
    """For views that change the game: a valid CSRF token and an unlocked session, else 403/401."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_csrf()
        if not is_unlocked():
            raise ApiError(401, "this change needs the table's PIN: unlock first")
        return view(*args, **kwargs)

    return guarded  # type: ignore[return-value]


def is_local_request() -> bool:
    """Whether the request comes from the device itself (its own screen may show the PIN)."""
    return request.remote_addr in {"127.0.0.1", "::1"}


@bp.app_context_processor
def security_globals() -> dict[str, Any]:
    return {"csrf_token": csrf_token, "unlocked": is_unlocked}


@bp.get("/api/session")
def session_state() -> ResponseReturnValue:
    return jsonify(unlocked=is_unlocked(), csrf=csrf_token())


@bp.post("/api/unlock")
def unlock() -> ResponseReturnValue:
    check_csrf()
    limiter = table().limiter
    client = request.remote_addr or "unknown"
    wait = limiter.retry_after(client)
    if wait > 0:
        raise ApiError(
            429,
            f"too many wrong PINs: try again in {int(wait) + 1} s",
            headers={"Retry-After": str(int(wait) + 1)},
        )
    pin = json_body().text("pin", max_length=16)
    if not hmac.compare_digest(pin.strip().encode(), table().pin.encode()):
        left = limiter.failed(client)
        raise ApiError(403, f"wrong PIN ({left} more tries before a pause)")
    limiter.succeeded(client)
    session.permanent = True
    session["pin"] = _pin_tag(table().pin)
    return jsonify(unlocked=True)


@bp.post("/api/lock")
def lock() -> ResponseReturnValue:
    check_csrf()
    session.pop("pin", None)
    return jsonify(unlocked=False)
