"""The calibration file: one JSON object with a schema version, written atomically.

::

    {
      "schema": 1,
      "created": "2026-11-21T21:00:00+00:00",
      "tileset": "connect",
      "width": 2040, "height": 1536,          # the frames it was made on
      "balance": [0.68, 1.0, 0.88],           # linear-light BGR gains applied to every frame first
      "prototypes": {...},                    # vision.Prototypes.to_json()
      "samples": {"colours": {"red": 4, ...}, "shapes": {"circle": 4, ...}},
      "geometry": {"pitch", "angle", "cell_to_image", "play_area", "plane", "lens"} or null,
      "camera": {"exposure_us", "analogue_gain", "colour_gains", "lens_position", "settled"} or null,
      "source": {"photo": "start.jpg", "known": "layout", "tiles": 24, "refined": 0},
      "filtered": {...} or null               # prototypes through the noise filter (a dim light)
    }

Unknown keys are errors that name them (a typo must not pass silently). The older form, a bare
``vision.Prototypes`` object (or one under ``"prototypes"`` with nothing else), still loads.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import camera_from_json, camera_to_json
from calibration.geometry import Geometry, Lens, Plane
from table.errors import QwirkleError
from vision.pi_camera import CameraSettings
from vision.prototypes import Prototypes

SCHEMA = 1
KEYS = (
    "schema",
    "created",
    "tileset",
    "width",
    "height",
    "balance",
    "prototypes",
    "samples",
    "geometry",
    "camera",
    "source",
    "filtered",
)
GEOMETRY_KEYS = ("pitch", "angle", "cell_to_image", "play_area", "plane", "lens")
PLANE_KEYS = ("image_to_plane", "square_mm", "rms_px", "corners")
LENS_KEYS = ("camera_matrix", "distortion", "size", "rms_px")
SOURCE_KEYS = ("photo", "known", "tiles", "refined")
#: The keys of :meth:`vision.Prototypes.to_json` (its fields), and the ``outline_scatter`` of files
#: written before the learned spreads replaced it (accepted and left out, see
#: :meth:`vision.Prototypes.from_json`).
PROTOTYPE_KEYS = (*(f.name for f in fields(Prototypes)), "outline_scatter")


class CalibrationError(QwirkleError, ValueError):
    """A calibration file that cannot be read or holds something wrong; the message names the file and
    the key at fault."""


@dataclass(frozen=True)
class Calibration:
    """What calibration learned about one table, light, camera and tile set.

    Attributes
    ----------
    tileset : str
        The variant the prototypes name (``classic``, ``connect``, ...).
    prototypes : Prototypes
        Colour and shape prototypes for :func:`vision.read_table`.
    balance : ndarray, shape (3,)
        Linear-light BGR gains applied to every frame before reading (:mod:`calibration.balance`).
    size : (int, int) or None
        Width and height of the frames it was made on.
    samples : dict
        ``{"colours": {name: n}, "shapes": {name: n}}``: how many tiles taught each prototype (refining
        weighs new tiles against these).
    geometry : Geometry
    camera : CameraSettings or None
        The locked camera values to set on the next start (a Raspberry Pi camera).
    source : dict
        Where it was learned: ``photo``, ``known`` (``layout``, ``board`` or ``arrangement``), ``tiles``,
        ``refined`` (confirmed boards added since).
    created : str
        ISO 8601 time of writing.
    filtered : Prototypes or None
        Prototypes learned on the photo through a noise filter (:mod:`calibration.denoise`): when given,
        every frame is read a second time through the filter with them, and the two readings are put
        together (:func:`calibration.denoise.named_through_filter`). Only for a dim light.
    """

    tileset: str
    prototypes: Prototypes
    balance: np.ndarray = field(default_factory=lambda: np.ones(3))
    size: tuple[int, int] | None = None
    samples: dict[str, dict[str, int]] = field(default_factory=lambda: {"colours": {}, "shapes": {}})
    geometry: Geometry = field(default_factory=Geometry)
    camera: CameraSettings | None = None
    source: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    filtered: Prototypes | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "created": self.created or datetime.now(UTC).isoformat(timespec="seconds"),
            "tileset": self.tileset,
            "width": None if self.size is None else self.size[0],
            "height": None if self.size is None else self.size[1],
            "balance": [round(float(g), 5) for g in self.balance],
            "prototypes": self.prototypes.to_json(),
            "samples": self.samples,
            "geometry": self.geometry.to_json(),
            "camera": None if self.camera is None else camera_to_json(self.camera),
            "source": self.source,
            "filtered": None if self.filtered is None else self.filtered.to_json(),
        }


def from_json(data: Any, *, where: str) -> Calibration:
    """A :class:`Calibration` from :meth:`Calibration.to_json`'s form (or the older bare prototypes).

    Raises
    ------
    CalibrationError
        One line naming ``where`` and the key at fault.
    """
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if "schema" not in data:
        return _legacy(data, where)
    _known_keys(data, KEYS, where, "")
    if data["schema"] != SCHEMA:
        raise CalibrationError(
            f"{where}: schema {data['schema']!r} is not supported (this version reads {SCHEMA})"
        )
    for key in ("tileset", "prototypes"):
        if key not in data:
            raise CalibrationError(f"{where}: missing key {key}")
    tiles = data["tileset"]
    if not isinstance(tiles, str):
        raise CalibrationError(f"{where}: tileset must be a variant name, got {tiles!r}")
    prototypes = _prototypes(data["prototypes"], where, "prototypes")
    filtered = None if data.get("filtered") is None else _prototypes(data["filtered"], where, "filtered")
    for key, found in (("prototypes", prototypes), ("filtered", filtered)):
        if found is not None and found.tileset != tiles:
            raise CalibrationError(f"{where}: {key}.tileset {found.tileset!r} differs from tileset {tiles!r}")
    size = None
    if data.get("width") is not None or data.get("height") is not None:
        size = (_int(data.get("width"), where, "width"), _int(data.get("height"), where, "height"))
    try:
        camera = None if data.get("camera") is None else camera_from_json(data["camera"], where="camera")
    except ValueError as err:
        raise CalibrationError(f"{where}: {err}") from None
    return Calibration(
        tileset=tiles,
        prototypes=prototypes,
        balance=_vector(data.get("balance", [1.0, 1.0, 1.0]), 3, where, "balance", low=1e-3, high=1e3),
        size=size,
        samples=_samples(data.get("samples"), where),
        geometry=_geometry(data.get("geometry"), where),
        camera=camera,
        source=_source(data.get("source"), where),
        created=str(data.get("created") or ""),
        filtered=filtered,
    )


def load(path: str | Path) -> Calibration:
    """Read a calibration file; every failure is a :class:`CalibrationError` naming the file (and key)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CalibrationError(f"{file}: cannot read ({err})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CalibrationError(
            f"{file}: not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    return from_json(data, where=str(file))


def save(calibration: Calibration, path: str | Path) -> Path:
    """Write ``calibration`` to ``path`` atomically: a temporary file beside it, flushed to disk, then
    renamed over the old one (a crash leaves the old file or the new one, never half of one)."""
    file = Path(path)
    text = json.dumps(calibration.to_json(), indent=1) + "\n"
    directory = file.parent if str(file.parent) else Path(".")
    fd, temp = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, file)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return file
    try:
        os.fsync(dir_fd)  # the rename itself survives a power cut
    except OSError:
        pass
    finally:
        os.close(dir_fd)
    return file


# --- checking each part ----------------------------------------------------------------------------------


def _known_keys(data: dict[str, Any], known: tuple[str, ...], where: str, prefix: str) -> None:
    unknown = [k for k in data if k not in known]
    if unknown:
        names = ", ".join(f"{prefix}{k}" for k in unknown)
        raise CalibrationError(
            f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {names} (known: {', '.join(known)})"
        )


def _legacy(data: dict[str, Any], where: str) -> Calibration:
    """The older form: a bare prototypes object, or ``{"prototypes": {...}}``."""
    if set(data) == {"prototypes"}:
        data = data["prototypes"]
        if not isinstance(data, dict):
            raise CalibrationError(f"{where}: prototypes must be an object")
    if "colours" not in data:
        raise CalibrationError(f"{where}: not a calibration file (no schema key)")
    prototypes = _prototypes(data, where, "")
    return Calibration(tileset=prototypes.tileset, prototypes=prototypes, source={"known": "prototypes"})


def _prototypes(data: Any, where: str, key: str) -> Prototypes:
    prefix = f"{key}." if key else ""
    if not isinstance(data, dict):
        raise CalibrationError(f"{where}: {key or 'prototypes'} must be an object")
    _known_keys(data, PROTOTYPE_KEYS, where, prefix)
    try:
        found = Prototypes.from_json(data, where=where)
    except ValueError as err:
        raise CalibrationError(str(err)) from None
    for name, value in (("colour_spread", found.colour_spread), ("shape_spread", found.shape_spread)):
        if not (math.isfinite(value) and value > 0):
            raise CalibrationError(f"{where}: {prefix}{name} must be a positive number, got {value}")
    for kind, table in (("colours", found.colours), ("shapes", found.shapes)):
        for name, array in table.items():
            if not np.all(np.isfinite(array)):
                raise CalibrationError(f"{where}: {prefix}{kind}.{name} holds a value that is not a number")
    return found


def _int(value: Any, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100_000:
        raise CalibrationError(f"{where}: {key} must be a whole number of pixels, got {value!r}")
    return value


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CalibrationError(f"{where}: {key} must be a number, got {value!r}")
    return float(value)


def _vector(value: Any, n: int, where: str, key: str, *, low: float, high: float) -> np.ndarray:
    if not isinstance(value, list) or len(value) != n:
        raise CalibrationError(f"{where}: {key} must be a list of {n} numbers, got {value!r}")
    out = np.array([_number(v, where, key) for v in value])
    if np.any(out < low) or np.any(out > high):
        raise CalibrationError(f"{where}: {key} values must be within {low:g}..{high:g}, got {value!r}")
    return out


def _matrix(value: Any, shape: tuple[int, int], where: str, key: str) -> np.ndarray:
    try:
        out = np.asarray(value, np.float64)
    except (TypeError, ValueError):
        out = np.zeros(0)
    if out.shape != shape or not np.all(np.isfinite(out)):
        raise CalibrationError(f"{where}: {key} must be a {shape[0]}×{shape[1]} matrix of numbers")
    return out


def _samples(value: Any, where: str) -> dict[str, dict[str, int]]:
    if value is None:
        return {"colours": {}, "shapes": {}}
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: samples must be an object")
    _known_keys(value, ("colours", "shapes"), where, "samples.")
    out: dict[str, dict[str, int]] = {}
    for kind in ("colours", "shapes"):
        table = value.get(kind, {})
        if not isinstance(table, dict) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in table.values()
        ):
            raise CalibrationError(f"{where}: samples.{kind} must map names to counts")
        out[kind] = {str(k): int(n) for k, n in table.items()}
    return out


def _source(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: source must be an object")
    _known_keys(value, SOURCE_KEYS, where, "source.")
    return dict(value)


def _geometry(value: Any, where: str) -> Geometry:
    if value is None:
        return Geometry()
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: geometry must be an object")
    _known_keys(value, GEOMETRY_KEYS, where, "geometry.")
    pitch = value.get("pitch")
    angle = value.get("angle")
    h = value.get("cell_to_image")
    area = value.get("play_area")
    area_array = None
    if area is not None:
        try:
            area_array = np.asarray(area, np.float64)
        except (TypeError, ValueError):
            area_array = np.zeros(0)
        if area_array.ndim != 2 or area_array.shape[1] != 2 or len(area_array) < 3:
            raise CalibrationError(
                f"{where}: geometry.play_area must be a list of at least 3 [row, col] points"
            )
    return Geometry(
        pitch=None if pitch is None else _number(pitch, where, "geometry.pitch"),
        angle=None if angle is None else _number(angle, where, "geometry.angle"),
        cell_to_image=None if h is None else _matrix(h, (3, 3), where, "geometry.cell_to_image"),
        play_area=area_array,
        plane=_plane(value.get("plane"), where),
        lens=_lens(value.get("lens"), where),
    )


def _plane(value: Any, where: str) -> Plane | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: geometry.plane must be an object")
    _known_keys(value, PLANE_KEYS, where, "geometry.plane.")
    square = value.get("square_mm")
    corners = value.get("corners", 0)
    if isinstance(corners, bool) or not isinstance(corners, int):
        raise CalibrationError(f"{where}: geometry.plane.corners must be a whole number")
    return Plane(
        _matrix(value.get("image_to_plane"), (3, 3), where, "geometry.plane.image_to_plane"),
        None if square is None else _number(square, where, "geometry.plane.square_mm"),
        _number(value.get("rms_px", 0.0), where, "geometry.plane.rms_px"),
        corners,
    )


def _lens(value: Any, where: str) -> Lens | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CalibrationError(f"{where}: geometry.lens must be an object")
    _known_keys(value, LENS_KEYS, where, "geometry.lens.")
    size = value.get("size")
    if not isinstance(size, list) or len(size) != 2:
        raise CalibrationError(f"{where}: geometry.lens.size must be [width, height]")
    distortion = _vector(value.get("distortion"), 5, where, "geometry.lens.distortion", low=-1e3, high=1e3)
    return Lens(
        _matrix(value.get("camera_matrix"), (3, 3), where, "geometry.lens.camera_matrix"),
        distortion,
        (_int(size[0], where, "geometry.lens.size"), _int(size[1], where, "geometry.lens.size")),
        _number(value.get("rms_px", 0.0), where, "geometry.lens.rms_px"),
    )
