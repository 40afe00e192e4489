"""Frame sources: the Pi camera against the stand-in picamera2 (tests/fakes), OpenCV on a video file,
folder replays, reopening a vanished camera, and the ``--source`` parser."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

from vision.frames import FrameSource, SourceError, SourceUnavailableError
from vision.sources import (
    CAMERA_MODES,
    FolderSource,
    OpenCVSource,
    Picamera2Source,
    camera_mode,
    open_source,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


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


def test_frames_are_delivered_at_the_asked_rate(picamera2: ModuleType) -> None:
    picamera2.rig.attach("imx219", table_scene())
    clock, waits = Clock(), []

    def sleep(seconds: float) -> None:
        waits.append(round(seconds, 6))
        clock.now += seconds

    with Picamera2Source(fps=2.0, clock=clock, sleep=sleep) as source:
        first = source.read()
        clock.now += 0.1  # the caller worked for 0.1 s
        second = source.read()
        clock.now += 0.7  # and then for longer than a slot: no wait
        third = source.read()
    assert waits == [0.4]
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


def test_folder_holds_each_photo_for_a_while(tmp_path: Path) -> None:
    write_photos(tmp_path, ["a.png", "b.png"])
    clock = Clock()
    with FolderSource(tmp_path, hold=3.0, clock=clock, sleep=lambda s: None) as source:
        seen = []
        for t in (0.0, 1.0, 2.9, 3.0, 4.0):
            clock.now = t
            seen.append(source.read())
    assert [f.meta["file"] for f in seen] == ["a.png", "a.png", "a.png", "b.png", "b.png"]
    assert [f.index for f in seen] == [0, 1, 2, 3, 4]
    assert not seen[0].image.flags.writeable  # shared while held: nobody may draw on it


def test_folder_delivers_like_a_camera_at_its_frame_rate(tmp_path: Path) -> None:
    write_photos(tmp_path, ["a.png", "b.png"])
    clock = Clock()

    def sleep(seconds: float) -> None:
        clock.now += seconds

    with FolderSource(tmp_path, hold=1.0, fps=2.0, clock=clock, sleep=sleep) as source:
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
