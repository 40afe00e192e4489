"""Game state: players or teams, turn order, scores, the bag and hand sizes, the end of the game.

The companion cannot see hands, but it can count them: every player starts with six tiles, a play of
``k`` tiles draws ``min(k, bag)`` back, a trade changes nothing in the counts. So it knows when the bag is
empty, who went out (+6, the game ends) and when the game is blocked (every player passed in a row with an
empty bag: the game ends with no bonus).

Qwirkle Cubes, as its rules (seed 004) list the actions of a turn: re-roll some cubes, add cubes to the
grid, or draw (and roll) cubes back up to six. A play does not draw there; :class:`~table.moves.Draw` is
its own turn, and there are no trades.

Like ``chess.Board``, a :class:`Game` keeps a move stack: :meth:`Game.undo` pops a move onto the redo
stack, :meth:`Game.redo` pushes it back, and :meth:`Game.amend` rewrites a past move and replays the rest.
Checking is separate from applying: :meth:`Game.violations`, :meth:`Game.is_legal`, then :meth:`Game.play`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from table.board import Board, PlacedTile
from table.codec import board_to_json, layout_from_json, layout_to_json
from table.errors import BoardFormatError, GameError, IllegalPlacementError, QwirkleError
from table.layout import Layout, connect_layout
from table.moves import Adjust, Draw, Finish, Move, Pass, Play, Reroll, Trade, move_from_json, move_to_json
from table.rules import Violation, violations
from table.scoring import Score, score
from table.tiles import TileSet, tileset

GOING_OUT_BONUS = 6
FORMAT = "qwirkle-game/1"


@dataclass(frozen=True, slots=True)
class Turn:
    """One applied move: who made it, what it scored, and the counts after it."""

    number: int
    player: str
    side: str
    move: Move
    score: Score | None
    out_bonus: int
    bag_after: int
    hand_after: int

    @property
    def points(self) -> int:
        if isinstance(self.move, Adjust):
            return self.move.points
        return (self.score.total if self.score else 0) + self.out_bonus


class Game:
    """A game of Qwirkle in any edition.

    Parameters
    ----------
    players : sequence of str
        Two to four names, in turn order (clockwise from the first player).
    variant : str
        ``classic``, ``colour-blind``, ``herkle``, ``cubes`` or ``connect``.
    teams : two sequences of two names, optional
        Team play: four players in two teams of two who share a score; partners sit opposite, so the
        turn order alternates between the teams.
    layout : Layout, optional
        The printed board (Connect's by default for ``connect``); the game starts from its start tiles.
    turn_seconds : int, optional
        The time limit per turn of the timed variant (kept for the scoreboard's timer).
    """

    def __init__(
        self,
        players: Sequence[str],
        *,
        variant: str = "classic",
        teams: Sequence[Sequence[str]] | None = None,
        layout: Layout | None = None,
        turn_seconds: int | None = None,
    ) -> None:
        self.tileset: TileSet = tileset(variant)
        self.players: tuple[str, ...] = tuple(players)
        _check_players(self.players)
        self.teams: tuple[tuple[str, ...], ...] | None = None
        if teams is not None:
            self.teams = tuple(tuple(t) for t in teams)
            _check_teams(self.players, self.teams)
        if layout is None and variant == "connect":
            layout = connect_layout()
        self.layout = layout
        if turn_seconds is not None and turn_seconds <= 0:
            raise GameError(f"turn_seconds must be positive, got {turn_seconds}")
        self.turn_seconds = turn_seconds
        self.history: list[Turn] = []
        self._redo: list[Move] = []
        self._reset()

    # Set-up -------------------------------------------------------------------------------------------
    @property
    def variant(self) -> str:
        return self.tileset.name

    @property
    def sides(self) -> tuple[str, ...]:
        """The names that hold scores: the players, or in team play the teams (``"Ann & Cid"``)."""
        if self.teams is None:
            return self.players
        return tuple(" & ".join(t) for t in self.teams)

    def side_of(self, player: str) -> str:
        if self.teams is None:
            return player
        for team in self.teams:
            if player in team:
                return " & ".join(team)
        raise GameError(f"player {player!r} is in no team")

    def _reset(self) -> None:
        self.board: Board = self.layout.start_tiles if self.layout else Board()
        self.bag: int = self.tileset.total - len(self.board)
        self.hands: list[int] = []
        for _ in self.players:
            drawn = min(self.tileset.hand_size, self.bag)
            self.hands.append(drawn)
            self.bag -= drawn
        self.scores: dict[str, int] = dict.fromkeys(self.sides, 0)
        self.to_move: int = 0
        self.over: bool = False
        self.ending: str | None = None
        self._passes = 0
        self.history = []

    # Queries ------------------------------------------------------------------------------------------
    @property
    def player(self) -> str:
        """Whose turn it is."""
        return self.players[self.to_move]

    @property
    def moves(self) -> tuple[Move, ...]:
        return tuple(t.move for t in self.history)

    def violations(self, placement: Iterable[PlacedTile]) -> tuple[Violation, ...]:
        """Every rule that ``placement`` breaks on the current board (hands are not known)."""
        return violations(self.board, placement, tileset=self.tileset, layout=self.layout)

    def is_legal(self, placement: Iterable[PlacedTile]) -> bool:
        return not self.violations(placement)

    def winners(self) -> list[str]:
        """The sides with the highest score (more than one is a tie); empty while the game goes on."""
        if not self.over:
            return []
        top = max(self.scores.values())
        return [s for s, v in self.scores.items() if v == top]

    # Moves --------------------------------------------------------------------------------------------
    def play(self, placement: Iterable[PlacedTile]) -> Turn:
        """Put ``placement`` down for the player to move; raise :class:`IllegalPlacementError` if illegal."""
        return self.push(Play(tuple(sorted(placement))))

    def trade(self, count: int) -> Turn:
        return self.push(Trade(count))

    def reroll(self, count: int) -> Turn:
        return self.push(Reroll(count))

    def draw(self) -> Turn:
        """Qwirkle Cubes: draw back up to six cubes as the turn's action."""
        return self.push(Draw())

    def pass_turn(self) -> Turn:
        return self.push(Pass())

    def adjust(self, side: str, points: int, note: str = "") -> Turn:
        return self.push(Adjust(side, points, note))

    def finish(self) -> Turn:
        return self.push(Finish())

    def push(self, move: Move) -> Turn:
        """Apply ``move`` and clear the redo stack."""
        turn = self._apply(move)
        self._redo.clear()
        return turn

    def undo(self) -> Move:
        """Take back the last move (it goes onto the redo stack)."""
        if not self.history:
            raise GameError("nothing to undo: no move has been made")
        moves = list(self.moves)
        last = moves.pop()
        self._replay(moves)
        self._redo.append(last)
        return last

    def redo(self) -> Turn:
        """Make again the last move taken back."""
        if not self._redo:
            raise GameError("nothing to redo")
        return self._apply(self._redo.pop())

    def amend(self, number: int, move: Move) -> None:
        """Replace move ``number`` (1-based) and replay every later one; nothing changes if any fails."""
        moves = list(self.moves)
        if not 1 <= number <= len(moves):
            raise GameError(f"turn {number}: no such turn (turns 1–{len(moves)})")
        moves[number - 1] = move
        self._replay(moves)

    def _replay(self, moves: Sequence[Move]) -> None:
        old = self.moves
        self._reset()
        try:
            for move in moves:
                self._apply(move)
        except QwirkleError:
            self._reset()
            for move in old:
                self._apply(move)
            raise

    def _apply(self, move: Move) -> Turn:
        if self.over and not isinstance(move, Adjust):
            raise GameError(f"the game is over ({self.ending}); {move} is not possible")
        player = self.player
        side = self.side_of(player)
        hand = self.hands[self.to_move]
        points: Score | None = None
        out_bonus = 0
        match move:
            case Play(tiles):
                if not tiles:
                    raise GameError(f"{player}: a play needs at least one tile")
                if len(tiles) > hand:
                    raise GameError(f"{player} holds {hand} tiles and cannot place {len(tiles)}")
                found = self.violations(tiles)
                if found:
                    raise IllegalPlacementError(found)
                points = score(self.board, tiles, layout=self.layout)
                self.board = self.board.with_tiles(tiles)
                # Cubes: drawing is an action of its own (Draw); the other editions draw after playing
                drawn = 0 if self.tileset.rolled else min(len(tiles), self.bag)
                self.bag -= drawn
                hand = hand - len(tiles) + drawn
                self.scores[side] += points.total
                self._passes = 0
                if hand == 0 and self.bag == 0:
                    out_bonus = GOING_OUT_BONUS
                    self.scores[side] += out_bonus
                    self.over, self.ending = True, f"{player} went out"
            case Trade(count) | Reroll(count):
                word = "trade" if isinstance(move, Trade) else "re-roll"
                if isinstance(move, Reroll) and not self.tileset.rolled:
                    raise GameError(f"{player}: re-rolling is a Qwirkle Cubes action, not {self.variant}")
                if isinstance(move, Trade) and self.tileset.rolled:
                    raise GameError(f"{player}: Qwirkle Cubes has no trades; re-roll instead")
                if not 1 <= count <= hand:
                    raise GameError(f"{player}: can {word} 1 to {hand} tiles, not {count}")
                if isinstance(move, Trade) and count > self.bag:
                    raise GameError(f"{player}: cannot trade {count} tiles, the bag holds only {self.bag}")
                self._passes = 0
            case Draw():
                if not self.tileset.rolled:
                    raise GameError(
                        f"{player}: drawing is a Qwirkle Cubes action; {self.variant} draws after a play"
                    )
                drawn = min(self.tileset.hand_size - hand, self.bag)
                if drawn <= 0:
                    why = "the bag is empty" if not self.bag else f"the hand already holds {hand}"
                    raise GameError(f"{player}: cannot draw, {why}")
                self.bag -= drawn
                hand += drawn
                self._passes = 0
            case Pass():
                if self.bag:
                    raise GameError(
                        f"{player}: the bag still holds {self.bag} tiles; trade instead of passing"
                    )
                self._passes += 1
                if self._passes >= len(self.players):
                    self.over, self.ending = True, "blocked: every player passed"
            case Adjust(target, delta, _):
                if target not in self.scores:
                    raise GameError(f"adjust: no side {target!r} (sides: {', '.join(self.sides)})")
                self.scores[target] += delta
            case Finish():
                self.over, self.ending = True, "ended by the players"
        self.hands[self.to_move] = hand
        turn = Turn(len(self.history) + 1, player, side, move, points, out_bonus, self.bag, hand)
        self.history.append(turn)
        if isinstance(move, Play | Trade | Reroll | Draw | Pass) and not self.over:
            self.to_move = (self.to_move + 1) % len(self.players)
        return turn

    # JSON ---------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole game: its set-up and its moves (and the redo stack), from which all else follows."""
        return {
            "format": FORMAT,
            "variant": self.variant,
            "players": list(self.players),
            "teams": [list(t) for t in self.teams] if self.teams else None,
            "turn_seconds": self.turn_seconds,
            "layout": layout_to_json(self.layout) if self.layout else None,
            "moves": [move_to_json(m) for m in self.moves],
            "redo": [move_to_json(m) for m in self._redo],
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str = "game") -> Game:
        """Rebuild a game from :meth:`to_json`'s form, replaying and re-checking every move."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BoardFormatError(f"{where}: not a saved game (expected format {FORMAT!r})")
        layout = layout_from_json(data["layout"], where=f"{where}: layout") if data.get("layout") else None
        game = cls(
            data.get("players") or [],
            variant=data.get("variant", "classic"),
            teams=data.get("teams"),
            layout=layout,
            turn_seconds=data.get("turn_seconds"),
        )
        for i, item in enumerate(data.get("moves", [])):
            game._apply(move_from_json(item, where=f"{where}: move {i + 1}", tileset=game.tileset))
        game._redo = [
            move_from_json(item, where=f"{where}: redo {i + 1}", tileset=game.tileset)
            for i, item in enumerate(data.get("redo", []))
        ]
        return game

    def state(self) -> dict[str, Any]:
        """A derived view for people and pages: scores, whose turn, bag, hands, board, turns."""
        return {
            "variant": self.variant,
            "players": [
                {"name": p, "side": self.side_of(p), "hand": self.hands[i]}
                for i, p in enumerate(self.players)
            ],
            "scores": dict(self.scores),
            "to_move": None if self.over else self.player,
            "bag": self.bag,
            "over": self.over,
            "ending": self.ending,
            "winners": self.winners(),
            "board": board_to_json(self.board.placed),
            "turns": [turn_to_json(t) for t in self.history],
            "can_redo": bool(self._redo),
        }


def turn_to_json(turn: Turn) -> dict[str, Any]:
    out: dict[str, Any] = {
        "number": turn.number,
        "player": turn.player,
        "side": turn.side,
        "move": move_to_json(turn.move),
        "points": turn.points,
        "out_bonus": turn.out_bonus,
        "bag_after": turn.bag_after,
    }
    if turn.score is not None:
        out["lines"] = [
            {"cells": [list(c) for c in line.cells], "points": line.points, "qwirkle": line.qwirkle}
            for line in turn.score.lines
        ]
        out["bonus"] = turn.score.bonus
    return out


def _check_players(players: tuple[str, ...]) -> None:
    if not 2 <= len(players) <= 4:
        raise GameError(f"a game has 2 to 4 players, got {len(players)}")
    for p in players:
        if not isinstance(p, str) or not p.strip():
            raise GameError(f"player names must be non-empty strings, got {p!r}")
    if len(set(players)) != len(players):
        raise GameError(f"player names must differ, got {', '.join(players)}")


def _check_teams(players: tuple[str, ...], teams: tuple[tuple[str, ...], ...]) -> None:
    if len(players) != 4 or len(teams) != 2 or any(len(t) != 2 for t in teams):
        raise GameError("team play is four players in two teams of two")
    members = [p for t in teams for p in t]
    if sorted(members) != sorted(players):
        raise GameError(f"teams {teams} must hold each of the players {', '.join(players)} once")
    team_of = {p: i for i, t in enumerate(teams) for p in t}
    for a, b in itertools.pairwise(players):
        if team_of[a] == team_of[b]:
            raise GameError(
                f"partners sit opposite: {a} and {b} are in one team but play one after the other"
            )
