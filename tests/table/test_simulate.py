from table import board_violations, connect_layout
from table.simulate import Simulation, random_board
from table.tiles import TILESETS


def test_simulated_games_are_legal_to_the_end_in_every_edition():
    for variant, ts in TILESETS.items():
        sim = Simulation(1, variant=variant, greed=0.5, players=("Ann", "Bob", "Cid"))
        game = sim.play_until()
        assert game.over, variant
        layout = connect_layout() if variant == "connect" else None
        assert not board_violations(game.board, tileset=ts, layout=layout)
        # the companion's counts agree with the simulation's real bag and hands
        assert game.bag == len(sim.bag) == 0
        assert game.hands == [len(h) for h in sim.hands]
        total = sum(game.scores.values())
        assert total == sum(t.points for t in game.history)


def test_same_seed_same_game():
    a = Simulation(42, greed=0.2).play_until(tiles=50)
    b = Simulation(42, greed=0.2).play_until(tiles=50)
    assert a.to_json() == b.to_json()


def test_random_board_size():
    board = random_board(60, seed=9)
    assert len(board) >= 60
    assert not board_violations(board)


def test_trades_keep_the_bag_and_hands_consistent():
    sim = Simulation(4, trade_rate=0.3)
    game = sim.play_until()
    trades = [t for t in game.history if type(t.move).__name__ == "Trade"]
    assert len(trades) > 3
    assert game.over and game.hands == [len(h) for h in sim.hands]
