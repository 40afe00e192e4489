"""A probe's look at predicted cells (:func:`look`): whether a tile is there, and where its symbol lies.

A probe's patch is cut where the grid predicts a cell next to the tiles found (:mod:`vision.occupied`
chooses the cells and where to look); a first, coarse look (16×16) screens it, and up to LOOKS full looks
recentred on the paint decide. What a probe may take as paint (faint paint, a symbol without a dark
frame, one whose frame shows the table past its body, the table through a hole) is
:mod:`vision.paint_checks`'s; Herkle's shields are
:mod:`vision.shield_probes`'s. Among Qwirkle Cubes a probe also takes the cube beyond a seam the grid did
not take out (:func:`away_from`, :func:`_across_seam`, :func:`_beyond_seam`). Points are ``(row, col)``
pixels of the working copy.
"""

from __future__ import annotations

import numpy as np

from vision.features import RIM_DARK, Measurements, Presence, measure, presence
from vision.geometry import cell_steps, cells_off
from vision.paint_checks import MIN_CONTRAST, SIDE_TILT, pure, unlike, whole, without_table
from vision.patches import PATCH
from vision.patches import cut_patches as _cut

#: Full looks at a probe, each recentred on the paint the one before showed.
LOOKS = 2
#: A probe's symbol lies within this many cells of where its cell was predicted.
RECENTRE = 0.4
#: Among Qwirkle Cubes, a probe's symbol may lie up to this many cells further from the tiles it was
#: probed from than predicted, across a seam (:func:`_beyond_seam`): half a cell, where the grid rounds
#: a step to the next cell (a probe taking more would read a seam as one step where the grid, elsewhere
#: along it, reads two: on a fresh Cubes frame with a seam of 0.6, 0.6 here took 12 tiles more and put 10
#: a cell off).
SEAM = 0.5


def look(
    work: np.ndarray,
    predicted: np.ndarray,
    axes: np.ndarray,
    *,
    apart: np.ndarray | None = None,
    table: np.ndarray | None = None,
    least: float = MIN_CONTRAST,
    steady: np.ndarray | None = None,
    away: np.ndarray | None = None,
    left_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None]:
    """Look for symbols at predicted cell centres (N, 2) of the working copy, cells' axes (N, 2, 2).

    ``apart`` (K, 2): symbol candidates that stand apart only at the detector's higher threshold
    (:attr:`vision.detect.Blobs.apart`). Where one lies within RECENTRE cells of a prediction, the patch
    is cut on it and its frame need not be dark (the detector has already seen a dark ring around the
    paint, while the patch's edge may show the table past a tile smaller than its cell or askew in it),
    provided its paint is not the colour of the ``table`` (3,) BGR: the table seen through a hole in the
    layout is ringed by the neighbours' dark bodies just as a symbol is by its own. ``least``: where the
    paint seen at the first look stands out more than MIN_CONTRAST but the full look's only more than
    ``least`` (FAINT, given a ``table``), the tile is taken where its symbol is whole and its paint not the
    table's colour (:func:`whole`, :func:`unlike`). Given a ``table``, a symbol whose patch's frame is
    not dark is taken as :func:`_unframed` or :func:`past_table` says. ``steady`` (N,) bool: the
    predictions where a candidate standing apart, faint paint or a symbol without a dark frame may be
    taken (see :data:`STEADY`); default all. ``away`` (N, 2): per prediction, the cell step away from the
    tiles it was probed from (:func:`away_from`); where given, a symbol may lie across a seam
    (:func:`_beyond_seam`).
    ``left_out`` (K, 2), given for the probes of the frame's grid: the symbol candidates the grid left out.
    The first look then also passes paint faint there (above ``least``), as warm or dim light on a bright
    table leaves the weakest paints at both looks, and such a tile is taken as faint paint is, but not
    within RECENTRE cells of one of these: a group the grid left out joins where the rules put it
    (:mod:`vision.rejoin`), and a faint tile taken on one of its candidates decides that instead. None (a
    group read alone): the first look asks MIN_CONTRAST (faint paint taken there bridged a group to the
    tiles read, which then left it too small to join).

    Returns the rows (K,) of the predictions where a tile was found, its symbol's centre (K, 2), its patch
    and its measurements (None when none is found).
    """
    none = (np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, PATCH, PATCH, 3), np.uint8), None)
    # a coarse first look (a quarter of the pixels) at every prediction, full ones where paint shows
    first = presence(_cut(work, predicted, axes, size=PATCH // 2))
    # recentre on the symbol found, or on a candidate standing apart there
    guess = predicted + np.einsum("nk,nkd->nd", first.offset, axes)
    hinted = np.zeros(len(predicted), bool)
    if apart is not None and table is not None:
        seen = _candidate_at(apart, predicted, axes)
        hinted = seen >= 0
        if steady is not None:
            hinted &= steady
        guess[hinted] = apart[seen[hinted]]
    coarse = first.contrast > MIN_CONTRAST
    if away is not None:
        coarse |= _across_seam(work, predicted, axes, away, guess, among=~coarse & ~hinted)
    least = MIN_CONTRAST if table is None else least
    looked = coarse if left_out is None else first.contrast > least
    rows = np.flatnonzero(looked | hinted)
    if len(rows) == 0:
        return none
    predicted, axes, guess, hinted, coarse = (v[rows] for v in (predicted, axes, guess, hinted, coarse))
    # look again
    again = _cut(work, guess, axes)
    second = presence(again)
    found = _found(second, hinted, least)
    # the coarse look sees a symbol that the prediction missed by a fifth of a cell only in part, and its
    # centroid moves the patch only part of the way: where paint shows, recentre again
    for _ in range(LOOKS - 1):
        retry = np.flatnonzero(~found & (second.contrast > least))
        if len(retry) == 0:
            break
        guess[retry] += np.einsum("nk,nkd->nd", second.offset[retry], axes[retry])
        again[retry] = _cut(work, guess[retry], axes[retry])
        second = second.with_rows(retry, presence(again[retry]))
        found = _found(second, hinted, least)
    # a symbol found far from its cell's prediction is a neighbour's
    near = within_cells(guess, predicted, axes, RECENTRE)
    if away is not None:
        near |= _beyond_seam(guess, predicted, axes, away[rows])
    found &= near
    if table is not None:
        allowed = near if steady is None else near & steady[rows]
        found |= _unframed(again, second, ~found & allowed, table)
        past = past_table(again, second, ~found & allowed & (second.contrast > least), table, least)
        if past.any():
            second = second.with_rows(np.flatnonzero(past), presence(again[past]))
            found |= past
    if not found.any():
        return none
    m = measure(again[found], second.take(found))
    if table is not None:
        # a tile found only through a candidate standing apart, or by faint paint, is not the table seen
        # through a hole, and lies where the tiles around it are where the grid puts them
        weak = ~(coarse & second.found(MIN_CONTRAST))[found]
        keep = ~weak | (unlike(m.paint, table) & ((m.contrast > MIN_CONTRAST) | whole(m)))
        if steady is not None:
            keep &= ~weak | steady[rows][found]
        faint = ~coarse[found]
        if left_out is not None and faint.any():
            keep[faint] &= ~_beside_any(left_out, guess[found][faint], axes[found][faint])
        if not keep.all():
            found[found] = keep
            m = m.take(keep)
        if not found.any():
            return none
    return rows[found], guess[found], again[found], m


def _unframed(patches: np.ndarray, p: Presence, among: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which of the patches (N, S, S, 3) ``among`` (N,) bool hold a tile although their frame is not dark:
    paint standing out more than MIN_CONTRAST, ringed by a dark rim, of a symbol's size and in the middle
    (:meth:`vision.features.Presence.found` without the frame), a whole symbol (:func:`whole`) and not
    the ``table``'s colour (3,) BGR (:func:`unlike`). Under a steep camera a patch cut in a narrow
    layout's axes reaches past the tile's body along its lean, onto the table, so the frame is not
    dark; the table seen through a hole in the layout is ringed by the neighbours' bodies just as a
    symbol is by its own, and its colour tells it. The paint measured must be the colour of the symbol's
    middle (:func:`pure`): what lights the frame (a neighbour's paint, the table) may join the paint."""
    take = np.asarray(among & p.found(MIN_CONTRAST, framed=False))
    if not take.any():
        return take
    m = measure(patches[take], p.take(take))
    take[take] = whole(m) & unlike(m.paint, table) & pure(patches[take], m.paint)
    return take


def past_table(
    patches: np.ndarray, p: Presence, among: np.ndarray, table: np.ndarray, least: float
) -> np.ndarray:
    """Which of the patches (N, S, S, 3) ``among`` (N,) bool hold a tile whose frame shows the ``table``
    (3,) BGR past the tile's body (a tile at the layout's corner, or smaller than its cell): with the table
    painted out (:func:`vision.paint_checks.without_table`; only past a body), its paint stands out more
    than ``least`` with a dark frame and a symbol's size and place, it is a whole symbol not of the table's
    colour, and its paint was ringed by the body's dark rim before (what the table painted out rings is
    not a symbol). The patches of those taken are replaced, in place, by their copies without the
    table."""
    take = np.asarray(among & (p.frame <= 0.5) & (p.rim > RIM_DARK))
    if not take.any():
        return take
    cleaned, past = without_table(patches[take], table)
    q = presence(cleaned)
    ok = q.found(least) & past
    if ok.any():
        m = measure(cleaned[ok], q.take(ok))
        ok[ok] = whole(m) & unlike(m.paint, table) & pure(cleaned[ok], m.paint)
    rows = np.flatnonzero(take)[ok]
    patches[rows] = cleaned[ok]
    take[:] = False
    take[rows] = True
    return take


def _found(p: Presence, hinted: np.ndarray, least: float) -> np.ndarray:
    """Which patches (N,) hold a tile, their paint standing out more than ``least``: with a dark frame, or
    without one where ``hinted`` (N,) by a candidate of the detector."""
    return np.asarray(p.found(least) | (hinted & p.found(least, framed=False)))


def _candidate_at(points: np.ndarray, predicted: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Per prediction (N, 2) with its cell's axes (N, 2, 2), the index of the nearest of ``points``
    (K, 2) within RECENTRE cells of it along both axes, or -1; each point goes to one prediction only,
    its nearest (under a steep camera the grid may predict two cells close together)."""
    n = len(predicted)
    if len(points) == 0 or n == 0:
        return np.full(n, -1, np.int64)
    inverse = np.linalg.inv(axes.transpose(0, 2, 1))  # image step -> cell step
    gap = points[None] - predicted[:, None]  # (N, K, 2)
    # inverse · gap, the two products added as einsum adds them (its generic path costs more than the sums)
    steps = [inverse[:, None, i, 0] * gap[..., 0] + inverse[:, None, i, 1] * gap[..., 1] for i in range(2)]
    far = np.maximum(np.abs(steps[0]), np.abs(steps[1]))
    best = far.argmin(axis=1)
    # the prediction each point is nearest to (in its cells)
    nearest = far.argmin(axis=0)
    mine = nearest[best] == np.arange(n)
    return np.where((far[np.arange(n), best] < RECENTRE) & mine, best, -1)


def _beside_any(points: np.ndarray, centres: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Whether any of ``points`` (K, 2) lies within RECENTRE cells of each centre (N, 2) along both of its
    axes (N, 2, 2)."""
    n, k = len(centres), len(points)
    if n == 0 or k == 0:
        return np.zeros(n, bool)
    pairs = within_cells(
        np.tile(points, (n, 1)), np.repeat(centres, k, axis=0), np.repeat(axes, k, axis=0), RECENTRE
    )
    return np.asarray(pairs.reshape(n, k).any(axis=1))


def within_cells(points: np.ndarray, targets: np.ndarray, axes: np.ndarray, cells: float) -> np.ndarray:
    """Whether each point (N, 2) lies within ``cells`` cells of its target along both of its axes."""
    return np.asarray(cells_off(points, targets, axes) < cells)


def away_from(cells: np.ndarray, probe: np.ndarray, axes: np.ndarray, steady: np.ndarray) -> np.ndarray:
    """Per probed cell (K, 2) with its axes (K, 2, 2), the sign of its step away from the tiles at
    ``cells`` (N, 2) beside it (sides only): +1 or -1 along an axis where every such tile lies on one side
    of it, else 0; all 0 where the tiles around it do not lie where the grid puts them (not ``steady``
    (K,): a group a cell off is not carried across a seam) or the camera leans SIDE_TILT or more (a
    cube's side face then shows half a cell beyond it)."""
    step = probe[:, None, :] - cells[None, :, :]  # (K, N, 2)
    beside = np.abs(step).sum(axis=2) == 1
    low = np.where(beside[..., None], step, 0).min(axis=1)
    high = np.where(beside[..., None], step, 0).max(axis=1)
    away = np.where(low >= 0, high, np.where(high <= 0, low, 0))
    ends = np.linalg.svd(axes, compute_uv=False)  # (K, 2), larger first
    away[~steady | (ends[:, 1] <= SIDE_TILT * ends[:, 0])] = 0
    return np.asarray(away, np.int64)


def _beyond_seam(points: np.ndarray, predicted: np.ndarray, axes: np.ndarray, away: np.ndarray) -> np.ndarray:
    """Which symbols at ``points`` (N, 2) lie across a seam from the tiles their cells were probed from:
    along an axis where the probe stepped ``away`` (N, 2) from them, between RECENTRE and SEAM cells
    further than predicted, and within RECENTRE along the other. Cubes are laid out by hand: a layout
    pulled apart along a row or column puts the cubes beyond the seam further than one step, never nearer
    (cubes do not overlap), so the probe there sees its cube off its cell's middle, away from the tiles
    it came from, and the tiles beyond are found from it."""
    off = cell_steps(points, predicted, axes)
    along = off * away
    across = (away == 0) & (np.abs(off) < RECENTRE)
    seam = (away != 0) & (along >= RECENTRE) & (along < SEAM)
    near = (away != 0) & (np.abs(off) < RECENTRE)
    return np.asarray(seam.any(axis=1) & (seam | near | across).all(axis=1))


def _across_seam(
    work: np.ndarray,
    predicted: np.ndarray,
    axes: np.ndarray,
    away: np.ndarray,
    guess: np.ndarray,
    *,
    among: np.ndarray,
) -> np.ndarray:
    """Which predictions (N, 2) ``among`` (N,) bool show a symbol half a cell further ``away`` (N, 2) from
    the tiles they were probed from, at a coarse look there (a prediction in a seam sees mostly the gap):
    their ``guess`` (N, 2) is moved in place onto it (see :func:`_beyond_seam`)."""
    rows = np.flatnonzero(among & away.any(axis=1))
    seen = np.zeros(len(predicted), bool)
    if len(rows) == 0:
        return seen
    further = predicted[rows] + np.einsum("nk,nkd->nd", 0.5 * away[rows], axes[rows])
    look = presence(_cut(work, further, axes[rows], size=PATCH // 2))
    there = look.contrast > MIN_CONTRAST
    guess[rows[there]] = further[there] + np.einsum("nk,nkd->nd", look.offset[there], axes[rows[there]])
    seen[rows[there]] = True
    return seen
