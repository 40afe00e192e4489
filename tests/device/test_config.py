"""device/config.py: the config file, its defaults, and one-line errors naming the key at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from device import config as config_module
from device.config import Config, ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_at_the_default_path_means_the_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(config_module, "DEFAULT_PATH", tmp_path / "absent.toml")
    config = load_config()
    assert config == Config()
    assert (config.source, config.port, config.variant, config.pin) == ("picamera2", 8000, "classic", None)
    assert config.store == Path("/var/lib/qwirkle/games.sqlite3")


def test_the_installed_template_is_a_valid_config(tmp_path: Path) -> None:
    template = (ROOT / "systemd" / "config.toml").read_text(encoding="utf-8")
    path = write(tmp_path, template.replace("@PORT@", "8080").replace("@PIN@", "4821"))
    config = load_config(path)
    assert config == Config(port=8080, pin="4821", path=path)
    assert config.to_json()["calibration"] == "/var/lib/qwirkle/calibration.json"


def test_every_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[camera]
source = "opencv:0"
lens_position = 1.6
fps = 1
[server]
host = "127.0.0.1"
port = 9000
state_dir = "/srv/qwirkle"
[game]
variant = "connect"
pin = "00123456"
[calibration]
path = "/srv/qwirkle/cal.json"
""",
    )
    assert load_config(path) == Config(
        source="opencv:0",
        lens_position=1.6,
        fps=1.0,
        host="127.0.0.1",
        port=9000,
        state_dir=Path("/srv/qwirkle"),
        variant="connect",
        pin="00123456",
        calibration=Path("/srv/qwirkle/cal.json"),
        path=path,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[camera]\nsorce = "demo"\n',
            "unknown key camera.sorce (known in [camera]: source, lens_position, fps)",
        ),
        ("[network]\nport = 80\n", "unknown section [network] (known sections: [camera], [server],"),
        ("port = 80\n", "unknown top-level key port"),
        ('camera = "demo"\n', "must be a [camera] section"),
        ('[server]\nport = "8000"\n', "server.port must be a whole number from 1 to 65535, not '8000'"),
        ("[server]\nport = 70000\n", "server.port must be a whole number"),
        ("[server]\nport = true\n", "server.port must be a whole number"),
        ("[game]\npin = 4821\n", 'game.pin must be 4 to 8 digits in quotes, e.g. "4821", not 4821'),
        ('[game]\npin = "12"\n', "game.pin must be 4 to 8 digits"),
        ('[game]\nvariant = "chess"\n', "game.variant must be one of classic, colour-blind"),
        ("[camera]\nlens_position = -1\n", "camera.lens_position must be a number of dioptres"),
        ("[camera]\nfps = 0\n", "camera.fps must be frames per second"),
        ('[camera]\nsource = ""\n', "camera.source must be a non-empty string"),
        ("[server]\nport = \n", "not valid TOML"),
    ],
)
def test_bad_files_give_one_line_naming_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    line = str(caught.value)
    assert line.startswith(f"{path}: ") and message in line and "\n" not in line


def test_an_explicit_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.toml: no such file"):
        load_config(tmp_path / "absent.toml")


def test_config_errors_are_bad_input_for_the_cli() -> None:
    from table.errors import QwirkleError

    assert issubclass(ConfigError, QwirkleError) and issubclass(ConfigError, ValueError)
