"""The demo's players press "trade" and "pass" on the phone, once per turn; the demo end to end."""

import time

import numpy as np

from live.demo import DemoPhone
from live.service import GameService
from table import Board
from table.codec import board_to_json
from vision.frames import Frame

from .conftest import reading


def frame(phase, turn, kind, game=0):
    meta = {"phase": phase, "turn": turn, "move": {"kind": kind}, "game": game}
    return Frame(np.zeros((4, 4, 3), np.uint8), 0, 0.0, meta)


def test_buttons_are_pressed_once_per_turn(store):
    service = GameService(store)
    service.new_game(["Ann", "Bob"])
    phone = DemoPhone()
    for _ in range(3):
        phone(frame("reach", 0, "trade"), service)  # without a camera the declaration is the turn
    assert [t["move"] for t in service.state()["turns"]] == [{"kind": "trade", "count": 1}]
    phone(frame("settled", 1, "pass"), service)  # the bag is full: the service refuses, the demo goes on
    assert len(service.state()["turns"]) == 1
    phone(frame("settled", 0, "play", game=1), service)  # the demo films its next game
    assert service.state()["turns"] == [] and service.state()["players"][0]["name"] == "Ann"
    service.close()


def test_the_demo_game_is_followed_through_the_real_reader(store):
    """The whole demo path: rendered frames -> the reader -> the service, the players waiting for the
    scoreboard and answering its questions; the scores match the rendered game's own."""
    from vision.demo import DemoSource, play_game
    from web.server import DEMO_CONDITIONS

    turns = 6
    source = DemoSource(
        seed=3, size=(600, 800), realtime=False, loop=False, max_turns=turns, conditions=DEMO_CONDITIONS
    )
    phone = DemoPhone()
    service = GameService(store, source=source, variant=source.variant, phone=phone)
    service.new_game(list(source.players), variant=source.variant)
    source.wait_for = lambda k: len(service.state()["turns"]) >= k
    expected = play_game(variant=source.variant, seed=source.game_seed(0), players=source.players)[:turns]
    with service:
        deadline = time.monotonic() + 120
        while len(service.state()["turns"]) < turns and time.monotonic() < deadline:
            time.sleep(0.2)
    state = service.state()
    service.close()
    assert len(state["turns"]) == turns, state["follow"]
    assert state["scores"] == expected[-1].scores


def shown(text, turn):
    """A settled frame of the demo showing ``text`` after ``turn`` turns."""
    board = board_to_json(Board.from_text(text).placed)
    meta = {"phase": "settled", "turn": turn, "move": {"kind": "play"}, "game": 0, "board": board}
    return Frame(np.zeros((4, 4, 3), np.uint8), 0, 0.0, meta)


def test_the_players_correct_what_the_companion_missed_or_asks(table):
    phone = DemoPhone()
    assert not phone.checked(1, table.service)  # nothing counted yet: the players wait
    table.show("Ro Rx")  # Ann put down Ro Rx Rd; the reader never saw the diamond
    phone(shown("Ro Rx Rd", 1), table.service)
    assert table.service.state()["scores"] == {"Ann": 2, "Bob": 0}
    assert phone.checked(1, table.service)  # counted: a glance at the scoreboard, a tap, and on they play
    assert table.service.state()["scores"] == {"Ann": 3, "Bob": 0}
    table.hand("Ro Rx Rd")
    table.show(reading("Ro Rx", unsure=((0, 3),)))  # Bob's square cannot be read
    assert table.service.state()["follow"]["status"] == "needs-attention"
    phone(shown("Ro Rx Rd Rs", 2), table.service)
    assert table.service.state()["scores"] == {"Ann": 3, "Bob": 4}
    assert [(c["turn"], c["cell"], c["why"], c["truth"]) for c in phone.log] == [
        (1, [0, 2], "missed-at-placing", "red:diamond"),
        (2, [0, 3], "unreadable", "red:square"),
    ]
    phone(shown("Ro Rx Rd Rs", 2), table.service)  # all is right now: nothing more to tap
    assert phone.checked(2, table.service) and phone.corrections == 2


def test_a_turn_counted_beyond_a_tap_is_undone_and_typed(table):
    phone = DemoPhone()
    table.show("Bs")  # Ann put down Ro Rx; the reader saw one blue square
    meta = shown("Ro Rx", 1).meta
    meta["move"] = {"kind": "play", "placed": meta["board"]["tiles"]}
    phone(Frame(np.zeros((4, 4, 3), np.uint8), 0, 0.0, meta), table.service)
    assert phone.checked(1, table.service)
    state = table.service.state()
    assert [len(t["move"]["tiles"]) for t in state["turns"]] == [2] and state["scores"]["Ann"] == 2
    assert [c["why"] for c in phone.log] == ["retyped"]


def test_tiles_missed_at_placing_are_added_nearest_first(table):
    phone = DemoPhone()
    table.show("2 Rd")  # Ann put down Ro Rx Rd; the reader saw the diamond alone
    phone(shown("Ro Rx Rd", 1), table.service)
    assert phone.checked(1, table.service)
    assert table.service.state()["scores"]["Ann"] == 3
    assert [(c["cell"], c["why"]) for c in phone.log] == [
        ([0, 1], "missed-at-placing"),
        ([0, 0], "missed-at-placing"),
    ]
