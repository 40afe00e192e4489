"""Printed boards: Qwirkle Connect's 16×16 board with bonus cells and printed start tiles.

A :class:`Layout` fixes the origin of the grid: with one, cells are board cells ``0..rows-1`` and
``0..cols-1``, a tile covering a bonus cell adds that cell's points, and the game starts from the layout's
start tiles.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from table.board import Board, Cell
from table.errors import BoardFormatError


@dataclass(frozen=True)
class Layout:
    """A printed board: its size, bonus cells and start tiles."""

    variant: str
    rows: int
    cols: int
    bonus: Mapping[Cell, int] = field(default_factory=dict)
    start_tiles: Board = field(default_factory=Board)

    def __post_init__(self) -> None:
        if self.rows <= 0 or self.cols <= 0:
            raise BoardFormatError(f"layout: rows and cols must be positive, got {self.rows}×{self.cols}")
        for cell in (*self.bonus, *self.start_tiles):
            if not self.contains(cell):
                raise BoardFormatError(f"layout: cell {cell} is off the {self.rows}×{self.cols} board")

    def contains(self, cell: Cell) -> bool:
        r, c = cell
        return 0 <= r < self.rows and 0 <= c < self.cols

    def bonus_at(self, cell: Cell) -> int:
        return self.bonus.get(cell, 0)


@cache
def connect_layout() -> Layout:
    """The standard Qwirkle Connect board shipped with the package (read once)."""
    from table.codec import layout_from_json

    text = resources.files("table").joinpath("layouts/connect.json").read_text(encoding="utf-8")
    data: Any = json.loads(text)
    return layout_from_json(data, where="connect.json")
