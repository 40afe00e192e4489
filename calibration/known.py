"""The known tiles of a calibration photo: measured where they stand, and checked against a reading.

Known tiles come as a :class:`table.Board` (a printed board's start tiles, a confirmed board, or a user's
arrangement of the 36 distinct tiles). :func:`measure_known` finds them in a photo, by their names as the
edition's default prototypes read them, or by the pattern their cells form alone; :func:`verdicts` says
which of them a reading names right, wrong or not at all.
"""

from __future__ import annotations

import numpy as np

from calibration.contact import RIGHT, UNREAD, WRONG
from table import Board, Layout, Tile, TileSet
from table.register import register
from vision.features import Measurements
from vision.reader import locate, measure_tiles
from vision.reading import Reading

#: Fewer known tiles found than this: too few to learn from.
MIN_TILES = 6


def measure_known(image: np.ndarray, known: Board, tileset: TileSet) -> tuple[Measurements, list[Tile]]:
    """The known tiles' measurements: registered by their names as the default prototypes read them, or,
    when that fails (a tile set the defaults cannot name), by position alone."""
    try:
        measured, tiles, _ = measure_tiles(image, known, tileset=tileset)
    except ValueError:
        return _measure_by_position(image, known, tileset)
    if len(tiles) >= MIN_TILES:
        return measured, tiles
    by_position = _measure_by_position(image, known, tileset)
    return by_position if len(by_position[1]) > len(tiles) else (measured, tiles)


def _measure_by_position(
    image: np.ndarray, known: Board, tileset: TileSet
) -> tuple[Measurements, list[Tile]]:
    """Match read cells to ``known`` by the pattern they form alone, turned upright by the grid's angle:
    only when the photo shows exactly the known cells (a user's arrangement, nothing else in view)."""
    located = locate(image, tileset=tileset.name, shields=False)
    if located is None:
        return _empty(), []
    turns = round(located.lattice.angle / 90.0) % 4
    cells = [_turn((int(r), int(c)), -turns) for r, c in located.cells]
    read_origin = np.min(cells, axis=0)
    (r0, c0), _ = known.bounds
    moved = [(r - read_origin[0] + r0, c - read_origin[1] + c0) for r, c in cells]
    if set(moved) != set(known):
        return _empty(), []
    keep = np.arange(len(moved))
    return located.measured.take(keep), [known[cell] for cell in moved]


def _turn(cell: tuple[int, int], turns: int) -> tuple[int, int]:
    r, c = cell
    for _ in range(turns % 4):
        r, c = c, -r
    return r, c


def _empty() -> Measurements:
    return Measurements(*(np.zeros((0,)) for _ in Measurements.__dataclass_fields__))


def verdicts(
    reading: Reading, known: Board, layout: Layout | None
) -> tuple[dict[tuple[int, int], str], np.ndarray | None]:
    """Per known cell: read right, wrong or not at all; and the known-to-reading cell transform (3×3) when
    the reading's cells are not the known board's (a free table)."""
    read = reading.board
    to_known = None
    if layout is None and read:
        motion = register(known, read)
        read = motion.board(read)
        to_known = _inverse_motion(motion.turns, motion.shift)
    verdicts = {}
    for cell, tile in known.items():
        got = read.get(cell)
        verdicts[cell] = UNREAD if got is None else RIGHT if got == tile else WRONG
    return verdicts, to_known


def _inverse_motion(turns: int, shift: tuple[int, int]) -> np.ndarray:
    """3×3 on ``(row, col, 1)`` taking known cells back to reader cells (undo ``shift``, turn back)."""
    turn = np.eye(3)
    for _ in range(turns % 4):
        turn = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]) @ turn
    undo = np.array([[1.0, 0, -shift[0]], [0, 1, -shift[1]], [0, 0, 1]])
    return np.asarray(turn @ undo)
