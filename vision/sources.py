"""Frame sources: OpenCV cameras and streams, a folder of photos, and the parser for ``qwirkle serve
--source SPEC`` that also opens the Raspberry Pi camera (:mod:`vision.pi_camera`) and the demo.

Every source delivers BGR uint8 frames of shape (H, W, 3) (see :mod:`vision.frames`).

A source that loses its device raises :class:`~vision.frames.SourceUnavailableError` naming it and
releases nothing by itself: the caller closes it (the ``with`` block does) and opens it again later, as
the game service's camera loop does, reporting the message on the scoreboard meanwhile. Every source
here can be opened again after a close.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.frames import Frame, FrameSource, Pacer, SourceError, SourceUnavailableError
from vision.pi_camera import CameraSettings, Picamera2Source

SPECS = "picamera2[:NUM], opencv:INDEX_OR_URL, dir:PATH or demo"
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})


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
