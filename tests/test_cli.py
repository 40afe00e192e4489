"""The contract's `check` and `spots` commands, end to end through `qwirkle.main`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import qwirkle


def write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def tiles(*items: tuple[int, int, str, str]) -> dict:
    return {"tiles": [{"row": r, "col": c, "colour": col, "shape": s} for r, c, col, s in items]}


@pytest.fixture
def board(tmp_path: Path) -> str:
    return write(tmp_path / "board.json", tiles((0, 0, "red", "circle"), (0, 1, "red", "square")))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = qwirkle.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_legal_json(capsys, tmp_path, board):
    placement = write(tmp_path / "p.json", tiles((0, 2, "red", "diamond"), (1, 2, "blue", "diamond")))
    code, out, _ = run(capsys, "check", "--board", board, "--placement", placement, "--json")
    data = json.loads(out)
    assert code == 0
    assert data == {
        "legal": True,
        "score": 5,
        "violations": [],
        "lines": [
            {"cells": [[0, 2], [1, 2]], "points": 2, "qwirkle": False},
            {"cells": [[0, 0], [0, 1], [0, 2]], "points": 3, "qwirkle": False},
        ],
        "bonus": 0,
    }


def test_check_illegal_exits_0_with_violations(capsys, tmp_path, board):
    placement = write(tmp_path / "p.json", tiles((0, 2, "blue", "star" + "burst")))
    code, out, _ = run(capsys, "check", "--board", board, "--placement", placement, "--json")
    data = json.loads(out)
    assert code == 0 and data["legal"] is False and data["score"] is None
    assert data["violations"][0]["rule"] == "mixed-line"
    assert "neither one colour nor one shape" in data["violations"][0]["message"]


def test_check_text_output_is_for_people(capsys, tmp_path, board):
    placement = write(tmp_path / "p.json", tiles((0, 2, "red", "diamond")))
    code, out, _ = run(capsys, "check", "--board", board, "--placement", placement)
    assert code == 0 and out.startswith("legal: 3 points") and "row 0, columns 0–2: 3" in out


def test_check_connect_with_the_default_layout_adds_bonus(capsys, tmp_path):
    from table import connect_layout
    from table.codec import board_to_json

    board = write(tmp_path / "b.json", board_to_json(connect_layout().start_tiles.placed))
    placement = write(
        tmp_path / "p.json",
        tiles((9, 3, "green", "square"), (10, 3, "green", "criss-cross"), (12, 3, "green", "clover")),
    )
    code, out, _ = run(
        capsys, "check", "--board", board, "--placement", placement, "--variant", "connect", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["score"] == 10 and data["bonus"] == 2


def test_check_with_a_layout_file(capsys, tmp_path):
    layout = write(
        tmp_path / "l.json",
        {
            "variant": "connect",
            "rows": 4,
            "cols": 4,
            "bonus": [{"row": 0, "col": 1, "points": 2}],
            "start_tiles": [{"row": 0, "col": 0, "colour": "white", "shape": "circle"}],
        },
    )
    board = write(tmp_path / "b.json", tiles((0, 0, "white", "circle")))
    placement = write(tmp_path / "p.json", tiles((0, 1, "white", "square")))
    code, out, _ = run(
        capsys, "check", "--board", board, "--placement", placement, "--layout", layout, "--json"
    )
    assert code == 0 and json.loads(out)["score"] == 4


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"tiles": [', "board.json: not valid JSON (line 1, column 12"),
        ('{"tiles": [{"row": 0, "col": 0, "colour": "pink", "shape": "circle"}]}', "no colour 'pink'"),
        (
            '{"tiles": [{"row": 0, "col": 0, "colour": "red", "shape": "circle"},'
            ' {"row": 0, "col": 1, "colour": "blue", "shape": "square"}]}',
            "impossible board: the line in row 0",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, content, message):
    (tmp_path / "board.json").write_text(content, encoding="utf-8")
    placement = write(tmp_path / "p.json", tiles((5, 5, "red", "circle")))
    code, out, err = run(capsys, "check", "--board", str(tmp_path / "board.json"), "--placement", placement)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("qwirkle check: ")


def test_missing_file_is_named(capsys, tmp_path, board):
    code, _, err = run(capsys, "check", "--board", board, "--placement", str(tmp_path / "nope.json"))
    assert code == 2 and "nope.json: no such file" in err


def test_spots_json_sorted(capsys, board):
    code, out, _ = run(capsys, "spots", "--board", board, "--tile", "red:clover", "--json")
    assert code == 0
    assert json.loads(out) == {"cells": [[-1, 0], [-1, 1], [0, -1], [0, 2], [1, 0], [1, 1]]}


def test_spots_bad_tile(capsys, board):
    code, _, err = run(capsys, "spots", "--board", board, "--tile", "red", "--json")
    assert code == 2 and "tile 'red': expected colour:shape" in err


def test_the_console_script_is_installed_and_does_not_load_opencv(tmp_path, board):
    placement = write(tmp_path / "p.json", tiles((0, 2, "red", "diamond")))
    probe = (
        "import sys, qwirkle; code = qwirkle.main(sys.argv[1:]); "
        "assert 'cv2' not in sys.modules and 'numpy' not in sys.modules; sys.exit(code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "check", "--board", board, "--placement", placement, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["score"] == 3
    exe = Path(sys.executable).with_name("qwirkle")
    assert exe.exists()


def test_serve_takes_unset_options_from_the_config_file(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(
        '[camera]\nsource = "dir:/photos"\nfps = 1.0\n[server]\nport = 8123\nstate_dir = "/srv/q"\n'
        '[game]\nvariant = "herkle"\npin = "4821"\n',
        encoding="utf-8",
    )
    args = qwirkle.build_parser().parse_args(["serve", "--config", str(config), "--port", "9000"])
    camera = qwirkle._serve_settings(args)
    assert (args.source, args.host, args.port, args.variant, args.pin) == (
        "dir:/photos",
        "0.0.0.0",
        9000,  # the command line wins
        "herkle",
        "4821",
    )
    assert args.store == "/srv/q/games.sqlite3" and args.calibration is None  # no calibration file yet
    assert camera == {"lens_position": None, "fps": 1.0}


def test_serve_with_a_bad_config_exits_2_naming_the_key(capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[server]\nprot = 80\n", encoding="utf-8")
    code, out, err = run(capsys, "serve", "--config", str(config))
    assert code == 2 and out == ""
    assert "unknown key server.prot" in err and err.count("\n") == 1
