"""The dispute checker's questions, open to everyone (they change nothing).

``POST /api/check`` with ``{"placement": {"tiles": [...]}}`` judges a proposed placement on the current
board; with ``{"turn": N}`` it judges past turn N's placement on the board as it was before that turn.
Both answer the contract's ``check`` JSON: legal, score, every violated rule with its cells and a
sentence, the scoring lines. ``POST /api/spots`` with ``{"tile": {...}}`` answers every cell where that
tile may go.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from table import score, tileset, violations
from table.codec import board_from_json, check_to_json, layout_from_json, placement_from_json
from web.context import service
from web.errors import ApiError
from web.parse import json_body

bp = Blueprint("dispute", __name__, url_prefix="/api")


def check_past_turn(state: dict[str, Any], number: int) -> dict[str, Any]:
    """Judge turn ``number`` of ``state`` (the service's ``/api/state`` JSON) on the board before it.

    The board before a turn is today's board without the tiles of that turn and of every later play:
    tiles never leave the table, and undone turns are no longer in the history.
    """
    turns = {t["number"]: t for t in state["turns"]}
    turn = turns.get(number)
    if turn is None:
        raise ApiError(404, f"turn {number}: no such turn (turns 1–{len(turns)})")
    if turn["move"]["kind"] != "play":
        raise ApiError(400, f"turn {number}: {turn['player']} placed no tiles ({turn['move']['kind']})")
    tiles = tileset(state["variant"])
    layout = layout_from_json(state["layout"], where="layout") if state.get("layout") else None
    later = {
        (p["row"], p["col"])
        for t in state["turns"]
        if t["number"] >= number and t["move"]["kind"] == "play"
        for p in t["move"]["tiles"]
    }
    before = board_from_json(state["board"], where="board").without(later)
    placement = placement_from_json(turn["move"]["tiles"], where=f"turn {number}", tileset=tiles)
    found = violations(before, placement, tileset=tiles, layout=layout)
    points = None if found else score(before, placement, layout=layout)
    return check_to_json(found, points) | {
        "turn": number,
        "player": turn["player"],
        "recorded": turn["points"],
    }


@bp.post("/check")
def check() -> ResponseReturnValue:
    body = json_body()
    if body.has("turn"):
        state = service().state()
        number = body.integer("turn", low=1, high=max(1, len(state["turns"])))
        return jsonify(check_past_turn(state, number))
    if not body.has("placement"):
        raise ApiError(400, 'expected {"placement": {"tiles": [...]}} or {"turn": N}')
    return jsonify(service().check(body.placement()))


@bp.post("/spots")
def spots() -> ResponseReturnValue:
    return jsonify(service().spots(json_body().tile()))
