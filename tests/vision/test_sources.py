"""Frame sources: the Pi camera against the stand-in picamera2 (tests/fakes), OpenCV on a video file,
folder replays, reopening a vanished camera, and the ``--source`` parser."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.conftest import FakeClock
from vision.frames import FrameSource, SourceError, SourceUnavailableError
from vision.sources import (
    FolderSource,
    OpenCVSource,
    Picamera2Source,
    open_source,
)

# --- OpenCV --------------------------------------------------------------------------------------------


def test_opencv_source_reads_a_video_file_in_bgr(tmp_path: Path) -> None:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    colours = [(0, 0, 255), (0, 255, 0), (255, 0, 0)]
    for colour in colours:
        writer.write(np.full((48, 64, 3), colour, np.uint8))
    writer.release()
    with OpenCVSource(str(path)) as source:
        frames = [source.read() for _ in colours]
        with pytest.raises(SourceUnavailableError, match="stream ended"):
            source.read()
    assert [f.index for f in frames] == [0, 1, 2]
    for frame, colour in zip(frames, colours, strict=True):
        assert frame.image.shape == (48, 64, 3)
        assert np.abs(frame.image[24, 32].astype(int) - colour).max() < 8


def test_opencv_source_without_the_camera() -> None:
    with pytest.raises(SourceUnavailableError, match=r"opencv:97: cannot open"):
        OpenCVSource(97).open()


# --- folders -------------------------------------------------------------------------------------------


def write_photos(folder: Path, names: list[str]) -> None:
    folder.mkdir(exist_ok=True)
    for i, name in enumerate(names):
        cv2.imwrite(str(folder / name), np.full((20, 30, 3), 10 * i, np.uint8))


def test_folder_replays_in_natural_order_then_holds_the_last(tmp_path: Path) -> None:
    write_photos(tmp_path, ["1.png", "10.png", "2.png"])
    (tmp_path / "notes.txt").write_text("not a photo")
    with FolderSource(tmp_path, hold=0) as source:
        files = [source.read().meta["file"] for _ in range(5)]
    assert files == ["1.png", "2.png", "10.png", "10.png", "10.png"]


def test_folder_loops_when_asked(tmp_path: Path) -> None:
    write_photos(tmp_path, ["a.png", "b.png"])
    with FolderSource(tmp_path, hold=0, loop=True) as source:
        assert [source.read().meta["file"] for _ in range(3)] == ["a.png", "b.png", "a.png"]


def test_folder_holds_each_photo_for_a_while(tmp_path: Path, clock: FakeClock) -> None:
    write_photos(tmp_path, ["a.png", "b.png"])
    with FolderSource(tmp_path, hold=3.0, clock=clock, sleep=lambda s: None) as source:
        seen = []
        for t in (0.0, 1.0, 2.9, 3.0, 4.0):
            clock.now = t
            seen.append(source.read())
    assert [f.meta["file"] for f in seen] == ["a.png", "a.png", "a.png", "b.png", "b.png"]
    assert [f.index for f in seen] == [0, 1, 2, 3, 4]
    assert not seen[0].image.flags.writeable  # shared while held: nobody may draw on it


def test_folder_delivers_like_a_camera_at_its_frame_rate(tmp_path: Path, clock: FakeClock) -> None:
    write_photos(tmp_path, ["a.png", "b.png"])
    with FolderSource(tmp_path, hold=1.0, fps=2.0, clock=clock, sleep=clock.sleep) as source:
        frames = [source.read() for _ in range(4)]
    assert [f.timestamp for f in frames] == [0.0, 0.5, 1.0, 1.5]
    assert [f.meta["file"] for f in frames] == ["a.png", "a.png", "b.png", "b.png"]


def test_a_corrupt_photo_is_named_and_skipped(tmp_path: Path) -> None:
    write_photos(tmp_path, ["1.png", "3.png"])
    (tmp_path / "2.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    with FolderSource(tmp_path, hold=0) as source:
        assert source.read().meta["file"] == "1.png"
        with pytest.raises(SourceError, match=r"2\.jpg is not a readable image"):
            source.read()
        assert source.read().meta["file"] == "3.png"


def test_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceUnavailableError, match="no such folder"):
        FolderSource(tmp_path / "missing").open()
    with pytest.raises(SourceUnavailableError, match="holds no photos"):
        FolderSource(tmp_path).open()


# --- the --source parser -------------------------------------------------------------------------------


def test_open_source_parses_every_kind(tmp_path: Path) -> None:
    pi = open_source("picamera2", lens_position=1.5, fps=1.0)
    assert isinstance(pi, Picamera2Source)
    assert (pi.camera_num, pi.lens_position, pi.pacer.fps, pi.name) == (0, 1.5, 1.0, "picamera2")
    second = open_source("picamera2:1")
    assert isinstance(second, Picamera2Source) and second.camera_num == 1
    usb = open_source("opencv:0")
    assert isinstance(usb, OpenCVSource) and usb.device == 0
    stream = open_source("opencv:rtsp://table.local:8554/cam")
    assert isinstance(stream, OpenCVSource) and stream.device == "rtsp://table.local:8554/cam"
    folder = open_source(f"dir:{tmp_path}", hold=0.5, fps=4.0)
    assert isinstance(folder, FolderSource) and (folder.hold, folder.pacer.fps) == (0.5, 4.0)


def test_open_source_demo() -> None:
    pytest.importorskip("vision.demo")
    assert isinstance(open_source("demo"), FrameSource)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("webcam", "unknown source"),
        ("picamera2:left", "camera number"),
        ("opencv:", "say which camera"),
        ("dir:", "say which folder"),
        ("dir:/no/such/folder", "no such folder"),
        ("demo:fast", "unknown source"),
    ],
)
def test_open_source_errors_name_the_spec(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message) as caught:
        open_source(spec)
    text = str(caught.value)
    assert text.startswith(f"--source {spec!r}:") and "\n" not in text
