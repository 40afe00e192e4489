"""``qwirkle render-dataset``: the dataset format of ../shared/datasets, byte-for-byte reproducible."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from qwirkle import main
from table import connect_layout, score, tileset, violations
from table.codec import board_from_json, layout_from_json, placement_from_json
from vision.render_dataset import write_dataset


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_independent_frames_have_images_and_truth(tmp_path: Path) -> None:
    summary = write_dataset(tmp_path / "a", n=3, seed=7, size=(180, 240), hand=0.5)
    assert summary["frames"] == 3
    root = tmp_path / "a"
    for ident in ("00000", "00001", "00002"):
        truth = json.loads((root / "truth" / f"{ident}.json").read_text())
        assert truth["image"] == f"frames/{ident}.jpg"
        image = cv2.imread(str(root / truth["image"]))
        assert image is not None and image.shape == (truth["height"], truth["width"], 3) == (180, 240, 3)
        board_from_json(truth, where=ident, tileset=tileset("classic"))
    assert not (root / "board.json").exists() and not (root / "moves.jsonl").exists()
    write_dataset(tmp_path / "b", n=3, seed=7, size=(180, 240), hand=0.5)
    assert _files(root) == _files(tmp_path / "b")


def test_connect_game_sequence_has_board_and_scored_moves(tmp_path: Path) -> None:
    root = tmp_path / "g"
    summary = write_dataset(root, n=4, seed=1, variant="connect", size=(360, 360), games=True, hand=0.0)
    assert summary == {"frames": 4, "moves": 3, "path": str(root)}
    layout = layout_from_json(json.loads((root / "board.json").read_text()), where="board.json")
    assert layout.bonus == connect_layout().bonus
    ts = tileset("connect")
    lines = [json.loads(line) for line in (root / "moves.jsonl").read_text().splitlines()]
    assert [(m["before"], m["after"]) for m in lines] == [
        ("0_00", "0_01"),
        ("0_01", "0_02"),
        ("0_02", "0_03"),
    ]
    for m in lines:
        before = board_from_json(
            json.loads((root / "truth" / f"{m['before']}.json").read_text()), where="b", tileset=ts
        )
        after = board_from_json(
            json.loads((root / "truth" / f"{m['after']}.json").read_text()), where="a", tileset=ts
        )
        placed = placement_from_json(m["placed"], where="placed", tileset=ts)
        assert before.with_tiles(placed) == after
        assert violations(before, placed, tileset=ts, layout=layout) == ()
        points = score(before, placed, layout=layout)
        assert (m["score"], m["bonus_points"], m["line_points"]) == (
            points.total,
            points.bonus,
            points.line_points,
        )
        assert m["legal"] is True
    assert len(board_from_json(json.loads((root / "truth" / "0_00.json").read_text()), where="s")) == 24


def test_cli_writes_a_dataset_and_rejects_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    code = main(
        [
            "render-dataset",
            str(out),
            "--n",
            "2",
            "--size",
            "200x150",
            "--light",
            "dim",
            "--tilt",
            "20",
            "--json",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["frames"] == 2
    truth = json.loads((out / "truth" / "00001.json").read_text())
    assert truth["conditions"]["light"] == "dim" and truth["conditions"]["tilt"] == 20.0
    for bad, words in (
        (["--tilt", "75"], "tilt must be"),
        (["--size", "big"], "WIDTHxHEIGHT"),
        (["--n", "0"], "n must be"),
    ):
        assert main(["render-dataset", str(tmp_path / "bad"), *bad]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1
    assert not (tmp_path / "bad").exists()
