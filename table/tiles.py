"""Tiles and tile sets.

A :class:`Tile` is a colour and a shape, named as in the project's contract (``red``, ``circle``). Its
text form is ``"red:circle"``; inside board literals every tile has a two-letter code, the colour's
upper-case letter then the shape's lower-case letter (``Ro`` is a red circle, ``Kz`` a black saltire).

A :class:`TileSet` says which tiles exist and how many of each, which is all the rules need to know about
an edition: the colour-blind edition plays exactly like classic (its outer shape is the shape, its inner
shape/colour pair is the colour), Herkle renames colours and shapes, Qwirkle Cubes has 15 cubes of each
colour whose shape is whatever face was rolled, and Qwirkle Connect swaps purple for white.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from table.errors import TileError, UnknownVariantError


class Tile(NamedTuple):
    """One tile: a colour and a shape (lower-case names). Immutable, hashable, ordered.

    A named tuple rather than a dataclass: tiles are hashed millions of times by the move search.
    """

    colour: str
    shape: str

    def __str__(self) -> str:
        return f"{self.colour}:{self.shape}"

    @property
    def code(self) -> str:
        """The two-letter code (``Ro`` for a red circle); codes are unique across all editions."""
        try:
            return _COLOUR_CODES[self.colour] + _SHAPE_CODES[self.shape]
        except KeyError:
            raise TileError(f"tile {self}: no code for this colour or shape") from None

    @classmethod
    def from_code(cls, code: str) -> Tile:
        """The tile of a two-letter code such as ``Ro``."""
        try:
            return _BY_CODE[code]
        except KeyError:
            raise TileError(
                f"tile code {code!r}: unknown (colour letters {''.join(_COLOUR_CODES.values())}, "
                f"shape letters {''.join(_SHAPE_CODES.values())})"
            ) from None

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``"colour:shape"`` (for example ``"red:circle"``); the names are not checked here."""
        colour, sep, shape = text.strip().lower().partition(":")
        if not sep or not colour or not shape:
            raise TileError(f"tile {text!r}: expected colour:shape, for example red:circle")
        return cls(colour, shape)


CLASSIC_COLOURS = ("red", "orange", "yellow", "green", "blue", "purple")
CLASSIC_SHAPES = ("circle", "criss-cross", "diamond", "square", "starburst", "clover")

_COLOUR_CODES = {
    "red": "R",
    "orange": "O",
    "yellow": "Y",
    "green": "G",
    "blue": "B",
    "purple": "P",
    "white": "W",
    "black": "K",
}
_SHAPE_CODES = {
    "circle": "o",
    "criss-cross": "x",
    "diamond": "d",
    "square": "s",
    "starburst": "t",
    "clover": "c",
    "fess": "f",
    "pale": "p",
    "bend": "b",
    "cross": "k",
    "saltire": "z",
    "chevron": "v",
}
_BY_CODE = {
    c + s: Tile(colour, shape) for colour, c in _COLOUR_CODES.items() for shape, s in _SHAPE_CODES.items()
}


@dataclass(frozen=True, slots=True)
class TileSet:
    """The tiles of one edition of the game.

    Parameters
    ----------
    name : str
        The variant name of the contract (``classic``, ``colour-blind``, ``herkle``, ``cubes``, ``connect``).
    colours, shapes : tuple of str
        The six colour and six shape names, in the edition's usual order.
    copies : int or None
        How many tiles of each colour and shape exist (3), or None where the shape is rolled (Cubes).
    per_colour : int or None
        For Cubes, how many cubes of each colour exist (15).
    """

    name: str
    colours: tuple[str, ...]
    shapes: tuple[str, ...]
    copies: int | None = 3
    per_colour: int | None = None
    hand_size: int = 6
    rolled: bool = False

    def tiles(self) -> tuple[Tile, ...]:
        """The distinct tiles of the set (36), colour-major."""
        return tuple(Tile(c, s) for c in self.colours for s in self.shapes)

    @property
    def total(self) -> int:
        """How many tiles (or cubes) the bag holds at the start."""
        if self.per_colour is not None:
            return self.per_colour * len(self.colours)
        assert self.copies is not None
        return self.copies * len(self.colours) * len(self.shapes)

    def has(self, tile: Tile) -> bool:
        return tile.colour in self.colours and tile.shape in self.shapes

    def check(self, tile: Tile) -> Tile:
        """Return ``tile`` if the set has it, else raise :class:`TileError` naming what is wrong."""
        if tile.colour not in self.colours:
            raise TileError(
                f"tile {tile}: {self.name} has no colour {tile.colour!r} (it has {', '.join(self.colours)})"
            )
        if tile.shape not in self.shapes:
            raise TileError(
                f"tile {tile}: {self.name} has no shape {tile.shape!r} (it has {', '.join(self.shapes)})"
            )
        return tile

    def parse(self, text: str) -> Tile:
        """Read a tile as ``colour:shape`` or as its two-letter code, and check the set has it."""
        text = text.strip()
        if ":" in text:
            return self.check(Tile.parse(text))
        if len(text) != 2:
            raise TileError(f"tile {text!r}: expected colour:shape (e.g. red:circle) or a code like Ro")
        return self.check(Tile.from_code(text))

    def limit_message(self, tile: Tile, count: int) -> str | None:
        """Why ``count`` tiles like ``tile`` cannot all be on the table, or None if they can.

        For Cubes the limit is per colour, so ``count`` is the number of cubes of that colour.
        """
        if self.per_colour is not None:
            if count > self.per_colour:
                return (
                    f"{count} {tile.colour} cubes, but {self.name} has only {self.per_colour} of each colour"
                )
            return None
        assert self.copies is not None
        if count > self.copies:
            return f"{count} copies of {tile}, but {self.name} has only {self.copies} of each tile"
        return None


CLASSIC = TileSet("classic", CLASSIC_COLOURS, CLASSIC_SHAPES)
COLOUR_BLIND = TileSet("colour-blind", CLASSIC_COLOURS, CLASSIC_SHAPES)
HERKLE = TileSet(
    "herkle",
    ("red", "white", "yellow", "green", "blue", "black"),
    ("fess", "pale", "bend", "cross", "saltire", "chevron"),
)
CUBES = TileSet("cubes", CLASSIC_COLOURS, CLASSIC_SHAPES, copies=None, per_colour=15, rolled=True)
CONNECT = TileSet("connect", ("red", "orange", "yellow", "green", "blue", "white"), CLASSIC_SHAPES)

TILESETS: dict[str, TileSet] = {t.name: t for t in (CLASSIC, COLOUR_BLIND, HERKLE, CUBES, CONNECT)}
VARIANTS = tuple(TILESETS)


def tileset(name: str) -> TileSet:
    """The tile set of a variant name, or :class:`UnknownVariantError` listing the known ones."""
    try:
        return TILESETS[name]
    except KeyError:
        raise UnknownVariantError(f"variant {name!r}: unknown (known: {', '.join(VARIANTS)})") from None
