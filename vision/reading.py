"""What the reader says about one frame: tiles with confidences, and the cells it could not read.

Coordinates are (row, col) grid cells: board cells 0..15 with a printed-board layout, otherwise relative
cells whose origin is arbitrary (the game service registers each reading to the last confirmed board).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from table import Board, PlacedTile


@dataclass(frozen=True, slots=True)
class ReadTile:
    """A tile the reader is confident about (``confidence`` in 0..1)."""

    placed: PlacedTile
    confidence: float


@dataclass(frozen=True, slots=True)
class Uncertain:
    """A cell that seems to hold something the reader could not classify, and why
    (``occluded``, ``blur``, ``glare``, ``out-of-frame``, ``low-confidence``, ...)."""

    row: int
    col: int
    reason: str


@dataclass(frozen=True)
class Reading:
    """The reader's answer for one frame."""

    tiles: tuple[ReadTile, ...]
    uncertain: tuple[Uncertain, ...] = ()
    elapsed_ms: float = 0.0
    geometry: dict[str, Any] = field(default_factory=dict)

    @property
    def board(self) -> Board:
        """The confidently read tiles as a board."""
        return Board.of(t.placed for t in self.tiles)

    def to_json(self) -> dict[str, Any]:
        """The contract's ``read`` JSON."""
        return {
            "tiles": [
                {
                    "row": t.placed.row,
                    "col": t.placed.col,
                    "colour": t.placed.tile.colour,
                    "shape": t.placed.tile.shape,
                    "confidence": round(t.confidence, 4),
                }
                for t in sorted(self.tiles, key=lambda t: t.placed)
            ],
            "uncertain": [{"row": u.row, "col": u.col, "reason": u.reason} for u in self.uncertain],
            "elapsed_ms": round(self.elapsed_ms, 2),
        }
