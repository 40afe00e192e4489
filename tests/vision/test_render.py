"""The renderer: determinism, truth that matches the pixels, every edition, conditions, hands, framing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from table import Board, PlacedTile, Tile, check_board, tileset
from table.codec import board_from_json
from vision.render import (
    Conditions,
    Scene,
    cells_to_image,
    random_scene,
    render,
)
from vision.render_hand import Hand
from vision.render_tiles import PAINT

SMALL = (240, 320)
PLAIN = Conditions(
    light="neutral",
    table="white-laminate",
    px_per_tile=60.0,
    gradient=0.0,
    blur=0.0,
    noise=0.0,
    jpeg_quality=None,
    jitter=0.0,
    askew=0.0,
    imperfection=0.0,
)


def _truth_board(truth: dict[str, Any], variant: str) -> Board:
    return board_from_json(truth, where="truth", tileset=tileset(variant))


def test_same_scene_same_pixels_and_other_seeds_differ() -> None:
    scene = random_scene(seed=4, size=SMALL, hand=1.0)
    a, b = render(scene), render(scene)
    assert a.image.dtype == np.uint8 and a.image.shape == (*SMALL, 3)
    assert np.array_equal(a.image, b.image) and a.jpeg == b.jpeg and a.truth == b.truth
    other = render(replace(scene, seed=5))  # only the sensor noise changes
    assert not np.array_equal(a.image, other.image)
    assert other.truth["tiles"] == a.truth["tiles"]


@pytest.mark.parametrize("variant", ["classic", "colour-blind", "herkle", "cubes", "connect"])
def test_every_edition_renders_a_legal_board_with_its_truth(variant: str) -> None:
    scene = random_scene(seed=11, variant=variant, size=(300, 400), hand=0.0, tiles=12, tilt=10.0)
    out = render(scene)
    board = _truth_board(out.truth, variant)
    check_board(board, tileset=tileset(variant), layout=scene.layout)
    assert board.items() <= scene.board.items()  # nothing invented, every tile what it is
    missing = sorted(set(scene.board) - set(board))
    if missing:  # left out only when entirely off the picture
        centres = cells_to_image(scene, np.array(missing) + 0.5)
        h, w = scene.size
        assert not any(0 <= r < h and 0 <= c < w for r, c in centres)
    assert out.image.std() > 10  # not a blank frame
    if variant == "connect":
        assert all(0 <= r < 16 and 0 <= c < 16 for r, c in board)


def test_the_painted_symbol_is_where_the_truth_says() -> None:
    """A lone red circle and a lone blue square: the centre of each truth face shows its paint, the
    face's corner shows the black body, and the table elsewhere is light."""
    board = Board.of([PlacedTile(0, 0, Tile("red", "circle")), PlacedTile(0, 2, Tile("blue", "square"))])
    out = render(Scene(board, "classic", PLAIN, SMALL))
    faces = {(f["row"], f["col"]): np.array(f["corners"]) for f in out.truth["geometry"]["faces"]}
    for cell, colour in (((0, 0), "red"), ((0, 2), "blue")):
        quad = faces[cell]
        r, c = np.round(quad.mean(axis=0)).astype(int)
        assert np.abs(out.image[r, c].astype(float) - PAINT[colour]).max() < 30, (cell, out.image[r, c])
        corner = np.round(quad[0] * 0.85 + quad.mean(axis=0) * 0.15).astype(int)
        assert out.image[corner[0], corner[1]].max() < 70  # the black block
    assert out.image[5, 5].min() > 150  # white laminate


def test_cell_to_image_homography_matches_the_faces() -> None:
    board = Board.from_text("Ro Rx Rd / Go 1 Gd")
    scene = Scene(board, "classic", replace(PLAIN, tilt=25.0, tilt_direction=40.0, rotation=33.0), SMALL)
    out = render(scene)
    h = np.array(out.truth["geometry"]["cell_to_image"])
    assert len(out.truth["geometry"]["faces"]) == 5
    for face in out.truth["geometry"]["faces"]:
        p = h @ np.array([face["row"] + 0.5, face["col"] + 0.5, 1.0])
        a, b, c, d = np.array(face["corners"])
        # the face's centre in perspective: where its diagonals cross
        t = np.linalg.solve(np.column_stack([c - a, b - d]), b - a)[0]
        assert np.allclose(p[:2] / p[2], a + t * (c - a), atol=0.05)


def test_tall_blocks_lean_away_from_a_tilted_camera() -> None:
    """Seen from the photo's bottom side, a tile's top face lies above (smaller row) its footprint
    near the top of the picture, and the footprint's offset grows with the height."""
    scene = Scene(
        Board.from_text("Ro"),
        "classic",
        replace(PLAIN, tilt=35.0, tilt_direction=0.0),
        SMALL,
        centre=(4.0, 0.5),
    )
    top = cells_to_image(scene, np.array([[0.5, 0.5]]))[0]
    base = cells_to_image(scene, np.array([[0.5, 0.5]]), on_top=False)[0]
    assert top[0] < base[0] - 3
    cubes = Scene(Board.from_text("Ro"), "cubes", scene.conditions, SMALL, centre=(4.0, 0.5))
    cube_top = cells_to_image(cubes, np.array([[0.5, 0.5]]))[0]
    cube_base = cells_to_image(cubes, np.array([[0.5, 0.5]]), on_top=False)[0]
    assert cube_base[0] - cube_top[0] > base[0] - top[0]


def test_a_hand_hides_the_cells_under_it_and_only_those() -> None:
    board = Board.from_text("Ro Rx Rd Rs Rt Rc")
    scene = Scene(board, "classic", replace(PLAIN, px_per_tile=45.0), SMALL)
    left = cells_to_image(scene, np.array([[0.5, 0.5]]))[0] / np.array(SMALL)
    hand = Hand(row=float(left[0]) - 0.05, col=float(left[1]), angle=180.0, size=1.6)
    out = render(replace(scene, hand=hand))
    hidden = {(u["row"], u["col"]) for u in out.truth["uncertain"] if u["reason"] == "occluded"}
    assert (0, 0) in hidden
    assert (0, 5) not in hidden
    assert len(out.truth["tiles"]) == 6  # hidden tiles are still on the table
    assert render(scene).truth["uncertain"] == []


def test_tiles_off_the_picture_are_left_out_or_marked() -> None:
    board = Board.of(PlacedTile(0, c, Tile("red", s)) for c, s in enumerate(tileset("classic").shapes))
    scene = Scene(board, "classic", replace(PLAIN, px_per_tile=90.0), SMALL, centre=(0.5, 0.5))
    out = render(scene)
    listed = {(t["row"], t["col"]) for t in out.truth["tiles"]}
    assert (0, 0) in listed and (0, 5) not in listed
    assert any(u["reason"] == "out-of-frame" for u in out.truth["uncertain"])


def test_light_conditions_cast_their_colour() -> None:
    board = Board.from_text("Ro Go Bo")
    means = {}
    for light in ("warm", "cool", "neutral", "dim"):
        out = render(Scene(board, "classic", replace(PLAIN, light=light), SMALL))
        means[light] = out.image.reshape(-1, 3).mean(axis=0)
    assert means["warm"][2] / means["warm"][0] > 1.3 > means["cool"][2] / means["cool"][0]
    assert means["dim"].mean() < 0.7 * means["neutral"].mean()


def test_rotation_turns_the_layout() -> None:
    board = Board.from_text("Ro Rx Rd Rs")
    straight = Scene(board, "classic", PLAIN, SMALL)
    turned = replace(straight, conditions=replace(PLAIN, rotation=90.0))
    a = cells_to_image(straight, np.array([[0.5, 0.5], [0.5, 3.5]]))
    b = cells_to_image(turned, np.array([[0.5, 0.5], [0.5, 3.5]]))
    assert abs(a[1, 0] - a[0, 0]) < 1 and abs(a[1, 1] - a[0, 1]) > 100  # a row runs across
    assert abs(b[1, 1] - b[0, 1]) < 1 and b[1, 0] - b[0, 0] > 100  # clockwise: it now runs down


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("light", "purple", "light 'purple'"),
        ("tilt", 75.0, "tilt must be"),
        ("table", "glass", "table 'glass'"),
    ],
)
def test_bad_conditions_name_what_is_wrong(field: str, value: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        Conditions(**{field: value})


def test_a_scene_refuses_tiles_of_another_edition() -> None:
    with pytest.raises(Exception, match="purple"):
        Scene(Board.from_text("Po"), "connect")


def test_glare_washes_out_the_tiles_it_falls_on_and_is_marked() -> None:
    board = Board.from_text("Ro Rx Rd / Go Gx Gd")
    dull = Scene(board, "classic", PLAIN, SMALL)
    shiny = replace(dull, conditions=replace(PLAIN, glare=1.0))
    a, b = render(dull), render(shiny)
    glared = [(u["row"], u["col"]) for u in b.truth["uncertain"] if u["reason"] == "glare"]
    assert glared and a.truth["uncertain"] == []
    face = next(f for f in b.truth["geometry"]["faces"] if (f["row"], f["col"]) == glared[0])
    r, c = np.round(np.mean(face["corners"], axis=0)).astype(int)
    assert b.image[r, c].astype(int).sum() > a.image[r, c].astype(int).sum() + 150
    assert np.array_equal(a.image[:20, :20], b.image[:20, :20])  # the table is matte
