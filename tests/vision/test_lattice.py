"""vision/lattice.py: cells from symbol centres, whatever the rotation, perspective, drift and grouping."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from table import tileset
from vision import read_table
from vision.evaluate import score_frame
from vision.geometry import apply_homography
from vision.geometry import spread as spread_of
from vision.joins import spreads
from vision.lattice import among, cell_keys, fit_lattice
from vision.render import random_scene, render
from vision.symbol_candidates import candidates


def _points(
    cells: Sequence[tuple[float, float]], *, angle: float, pitch: float, skew: float = 0.0
) -> np.ndarray:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    h = np.array([[pitch * c, pitch * s, 400.0], [-pitch * s, pitch * c, 500.0], [skew, 0.0, 1.0]])
    return apply_homography(h, np.array(cells, np.float64))


def _same_up_to_shift(found: np.ndarray, cells: list[tuple[int, int]]) -> bool:
    want = np.array(cells)
    return bool((found - found[0] == want - want[0]).all())


ROW = [(0, c) for c in range(6)] + [(1, 2), (2, 2), (3, 2), (3, 3), (3, 5)]


@pytest.mark.parametrize("angle", [0.0, 7.0, -30.0, 44.0])
def test_cells_are_recovered_at_any_rotation(angle: float) -> None:
    pts = _points(ROW, angle=angle, pitch=40.0)
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    assert lattice.placed.all()
    # the rotation is only known modulo a quarter turn: compare the cells after undoing it
    turned = [np.array([_turn(c, k) for c in lattice.cells]) for k in range(4)]
    assert any(_same_up_to_shift(t, ROW) for t in turned)
    assert abs(lattice.pitch - 40.0) < 1.0


def _turn(cell: np.ndarray, k: int) -> tuple[int, int]:
    r, c = int(cell[0]), int(cell[1])
    for _ in range(k):
        r, c = c, -r
    return r, c


def test_perspective_drift_and_two_groups() -> None:
    cells = [*ROW, (9, 9), (9, 10), (10, 10)]
    pts = _points(cells, angle=3.0, pitch=40.0, skew=0.0008)
    rng = np.random.default_rng(1)
    pts += rng.normal(0, 2.0, pts.shape)  # tiles pushed together by hand
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    assert lattice.placed.all()
    assert _same_up_to_shift(lattice.cells, cells)


def test_diagonal_start_needs_the_hint() -> None:
    cells = [(k, k) for k in range(6)]
    pts = _points(cells, angle=0.0, pitch=40.0)
    lattice = fit_lattice(pts, np.full(len(pts), 28.0), diagonal=True)
    assert _same_up_to_shift(lattice.cells, cells)
    assert abs(lattice.pitch - 40.0) < 1.0


def test_a_fragment_next_to_a_symbol_gets_no_cell() -> None:
    pts = _points(ROW, angle=0.0, pitch=40.0)
    fragment = pts[2] + [0, 15.0]
    lattice = fit_lattice(np.vstack([pts, fragment]), np.array([28.0] * len(pts) + [6.0]))
    assert not lattice.placed[-1]
    assert _same_up_to_shift(lattice.cells[:-1], ROW)


def test_one_point() -> None:
    lattice = fit_lattice(np.array([[100.0, 100.0]]), np.array([30.0]))
    assert lattice.cells.tolist() == [[0, 0]]


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        fit_lattice(np.zeros((0, 2)), np.zeros(0))


def test_strong_perspective_keeps_every_step_local() -> None:
    # a camera tilted hard: the pitch changes by two thirds across the layout
    cells = [(r, c) for r in range(8) for c in range(12) if (r + 2 * c) % 5]
    pts = _points(cells, angle=-25.0, pitch=40.0, skew=0.014)
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    assert lattice.placed.all()
    assert _same_up_to_shift(lattice.cells, cells)


def test_a_group_beyond_a_wide_gap_joins_when_it_fits_one_grid() -> None:
    # two parts of a layout with a hand's width (five empty columns) between them, in perspective
    left = [(r, c) for r in range(4) for c in range(3)]
    right = [(r, c) for r in range(1, 5) for c in range(8, 11)]
    pts = _points(left + right, angle=5.0, pitch=40.0, skew=0.0005)
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    assert lattice.placed.all()
    assert _same_up_to_shift(lattice.cells, left + right)


def test_a_group_half_a_cell_off_is_left_out_rather_than_guessed() -> None:
    # the far group sits half a cell off the grid of the near one: no shift is right, none is taken
    left = [(r, c) for r in range(4) for c in range(3)]
    right = [(r, c) for r in range(4) for c in range(8, 10)]
    pts = _points(left + right, angle=0.0, pitch=40.0)
    pts[len(left) :] += [20.0, 0.0]
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    placed_right = lattice.placed[len(left) :]
    assert lattice.placed[: len(left)].all()
    assert not placed_right.any()


def test_without_joining_only_the_first_group_gets_cells() -> None:
    left = [(r, c) for r in range(4) for c in range(3)]
    right = [(r, c) for r in range(4) for c in range(8, 11)]
    pts = _points(left + right, angle=5.0, pitch=40.0)
    joined = fit_lattice(pts, np.full(len(pts), 28.0))
    alone = fit_lattice(pts, np.full(len(pts), 28.0), join=False)
    assert joined.placed.all()
    # one group only, the one the tree grew in, with the same cells as in the joined fit
    assert alone.placed.sum() == len(left)
    assert alone.placed[: len(left)].all() or alone.placed[len(left) :].all()
    mine = alone.placed
    assert _same_up_to_shift(alone.cells[mine], [c for c, m in zip(left + right, mine, strict=True) if m])


@pytest.mark.parametrize("seed", range(5))
def test_one_or_two_tiles_beyond_a_wide_gap_are_left_out(seed: int) -> None:
    # beyond a small block, one or two tiles fit the grid extrapolated across a gap at several shifts (a
    # homography bends its perspective to take them): with the symbols' centres a twentieth of a cell
    # astray no shift is clear or far likelier, and they are not placed; three, where they join, join on
    # their own cells
    block = [(r, c) for r in range(4) for c in range(4)]
    rng = np.random.default_rng(seed)
    for far in ([(1, 9)], [(1, 9), (2, 9)], [(1, 9), (2, 9), (2, 10)]):
        astray = rng.normal(0.0, 2.0, (len(block) + len(far), 2))
        pts = _points(block + far, angle=3.0, pitch=40.0, skew=0.0004) + astray
        lattice = fit_lattice(pts, np.full(len(pts), 28.0))
        assert lattice.placed[: len(block)].all()
        if len(far) < 3:
            assert not lattice.placed[len(block) :].any()
        elif lattice.placed.all():
            assert _same_up_to_shift(lattice.cells, block + far)


def test_tiles_beyond_a_wide_gap_join_where_their_own_cells_are_far_likelier() -> None:
    # the same points exactly on the grid: a homography bent to take the tiles a cell off leaves every
    # point a little off, the true shift none, so it is far likelier, and they join on their own cells
    block = [(r, c) for r in range(4) for c in range(4)]
    for far in ([(1, 9)], [(1, 9), (2, 9)], [(1, 9), (2, 9), (2, 10)]):
        pts = _points(block + far, angle=3.0, pitch=40.0, skew=0.0004)
        lattice = fit_lattice(pts, np.full(len(pts), 28.0))
        assert lattice.placed.all()
        assert _same_up_to_shift(lattice.cells, block + far)


def test_one_tile_beyond_a_wide_gap_joins_where_only_its_own_cell_fits() -> None:
    # beyond an 8×8 block no homography bends far enough to take the lone tile a cell off: at every other
    # shift a point lies 0.3 of a cell off, so the tile's cell is clear and it joins there
    block = [(r, c) for r in range(8) for c in range(8)]
    for far in ([(1, 13)], [(12, 1)]):
        for skew in (0.0, 0.001):
            pts = _points(block + far, angle=3.0, pitch=40.0, skew=skew)
            lattice = fit_lattice(pts, np.full(len(pts), 28.0))
            assert lattice.placed.all()
            assert _same_up_to_shift(lattice.cells, block + far)


def test_a_near_group_halfway_between_cells_is_left_out() -> None:
    # a group pulled half a cell off along both axes, one empty row away: no shift is clearly right
    block = [(r, c) for r in range(4) for c in range(4)]
    for off in ((4.5, 1.5), (1.5, 5.5)):
        group = [(off[0] + r, off[1] + c) for r in range(2) for c in range(2)]
        for angle in (0.0, 10.0):
            pts = _points([*block, *group], angle=angle, pitch=40.0)
            lattice = fit_lattice(pts, np.full(len(pts), 28.0))
            assert lattice.placed[: len(block)].all()
            assert not lattice.placed[len(block) :].any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_far_group_on_the_same_plane_joins_under_strong_perspective(seed: int) -> None:
    # beyond a hand's width, under a steep camera: the extrapolated map puts the group between two
    # shifts, but one of them makes one grid of both parts and every other fits clearly worse
    block = [(r, c) for r in range(4) for c in range(3)]
    far = [(r, c) for r in range(1, 3) for c in range(8, 11)]
    pts = _points(block + far, angle=4.0, pitch=40.0, skew=0.002)
    pts += np.random.default_rng(seed).normal(0, 1.5, pts.shape)
    lattice = fit_lattice(pts, np.full(len(pts), 28.0))
    assert lattice.placed.all()
    assert _same_up_to_shift(lattice.cells, block + far)


def test_a_far_group_is_never_placed_a_cell_off() -> None:
    block = [(r, c) for r in range(4) for c in range(3)]
    for start, skew, seed in itertools.product((7, 9), (0.001, 0.003), range(3)):
        far = [(r, c) for r in range(1, 3) for c in range(start, start + 2)]
        pts = _points(block + far, angle=4.0, pitch=40.0, skew=skew)
        pts += np.random.default_rng(seed).normal(0, 2.0, pts.shape)
        lattice = fit_lattice(pts, np.full(len(pts), 28.0))
        mine = lattice.placed
        want = [c for c, m in zip(block + far, mine, strict=True) if m]
        assert _same_up_to_shift(lattice.cells[mine], want)


def test_the_part_of_a_rendered_layout_beyond_a_hand_joins() -> None:
    # a hand lies across the layout: the tiles on its far side are a group of their own, on the same plane
    scene = random_scene(
        seed=1,
        variant="classic",
        size=(600, 800),
        tiles=30,
        hand=1.0,
        tilt=15.0,
        light="neutral",
        table="green-felt",
        px_per_tile=50.0,
        blur=0.4,
        noise=1.0,
        jpeg_quality=95,
        askew=0.5,
        jitter=0.3,
    )
    out = render(scene)
    tally = score_frame(
        read_table(out.image, tileset=tileset("classic")), out.truth, layout=None, where="render"
    )
    assert tally.wrong == 0 and tally.extra == 0
    assert tally.right == tally.tiles, tally.summary()


@pytest.mark.parametrize(
    ("seed", "where"),
    [
        # frames of the rendered tilt-35 set: the map extrapolated from the placed tiles across the gap
        # puts the far group more than half a cell from its true shift, at which the grid through all
        # the points fits every one of them within 0.2 of its cell (before, only the points the map put
        # within 0.45 of that shift joined: none, or a few)
        (1261948071, 39),
        (3483188594, 29),
        (2364915962, 20),
    ],
)
def test_a_far_group_the_grid_through_everything_fits_joins_whole(seed: int, where: int) -> None:
    right, wrong, on_face = _misplaced(seed, "classic", tilt=35.0)
    assert wrong == 0
    assert right == on_face == where


def test_one_or_two_tiles_beyond_a_rendered_hand_join_where_one_shift_fits_clearly() -> None:
    # a hand across a rendered layout (a frame of the rendered hand set) leaves small groups of one or
    # two tiles beyond it; beside the many placed tiles, one shift alone fits each of them
    right, wrong, on_face = _misplaced(924455212, "classic", hand=1.0)
    assert wrong == 0
    assert right == on_face


@pytest.mark.parametrize(
    ("seed", "variant", "conditions"),
    [
        # frames of the rendered tilt-35, hand and Cubes sets: beyond a gap, every shift of a far group
        # leaves some point about a fifth of a cell off (rows drifting, perspective extrapolated), so no
        # shift is clear by the largest misfit, but the sums of squares make one far likelier (before,
        # 12 of 19, 10 of 18 and 13 of 18 candidates on their cells)
        (2183599020, "classic", {"tilt": 35.0}),
        (3689362188, "classic", {"hand": 1.0}),
        (2475141017, "cubes", {}),
    ],
)
def test_a_far_group_joins_at_the_far_likeliest_shift(
    seed: int, variant: str, conditions: dict[str, Any]
) -> None:
    right, wrong, on_face = _misplaced(seed, variant, **conditions)
    assert wrong == 0
    assert right == on_face


def _misplaced(seed: int, variant: str, **conditions: Any) -> tuple[int, int, int]:
    """On a rendered frame (1024×768, as the rendered sets draw it): the symbol candidates the grid placed
    on their true cell (the one common quarter turn and shift that most agree with), placed elsewhere, and
    the candidates on a tile face."""
    out = render(random_scene(seed=seed, variant=variant, size=(768, 1024), **conditions))
    found = candidates(out.image, tileset=variant)
    assert found is not None
    _, scale, blobs, lattice = found
    faces = out.truth["geometry"]["faces"]
    centres = np.array([np.mean(f["corners"], axis=0) for f in faces])
    gap = np.linalg.norm(blobs.centres[:, None] / scale - centres[None], axis=2)
    on_face = gap.min(axis=1) < 0.4 * out.truth["geometry"]["px_per_tile"]
    truth = np.array([(f["row"], f["col"]) for f in faces])[gap.argmin(axis=1)]
    mine = lattice.placed & on_face
    best = 0
    for turn in range(4):
        cells = np.array([_turn(c, turn) for c in lattice.cells[mine]]).reshape(-1, 2)
        shifts = [tuple(v) for v in (truth[mine] - cells).tolist()]
        best = max([best, *(shifts.count(v) for v in set(shifts))])
    return best, int(mine.sum()) - best, int(on_face.sum())


@pytest.mark.parametrize(
    ("seed", "variant", "conditions"),
    [
        # tilted 36°: the rows' spacing shrinks by a third across the layout, and a step of two or
        # three rows from a basis fitted near the root lands a row short (the placed points around
        # the point put it on the right cell)
        (2776588136, "classic", {"light": "cool"}),
        # rows drifted along themselves: a two-row step across an empty row rounds the column wrongly
        (146338218, "cubes", {}),
        # a steep camera and gaps between the tiles: steps measured short of two cells are one cell and
        # a gap
        (3043861113, "classic", {"tilt": 35.0}),
        (269237330, "colour-blind", {}),
        # seams of half a cell between rows and between columns (rendered Cubes frame 50 of seed 31's set:
        # 12 tiles a cell off before the seams were taken out)
        (3306949680, "cubes", {}),
    ],
)
def test_long_steps_in_the_tree_do_not_put_tiles_a_cell_off(
    seed: int, variant: str, conditions: dict[str, Any]
) -> None:
    right, wrong, tiles = _misplaced(seed, variant, **conditions)
    assert wrong == 0
    assert right >= 0.45 * tiles


@pytest.mark.parametrize(
    "seed",
    [
        # rows drifted along themselves (classic, 12° tilt): the tree's two-column steps across the seam
        # measure 1.71-1.80 and are left for lack of room, the first group holds 12 tiles, and the map
        # extrapolated from them puts the rest 0.3 of a column from whole shifts; the grid through the
        # group and the placed points around it fits at one shift only
        2333125472,
        # the same with the layout turned a quarter (46 px tiles): two groups the map puts a cell off
        4098674140,
    ],
)
def test_groups_left_by_a_refused_long_step_join_where_the_points_around_them_fit(seed: int) -> None:
    right, wrong, tiles = _misplaced(seed, "classic")
    assert wrong == 0
    assert right >= 0.9 * tiles


@pytest.mark.parametrize(
    "seed",
    [
        # tilted 35° (rendered tilt-35 set): the spacing halves from the far side of the layout to the
        # near one, so the pitch measured over all the points is nobody's, and the tree grown with it
        # places a handful of points (7 of 57, 11 of 44, 1 of 25), some of them two cells apart
        381637315,
        # known weakness (since the renderer paints nearer blocks over farther ones' sides, 23 Nov): a purple
        # star the old render hid becomes a candidate and the tree's root, in rows drifted a third of a cell;
        # the tree stops at a step 0.375 cell off, and the other 25 points, predicted by a similarity
        # through 12 flattened cells that are still 39x49 px, land (0.6, 1.05) cells off, so they are left
        # out (20 of 45 placed). Squaring the flattened cells fixes it but added silent errors on tilt 35°
        pytest.param(4098674140, marks=pytest.mark.xfail(strict=True, reason="flattened cells not square")),
        1855248049,
    ],
)
def test_a_steep_camera_is_taken_out_before_the_grid_is_fitted(seed: int) -> None:
    right, wrong, tiles = _misplaced(seed, "classic", tilt=35.0)
    assert wrong == 0
    assert right == tiles


def test_rows_pushed_askew_do_not_shear_the_tree_onto_diagonal_cells() -> None:
    # a rendered Cubes frame (seed 31's set, frame 194: rows drifted, 8° tilt, wide lens): the steps to
    # the neighbours are sheared, a basis refitted to them passes the shear on, and the tree grown with
    # such bases put 20 of 32 tiles on diagonal cells; with bases kept square every tile is on its cell
    right, wrong, tiles = _misplaced(1839396772, "cubes")
    assert wrong == 0
    assert right >= 0.9 * tiles


def test_cells_among_others_as_isin_of_their_keys() -> None:
    rng = np.random.default_rng(3)
    for spread in (3, 40, 5000):  # the last beyond the lookup table: np.isin itself
        cells = rng.integers(-spread, spread, size=(60, 2))
        others = np.concatenate([cells[::3], rng.integers(-spread, spread, size=(20, 2))])
        assert among(cells, others).tolist() == np.isin(cell_keys(cells), cell_keys(others)).tolist()
        assert among(cells, others[:0]).tolist() == [False] * 60 and len(among(cells[:0], others)) == 0


def test_the_spread_of_whole_cells_is_told_as_spread_tells_it() -> None:
    rng = np.random.default_rng(5)
    for _ in range(3000):
        n, width = int(rng.integers(1, 30)), int(rng.integers(1, 6))
        cells = rng.integers(-width, width + 1, size=(n, 2)) + rng.integers(-40, 40, size=2)
        for least in (1.0, 1.5):
            assert spreads(cells, least) == (spread_of(cells.astype(np.float64)) >= least)
    # on the limit (NumPy's eigenvalue a bit under it, or on it): answered by spread itself
    for least, limit in [
        (1.0, [[3, 0], [0, 1], [3, 2]]),
        (1.0, [[1, 0], [3, 2], [2, 3], [0, 0], [1, 3], [1, 2], [2, 1], [0, 3]]),
        (1.5, [[0, 0], [0, 3], [0, 3], [3, 0], [3, 3]]),
    ]:
        whole = np.array(limit)
        assert abs(spread_of(whole.astype(np.float64)) - least) < 1e-12
        assert spreads(whole, least) == (spread_of(whole.astype(np.float64)) >= least)
