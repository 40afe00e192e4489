"""Frame sources: the Raspberry Pi camera, OpenCV cameras and streams, a folder of photos, and the parser
for ``qwirkle serve --source SPEC``.

Every source delivers BGR uint8 frames of shape (H, W, 3) (see :mod:`vision.frames`). ``picamera2`` is
imported only when a :class:`Picamera2Source` opens, so this module works on any machine; on a Pi it
comes from Debian (``apt install python3-picamera2``) into a venv made with ``--system-site-packages``.

A source that loses its device raises :class:`~vision.frames.SourceUnavailableError` naming it and
releases nothing by itself: the caller closes it (the ``with`` block does) and opens it again later, as
the game service's camera loop does, reporting the message on the scoreboard meanwhile. Every source
here can be opened again after a close.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.frames import Frame, FrameSource, SourceError, SourceUnavailableError

SPECS = "picamera2[:NUM], opencv:INDEX_OR_URL, dir:PATH or demo"
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})

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


class Pacer:
    """Hands out at most ``fps`` frames per second: :meth:`wait` sleeps until the next slot, as a camera's
    read blocks until its next frame (None: no waiting)."""

    def __init__(
        self,
        fps: float | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if fps is not None and fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.fps = fps
        self.clock = clock
        self.sleep = sleep
        self._next_at = -math.inf

    def wait(self) -> float:
        """Sleep until the next slot if need be; the time then."""
        now = self.clock()
        if self.fps is None:
            return now
        if now < self._next_at:
            self.sleep(self._next_at - now)
            now = self.clock()
        self._next_at = max(now, self._next_at) + 1.0 / self.fps
        return now


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


class OpenCVSource(FrameSource):
    """A camera or stream through OpenCV: a V4L2 index (USB webcam), a device path, a video file or a
    network URL (``rtsp://``, ``http://``). Frames come as OpenCV decodes them: BGR.

    Parameters
    ----------
    device : int or str
        The index or the path/URL given to ``cv2.VideoCapture``.
    size : (width, height), optional
        Ask the camera for this size.
    timeout : float
        Seconds to wait for a network stream to open or to deliver a frame.
    """

    def __init__(
        self, device: int | str, *, size: tuple[int, int] | None = None, timeout: float = 5.0
    ) -> None:
        self.device = device
        self.name = f"opencv:{device}"
        self.size = size
        self.timeout = timeout
        self._capture: cv2.VideoCapture | None = None
        self._index = 0

    def open(self) -> None:
        if self._capture is not None:
            return
        if isinstance(self.device, str) and "://" in self.device:
            ms = int(self.timeout * 1000)
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
            capture = cv2.VideoCapture(self.device, cv2.CAP_FFMPEG, params)
        else:
            capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            raise SourceUnavailableError(
                f"{self.name}: cannot open it (no such camera, file or stream; "
                "`ls /dev/video*` lists cameras)"
            )
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the freshest frame, not one queued seconds ago
        if self.size is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._capture = capture
        self._index = 0

    def read(self) -> Frame:
        if self._capture is None:
            raise SourceError(f"{self.name}: read() before open()")
        ok, image = self._capture.read()
        if not ok or image is None:
            raise SourceUnavailableError(f"{self.name}: no frame (camera unplugged or stream ended)")
        image = _as_bgr(image, self.name)
        frame = Frame(image, self._index, time.monotonic(), {})
        self._index += 1
        return frame

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


def _as_bgr(image: np.ndarray, name: str) -> np.ndarray:
    """Grey or BGRA pictures as BGR uint8; anything else is an error naming the source."""
    if image.dtype != np.uint8:
        raise SourceError(f"{name}: expected 8-bit frames, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise SourceError(f"{name}: expected an H×W×3 picture, got shape {image.shape}")


def _natural_key(path: Path) -> list[Any]:
    """Sort ``1_2.jpg`` before ``1_10.jpg``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


class FolderSource(FrameSource):
    """Replays the photos in a folder, in natural name order, as if a camera were looking at each in turn.

    Like a camera, :meth:`read` delivers ``fps`` frames per second (None: as fast as asked). Each photo
    is shown for ``hold`` seconds (by ``clock``), so a turn detector that waits for a still table sees
    one; ``hold=0`` moves on at every read. After the last photo the source keeps showing it
    (the table stays as the game left it), or starts again with ``loop=True``. A photo that cannot be
    decoded raises :class:`~vision.frames.SourceError` naming it, and the next read moves on.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        hold: float = 3.0,
        loop: bool = False,
        fps: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = Path(path)
        self.name = f"dir:{path}"
        self.hold = hold
        self.loop = loop
        self.pacer = Pacer(fps, clock=clock, sleep=sleep)
        self._files: list[Path] = []
        self._position = -1
        self._shown_since = -math.inf
        self._image: np.ndarray | None = None
        self._index = 0

    def open(self) -> None:
        if not self.path.is_dir():
            raise SourceUnavailableError(f"{self.name}: no such folder")
        self._files = sorted(
            (p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
            key=_natural_key,
        )
        if not self._files:
            suffixes = " ".join(sorted(IMAGE_SUFFIXES))
            raise SourceUnavailableError(f"{self.name}: the folder holds no photos ({suffixes})")
        self._position = -1
        self._shown_since = -math.inf
        self._image = None
        self._index = 0

    def read(self) -> Frame:
        if not self._files:
            raise SourceError(f"{self.name}: read() before open()")
        now = self.pacer.wait()
        if self._image is None or now - self._shown_since >= self.hold:
            self._advance(now)
        assert self._image is not None
        file = self._files[self._position]
        frame = Frame(self._image, self._index, now, {"file": file.name, "path": str(file)})
        self._index += 1
        return frame

    def close(self) -> None:
        self._files = []
        self._image = None

    def _advance(self, now: float) -> None:
        last = len(self._files) - 1
        if self._position < last:
            self._position += 1
        elif self.loop:
            self._position = 0
        elif self._image is not None:
            return  # the end of the game: keep showing the last photo
        self._shown_since = now
        file = self._files[self._position]
        if not file.is_file():
            raise SourceUnavailableError(f"{self.name}: {file.name} has gone")
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image is None:
            self._image = None
            raise SourceError(f"{self.name}: {file.name} is not a readable image")
        image.flags.writeable = False  # the same picture is handed out for every read while it is held
        self._image = image


def open_source(
    spec: str,
    *,
    lens_position: float | None = None,
    fps: float | None = 2.0,
    hold: float = 3.0,
    locked: CameraSettings | None = None,
) -> FrameSource:
    """The frame source a ``--source SPEC`` names, not yet opened (use it in a ``with`` block).

    SPEC is ``picamera2`` (or ``picamera2:NUM``), ``opencv:INDEX_OR_URL``, ``dir:PATH`` or ``demo``.
    ``fps`` (frames delivered per second) goes to the Pi camera and folder replays, ``lens_position`` and
    ``locked`` (a calibration's camera values) to the Pi camera, ``hold`` (seconds per photo) to folder
    replays.

    Raises
    ------
    SourceError
        One line naming the spec, when it is malformed or names an unknown kind of source.
    """
    kind, _, argument = spec.partition(":")
    if kind == "picamera2":
        if argument and not argument.isdigit():
            raise SourceError(
                f"--source {spec!r}: picamera2 takes a camera number (picamera2:1), not {argument!r}"
            )
        return Picamera2Source(int(argument or 0), lens_position=lens_position, fps=fps, locked=locked)
    if kind == "opencv":
        if not argument:
            raise SourceError(
                f"--source {spec!r}: say which camera or stream, e.g. opencv:0 or opencv:rtsp://…"
            )
        return OpenCVSource(int(argument) if argument.isdigit() else argument)
    if kind == "dir":
        if not argument:
            raise SourceError(f"--source {spec!r}: say which folder, e.g. dir:photos/")
        if not Path(argument).is_dir():
            raise SourceError(f"--source {spec!r}: no such folder {argument!r}")
        return FolderSource(argument, hold=hold, fps=fps)
    if kind == "demo" and not argument:
        from vision.demo import DemoSource

        demo: FrameSource = DemoSource()
        return demo
    raise SourceError(f"--source {spec!r}: unknown source; expected {SPECS}")
