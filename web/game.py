"""Changes to the game, each behind the PIN: new game, turns declared on the phone, corrections,
undo/redo, the end. Every view parses its body, calls the service once, and answers the new version.

Bad input is a 400 naming the field; an action the game does not allow (nothing to undo, the game is
over, an unknown side) is the service's 409; either way nothing changed.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from web.context import service
from web.errors import ApiError
from web.parse import json_body
from web.security import pin_required

bp = Blueprint("game", __name__, url_prefix="/api/game")

MAX_POINTS = 500  # a score correction larger than this is a typo
MAX_TURN_SECONDS = 3600


def _done(state: dict[str, Any]) -> ResponseReturnValue:
    return jsonify(version=state["version"])


@bp.post("/new")
@pin_required
def new_game() -> ResponseReturnValue:
    body = json_body()
    players = body.texts("players", low=2, high=4)
    teams = None
    if body.boolean("teams"):
        if len(players) != 4:
            raise ApiError(400, f"teams: team play needs 4 players, got {len(players)}")
        teams = [[players[0], players[2]], [players[1], players[3]]]
    seconds = body.optional_integer("turn_seconds", low=0, high=MAX_TURN_SECONDS)
    first = body.optional_integer("first", low=0, high=len(players) - 1) or 0
    state = service().new_game(
        players,
        variant=body.text("variant", max_length=20) if body.has("variant") else None,
        teams=teams,
        first=first,
        turn_seconds=seconds or None,
    )
    return _done(state)


@bp.post("/play")
@pin_required
def play() -> ResponseReturnValue:
    return _done(service().play(json_body().placement()))


@bp.post("/trade")
@pin_required
def trade() -> ResponseReturnValue:
    return _done(service().declare_trade(json_body().integer("count", low=1, high=6)))


@bp.post("/reroll")
@pin_required
def reroll() -> ResponseReturnValue:
    return _done(service().declare_reroll(json_body().integer("count", low=1, high=6)))


@bp.post("/pass")
@pin_required
def pass_turn() -> ResponseReturnValue:
    return _done(service().pass_turn())


@bp.post("/tile")
@pin_required
def correct_tile() -> ResponseReturnValue:
    body = json_body()
    row = body.integer("row", low=-1000, high=1000)
    col = body.integer("col", low=-1000, high=1000)
    return _done(service().correct_tile(row, col, body.tile(allow_none=True)))


@bp.post("/resolve")
@pin_required
def resolve() -> ResponseReturnValue:
    action = json_body().text("action", max_length=10)
    if action not in ("keep", "accept", "cancel"):
        raise ApiError(400, f"action: expected keep, accept or cancel, got {action!r}")
    return _done(service().resolve(action))


@bp.post("/adjust")
@pin_required
def adjust() -> ResponseReturnValue:
    body = json_body()
    side = body.text("side", max_length=90)
    points = body.integer("points", low=-MAX_POINTS, high=MAX_POINTS)
    if points == 0:
        raise ApiError(400, "points: a correction of 0 changes nothing")
    note = body.text("note", max_length=80, allow_empty=True) if body.has("note") else ""
    return _done(service().adjust(side, points, note))


@bp.post("/undo")
@pin_required
def undo() -> ResponseReturnValue:
    return _done(service().undo())


@bp.post("/redo")
@pin_required
def redo() -> ResponseReturnValue:
    return _done(service().redo())


@bp.post("/end")
@pin_required
def end_game() -> ResponseReturnValue:
    return _done(service().end_game())
