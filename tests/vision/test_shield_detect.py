"""vision/shield_detect.py: one candidate per Herkle shield, where the paint detector finds pieces."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.lighting import SHIFTS, shift_light
from table import tileset
from vision import read_table, shield_detect, symbol_candidates
from vision.detect import Blobs, find_blobs, local_mean, strength
from vision.evaluate import score_frame
from vision.geometry import foreshortened, similarity
from vision.occupied import RECENTRE, STEADY
from vision.render import random_scene, render
from vision.shield_detect import CONTRAST, contrast, field_share, find_shields, truer_axes

#: Tiles pushed together under a slightly tilted camera and an ordinary light, on a light table.
CONDITIONS: dict[str, Any] = {
    "hand": 0.0,
    "light": "neutral",
    "table": "light-wood",
    "px_per_tile": 42.0,
    "tilt": 8.0,
    "drift": 0.5,
    "gaps": 0.0,
    "blur": 0.8,
    "noise": 1.0,
    "jpeg_quality": 90,
    "glare": 0.0,
}


def _hits(centres: np.ndarray, truth: dict[str, Any]) -> tuple[int, int, int]:
    """How many of the truth's faces have a candidate within a fifth of a tile of their middle, how many
    have more than one there, and how many candidates lie on no face (further than half a tile)."""
    faces = np.array([np.mean(f["corners"], axis=0) for f in truth["geometry"]["faces"]])  # (row, col)
    tile = float(truth["conditions"]["px_per_tile"])
    gap = np.linalg.norm(faces[:, None] - centres[None], axis=2)
    near = gap < 0.2 * tile
    return (
        int(near.any(axis=1).sum()),
        int((near.sum(axis=1) > 1).sum()),
        int((gap.min(axis=0) > 0.5 * tile).sum()),
    )


@pytest.fixture(scope="module")
def scene() -> Any:
    return render(random_scene(seed=11, variant="herkle", size=(600, 800), tiles=30, **CONDITIONS))


def test_one_candidate_per_shield_where_paint_gives_pieces(scene: Any) -> None:
    shields = find_shields(scene.image)
    hit, twice, stray = _hits(shields.centres, scene.truth)
    paint, _, _ = _hits(find_blobs(strength(scene.image)).typical().centres, scene.truth)
    tiles = len(scene.truth["tiles"])
    black = sum(t["colour"] == "black" for t in scene.truth["tiles"])
    # a shield split by a black ordinary is no whole shield; most others are found (a few run into
    # their neighbours where the rim between them is blurred away), and none twice
    assert hit >= 0.8 * (tiles - black), (hit, tiles, black)
    assert twice == 0 and stray <= 1
    assert hit >= paint + 5, (hit, paint)
    # the extent is about the shield's width (0.92 of the tile)
    tile = scene.truth["conditions"]["px_per_tile"]
    assert 0.75 * tile < float(np.median(shields.extents)) < 1.1 * tile


def test_reading_herkle_by_its_shields_finds_more_tiles(scene: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    herkle = tileset("herkle")
    by_shields = score_frame(read_table(scene.image, tileset=herkle), scene.truth, layout=None, where="r")
    monkeypatch.setattr(symbol_candidates, "find_shields", symbol_candidates._paint_blobs)
    by_paint = score_frame(read_table(scene.image, tileset=herkle), scene.truth, layout=None, where="r")
    assert by_shields.wrong == by_shields.extra == 0, by_shields.summary()
    # by its shields every tile is read; by the pieces of paint some are missed or misnamed
    assert by_shields.right == by_shields.tiles > by_paint.right, (by_shields.summary(), by_paint.summary())


def test_a_lamps_cast_is_undone_on_the_shields_field(scene: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    herkle = tileset("herkle")
    assert shield_detect.field_cast(scene.image, find_shields(scene.image)) is None  # grey already
    warm = shift_light(scene.image, SHIFTS["warm"], seed=0)  # uncorrected tungsten: the field turns orange
    gains = shield_detect.field_cast(warm, find_shields(warm))
    assert gains is not None and gains[0] > gains[1] > gains[2] == 1.0, gains  # blue gained most, red none
    read = score_frame(read_table(warm, tileset=herkle), scene.truth, layout=None, where="warm")
    # most tiles right, none wrong (19 of 31: the rest are hues the bodies' balance leaves off their colour)
    assert read.wrong == read.extra == 0 and read.right > 0.5 * read.tiles, read.summary()
    monkeypatch.setattr(symbol_candidates, "field_cast", lambda *_: None)
    unbalanced = score_frame(read_table(warm, tileset=herkle), scene.truth, layout=None, where="warm")
    assert unbalanced.right == 0, unbalanced.summary()


def test_a_cast_no_lamp_gives_is_not_undone(scene: Any) -> None:
    # a field as saturated as tungsten's but blue: no black body's colour (an ordinary taken for the field)
    blue = shield_detect.balanced(scene.image, np.array([1.0, 0.45, 0.2]))
    assert not field_share(blue, find_shields(blue)).any()  # nothing lit is grey
    assert shield_detect.field_cast(blue, find_shields(blue)) is None


def test_a_frame_without_shields_has_no_candidates() -> None:
    rng = np.random.default_rng(3)
    table = np.clip(rng.normal(150, 6, (240, 320, 3)), 0, 255).astype(np.uint8)
    assert len(find_shields(table)) == 0
    assert len(find_shields(np.zeros((240, 320, 3), np.uint8))) == 0


def test_the_image_must_be_bgr_uint8() -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        find_shields(np.zeros((64, 64), np.uint8))
    with pytest.raises(ValueError, match="BGR uint8"):
        find_shields(np.zeros((64, 64, 3), np.float32))


def test_a_blob_without_the_field_colour_is_the_table_through_a_hole() -> None:
    # three grey shields with a red band each on black bodies, and a square of green table framed by them
    image = np.full((120, 400, 3), 25, np.uint8)
    for left in (27, 127, 227):
        image[32:88, left : left + 56] = (118, 120, 124)
        image[52:68, left : left + 56] = (32, 28, 160)
    image[32:88, 322:378] = (40, 120, 30)
    centres = np.array([[60.0, 55.0], [60.0, 155.0], [60.0, 255.0], [60.0, 350.0]])
    share = field_share(image, Blobs(centres, np.full(4, 80.0), np.ones(4)))
    assert (share[:3] > 0.3).all() and share[3] == 0.0, share


def test_cores_in_the_noise_of_a_dark_table_in_dim_light_are_no_shields() -> None:
    # a few tiles on green felt, darkened as a dim room does (calibration's dim shift): the felt is lit
    # against its own dim mean but for its noise, whose gaps leave square cores all over the table (the old
    # detector returned 1257 of them for the grid fit to throw away); they are no brighter than the table
    dim: dict[str, Any] = {
        "light": "dim",
        "table": "green-felt",
        "px_per_tile": 30.0,
        "tilt": 2.0,
        "drift": 0.0,
        "gaps": 8.0,
    }
    dim |= {"blur": 0.9, "noise": 1.2, "jpeg_quality": 70, "glare": 0.0, "hand": 0.0}
    scene = render(random_scene(seed=3, variant="herkle", size=(720, 960), tiles=10, **dim))
    shields = find_shields(scene.image)
    hit, _, stray = _hits(shields.centres, scene.truth)
    assert hit >= 5 and stray == 0, (hit, stray)
    q = strength(scene.image)
    assert float(np.median(contrast(q, local_mean(q), shields))) > 5 * CONTRAST
    darker = shift_light(scene.image, SHIFTS["dim"], seed=0)
    _, _, stray = _hits(find_shields(darker).centres, scene.truth)
    assert stray == 0, stray


def test_a_dim_frame_too_noisy_for_its_cores_is_looked_at_smoothed(monkeypatch: pytest.MonkeyPatch) -> None:
    # tiles on green felt under an ordinary light, darkened as a dim room does (calibration's dim shift):
    # at this resolution the noise breaks the body's rims and punches gaps in the felt, so the cores are
    # the felt's and no brighter than it; smoothed by a 3-pixel box the shields are found again, none on
    # the table
    felt: dict[str, Any] = {"light": "neutral", "table": "green-felt", "px_per_tile": 38.0, "tilt": 2.0}
    felt |= {
        "drift": 0.0,
        "gaps": 10.0,
        "blur": 1.0,
        "noise": 1.2,
        "jpeg_quality": 65,
        "glare": 0.0,
        "hand": 0.0,
    }
    scene = render(random_scene(seed=2, variant="herkle", size=(480, 640), tiles=14, **felt))
    darker = shift_light(scene.image, SHIFTS["dim"], seed=0)
    tiles = len(scene.truth["tiles"])
    black = sum(t["colour"] == "black" for t in scene.truth["tiles"])
    hit, twice, stray = _hits(find_shields(darker).centres, scene.truth)
    assert hit >= 0.8 * (tiles - black) and twice == stray == 0, (hit, twice, stray, tiles, black)
    monkeypatch.setattr(shield_detect, "SMOOTHING", (1,))
    assert len(find_shields(darker)) == 0


def test_the_depth_is_the_middle_of_those_giving_the_most(monkeypatch: pytest.MonkeyPatch) -> None:
    # large blurred tiles on a light table: on the coarse copy (its halving darkens the rims) the shields
    # come apart at a shallower depth than on the copy the cores are taken from, where the first depth
    # giving the most still shows them run together; the middle of the run of depths does not
    light = CONDITIONS | {"px_per_tile": 69.0, "tilt": 4.0, "drift": 0.0, "gaps": 4.6, "blur": 1.2}
    light |= {"noise": 1.6, "jpeg_quality": 75}
    scene = render(random_scene(seed=2, variant="herkle", size=(768, 1024), tiles=35, **light))
    hit, twice, stray = _hits(find_shields(scene.image).centres, scene.truth)
    monkeypatch.setattr(shield_detect, "_middle_of_most", lambda counts: int(np.argmax(counts)))
    first, _, _ = _hits(find_shields(scene.image).centres, scene.truth)
    assert hit >= 0.8 * len(scene.truth["tiles"]) and twice == 0 and stray <= 1, (hit, twice, stray)
    assert hit >= first + 5, (hit, first)


def test_the_middle_of_the_first_run_of_the_most() -> None:
    assert shield_detect._middle_of_most([3, 22, 22, 22, 22, 5, 22]) == 2
    assert shield_detect._middle_of_most([3, 9, 22, 22, 1]) == 2
    assert shield_detect._middle_of_most([0, 0, 0]) == 1


def _herkle_grid(
    seed: int, conditions: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A rendered 14-tile Herkle layout's working copy, its placed candidates' cells (N, 2) and centres
    (N, 2), and the grid's homography."""
    out = render(random_scene(seed=seed, variant="herkle", size=(480, 640), tiles=14, **conditions))
    spotted = symbol_candidates.candidates(out.image, tileset="herkle")
    assert spotted is not None
    work, _, blobs, lattice = spotted
    return work, lattice.cells[lattice.placed], blobs.centres[lattice.placed], lattice.homography


def test_herkle_shields_tell_a_foreshortening_from_a_wrong_one() -> None:
    # a narrow Herkle layout under a 35° camera: its shields fit their outline better cut in the
    # foreshortened homography than in the grid's similarity (median misfit 0.036 against 0.135), and
    # worse in one that stretches it by a quarter along either axis (0.126, 0.156), as a row bent by
    # drift, taken for perspective, does
    steep: dict[str, Any] = {"hand": 0.0, "light": "neutral", "table": "dark-wood", "px_per_tile": 44.0}
    steep |= {"tilt": 35.0, "drift": 0.0, "gaps": 0.0, "blur": 0.5, "noise": 1.0, "jpeg_quality": 95}
    steep |= {"askew": 0.5, "jitter": 0.3}
    work, cells, centres, grid = _herkle_grid(0, steep)
    cut = foreshortened(grid, cells.astype(np.float64), centres, within=STEADY)
    assert cut is not grid
    assert truer_axes(work, centres, cells, grid, cut, within=STEADY) is cut
    for stretch in ([1.25, 1.0, 1.0], [1.0, 1.25, 1.0]):
        assert truer_axes(work, centres, cells, cut, cut @ np.diag(stretch), within=STEADY) is cut


def test_herkle_shields_cut_in_a_stretched_grid_take_the_similarity_through_them() -> None:
    # a homography through a few shields can stretch the cells along one axis (one frame of the rendered
    # set, a 16° camera, had 29 against 36 pixels a cell where 31 were true: no shield of it was whole);
    # where the shields fit their outline in neither the grid's axes nor the foreshortened ones, the
    # similarity through them is taken, and where they fit the grid's it stays
    work, cells, centres, grid = _herkle_grid(3, CONDITIONS)
    assert truer_axes(work, centres, cells, grid, grid, within=RECENTRE) is grid
    stretched = grid @ np.diag([1.0, 1.25, 1.0])
    chosen = truer_axes(work, centres, cells, stretched, stretched, within=RECENTRE)
    assert np.allclose(chosen, similarity(cells.astype(np.float64), centres))
