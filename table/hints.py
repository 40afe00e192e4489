"""Legal moves: where one tile may go, every legal play from a hand, the best one, and who starts.

For learners (hint mode) and for settling claims such as "there was nothing I could play".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from table.board import Board, Cell, PlacedTile
from table.layout import Layout
from table.lines import AXES, line_ok, line_through
from table.scoring import Score, score
from table.tiles import CLASSIC, Tile, TileSet


@dataclass(frozen=True, slots=True)
class Play:
    """A legal placement and its score."""

    placement: tuple[PlacedTile, ...]
    score: Score


class _Search:
    """The move generator: one board, one tile set, with per-(cell, tile, axis) answers cached."""

    def __init__(self, board: Board, tileset: TileSet, layout: Layout | None) -> None:
        self.board = board
        self.tiles = board._tiles
        self.tileset = tileset
        self.layout = layout
        self._cross: dict[tuple[Cell, Tile, Cell], bool] = {}

    def anchors(self) -> Iterable[Cell]:
        if not self.tiles:
            return [(0, 0)] if self.layout is None else self._layout_cells()
        frontier = self.board.frontier
        if self.layout is not None:
            return [c for c in frontier if self.layout.contains(c)]
        return frontier

    def _layout_cells(self) -> list[Cell]:
        assert self.layout is not None
        return [(r, c) for r in range(self.layout.rows) for c in range(self.layout.cols)]

    def fits(self, cell: Cell, tile: Tile, axis: Cell) -> bool:
        """Whether ``tile`` at empty ``cell`` makes a valid line with the board's tiles along ``axis``."""
        key = (cell, tile, axis)
        ok = self._cross.get(key)
        if ok is None:
            line = line_through(self.tiles, cell, axis)
            ok = line_ok([tile if c == cell else self.tiles[c] for c in line])
            self._cross[key] = ok
        return ok

    def within_limits(self, extra: Counter[Tile]) -> bool:
        ts = self.tileset
        if ts.per_colour is not None:
            colours = Counter[str]()
            for t, n in extra.items():
                colours[t.colour] += n
            return all(self.board.colour_counts[c] + n <= ts.per_colour for c, n in colours.items())
        assert ts.copies is not None
        return all(self.board.counts[t] + n <= ts.copies for t, n in extra.items())

    def singles(self, tile: Tile) -> list[Cell]:
        if not self.tileset.has(tile) or not self.within_limits(Counter({tile: 1})):
            return []
        return sorted(c for c in self.anchors() if all(self.fits(c, tile, ax) for ax in AXES))

    def plays(self, hand: Iterable[Tile]) -> Iterator[tuple[PlacedTile, ...]]:
        """Every distinct legal placement from ``hand`` (a multiset of tiles)."""
        hand_counts = Counter(t for t in hand if self.tileset.has(t))
        seen: set[frozenset[PlacedTile]] = set()
        for tile in sorted(hand_counts):
            for cell in self.singles(tile):
                start = (PlacedTile(cell[0], cell[1], tile),)
                rest = hand_counts.copy()
                rest[tile] -= 1
                for axis in AXES:
                    yield from self._grow(start, rest, axis, seen)

    def _grow(
        self,
        placed: tuple[PlacedTile, ...],
        rest: Counter[Tile],
        axis: Cell,
        seen: set[frozenset[PlacedTile]],
    ) -> Iterator[tuple[PlacedTile, ...]]:
        key = frozenset(placed)
        if key not in seen:
            seen.add(key)
            yield placed
        cross = AXES[1] if axis == AXES[0] else AXES[0]
        merged = dict(self.tiles)
        for p in placed:
            merged[p.cell] = p.tile
        line = line_through(merged, placed[0].cell, axis)
        dr, dc = axis
        ends = ((line[0][0] - dr, line[0][1] - dc), (line[-1][0] + dr, line[-1][1] + dc))
        for end in ends:
            if self.layout is not None and not self.layout.contains(end):
                continue
            grown_line = line_through(merged, end, axis)  # the current line, the end cell, any run beyond
            for tile in sorted(t for t, n in rest.items() if n > 0):
                if not self.fits(end, tile, cross):
                    continue
                if not line_ok([tile if c == end else merged[c] for c in grown_line]):
                    continue
                extra = Counter(p.tile for p in placed)
                extra[tile] += 1
                if not self.within_limits(extra):
                    continue
                grown = (*placed, PlacedTile(end[0], end[1], tile))
                if frozenset(grown) in seen:
                    continue
                left = rest.copy()
                left[tile] -= 1
                yield from self._grow(grown, left, axis, seen)


def spots(
    board: Board, tile: Tile, *, tileset: TileSet = CLASSIC, layout: Layout | None = None
) -> list[Cell]:
    """Every empty cell where ``tile`` alone may legally go, sorted by row then column.

    On an empty table without a printed board the answer is ``[(0, 0)]``: the first tile may go anywhere,
    and the origin is arbitrary.
    """
    return _Search(board, tileset, layout).singles(tile)


def legal_plays(
    board: Board, hand: Iterable[Tile], *, tileset: TileSet = CLASSIC, layout: Layout | None = None
) -> Iterator[tuple[PlacedTile, ...]]:
    """Every distinct legal placement of tiles from ``hand`` (on an empty table, through (0, 0))."""
    return _Search(board, tileset, layout).plays(hand)


def best_play(
    board: Board, hand: Iterable[Tile], *, tileset: TileSet = CLASSIC, layout: Layout | None = None
) -> Play | None:
    """The highest-scoring legal play from ``hand``, or None when nothing can be played.

    Ties go to the play with more tiles, then to the first in row-column order, so the answer is stable.
    """
    best: Play | None = None
    best_key: tuple[int, int, tuple[PlacedTile, ...]] | None = None
    for placement in legal_plays(board, hand, tileset=tileset, layout=layout):
        ordered = tuple(sorted(placement))
        points = score(board, ordered, layout=layout)
        key = (-points.total, -len(ordered), ordered)
        if best_key is None or key < best_key:
            best, best_key = Play(ordered, points), key
    return best


def largest_group(hand: Iterable[Tile]) -> int:
    """The size of the largest set of distinct tiles in ``hand`` sharing a colour or a shape.

    This is the number each player announces to decide who starts.
    """
    distinct = set(hand)
    by_colour = Counter(t.colour for t in distinct)
    by_shape = Counter(t.shape for t in distinct)
    return max([*by_colour.values(), *by_shape.values()], default=0)


def first_player(hands: Iterable[Iterable[Tile]]) -> list[int]:
    """The indexes of the players who may start: those with the largest group.

    More than one index is a tie, which the rules break by age (the oldest starts): a person's call.
    """
    sizes = [largest_group(h) for h in hands]
    top = max(sizes, default=0)
    return [i for i, n in enumerate(sizes) if n == top]
