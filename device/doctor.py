"""``qwirkle doctor``: is this machine ready to follow a game? Each check is a small function returning a
:class:`Finding` (ok, problem or skipped; what was found; how to fix it). :func:`diagnose` runs them all.

The image checks work on one frame from the configured source, so they run wherever a frame can be had:
the Pi camera, a webcam, a folder of photos or the demo. While the qwirkle service owns the camera they are
skipped with a note (one process owns the camera; stop the service to run them).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device.config import DEFAULT_PATH, Config, ConfigError, load_config
from device.quality import colour_cast, edge_width, light_level

OK, PROBLEM, SKIPPED = "ok", "problem", "skipped"
SERVICE = "qwirkle"

# Thresholds, in the measures' own physical units (see device.quality for how they were chosen).
MAX_EDGE_WIDTH = 3.0  # px of Gaussian blur on the sharper edges; in focus gives 1.3-2.5
MIN_BRIGHT = 70.0  # 99th-percentile grey level; below it the symbols themselves are dim
MAX_CLIPPED = 0.05  # fraction of the picture blown out
MAX_GAIN = 8.0  # analogue gain the Pi camera's exposure needed: above it, the picture is noisy
MAX_WARMTH = 0.85  # |log R/B|: white-balanced scenes stay under ~0.7; uncorrected tungsten is 1.0 and more
MAX_TINT = 0.4  # |log G/√(RB)|: white-balanced scenes stay under ~0.3
MIN_SHORT_SIDE = 720  # px: a 60 cm play area then gets at least ~35 px per tile
MIN_FREE_BYTES = 500 * 2**20


@dataclass(frozen=True)
class Finding:
    """One check's answer: ``status`` is ``ok``, ``problem`` or ``skipped``; ``fix`` says what to do."""

    check: str
    status: str
    message: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)


# --- configuration -------------------------------------------------------------------------------------


def check_config(path: str | Path | None) -> tuple[Finding, Config]:
    """Load the config file; a bad one is a problem (and the defaults stand in for the other checks).
    A file named explicitly but absent raises :class:`ConfigError` (bad input, not a finding)."""
    if path is not None and not Path(path).exists():
        raise ConfigError(f"{path}: no such file")
    where = Path(path) if path is not None else DEFAULT_PATH
    try:
        config = load_config(path)
    except ConfigError as err:
        return Finding("config", PROBLEM, str(err), f"edit {where} (see the comments in it)"), Config()
    if config.path is None:
        return Finding("config", OK, f"no {where}: using the defaults (fine off the Pi)"), config
    return Finding("config", OK, f"{config.path} is valid"), config


# --- the camera and its picture ------------------------------------------------------------------------


@dataclass
class Capture:
    """What opening the source gave: a frame (or None) and the source object, for its mode details."""

    frame: Any
    source: Any


def check_camera(
    spec: str, *, lens_position: float | None = None, fps: float | None = None
) -> tuple[Finding, Capture | None]:
    """Open the source ``spec`` and take one frame."""
    from vision.frames import SourceError
    from vision.pi_camera import CAMERA_BUSY_HINT
    from vision.sources import open_source

    try:
        source = open_source(spec, lens_position=lens_position, fps=fps)
        with source:
            frame = source.read()
    except SourceError as err:
        text = str(err)
        if CAMERA_BUSY_HINT in text:
            return Finding(
                "camera",
                SKIPPED,
                f"{spec}: the camera is in use, most likely by the running qwirkle service; "
                "the picture checks need it",
                "sudo systemctl stop qwirkle; qwirkle doctor; sudo systemctl start qwirkle",
            ), None
        return Finding("camera", PROBLEM, text, _camera_fix(spec, err)), None
    h, w = frame.image.shape[:2]
    what = getattr(source, "model", "") or spec
    return Finding("camera", OK, f"{spec}: {what} delivers {w}×{h} frames"), Capture(frame, source)


def _camera_fix(spec: str, err: Exception) -> str:
    from vision.frames import SourceUnavailableError

    if spec.startswith("picamera2") and not isinstance(err, SourceUnavailableError):
        return (
            "on the Pi, sudo scripts/install-pi.sh sets this up; off the Pi, check another source: "
            "qwirkle doctor --source demo (or opencv:0, dir:PHOTOS)"
        )
    if spec.startswith("picamera2"):
        return (
            "`rpicam-hello --list-cameras` must list the camera; if not, power off, reseat the ribbon "
            "cable at both ends (latches closed; a Pi 5 needs its narrower cable) and check that "
            "/boot/firmware/config.txt has camera_auto_detect=1"
        )
    if spec.startswith("opencv"):
        return "check the cable or the URL; `ls /dev/video*` lists USB cameras"
    return "check the source: picamera2, opencv:INDEX_OR_URL, dir:PATH or demo"


def check_mode(capture: Capture) -> Finding:
    """The frame's size against the camera's stated mode, and whether exposure settled."""
    h, w = capture.frame.image.shape[:2]
    mode = getattr(capture.source, "mode", None)
    if mode is not None:
        settings = capture.source.settings
        if (w, h) != tuple(mode.size):
            return Finding(
                "mode",
                PROBLEM,
                f"{mode.module}: frames are {w}×{h}, not the stated {mode.size[0]}×{mode.size[1]}",
                "update Raspberry Pi OS (sudo apt full-upgrade) so libcamera offers the binned mode",
            )
        if settings is not None and not settings.settled:
            return Finding(
                "mode",
                PROBLEM,
                f"{mode.module} {w}×{h}: the exposure did not settle (flickering or changing light?)",
                "steady the light (no flickering LED strips, no sun patches moving over the table)",
            )
        return Finding("mode", OK, f"{mode.module}, {w}×{h} at {mode.frame_rate:g} fps, exposure locked")
    if min(w, h) < MIN_SHORT_SIDE:
        return Finding(
            "mode",
            PROBLEM,
            f"frames are {w}×{h}: tiles in a 60 cm play area would be under ~35 px",
            f"use a camera mode at least {MIN_SHORT_SIDE} px high",
        )
    return Finding("mode", OK, f"{w}×{h} frames")


def check_focus(image: np.ndarray, *, autofocus: bool = False) -> Finding:
    """Edge sharpness (:func:`device.quality.edge_width`)."""
    width = edge_width(image)
    if width is None:
        return Finding("focus", SKIPPED, "nothing with contrast in view to judge focus", "put tiles in view")
    if width <= MAX_EDGE_WIDTH:
        return Finding("focus", OK, f"edges are sharp ({width:.1f} px of blur, at most {MAX_EDGE_WIDTH:g})")
    fix = (
        "refocus: remove camera.lens_position from the config (the camera then focuses itself at start) "
        "or recalibrate, with tiles in view"
        if autofocus
        else "turn the lens to focus at the table's distance (a Camera Module 2 needs its focus tool, an "
        "HQ Camera its focus ring), and keep the lens clean"
    )
    message = f"the picture is soft ({width:.1f} px of blur, at most {MAX_EDGE_WIDTH:g})"
    return Finding("focus", PROBLEM, message, fix)


def check_light(image: np.ndarray, meta: dict[str, Any] | None = None) -> Finding:
    """Light level: too dark, blown out, or so dim the camera needed a high gain."""
    light = light_level(image)
    gain = float((meta or {}).get("AnalogueGain", 0.0))
    if light.clipped > MAX_CLIPPED:
        return Finding(
            "light",
            PROBLEM,
            f"{light.clipped:.0%} of the picture is blown out (glare or too much light)",
            "move or dim the lamp so neither it nor its reflection shines into the camera; avoid direct sun",
        )
    if light.bright < MIN_BRIGHT or gain > MAX_GAIN:
        why = f"camera gain {gain:.1f}" if gain > MAX_GAIN else f"brightest parts at {light.bright:.0f}/255"
        return Finding(
            "light",
            PROBLEM,
            f"too dark ({why})",
            "add light over the table: a daylight-white lamp (~4000-5000 K) above the play area, to one side",
        )
    return Finding("light", OK, f"light is fine (brightest parts at {light.bright:.0f}/255)")


def check_cast(image: np.ndarray) -> Finding:
    """Colour cast of the light (:func:`device.quality.colour_cast`)."""
    cast = colour_cast(image)
    if abs(cast.warmth) <= MAX_WARMTH and abs(cast.tint) <= MAX_TINT:
        return Finding("colour", OK, f"colours are balanced (R/G {cast.red:.2f}, B/G {cast.blue:.2f})")
    if abs(cast.warmth) / MAX_WARMTH >= abs(cast.tint) / MAX_TINT:
        tint = "orange (warm)" if cast.warmth > 0 else "blue (cool)"
    else:
        tint = "green" if cast.tint > 0 else "magenta"
    return Finding(
        "colour",
        PROBLEM,
        f"the light is strongly {tint} (R/G {cast.red:.2f}, B/G {cast.blue:.2f})",
        "use white light of one kind (not daylight mixed with warm bulbs), then restart the service so the "
        "camera balances again, and recalibrate",
    )


def check_calibration(path: Path | None, image: np.ndarray | None) -> Finding:
    """The calibration file exists, reads as a calibration (:func:`calibration.load`), and was made at the
    camera's current frame size."""
    if path is None:
        return Finding("calibration", SKIPPED, "no calibration path configured")
    fix = (
        f"calibrate on the scoreboard's set-up page, or: qwirkle calibrate --photo P --known B.json -o {path}"
    )
    if not path.exists():
        return Finding("calibration", PROBLEM, f"{path}: not calibrated yet (default colours are used)", fix)
    from calibration import CalibrationError, load

    try:
        size = load(path).size
    except CalibrationError as err:
        return Finding("calibration", PROBLEM, f"unreadable: {err}", fix)
    if image is None or size is None:
        return Finding("calibration", OK, f"{path} is present (its view was not compared)")
    h, w = image.shape[:2]
    if size != (w, h):
        return Finding(
            "calibration",
            PROBLEM,
            f"{path} was made on {size[0]}×{size[1]} frames; the camera now gives {w}×{h}",
            fix,
        )
    return Finding("calibration", OK, f"{path} matches the camera's {w}×{h} frames")


# --- the machine ---------------------------------------------------------------------------------------


def check_disk(state_dir: Path, *, minimum: int = MIN_FREE_BYTES) -> Finding:
    """Free space where the games are stored (or its nearest existing parent)."""
    where = state_dir
    while not where.exists() and where != where.parent:
        where = where.parent
    usage = shutil.disk_usage(where)
    free_mb = usage.free / 2**20
    if usage.free < minimum:
        return Finding(
            "disk",
            PROBLEM,
            f"only {free_mb:.0f} MB free at {where}",
            "free some space: sudo apt clean; sudo journalctl --vacuum-size=50M",
        )
    return Finding("disk", OK, f"{free_mb:,.0f} MB free at {where}")


Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=10, check=False)


def systemd_running() -> bool:
    """Whether systemd is this machine's init (as ``sd_booted()`` tells)."""
    return Path("/run/systemd/system").is_dir()


def check_service(*, running: bool, run: Runner = _run) -> Finding:
    """The qwirkle service: installed, enabled, active."""
    if not running:
        return Finding("service", SKIPPED, "systemd is not running here (a container or a development PC)")
    enabled = run(["systemctl", "is-enabled", SERVICE]).stdout.strip()
    if enabled in ("", "not-found"):
        return Finding(
            "service",
            SKIPPED,
            "the qwirkle service is not installed (fine on a development machine)",
            "on the Pi: sudo scripts/install-pi.sh",
        )
    active = run(["systemctl", "is-active", SERVICE]).stdout.strip()
    if active != "active":
        return Finding(
            "service",
            PROBLEM,
            f"the qwirkle service is {active} (enabled: {enabled})",
            "see why: journalctl -u qwirkle -n 50; then: sudo systemctl restart qwirkle",
        )
    if enabled != "enabled":
        fix = "sudo systemctl enable qwirkle"
        return Finding("service", PROBLEM, f"the qwirkle service runs but is {enabled}", fix)
    return Finding("service", OK, "the qwirkle service is enabled and running")


def check_port(host: str, port: int, *, timeout: float = 3.0) -> Finding:
    """Either the scoreboard answers on the port, or the port is free for it."""
    url = f"http://127.0.0.1:{port}/api/state"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            answer = json.loads(response.read())
        if isinstance(answer, dict) and "version" in answer:
            return Finding("port", OK, f"the scoreboard answers on port {port}")
    except (urllib.error.URLError, OSError, ValueError):
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return Finding(
                "port",
                PROBLEM,
                f"port {port} on {host} is taken by another program ({err.strerror})",
                f"see which: sudo ss -ltnp 'sport = :{port}'; or set server.port in the config",
            )
    return Finding("port", OK, f"port {port} is free (nothing serves the scoreboard there now)")


# --- all of it -----------------------------------------------------------------------------------------


def diagnose(
    config_path: str | Path | None = None, *, source: str | None = None, with_system: bool = True
) -> list[Finding]:
    """Run every check, in order: config, camera and picture, calibration, disk, service and port."""
    finding, config = check_config(config_path)
    findings = [finding]
    spec = source or config.source
    camera, capture = check_camera(spec, lens_position=config.lens_position, fps=config.fps)
    findings.append(camera)
    image = None
    if capture is not None:
        image = capture.frame.image
        autofocus = getattr(getattr(capture.source, "settings", None), "lens_position", None) is not None
        findings += [
            check_mode(capture),
            check_focus(image, autofocus=autofocus),
            check_light(image, capture.frame.meta),
            check_cast(image),
        ]
    findings.append(check_calibration(config.calibration, image))
    findings.append(check_disk(config.state_dir))
    if with_system:
        findings += [check_service(running=systemd_running()), check_port(config.host, config.port)]
    return findings


def report(findings: Sequence[Finding]) -> str:
    """The findings as text, one line each, the fix indented below a problem."""
    lines = []
    for f in findings:
        lines.append(f"{f.status.upper() if f.status == PROBLEM else f.status:<8} {f.check:<12} {f.message}")
        if f.fix and f.status != OK:
            lines.append(f"{'':<21} fix: {f.fix}")
    problems = sum(f.status == PROBLEM for f in findings)
    lines.append(f"{problems} problem{'s' if problems != 1 else ''} found" if problems else "all good")
    return "\n".join(lines)
