"""vision/shifts.py: where a separately grown group joins the placed points, and when it is left out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from table import tileset
from vision import reader, rejoin, shifts
from vision.evaluate import score_frame
from vision.geometry import apply_homography
from vision.render import random_scene, render
from vision.render_dataset import frame_seed
from vision.shifts import checked_shift, near_shift, only_shift, rigid_shift


def _points(cells: list[tuple[float, float]], *, angle: float, pitch: float, skew: float = 0.0) -> np.ndarray:
    """Image points of ``cells`` on a grid turned by ``angle`` degrees, seen with a little perspective."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    h = np.array([[pitch * c, pitch * s, 400.0], [-pitch * s, pitch * c, 500.0], [skew, 0.0, 1.0]])
    return apply_homography(h, np.array(cells, np.float64))


_Args = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _block_and_group(offset: float) -> tuple[_Args, set[tuple[int, int]]]:
    """A placed 4×4 block and a 2×3 group whose first column lies ``offset`` columns from the block's
    first (seen turned and in perspective): the check's arguments but the offered shift, and the cells
    taken."""
    block: list[tuple[float, float]] = [(r, c) for r in range(4) for c in range(4)]
    group: list[tuple[float, float]] = [(r, c + offset) for r in range(2) for c in range(3)]
    pts = _points(block + group, angle=6.0, pitch=40.0, skew=0.0005)
    own = np.array([(r, c) for r in range(2) for c in range(3)])
    return (pts[: len(block)], np.array(block), pts[len(block) :], own), {(int(r), int(c)) for r, c in block}


def _listed(shift: np.ndarray | None) -> list[int] | None:
    return None if shift is None else [int(v) for v in shift]


def test_a_shift_the_groups_own_spacing_contradicts_gives_way_to_the_one_that_fits() -> None:
    # the group fits the placed points' grid cleanly at column 5, one column from the map's guess
    args, taken = _block_and_group(5.0)
    assert _listed(checked_shift(*args, np.array([0, 5]), taken)) == [0, 5]
    assert _listed(checked_shift(*args, np.array([0, 6]), taken)) == [0, 5]


@pytest.mark.parametrize("offset", [5.3, 5.5])
def test_a_group_two_shifts_fit_about_equally_is_left_out(offset: float) -> None:
    args, taken = _block_and_group(offset)
    assert checked_shift(*args, np.array([0, 6]), taken) is None
    # offered two columns off, the nearest shift that fits (6) is not the only one around itself
    assert checked_shift(*args, np.array([0, 7]), taken) is None


@pytest.mark.parametrize(("rows", "joined"), [(4.55, None), (5.0, [5, 0])])
def test_a_group_left_apart_is_left_out_where_a_shift_as_good_joins_it(
    rows: float, joined: list[int] | None
) -> None:
    # a 2×3 group below a placed 4×4 block (rows 0-3), ``rows`` rows down: at its predicted shift (row 5) it
    # leaves row 4 empty between them; at row 4 it would touch the block
    block: list[tuple[float, float]] = [(r, c) for r in range(4) for c in range(4)]
    group: list[tuple[float, float]] = [(r + rows, c) for r in range(2) for c in range(3)]
    pts = _points(block + group, angle=6.0, pitch=40.0, skew=0.0005)
    own = np.array([(r, c) for r in range(2) for c in range(3)])
    args = (pts[: len(block)], np.array(block), pts[len(block) :], own)
    taken = {(int(r), int(c)) for r, c in block}
    # more than half a row down, row 5 fits best, but row 4 not clearly worse (a tie the homography decides
    # by a few hundredths of a cell): the group is left out; a whole empty row between it stays at row 5
    assert _listed(checked_shift(*args, np.array([5, 0]), taken)) == joined


def test_a_group_near_a_whole_shift_takes_it() -> None:
    frac = np.array([[0.1, 3.05], [-0.05, 2.9], [0.0, 3.1]])
    own = np.array([[0, 0], [0, 1], [1, 0]])
    assert _listed(near_shift(frac, own, {(0, 0), (0, 1), (0, 2)})) == [0, 3]


def test_a_group_half_a_cell_off_joins_on_the_side_it_touches_or_not_at_all() -> None:
    own = np.array([[0, 0], [1, 0]])
    frac = np.array([[0.0, 2.5], [0.0, 2.5]])  # between columns 2 and 3
    touching_left = {(0, 1), (1, 1)}  # tiles in column 1: column 2 touches them, column 3 does not
    assert _listed(near_shift(frac, own, touching_left)) == [0, 2]
    apart = {(5, 9)}  # nothing on either side: halfway is a guess
    assert near_shift(frac, own, apart) is None


_BLOCK = [(r, c) for r in range(5) for c in range(5)]


def _seen(cells: list[tuple[int, int]], drift: float) -> np.ndarray:
    """Image points of ``cells`` seen a little turned and in perspective, each row pushed sideways by up
    to ``drift`` of a cell (rows drifting as hands push them)."""
    c = np.array(cells, np.float64)
    p = apply_homography(np.array([[40.0, 3, 300], [-3, 40, 200], [0.0002, 0.0, 1]]), c)
    p[:, 1] += 40 * drift * np.sin(1.7 * c[:, 0])
    return p


def _far_group(drift: float, group: list[tuple[int, int]], first: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """The placed 5×5 block (rows drifting by ``drift``), and a far group (its own cells ``group``) whose
    cell (0, 0) lies on the block's cell ``first``."""
    placed = _seen(_BLOCK, drift)
    seen = _seen([(r + first[0], c + first[1]) for r, c in group], 0.0)
    return placed, np.array(_BLOCK), seen, np.array(group)


def test_a_far_group_fitting_cleanly_beyond_drifting_rows_joins() -> None:
    # the block's own scatter (a sixth of a cell) is the same at every shift: every point lies within
    # 0.14 of its cell at the true shift, 0.28 at the next, not twice as far; the group's own points
    # lie within 0.01 at the true shift and 0.23 or more at any other
    group = [(r, c) for r in range(3) for c in range(2)]
    pts, cells, group_pts, group_cells = _far_group(0.16, group, (1, 7))
    frac = np.array([1.3, 7.3]) + np.zeros((6, 2))  # the map extrapolated a third of a cell off
    shift = rigid_shift(pts, cells, group_pts, group_cells, frac)
    assert shift is not None and shift.tolist() == [1, 7]


@pytest.mark.parametrize("step", [(0, 1), (0, -1), (1, 0), (-1, 0)])
def test_a_prediction_near_a_whole_shift_gives_way_where_another_shift_fits_the_group_better(
    step: tuple[int, int],
) -> None:
    # a column of three tiles four columns beyond the block: no shift fits clearly by the largest
    # misfit, and the map puts it a tenth of a cell from the wrong one: where a seam was seen (the
    # likelihood is not trusted), it is better missed than put a cell off
    pts, cells, group_pts, group_cells = _far_group(0.14, [(0, 0), (1, 0), (2, 0)], (1, 8))
    frac = np.array([1.1 + step[0], 8.1 + step[1]]) + np.zeros((3, 2))
    assert rigid_shift(pts, cells, group_pts, group_cells, frac, one_grid=False) is None


@pytest.mark.parametrize("step", [(0, 0), (0, 1), (0, -1), (1, 0), (-1, 0)])
@pytest.mark.parametrize("group", [[(0, 0)], [(0, 0), (1, 0), (2, 0)]])
def test_a_far_group_no_shift_fits_clearly_joins_where_it_is_far_likelier(
    step: tuple[int, int], group: list[tuple[int, int]]
) -> None:
    # beside drifting rows every shift leaves a point a sixth of a cell off (the block's own scatter),
    # so no shift is clear by the largest misfit; but the homography bent to take the group a cell off
    # spreads its cost over every point: the sums of squares make the true shift (1, 8) far likelier,
    # wherever the map put the group, with or without the fallback
    pts, cells, group_pts, group_cells = _far_group(0.14, group, (1, 8))
    frac = np.array([1.1 + step[0], 8.1 + step[1]]) + np.zeros((len(group), 2))
    for fallback in (True, False):
        shift = rigid_shift(pts, cells, group_pts, group_cells, frac, fallback=fallback)
        assert shift is not None and shift.tolist() == [1, 8]


def test_a_far_group_far_likelier_and_fitting_its_own_points_best_joins_past_the_clear_bound() -> None:
    # rows drifting a quarter of a cell leave a point 0.21 of a cell off at the true shift, past the
    # clear fit's bound; the true shift is still far the likeliest, leaves no point 0.3 off and fits the
    # group's own points best of the nine (within 0.02, the next 0.14): it joins, the one or two tiles'
    # rule (no fallback) alike
    pts, cells, group_pts, group_cells = _far_group(0.24, [(0, 0), (1, 0), (2, 0)], (1, 8))
    frac = np.array([1.1, 8.1]) + np.zeros((3, 2))
    shift = rigid_shift(pts, cells, group_pts, group_cells, frac, fallback=False)
    assert shift is not None and shift.tolist() == [1, 8]


def test_a_far_group_half_a_cell_off_is_not_joined_by_its_likelihood() -> None:
    # the group lies half a column between two shifts: each fits it as badly (a point 0.5 off), neither
    # is likelier
    pts, cells, group_pts, group_cells = _far_group(0.0, [(0, 0), (1, 0), (2, 0)], (1, 8))
    group_pts = group_pts + np.array([0.0, 20.0])
    frac = np.array([1.0, 8.5]) + np.zeros((3, 2))
    assert rigid_shift(pts, cells, group_pts, group_cells, frac, fallback=False) is None


@pytest.mark.parametrize("group", [[(0, 0)], [(0, 0), (1, 0), (2, 0)]])
def test_without_the_fallback_a_far_group_no_shift_fits_clearly_is_left_out(
    group: list[tuple[int, int]],
) -> None:
    # beside drifting rows no shift fits clearly; the map puts the group a tenth of a cell from its true
    # shift, which the fallback keeps, but one or two tiles are left to a clear fit alone (here with the
    # likelihood not trusted: a seam was seen)
    pts, cells, group_pts, group_cells = _far_group(0.14, group, (1, 8))
    frac = np.array([1.1, 8.1]) + np.zeros((len(group), 2))
    kept = rigid_shift(pts, cells, group_pts, group_cells, frac, one_grid=False)
    assert kept is not None and kept.tolist() == [1, 8]
    assert rigid_shift(pts, cells, group_pts, group_cells, frac, fallback=False, one_grid=False) is None


def test_a_far_group_is_kept_at_the_prediction_only_from_as_many_placed_points() -> None:
    # beside drifting rows no shift fits a far group of eight clearly; the map puts it a tenth of a cell
    # from its true shift. Eight placed points may carry that prediction; seven, fewer than the group's
    # own, are too few to place it (a fresh Cubes frame: five placed tiles put a group of eight a cell off)
    group = [(r, c) for r in range(4) for c in range(2)]
    pts, cells, group_pts, group_cells = _far_group(0.14, group, (1, 8))
    frac = np.array([1.1, 8.1]) + np.zeros((len(group), 2))
    eight, seven = [0, 2, 4, 10, 14, 20, 22, 24], [0, 4, 6, 12, 18, 20, 24]
    kept = rigid_shift(pts[eight], cells[eight], group_pts, group_cells, frac, one_grid=False)
    assert kept is not None and kept.tolist() == [1, 8]
    assert rigid_shift(pts[seven], cells[seven], group_pts, group_cells, frac, one_grid=False) is None


@pytest.mark.parametrize("push", [0.45, 0.5])
def test_a_group_no_shift_fits_is_not_kept_where_another_fits_clearly_better(push: float) -> None:
    # the group belongs at column 5, but one of its tiles is pushed askew down its column: no shift leaves
    # every point within RIGID_OTHER of its cell
    (pts, cells, group, own), taken = _block_and_group(5.0)
    group = group.copy()
    group[-1, 0] += push * 40.0
    args = (pts, cells, group, own)
    # offered its own column it stays there; offered the next, which fits clearly worse, it is left out
    assert _listed(checked_shift(*args, np.array([0, 5]), taken)) == [0, 5]
    assert checked_shift(*args, np.array([0, 6]), taken) is None


def test_a_group_in_doubt_is_left_for_the_rules_to_place(monkeypatch: pytest.MonkeyPatch) -> None:
    # frame 183 of the rendered Cubes set (seed 31): seams between the groups leave no shift fitting them
    # and the placed tiles around them well. Kept at their predicted shifts wherever that happens, the
    # groups put tiles a cell off (56 right, 8 wrong or extra of 65); left out where another shift fits
    # clearly better, they are left for the rules of the game (vision.rejoin), and the reading holds 61
    # right and 4 wrong or extra (here the rules place none of them: the same without vision.rejoin)
    out = render(random_scene(seed=frame_seed(31, 183), variant="cubes", size=(768, 1024)))

    def score() -> tuple[int, int]:
        reading = reader.read_table(out.image, tileset=tileset("cubes"))
        t = score_frame(reading, out.truth, layout=None, where="render")
        return t.right, t.wrong + t.extra

    right, silent = score()
    monkeypatch.setattr(shifts, "DOUBT", 0.0)  # the prediction kept whenever no shift fits well
    kept_right, kept_silent = score()
    assert right >= kept_right + 5, (right, kept_right)
    assert silent < kept_silent, (silent, kept_silent)


@pytest.mark.parametrize("push", [0.4, 0.5])
def test_a_far_group_no_shift_fits_is_not_kept_at_the_prediction(push: float) -> None:
    # a column of four tiles beyond drifting rows, its middle two pushed ``push`` of a cell askew in
    # opposite directions: every shift leaves one of the group's points more than RIGID_OTHER off, the
    # predicted one too. The map puts the group a tenth of a cell from a whole shift, but a group that
    # shares no grid with the placed tiles is left out rather than placed where the map extrapolates it
    pts, cells, group_pts, group_cells = _far_group(0.14, [(0, 0), (1, 0), (2, 0), (3, 0)], (1, 8))
    group_pts = group_pts.copy()
    group_pts[1, 1] += push * 40.0
    group_pts[2, 1] -= push * 40.0
    frac = np.array([1.1, 8.1]) + np.zeros((4, 2))
    assert rigid_shift(pts, cells, group_pts, group_cells, frac, one_grid=False) is None


def test_local_misfits_equal_the_plain_direct_linear_transform_of_each_shift() -> None:
    # the stacked form (one eigen-problem per shift, all at once) against each shift's DLT solved alone by
    # SVD (the textbook null vector), on points seen through a tilted camera with a little noise
    rng = np.random.default_rng(5)
    h = np.array([[40.0, 6.0, 300.0], [-5.0, 44.0, 200.0], [0.002, -0.003, 1.0]])
    cells = np.array([(r, c) for r in range(4) for c in range(5)], np.float64)
    group_cells = np.array([(1.0, 6.0), (2.0, 6.0), (2.0, 7.0)])
    pts = apply_homography(h, cells) + rng.normal(0, 0.5, cells.shape)
    group_pts = apply_homography(h, group_cells) + rng.normal(0, 0.5, group_cells.shape)
    options = [np.array(step) for step in [(0, 0), (0, 1), (1, -1), (-1, 0)]]
    stacked = shifts._local_misfits(pts, cells, group_pts, group_cells, options)
    dst = np.concatenate([pts, group_pts])
    for shift, misfit in zip(options, stacked, strict=True):
        src = np.concatenate([cells, group_cells + shift])
        s_mid, d_mid = src.mean(axis=0), dst.mean(axis=0)
        s_scale = math.sqrt(2) / np.linalg.norm(src - s_mid, axis=1).mean()
        d_scale = math.sqrt(2) / np.linalg.norm(dst - d_mid, axis=1).mean()
        s, d = (src - s_mid) * s_scale, (dst - d_mid) * d_scale
        rows = []
        for (x, y), (u, v) in zip(s, d, strict=True):
            rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y, -u], [0, 0, 0, x, y, 1, -v * x, -v * y, -v]]
        m = np.linalg.svd(np.array(rows))[2][-1].reshape(3, 3)
        back = apply_homography(np.linalg.inv(m), d) / s_scale + s_mid
        assert misfit == pytest.approx(float(np.abs(back - src).max()), abs=1e-9)
    assert stacked[0] < 0.1 < min(stacked[1:])  # the true shift fits, the others do not


def test_a_far_group_the_map_puts_two_cells_off_joins_where_it_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    # the map extrapolated across a forearm puts the group two rows off: each of the nine shifts around
    # the prediction leaves a point 0.3 of a cell off, the one nearest the truth on their edge; the nine
    # around that one hold the true shift, which the likelihood then makes clear
    group = [(r, c) for r in range(3) for c in range(2)]
    pts, cells, group_pts, group_cells = _far_group(0.0, group, (1, 8))
    for off in ((2.1, 0.1), (-1.9, 0.1), (2.1, 2.1)):
        frac = np.array([1 + off[0], 8 + off[1]]) + np.zeros((6, 2))
        assert _listed(rigid_shift(pts, cells, group_pts, group_cells, frac)) == [1, 8]
    assert rigid_shift(pts, cells, group_pts, group_cells, frac, recentre=0) is None
    monkeypatch.setattr(shifts, "RECENTRE", 0)
    assert rigid_shift(pts, cells, group_pts, group_cells, frac) is None


def test_a_far_group_beyond_a_forearm_two_rows_from_the_prediction_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # frame 73 of the rendered set with a hand in every frame (seed 31): a forearm lies across the
    # layout, and the map through the 17 tiles on one side puts the 16 on the other two rows off
    out = render(random_scene(seed=frame_seed(31, 73), variant="classic", size=(768, 1024), hand=1.0))

    def score() -> tuple[int, int]:
        reading = reader.read_table(out.image, tileset=tileset("classic"))
        t = score_frame(reading, out.truth, layout=None, where="render")
        return t.right, t.wrong + t.extra

    right, silent = score()
    assert silent == 0 and right == len(out.truth["tiles"])
    monkeypatch.setattr(shifts, "RECENTRE", 0)
    # read with its probes, the group joins by the rigid fit of vision.rejoin too: taken away as well
    monkeypatch.setattr(rejoin, "_rigid_cells", lambda *_: None)
    assert score()[0] <= right - 15


def test_a_shift_the_groups_own_points_do_not_fit_best_does_not_join_where_own_best_is_asked() -> None:
    # all the points fit the middle shift clearly (0.1 against 0.35 or more), but the group's own points
    # fit the one to its left better (0.05 against 0.1): a group read with its probes may carry a tile a
    # cell off, which a fit through every point absorbs
    options = [np.array(step) for step in shifts._STEPS]
    every = [0.35] * 9
    every[4] = 0.1
    own = [0.3] * 9
    own[4], own[3] = 0.1, 0.05
    squares = [2.0] * 9
    squares[4] = 0.1
    fit = shifts._clear_fit(options, every, own, squares, 30, one_grid=True)
    assert _listed(fit) == [0, 0]
    assert shifts._clear_fit(options, every, own, squares, 30, one_grid=True, own_best=True) is None
    own[3] = 0.2
    assert _listed(shifts._clear_fit(options, every, own, squares, 30, one_grid=True, own_best=True)) == [
        0,
        0,
    ]


@pytest.mark.parametrize("guess", [5.3, 5.6, 4.7])
def test_a_near_group_one_shift_alone_fits_takes_it(guess: float) -> None:
    # the group lies on the block's grid at column 5: wherever the map puts it within half a cell of a
    # neighbouring shift, that shift alone fits
    pts, cells, group_pts, group_cells = _block_and_group(5.0)[0]
    frac = np.array([0.0, guess]) + np.zeros((len(group_cells), 2))
    assert _listed(only_shift(pts, cells, group_pts, group_cells, frac)) == [0, 5]


@pytest.mark.parametrize("offset", [5.3, 5.5])
def test_a_near_group_two_shifts_fit_is_left_out(offset: float) -> None:
    pts, cells, group_pts, group_cells = _block_and_group(offset)[0]
    frac = np.array([0.0, offset]) + np.zeros((len(group_cells), 2))
    assert only_shift(pts, cells, group_pts, group_cells, frac) is None


def _nine_fits(
    monkeypatch: pytest.MonkeyPatch, every: list[float], own: list[float], squares: list[float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The arguments of a far part's shift (16 placed points, a part of 4 around (3, 7)), its nine fits
    given: misfits over all points, over the part's own, and sums of squares."""
    monkeypatch.setattr(shifts, "_misfits", lambda *args: (every, own, squares))
    pts, cells = np.zeros((16, 2)), np.zeros((16, 2), np.int64)
    group_pts, group_cells = np.zeros((4, 2)), np.zeros((4, 2), np.int64)
    return pts, cells, group_pts, group_cells, np.array([3.2, 6.9]) + np.zeros((4, 2))


@pytest.mark.parametrize("odds", [60.0, 500.0])
def test_a_far_part_every_measure_puts_at_one_shift_joins_there_at_lesser_odds(
    monkeypatch: pytest.MonkeyPatch, odds: float
) -> None:
    # drifting rows: no shift fits clearly (0.24 against 0.26 and more), the one below the prediction is
    # the likeliest by less than ODDS, and it also fits all the points and the part's own best
    every, own = [0.3] * 9, [0.3] * 9
    every[7], own[7], every[4], own[4] = 0.24, 0.2, 0.26, 0.22
    squares = [2.0] * 9
    squares[7] = 1.0  # 20 points, 32 degrees of freedom: odds e^(16 (runner - 1))
    squares[4] = 1.0 + math.log(odds) / 16
    args = _nine_fits(monkeypatch, every, own, squares)
    assert rigid_shift(*args, fallback=False, recentre=0, own_best=True) is None
    assert _listed(shifts.agreed_shift(*args)) == [4, 7]


@pytest.mark.parametrize("odds", [20.0, 60.0])
def test_a_far_part_the_measures_place_apart_or_too_close_to_another_is_left_out(
    monkeypatch: pytest.MonkeyPatch, odds: float
) -> None:
    every, own = [0.3] * 9, [0.3] * 9
    every[7], own[7], every[4], own[4] = 0.24, 0.2, 0.26, 0.22
    squares = [2.0] * 9
    squares[7], squares[4] = 1.0, 1.0 + math.log(odds) / 16
    if odds > shifts.AGREED_ODDS:
        own[4] = 0.15  # the part's own points fit the prediction best
    assert shifts.agreed_shift(*_nine_fits(monkeypatch, every, own, squares)) is None
    own[4] = 0.22
    every[5] = 0.2  # another shift leaves the least largest misfit
    assert shifts.agreed_shift(*_nine_fits(monkeypatch, every, own, squares)) is None


def test_a_near_part_joins_by_its_measures_only_at_the_maps_prediction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every measure picks the shift below the prediction, far likelier than the rest: a near part (which
    # may lie across a seam) is left out there, and taken where the map's prediction is that shift too
    every, own = [0.35] * 9, [0.35] * 9
    every[7], own[7] = 0.24, 0.2
    squares = [2.0] * 9
    squares[7] = 1.0
    args = _nine_fits(monkeypatch, every, own, squares)
    assert _listed(shifts.agreed_shift(*args, odds=shifts.ODDS)) == [4, 7]
    assert shifts.agreed_shift(*args, odds=shifts.ODDS, predicted=True) is None
    every[4], own[4], squares[4] = every[7], own[7], squares[7]
    every[7], own[7], squares[7] = 0.35, 0.35, 2.0
    assert _listed(shifts.agreed_shift(*_nine_fits(monkeypatch, every, own, squares), predicted=True)) == [
        3,
        7,
    ]
