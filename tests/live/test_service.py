"""The game service: turns from settled frames, disputes, attention items, phone actions, resuming."""

import threading
import time

import pytest

from live.service import GameService
from live.sim import scripted_moves
from table import Board, GameError, IllegalPlacementError, parse_placement
from table.moves import Play, Trade
from vision.frames import FrameSource, SourceUnavailableError

from .conftest import reading


def kinds(table):
    return [t["move"]["kind"] for t in table.service.state()["turns"]]


def status(table):
    return table.service.state()["follow"]["status"]


# Turns seen by the camera ---------------------------------------------------------------------------------
def test_a_settled_placement_is_scored_for_the_player_to_move(table):
    table.show("")
    table.hand("Ro Rx", frames=4)
    assert status(table) == "settling"
    table.show("Ro Rx")
    state = table.service.state()
    assert state["scores"] == {"Ann": 2, "Bob": 0}
    assert state["to_move"] == "Bob"
    assert state["follow"]["status"] == "watching"
    assert state["turns"][0]["move"]["tiles"][1] == {
        "row": 0,
        "col": 1,
        "colour": "red",
        "shape": "criss-cross",
    }


def test_a_hand_over_the_table_is_not_a_turn(table):
    table.show("Ro Rx")
    before = table.service.state()["turns"]
    # the new tile is down but the hand still hides a cell: nothing settles
    table.show(reading("Ro Rx Rd", hidden=((0, 1),)), frames=12)
    assert table.service.state()["turns"] == before
    table.show("Ro Rx Rd")
    assert kinds(table) == ["play", "play"]


def test_a_hand_the_reader_keeps_seeing_on_a_still_picture_is_doubted(table):
    table.show("Ro Rx")
    table.hand("Ro Rx Rd")
    table.show(reading("Ro Rx Rd", hidden=((0, 2),)), frames=10)  # 1 s: a hand resting on the table
    assert status(table) == "settling" and kinds(table) == ["play"]
    table.show(reading("Ro Rx Rd", hidden=((0, 2),)), frames=10)  # 2 s still: no hand is that still
    state = table.service.state()
    assert state["follow"]["status"] == "needs-attention" and kinds(table) == ["play"]
    assert state["follow"]["pending"]["unreadable"] == [[0, 2]]
    table.service.correct_tile(0, 2, "Rd")
    assert kinds(table) == ["play", "play"]


def test_a_reading_must_hold_before_it_counts(table):
    table.show("Ro Rx", frames=2)  # 0.2 s of frames: still settling (quiet 0.1 s, hold 0.3 s)
    assert kinds(table) == []
    table.show("Ro Rx", frames=4)
    assert kinds(table) == ["play"]


def test_a_misread_for_one_frame_does_not_settle(table):
    table.show("Ro Rx")
    for _ in range(5):
        table.show("Ro Rx Rs", frames=1)
        table.show("Ro Rx Rd", frames=1)
    assert kinds(table) == ["play"]


def test_a_nudged_or_turned_layout_invents_no_move(table):
    board = Board.from_text("Ro Rx Rd / Bo")
    table.show("Ro Rx Rd")
    table.hand(board)
    table.show(board)
    turns = len(kinds(table))
    assert turns == 2
    for quarter in range(4):
        table.hand(board, frames=2)
        table.show(board.transformed(shift=(3, -2), turns=quarter))
    assert len(kinds(table)) == turns
    assert status(table) == "watching"
    # and a move after the bump lands in the board's own cells
    moved = Board.from_text("Ro Rx Rd Rs / Bo").transformed(shift=(3, -2), turns=3)
    table.hand(moved)
    table.show(moved)
    assert table.service.state()["turns"][-1]["move"]["tiles"] == [
        {"row": 0, "col": 3, "colour": "red", "shape": "square"}
    ]


def test_an_illegal_placement_is_a_dispute_never_scored(table):
    table.show("Ro Rx")
    table.hand("Ro Rx Bs")
    table.show("Ro Rx Bs")
    state = table.service.state()
    assert state["follow"]["status"] == "dispute"
    pending = state["follow"]["pending"]
    assert pending["kind"] == "dispute"
    assert [v["rule"] for v in pending["violations"]] == ["mixed-line"]
    assert pending["reasons"] and pending["cells"] == [[0, 2]]
    assert state["scores"] == {"Ann": 2, "Bob": 0}
    table.hand("Ro Rx")
    table.show("Ro Rx")  # taken back
    assert status(table) == "watching"
    assert kinds(table) == ["play"]


def test_a_misread_new_tile_is_corrected_on_the_phone(table):
    table.show("Ro Rx")
    table.hand("Ro Rx Bs")
    table.show("Ro Rx Bs")  # really a red square, read as blue
    assert status(table) == "dispute"
    table.service.correct_tile(0, 2, "red:square")
    state = table.service.state()
    assert state["follow"]["status"] == "watching"
    assert state["scores"] == {"Ann": 2, "Bob": 3}
    table.hand("Ro Rx Bs")
    table.show("Ro Rx Bs")  # the reader keeps misreading it: the correction holds
    assert kinds(table) == ["play", "play"]


def test_a_tile_the_reader_misses_now_and_then_is_still_part_of_the_placement(table):
    table.show("Ro Rx")
    table.hand("Ro Rx Rd")
    for _ in range(4):  # the reader misses the new tile in every other frame: no two raw readings agree
        table.show("Ro Rx Rd", frames=1)
        table.show("Ro Rx", frames=1)
    turns = table.service.state()["turns"]
    assert [len(t["move"]["tiles"]) for t in turns] == [2, 1]
    assert table.service.state()["scores"] == {"Ann": 2, "Bob": 3}


def test_a_tile_the_camera_missed_joins_the_latest_placement(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.show("Ro Rx")  # Ann put down Ro Rx Rd; the reader never sees the diamond
    assert table.service.state()["scores"] == {"Ann": 2, "Bob": 0}
    with pytest.raises(GameError, match="nothing to correct"):
        table.service.correct_tile(0, 2, None)
    with pytest.raises(GameError, match="nor a tile the camera missed in turn 1: illegal placement"):
        table.service.correct_tile(5, 5, "Rd")  # not in line with the placement: refused, nothing changes
    table.service.correct_tile(0, 2, "Rd")
    state = table.service.state()
    assert state["scores"] == {"Ann": 3, "Bob": 0}
    assert len(state["turns"][0]["move"]["tiles"]) == 3
    table.hand("Ro Rx 1 Rs")
    table.show("Ro Rx 1 Rs")  # still unseen, and not taken as removed: Bob's square scores the line
    assert table.service.state()["scores"] == {"Ann": 3, "Bob": 4}


def test_a_removed_tile_needs_attention_until_put_back(table):
    table.show("Ro Rx Rd")
    table.hand("Ro Rd")
    table.show("Ro 1 Rd")
    state = table.service.state()
    assert state["follow"]["status"] == "needs-attention"
    assert state["follow"]["pending"]["removed"] == [
        {"row": 0, "col": 1, "colour": "red", "shape": "criss-cross"}
    ]
    table.hand("Ro Rx Rd")
    table.show("Ro Rx Rd")
    assert status(table) == "watching"
    assert kinds(table) == ["play"]


def test_a_tile_the_reader_keeps_missing_is_kept_on_request(table):
    table.show("Ro Rx Rd")
    table.hand("Ro 1 Rd")
    table.show("Ro 1 Rd")
    table.service.resolve("keep")
    assert status(table) == "watching"
    table.hand("Ro 1 Rd Rs")
    table.show("Ro 1 Rd Rs")  # the next move is still judged against the whole board
    assert table.service.state()["scores"]["Bob"] == 4


def test_a_changed_old_tile_can_be_accepted_as_a_misread_at_placing(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.show("Ro Rs")  # the second tile was a square all along
    assert status(table) == "needs-attention"
    table.service.accept_reading()
    state = table.service.state()
    assert state["board"]["tiles"][1]["shape"] == "square"
    assert status(table) == "watching"


def test_an_unreadable_new_tile_needs_attention_then_a_correction(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.show(reading("Ro Rx", unsure=((0, 2),)))
    assert status(table) == "needs-attention"
    with pytest.raises(GameError, match="could not be read"):
        table.service.accept_reading()
    table.service.correct_tile(0, 2, {"colour": "red", "shape": "diamond"})
    assert kinds(table) == ["play", "play"]


def test_a_declared_trade_becomes_a_turn_when_nothing_was_placed(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.service.declare_trade(2)
    assert table.service.state()["follow"]["declared"] == {"kind": "trade", "count": 2, "player": "Bob"}
    table.show("Ro Rx")
    state = table.service.state()
    assert [t["move"] for t in state["turns"]][-1] == {"kind": "trade", "count": 2}
    assert state["to_move"] == "Ann" and state["follow"]["declared"] is None


def test_tiles_placed_after_a_declared_trade_need_attention(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.service.declare_trade(1)
    table.hand("Ro Rx Rd")
    table.show("Ro Rx Rd")
    assert status(table) == "needs-attention"
    table.service.resolve("cancel")
    assert kinds(table) == ["play", "play"]


def test_the_game_ends_with_the_going_out_bonus(store):
    with GameService(store) as service:
        service.new_game(["Ann", "Bob"])
        for move in scripted_moves(5):
            match move:
                case Play(tiles):
                    service.play(tiles)
                case Trade(count):
                    service.declare_trade(count)
                case _:
                    service.pass_turn()
        state = service.state()
        assert state["over"] and state["bag"] == 0
        last = state["turns"][-1]
        assert last["out_bonus"] == 6 and state["ending"] == f"{last['player']} went out"
        assert state["winners"] == [max(state["scores"], key=state["scores"].get)]


# Phone actions --------------------------------------------------------------------------------------------
def test_phone_actions_without_a_camera(store):
    with GameService(store) as service:
        v0 = service.version
        service.new_game(["Ann", "Bob", "Cid"], first=1)
        assert service.state()["to_move"] == "Bob"
        service.play({"tiles": [{"row": 0, "col": 0, "colour": "red", "shape": "circle"}]})
        service.declare_trade(3)  # without a camera a declaration is the turn
        with pytest.raises(GameError, match="trade instead of passing"):
            service.pass_turn()
        with pytest.raises(IllegalPlacementError):
            service.play(parse_placement("Bs@0,1"))
        service.adjust("Bob", -1, "miscounted")
        service.undo()
        service.redo()
        state = service.state()
        assert state["scores"] == {"Bob": 0, "Cid": 0, "Ann": 0}
        assert [t["move"]["kind"] for t in state["turns"]] == ["play", "trade", "adjust"]
        assert state["version"] > v0 and state["can_undo"]
        assert service.check(parse_placement("Rx@0,1"))["score"] == 2
        assert service.check(parse_placement("Bx@0,1"))["legal"] is False
        assert [0, 1] in service.spots("red:square")["cells"]
        service.end_game()
        assert service.state()["over"] and service.state()["winners"] == ["Bob", "Cid", "Ann"]


def test_bad_calls_raise_one_line_errors_and_change_nothing(store):
    with GameService(store) as service:
        with pytest.raises(GameError, match="no game yet"):
            service.undo()
        service.new_game(["Ann", "Bob"])
        version = service.version
        for call in (
            service.undo,
            lambda: service.declare_reroll(1),
            lambda: service.declare_trade(7),
            lambda: service.correct_tile(4, 4, "red:circle"),
            lambda: service.resolve("shrug"),
            lambda: service.adjust("Zed", 3),
            lambda: service.new_game(["Ann"]),
        ):
            with pytest.raises(GameError) as err:
                call()
            assert "\n" not in str(err.value)
        assert service.version == version


def test_versions_grow_and_waiters_wake(store):
    with GameService(store) as service:
        service.new_game(["Ann", "Bob"])
        seen = service.version
        woke: list[int] = []
        waiter = threading.Thread(target=lambda: woke.append(service.wait_for_change(seen, 5)))
        waiter.start()
        service.play(parse_placement("Ro@0,0"))
        waiter.join(5)
        assert woke and woke[0] > seen
        assert service.wait_for_change(service.version, 0.01) == service.version
        assert service.wait_for_change(service.version + 99, 5) == service.version  # from a past life
        assert [e["kind"] for e in service.events_since(seen)] == ["turn"]


def test_a_new_service_resumes_the_stored_game_exactly(store):
    first = GameService(store)
    first.new_game(["Ann", "Bob"], turn_seconds=60)
    first.play(parse_placement("Ro@0,0 Rx@0,1"))
    first.declare_trade(2)
    first.play(parse_placement("Rd@0,2"))
    first.undo()
    before = first.state()
    first.close()  # (a crash is tested in test_crash.py)
    again = GameService(store)
    after = again.state()
    for key in ("players", "scores", "board", "turns", "bag", "to_move", "can_redo", "turn_seconds"):
        assert after[key] == before[key], key
    assert again.version >= before["version"]  # a transient change would be > too
    again.redo()
    assert again.state()["scores"] == {"Ann": 5, "Bob": 0}
    exported = again.export()
    assert exported["game"]["moves"][-1]["kind"] == "play"
    assert [e["kind"] for e in exported["events"]] == ["new-game", "turn", "turn", "turn", "undo", "redo"]
    assert [g["id"] for g in again.games()] == [exported["id"]]
    again.close()


def test_the_snapshot_is_the_latest_frame_as_jpeg(table):
    assert table.service.snapshot() is None  # no frame yet
    table.show("Ro Rx")
    jpeg = table.service.snapshot()
    assert jpeg is not None and jpeg[:2] == b"\xff\xd8"


def test_a_vanished_camera_is_reported_and_retried(store):
    class Gone(FrameSource):
        name = "gone"
        opened = 0

        def open(self):
            Gone.opened += 1
            raise SourceUnavailableError("camera 0: not found")

        def read(self):
            raise AssertionError

        def close(self): ...

    service = GameService(store, source=Gone(), retry_seconds=0.05)
    service.new_game(["Ann", "Bob"])
    service.start()
    deadline = time.monotonic() + 10
    while Gone.opened < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    state = service.state()
    service.close()
    assert state["follow"]["status"] == "camera-lost"
    assert state["camera"]["error"] == "camera 0: not found"
    assert Gone.opened >= 2


def test_versions_given_to_phones_before_a_restart_are_never_reused(store, table):
    table.show("Ro Rx")
    table.hand("Ro Rx")  # "settling": a change that is not stored, but has a version
    seen = table.service.version
    table.service.close()
    again = GameService(store)
    assert again.version >= seen
    again.close()


def test_a_phantom_tile_dismissed_on_the_phone_stays_dismissed(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.show(reading("Ro Rx", unsure=((1, 1),)))  # a smudge the reader cannot name
    assert status(table) == "needs-attention"
    table.service.correct_tile(1, 1, None)
    assert status(table) == "watching"
    for _ in range(2):
        table.hand("Ro Rx")
        table.show(reading("Ro Rx", unsure=((1, 1),)))
        assert status(table) == "watching"
    table.hand("Ro Rx Rd")
    table.show("Ro Rx Rd")
    assert kinds(table) == ["play", "play"]


def test_pressing_trade_twice_is_one_declaration(table):
    table.show("Ro Rx")
    table.hand("Ro Rx")
    table.service.declare_trade(2)
    version = table.service.version
    table.service.declare_trade(2)
    assert table.service.version == version
    table.service.declare_trade(3)  # a corrected count replaces it
    table.show("Ro Rx")
    assert [t["move"] for t in table.service.state()["turns"]][-1] == {"kind": "trade", "count": 3}


def test_a_press_for_a_turn_already_recorded_is_refused(store):
    with GameService(store) as service:
        service.new_game(["Ann", "Bob"])
        service.declare_trade(2, turn=1)
        with pytest.raises(GameError, match="turn 1: already recorded"):
            service.declare_trade(2, turn=1)  # the same press again, after the service restarted
        assert len(service.state()["turns"]) == 1


def test_cubes_players_draw_and_reroll_from_the_phone(store):
    with GameService(store) as service:
        service.new_game(["Ann", "Bob"], variant="cubes")
        service.declare_reroll(2)
        service.play(parse_placement("Ro@0,0"))  # Bob: five cubes left, no draw after a play
        service.play(parse_placement("Rx@0,1"))
        service.draw(turn=4)
        state = service.state()
        assert [t["move"]["kind"] for t in state["turns"]] == ["reroll", "play", "play", "draw"]
        assert state["players"][1]["hand"] == 6
        with pytest.raises(GameError):
            service.declare_trade(1)  # no trades in Qwirkle Cubes


def test_a_reading_that_finds_nothing_on_a_full_table_is_skipped(table):
    table.hand("Ro Rx")
    for _ in range(4):  # even on the first move: tiles do not vanish without motion
        table.show("Ro Rx", frames=1)
        table.show("", frames=1)
    assert kinds(table) == ["play"]
    table.hand("Ro Rx Rd")
    for _ in range(4):  # the reader fails on every other frame
        table.show("Ro Rx Rd", frames=1)
        table.show("", frames=1)
    assert kinds(table) == ["play", "play"]
    assert status(table) == "watching"
