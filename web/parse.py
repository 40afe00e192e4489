"""Reading request bodies: one JSON object, fields checked one by one, errors that name the field.

Views call ``json_body()`` and then ask for each field with its type and range; anything else is a 400
whose message says which field is wrong and what arrived, so a malformed request never reaches the game.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request

from web.errors import ApiError

MAX_TEXT = 200


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Body:
    """The fields of one JSON object sent by a client."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def _get(self, name: str) -> Any:
        if name not in self.data or self.data[name] is None:
            raise ApiError(400, f"{name}: missing")
        return self.data[name]

    def text(self, name: str, *, max_length: int = MAX_TEXT, allow_empty: bool = False) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise ApiError(400, f"{name}: expected a string, got {_shown(value)}")
        value = value.strip()
        if not value and not allow_empty:
            raise ApiError(400, f"{name}: must not be empty")
        if len(value) > max_length:
            raise ApiError(400, f"{name}: at most {max_length} characters, got {len(value)}")
        return value

    def integer(self, name: str, *, low: int, high: int) -> int:
        value = self._get(name)
        if type(value) is not int:
            raise ApiError(400, f"{name}: expected an integer, got {_shown(value)}")
        if not low <= value <= high:
            raise ApiError(400, f"{name}: must be {low} to {high}, got {value}")
        return value

    def optional_integer(self, name: str, *, low: int, high: int) -> int | None:
        return self.integer(name, low=low, high=high) if self.has(name) else None

    def boolean(self, name: str, *, default: bool = False) -> bool:
        if not self.has(name):
            return default
        value = self.data[name]
        if not isinstance(value, bool):
            raise ApiError(400, f"{name}: expected true or false, got {_shown(value)}")
        return value

    def texts(self, name: str, *, low: int, high: int) -> list[str]:
        value = self._get(name)
        if not isinstance(value, list) or not low <= len(value) <= high:
            raise ApiError(400, f"{name}: expected a list of {low} to {high} strings, got {_shown(value)}")
        return [Body({f"{name}[{i}]": v}).text(f"{name}[{i}]", max_length=40) for i, v in enumerate(value)]

    def placement(self, name: str = "placement", *, max_tiles: int = 6) -> Any:
        """A placement as JSON (``{"tiles": [...]}`` or a bare list) of 1 to ``max_tiles`` tiles; the
        service reads the tiles themselves against the game's tile set."""
        data = self._get(name)
        tiles = data.get("tiles") if isinstance(data, dict) else data
        if not isinstance(tiles, list) or not 1 <= len(tiles) <= max_tiles:
            raise ApiError(400, f'{name}: expected {{"tiles": [...]}} with 1 to {max_tiles} placed tiles')
        return data

    def tile(self, name: str = "tile", *, allow_none: bool = False) -> Any:
        """A tile as JSON (``{"colour", "shape"}``; None too if ``allow_none``), read by the service."""
        if allow_none and name in self.data and self.data[name] is None:
            return None
        value = self._get(name)
        if not isinstance(value, dict):
            none = ", or null" if allow_none else ""
            raise ApiError(
                400, f"{name}: expected an object with colour and shape{none}, got {_shown(value)}"
            )
        return value


def json_body() -> Body:
    """The request's JSON object, or a 400 saying what arrived instead."""
    if not request.is_json:
        raise ApiError(
            415, f"expected a JSON body (Content-Type: application/json), got {request.mimetype!r}"
        )
    raw = request.get_data(cache=True)
    try:
        data = json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError) as err:
        raise ApiError(400, f"request body is not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"request body: expected a JSON object, got {type(data).__name__}")
    return Body(data)
