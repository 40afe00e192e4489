"""device/doctor.py and ``qwirkle doctor``: each check's finding and fix, and the exit codes."""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import cv2
import numpy as np
import pytest

import qwirkle
from calibration import Calibration, save
from device.config import ConfigError
from device.doctor import (
    OK,
    PROBLEM,
    SKIPPED,
    Capture,
    Finding,
    check_calibration,
    check_camera,
    check_cast,
    check_config,
    check_disk,
    check_focus,
    check_light,
    check_mode,
    check_port,
    check_service,
    report,
)
from table import tileset
from vision.frames import Frame
from vision.prototypes import default_prototypes
from vision.render import random_scene, render


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    """A rendered, well lit, sharp table."""
    scene = random_scene(seed=5, size=(768, 1024), hand=0.0, light="neutral", table="light-wood", blur=0.4)
    return render(scene).image


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# --- config --------------------------------------------------------------------------------------------


def test_a_bad_config_is_a_problem_and_the_defaults_stand_in(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[server]\nprot = 8000\n", encoding="utf-8")
    finding, config = check_config(path)
    assert finding.status == PROBLEM and "unknown key server.prot" in finding.message
    assert str(path) in finding.fix and config.port == 8000


def test_an_explicit_config_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        check_config(tmp_path / "nope.toml")


# --- camera --------------------------------------------------------------------------------------------


def test_no_picamera2_here_is_a_problem_with_a_way_forward(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    finding, capture = check_camera("picamera2")
    assert (finding.status, capture) == (PROBLEM, None)
    assert "apt install python3-picamera2" in finding.message and "--source demo" in finding.fix


def test_no_camera_on_the_pi(picamera2: ModuleType) -> None:
    finding, _ = check_camera("picamera2")
    assert finding.status == PROBLEM and "no camera 0" in finding.message
    assert "rpicam-hello --list-cameras" in finding.fix


def test_a_camera_held_by_the_service_skips_the_picture_checks(picamera2: ModuleType) -> None:
    picamera2.rig.attach("imx219")
    held = picamera2.Picamera2(0)  # the service has it
    try:
        finding, capture = check_camera("picamera2")
    finally:
        held.close()
    assert (finding.status, capture) == (SKIPPED, None)
    assert "systemctl stop qwirkle" in finding.fix


def test_the_pi_camera_and_its_mode(picamera2: ModuleType, photo: np.ndarray) -> None:
    picamera2.rig.attach("imx708", photo)
    finding, capture = check_camera("picamera2")
    assert finding.status == OK and "imx708 delivers 2304×1296" in finding.message
    assert capture is not None
    mode = check_mode(capture)
    assert mode.status == OK and mode.message.startswith("Camera Module 3, 2304×1296 at 10 fps")
    assert check_focus(capture.frame.image, autofocus=True).status == OK


def test_a_small_frame_is_a_mode_problem(photo: np.ndarray) -> None:
    small = cv2.resize(photo, (640, 480))
    finding = check_mode(Capture(Frame(small, 0, 0.0), source=object()))
    assert finding.status == PROBLEM and "640×480" in finding.message


# --- the picture ---------------------------------------------------------------------------------------


def test_picture_checks_on_a_good_photo(photo: np.ndarray) -> None:
    assert [check_focus(photo).status, check_light(photo).status, check_cast(photo).status] == [OK, OK, OK]


def test_picture_problems_come_with_fixes(photo: np.ndarray) -> None:
    soft = check_focus(cv2.GaussianBlur(photo, (0, 0), 5.0))
    assert soft.status == PROBLEM and "lens" in soft.fix
    assert "lens_position" in check_focus(cv2.GaussianBlur(photo, (0, 0), 5.0), autofocus=True).fix
    dark = check_light((photo * 0.2).astype(np.uint8))
    assert dark.status == PROBLEM and dark.message.startswith("too dark") and "lamp" in dark.fix
    noisy = check_light(photo, {"AnalogueGain": 12.0})
    assert noisy.status == PROBLEM and "gain 12.0" in noisy.message
    glare = photo.copy()
    glare[:200] = 255
    assert "blown out" in check_light(glare).message
    green = check_cast(np.clip(photo * np.array([0.6, 1.3, 0.6]), 0, 255).astype(np.uint8))
    assert green.status == PROBLEM and "green" in green.message
    warm = check_cast(np.clip(photo * np.array([0.45, 1.0, 1.5]), 0, 255).astype(np.uint8))
    assert warm.status == PROBLEM and "orange" in warm.message


# --- calibration ---------------------------------------------------------------------------------------


def write_calibration(path: Path, size: tuple[int, int]) -> None:
    """A calibration file made on frames of ``size`` (width, height)."""
    save(Calibration(tileset="classic", prototypes=default_prototypes(tileset("classic")), size=size), path)


def test_calibration_checks(tmp_path: Path, photo: np.ndarray) -> None:
    path = tmp_path / "calibration.json"
    assert check_calibration(path, photo).status == PROBLEM  # not calibrated yet
    path.write_text("{not json", encoding="utf-8")
    assert "unreadable" in check_calibration(path, photo).message
    path.write_text(json.dumps({"schema": 1, "tileset": "classic", "zoom": 2}), encoding="utf-8")
    malformed = check_calibration(path, photo)
    assert malformed.status == PROBLEM and "unknown key zoom" in malformed.message
    write_calibration(path, (1640, 1232))
    moved = check_calibration(path, photo)
    assert (
        moved.status == PROBLEM and "made on 1640×1232 frames; the camera now gives 1024×768" in moved.message
    )
    write_calibration(path, (1024, 768))
    assert check_calibration(path, photo).status == OK
    assert check_calibration(None, photo).status == SKIPPED


# --- the machine ---------------------------------------------------------------------------------------


def test_disk(tmp_path: Path) -> None:
    assert check_disk(tmp_path / "not" / "yet", minimum=0).status == OK
    full = check_disk(tmp_path, minimum=2**62)
    assert full.status == PROBLEM and "apt clean" in full.fix


def runner(answers: dict[str, str]):  # type: ignore[no-untyped-def]
    def run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(list(command), 0, answers.get(command[1], ""), "")

    return run


@pytest.mark.parametrize(
    ("answers", "status", "words"),
    [
        ({"is-enabled": "not-found"}, SKIPPED, "not installed"),
        ({"is-enabled": "enabled", "is-active": "failed"}, PROBLEM, "is failed"),
        ({"is-enabled": "disabled", "is-active": "active"}, PROBLEM, "runs but is disabled"),
        ({"is-enabled": "enabled", "is-active": "active"}, OK, "enabled and running"),
    ],
)
def test_service(answers: dict[str, str], status: str, words: str) -> None:
    finding = check_service(running=True, run=runner(answers))
    assert finding.status == status and words in finding.message


def test_service_without_systemd() -> None:
    assert check_service(running=False).status == SKIPPED


def test_port_free_taken_and_answering() -> None:
    port = free_port()
    assert check_port("127.0.0.1", port).message.startswith(f"port {port} is free")
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = check_port("127.0.0.1", other.getsockname()[1], timeout=0.5)
    assert taken.status == PROBLEM and "taken by another program" in taken.message

    class State(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"version": 3}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), State)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        answering = check_port("127.0.0.1", server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
    assert answering.status == OK and "answers" in answering.message


def test_report_lists_problems_with_fixes() -> None:
    text = report([Finding("light", PROBLEM, "too dark", "add light"), Finding("disk", OK, "plenty", "x")])
    assert text.splitlines() == [
        "PROBLEM  light        too dark",
        "                      fix: add light",
        "ok       disk         plenty",
        "1 problem found",
    ]


# --- the command ---------------------------------------------------------------------------------------


def setup_files(tmp_path: Path, photo: np.ndarray) -> Path:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "table.png"), photo)
    write_calibration(tmp_path / "calibration.json", (1024, 768))
    config = tmp_path / "config.toml"
    config.write_text(
        f'[camera]\nsource = "dir:{photos}"\n[server]\nhost = "127.0.0.1"\nport = {free_port()}\n'
        f'state_dir = "{tmp_path}"\n[calibration]\npath = "{tmp_path / "calibration.json"}"\n',
        encoding="utf-8",
    )
    return config


def test_doctor_all_good_exits_0(
    tmp_path: Path, photo: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    config = setup_files(tmp_path, photo)
    code = qwirkle.main(["doctor", "--config", str(config), "--json"])
    out = json.loads(capsys.readouterr().out)
    problems = [f for f in out["findings"] if f["status"] == PROBLEM]
    assert (code, out["ok"], problems) == (0, True, [])
    checks = [f["check"] for f in out["findings"]]
    assert checks == [
        "config",
        "camera",
        "mode",
        "focus",
        "light",
        "colour",
        "calibration",
        "disk",
        "service",
        "port",
    ]


def test_doctor_without_a_camera_exits_1_and_says_how(
    tmp_path: Path, photo: np.ndarray, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    config = setup_files(tmp_path, photo)
    code = qwirkle.main(["doctor", "--config", str(config), "--source", "picamera2"])
    out = capsys.readouterr().out
    assert code == 1
    assert "PROBLEM  camera       picamera2: the picamera2 module is not installed" in out
    assert "fix: on the Pi, sudo scripts/install-pi.sh" in out and out.rstrip().endswith("1 problem found")


def test_doctor_with_a_missing_config_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert qwirkle.main(["doctor", "--config", str(tmp_path / "nope.toml")]) == 2
    err = capsys.readouterr().err
    assert err == f"qwirkle doctor: {tmp_path / 'nope.toml'}: no such file\n"
