"""The one exception family of the rules core.

Every error names what is at fault (the tile, the cell, the rule, the file) in a single line, so a person
can act on it. All derive from :class:`QwirkleError`, and each also derives from the built-in exception a
caller would naturally catch (``ValueError`` for bad input, ``LookupError`` for unknown names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table.rules import Violation


class QwirkleError(Exception):
    """Base of every error the rules core raises."""


class UnknownVariantError(QwirkleError, LookupError):
    """A variant name that is not one of the known tile sets."""


class TileError(QwirkleError, ValueError):
    """A tile that cannot be parsed, or that the tile set does not have."""


class BoardFormatError(QwirkleError, ValueError):
    """A board, placement, layout or game in text or JSON form that cannot be read."""


class ImpossibleBoardError(QwirkleError, ValueError):
    """A board that no legal game can reach (an invalid line, a fourth copy of a tile, ...)."""

    def __init__(self, violations: tuple[Violation, ...]) -> None:
        self.violations = violations
        first = violations[0].message if violations else "no reason given"
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        super().__init__(f"impossible board: {first}{more}")


class IllegalPlacementError(QwirkleError, ValueError):
    """A placement that breaks at least one rule; ``violations`` says which and where."""

    def __init__(self, violations: tuple[Violation, ...]) -> None:
        self.violations = violations
        super().__init__("illegal placement: " + "; ".join(v.message for v in violations))


class GameError(QwirkleError, ValueError):
    """A game action that the game's state does not allow (the game is over, the bag is too small, ...)."""
