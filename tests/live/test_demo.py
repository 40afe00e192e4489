"""The demo's players press "trade" and "pass" on the phone, once per turn."""

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
