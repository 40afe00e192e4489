"""Where a separately grown group of points joins the placed ones: the whole-cell shifts of
:func:`vision.lattice.fit_lattice`'s groups, and the checks that keep a shift from being a guess.

A group next to the placed points takes the shift the placed points' map predicts (:func:`near_shift`)
or the one shift next to it that alone fits the group and the placed points around it, and none where
two fit about as well (:func:`checked_shift`);
a group far away (beyond a hand) joins only at a shift by which it and the placed points clearly lie on
one grid (:func:`rigid_shift`). Points are ``(row, col)`` pixels, cells ``(row, col)`` integers.
"""

from __future__ import annotations

import numpy as np

from vision.geometry import apply_homography, chessboard, distances, fit_homography, lengths, median, spread

#: A step between two candidates more than this far from whole cells does not place one from the other.
OFF_GRID = 0.3
#: A group this far from a whole shift of the lattice, or further, has no shift it clearly belongs at.
AMBIGUOUS = 0.4
#: A far group's largest misfit (cells) of any point to the grid fitted through it and the placed points,
#: for the best shift and for the next best (which may instead misfit twice as much as the best and more than
#: RIGID_FIT). A near group is refused where another shift fits better than its own, with no point
#: RIGID_OTHER off, unless that one alone fits (:func:`checked_shift`).
RIGID_FIT = 0.2
RIGID_OTHER = 0.3
FAR_OFF_GRID = 0.15
#: Where no shift fits a near group and the placed points around it (none within RIGID_OTHER), another
#: shift fitting them with at most this fraction of the predicted one's misfit puts the group in doubt.
DOUBT = 0.9
#: A far group no shift fits clearly by its largest misfit joins at the likeliest shift where every other
#: is at most 1/ODDS as likely (Gaussian errors of the points from their cells, their spread estimated
#: from the likeliest shift's fit).
ODDS = 1000.0
#: A far part the read tiles and its own points place alike (:func:`agreed_shift`) joins at the likeliest
#: shift where every other is at most 1/AGREED_ODDS as likely.
AGREED_ODDS = 50.0
#: How many times a far group's nine shifts are moved to the edge one that fits best, when none fits.
RECENTRE = 2
#: How many placed points nearest to a near group check its shift (:func:`checked_shift`).
NEAREST = 20


def near_shift(frac: np.ndarray, cells: np.ndarray, taken: set[tuple[int, int]]) -> np.ndarray | None:
    """The whole-cell shift that puts a separately grown group onto the lattice, or None when in doubt.

    ``frac`` (K, 2) is where the map puts the group's points in lattice cells minus their own ``cells``.
    When the median lands near a whole shift, that is it. A group pulled half a cell away (a seam the
    players opened) could belong on either side: the shift is then the one candidate that lands on no
    taken cell and leaves the group touching the rest (every tile of a game joins the others), or of
    several the nearest unless it too is nearly half a cell off; else no shift: its tiles are better
    missed than put a cell off.
    """
    middle = median(frac)
    near = np.round(middle)
    if np.abs(middle - near).max() <= OFF_GRID:
        return np.asarray(near, np.int64)
    options = [
        [near[a]] if abs(middle[a] - near[a]) <= OFF_GRID else [np.floor(middle[a]), np.ceil(middle[a])]
        for a in range(2)
    ]
    good, touching = [], []
    for dr in options[0]:
        for dc in options[1]:
            shift = np.array([dr, dc], np.int64)
            moved = {(int(r + dr), int(c + dc)) for r, c in cells}
            if not moved & taken:
                good.append(shift)
                if _touching(moved, taken):
                    touching.append(shift)
    if len(touching) == 1:
        return touching[0]
    # several sides possible, or none touching (tiles between unseen): the nearer, unless nearly halfway
    good = sorted(touching or good, key=lambda g: float(np.abs(middle - g).max()))
    good = good[:1] if good and np.abs(middle - good[0]).max() <= AMBIGUOUS else []
    return good[0] if good else None


_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _touching(cells: set[tuple[int, int]], taken: set[tuple[int, int]]) -> bool:
    """Whether any of ``cells`` shares a side with a ``taken`` one."""
    return any((r + a, c + b) in taken for r, c in cells for a, b in _SIDES)


def rigid_shift(
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    frac: np.ndarray,
    *,
    fallback: bool = True,
    one_grid: bool = True,
    recentre: int | None = None,
    own_best: bool = False,
) -> np.ndarray | None:
    """The shift of a far group by which it and the placed points lie on one grid: for the whole shift
    nearest the prediction ``frac`` and the eight around it, a homography is fitted through all the
    points, and the best shift is kept when every point then lies within RIGID_FIT of its cell while
    every other shift leaves some point clearly further off: RIGID_OTHER, or twice as far as the best and
    beyond RIGID_FIT, among all the points or among the group's own (the placed points' own scatter, rows
    drifting across a wide layout, is the same at every shift and can hide how much worse another shift
    puts the group). A group that no shift fits clearly is kept at the prediction when it falls within
    FAR_OFF_GRID of a whole shift, fits the group's own points there (none RIGID_OTHER off) and no other
    shift both fits (no point RIGID_OTHER off) and fits better, all the points or the group's own: the grid
    through everything would contradict the map. Without ``fallback`` (a group of one or two tiles, which
    may fit some shift by chance) only a clear fit joins, nor with fewer placed points than the group holds
    (a map through five placed tiles put a group of eight a cell off on a fresh Cubes frame).

    Where no shift is clear by its largest misfit, the likeliest joins when every point lies within
    RIGID_FIT of its cell there, or none RIGID_OTHER off and the group's own points fit it best of the
    nine (rows drifting across the layout push the placed points' scatter past RIGID_FIT at every shift),
    and every other shift is at most 1/ODDS as likely (:func:`_likeliest`),
    provided the layout is ``one_grid``: false where a seam was seen (a near group lay between whole
    cells), for then the points' errors are not the small, independent scatter the likelihood assumes.

    The map extrapolated across a wide gap may miss by more than a cell (a forearm across a steep view:
    two rows). Where none of the nine fits (each leaves a point RIGID_OTHER off) and the one fitting best
    lies on their edge, the nine around that one are tried the same way, up to ``recentre`` times
    (default RECENTRE); the fallback to the prediction is judged on the first nine only. With
    ``own_best`` (a group read with its probes, against the read tiles: :func:`vision.rejoin.rejoined`),
    none joins unless the group's own points fit best of the nine both the shift that fits all the points
    best and the likeliest.
    """
    middle = np.round(median(frac))
    count = len(pts) + len(group_pts)
    options = [middle + step for step in _AROUND]
    every, own, squares = _misfits(pts, cells, group_pts, group_cells, options)
    found = _clear_fit(options, every, own, squares, count, one_grid=one_grid, own_best=own_best)
    # the prediction more than a cell off: the nine around the edge one that fits best
    around, misfits = options, (every, own, squares)
    for _ in range(RECENTRE if recentre is None else recentre):
        nearest = int(np.argmin(misfits[0]))
        if found is not None or nearest == _CENTRE or misfits[0][nearest] < RIGID_OTHER:
            break
        around = [around[nearest] + step for step in _AROUND]
        misfits = _misfits(pts, cells, group_pts, group_cells, around)
        found = _clear_fit(around, *misfits, count, one_grid=one_grid, own_best=own_best)
    if found is not None or not fallback or len(pts) < len(group_pts):
        # the map's prediction alone places a group only from at least as many placed points as it holds
        return found
    here = _CENTRE
    rivals = [
        k
        for k in range(len(options))
        if k != here and every[k] < RIGID_OTHER and (every[k] < every[here] or own[k] < own[here])
    ]
    off = median(frac) - middle
    # the prediction must itself fit the group's own points (the placed points' scatter is the same at every
    # shift): where it leaves one of them RIGID_OTHER off its cell, the map extrapolated across the gap is
    # a guess
    fits = own[here] < RIGID_OTHER
    return np.asarray(middle, np.int64) if fits and np.abs(off).max() <= FAR_OFF_GRID and not rivals else None


def only_shift(
    pts: np.ndarray, cells: np.ndarray, group_pts: np.ndarray, group_cells: np.ndarray, frac: np.ndarray
) -> np.ndarray | None:
    """The one shift of a group, of the whole shift nearest the prediction ``frac`` and the eight around it,
    at which it and the placed points lie on one grid, or None: a homography fitted through all the points
    leaves every point within RIGID_FIT of its cell there, the group's own points fit it best of the nine,
    and every other shift leaves some point RIGID_OTHER off (no second shift a candidate at all, stricter
    than :func:`rigid_shift`'s clear fit: for a group near the placed points, where the map carries)."""
    options = [np.round(median(frac)) + step for step in _AROUND]
    every, own, _ = _misfits(pts, cells, group_pts, group_cells, options)
    best = int(np.argmin(every))
    others = min(m for k, m in enumerate(every) if k != best)
    if every[best] <= RIGID_FIT and others >= RIGID_OTHER and own[best] <= min(own):
        return np.asarray(options[best], np.int64)
    return None


def agreed_shift(
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    frac: np.ndarray,
    *,
    odds: float = AGREED_ODDS,
    predicted: bool = False,
) -> np.ndarray | None:
    """The shift of a part, of the whole shift nearest the prediction ``frac`` and the eight around it,
    that every measure of the fit through the part and the placed points picks, or None: the likeliest
    (:func:`_likeliest`, every other shift at most 1/``odds`` as likely), which also leaves the least
    largest misfit over all the points and over the part's own, and no point RIGID_OTHER off; with
    ``predicted``, only where that is also the shift nearest the prediction.

    Across a hand the rows drift, and no shift fits clearly by its largest misfit; the likelihood alone at
    1/ODDS leaves out most such parts, and where the measures disagree one of them is misled (a part's own
    grid carrying a tile a cell off, or drift the homography bends to). Where all three agree, a far part
    needs a weaker likelihood (AGREED_ODDS: on the hand, 200 px and fresh sets the parts at odds 1/55 to
    1/800 all lay at their true shift; at 1/20, one of four tiles lay a row off). A near part, which may
    lie across a seam (a real gap, not the small independent scatter the likelihood assumes), needs ODDS
    and the map's prediction to agree too (the two near parts the three measures placed a cell off, at
    odds 1/40,000 and 1/6,600, lay at another shift than the prediction: a Cubes seam, a hand's
    fingers)."""
    options = [np.round(median(frac)) + step for step in _AROUND]
    every, own, squares = _misfits(pts, cells, group_pts, group_cells, options)
    best = _likeliest(squares, len(pts) + len(group_pts), odds=odds)
    if best is None or every[best] >= RIGID_OTHER or every[best] > min(every) or own[best] > min(own):
        return None
    if predicted and best != _CENTRE:
        return None
    return np.asarray(options[best], np.int64)


def _clear_fit(
    options: list[np.ndarray],
    every: list[float],
    own: list[float],
    squares: list[float],
    count: int,
    *,
    one_grid: bool,
    own_best: bool = False,
) -> np.ndarray | None:
    """The one of nine shifts ``options`` (with their misfits, :func:`_misfits`, through ``count`` points)
    that fits clearly (:func:`rigid_shift`), by the largest misfit or by the likelihood, or None; with
    ``own_best``, None unless the group's own points fit best of the nine the shift that fits all the
    points best, and the likeliest where that one is taken."""
    order = np.argsort(every)
    best = order[0]
    if own_best and own[best] > min(own):
        return None
    if every[best] <= RIGID_FIT and all(
        every[k] >= RIGID_OTHER
        or every[k] >= max(RIGID_FIT, 2 * every[best])
        or own[k] >= max(RIGID_FIT, 2 * own[best])
        for k in order[1:]
    ):
        return np.asarray(options[best], np.int64)
    likeliest = _likeliest(squares, count) if one_grid else None
    if likeliest is not None and own_best and own[likeliest] > min(own):
        return None
    if likeliest is not None and (
        every[likeliest] <= RIGID_FIT or (every[likeliest] < RIGID_OTHER and own[likeliest] <= min(own))
    ):
        return np.asarray(options[likeliest], np.int64)
    return None


def checked_shift(  # noqa: PLR0917 (the join's state, passed along as it is)
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    offset: np.ndarray,
    taken: set[tuple[int, int]],
) -> np.ndarray | None:
    """The shift at which a near group joins, checked by fitting one grid through it and the NEAREST
    placed points around it at ``offset`` (the shift the placed points' map predicts) and at the eight
    shifts next to it: ``offset`` unless another fits better and well enough to be a candidate (no point
    RIGID_OTHER off its cell); then that one where it is the only candidate, both among the shifts around
    ``offset`` and among those around itself, and ``offset`` leaves a point twice as far off as it does (as
    :func:`rigid_shift` tells a clear fit), under the homography and under an affine map alike; else None.
    Where ``offset`` fits best but leaves the group apart from the placed tiles while another candidate,
    not clearly worse, would join it to them (:func:`_joined_elsewhere`), None. Where no shift is a
    candidate, ``offset`` stands unless another fits clearly better (with at most DOUBT of its misfit): the
    group's place is then in doubt, and it is left for the rules of the game
    (:mod:`vision.rejoin`).

    The map extrapolated from the placed points (under a steep camera, from a small part of the layout;
    drifting rows seen through a few tiles) may put the group a cell off: where one shift alone fits, the
    group and the placed points around it say where it lies; where two fit about as well, its place is a
    guess. Shifts that land on taken cells are not considered."""
    gap = distances(pts, group_pts).min(axis=1)
    nearest = np.argsort(gap)[:NEAREST]
    local = (pts[nearest], cells[nearest], group_pts, group_cells)
    fitting, mine, best = _candidates(*local, offset, taken)
    if best >= mine:
        # the prediction fits best; but where it leaves the group apart from the placed tiles and another
        # shift, not clearly worse, would join it to them (every tile of a game joins the others), the
        # group's place is a guess
        return (
            None
            if _joined_elsewhere(group_cells + offset, fitting, mine, taken)
            else np.asarray(offset, np.int64)
        )
    if best >= RIGID_OTHER:
        # no shift fits well (drifting rows, a seam): the prediction stands unless another fits clearly better
        return np.asarray(offset, np.int64) if best > DOUBT * mine else None
    if len(fitting) != 1 or mine < 2 * best:
        return None
    shift = np.asarray(offset + np.array(next(iter(fitting))), np.int64)
    if list(_candidates(*local, shift, taken)[0]) != [(0, 0)]:
        return None
    # a homography may bend its perspective to take a few points a cell off; over the small area of the
    # group and its neighbours an affine map must tell the two shifts apart as clearly
    return shift if _affine_misfit(*local, offset) >= 2 * _affine_misfit(*local, shift) else None


def _joined_elsewhere(
    cells: np.ndarray, fitting: dict[tuple[int, int], float], mine: float, taken: set[tuple[int, int]]
) -> bool:
    """Whether a group at ``cells`` (its predicted shift, misfit ``mine``) touches no ``taken`` cell while
    another of the ``fitting`` steps (each with its misfit) would make it touch one and fits not clearly
    worse: less than twice as far off, or within RIGID_FIT (as :func:`rigid_shift` tells a clear fit)."""
    moved = {(int(r), int(c)) for r, c in cells}
    if _touching(moved, taken):
        return False
    return any(
        misfit < max(RIGID_FIT, 2 * mine) and _touching({(r + dr, c + dc) for r, c in moved}, taken)
        for (dr, dc), misfit in fitting.items()
        if (dr, dc) != (0, 0)
    )


def _candidates(  # noqa: PLR0917 (the join's state, passed along as it is)
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    offset: np.ndarray,
    taken: set[tuple[int, int]],
) -> tuple[dict[tuple[int, int], float], float, float]:
    """Of ``offset`` and the eight shifts next to it that land on no taken cell, the steps from ``offset``
    that fit the group and the placed points ``pts`` (no point RIGID_OTHER off its cell) with their misfits,
    the misfit at ``offset`` (inf where it lands on a taken cell) and the least misfit."""
    moved = (np.asarray(group_cells, np.int64) + offset).tolist()
    steps = [(dr, dc) for dr, dc in _STEPS if not any((r + dr, c + dc) in taken for r, c in moved)]
    options = [offset + np.array(step) for step in steps]
    misfits = _local_misfits(pts, cells, group_pts, group_cells, options)
    mine = misfits[steps.index((0, 0))] if (0, 0) in steps else np.inf
    fitting = {step: m for step, m in zip(steps, misfits, strict=True) if m < RIGID_OTHER}
    return fitting, mine, min(misfits, default=np.inf)


def _affine_misfit(
    pts: np.ndarray, cells: np.ndarray, group_pts: np.ndarray, group_cells: np.ndarray, shift: np.ndarray
) -> float:
    """The largest distance (cells) of any point from its cell under the affine map (least squares)
    fitted through the placed points and the group shifted by ``shift``."""
    src = np.concatenate([pts, group_pts]).astype(np.float64)
    dst = np.concatenate([cells, group_cells + shift]).astype(np.float64)
    design = np.column_stack([src - src.mean(axis=0), np.ones(len(src))])
    m = np.linalg.lstsq(design, dst, rcond=None)[0]
    return float(np.abs(design @ m - dst).max())


def _likeliest(squares: list[float], count: int, *, odds: float = ODDS) -> int | None:
    """Of the shifts whose fits through ``count`` points leave the sums of squared distances ``squares``
    (cells²), the one every other is at most 1/``odds`` as likely as, or None: under Gaussian errors of
    variance σ² (estimated from the best fit, with 2·count − 8 degrees of freedom) a fit leaving ``s`` is
    ``exp((best − s) / 2σ²)`` times as likely as the best. A max misfit hides the cost of a wrong shift: a
    homography bends its perspective to keep every point near a cell, at a price spread over them all."""
    freedom = 2 * count - 8
    if freedom <= 0 or len(squares) < 2:
        return None
    order = np.argsort(squares)
    best, runner = squares[order[0]], squares[order[1]]
    variance = max(best / freedom, 1e-12)
    return int(order[0]) if (runner - best) / (2 * variance) >= np.log(odds) else None


def _misfits(
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    shifts: list[np.ndarray],
) -> tuple[list[float], list[float], list[float]]:
    """For each shift of a group: the largest distance (cells) of any point from its cell under the
    homography fitted through the placed points and the group so shifted, the same among the group's
    own points, and the sum of the squared distances (cells², of both coordinates) over all points."""
    dst = np.concatenate([pts, group_pts])
    every, own, squares = [], [], []
    for shift in shifts:
        src = np.concatenate([cells, group_cells + shift]).astype(np.float64)
        h = fit_homography(src, dst)
        gap = apply_homography(np.linalg.inv(h), dst) - src
        off = chessboard(gap)
        every.append(float(off.max()))
        own.append(float(off[len(pts) :].max()))
        squares.append(float((gap**2).sum()))
    return every, own, squares


def _local_misfits(
    pts: np.ndarray,
    cells: np.ndarray,
    group_pts: np.ndarray,
    group_cells: np.ndarray,
    shifts: list[np.ndarray],
) -> list[float]:
    """:func:`_misfits` for a group and the placed points around it, every shift at once: the normalised
    direct linear transform without the refinement (nine shifts on every join; the points are near each
    other, where the two agree to a few hundredths of a cell). Too few points, or points on a line:
    :func:`_misfits`."""
    every = np.concatenate([cells, group_cells])
    if len(shifts) == 0 or len(every) < 6 or spread(every) < 1.0:
        return _misfits(pts, cells, group_pts, group_cells, shifts)[0]
    src = np.empty((len(shifts), len(every), 2))
    src[:] = every
    src[:, len(cells) :] += np.array(shifts)[:, None, :]  # whole numbers: exact
    dst = np.concatenate([pts, group_pts]).astype(np.float64)
    s, s_mid, s_scale = _normalised(src)
    d = _normalised(dst[None])[0][0]  # (N, 2), the same for every shift
    k, n = s.shape[:2]
    # the rows (K, 2N, 9) of the direct linear transform: (x, y, 1, 0, 0, 0, -ux, -uy, -u) for each point,
    # then (0, 0, 0, x, y, 1, -vx, -vy, -v), written into place rather than stacked from columns
    rows = np.zeros((k, 2 * n, 9))
    first, second = rows[:, :n], rows[:, n:]
    first[..., :2] = second[..., 3:5] = s
    first[..., 2] = second[..., 5] = 1.0
    first[..., 6:8] = -d[:, :1] * s
    second[..., 6:8] = -d[:, 1:] * s
    first[..., 8] = -d[:, 0]
    second[..., 8] = -d[:, 1]
    # the right singular vector of the least singular value: the eigenvector of the least eigenvalue of
    # the normal matrix (9×9; half the cost of the SVD of the 2N×9 rows, the same to ~1e-10 of a cell)
    h = np.linalg.eigh(np.transpose(rows, (0, 2, 1)) @ rows)[1][..., 0].reshape(-1, 3, 3)
    seen = np.ones((k, n, 3))
    seen[..., :2] = d
    back = seen @ np.transpose(np.linalg.inv(h), (0, 2, 1))
    cells_back = back[..., :2] / back[..., 2:] / s_scale + s_mid
    return [float(m) for m in np.abs(cells_back - src).max(axis=(1, 2))]


def _normalised(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point sets (K, N, 2) moved to their centroid and scaled to a mean distance of sqrt(2) from it (the
    conditioning of the direct linear transform), with the centroids (K, 1, 2) and scales (K, 1, 1)."""
    mid = points.mean(axis=1, keepdims=True)
    scale = np.sqrt(2) / np.maximum(lengths(points - mid).mean(axis=1), 1e-12)[:, None, None]
    return (points - mid) * scale, mid, scale


_STEPS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
_AROUND = [np.array(step) for step in _STEPS]
_CENTRE = _STEPS.index((0, 0))


def lands_on(cells: np.ndarray, taken: set[tuple[int, int]]) -> bool:
    return any((r, c) in taken for r, c in np.asarray(cells, np.int64).tolist())
