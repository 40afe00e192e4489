"""Which cells hold tiles: given a frame's symbol candidates and the grid through them
(:mod:`vision.symbol_candidates`), the candidates kept, and the probes that find the tiles the detector
missed next to the ones it found (:class:`Located`).

Symbol candidates (:mod:`vision.detect`) placed on the grid (:mod:`vision.lattice`) are kept where their patch
shows a contrasted symbol; then the cells next to them are looked at, round after round outwards
(:func:`look`): a symbol whose tip touches its tile's edge, or whose paint runs into the table, is found
there. A probe may also take a symbol candidate that stood apart only at the detector's higher threshold
(:attr:`vision.detect.Blobs.apart`) as evidence, where its paint is not the table's colour. Paint that
stands out from its body less than a tile's usually does (FAINT to MIN_CONTRAST: warm or dim light, a
bright table, the weakest paints) is a tile where it shows a whole symbol not of the table's colour, in a
frame whose grid holds its tiles (:func:`_faint`, :func:`look`; the probes of the frame's grid look again
where their first look shows such paint, but take none on a candidate the grid left out). So is a probe's
symbol whose patch shows no dark frame (under a steep camera the patch reaches past the tile's body onto
the table), where its
paint is pure (:func:`_unframed`). Patches are cut again in truer axes where the symbols say so
(:mod:`vision.recut`): a narrow layout's foreshortened axes once the probes have found enough tiles, a
small layout's map through its tiles, and, where no homography measured the foreshortening, without the
stretch its symbols still show. A cell whose paint is the table's own colour, ringed by four tiles, is a
hole in a layout of cubes, not a tile, and under a camera leaning 30° or more a cell in front of a cube
that shows a squashed symbol of the cube's colour, less lit, is the cube's side face
(:mod:`vision.cube_faces`).
On Herkle's tiles a probe also takes a whole shield of the frame's form
(:func:`vision.shield_probes.whole_shields`): with a black ordinary on it (no paint of such a tile stands
out from its body), or a lit one ringed by the body (the paint's rim test does not fit a shield that fills
its face; faint paint where the shield is lit as its neighbours are); a probe cut off its tile looks again
centred on the shield it saw (:func:`_with_shields`), and a tile found whose shield is not whole is cut
again centred on it, a little wider (:func:`_shields_recentred`). Herkle's patches
are cut in a narrow layout's foreshortened axes (:func:`vision.geometry.foreshortened`) where its shields
fit their known outline better there (:func:`vision.shield_detect.truer_axes`; in the similarity through
them where they fit neither the grid's axes nor those), and its probes then also look where that map puts
the cells (:func:`probed`): a Herkle tile's paint lies up to half a cell off its middle, so the probes,
which follow the tiles they find, cannot follow a similarity's drift under a tilted camera.
:mod:`vision.reader` names what is found.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from vision.cube_faces import without_holes, without_side_faces
from vision.detect import Blobs
from vision.features import MAX_REACH, Measurements, Presence, concat, measure, presence
from vision.geometry import cells_off, distances, foreshortened, local_axes, spread
from vision.lattice import AROUND, Lattice, among, cell_keys
from vision.paint_checks import (
    FAINT,
    MIN_CONTRAST,
    SIDE_TILT,
    pure,
    table_colour,
    unlike,
    whole,
)
from vision.patches import PATCH
from vision.patches import cut_patches as _cut
from vision.prototypes import HOLES_BY_COLOUR
from vision.recut import recut, squared
from vision.shield_detect import truer_axes
from vision.shield_probes import PROBE_LOOKS, Shields, recentred_shields, whole_shields
from vision.shields import field_colour

#: How many times the cells next to the tiles found so far are probed for tiles the detector missed (a
#: row of missed tiles is found one cell further each time; it stops early when nothing new shows).
PROBE_ROUNDS = 8
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
#: Candidates standing apart are evidence only where the tiles around a probe lie within this many cells
#: of where the grid puts them (a group joined a cell off, or a grid bent out of true, is not extended).
STEADY = 0.25


@dataclass(frozen=True)
class Located:
    """Where the tiles are: the working copy, its scale, and per occupied cell its centre and axes."""

    work: np.ndarray
    scale: float
    lattice: Lattice
    cells: np.ndarray  # (N, 2) int
    centres: np.ndarray  # (N, 2) work pixels
    patches: np.ndarray  # (N, S, S, 3)
    measured: Measurements
    apart: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  # (K, 2) work pixels, Blobs.apart
    #: Herkle: the shields of the tiles the detector found (probes then also take whole shields,
    #: :func:`vision.shield_probes.whole_shields`); None for the other editions.
    shields: Shields | None = None
    #: (K, 2) work pixels: the symbol candidates the grid left out, for the probes of the frame's grid (they
    #: then look again at paint faint at their first look, but take none on these: see :func:`look`); None
    #: for a group the grid left out, read alone (:mod:`vision.rejoin`), and on Qwirkle Cubes (a cube's side
    #: face, lit less than its top, shows faint paint in the cell in front of it: a fresh Cubes set under a
    #: camera leaning 36 degrees read one as a tile).
    left_out: np.ndarray | None = None

    def take(self, keep: np.ndarray) -> Located:
        """The tiles of ``keep`` (a mask or indices) only."""
        return replace(
            self,
            cells=self.cells[keep],
            centres=self.centres[keep],
            patches=self.patches[keep],
            measured=self.measured.take(keep),
        )


def occupied(
    work: np.ndarray,
    scale: float,
    blobs: Blobs,
    lattice: Lattice,
    *,
    tileset: str | None = None,
    refit: bool = True,
) -> Located | None:
    """Measure the cells of the placed candidates, then look for missed tiles next to them (``tileset``
    "herkle": whole shields too, see :func:`vision.shield_probes.whole_shields`; "cubes": without the holes
    in the layout and the cubes' side faces, see :mod:`vision.cube_faces`).
    ``refit``: where the grid is a similarity, cut the patches again in the map through the tiles found
    (:func:`vision.recut.recut`); a group the grid left out, read on its own (:mod:`vision.rejoin`), lies
    across a seam the grid could not resolve, and a map through a few of its tiles takes a tile a cell off
    for foreshortening."""
    cells = lattice.cells[lattice.placed]
    centres = blobs.centres[lattice.placed]
    cut = foreshortened(lattice.homography, cells.astype(np.float64), centres, within=STEADY)
    if tileset == "herkle":
        cut = truer_axes(work, centres, cells, lattice.homography, cut, within=RECENTRE)
    cutting = replace(lattice, homography=cut)  # the grid, but for the axes the cells are cut in
    axes = local_axes(cut, cells.astype(np.float64))
    patches = _cut(work, centres, axes)
    p = presence(patches)
    keep = (p.contrast > MIN_CONTRAST) & (p.reach < MAX_REACH)
    if not keep.any():
        return None
    held = None  # whether the grid holds the tiles kept (:func:`_held`), while known
    if tileset != "herkle":
        held = _held(cutting, cells[keep], centres[keep])
        faint = _faint(work, cutting, cells[keep], patches, p, strong=keep) if held else None
        if faint is not None and faint.any():
            keep |= faint
            held = None
    located = Located(
        work,
        scale,
        lattice,
        cells[keep],
        centres[keep],
        patches[keep],
        measure(patches[keep], p.take(keep)),
        blobs.apart,
        Shields(field_colour(patches[keep]), patches[keep], centres[keep]) if tileset == "herkle" else None,
        blobs.centres[~lattice.placed] if refit and tileset != "cubes" else None,
    )
    # the cells are cut and probed in the foreshortened axes, where the grid puts them (Herkle's where the
    # foreshortened homography does: see probed); the grid's own test of whether it holds its tiles
    # serves the probes only where the two are one
    same = cut is lattice.homography
    located = probed(located, located.cells, held=held if same else None, cut=cut, seams=tileset == "cubes")
    # the grid's map is a similarity where its candidates were too few or on two or three rows
    # (:func:`vision.geometry.fit_homography`)
    narrow = refit and (len(cells) < 4 or spread(cells.astype(np.float64)) < 1.0)
    if same and tileset != "herkle" and (narrow or len(located.cells) > len(cells)):
        located, cut = recut(located, narrow=narrow, within=STEADY)
    if tileset == "herkle":
        located = _shields_recentred(located, cut)
    # a homography through the layout measured its foreshortening: a stretch its symbols still show
    # there is the grid's own doubt (a layout drifted off true, a cell off somewhere), not the camera's
    elif not cut[2, :2].any():
        located = squared(located, cut, within=STEADY)
    if tileset == "cubes":
        return without_side_faces(without_holes(located), cut)
    # a hole in a layout of flat tiles too shows the table framed by its four neighbours' bodies: on three
    # rendered sets (colour-blind, tilt 20° and 35°, seed 31) 97 of 106 such holes had paint as close to the
    # table's, and 1 of 655 tiles ringed by four others (a green starburst on green felt in dim light)
    return without_holes(located) if tileset in HOLES_BY_COLOUR else located


def _shields_recentred(located: Located, cut: np.ndarray) -> Located:
    """Herkle: ``located`` with the tiles whose shield is not whole cut and measured again centred on it
    (:func:`vision.shield_probes.recentred_shields`), their patches cut in the axes of the homography
    ``cut`` (3, 3) as they were."""
    axes = local_axes(cut, located.cells.astype(np.float64))
    patches, centres, changed = recentred_shields(located.work, located.patches, located.centres, axes)
    if not changed.any():
        return located
    order = np.concatenate([np.flatnonzero(~changed), np.flatnonzero(changed)])
    measured = concat([located.measured.take(~changed), measure(patches[changed])]).take(np.argsort(order))
    return replace(located, centres=centres, patches=patches, measured=measured)


def _faint(
    work: np.ndarray,
    lattice: Lattice,
    cells: np.ndarray,
    patches: np.ndarray,
    p: Presence,
    *,
    strong: np.ndarray,
) -> np.ndarray:
    """Which detector candidates (their patches (N, S, S, 3) and :func:`presence` ``p``) not ``strong``
    (N,) hold a tile although their paint stands out less than MIN_CONTRAST: more than FAINT, with a
    symbol's dark rim, size and place in the cell, a whole symbol (:func:`whole`) and paint not the
    table's colour (read around the tiles of ``cells`` (K, 2); none without it)."""
    faint = np.asarray(~strong & p.found(FAINT, framed=False))
    if not faint.any():
        return faint
    table = table_colour(work, lattice, cells)
    if table is None:
        return np.zeros_like(faint)
    m = measure(patches[faint], p.take(faint))
    faint[faint] = whole(m) & unlike(m.paint, table)
    return faint


def _held(lattice: Lattice, cells: np.ndarray, centres: np.ndarray) -> bool:
    """Whether the grid holds the tiles at ``centres`` (N, 2) on ``cells`` (N, 2): three at least, nine in
    ten within STEADY cells of where it puts them. Under a steep camera, across a seam or through a
    group of two or three candidates, the grid is itself in doubt, and a faint tile read on it would
    decide where a group left out joins."""
    if len(cells) < 3:
        return False
    where = cells.astype(np.float64)
    off = cells_off(centres, lattice.point(where), local_axes(lattice.homography, where))
    return bool(np.quantile(off, 0.9) < STEADY)


def probed(
    located: Located,
    tried: np.ndarray,
    *,
    held: bool | None = None,
    cut: np.ndarray | None = None,
    seams: bool = False,
) -> Located:
    """``located`` with the tiles found by probing the cells next to its tiles, not ``tried`` (K, 2) yet,
    round after round outwards, cut in the axes of the homography ``cut`` (3, 3; default the grid's: see
    :func:`vision.geometry.foreshortened`; on Herkle's tiles also predicted through it). ``held``: whether
    the grid holds its tiles (:func:`_held`), if known. ``seams``: a probe's symbol may lie across a seam
    (:func:`_beyond_seam`; Qwirkle Cubes)."""
    lattice, cells, centres = located.lattice, located.cells, located.centres
    if located.shields is not None and cut is not None:
        # Herkle's probes also look where the foreshortened homography puts its cells: they follow
        # the tiles they find, and a Herkle tile's paint (the grey field a black ordinary leaves, or the
        # ordinary) lies up to half a cell off its middle, so they cannot follow the similarity's drift
        # under a tilted camera (a cell over six rows at 16 degrees) as the other editions' do
        lattice = replace(lattice, homography=cut)
    table = table_colour(located.work, lattice, cells)
    # Herkle's paint probes take no faint paint or candidates standing apart (its candidates are shields):
    # there the table's colour serves the shield probes only
    paint_table = table if located.shields is None else None
    if paint_table is not None and held is None:
        held = _held(lattice, cells, centres)
    least = FAINT if paint_table is not None and held else MIN_CONTRAST
    patches, measured = [located.patches], [located.measured]
    for _ in range(PROBE_ROUNDS):
        probe, guess = _neighbours(lattice, cells, centres, tried)
        if len(probe) == 0:
            break
        tried = np.concatenate([tried, probe])
        axes = local_axes(lattice.homography if cut is None else cut, probe.astype(np.float64))
        steady = _near(guess, lattice.point(probe.astype(np.float64)), axes, STEADY)
        rows, where, patch, m = look(
            located.work,
            guess,
            axes,
            apart=_unclaimed(located.apart, centres, 0.5 * lattice.pitch),
            table=paint_table,
            least=least,
            steady=steady,
            away=_away(cells, probe, axes, steady) if seams else None,
            left_out=located.left_out,
        )
        if located.shields is not None:
            rows, where, patch, m = _with_shields(
                located.work, guess, axes, located.shields, (rows, where, patch, m), table=table
            )
        if m is None:
            break
        cells = np.concatenate([cells, probe[rows]])
        centres = np.concatenate([centres, where])
        patches.append(patch)
        measured.append(m)
    if len(measured) == 1:
        return located
    return replace(
        located, cells=cells, centres=centres, patches=np.concatenate(patches), measured=concat(measured)
    )


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
    not dark is taken as :func:`_unframed` says. ``steady`` (N,) bool: the predictions where a
    candidate standing apart, faint paint or a symbol without a dark frame may be taken (see
    :data:`STEADY`); default all. ``away`` (N, 2): per prediction, the cell step away from the tiles it
    was probed from (:func:`_away`); where given, a symbol may lie across a seam (:func:`_beyond_seam`).
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
    near = _near(guess, predicted, axes, RECENTRE)
    if away is not None:
        near |= _beyond_seam(guess, predicted, axes, away[rows])
    found &= near
    if table is not None:
        allowed = near if steady is None else near & steady[rows]
        found |= _unframed(again, second, ~found & allowed, table)
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


def _with_shields(
    work: np.ndarray,
    predicted: np.ndarray,
    axes: np.ndarray,
    shields: Shields,
    seen: tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None],
    *,
    table: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None]:
    """:func:`look`'s answer ``seen`` with the Herkle tiles it refused that
    :func:`vision.shield_probes.whole_shields` takes (``table``: the table's colour (3,) BGR, or None), at
    their predicted centres (N, 2) or, where the shield seen there is off its cell's middle, centred on it
    (within RECENTRE cells)."""
    rows, where, cut, m = seen
    rest = np.setdiff1d(np.arange(len(predicted)), rows)
    if len(rest) == 0:
        return seen
    guess = predicted[rest].copy()
    patches = _cut(work, guess, axes[rest])
    taken, centre = whole_shields(patches, shields, table, guess, axes[rest])
    # a probe cut off its tile sees its shield off the middle, so not whole: look again centred on it (up
    # to PROBE_LOOKS times: a shield cut by the patch's edge shows only part of its offset)
    for _ in range(PROBE_LOOKS):
        again = np.flatnonzero(~taken & (np.abs(centre).max(axis=1) > 0))
        if not len(again):
            break
        guess[again] += np.einsum("nk,nkd->nd", centre[again], axes[rest[again]])
        patches[again] = _cut(work, guess[again], axes[rest[again]])
        taken[again], centre[again] = whole_shields(
            patches[again], shields, table, guess[again], axes[rest[again]]
        )
        far = ~_near(guess, predicted[rest], axes[rest], RECENTRE)
        taken &= ~far
        centre[far] = 0
    if not taken.any():
        return seen
    extra = measure(patches[taken])
    return (
        np.concatenate([rows, rest[taken]]),
        np.concatenate([where, guess[taken]]),
        np.concatenate([cut, patches[taken]]),
        extra if m is None else concat([m, extra]),
    )


def _found(p: Presence, hinted: np.ndarray, least: float) -> np.ndarray:
    """Which patches (N,) hold a tile, their paint standing out more than ``least``: with a dark frame, or
    without one where ``hinted`` (N,) by a candidate of the detector."""
    return np.asarray(p.found(least) | (hinted & p.found(least, framed=False)))


def _unclaimed(points: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """The ``points`` (K, 2) further than ``radius`` pixels from every tile's centre (N, 2) found."""
    if len(points) == 0 or len(centres) == 0:
        return points
    gap = distances(points, centres).min(axis=1)
    return np.asarray(points[gap > radius])


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


def _neighbours(
    lattice: Lattice, cells: np.ndarray, centres: np.ndarray, tried: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cells not ``tried`` (K, 2) yet next to occupied ones (sides and corners), and where to look for
    them (the grid's prediction moved by the neighbours' own offsets from it, which follows a drifting
    row)."""
    residual = centres - lattice.point(cells.astype(np.float64))
    around = (cells[:, None, :] + AROUND[None]).reshape(-1, 2)
    source = np.repeat(np.arange(len(cells)), len(AROUND))
    fresh = ~among(around, tried)
    if not fresh.any():
        return np.zeros((0, 2), np.int64), np.zeros((0, 2))
    # the distinct cells, sorted (their keys sort as the cells do), and which of them each one is
    _, first, which = np.unique(cell_keys(around[fresh]), return_index=True, return_inverse=True)
    keys, which = around[fresh][first], which.reshape(-1)
    shift = np.zeros((len(keys), 2))
    np.add.at(shift, which, residual[source[fresh]])
    shift /= np.bincount(which, minlength=len(keys))[:, None]
    return keys.astype(np.int64), lattice.point(keys.astype(np.float64)) + shift


def _beside_any(points: np.ndarray, centres: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Whether any of ``points`` (K, 2) lies within RECENTRE cells of each centre (N, 2) along both of its
    axes (N, 2, 2)."""
    n, k = len(centres), len(points)
    if n == 0 or k == 0:
        return np.zeros(n, bool)
    pairs = _near(
        np.tile(points, (n, 1)), np.repeat(centres, k, axis=0), np.repeat(axes, k, axis=0), RECENTRE
    )
    return np.asarray(pairs.reshape(n, k).any(axis=1))


def _near(points: np.ndarray, targets: np.ndarray, axes: np.ndarray, cells: float) -> np.ndarray:
    """Whether each point (N, 2) lies within ``cells`` cells of its target along both of its axes."""
    return np.asarray(cells_off(points, targets, axes) < cells)


def _away(cells: np.ndarray, probe: np.ndarray, axes: np.ndarray, steady: np.ndarray) -> np.ndarray:
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
    inverse = np.linalg.inv(axes.transpose(0, 2, 1))  # image step -> cell step
    off = np.einsum("nij,nj->ni", inverse, points - predicted)  # (N, 2) cells
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
