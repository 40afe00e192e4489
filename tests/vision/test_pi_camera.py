"""vision/pi_camera.py: the Raspberry Pi camera against the stand-in picamera2 (tests/fakes): its modes,
BGR frames, settling then locking, focus, pacing, a missing or busy or vanished camera, and starting with a
calibration's locked values (no settling, no autofocus, the stored values set at once)."""

from __future__ import annotations

import sys
from types import ModuleType

import cv2
import numpy as np
import pytest

from tests.conftest import FakeClock
from vision.frames import FrameSource, SourceError, SourceUnavailableError
from vision.pi_camera import CAMERA_MODES, CameraSettings, Picamera2Source, camera_mode
from vision.sources import open_source


def table_scene(shape: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A grey table with a red tile on the left and a blue one on the right (BGR)."""
    scene = np.full((*shape, 3), 120, np.uint8)
    h, w = shape
    scene[h // 3 : 2 * h // 3, w // 8 : 3 * w // 8] = (40, 40, 200)  # red
    scene[h // 3 : 2 * h // 3, 5 * w // 8 : 7 * w // 8] = (200, 70, 40)  # blue
    cv2.putText(scene, "Qwirkle", (w // 4, h - 40), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (20, 20, 20), 4)
    return scene


def sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


# --- the Raspberry Pi camera ---------------------------------------------------------------------------


@pytest.mark.parametrize("model", sorted(CAMERA_MODES))
def test_each_camera_module_runs_in_its_stated_mode(picamera2: ModuleType, model: str) -> None:
    sensor = picamera2.rig.attach(model, table_scene())
    with Picamera2Source() as source:
        frame = source.read()
        camera = sensor.holder
        assert camera.mode_size == CAMERA_MODES[model].sensor_size  # the binned full-field sensor mode
        assert camera.camera_config["main"]["format"] == "RGB888"
        assert camera.camera_config["controls"]["FrameDurationLimits"] == (100000, 100000)
    width, height = CAMERA_MODES[model].size
    assert frame.image.shape == (height, width, 3)
    assert frame.image.dtype == np.uint8
    assert frame.meta["camera"] == model


def test_frames_arrive_in_bgr_order(picamera2: ModuleType) -> None:
    picamera2.rig.attach("imx219", table_scene())
    with Picamera2Source() as source:
        image = source.read().image
    h, w = image.shape[:2]
    red_tile = image[h // 2, w // 4].astype(int)
    blue_tile = image[h // 2, 3 * w // 4].astype(int)
    assert red_tile[2] > red_tile[0] + 80  # channel 2 is red
    assert blue_tile[0] > blue_tile[2] + 80  # channel 0 is blue


def test_exposure_settles_then_locks(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx477", table_scene(), light=0.3, illuminant=(0.7, 1.0, 1.3))
    with Picamera2Source() as source:
        first = source.read()
        settings = source.settings
        assert settings is not None and settings.settled
        # Settled before locking: the dim, warm scene was brought to a normal level and neutral grey.
        grey = first.image[10:40, 10:40].reshape(-1, 3).mean(axis=0)
        assert 80 < grey.mean() < 140
        assert 0.85 < grey[2] / grey[0] < 1.15  # the warm light (red/blue 1.86) was balanced out
        locked = sensor.holder.controls_log[-1]
        assert locked == {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": settings.exposure_us,
            "AnalogueGain": settings.analogue_gain,
            "ColourGains": settings.colour_gains,
        }
        sensor.light = 0.6  # someone switches on a lamp: a locked camera does not compensate
        source.read()
        source.read()
        later = source.read()
    assert later.meta["ExposureTime"] == settings.exposure_us
    assert later.image[10:40, 10:40].mean() == pytest.approx(2 * first.image[10:40, 10:40].mean(), rel=0.1)


def test_camera_module_3_focuses_once_then_fixes_the_lens(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx708", table_scene(), focus_at=2.2)
    with Picamera2Source() as source:
        sharp = source.read()
        log = sensor.holder.controls_log
    assert source.settings is not None and source.settings.lens_position == pytest.approx(2.2)
    assert [c["AfMode"] for c in log if "AfMode" in c] == [1, 0]  # one autofocus cycle, then manual
    assert {"AfMode": 0, "LensPosition": pytest.approx(2.2)} in log
    assert sharp.meta["LensPosition"] == pytest.approx(2.2)

    with Picamera2Source(lens_position=1.0) as source:  # from calibration: no autofocus
        soft = source.read()
        log = sensor.holder.controls_log
    assert [c["AfMode"] for c in log if "AfMode" in c] == [0]
    assert sharpness(soft.image) < 0.5 * sharpness(sharp.image)


def test_frames_are_delivered_at_the_asked_rate(picamera2: ModuleType, clock: FakeClock) -> None:
    picamera2.rig.attach("imx219", table_scene())
    with Picamera2Source(fps=2.0, clock=clock, sleep=clock.sleep) as source:
        first = source.read()
        clock.now += 0.1  # the caller worked for 0.1 s
        second = source.read()
        clock.now += 0.7  # and then for longer than a slot: no wait
        third = source.read()
    assert clock.waits == [0.4]
    assert (first.timestamp, second.timestamp, third.timestamp) == (0.0, 0.5, 1.2)
    with pytest.raises(ValueError, match="fps must be positive"):
        Picamera2Source(fps=0)


def test_fixed_focus_cameras_get_no_focus_controls(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx219", table_scene())
    with Picamera2Source(lens_position=2.0) as source:
        source.read()
        assert not any("AfMode" in c or "LensPosition" in c for c in sensor.holder.controls_log)
        assert source.settings is not None and source.settings.lens_position is None


def test_unlisted_sensor_gets_half_resolution_mode() -> None:
    assert camera_mode("ov5647", (2592, 1944)).size == (1296, 972)
    assert camera_mode("imx708_wide_noir", (4608, 2592)) is CAMERA_MODES["imx708"]


def test_without_picamera2_installed_the_error_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails, as off a Pi
    with pytest.raises(SourceError, match="apt install python3-picamera2") as caught:
        Picamera2Source().open()
    assert not isinstance(caught.value, SourceUnavailableError)  # reopening will not help


def test_no_camera_attached(picamera2: ModuleType) -> None:
    with pytest.raises(SourceUnavailableError, match=r"no camera 0 \(cameras found: none\)"):
        Picamera2Source().open()


def test_one_process_owns_the_camera(picamera2: ModuleType) -> None:
    sensor = picamera2.rig.attach("imx219", table_scene())
    with Picamera2Source() as first:
        with pytest.raises(SourceUnavailableError, match="another process holds it"):
            Picamera2Source().open()
        first.read()
    assert sensor.holder is None  # closing released it
    with Picamera2Source() as again:
        again.read()


def follow(source: FrameSource, attempts: int) -> list[str]:
    """What the game service's camera loop does: read in a ``with`` block; on an error, report the
    message (here: keep it) and open the source again on the next attempt."""
    seen = []
    for _ in range(attempts):
        try:
            with source:
                seen.append(f"frame {source.read().image.shape[1]}")
        except SourceError as err:
            seen.append(str(err))
    return seen


@pytest.mark.parametrize("failure", ["stall", "error"])
def test_a_vanished_camera_is_reported_and_reopened(picamera2: ModuleType, failure: str) -> None:
    sensor = picamera2.rig.attach("imx708", table_scene(), failure=failure)
    source = Picamera2Source(frame_timeout=0.5)
    source.open()
    assert source.read().index == 0
    sensor.attached = False  # mid-game: the ribbon cable comes loose
    with pytest.raises(SourceUnavailableError) as caught:
        source.read()
    message = str(caught.value)
    assert message.startswith("picamera2: ") and "imx708" in message and "\n" not in message
    if failure == "stall":
        assert "no frame from the imx708 camera for 0.5 s" in message
    source.close()
    assert sensor.holder is None  # released, so it can be opened again

    assert (
        follow(source, 2)
        == [
            "picamera2: no camera 0 (cameras found: none); check that the ribbon cable is seated at "
            "both ends with the latches closed, then `rpicam-hello --list-cameras`",
        ]
        * 2
    )
    sensor.attached = True
    assert follow(source, 1) == ["frame 2304"]
    assert sensor.opened == 2
    assert source.settings is not None and source.settings.lens_position == pytest.approx(1.5)


# --- started with locked values ----------------------------------------------------------------------

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
