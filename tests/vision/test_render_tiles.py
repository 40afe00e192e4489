"""Tile faces: each edition's symbols are told apart by shape, inner mark or ordinary, as on the tiles."""

from __future__ import annotations

import numpy as np
import pytest

from table import Tile, tileset
from vision.outline import outline, radial
from vision.render_tiles import BODY, INNER_MARKS, PAINT, fill_mask, paint_face, paint_side, symbol_polygons

SIZE = 96


def _face(tile: Tile, variant: str, seed: int = 0) -> np.ndarray:
    return paint_face(tile, variant=variant, size=SIZE, rng=np.random.default_rng(seed), imperfection=0.0)


def _paint_mask(face: np.ndarray, colour: str) -> np.ndarray:
    """Where the face shows ``colour``'s paint."""
    painted: np.ndarray = np.abs(face[..., :3].astype(float) - PAINT[colour]).max(axis=2) < 25
    return painted


@pytest.mark.parametrize("variant", ["classic", "colour-blind", "herkle", "cubes", "connect"])
def test_every_tile_of_every_edition_paints_and_the_36_faces_differ(variant: str) -> None:
    faces = {}
    for tile in tileset(variant).tiles():
        face = _face(tile, variant)
        assert face.shape == (SIZE, SIZE, 4) and face.dtype == np.uint8
        faces[tile] = face[..., :3].astype(float)
    tiles = list(faces)
    for i, a in enumerate(tiles):
        for b in tiles[i + 1 :]:
            assert (np.abs(faces[a] - faces[b]).max(axis=2) > 30).mean() > 0.03, (a, b)


def test_classic_symbols_have_their_shapes() -> None:
    area = {s: _paint_mask(_face(Tile("red", s), "classic"), "red").mean() for s in tileset("classic").shapes}
    # the circle fills more of the face than the square; the criss-cross is the thinnest symbol
    assert area["circle"] > area["square"] > area["criss-cross"]
    assert min(area, key=lambda s: area[s]) == "criss-cross"
    diamond = _paint_mask(_face(Tile("red", "diamond"), "classic"), "red")
    square = _paint_mask(_face(Tile("red", "square"), "classic"), "red")

    def at(mask: np.ndarray, row: float, col: float) -> bool:  # face units: -1..1 across the face
        return bool(mask[round((row + 1) * SIZE / 2), round((col + 1) * SIZE / 2)])

    # a diamond reaches further out along the axes, a square further into the corners
    assert at(diamond, 0, -0.72) and not at(square, 0, -0.72)
    assert at(square, -0.5, -0.5) and not at(diamond, -0.5, -0.5)


@pytest.mark.parametrize("colour", list(INNER_MARKS))
def test_colour_blind_tiles_carry_their_colour_as_an_inner_mark(colour: str) -> None:
    face = _face(Tile(colour, "circle"), "colour-blind").astype(float)
    centre = face[SIZE // 2, SIZE // 2, :3]
    assert np.abs(centre - BODY).max() < 20  # the inner mark is cut out in the body's black
    ring = face[SIZE // 2, SIZE // 2 + SIZE // 4, :3]
    assert np.abs(ring - PAINT[colour]).max() < 25  # around it, the outer shape in the tile's colour
    marks = {
        c: (np.abs(_face(Tile(c, "circle"), "colour-blind")[..., :3].astype(float) - BODY).max(axis=2) < 20)
        for c in INNER_MARKS
    }
    others = [c for c in INNER_MARKS if c != colour]
    assert all((marks[colour] != marks[o]).mean() > 0.005 for o in others)


def test_herkle_ordinaries_run_their_own_way() -> None:
    fess = _paint_mask(_face(Tile("red", "fess"), "herkle"), "red")
    pale = _paint_mask(_face(Tile("red", "pale"), "herkle"), "red")
    assert fess.any(axis=1).mean() < 0.5 < fess.any(axis=0).mean()  # a horizontal band
    assert pale.any(axis=0).mean() < 0.5 < pale.any(axis=1).mean()  # a vertical band
    bend = _paint_mask(_face(Tile("red", "bend"), "herkle"), "red")
    q = SIZE // 4
    assert bend[q + 6, q + 6] and not bend[q, SIZE - q]  # from the top left towards the bottom right
    black = _face(Tile("black", "cross"), "herkle")
    assert (
        black[SIZE // 2, SIZE // 2, :3].max() < 60 and black[SIZE // 4, SIZE // 4, :3].min() > 90
    )  # on the field


def test_side_faces_are_dark_and_imperfections_vary_with_the_seed() -> None:
    side = paint_side(20, 60, rng=np.random.default_rng(1))
    assert side.shape == (20, 60, 4) and side[..., :3].mean() < 60
    a = paint_face(Tile("red", "circle"), variant="classic", size=SIZE, rng=np.random.default_rng(1))
    b = paint_face(Tile("red", "circle"), variant="classic", size=SIZE, rng=np.random.default_rng(2))
    assert not np.array_equal(a, b)
    with pytest.raises(ValueError, match="face size"):
        paint_face(Tile("red", "circle"), variant="classic", size=4, rng=np.random.default_rng(1))


@pytest.mark.parametrize(
    ("shape", "harmonics", "waist"),
    [("clover", (0.28, -0.067), 0.64), ("criss-cross", (-0.40, 0.13), 0.675)],
)
def test_clover_and_criss_cross_outlines_match_the_real_tiles(
    shape: str, harmonics: tuple[float, float], waist: float
) -> None:
    # what the reader measures on the real Connect photos: fourfold and eightfold harmonics of the
    # radial profile, and the narrowest radius over the mean one
    mask = fill_mask(symbol_polygons(shape), 128)
    profile = radial(mask[None], np.zeros((1, 2)))
    a4, a8 = outline(profile)[0, :2]
    assert abs(a4 - harmonics[0]) < 0.03 and abs(a8 - harmonics[1]) < 0.03, (a4, a8)
    assert abs(float(profile.min()) - waist) < 0.03
