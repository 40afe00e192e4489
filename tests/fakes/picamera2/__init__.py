"""A stand-in for the ``picamera2`` package, for testing :mod:`vision.pi_camera` off a Raspberry Pi.

It copies the parts of the real library's behaviour the adapter relies on:

- ``Picamera2(camera_num)`` raises ``RuntimeError("Camera __init__ sequence did not complete.")`` when the
  camera is absent or already held (libcamera lets one process own a camera), like the real one;
- ``global_camera_info()`` lists attached cameras as ``{"Model", "Location", "Rotation", "Id", "Num"}``;
- ``create_video_configuration()`` / ``configure()`` / ``start()`` / ``stop()`` / ``close()``, with the
  real checks (even sizes, known formats, no reconfigure while started) and sensor-mode selection;
- ``capture_array`` / ``capture_arrays`` / ``capture_metadata`` with ``wait=False`` returning a job that
  ``wait(job, timeout)`` completes, raising ``TimeoutError`` when the camera has stalled;
- colour order as the real formats deliver it: ``RGB888`` arrives **B, G, R**, ``BGR888`` arrives R, G, B,
  ``XBGR8888`` arrives R, G, B, 255 and ``XRGB8888`` B, G, R, 255;
- automatic exposure and white balance that converge over frames and freeze when switched off, controls
  that take effect two frames after ``set_controls``, unknown controls rejected, metadata per frame;
- on the Camera Module 3 (imx708), a lens: ``autofocus_cycle()`` scans to the scene's focus, a manual
  ``LensPosition`` away from it blurs the picture.

The simulated hardware lives in :data:`rig`: tests attach cameras, show them a scene (a BGR uint8
picture of what is under the lens), change the light and unplug them. Nothing here touches a device.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

__all__ = ["Picamera2", "rig"]

INIT_FAILED = "Camera __init__ sequence did not complete."
CONTROL_DELAY_FRAMES = 2
AE_TARGET = 110.0  # mean grey level the automatic exposure aims at
AF_MODES = {"Manual": 0, "Auto": 1, "Continuous": 2}
AF_STATE_FOCUSED = 2

SENSORS: dict[str, dict[str, Any]] = {
    "imx219": {
        "resolution": (3280, 2464),
        "modes": [((640, 480), 103.3), ((1640, 1232), 41.85), ((1920, 1080), 47.57), ((3280, 2464), 21.19)],
        "autofocus": False,
    },
    "imx708": {
        "resolution": (4608, 2592),
        "modes": [((1536, 864), 120.13), ((2304, 1296), 56.03), ((4608, 2592), 14.35)],
        "autofocus": True,
    },
    "imx477": {
        "resolution": (4056, 3040),
        "modes": [((1332, 990), 120.05), ((2028, 1080), 50.03), ((2028, 1520), 40.01), ((4056, 3040), 10.0)],
        "autofocus": False,
    },
}


@dataclass
class Sensor:
    """One simulated camera on the rig."""

    model: str
    scene: np.ndarray
    light: float = 1.0  # scene brightness: 2.0 is twice as bright
    illuminant: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R tint of the light
    focus_at: float = 1.5  # dioptres where the lens is sharp (Camera Module 3 only)
    attached: bool = True
    failure: str = "stall"  # what capturing does once unplugged: "stall" (times out) or "error"
    holder: Picamera2 | None = None
    opened: int = 0  # how many times Picamera2() acquired it

    @property
    def spec(self) -> dict[str, Any]:
        return SENSORS[self.model]


@dataclass
class Rig:
    """The simulated hardware: the cameras plugged into the Pi."""

    sensors: list[Sensor] = field(default_factory=list)

    def attach(self, model: str = "imx708", scene: np.ndarray | None = None, **kwargs: Any) -> Sensor:
        if model not in SENSORS:
            raise ValueError(f"stand-in knows {sorted(SENSORS)}, not {model!r}")
        if scene is None:
            scene = np.full((480, 640, 3), 128, np.uint8)
        sensor = Sensor(model, scene, **kwargs)
        self.sensors.append(sensor)
        return sensor

    def reset(self) -> None:
        self.sensors.clear()

    def present(self) -> list[Sensor]:
        return [s for s in self.sensors if s.attached]


rig = Rig()


class Job:
    """What ``capture_*(wait=False)`` returns; :meth:`Picamera2.wait` completes it."""

    def __init__(self, camera: Picamera2, work: Any) -> None:
        self.camera = camera
        self.work = work


def _stream(defaults: dict[str, Any], updates: dict[str, Any] | None) -> dict[str, Any] | None:
    if updates is None:
        return None
    stream = dict(defaults)
    for key, value in updates.items():
        if key not in ("format", "size"):
            raise ValueError(f"Bad key {key!r}: valid stream configuration keys are ('format', 'size')")
        stream[key] = value
    return stream


class Picamera2:
    """The stand-in camera class."""

    def __init__(self, camera_num: int = 0, tuning: Any = None) -> None:
        present = rig.present()
        if not present or camera_num >= len(present) or present[camera_num].holder is not None:
            raise RuntimeError(INIT_FAILED)
        self.sensor = present[camera_num]
        self.sensor.holder = self
        self.sensor.opened += 1
        self.camera_idx = camera_num
        self.is_open = True
        self.started = False
        self.camera_config: dict[str, Any] | None = None
        self.sensor_resolution = self.sensor.spec["resolution"]
        self.frames = 0
        self.mode_size: tuple[int, int] | None = None
        self.pending: list[tuple[int, dict[str, Any]]] = []
        self.controls_log: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {
            "AeEnable": True,
            "AwbEnable": True,
            "ExposureTime": 10000,
            "AnalogueGain": 1.0,
            "ColourGains": (1.0, 1.0),
            "FrameDurationLimits": (33333, 33333),
        }
        if self.sensor.spec["autofocus"]:
            self.state |= {"AfMode": AF_MODES["Continuous"], "LensPosition": 1.0, "AfTrigger": 0}

    # --- what the real class offers -------------------------------------------------------------------

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        return [
            {
                "Model": s.model,
                "Location": 2,
                "Rotation": 180,
                "Id": f"/base/soc/i2c0mux/i2c@1/{s.model}@1a",
                "Num": i,
            }
            for i, s in enumerate(rig.present())
        ]

    @property
    def camera_properties(self) -> dict[str, Any]:
        return {"Model": self.sensor.model, "PixelArraySize": self.sensor_resolution, "Location": 2}

    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        controls: dict[str, tuple[Any, Any, Any]] = {
            "AeEnable": (False, True, None),
            "AwbEnable": (False, True, None),
            "ExposureTime": (26, 3_000_000, 20000),
            "AnalogueGain": (1.0, 16.0, None),
            "ColourGains": (0.0, 32.0, None),
            "FrameDurationLimits": (33333, 3_000_000, 33333),
            "NoiseReductionMode": (0, 4, 0),
        }
        if self.sensor.spec["autofocus"]:
            controls |= {"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0)}
        return controls

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        return [
            {"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": size, "fps": fps}
            for size, fps in self.sensor.spec["modes"]
        ]

    def create_video_configuration(  # noqa: PLR0917 (the real signature)
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 6,
        controls: dict[str, Any] | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
    ) -> dict[str, Any]:
        main_stream = _stream({"format": "XBGR8888", "size": (1280, 720)}, main or {})
        assert main_stream is not None
        return {
            "use_case": "video",
            "buffer_count": buffer_count,
            "queue": queue,
            "main": main_stream,
            "lores": _stream({"format": "YUV420", "size": main_stream["size"]}, lores),
            "raw": _stream({"format": "SRGGB10_CSI2P", "size": main_stream["size"]}, raw or {}),
            "controls": {"FrameDurationLimits": (33333, 33333)} | (controls or {}),
            "display": display,
            "encode": encode,
        }

    def configure(self, config: dict[str, Any]) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        for name in ("main", "raw"):
            stream = config.get(name)
            if stream is None:
                continue
            size = stream["size"]
            if not isinstance(size, tuple) or len(size) != 2:
                raise RuntimeError(f"size in {name} stream should be (width, height)")
            if size[0] % 2 or size[1] % 2:
                raise RuntimeError("width and height should be even")
        if config["main"]["format"] not in ("RGB888", "BGR888", "XBGR8888", "XRGB8888", "YUV420"):
            raise RuntimeError(f"Bad format {config['main']['format']} in stream main")
        wanted = config["raw"]["size"] if config.get("raw") else config["main"]["size"]
        modes = [size for size, _ in self.sensor.spec["modes"]]
        # libcamera picks the mode closest to the request (here: least area difference).
        self.mode_size = min(modes, key=lambda s: abs(s[0] * s[1] - wanted[0] * wanted[1]))
        self.camera_config = config
        self._apply(config.get("controls") or {})

    def start(self, config: Any = None, show_preview: bool = False) -> None:
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        if not self.is_open:
            return
        self.stop()
        self.is_open = False
        if self.sensor.holder is self:
            self.sensor.holder = None

    def set_controls(self, controls: dict[str, Any]) -> None:
        for name in controls:
            if name not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        self.controls_log.append(dict(controls))
        self.pending.append((CONTROL_DELAY_FRAMES, dict(controls)))

    def capture_array(self, name: str = "main", wait: bool | None = None) -> Any:
        return self._dispatch(lambda: self._frame(name)[0], wait)

    def capture_arrays(self, names: list[str] | None = None, wait: bool | None = None) -> Any:
        names = names or ["main"]

        def work() -> tuple[list[np.ndarray], dict[str, Any]]:
            image, metadata = self._frame(names[0])
            return [image], metadata

        return self._dispatch(work, wait)

    def capture_metadata(self, wait: bool | None = None) -> Any:
        return self._dispatch(lambda: self._frame(None)[1], wait)

    def autofocus_cycle(self, wait: bool | None = None) -> Any:
        self.set_controls({"AfMode": AF_MODES["Auto"], "AfTrigger": 0})

        def work() -> bool:
            for _ in range(CONTROL_DELAY_FRAMES + 4):  # the scan takes a few frames
                self._frame(None)
            self.state["LensPosition"] = self.sensor.focus_at
            return True

        return self._dispatch(work, wait)

    def wait(self, job: Job, timeout: float | None = None) -> Any:
        if not self.sensor.attached:
            if self.sensor.failure == "error":
                raise RuntimeError("Failed to queue request: Device or resource busy")
            if timeout is None:
                raise AssertionError("the real camera would block forever here: pass a timeout")
            raise TimeoutError()
        return job.work()

    # --- the simulation ------------------------------------------------------------------------------

    def _dispatch(self, work: Any, wait: bool | None) -> Any:
        if not self.started:
            raise RuntimeError("Camera is not started")
        job = Job(self, work)
        return job if wait is False else self.wait(job)

    def _apply(self, controls: dict[str, Any]) -> None:
        self.state.update(controls)

    def _frame(self, name: str | None) -> tuple[np.ndarray | None, dict[str, Any]]:
        """Advance one frame; render the picture only when a stream is asked for (not for metadata)."""
        self.frames += 1
        due = [c for left, c in self.pending if left <= 1]
        self.pending = [(left - 1, c) for left, c in self.pending if left > 1]
        for controls in due:
            self._apply(controls)
        light = np.array(self.sensor.illuminant, np.float32) * self.sensor.light
        light *= self.state["ExposureTime"] * self.state["AnalogueGain"] / 10000.0
        # The exposure and white-balance algorithms look at channel means, as the real ones do at statistics.
        means = self.sensor.scene.reshape(-1, 3).mean(axis=0) * light
        self._auto_exposure(means)
        self._auto_white_balance(means)
        metadata = self._metadata()
        if name is None:
            return None, metadata
        assert self.camera_config is not None and self.mode_size is not None
        width, height = self.camera_config["main"]["size"]
        scene = cv2.resize(self.sensor.scene, (width, height), interpolation=cv2.INTER_AREA)
        red_gain, blue_gain = self.state["ColourGains"]
        image = scene.astype(np.float32) * (light * np.array([blue_gain, 1.0, red_gain], np.float32))
        if "LensPosition" in self.state:
            blur = abs(self.state["LensPosition"] - self.sensor.focus_at) * 3.0
            if blur > 0.3:
                image = cv2.GaussianBlur(image, (0, 0), blur)
        bgr = np.clip(image, 0, 255).astype(np.uint8)
        return self._layout(bgr, self.camera_config["main"]["format"]), metadata

    def _auto_exposure(self, means: np.ndarray) -> None:
        if not self.state["AeEnable"]:
            return
        mean = max(float(means.mean()), 1.0)
        step = math.sqrt(AE_TARGET / mean)  # halfway (in log terms) to the target each frame
        total = self.state["ExposureTime"] * self.state["AnalogueGain"] * step
        longest = self.state["FrameDurationLimits"][1]
        exposure = min(total, longest)
        self.state["ExposureTime"] = max(int(exposure), 26)
        self.state["AnalogueGain"] = float(np.clip(total / exposure, 1.0, 16.0))

    def _auto_white_balance(self, means: np.ndarray) -> None:
        if not self.state["AwbEnable"]:
            return
        blue, green, red = (max(float(v), 1.0) for v in means)
        old_red, old_blue = self.state["ColourGains"]
        self.state["ColourGains"] = (
            math.sqrt(old_red * green / red),
            math.sqrt(old_blue * green / blue),
        )

    def _metadata(self) -> dict[str, Any]:
        metadata = {
            "SensorTimestamp": self.frames * 100_000_000,
            "FrameDuration": self.state["FrameDurationLimits"][1],
            "ExposureTime": self.state["ExposureTime"],
            "AnalogueGain": self.state["AnalogueGain"],
            "DigitalGain": 1.0,
            "ColourGains": tuple(self.state["ColourGains"]),
            "ColourTemperature": 4500,
            "Lux": 400.0 * self.sensor.light,
        }
        if "LensPosition" in self.state:
            metadata |= {"LensPosition": self.state["LensPosition"], "AfState": AF_STATE_FOCUSED}
        return metadata

    @staticmethod
    def _layout(bgr: np.ndarray, fmt: str) -> np.ndarray:
        """Arrange the channels as the real format does (libcamera names them by the 32-bit word)."""
        rgb = bgr[:, :, ::-1]
        alpha = np.full((*bgr.shape[:2], 1), 255, np.uint8)
        if fmt == "RGB888":
            return bgr.copy()
        if fmt == "BGR888":
            return np.ascontiguousarray(rgb)
        if fmt == "XBGR8888":
            return np.concatenate([rgb, alpha], axis=2)
        if fmt == "XRGB8888":
            return np.concatenate([bgr, alpha], axis=2)
        raise NotImplementedError(f"the stand-in does not render {fmt}")
