"""Whole scripted games in front of the service: every turn right, no phantom turn, the game's end."""

import pytest

from live.service import GameService
from live.sim import NAMES, ScriptedTable, scripted_moves
from table.moves import move_to_json


def play(store, *, seed, variant="classic", players=2, limit=None, **incidents):
    moves = scripted_moves(seed, variant=variant, players=players, limit=limit)
    table = ScriptedTable(moves, variant=variant, seed=seed, free=variant != "connect", **incidents)
    service = GameService(store, source=table, reader=table.read_frame)
    table.attach(service)
    service.new_game(NAMES[:players], variant=variant)
    with table as source:
        while len(service.state()["turns"]) < len(moves) and not service.state()["over"]:
            service.feed(source.read())
    return moves, table, service


@pytest.mark.parametrize(
    ("seed", "variant", "players", "limit"),
    [(11, "classic", 2, None), (12, "connect", 2, 30), (13, "classic", 3, 30)],
)
def test_every_turn_is_followed_without_phantoms(store, seed, variant, players, limit):
    moves, table, service = play(
        store, seed=seed, variant=variant, players=players, limit=limit, bumps=0.2, mistakes=0.1, knocks=0.05
    )
    state = service.state()
    assert [t["move"] for t in state["turns"]] == [move_to_json(m) for m in moves]
    stored = [e for e in service.export()["events"] if e["kind"] == "turn"]
    assert len(stored) == len(moves)  # nothing counted twice
    if limit is None:
        assert state["over"] and state["turns"][-1]["out_bonus"] == 6
    assert table.stats.plays + table.stats.trades + table.stats.passes == len(moves)
    service.close()
