"""The Raspberry Pi camera through ``picamera2``: its modes, settling then locking exposure, white balance
and focus, and the values it locked.

``picamera2`` is imported only when a :class:`Picamera2Source` opens, so this module imports on any
machine; on a Pi it comes from Debian (``apt install python3-picamera2``) into a venv made with
``--system-site-packages``. Tests drive it with the stand-in module in ``tests/fakes/picamera2``.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.frames import Frame, FrameSource, Pacer, SourceError, SourceUnavailableError

# libcamera's control values (libcamera.controls.AfModeEnum), spelled out so that nothing needs
# libcamera's own module at import time.
AF_MANUAL = 0
PICAMERA2_HINT = (
    "on Raspberry Pi OS: sudo apt install python3-picamera2, and a venv made with --system-site-packages"
)
CAMERA_BUSY_HINT = "another process holds it; is the qwirkle service running? (sudo systemctl stop qwirkle)"


@dataclass(frozen=True)
class CameraMode:
    """The mode a Raspberry Pi camera runs in: a full-field binned sensor mode, delivered unscaled.

    Sizes are (width, height), as libcamera states them.
    """

    module: str
    sensor_size: tuple[int, int]
    frame_rate: float = 10.0

    @property
    def size(self) -> tuple[int, int]:
        return self.sensor_size


# Keyed by the sensor name libcamera reports as "Model" (Camera Module 3 Wide reports "imx708_wide").
CAMERA_MODES: dict[str, CameraMode] = {
    "imx219": CameraMode("Camera Module 2", (1640, 1232)),
    "imx708": CameraMode("Camera Module 3", (2304, 1296)),
    "imx477": CameraMode("HQ Camera", (2028, 1520)),
}


def camera_mode(model: str, sensor_resolution: tuple[int, int]) -> CameraMode:
    """The mode for a sensor: the table above, or half the full resolution for sensors it does not list."""
    for name, mode in CAMERA_MODES.items():
        if model == name or model.startswith(name + "_"):
            return mode
    width, height = (v // 2 // 2 * 2 for v in sensor_resolution)
    return CameraMode(f"unlisted sensor {model}", (width, height))


@dataclass(frozen=True)
class CameraSettings:
    """What the Pi camera was locked to after settling: exposure (microseconds), analogue gain, colour
    gains (red, blue) and, with a motorised lens, the lens position (dioptres)."""

    exposure_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]
    lens_position: float | None = None
    settled: bool = True


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2, at the stated :data:`CAMERA_MODES` mode.

    On opening it lets automatic exposure and white balance settle, then locks exposure, gain and colour
    gains so that tile colours stay put for the whole game. On a camera with a motorised lens (Camera
    Module 3) it sets ``lens_position`` when given (from calibration), else runs one autofocus cycle, then
    keeps the lens fixed. Given ``locked`` (a calibration's camera values), it skips settling and sets
    those. The locked values are :attr:`settings` and each frame's ``meta``.

    Parameters
    ----------
    camera_num : int
        Which camera (``Picamera2.global_camera_info()`` order).
    lens_position : float, optional
        Dioptres (1 / metres) to fix the lens at; autofocus once when None (and ``locked`` has none).
    locked : CameraSettings, optional
        Exposure, analogue gain, colour gains [red, blue] and lens position to set at once instead of
        settling (:attr:`calibration.Calibration.camera`), so colours match the calibration's.
    frame_timeout : float
        Seconds to wait for a frame before calling the camera vanished.
    settle_frames, max_settle_frames : int
        Exposure counts as settled once this many consecutive frames agree within 3 %; it is locked after
        ``max_settle_frames`` regardless (``settings.settled`` is then False).
    fps : float, optional
        Frames :meth:`read` delivers per second at most (it waits for the next slot, then takes the
        freshest frame); the camera itself keeps running at its mode's rate, so exposures stay short.
        None delivers every frame.
    clock, sleep : callables
        Time functions (for tests).
    """

    def __init__(
        self,
        camera_num: int = 0,
        *,
        lens_position: float | None = None,
        locked: CameraSettings | None = None,
        frame_timeout: float = 3.0,
        settle_frames: int = 5,
        max_settle_frames: int = 60,
        fps: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.pacer = Pacer(fps, clock=clock, sleep=sleep)
        self.camera_num = camera_num
        self.name = "picamera2" if camera_num == 0 else f"picamera2:{camera_num}"
        self.lens_position = lens_position
        self.locked = locked
        self.frame_timeout = frame_timeout
        self.settle_frames = settle_frames
        self.max_settle_frames = max_settle_frames
        self.model = ""
        self.mode: CameraMode | None = None
        self.settings: CameraSettings | None = None
        self._camera: Any = None
        self._index = 0

    def open(self) -> None:
        if self._camera is not None:
            return
        try:
            module = importlib.import_module("picamera2")
        except ImportError:
            raise SourceError(
                f"{self.name}: the picamera2 module is not installed ({PICAMERA2_HINT})"
            ) from None
        cameras = module.Picamera2.global_camera_info()
        if self.camera_num >= len(cameras):
            found = ", ".join(c.get("Model", "?") for c in cameras) or "none"
            raise SourceUnavailableError(
                f"{self.name}: no camera {self.camera_num} (cameras found: {found}); check that the ribbon "
                "cable is seated at both ends with the latches closed, then `rpicam-hello --list-cameras`"
            )
        self.model = str(cameras[self.camera_num].get("Model", "unknown"))
        try:
            camera = module.Picamera2(self.camera_num)
        except RuntimeError as err:
            raise SourceUnavailableError(
                f"{self.name}: the {self.model} camera could not be opened ({err}); {CAMERA_BUSY_HINT}"
            ) from None
        try:
            self.mode = camera_mode(self.model, tuple(camera.sensor_resolution))
            camera.configure(
                camera.create_video_configuration(
                    # RGB888 is libcamera's name for a 24-bit word whose bytes arrive B, G, R: exactly
                    # OpenCV's BGR order, so frames need no conversion.
                    main={"format": "RGB888", "size": self.mode.size},
                    raw={"size": self.mode.sensor_size},
                    buffer_count=3,
                    controls={"FrameDurationLimits": (round(1e6 / self.mode.frame_rate),) * 2},
                )
            )
            camera.start()
            self._camera = camera
            self.settings = self._settle_and_lock()
        except (RuntimeError, TimeoutError) as err:
            self._release(camera)
            raise SourceUnavailableError(
                f"{self.name}: the {self.model} camera failed to start ({err})"
            ) from None
        self._index = 0

    def read(self) -> Frame:
        if self._camera is None:
            raise SourceError(f"{self.name}: read() before open()")
        now = self.pacer.wait()
        (image,), metadata = self._wait(self._camera.capture_arrays(["main"], wait=False))
        if image.ndim != 3 or image.shape[2] != 3:
            raise SourceError(f"{self.name}: expected H×W×3 frames, the camera gave shape {image.shape}")
        frame = Frame(image, self._index, now, self._meta(metadata))
        self._index += 1
        return frame

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            self._release(camera)

    # --- helpers ---------------------------------------------------------------------------------------

    def _wait(self, job: Any) -> Any:
        """Complete a picamera2 job, turning a stalled or failed camera into SourceUnavailableError."""
        try:
            return self._camera.wait(job, timeout=self.frame_timeout)
        except TimeoutError:
            raise SourceUnavailableError(
                f"{self.name}: no frame from the {self.model} camera for {self.frame_timeout:g} s "
                "(cable loose or camera unplugged?)"
            ) from None
        except RuntimeError as err:
            raise SourceUnavailableError(f"{self.name}: the {self.model} camera failed ({err})") from None

    def _metadata(self) -> dict[str, Any]:
        result: dict[str, Any] = self._wait(self._camera.capture_metadata(wait=False))
        return result

    def _settle_and_lock(self) -> CameraSettings:
        camera = self._camera
        lens: float | None = None
        if "AfMode" in camera.camera_controls:
            lens = self.lens_position
            if lens is None and self.locked is not None:
                lens = self.locked.lens_position
            if lens is None:
                self._wait(camera.autofocus_cycle(wait=False))
                lens = float(self._metadata()["LensPosition"])
            camera.set_controls({"AfMode": AF_MANUAL, "LensPosition": lens})
        settings = self._settle(lens) if self.locked is None else replace(self.locked, lens_position=lens)
        camera.set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": settings.exposure_us,
                "AnalogueGain": settings.analogue_gain,
                "ColourGains": settings.colour_gains,
            }
        )
        if self.locked is not None:  # controls take effect a few frames later: the first frame is locked
            for _ in range(self.max_settle_frames):
                if _agree([(self._metadata()["ExposureTime"],), (settings.exposure_us,)], tolerance=0.03):
                    break
        return settings

    def _settle(self, lens: float | None) -> CameraSettings:
        """Let automatic exposure and white balance settle; what they settled on."""
        history: list[tuple[float, ...]] = []
        settled = False
        for _ in range(self.max_settle_frames):
            metadata = self._metadata()
            history.append((metadata["ExposureTime"] * metadata["AnalogueGain"], *metadata["ColourGains"]))
            recent = history[-self.settle_frames :]
            if len(recent) == self.settle_frames and _agree(recent, tolerance=0.03):
                settled = True
                break
        return CameraSettings(
            exposure_us=int(metadata["ExposureTime"]),
            analogue_gain=float(metadata["AnalogueGain"]),
            colour_gains=(float(metadata["ColourGains"][0]), float(metadata["ColourGains"][1])),
            lens_position=lens,
            settled=settled,
        )

    def _meta(self, metadata: dict[str, Any]) -> dict[str, Any]:
        meta = {"camera": self.model, "mode": self.mode.module if self.mode else ""}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition", "Lux"):
            if key in metadata:
                meta[key] = metadata[key]
        return meta

    @staticmethod
    def _release(camera: Any) -> None:
        # A vanished camera may fail to close; libcamera releases it with the process anyway.
        with contextlib.suppress(RuntimeError, OSError):
            camera.close()


def _agree(values: list[tuple[float, ...]], *, tolerance: float) -> bool:
    """Whether every component of ``values`` stays within ``tolerance`` (relative) of its mean."""
    array = np.asarray(values, dtype=float)
    mean = array.mean(axis=0)
    return bool(np.all(np.abs(array - mean) <= tolerance * np.maximum(np.abs(mean), 1e-9)))
