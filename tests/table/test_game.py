import pytest

from table import Board, Game, GameError, IllegalPlacementError, parse_placement
from table.moves import Adjust, Play, Trade
from table.simulate import Simulation

P = parse_placement


def test_setup_deals_six_to_each_player_from_the_bag():
    game = Game(["Ann", "Bob", "Cid"])
    assert game.hands == [6, 6, 6] and game.bag == 108 - 18
    assert game.player == "Ann" and game.scores == {"Ann": 0, "Bob": 0, "Cid": 0}


def test_connect_starts_from_the_printed_start_tiles():
    game = Game(["Ann", "Bob"], variant="connect")
    assert len(game.board) == 24 and game.bag == 108 - 24 - 12
    turn = game.play(P("Gs@9,3 Gx@10,3 Gc@12,3"))
    assert turn.points == 10


def test_cubes_bag_holds_90():
    assert Game(["Ann", "Bob"], variant="cubes").bag == 90 - 12


@pytest.mark.parametrize(
    ("players", "message"),
    [(["Ann"], "2 to 4 players"), (["A", "B", "C", "D", "E"], "2 to 4"), (["Ann", "Ann"], "must differ")],
)
def test_player_count_and_names_are_checked(players, message):
    with pytest.raises(GameError, match=message):
        Game(players)


def test_play_scores_draws_and_passes_the_turn():
    game = Game(["Ann", "Bob"])
    turn = game.play(P("Ro@0,0 Rx@0,1 Rd@0,2"))
    assert (turn.player, turn.points, turn.bag_after, turn.hand_after) == ("Ann", 3, 93, 6)
    assert game.player == "Bob" and game.scores["Ann"] == 3


def test_an_illegal_play_changes_nothing():
    game = Game(["Ann", "Bob"])
    game.play(P("Ro@0,0 Rx@0,1"))
    before = game.to_json()
    with pytest.raises(IllegalPlacementError, match="neither one colour nor one shape") as err:
        game.play(P("Bs@0,2"))
    assert err.value.violations[0].cells == ((0, 0), (0, 1), (0, 2))
    assert game.to_json() == before


def test_checking_is_separate_from_playing():
    game = Game(["Ann", "Bob"])
    game.play(P("Ro@0,0"))
    assert game.is_legal(P("Rx@0,1")) and not game.is_legal(P("Bs@0,1"))
    assert game.violations(P("Bs@0,1"))[0].rule == "mixed-line"
    assert len(game.board) == 1


def test_trade_needs_enough_tiles_in_the_bag_and_hand():
    game = Game(["Ann", "Bob"])
    game.trade(6)
    assert game.player == "Bob" and game.bag == 96
    with pytest.raises(GameError, match="can trade 1 to 6 tiles, not 7"):
        game.trade(7)
    game.bag = 2  # as late in a game
    with pytest.raises(GameError, match="bag holds only 2"):
        game.trade(3)


def test_reroll_only_in_cubes():
    with pytest.raises(GameError, match="Qwirkle Cubes action"):
        Game(["Ann", "Bob"]).reroll(2)
    game = Game(["Ann", "Bob"], variant="cubes")
    game.reroll(6)
    assert game.player == "Bob"


def test_pass_only_with_an_empty_bag():
    with pytest.raises(GameError, match="trade instead of passing"):
        Game(["Ann", "Bob"]).pass_turn()


def test_going_out_with_an_empty_bag_ends_the_game_with_6_more():
    sim = Simulation(5)
    game = sim.play_until()
    assert game.over and game.ending is not None and game.ending.endswith("went out")
    last = game.history[-1]
    assert last.out_bonus == 6 and last.hand_after == 0 and last.bag_after == 0
    assert last.points == last.score.total + 6  # type: ignore[union-attr]
    assert game.winners()
    with pytest.raises(GameError, match="the game is over"):
        game.trade(1)


def test_a_blocked_game_ends_without_the_bonus():
    game = Game(["Ann", "Bob"])
    game.bag = 0  # late game: nothing left to draw
    game.pass_turn()
    assert not game.over
    game.pass_turn()
    assert game.over and game.ending == "blocked: every player passed"
    assert all(t.out_bonus == 0 for t in game.history)


def test_a_play_resets_the_pass_count():
    game = Game(["Ann", "Bob"])
    game.bag = 0
    game.pass_turn()
    game.play(P("Ro@0,0"))
    game.pass_turn()
    assert not game.over


def test_cannot_place_more_tiles_than_the_hand_holds():
    game = Game(["Ann", "Bob"])
    game.hands[0] = 2
    with pytest.raises(GameError, match="holds 2 tiles and cannot place 3"):
        game.play(P("Ro@0,0 Rx@0,1 Rd@0,2"))


def test_teams_share_a_score_and_alternate():
    game = Game(["Ann", "Bob", "Cid", "Dee"], teams=[["Ann", "Cid"], ["Bob", "Dee"]])
    assert game.sides == ("Ann & Cid", "Bob & Dee")
    game.play(P("Ro@0,0 Rx@0,1"))
    game.play(P("Bx@1,1"))
    game.play(P("Rd@0,2"))
    assert game.scores == {"Ann & Cid": 2 + 3, "Bob & Dee": 2}
    with pytest.raises(GameError, match="partners sit opposite"):
        Game(["Ann", "Cid", "Bob", "Dee"], teams=[["Ann", "Cid"], ["Bob", "Dee"]])
    with pytest.raises(GameError, match="two teams of two"):
        Game(["Ann", "Bob"], teams=[["Ann"], ["Bob"]])


def test_undo_and_redo_restore_the_exact_state():
    sim = Simulation(7, greed=0.5)
    sim.play_until(tiles=40)
    game = sim.game
    full = game.to_json()
    scores, bag, board = dict(game.scores), game.bag, game.board
    undone = [game.undo() for _ in range(5)]
    assert len(game.history) == len(full["moves"]) - 5
    for _ in undone:
        game.redo()
    assert (game.scores, game.bag, game.board) == (scores, bag, board)
    with pytest.raises(GameError, match="nothing to redo"):
        game.redo()


def test_a_new_move_clears_the_redo_stack():
    game = Game(["Ann", "Bob"])
    game.play(P("Ro@0,0"))
    game.undo()
    game.play(P("Bo@0,0"))
    with pytest.raises(GameError, match="nothing to redo"):
        game.redo()
    with pytest.raises(GameError, match="nothing to undo"):
        Game(["Ann", "Bob"]).undo()


def test_amend_rewrites_a_past_turn_and_replays_the_rest():
    game = Game(["Ann", "Bob"])
    game.play(P("Ro@0,0 Rx@0,1"))
    game.play(P("Bx@1,1"))
    game.amend(1, Play(tuple(P("Ro@0,0 Rx@0,1 Rd@0,2"))))
    assert game.scores == {"Ann": 3, "Bob": 2}
    before = game.to_json()
    with pytest.raises(IllegalPlacementError):
        game.amend(1, Play(tuple(P("Ro@0,0 Rs@0,1"))))  # turn 2's blue criss-cross no longer fits
    assert game.to_json() == before
    with pytest.raises(GameError, match="turn 9: no such turn"):
        game.amend(9, Trade(1))


def test_adjust_fixes_a_score_without_passing_the_turn():
    game = Game(["Ann", "Bob"])
    game.adjust("Bob", 5, "miscounted Qwirkle")
    assert game.scores["Bob"] == 5 and game.player == "Ann"
    with pytest.raises(GameError, match="no side 'Zed'"):
        game.adjust("Zed", 1)


def test_finish_ends_the_game_early():
    game = Game(["Ann", "Bob"])
    game.play(P("Ro@0,0"))
    game.finish()
    assert game.over and game.winners() == ["Ann"]
    game.push(Adjust("Bob", 1))  # corrections stay possible after the end
    assert game.winners() == ["Ann", "Bob"]


def test_json_round_trip_replays_to_the_same_game():
    sim = Simulation(3, variant="connect", players=("Ann", "Bob", "Cid"), greed=0.6)
    sim.play_until(tiles=60)
    game = sim.game
    game.undo()
    again = Game.from_json(game.to_json())
    assert again.to_json() == game.to_json()
    assert again.state() == game.state()
    assert again.board == game.board and isinstance(again.board, Board)


def test_state_view_for_the_scoreboard():
    game = Game(["Ann", "Bob"], turn_seconds=60)
    game.play(P("Ro@0,0 Rx@0,1"))
    state = game.state()
    assert state["to_move"] == "Bob" and state["bag"] == 96 - 2
    assert state["turns"][0]["lines"] == [{"cells": [[0, 0], [0, 1]], "points": 2, "qwirkle": False}]
    assert state["players"][0] == {"name": "Ann", "side": "Ann", "hand": 6}
    assert Game.from_json(game.to_json()).turn_seconds == 60


def test_cubes_draw_is_its_own_action_and_there_are_no_trades():
    game = Game(["Ann", "Bob"], variant="cubes")
    game.play(P("Ro@0,0 Rx@0,1"))
    assert game.hands[0] == 4 and game.bag == 78  # no draw after a play
    with pytest.raises(GameError, match="cannot draw, the hand already holds 6"):
        game.draw()  # Bob's hand is full
    game.reroll(3)
    game.draw()
    assert game.hands[0] == 6 and game.bag == 76
    with pytest.raises(GameError, match="no trades; re-roll instead"):
        game.trade(1)
    with pytest.raises(GameError, match="drawing is a Qwirkle Cubes action"):
        Game(["Ann", "Bob"]).draw()


def test_cubes_going_out_needs_an_empty_bag():
    game = Game(["Ann", "Bob"], variant="cubes")
    game.hands[0] = 1
    game.play(P("Ro@0,0"))
    assert not game.over and game.hands[0] == 0  # cubes are left: Ann draws on a later turn
    game.bag = 0
    game.hands[1] = 1
    game.play(P("Rx@0,1"))
    assert game.over and game.history[-1].out_bonus == 6
