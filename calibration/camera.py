"""The camera's locked settings in a calibration file, and how a frame source's settings become them.

On a Raspberry Pi the camera source (:class:`vision.pi_camera.Picamera2Source`) lets automatic exposure and
white balance settle, then locks exposure time, analogue gain and colour gains (and a Camera Module 3's
lens position); its :attr:`~vision.pi_camera.Picamera2Source.settings` hold what it locked. Calibration
stores them (:func:`camera_lock`), so that the next start can set the same values instead of settling
again and frames stay comparable with the ones the colours were learned on.
"""

from __future__ import annotations

import math
from typing import Any

from vision.pi_camera import CameraSettings

KEYS = ("exposure_us", "analogue_gain", "colour_gains", "lens_position", "settled")


def camera_lock(source: object) -> CameraSettings | None:
    """The settings a frame source locked (a :class:`~vision.pi_camera.Picamera2Source` after opening), or
    None for sources that lock nothing (webcams, folders of photos, the demo)."""
    settings = getattr(source, "settings", None)
    return settings if isinstance(settings, CameraSettings) else None


def camera_to_json(settings: CameraSettings) -> dict[str, Any]:
    return {
        "exposure_us": settings.exposure_us,
        "analogue_gain": round(settings.analogue_gain, 4),
        "colour_gains": [round(g, 4) for g in settings.colour_gains],
        "lens_position": None if settings.lens_position is None else round(settings.lens_position, 4),
        "settled": settings.settled,
    }


def camera_from_json(data: Any, *, where: str) -> CameraSettings:
    """Read :func:`camera_to_json`'s form; errors name ``where`` and the key at fault."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"unknown key {where}.{unknown[0]} (known: {', '.join(KEYS)})")
    for key in ("exposure_us", "analogue_gain", "colour_gains"):
        if key not in data:
            raise ValueError(f"missing key {where}.{key}")
    exposure = _number(data["exposure_us"], f"{where}.exposure_us", low=1, high=1e8)
    gain = _number(data["analogue_gain"], f"{where}.analogue_gain", low=1.0, high=64.0)
    gains = data["colour_gains"]
    if not isinstance(gains, list) or len(gains) != 2:
        raise ValueError(f"{where}.colour_gains: expected [red, blue], got {gains!r}")
    red = _number(gains[0], f"{where}.colour_gains[0]", low=0.0, high=32.0)
    blue = _number(gains[1], f"{where}.colour_gains[1]", low=0.0, high=32.0)
    lens = data.get("lens_position")
    if lens is not None:
        lens = _number(lens, f"{where}.lens_position", low=0.0, high=32.0)
    settled = data.get("settled", True)
    if not isinstance(settled, bool):
        raise ValueError(f"{where}.settled: expected true or false, got {settled!r}")
    return CameraSettings(round(exposure), gain, (red, blue), lens, settled)


def _number(value: Any, where: str, *, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{where}: expected a number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{where}: {value} is outside {low:g}..{high:g}")
    return float(value)
