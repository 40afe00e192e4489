"""vision/shield_probes.py: which Herkle cells a probe takes by their whole shields; tiles whose shield is
not whole, looked at again centred on it."""

from __future__ import annotations

import cv2
import numpy as np

from table import Tile, tileset
from vision import occupied
from vision.classify import classify
from vision.features import measure, presence
from vision.patches import PATCH, cut_patches
from vision.prototypes import default_prototypes, paint_patches, white_balance
from vision.render_tiles import BODY
from vision.shield_probes import MOVE, SEARCH, Shields, recentred_shields, searched, whole_shields
from vision.shields import field_colour, shield_outline, view_shields

HERKLE = tileset("herkle")


def _side_by_side(*, top: int) -> tuple[list[Tile], np.ndarray]:
    """The 36 Herkle tiles, six a row, painted side by side from row ``top`` of a working copy eight cells
    high and six wide of the body's colour."""
    tiles = [Tile(c, s) for c in HERKLE.colours for s in HERKLE.shapes]
    painted = paint_patches(tiles, variant="herkle", rng=np.random.default_rng(3), imperfection=0.3)
    work = np.empty((8 * PATCH, 6 * PATCH, 3), np.uint8)
    work[:] = BODY
    for k, patch in enumerate(painted):
        r, c = divmod(k, 6)
        work[(r + top) * PATCH : (r + top + 1) * PATCH, c * PATCH : (c + 1) * PATCH] = patch
    return tiles, work


def test_a_shield_seen_larger_than_its_cell_and_off_its_patch_is_whole_looked_at_again() -> None:
    # the 36 tiles side by side, each cut a fifth of a cell off its middle in axes that show it 1.11
    # cells wide (the grid's local axes under drift, a patch pulled aside by its ordinary): every shield
    # reaches past the window its lit field is read in, and none is whole; looked at again centred on
    # the shield it shows, in a patch 1.1 cells wide, most are (25), each nearer its tile's middle than
    # before and within MOVE of the first look, and every one named is named right
    tiles, work = _side_by_side(top=1)
    true = np.array([((k // 6 + 1.5) * PATCH - 0.5, (k % 6 + 0.5) * PATCH - 0.5) for k in range(len(tiles))])
    axes = np.tile(np.eye(2) * PATCH * 0.9, (len(tiles), 1, 1))
    first = true + np.array([0.2 * PATCH, 0.0])
    patches = cut_patches(work, first, axes)
    outline = shield_outline(HERKLE)
    assert not view_shields(patches, field_colour(patches), outline=outline).found.any()
    again, centres, changed = recentred_shields(work, patches, first, axes)
    whole = view_shields(again, field_colour(again), outline=outline).found
    assert changed.sum() >= 20 and (whole == changed).all(), (changed.sum(), whole.sum())
    assert (again[~changed] == patches[~changed]).all() and (centres[~changed] == first[~changed]).all()
    before = np.linalg.norm(first - true, axis=1)[changed]
    after = np.linalg.norm(centres - true, axis=1)[changed]
    assert (after < before).all() and (np.linalg.norm(centres - first, axis=1) < MOVE * 0.9 * PATCH).all()
    m = measure(again)
    named = classify(m, white_balance(m.body), default_prototypes(HERKLE))
    sure = np.flatnonzero(named.confidence >= 0.6)
    assert len(sure) >= 20
    assert all((named.colours[i], named.shapes[i]) == (tiles[i].colour, tiles[i].shape) for i in sure)


def test_whole_shields_are_left_as_they_are() -> None:
    tiles = [Tile(c, s) for c, s in zip(HERKLE.colours, HERKLE.shapes, strict=True)]
    painted = paint_patches(tiles, variant="herkle", rng=np.random.default_rng(2), imperfection=0.3)
    work = np.concatenate(list(painted), axis=1)
    centres = np.array([(PATCH / 2 - 0.5, (k + 0.5) * PATCH - 0.5) for k in range(len(tiles))])
    axes = np.tile(np.eye(2) * PATCH, (len(tiles), 1, 1))
    patches = cut_patches(work, centres, axes)
    again, moved, changed = recentred_shields(work, patches, centres, axes)
    assert not changed.any() and (again == patches).all() and (moved == centres).all()


def test_black_shields_on_a_light_table_are_taken_where_the_body_rings_them() -> None:
    # the 36 tiles on a light laminate, each a little smaller than its cell: the frame of every patch is
    # the lit table past the tile's thin rim, not dark; a black ordinary's paint is the grey field only,
    # so the paint probe refuses it, and so did the shield probe's dark-frame test. The body's dark rim
    # rings each black shield, so the shield probe takes all six (and no cell of bare table), and each
    # is named right
    tiles = [Tile(c, s) for c in HERKLE.colours for s in HERKLE.shapes]
    painted = paint_patches(tiles, variant="herkle", rng=np.random.default_rng(3), imperfection=0.3)
    laminate = (200, 212, 222)
    side = round(PATCH * 0.91)
    at = (PATCH - side) // 2
    work = np.empty((7 * PATCH, 6 * PATCH, 3), np.uint8)
    work[:] = laminate
    for k, patch in enumerate(painted):
        r, c = divmod(k, 6)
        tile = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
        work[r * PATCH + at : r * PATCH + at + side, c * PATCH + at : c * PATCH + at + side] = tile
    # the tiles' cells and, in the last row, six of bare table
    centres = np.array([((k // 6 + 0.5) * PATCH - 0.5, (k % 6 + 0.5) * PATCH - 0.5) for k in range(42)])
    axes = np.tile(np.eye(2) * PATCH, (len(centres), 1, 1))
    patches = cut_patches(work, centres, axes)
    black = np.array([t.colour == "black" for t in tiles] + [False] * 6)
    bare = np.arange(len(centres)) >= len(tiles)
    known = ~black & ~bare
    shields = Shields(field_colour(patches[known]), patches[known], centres[known])
    assert (presence(patches[black]).frame <= 0.5).all()
    taken, _, _ = whole_shields(patches, shields, np.array(laminate, np.float64), centres, axes)
    assert taken[black].all() and not taken[bare].any(), taken
    m = measure(patches[black])
    named = classify(m, white_balance(m.body), default_prototypes(HERKLE))
    assert (named.confidence >= 0.6).all(), named.confidence
    shown = [(named.colours[i], named.shapes[i]) for i in range(len(m))]
    assert shown == [(t.colour, t.shape) for t in tiles if t.colour == "black"], shown


def _probed_off_their_tiles() -> tuple[np.ndarray, ...]:
    """The 36 tiles side by side on the body's colour and a row of bare body below, the detector's
    shields (all but the black ones), and probes 0.12 of a cell off every cell along its row: the
    working copy, the cells' true centres (42, 2), their axes, which are black, which bare, the probes."""
    tiles, work = _side_by_side(top=0)
    true = np.array([((k // 6 + 0.5) * PATCH - 0.5, (k % 6 + 0.5) * PATCH - 0.5) for k in range(42)])
    axes = np.tile(np.eye(2) * PATCH, (len(true), 1, 1))
    black = np.array([t.colour == "black" for t in tiles] + [False] * 6)
    bare = np.arange(len(true)) >= len(tiles)
    return work, true, axes, black, bare, true + np.array([0.0, SEARCH * PATCH])


def _detected(work: np.ndarray, true: np.ndarray, axes: np.ndarray, known: np.ndarray) -> Shields:
    patches = cut_patches(work, true[known], axes[known])
    return Shields(field_colour(patches), patches, true[known])


def test_a_probe_off_a_black_shield_looks_around_it() -> None:
    # a black ordinary splits the field into pieces, and the window the field is read in cuts them, so
    # few of the six black shields are whole 0.12 of a cell off; looked at around that place (SEARCH
    # cells along each axis and diagonal), every one is, nearer its tile's middle than before, and so is
    # no cell of bare body
    work, true, axes, black, bare, probe = _probed_off_their_tiles()
    shields = _detected(work, true, axes, ~black & ~bare)
    rest = black | bare
    cut = cut_patches(work, probe[rest], axes[rest])
    at_once, _, _ = whole_shields(cut, shields, None, probe[rest], axes[rest])
    found, where, cut = searched(work, probe[rest], true[rest], axes[rest], shields, None, within=MOVE)
    assert at_once.sum() <= 1 and found[black[rest]].all() and not found[bare[rest]].any(), (at_once, found)
    before = np.linalg.norm(probe[black] - true[black], axis=1)
    after = np.linalg.norm(where[black[rest]] - true[black], axis=1)
    assert (after < before).all(), (before, after)
    assert (cut[found] == cut_patches(work, where[found], axes[rest][found])).all()


def test_a_probe_beside_a_candidate_the_grid_left_out_does_not_look_around() -> None:
    # the same probes: nearly every black shield is taken (5 of 6; recentring reaches 4, looking around
    # one more), and no bare cell; beside a candidate the grid left out (its group's rejoining places
    # it) only those recentring reaches
    work, true, axes, black, bare, probe = _probed_off_their_tiles()
    shields = _detected(work, true, axes, ~black & ~bare)
    rest = black | bare
    nothing = (np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, PATCH, PATCH, 3), np.uint8), None)
    rows, _, _, _ = occupied._with_shields(work, probe[rest], axes[rest], shields, nothing, table=None)
    assert len(rows) >= 5 and set(rows) <= set(np.flatnonzero(black[rest])), rows
    left_out = true[black] + np.array([PATCH, 0.0])  # a candidate left out a cell below each
    near, _, _, _ = occupied._with_shields(
        work, probe[rest], axes[rest], shields, nothing, table=None, left_out=left_out
    )
    assert set(near) < set(rows), (near, rows)
