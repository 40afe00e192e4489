"""``qwirkle serve`` and calibration: which file is read at start, and where the wizard saves."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from flask import Flask

import qwirkle
import web.server
from calibration import Calibration, save
from table import tileset
from vision.prototypes import default_prototypes


class NoServer:
    """Stands in for the waitress server: keeps the app, serves nothing."""

    apps: ClassVar[list[Flask]] = []

    def __init__(self, app: Flask, *, host: str, port: int) -> None:
        self.apps.append(app)
        self.port = 8000

    def run(self) -> None: ...


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Flask]:
    NoServer.apps = []
    monkeypatch.setattr(web.server, "Server", NoServer)
    monkeypatch.setattr(web.server, "terminal_qr", lambda url: "")
    return NoServer.apps


def _cal(variant: str) -> Calibration:
    return Calibration(tileset=variant, prototypes=default_prototypes(tileset(variant)), balance=np.ones(3))


def _args(*argv: str) -> Any:
    return qwirkle.build_parser().parse_args(["serve", *argv])


def test_where_the_wizard_saves(tmp_path: Path) -> None:
    store = str(tmp_path / "g.sqlite3")
    assert qwirkle._calibration_path(_args("--store", store)) == str(tmp_path / "calibration.json")
    given = _args("--store", store, "--calibration", "/x/cal.json")
    assert qwirkle._calibration_path(given) == "/x/cal.json"
    assert qwirkle._calibration_path(_args("--source", "demo")) is None  # the demo's store is thrown away
    config = tmp_path / "config.toml"
    config.write_text(f'[calibration]\npath = "{tmp_path / "later.json"}"\n', encoding="utf-8")
    from_config = _args("--config", str(config))
    qwirkle._serve_settings(from_config)
    assert from_config.calibration is None  # not written yet ...
    assert qwirkle._calibration_path(from_config) == str(tmp_path / "later.json")  # ... but saved there


def test_serve_reads_the_saved_calibration_and_passes_the_path(tmp_path: Path, served: list[Flask]) -> None:
    save(_cal("classic"), tmp_path / "calibration.json")
    code = qwirkle.main(["serve", "--store", str(tmp_path / "g.sqlite3"), "--pin", "1234"])
    assert code == 0
    (app,) = served
    assert app.config["CALIBRATION_PATH"] == str(tmp_path / "calibration.json")
    service = app.extensions["qwirkle"].service
    assert isinstance(service.calibration, Calibration) and service.calibration.tileset == "classic"


def test_a_saved_calibration_of_another_edition_is_skipped_with_a_warning(
    tmp_path: Path, served: list[Flask], capsys: pytest.CaptureFixture[str]
) -> None:
    save(_cal("connect"), tmp_path / "calibration.json")
    code = qwirkle.main(["serve", "--store", str(tmp_path / "g.sqlite3"), "--pin", "1234"])
    assert code == 0
    assert "not using the saved calibration" in capsys.readouterr().err
    assert served[0].extensions["qwirkle"].service.calibration is None


def test_a_given_calibration_of_another_edition_exits_2(
    tmp_path: Path, served: list[Flask], capsys: pytest.CaptureFixture[str]
) -> None:
    save(_cal("connect"), tmp_path / "cal.json")
    code = qwirkle.main(
        ["serve", "--store", str(tmp_path / "g.sqlite3"), "--calibration", str(tmp_path / "cal.json")]
    )
    err = capsys.readouterr().err
    assert code == 2 and "calibrated for connect, not classic" in err and err.count("\n") == 1
    assert served == []
