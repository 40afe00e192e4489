"""The demo's players press "trade" and "pass" on the phone, once per turn; the demo end to end."""

import time

import numpy as np

from live.demo import DemoPhone
from live.service import GameService
from vision.frames import Frame


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
