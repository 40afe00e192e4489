"""The Raspberry Pi install: scripts/install-pi.sh and uninstall-pi.sh (shellcheck, dry runs), the systemd
unit (``systemd-analyze verify``) and the Avahi announcement. Each skips when its tool is missing."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [ROOT / "scripts" / "install-pi.sh", ROOT / "scripts" / "uninstall-pi.sh"]
UNIT = ROOT / "systemd" / "qwirkle.service"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", *args], capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.skipif(
    shutil.which("shellcheck") is None, reason="shellcheck not installed (apt install shellcheck)"
)
def test_scripts_pass_shellcheck() -> None:
    result = subprocess.run(
        ["shellcheck", *map(str, SCRIPTS)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout


def test_install_dry_run_plans_every_step_and_changes_nothing() -> None:
    result = run(str(SCRIPTS[0]), "--dry-run", "--port", "8123")
    assert result.returncode == 0, result.stderr
    planned = [line[2:] for line in result.stdout.splitlines() if line.startswith("+ ")]
    want_in_order = [
        "apt-get install -y --no-install-recommends python3-picamera2 python3-numpy",
        "usermod --append --groups video qwirkle",
        "/opt/qwirkle/venv/bin/pip install --quiet --upgrade " + f"{ROOT}[pi]",
        "install -d -m 0750 -o root -g qwirkle /etc/qwirkle",
        f"install -m 0644 {ROOT}/systemd/qwirkle.service /etc/systemd/system/qwirkle.service",
        "write /etc/avahi/services/qwirkle.service from systemd/qwirkle-avahi.service (port 8123)",
        "systemctl daemon-reload",
        "systemctl enable qwirkle.service avahi-daemon.service",
        "systemctl restart qwirkle.service",
    ]
    positions = [next(i for i, line in enumerate(planned) if line.startswith(want)) for want in want_in_order]
    assert positions == sorted(positions)
    if not Path("/opt/qwirkle/venv").exists():
        assert "python3 -m venv --system-site-packages /opt/qwirkle/venv" in planned
    if not Path("/etc/qwirkle/config.toml").exists():
        assert any(
            line.startswith("write /etc/qwirkle/config.toml") and "port 8123" in line for line in planned
        )
    assert result.stdout.rstrip().endswith("(dry run: nothing was changed)")
    assert "http://" in result.stdout and ":8123/" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"), [(["--port", "80"], "1024 to 65535"), (["--bogus"], "unknown option")]
)
def test_install_rejects_bad_options(args: list[str], message: str) -> None:
    result = run(str(SCRIPTS[0]), "--dry-run", *args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


def test_uninstall_dry_run() -> None:
    result = run(str(SCRIPTS[1]), "--dry-run", "--purge")
    assert result.returncode == 0, result.stderr
    assert (
        "+ rm -rf /opt/qwirkle" in result.stdout and "+ rm -rf /etc/qwirkle /var/lib/qwirkle" in result.stdout
    )


def test_unit_has_the_settings_the_service_needs() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(UNIT)
    assert unit["Unit"]["After"] == unit["Unit"]["Wants"] == "network-online.target"
    service = unit["Service"]
    expected = {
        "User": "qwirkle",
        "SupplementaryGroups": "video",
        "Restart": "on-failure",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "StateDirectory": "qwirkle",
        "ConfigurationDirectory": "qwirkle",
        "StandardOutput": "journal",
    }
    assert {k: service[k] for k in expected} == expected
    assert service["ExecStart"].endswith("qwirkle serve --config /etc/qwirkle/config.toml")
    for closes_devices in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock"):
        assert closes_devices not in service  # the camera needs /dev/video*, /dev/media*, /dev/dma_heap
    assert unit["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    # The venv's qwirkle does not exist here: point ExecStart at a program that does, so that verify
    # checks everything else in the unit.
    text = UNIT.read_text(encoding="utf-8").replace("/opt/qwirkle/venv/bin/qwirkle", "/bin/true")
    (tmp_path / "qwirkle.service").write_text(text, encoding="utf-8")
    result = subprocess.run(
        ["systemd-analyze", "verify", "./qwirkle.service"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0 and "qwirkle.service" not in result.stdout + result.stderr, result.stderr


def test_avahi_announcement_is_valid_xml_for_http() -> None:
    text = (ROOT / "systemd" / "qwirkle-avahi.service").read_text(encoding="utf-8")
    service = ET.fromstring(text.replace("@PORT@", "8000")).find("service")
    assert service is not None
    assert (service.findtext("type"), service.findtext("port")) == ("_http._tcp", "8000")
