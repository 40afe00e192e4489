"""vision/sources.py: a Pi camera started with a calibration's locked values (``Picamera2Source(locked=...)``)
against the stand-in picamera2 (tests/fakes): no settling, no autofocus, the stored values set at once."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from vision.sources import CameraSettings, Picamera2Source, open_source

LOCKED = CameraSettings(exposure_us=12000, analogue_gain=2.5, colour_gains=(1.9, 1.4), lens_position=2.2)


def _scene() -> np.ndarray:
    return np.full((480, 640, 3), 120, np.uint8)


def test_locked_values_are_set_without_settling_or_autofocus(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx708", _scene(), light=0.3, focus_at=1.0)
    source = Picamera2Source(locked=LOCKED)
    with source:
        frame = source.read()  # the very first frame already has the locked values
        log = sensor.holder.controls_log
    assert source.settings == LOCKED
    assert [c["AfMode"] for c in log if "AfMode" in c] == [0]  # manual at once: no autofocus cycle
    assert {"AfMode": 0, "LensPosition": 2.2} in log
    assert log[-1] == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 12000,
        "AnalogueGain": 2.5,
        "ColourGains": (1.9, 1.4),
    }
    assert frame.meta["ExposureTime"] == 12000 and frame.meta["AnalogueGain"] == pytest.approx(2.5)
    assert tuple(frame.meta["ColourGains"]) == pytest.approx((1.9, 1.4))
    assert frame.meta["LensPosition"] == pytest.approx(2.2)


def test_a_given_lens_position_wins_over_the_locked_one(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx708", _scene())
    source = Picamera2Source(locked=LOCKED, lens_position=0.8)
    with source:
        log = sensor.holder.controls_log
    assert {"AfMode": 0, "LensPosition": 0.8} in log
    assert source.settings is not None and source.settings.lens_position == 0.8
    assert source.settings.exposure_us == 12000


def test_a_fixed_focus_camera_takes_the_exposure_but_no_lens(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx219", _scene())
    source = Picamera2Source(locked=LOCKED)
    with source:
        log = sensor.holder.controls_log
    assert not any("AfMode" in c or "LensPosition" in c for c in log)
    assert source.settings is not None and source.settings.lens_position is None
    assert log[-1]["ExposureTime"] == 12000 and log[-1]["AeEnable"] is False


def test_open_source_hands_the_locked_values_to_the_pi_camera(picamera2: ModuleType) -> None:
    picamera2.rig.attach("imx708", _scene())
    source = open_source("picamera2", locked=LOCKED, fps=None)
    assert isinstance(source, Picamera2Source) and source.locked == LOCKED
    with source:
        source.read()
    assert source.settings == LOCKED
