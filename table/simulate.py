"""Simulated games: a real bag and real hands around a :class:`~table.game.Game`.

The companion cannot see hands, but tests, benchmarks, the renderer and the demo need whole games and
boards of a given size. A :class:`Simulation` deals tiles from a seeded bag and plays either the best
move (:func:`table.hints.best_play`) or a random legal one, trading when nothing fits; for Qwirkle Cubes it
rolls the shapes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from table.board import Board
from table.game import Game, Turn
from table.hints import best_play, legal_plays
from table.layout import Layout
from table.tiles import Tile


class Simulation:
    """A seeded game with its bag and hands.

    Parameters
    ----------
    seed : int
        Everything random (the bag's order, cube rolls, random plays) follows from it.
    variant, players, teams, layout
        As for :class:`~table.game.Game`.
    greed : float
        Probability of playing the best move; otherwise a random legal play (0 gives varied boards).
    trade_rate : float
        Probability of trading (a random number of tiles) even when a play exists, while the bag lasts.
    """

    def __init__(
        self,
        seed: int,
        *,
        variant: str = "classic",
        players: Sequence[str] = ("Ann", "Bob"),
        teams: Sequence[Sequence[str]] | None = None,
        layout: Layout | None = None,
        greed: float = 1.0,
        trade_rate: float = 0.0,
    ) -> None:
        self.rng = random.Random(seed)
        self.game = Game(players, variant=variant, teams=teams, layout=layout)
        ts = self.game.tileset
        self.greed = greed
        self.trade_rate = trade_rate
        if ts.per_colour is not None:
            bag = [Tile(c, ts.shapes[0]) for c in ts.colours for _ in range(ts.per_colour)]
        else:
            assert ts.copies is not None
            bag = [t for t in ts.tiles() for _ in range(ts.copies)]
        for tile in self.game.board.values():  # a printed board's start tiles come out of the set
            bag.remove(tile)
        self.rng.shuffle(bag)
        self.bag: list[Tile] = bag
        self.hands: list[list[Tile]] = [self._draw(n) for n in self.game.hands]

    def _draw(self, n: int) -> list[Tile]:
        drawn, self.bag = self.bag[:n], self.bag[n:]
        return [self._roll(t) for t in drawn]

    def _roll(self, tile: Tile) -> Tile:
        ts = self.game.tileset
        return Tile(tile.colour, self.rng.choice(ts.shapes)) if ts.rolled else tile

    @property
    def hand(self) -> list[Tile]:
        """The hand of the player to move."""
        return self.hands[self.game.to_move]

    def step(self) -> Turn:
        """Make the next move for the player to move: a play if one exists, else a trade, re-roll or pass."""
        game = self.game
        seat = game.to_move
        hand = self.hands[seat]
        ts, layout = game.tileset, game.layout
        play = None
        if ts.rolled and self.bag and len(hand) <= 3:
            return self._draw_up(seat)
        if self.bag and not ts.rolled and self.rng.random() < self.trade_rate:
            return self._trade(seat, self.rng.randint(1, min(len(hand), len(self.bag))))
        if self.rng.random() < self.greed:
            best = best_play(game.board, hand, tileset=ts, layout=layout)
            play = best.placement if best else None
        else:
            options = list(legal_plays(game.board, hand, tileset=ts, layout=layout))
            play = self.rng.choice(options) if options else None
        if play is not None:
            turn = game.play(play)
            for p in play:
                hand.remove(p.tile)
            if not ts.rolled:
                hand.extend(self._draw(len(play)))
            return turn
        if ts.rolled and self.bag and len(hand) < ts.hand_size:
            return self._draw_up(seat)
        if ts.rolled and (self.bag or self.rng.random() < 0.5):
            self.hands[seat] = [self._roll(t) for t in hand]
            return game.reroll(len(hand))
        if self.bag:
            return self._trade(seat, min(len(hand), len(self.bag)))
        return game.pass_turn()

    def _draw_up(self, seat: int) -> Turn:
        hand = self.hands[seat]
        hand.extend(self._draw(self.game.tileset.hand_size - len(hand)))
        return self.game.draw()

    def _trade(self, seat: int, count: int) -> Turn:
        hand = self.hands[seat]
        back = self.rng.sample(hand, count)
        for tile in back:
            hand.remove(tile)
        hand.extend(self._draw(count))
        self.bag.extend(back)
        self.rng.shuffle(self.bag)
        return self.game.trade(count)

    def play_until(self, *, tiles: int | None = None, max_turns: int = 1000) -> Game:
        """Step until the board holds at least ``tiles`` tiles (or the game ends)."""
        for _ in range(max_turns):
            if self.game.over or (tiles is not None and len(self.game.board) >= tiles):
                break
            self.step()
        return self.game


def random_board(tiles: int, *, seed: int, variant: str = "classic", greed: float = 0.3) -> Board:
    """A board of at least ``tiles`` tiles (fewer only if the game ended first) reached by legal play."""
    return Simulation(seed, variant=variant, greed=greed).play_until(tiles=tiles).board
