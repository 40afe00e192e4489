"""vision/evaluate.py: what counts as right, wrong, uncertain, missed; and the CLI around it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from qwirkle import main
from table import PlacedTile, Tile, connect_layout
from vision.evaluate import evaluate, score_frame
from vision.reading import Reading, ReadTile, Uncertain
from vision.render import random_scene, render

RED_CIRCLE = {"colour": "red", "shape": "circle"}


def _read(*tiles: tuple[int, int, str, str], unsure: tuple[tuple[int, int], ...] = ()) -> Reading:
    return Reading(
        tuple(ReadTile(PlacedTile(r, c, Tile(col, shp)), 0.9) for r, c, col, shp in tiles),
        tuple(Uncertain(r, c, "occluded") for r, c in unsure),
    )


def test_scoring_counts_each_kind() -> None:
    truth = {
        "tiles": [
            {"row": 0, "col": 0, **RED_CIRCLE},
            {"row": 0, "col": 1, "colour": "red", "shape": "square"},
            {"row": 0, "col": 2, "colour": "red", "shape": "diamond"},
            {"row": 0, "col": 3, "colour": "red", "shape": "clover"},
        ]
    }
    reading = _read(
        (0, 0, "red", "circle"), (0, 1, "orange", "square"), (1, 0, "blue", "circle"), unsure=((0, 2),)
    )
    t = score_frame(reading, truth, layout=connect_layout(), where="t")  # board cells: no registration
    assert (t.right, t.wrong, t.uncertain, t.missed, t.extra, t.exact) == (1, 1, 1, 1, 1, 0)
    assert t.colours[("red", "orange")] == 1
    assert t.shapes[("clover", "(missed)")] == 1


def test_occluded_cells_are_counted_and_those_reported() -> None:
    truth = {
        "tiles": [
            {"row": 0, "col": 0, **RED_CIRCLE},
            {"row": 0, "col": 1, "colour": "red", "shape": "square"},
        ],
        "uncertain": [
            {"row": 0, "col": 1, "reason": "occluded"},
            {"row": 1, "col": 1, "reason": "occluded"},
            {"row": 0, "col": 2, "reason": "out-of-frame"},
        ],
    }
    reading = _read((0, 0, "red", "circle"), unsure=((0, 1),))
    t = score_frame(reading, truth, layout=connect_layout(), where="t")
    assert (t.occluded, t.occluded_reported, t.right, t.exact) == (2, 1, 2, 1)


def test_free_table_readings_are_registered_first() -> None:
    truth = {
        "tiles": [
            {"row": 5, "col": 5, **RED_CIRCLE},
            {"row": 5, "col": 6, "colour": "red", "shape": "square"},
        ]
    }
    reading = _read((0, 0, "red", "circle"), (1, 0, "red", "square"))  # shifted and turned a quarter
    assert score_frame(reading, truth, layout=None, where="t").exact == 1


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ds")
    (root / "frames").mkdir()
    (root / "truth").mkdir()
    for i in range(2):
        scene = random_scene(
            seed=20 + i, variant="classic", size=(480, 640), tiles=12, hand=0.0, tilt=0.0, light="neutral"
        )
        out = render(scene)
        cv2.imwrite(str(root / "frames" / f"{i:03d}.jpg"), out.image)
        (root / "truth" / f"{i:03d}.json").write_text(
            json.dumps({"image": f"frames/{i:03d}.jpg", **out.truth})
        )
    return root


def test_evaluate_a_rendered_dataset(tiny: Path) -> None:
    result = evaluate(tiny)
    assert result["overall"]["frames"] == 2
    assert result["overall"]["tiles"] > 0
    assert set(result["by_condition"]) >= {"light", "table", "tilt", "px_per_tile"}
    assert result["timing"]["read_median_ms"] > 0


def test_cli_evaluate_and_read(tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", str(tiny), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overall"]["frames"] == 2
    assert main(["read", str(tiny / "frames" / "000.jpg"), "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert set(read) == {"tiles", "uncertain", "elapsed_ms"}


def test_cli_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a jpeg")
    assert main(["read", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "junk.jpg" in err and err.count("\n") == 1
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "not a dataset" in capsys.readouterr().err
    bad = tmp_path / "cal.json"
    bad.write_text("{}")
    assert main(["read", str(junk), "--calibration", str(bad)]) == 2
    assert "cal.json" in capsys.readouterr().err


def test_cli_calibrating_on_a_photo_without_its_tiles_is_one_line(
    tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the truth of frame 000 is said of a blank photo: its known tiles cannot be found there
    frame = tiny / "frames" / "000.jpg"
    cv2.imwrite(str(frame), cv2.imread(str(frame)) * 0)
    assert main(["evaluate", str(tiny), "--calibrate-on", "000"]) == 2
    err = capsys.readouterr().err
    assert "000.jpg" in err and "calibrated" in err and err.count("\n") == 1
