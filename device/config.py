"""The device's settings: ``/etc/qwirkle/config.toml``, read with :mod:`tomllib`.

Every key is optional and has a default; an unknown key or section is an error naming it (a typo must not
silently fall back to a default), and so is a value of the wrong kind. The file the installer writes is
``systemd/config.toml`` in the repository, with the port and a fresh PIN filled in.

::

    [camera]
    source = "picamera2"          # a --source SPEC: picamera2, opencv:0, dir:PATH, demo
    # lens_position = 1.6         # dioptres, fixes a Camera Module 3 lens (else: autofocus once)
    fps = 2.0                     # frames the Pi camera hands to the reader per second

    [server]
    host = "0.0.0.0"
    port = 8000
    state_dir = "/var/lib/qwirkle"   # the game store lives here

    [game]
    variant = "classic"
    pin = "4821"                  # 4-8 digits, asked before any change on a phone

    [calibration]
    path = "/var/lib/qwirkle/calibration.json"
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from table.errors import QwirkleError

DEFAULT_PATH = Path("/etc/qwirkle/config.toml")
VARIANTS = ("classic", "colour-blind", "herkle", "cubes", "connect")


class ConfigError(QwirkleError, ValueError):
    """A config file that cannot be read, or a key in it that is unknown or has a bad value."""


@dataclass(frozen=True)
class Config:
    """The settings, with their defaults (what a missing file means)."""

    source: str = "picamera2"
    lens_position: float | None = None
    fps: float = 2.0
    host: str = "0.0.0.0"
    port: int = 8000
    state_dir: Path = Path("/var/lib/qwirkle")
    variant: str = "classic"
    pin: str | None = None
    calibration: Path | None = Path("/var/lib/qwirkle/calibration.json")
    path: Path | None = None  # the file these came from; None for the defaults

    @property
    def store(self) -> Path:
        """The game store (SQLite) inside ``state_dir``."""
        return self.state_dir / "games.sqlite3"

    def to_json(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError("must be a non-empty string")
    return value.strip()


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise TypeError("must be a whole number from 1 to 65535")
    return value


def _lens(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 32.0:
        raise TypeError("must be a number of dioptres from 0 (infinity) to 32")
    return float(value)


def _fps(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value <= 30.0:
        raise TypeError("must be frames per second, more than 0 and at most 30")
    return float(value)


def _variant(value: Any) -> str:
    if value not in VARIANTS:
        raise TypeError(f"must be one of {', '.join(VARIANTS)}")
    return str(value)


def _pin(value: Any) -> str:
    if not isinstance(value, str) or not (value.isascii() and value.isdigit()) or not 4 <= len(value) <= 8:
        raise TypeError('must be 4 to 8 digits in quotes, e.g. "4821"')
    return value


def _path(value: Any) -> Path:
    return Path(_text(value))


# section -> key -> (Config field, check-and-convert)
SCHEMA: dict[str, dict[str, tuple[str, Callable[[Any], Any]]]] = {
    "camera": {
        "source": ("source", _text),
        "lens_position": ("lens_position", _lens),
        "fps": ("fps", _fps),
    },
    "server": {"host": ("host", _text), "port": ("port", _port), "state_dir": ("state_dir", _path)},
    "game": {"variant": ("variant", _variant), "pin": ("pin", _pin)},
    "calibration": {"path": ("calibration", _path)},
}


def parse_config(data: Mapping[str, Any], *, where: str) -> Config:
    """A :class:`Config` from parsed TOML; errors name ``where`` and the key at fault."""
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section not in SCHEMA:
            sections = ", ".join(f"[{name}]" for name in SCHEMA)
            what = f"section [{section}]" if isinstance(table, Mapping) else f"top-level key {section}"
            raise ConfigError(f"{where}: unknown {what} (known sections: {sections})")
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: {section} must be a [{section}] section, not a single value")
        for key, value in table.items():
            if key not in SCHEMA[section]:
                known = ", ".join(SCHEMA[section])
                raise ConfigError(f"{where}: unknown key {section}.{key} (known in [{section}]: {known})")
            name, convert = SCHEMA[section][key]
            try:
                values[name] = convert(value)
            except TypeError as err:
                raise ConfigError(f"{where}: {section}.{key} {err}, not {value!r}") from None
    return Config(**values, path=Path(where))


def load_config(path: str | Path | None = None) -> Config:
    """Read the config file at ``path`` (default :data:`DEFAULT_PATH`).

    A missing file at the default path gives the defaults; a missing file that was named explicitly is an
    error, as is anything unreadable, malformed or unknown inside it.
    """
    explicit = path is not None
    file = Path(path) if path is not None else DEFAULT_PATH
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{file}: no such file") from None
        return Config()
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{file}: cannot read ({err})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{file}: not valid TOML ({err})") from None
    return parse_config(data, where=str(file))
