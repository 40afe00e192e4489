"""The rules core: tiles, boards, placement rules, scoring, legal moves and game state.

Pure Python (standard library only), so it runs anywhere and is fast to test. The names most callers
need are re-exported here.
"""

from table.board import Board, Cell, PlacedTile, Placement, parse_placement
from table.errors import (
    BoardFormatError,
    GameError,
    IllegalPlacementError,
    ImpossibleBoardError,
    QwirkleError,
    TileError,
    UnknownVariantError,
)
from table.game import Game, Turn
from table.hints import Play, best_play, first_player, largest_group, legal_plays, spots
from table.layout import Layout, connect_layout
from table.rules import Rule, Violation, board_violations, check, check_board, is_legal, violations
from table.scoring import Score, ScoredLine, score
from table.tiles import TILESETS, VARIANTS, Tile, TileSet, tileset

__all__ = [
    "TILESETS",
    "VARIANTS",
    "Board",
    "BoardFormatError",
    "Cell",
    "Game",
    "GameError",
    "IllegalPlacementError",
    "ImpossibleBoardError",
    "Layout",
    "PlacedTile",
    "Placement",
    "Play",
    "QwirkleError",
    "Rule",
    "Score",
    "ScoredLine",
    "Tile",
    "TileError",
    "TileSet",
    "Turn",
    "UnknownVariantError",
    "Violation",
    "best_play",
    "board_violations",
    "check",
    "check_board",
    "connect_layout",
    "first_player",
    "is_legal",
    "largest_group",
    "legal_plays",
    "parse_placement",
    "score",
    "spots",
    "tileset",
    "violations",
]
