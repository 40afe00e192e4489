"""vision/features.py: the measurements of a cell's patch (presence, the symbol's centre, its outline) name
the symbols, turned or not."""

from __future__ import annotations

import numpy as np
import pytest

from table import Tile, tileset
from vision.classify import ASYMMETRY_SPREAD, shape_distance
from vision.features import _darkest, _masked_means, measure, presence
from vision.outline import asymmetry
from vision.patch_masks import pixel_count, symbol_centres, symbol_parts
from vision.patches import PATCH
from vision.prototypes import default_prototypes
from vision.render_tiles import BODY, paint_face


def _patch(tile: Tile, variant: str, *, turns: int = 0, seed: int = 0) -> np.ndarray:
    """One cell's patch: the painted face on the body colour, turned by quarter turns."""
    face = round(PATCH * 29 / 30.5)
    painted = paint_face(tile, variant=variant, size=face, rng=np.random.default_rng(seed), imperfection=0.8)
    patch = np.empty((PATCH, PATCH, 3), np.float32)
    patch[:] = BODY
    alpha = painted[..., 3:].astype(np.float32) / 255
    at = (PATCH - face) // 2
    window = patch[at : at + face, at : at + face]
    window[:] = painted[..., :3] * alpha + window * (1 - alpha)
    return np.rot90(np.clip(patch, 0, 255).astype(np.uint8), turns).copy()


@pytest.mark.parametrize("variant", ["classic", "colour-blind", "connect"])
def test_the_default_outlines_name_every_painted_symbol_at_every_quarter_turn(variant: str) -> None:
    tiles = tileset(variant)
    prototypes = default_prototypes(tiles)
    stack = [
        _patch(Tile(colour, shape), variant, turns=k, seed=k)
        for shape in tiles.shapes
        for colour in tiles.colours[:2]
        for k in range(4)
    ]
    m = measure(np.stack(stack))
    names, distance = shape_distance(m, prototypes)
    named = [names[i] for i in distance.argmin(axis=1)]
    want = [shape for shape in tiles.shapes for _ in range(8)]
    assert named == want


def test_presence_take_keeps_the_chosen_patches() -> None:
    patches = np.stack([_patch(Tile("red", "circle"), "classic"), np.full((PATCH, PATCH, 3), 30, np.uint8)])
    p = presence(patches)
    one = p.take(np.array([True, False]))
    assert len(one.contrast) == 1 and one.contrast[0] == p.contrast[0]
    assert np.array_equal(measure(patches[:1], one).radial, measure(patches[:1]).radial)


def _with_side_face(patch: np.ndarray, colour: tuple[float, float, float]) -> np.ndarray:
    """The patch with a flat bar of paint along its bottom edge: a leaning cube's side face, whose symbol
    is seen squashed past the edge of the top face."""
    out = patch.copy()
    out[PATCH - 4 : PATCH - 1, 6 : PATCH - 6] = colour
    return out


def test_paint_past_the_face_does_not_move_the_symbols_centre() -> None:
    clean = _patch(Tile("red", "square"), "classic")
    patches = np.stack([clean, _with_side_face(clean, (32, 28, 160))])
    p = presence(patches)
    assert abs(p.offset[1, 0] - p.offset[0, 0]) > 0.02  # all the paint's centroid is pulled down
    centre = symbol_centres(p.offset, *symbol_parts(p.level))
    assert np.allclose(centre[1], centre[0], atol=0.01)  # the symbol's own is not
    m = measure(patches)
    names, distance = shape_distance(m, default_prototypes(tileset("classic")))
    assert [names[i] for i in distance.argmin(axis=1)] == ["square", "square"]


def test_paint_joined_to_the_symbol_does_not_move_its_centre() -> None:
    # a neighbouring cube's side face blurred into the symbol through a neck of paint
    # paint: a bar just inside the cell's bottom edge, and a neck from it to the symbol
    clean = _patch(Tile("red", "square"), "classic")
    joined = clean.copy()
    joined[PATCH - 3 : PATCH - 1, 6 : PATCH - 6] = (32, 28, 160)
    joined[PATCH // 2 : PATCH - 1, PATCH // 2 - 1 : PATCH // 2 + 1] = (32, 28, 160)
    p = presence(np.stack([clean, joined]))
    centre = symbol_centres(p.offset, *symbol_parts(p.level))
    assert abs(p.offset[1, 0] - p.offset[0, 0]) > 0.02  # all the paint's centroid is pulled down
    assert np.allclose(centre[1], centre[0], atol=0.01)


def test_the_light_table_past_the_face_does_not_tint_the_paint() -> None:
    # a patch cut a little off its tile at the layout's edge: a strip of pale table inside the cell
    clean = _patch(Tile("green", "square"), "colour-blind")
    tabled = clean.copy()
    tabled[: PATCH // 8 + 1] = (235, 225, 205)
    m = measure(np.stack([clean, tabled]))
    assert abs(m.coverage[1] - m.coverage[0]) > 0.05  # the table counts as paint in the cell
    assert np.allclose(m.paint[1], m.paint[0], atol=2.0)  # but not in the symbol's colour


def test_whole_symbols_are_fourfold() -> None:
    tiles = tileset("classic")
    whole = measure(
        np.stack([_patch(Tile("blue", s), "classic", turns=k) for s in tiles.shapes for k in (0, 1)])
    )
    assert (asymmetry(whole.radial) < 1.5 * ASYMMETRY_SPREAD).all()


def test_counts_and_darkest_channels_are_numpys() -> None:
    rng = np.random.default_rng(4)
    colours = tileset("classic").colours
    patches = np.stack([_patch(Tile(c, "starburst"), "classic", seed=i) for i, c in enumerate(colours)])
    patches[2, 3:9, 4:20] = 250  # a glint
    darkest = _darkest(patches)
    assert np.array_equal(darkest, patches.min(axis=3))
    mask = (darkest > 60) | (rng.random(darkest.shape) < 0.1)
    assert np.array_equal(pixel_count(mask), mask.sum(axis=(1, 2)))
    assert len(pixel_count(mask[:0])) == 0 and _darkest(patches[:0]).shape == (0, PATCH, PATCH)


def test_masked_means_are_numpys_exact_means() -> None:
    # the means are sums of whole 8-bit values over whole counts: exact whatever order they are added in,
    # so they equal NumPy's float64 means of the masked pixels rounded once to float32
    rng = np.random.default_rng(5)
    colours = tileset("classic").colours
    patches = np.stack([_patch(Tile(c, "clover"), "classic", seed=i) for i, c in enumerate(colours)])
    patches[0] = 255  # the largest sums
    masks = [rng.random(patches.shape[:3]) < 0.3, patches.max(axis=3) > 90]
    masks[1][1] = False  # an empty mask: mean 0
    for mask, got in zip(masks, _masked_means(patches, *masks), strict=True):
        assert got.shape == (len(patches), 3) and got.dtype == np.float64
        for i in range(len(patches)):
            want = patches[i][mask[i]].mean(axis=0) if mask[i].any() else np.zeros(3)
            assert np.array_equal(got[i], want.astype(np.float32))
    assert [m.shape for m in _masked_means(patches[:0], masks[0][:0])] == [(0, 3)]


def test_the_frame_rim_and_reach_of_a_patch_do_not_depend_on_the_others() -> None:
    # found from each patch's own level when first asked for: alike before and after a take
    tiles = [_patch(Tile("red", "circle"), "classic"), _patch(Tile("blue", "clover"), "classic")]
    patches = np.stack([tiles[0], np.full((PATCH, PATCH, 3), 120, np.uint8), tiles[1]])
    p = presence(patches)
    later = p.take(np.array([0, 2]))
    assert p.found(0.7).tolist() == [True, False, True]
    for name in ("frame", "rim", "reach"):
        assert np.array_equal(getattr(later, name), getattr(p, name)[[0, 2]])


def test_a_take_keeps_what_was_found_and_replaced_rows_are_found_anew() -> None:
    tiles = [_patch(Tile("red", "circle"), "classic"), _patch(Tile("blue", "clover"), "classic")]
    patches = np.stack([tiles[0], np.full((PATCH, PATCH, 3), 120, np.uint8), tiles[1]])
    p = presence(patches)
    p.found(0.7)  # finds frame, rim and reach
    later = p.take(np.array([0, 2]))
    assert {"frame", "rim", "reach"} <= set(vars(later))  # carried over, not found again
    fresh = presence(patches[[0, 2]])
    for name in ("contrast", "offset", "level", "frame", "rim", "reach"):
        assert np.array_equal(getattr(later, name), getattr(fresh, name))
    # a row looked at again: the merged presence is that of the new stack
    again = patches.copy()
    again[1] = _patch(Tile("green", "square"), "classic")
    merged = p.with_rows(np.array([1]), presence(again[1:2]))
    whole = presence(again)
    for name in ("contrast", "coverage", "offset", "level", "frame", "rim", "reach"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name))
    assert merged.found(0.7).tolist() == whole.found(0.7).tolist() == [True, True, True]


def test_silhouettes_and_hole_profiles_found_when_first_read_are_those_found_at_once() -> None:
    # a reader that names shapes by outline never reads the silhouettes (nor, but for the colour-blind
    # edition, the hole profiles): they are found when first read, the same numbers, through take and concat
    from vision.features import _centred, concat
    from vision.outline import profiles
    from vision.patch_masks import patch_grid

    tiles = tileset("colour-blind")
    patches = np.stack(
        [
            _patch(Tile(c, s), "colour-blind", turns=k % 4, seed=k)
            for k, (c, s) in enumerate(tiles.tiles()[:20])
        ]
    )
    p = presence(patches)
    level = p.level
    silhouettes = _centred(np.clip(level, 0, 1) * patch_grid(PATCH).inside, p.offset)
    holes = profiles(level, symbol_centres(p.offset, *symbol_parts(level)))[1]
    keep = np.arange(20) % 3 != 0
    first, second = measure(patches, p), measure(patches)
    taken = first.take(keep)
    joined = concat([second.take(~keep), taken])
    keep[:] = False  # a mask changed after it was used takes nothing back
    assert np.array_equal(first.silhouette, silhouettes) and np.array_equal(first.hole, holes)
    assert np.array_equal(taken.silhouette, silhouettes[np.arange(20) % 3 != 0])
    assert np.array_equal(taken.hole, holes[np.arange(20) % 3 != 0])
    order = np.concatenate([np.flatnonzero(np.arange(20) % 3 == 0), np.flatnonzero(np.arange(20) % 3 != 0)])
    assert np.array_equal(joined.silhouette, silhouettes[order]) and np.array_equal(joined.hole, holes[order])
    assert np.array_equal(joined.radial, first.radial[order]) and np.array_equal(
        joined.paint, first.paint[order]
    )
