"""``qwirkle calibrate`` and ``--calibration`` on ``read`` and ``follow``: the files they write and read, and
one-line errors (exit 2) for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import arrangement
from calibration.lighting import SHIFTS, shift_light
from qwirkle import main
from table import tileset
from table.codec import board_to_json
from table.simulate import random_board
from vision.render import Conditions, Scene, render

CONDITIONS = Conditions(px_per_tile=60.0, tilt=4.0, table="light-wood", jpeg_quality=92)
BOARD = random_board(10, seed=3)
MORE = random_board(len(BOARD) + 1, seed=3)  # the same game, one turn later


def _photo(path: Path, board: object, seed: int) -> Path:
    image = render(Scene(board, "classic", CONDITIONS, size=(600, 800), table_seed=2, seed=seed)).image  # type: ignore[arg-type]
    cv2.imwrite(str(path), shift_light(image, SHIFTS["cool"], seed=seed))
    return path


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("calibrate")
    board, more = BOARD, MORE
    known = folder / "board.json"
    known.write_text(json.dumps(board_to_json(board.placed)), encoding="utf-8")
    return {
        "arrangement": _photo(folder / "arrangement.png", arrangement(tileset("classic")), 0),
        "game1": _photo(folder / "game1.png", board, 1),
        "game2": _photo(folder / "game2.png", more, 2),
        "known": known,
    }


def test_calibrate_then_read_and_follow(
    photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cal, sheet = tmp_path / "cal.json", tmp_path / "sheet.png"
    code = main(
        [
            "calibrate",
            "--photo",
            str(photos["arrangement"]),
            "--arrangement",
            "-o",
            str(cal),
            "--sheet",
            str(sheet),
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] == 36 and out["read_right"] == 36 and out["calibration"] == str(cal)
    assert json.loads(cal.read_text())["source"]["known"] == "arrangement"
    picture = cv2.imread(str(sheet))
    assert picture is not None and picture.shape == (504, 504, 3)
    assert main(["read", str(photos["game1"]), "--calibration", str(cal), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert len(read["tiles"]) == len(BOARD)
    assert (
        main(["follow", str(photos["game1"]), str(photos["game2"]), "--calibration", str(cal), "--json"]) == 0
    )
    step = json.loads(capsys.readouterr().out.splitlines()[0])
    new = sorted((t.colour, t.shape) for c, t in MORE.items() if c not in BOARD)
    assert sorted((p["colour"], p["shape"]) for p in step["placed"]) == new  # cells: the reader's own origin
    # from a known board too, and in words
    assert (
        main(["calibrate", "--photo", str(photos["game1"]), "--known", str(photos["known"]), "-o", str(cal)])
        == 0
    )
    text = capsys.readouterr().out
    assert f"learned from {len(BOARD)} of {len(BOARD)} known tiles" in text and f"wrote {cal}" in text


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


def test_bad_input_is_one_line(
    photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "cal.json")
    err = _error(["calibrate", "--photo", str(tmp_path / "none.jpg"), "--arrangement", "-o", out], capsys)
    assert "none.jpg: missing or not a readable image" in err
    err = _error(["calibrate", "--photo", str(photos["game1"]), "-o", out], capsys)
    assert "--layout L.json, --known BOARD.json or --arrangement" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"tiles": [{"row": 0}]}', encoding="utf-8")
    err = _error(["calibrate", "--photo", str(photos["game1"]), "--known", str(bad), "-o", out], capsys)
    assert "bad.json" in err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 100, np.uint8))
    err = _error(["calibrate", "--photo", str(blank), "--arrangement", "-o", out], capsys)
    assert "blank.png: only 0 of the 36 known tiles were found" in err
    assert not Path(out).exists()
    err = _error(
        [
            "calibrate",
            "--photo",
            str(photos["arrangement"]),
            "--arrangement",
            "-o",
            str(tmp_path / "no" / "c.json"),
        ],
        capsys,
    )
    assert "c.json: cannot write" in err


def test_read_rejects_a_calibration_with_an_unknown_key(
    photos: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "--photo", str(photos["arrangement"]), "--arrangement", "-o", str(cal)]) == 0
    capsys.readouterr()
    data = json.loads(cal.read_text())
    data["geometry"]["zoom"] = 2
    cal.write_text(json.dumps(data), encoding="utf-8")
    err = _error(["read", str(photos["game1"]), "--calibration", str(cal)], capsys)
    assert "cal.json: unknown key geometry.zoom" in err
    del data["geometry"]["zoom"]
    cal.write_text(json.dumps(data), encoding="utf-8")
    err = _error(["read", str(photos["game1"]), "--variant", "connect", "--calibration", str(cal)], capsys)
    assert "calibrated for classic, not connect" in err
