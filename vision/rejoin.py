"""Joining the groups the grid left out, by the rules of the game.

The grid (:mod:`vision.lattice`) leaves a group of tiles out where its geometry fits two whole shifts about
equally (a group pulled half a cell along a seam, a camera too steep for the placed tiles' map to carry
across a gap): a tile put a cell off is worse than a tile missed. The tiles themselves often settle it. A
Qwirkle line is one colour or one shape and never holds a tile twice, and that holds for any run of
side-by-side tiles of a legal board, so also for the part of it a camera sees. Such a group is read as a
part of its own (its own grid, patches and names), and the 25 whole shifts around where the read tiles' grid
puts it are tried. A shift is ruled out where it puts a tile on a read one, touches no read tile (between a
group and the rest, unseen tiles may lie: the rules say nothing there), or puts tiles side by side that lie
more than BESIDE from one step apart in the photo (measured in the read tile's own axes: no map extrapolated
across a gap). The group joins where exactly one shift left keeps every line it forms with the read tiles
valid, provided another breaks a line, or the photo puts that one within CLOSE of whole steps (a Herkle
tile taken where its own grid, the reading's or its group's, puts it: its centre is its paint's, which its
ordinary puts up to half a cell off the middle), or, among Qwirkle Cubes, a seam's width further than one
step (:func:`_across_seam`: cubes never overlap, so a seam only pushes them apart), where the group lies on
its own grid as one block (:func:`_one_block`). Only tiles named with confidence count
in a line, and a cell of the group not named with confidence may be no tile at all (its probe took a
neighbour's paint or the table for one): a shift breaks a line only where it breaks without it.
A shift onto tiles only a group joined before by the rules put there is not ruled out where the grid's map
puts the group within a cell of it: that group may be a cell off itself (its own grid can step across a
seam inside it), so the two contest the cells and the later one is left out. Each group is read as the
reading was (Herkle's probes take whole shields too), so that it holds the tiles it would hold alone.

The rules can tell shifts across the lines a group meets, not along them: a group slid one cell along a
row it continues keeps the row valid (a gap in a line, closed, is still one colour or one shape). That is
why a shift the rules alone allow must still be a clear step in the photo.

A part the rules cannot place that lies far from every read tile (beyond a hand it touches none) joins
where it and the read tiles clearly lie on one grid (:func:`_rigid_cells`): read with its probes, against
the read tiles with theirs, the far groups' fit holds more points than the grid's candidates alone did. A
nearer one (between a hand's fingers) joins only where one shift alone fits at all, and only where its
tiles then break no line, among themselves or with the read tiles (the photo alone placed it: the rules
must not contradict it).

A reading is a record of what lies on the table, illegal plays included: the rules only choose between
places the photo cannot tell apart, and never move or drop a tile the grid placed.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

import numpy as np

from table import Tile
from table.lines import AXES, line_ok, line_through
from vision.classify import classify
from vision.detect import Blobs
from vision.features import concat
from vision.geometry import cells_off, distances, fit_homography, local_axes
from vision.joins import FAR, FAR_GROUP
from vision.lattice import fit_lattice
from vision.named import Named
from vision.occupied import Located, occupied
from vision.prototypes import Prototypes, white_balance
from vision.shifts import ODDS, agreed_shift, only_shift, rigid_shift

#: At most this many groups are tried.
PARTS = 6
#: A shift is tried where each pair of tiles it puts side by side lies within this many cells of that step
#: in the photo.
BESIDE = 0.75
#: Where no other shift is judged, the one allowed must put the tiles side by side that lie within this
#: many cells of one step apart in the photo.
CLOSE = 0.3
#: Tiles named with less confidence do not count in a line.
SURE = 0.6
#: A part no shift touching the read tiles takes joins by a rigid fit only beside at least this many read
#: tiles (the grid's map is a homography only through six or more: :func:`vision.joins._predict`).
MAPPED = 6

_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


@dataclass
class Side:
    """The read tiles as a part sees them (a joined part's tiles are added): cell -> index into
    ``centres`` (work pixels) and ``at`` (where the tile is taken to lie, :func:`_at`), and each cell's tile
    (None where it is not named with confidence)."""

    index: dict[tuple[int, int], int]
    tiles: dict[tuple[int, int], Tile | None]
    centres: list[np.ndarray]
    at: list[np.ndarray]


def rejoined(
    located: Located, named: Named, blobs: Blobs, prototypes: Prototypes, *, tileset: str | None = None
) -> tuple[Located, Named]:
    """``located`` and ``named`` with the groups the grid left out joined where the rules put them.

    Parameters
    ----------
    located, named : Located, Named
        The reading so far and its names (one row per read tile).
    blobs : Blobs
        Every symbol candidate of the frame (the ones not read are the groups left out), with the symbols
        standing apart only at the lower threshold (``blobs.apart``), which may make a group of their own.
    prototypes : Prototypes
        What the tiles are named by.
    tileset : str, optional
        The edition's name: each group is read as the reading was (Herkle's probes also take whole
        shields, :func:`vision.occupied.occupied`), so a part holds the tiles it would hold alone.

    Returns
    -------
    located, named
        The same objects when nothing joined; else the tiles of the joined groups appended (their cells in
        the reading's grid, the grid's homography refitted through every tile) and all named again.
    """
    pitch = located.lattice.pitch
    if len(blobs.apart):
        # the symbols standing apart only at the lower threshold may make a group of their own too
        extent = np.full(len(blobs.apart), np.median(blobs.extents) if len(blobs) else 0.0)
        blobs = Blobs(
            np.concatenate([blobs.centres, blobs.apart]),
            np.concatenate([blobs.extents, extent]),
            np.concatenate([blobs.areas, np.zeros(len(blobs.apart))]),
            blobs.apart,
        )
    left = ~seen(blobs.centres, located.centres, pitch)
    if left.sum() < 2:
        return located, named
    parts: list[Located] = []
    across: list[bool] = []  # per part, whether it joined across a seam (:func:`_across_seam`)
    keys = [(int(r), int(c)) for r, c in located.cells]
    side = Side(
        {key: i for i, key in enumerate(keys)},
        {key: _tile(named, i) for i, key in enumerate(keys)},
        list(located.centres),
        list(_at(located, tileset)),
    )
    gains = white_balance(located.measured.body)
    for _ in range(PARTS):
        if left.sum() < 2:
            break
        rest = blobs.take(left)
        alone = fit_lattice(rest.centres, rest.extents, join=False, seams=tileset != "herkle")
        left[np.flatnonzero(left)[alone.placed]] = False
        part = occupied(
            located.work, located.scale, rest, alone, tileset=tileset, refit=False, shapes=prototypes
        )
        if part is None:
            continue
        part = part.take(~seen(part.centres, np.array(side.centres), pitch))  # probes find read tiles again
        if len(part.cells) < 2:
            continue
        part_named = classify(part.measured, gains, prototypes)
        at = _at(part, tileset)
        joined = _joined_cells(located, side, part, part_named, at, cubes=tileset == "cubes")
        cells, seamed = (None, False) if joined is None else joined
        if cells is None and tileset != "herkle":
            # not Herkle: its tiles lie where their own grids put them, and a part's own grid across a
            # seam put a whole part a cell off there (the rendered Herkle set gained no tile by it)
            cells = _rigid_cells(located, side, part, part_named, at)
        if cells is None:
            continue
        parts.append(replace(part, cells=cells))
        across.append(seamed)
        for k, (r, c) in enumerate(cells):
            side.index[(int(r), int(c))] = len(side.centres)
            side.tiles[(int(r), int(c))] = _tile(part_named, k)
            side.centres.append(part.centres[k])
            side.at.append(at[k])
    if not parts:
        return located, named
    every = [located, *parts]
    cells = np.concatenate([p.cells for p in every])
    centres = np.concatenate([p.centres for p in every])
    # the grid's map through the tiles that lie on it: a part joined across a seam lies a seam's width off
    on = [p for p, seam in zip(every, [False, *across], strict=True) if not seam]
    through = np.concatenate([p.cells for p in on]).astype(np.float64)
    h = fit_homography(through, np.concatenate([p.centres for p in on]), tolerance=0.3 * pitch)
    grown = replace(
        located,
        lattice=replace(located.lattice, homography=h),
        cells=cells,
        centres=centres,
        patches=np.concatenate([p.patches for p in every]),
        measured=concat([p.measured for p in every]),
    )
    return grown, classify(grown.measured, white_balance(grown.measured.body), prototypes)


def _joined_cells(
    located: Located, side: Side, part: Located, named: Named, at: np.ndarray, *, cubes: bool = False
) -> tuple[np.ndarray, bool] | None:
    """The part's cells in the reading's grid at the one shift the rules allow (its tiles taken to lie
    ``at``), and whether that shift lies across a seam (``cubes``: it may, :func:`_across_seam`); None
    where no shift is allowed (also where a shift within a cell of where the map puts the part lands on
    tiles of parts joined before, and on no others)."""
    turn = _turn(located, part)
    if turn is None:
        return None
    own = part.cells @ turn.T
    where = np.median(located.lattice.cell_of(part.centres) - own, axis=0)
    guess = np.round(where).astype(np.int64)
    tiles = [_tile(named, i) for i in range(len(own))]
    allowed, told = [], set()
    for step in ((dr, dc) for dr in range(-2, 3) for dc in range(-2, 3)):
        cells = own + guess + step
        keys = [(int(r), int(c)) for r, c in cells]
        on = [side.index[k] for k in keys if k in side.index]
        if on and min(on) >= len(located.cells) and np.abs(guess + step - where).max() < 1.0:
            # only on tiles the rules joined, at a place the map puts the part as near: the two parts
            # contest those cells, and a part joined by the rules is no proof that this place is taken
            return None
        if on:
            continue  # on a read tile
        err = _beside(located.lattice.homography, side, at, keys)
        if err is None or err > BESIDE:
            continue  # touching no read tile, or side by side with tiles that lie apart in the photo
        verdict = _verdict(side, dict(zip(keys, tiles, strict=True)))
        told.add(verdict)
        if verdict == "valid":
            allowed.append((cells, err))
    # the rules decide: one shift keeps the lines it forms with the read tiles valid and either another
    # breaks a line or the photo puts its tiles side by side with the read ones within CLOSE of a step
    if len(allowed) != 1:
        return None
    cells, err = allowed[0]
    if "broken" in told or err <= CLOSE:
        return cells, False
    if not cubes or not _one_block(part):
        return None
    keys = [(int(r), int(c)) for r, c in cells]
    return (cells, True) if _across_seam(located.lattice.homography, side, at, keys) else None


def _rigid_cells(
    located: Located, side: Side, part: Located, named: Named, at: np.ndarray
) -> np.ndarray | None:
    """The part's cells in the reading's grid where it and the read tiles clearly lie on one grid, or
    None, for a part of FAR_GROUP tiles or more that the rules could not place. The grid left it out as a
    group of candidates alone; read now, the probes have added tiles on both sides of the gap, so the fit
    holds more points and extrapolates less far. A part further than FAR cells from every read tile
    (beyond a hand it touches none) joins at the shift :func:`vision.shifts.rigid_shift` finds (no
    fallback to the map's prediction), or else where every measure of that fit agrees at lesser odds
    (:func:`vision.shifts.agreed_shift`). A nearer part joins only at the one shift of the nine that fits
    at all, every other leaving a point RIGID_OTHER off (:func:`vision.shifts.only_shift`): a near group
    the grid left out had two shifts fitting about as well, and the likelihood alone does not tell those
    (seams are real gaps), but the read tiles on both sides of a hand's fingers can leave one shift only;
    or at the map's prediction where the likelihood (at ODDS) and the largest misfits, over all the points
    and over the part's own, all pick it too. There its tiles must break no line (:func:`_breaks`)."""
    turn = _turn(located, part)
    if turn is None or len(part.cells) < FAR_GROUP:
        return None
    keys = np.array(list(side.index), np.int64)
    if len(keys) < MAPPED:
        return None  # a homography through fewer read tiles bends to take the part a cell off
    placed = np.array([side.at[side.index[k]] for k in side.index])
    own = part.cells @ turn.T
    frac = located.lattice.cell_of(at) - own
    if distances(placed, at).min() <= FAR * located.lattice.pitch:
        shift = only_shift(placed, keys, at, own, frac)
        if shift is None:
            shift = agreed_shift(placed, keys, at, own, frac, odds=ODDS, predicted=True)
        if shift is not None and _breaks(side, own + shift, named):
            return None
    else:
        # the fit's shift must be one of the nine around the map's prediction, and the one the part's own
        # points fit best: a part's own grid and probes can carry a tile a cell off, which a fit through
        # every point absorbs
        shift = rigid_shift(placed, keys, at, own, frac, fallback=False, recentre=0, own_best=True)
        if shift is None:
            shift = agreed_shift(placed, keys, at, own, frac)
    if shift is None:
        return None
    cells = own + shift
    return None if any((int(r), int(c)) in side.index for r, c in cells) else cells


def _breaks(side: Side, cells: np.ndarray, named: Named) -> bool:
    """Whether the part's tiles at ``cells`` (their names ``named``) break a line, among themselves or with
    the read tiles: where the photo alone places a part, the rules must not contradict it (a shift a cell
    off, or a tile of the part misnamed). As in :func:`_verdict`, a line broken only through tiles not named
    with confidence does not count."""
    part = {(int(r), int(c)): _tile(named, k) for k, (r, c) in enumerate(cells)}
    named_part = {k: t for k, t in part.items() if t is not None}
    return _broken({**side.tiles, **part}, part) and _broken({**side.tiles, **named_part}, named_part)


def _broken(both: dict[tuple[int, int], Tile | None], part: Collection[tuple[int, int]]) -> bool:
    """Whether a run through a cell of ``part`` (walking the cells of ``both``, named or not) holds tiles
    named with confidence that make no valid line."""
    for cell in part:
        for axis in AXES:
            run = line_through(both, cell, axis)  # type: ignore[arg-type]
            sure = [t for k in run if (t := both[k]) is not None]
            if len(sure) > 1 and not line_ok(sure):
                return True
    return False


def _beside(h: np.ndarray, side: Side, at: np.ndarray, keys: list[tuple[int, int]]) -> float | None:
    """How far (cells) from one step apart in the photo, at worst, the part's tiles at ``keys`` (lying
    ``at``) lie from the read tiles they are put beside (``side.at``), measured in the read tile's own axes
    (no map extrapolated across a gap); None when they are put beside none."""
    worst = None
    for k, (r, c) in enumerate(keys):
        for dr, dc in _SIDES:
            j = side.index.get((r + dr, c + dc))
            if j is not None:
                axes = local_axes(h, np.array([r + dr, c + dc], np.float64))
                step = np.linalg.solve(axes.T, at[k] - side.at[j])
                worst = max(worst or 0.0, float(np.abs(step - (-dr, -dc)).max()))
    return worst


def _across_seam(h: np.ndarray, side: Side, at: np.ndarray, keys: list[tuple[int, int]]) -> bool:
    """Whether every tile of the part at ``keys`` (lying ``at``) put beside a read tile lies within CLOSE
    of one step from it across that step, and along it no more than CLOSE nearer (further, up to BESIDE,
    as every shift tried: :func:`_beside`). Qwirkle Cubes: cubes never overlap, so a layout pulled apart
    along a row or column puts the cubes beyond the seam further than one step, never nearer (the Cubes
    calibration game's seams are 0.47 of a cube, measured 0.32-0.58 of a cell past one step: the parts
    beyond them were left out, each with one shift the rules allow, within BESIDE but not CLOSE)."""
    pairs = 0
    for k, (r, c) in enumerate(keys):
        for dr, dc in _SIDES:
            j = side.index.get((r + dr, c + dc))
            if j is None:
                continue
            axes = local_axes(h, np.array([r + dr, c + dc], np.float64))
            step = np.linalg.solve(axes.T, at[k] - side.at[j])
            along = abs(dr) * -dr * step[0] + abs(dc) * -dc * step[1] - 1.0
            across = abs(dc) * step[0] + abs(dr) * step[1]
            if abs(across) > CLOSE or along < -CLOSE:
                return False
            pairs += 1
    return pairs > 0


def _one_block(part: Located) -> bool:
    """Whether the part is one block: every tile within CLOSE of where its own grid puts it (no seam inside
    it that its grid did not take out), and beside another of its tiles (a tile its grid put a cell beyond
    its neighbours lies across a gap its grid rounded up, where a seam is as likely). A part joined across
    a seam is taken whole at the step measured where it touches the read tiles: a fresh Cubes frame's
    part of 44 cubes, three groups with seams between them and side faces taken for cubes, lay up to 0.39
    of a cell off its own grid, and another's lone cube 1.8 steps beyond its neighbour was put two cells
    from it; each joined with tiles a cell off."""
    where = part.cells.astype(np.float64)
    off = cells_off(part.centres, part.lattice.point(where), local_axes(part.lattice.homography, where))
    if off.max() >= CLOSE:
        return False
    keys = {(int(r), int(c)) for r, c in part.cells}
    return all(any((r + dr, c + dc) in keys for dr, dc in _SIDES) for r, c in keys)


def _verdict(side: Side, part: dict[tuple[int, int], Tile | None]) -> str:
    """What the part at its cells (cell -> tile, None where not named with confidence) does to the lines it
    forms with the read tiles: ``"valid"``, ``"broken"`` or ``"open"`` (no line across the seam holds
    two tiles named with confidence). A cell of the part not named with confidence may hold no tile at all
    (one of its probes took a neighbour's paint or the table for a tile), so a shift is broken only where
    its lines break without such cells too: a run joined through them alone is no line."""
    every = _lines({**side.tiles, **part}, part)
    if every != "broken":
        return every
    named = {k: t for k, t in part.items() if t is not None}
    return _lines({**side.tiles, **named}, named)


def _lines(both: dict[tuple[int, int], Tile | None], part: Collection[tuple[int, int]]) -> str:
    """:func:`_verdict` of the ``part``'s cells, the runs walking the cells of ``both`` (named or not)."""
    named = {k: t for k, t in both.items() if t is not None}
    lines = set()
    for cell in part:
        for axis in AXES:
            run = line_through(both, cell, axis)  # type: ignore[arg-type]
            sure = [k for k in run if k in named]
            if any(k in part for k in sure) and any(k not in part for k in sure):
                lines.add(tuple(sure))
    if any(not line_ok([named[k] for k in line]) for line in lines):
        return "broken"
    return "valid" if lines else "open"


def _at(tiles: Located, tileset: str | None) -> np.ndarray:
    """Where the ``tiles`` are taken to lie (work pixels, (N, 2)): their centres, but a Herkle tile's centre
    is its paint's, which its ordinary puts up to half a cell off the middle, so Herkle's tiles lie where
    their own grid puts their cells."""
    if tileset != "herkle":
        return tiles.centres
    return tiles.lattice.point(tiles.cells.astype(np.float64))


def _tile(named: Named, i: int) -> Tile | None:
    return Tile(named.colours[i], named.shapes[i]) if named.confidence[i] >= SURE else None


def _turn(located: Located, part: Located) -> np.ndarray | None:
    """The quarter turn (2×2 int) taking the part's cell steps to the reading's (each grid's axes are
    known only modulo a quarter turn), or None where the two grids do not agree on one."""
    theirs = local_axes(part.lattice.homography, part.cells.mean(axis=0))
    ours = local_axes(located.lattice.homography, located.lattice.cell_of(part.centres).mean(axis=0))
    m = np.linalg.solve(ours.T, theirs.T)
    turn = np.round(m)
    if np.abs(m - turn).max() > 0.3 or abs(np.linalg.det(turn)) != 1 or np.abs(turn).sum() != 2:
        return None
    return np.asarray(turn, np.int64)


def seen(points: np.ndarray, centres: np.ndarray, pitch: float) -> np.ndarray:
    """Which points (N, 2) lie within half a cell (``pitch`` pixels) of one of the ``centres`` (K, 2)."""
    if len(centres) == 0 or len(points) == 0:
        return np.zeros(len(points), bool)
    gap = distances(points, centres).min(axis=1)
    return np.asarray(gap < 0.5 * pitch)
