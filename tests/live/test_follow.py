"""``follow``: the turns of a game from settled photos (fake reader; the real photos when present)."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import qwirkle
from live.follow import PhotoError, follow_photos
from table import Board, tileset
from table.codec import layout_from_json

from .conftest import reading


def photos(tmp_path, shown):
    """Write one stamped photo per reading; return the paths and a reader that decodes the stamps."""
    paths = []
    for k in range(len(shown)):
        image = np.full((40, 40, 3), 120, np.uint8)
        image[0, 0] = k
        path = tmp_path / f"{k:02d}.png"
        cv2.imwrite(str(path), image)
        paths.append(path)
    return paths, lambda image: shown[int(image[0, 0, 0])]


def test_each_pair_of_photos_is_a_turn(tmp_path):
    shown = [
        reading(""),
        reading("Ro Rx"),
        reading("Ro Rx Rd"),
        reading("Ro Rx Rd / Bs"),  # illegal: it stays on the table, the next photo starts from it
        reading("Ro Rx Rd / Bs", unsure=((0, 3),)),  # a tile unreadable in the photo of its move...
        reading("Ro Rx Rd Rs / Bs"),  # ...read in the next ones: credited to its own move
        reading("Ro Rx Rd Rs / Bs"),
    ]
    paths, reader = photos(tmp_path, shown)
    out = follow_photos(paths, tileset=tileset("classic"), reader=reader)
    assert [r["after"] for r in out] == [str(p) for p in paths[1:]]
    assert [r["score"] for r in out] == [2, 3, None, 4, None, None]
    assert [r["legal"] for r in out] == [True, True, False, True, False, False]
    assert out[2]["violations"][0]["rule"] == "mixed-line"
    assert out[3]["placed"] == [{"row": 0, "col": 3, "colour": "red", "shape": "square"}]
    assert out[4]["placed"] == [] and out[4]["violations"][0]["rule"] == "empty-placement"


def test_a_turned_table_is_registered(tmp_path):
    board = Board.from_text("Ro Rx Rd")
    shown = [reading(board), reading(Board.from_text("Ro Rx Rd Rs").transformed(shift=(2, 2), turns=1))]
    paths, reader = photos(tmp_path, shown)
    out = follow_photos(paths, tileset=tileset("classic"), reader=reader)
    assert out[0]["placed"] == [{"row": 0, "col": 3, "colour": "red", "shape": "square"}]
    assert out[0]["score"] == 4


def test_bad_photos_are_named(tmp_path):
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("hello")
    with pytest.raises(PhotoError, match=r"notes\.jpg: not an image"):
        follow_photos([not_image, not_image], tileset=tileset("classic"), reader=lambda i: reading(""))
    with pytest.raises(PhotoError, match="at least two"):
        follow_photos([not_image], tileset=tileset("classic"))
    assert qwirkle.main(["follow", str(tmp_path / "a.jpg"), str(tmp_path / "b.jpg"), "--json"]) == 2


@pytest.mark.dataset
def test_connect_game1_all_moves_right(connect_game1: Path, capsys):
    layout = layout_from_json(json.loads((connect_game1 / "board.json").read_text()), where="board.json")
    paths = sorted((connect_game1 / "frames").glob("1_*.jpg"))
    out = follow_photos(paths, tileset=tileset("connect"), layout=layout)
    truth = [json.loads(line) for line in (connect_game1 / "moves.jsonl").read_text().splitlines()]
    assert len(out) == len(truth) == 20

    def cells(tiles):
        return sorted((t["row"], t["col"], t["colour"], t["shape"]) for t in tiles)

    wrong = [
        (Path(r["after"]).stem, r["score"], m["score"])
        for r, m in zip(out, truth, strict=True)
        if cells(r["placed"]) != cells(m["placed"]) or r["legal"] != m["legal"] or r["score"] != m["score"]
    ]
    assert wrong == []
    assert qwirkle.main(["follow", *map(str, paths[:2]), "--variant", "connect", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["score"] for r in lines] == [10]
