"""Which cells hold tiles: given a frame's symbol candidates and the grid through them
(:mod:`vision.symbol_candidates`), the candidates kept, and the probes that find the tiles the detector missed
next to the ones it found (:class:`Located`).

Symbol candidates (:mod:`vision.detect`) placed on the grid (:mod:`vision.lattice`) are kept where their patch
shows a contrasted symbol; then the cells next to them are looked at, round after round outwards
(:func:`vision.probe_look.look`): a symbol whose tip touches its tile's edge, or whose paint runs into the
table, is found there. A probe may also take a symbol candidate that stood apart only at the detector's higher
threshold (:attr:`vision.detect.Blobs.apart`) as evidence, where its paint is not the table's colour. Paint
that stands out from its body less than a tile's usually does (FAINT to MIN_CONTRAST: warm or dim light, a
bright table, the weakest paints) is a tile where it shows a whole symbol not of the table's colour, in a
frame whose grid holds its tiles (:func:`_faint`, :func:`~vision.probe_look.look`; the probes of the frame's
grid look again where their first look shows such paint, but take none on a candidate the grid left out). So
is a probe's symbol whose patch shows no dark frame (under a steep camera the patch reaches past the tile's
body onto the table), where its paint is pure (:func:`vision.probe_look._unframed`). Patches are cut again in
truer axes where the symbols say so (:mod:`vision.recut`): a narrow layout's foreshortened axes once the
probes have found enough tiles, a small layout's map through its tiles, and, where no homography measured the
foreshortening, without the stretch its symbols still show. A cell whose paint is the table's own colour,
ringed by four tiles, is a hole in a layout of cubes, not a tile, and under a camera leaning 30° or more a
cell in front of a cube that shows a squashed symbol of the cube's colour, less lit, is the cube's side face
(:mod:`vision.cube_faces`). On Herkle's tiles a probe also takes a whole shield of the frame's form
(:func:`vision.shield_probes.whole_shields`): with a black ordinary on it (no paint of such a tile stands out
from its body), or a lit one ringed by the body (the paint's rim test does not fit a shield that fills its
face; faint paint where the shield is lit as its neighbours are); a probe cut off its tile looks again centred
on the shield it saw (:func:`_with_shields`), and a tile found whose shield is not whole is cut again centred
on it, a little wider (:func:`_shields_recentred`). Herkle's patches are cut in a narrow layout's
foreshortened axes (:func:`vision.geometry.foreshortened`) where its shields fit their known outline better
there (:func:`vision.shield_detect.truer_axes`; in the similarity through them where they fit neither the
grid's axes nor those), and its probes then also look where that map puts the cells (:func:`probed`): a Herkle
tile's paint lies up to half a cell off its middle, so the probes, which follow the tiles they find, cannot
follow a similarity's drift under a tilted camera. :mod:`vision.reader` names what is found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from table import tileset as edition
from vision.cube_faces import without_holes, without_side_faces
from vision.detect import Blobs
from vision.features import MAX_REACH, RIM_DARK, Measurements, Presence, concat, measure, presence
from vision.geometry import cells_off, distances, foreshortened, lengths, local_axes, spread
from vision.lattice import AROUND, Lattice, among, cell_keys
from vision.paint_checks import (
    FAINT,
    MIN_CONTRAST,
    table_colour,
    unlike,
    whole,
)
from vision.patches import cut_patches as _cut
from vision.probe_look import RECENTRE, away_from, look, past_table, within_cells
from vision.prototypes import HOLES_BY_COLOUR, Prototypes, default_prototypes
from vision.recut import recut, squared
from vision.shield_detect import truer_axes
from vision.shield_probes import PROBE_LOOKS, Shields, recentred_shields, searched, whole_shields
from vision.shields import field_colour

#: How many times the cells next to the tiles found so far are probed for tiles the detector missed (a
#: row of missed tiles is found one cell further each time; it stops early when nothing new shows).
PROBE_ROUNDS = 8
#: Candidates standing apart are evidence only where the tiles around a probe lie within this many cells
#: of where the grid puts them (a group joined a cell off, or a grid bent out of true, is not extended).
STEADY = 0.25
#: Herkle: a probe refused looks around a black shield (:func:`vision.shield_probes.searched`) only further
#: than this many cells from every candidate the grid left out: beside one, the tile it finds may lie across
#: the seam the grid could not resolve, a cell off for the group's rules, which then cannot rejoin it
#: (a fresh dim Herkle frame, seed 257: a black tile 0.83 cells from a group of 9 left out, then not joined).
LEFT_OUT_NEAR = 1.5


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
    #: then look again at paint faint at their first look, but take none on these: see
    #: :func:`~vision.probe_look.look`); None
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
    shapes: Prototypes | None = None,
) -> Located | None:
    """Measure the cells of the placed candidates, then look for missed tiles next to them (``tileset``
    "herkle": whole shields too, see :func:`vision.shield_probes.whole_shields`; "cubes": without the holes
    in the layout and the cubes' side faces, see :mod:`vision.cube_faces`).
    ``refit``: where the grid is a similarity, cut the patches again in the map through the tiles found
    (:func:`vision.recut.recut`); a group the grid left out, read on its own (:mod:`vision.rejoin`), lies
    across a seam the grid could not resolve, and a map through a few of its tiles takes a tile a cell off
    for foreshortening. ``shapes``: the prototypes the tiles are named with (a calibration's; default the
    edition's), by which a cell among cubes that shows the table's colour is kept where they name a shape a
    hole in the layout does not show (:func:`vision.cube_faces.without_holes`)."""
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
        if held:
            strong = keep.copy()
            # paint fainter than MIN_CONTRAST: a whole symbol not of the table's colour
            faint = ~strong & p.found(FAINT, framed=False)
            keep |= _against_table(work, cutting, cells[strong], faint, partial(_faint, patches, p))
            # (not among cubes: a leaning cube's side face and its neighbour's top) a light table seen past
            # a tile's body, in the band its darkness is read in (a tile at the layout's edge): its paint
            # stands out once the table is painted out (the patches of those taken are replaced by their
            # copies without it: :func:`vision.probe_look.past_table`)
            if tileset != "cubes":
                past = _against_table(
                    work,
                    cutting,
                    cells[strong],
                    ~keep & (p.frame <= 0.5) & (p.rim > RIM_DARK),  # (past_table's own first test)
                    lambda among, table: past_table(patches, p, among, table, MIN_CONTRAST),
                )
                if past.any():
                    p = p.with_rows(np.flatnonzero(past), presence(patches[past]))
                    keep |= past
            if (keep != strong).any():
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
        # a green cube on green felt shows its own shape, a hole the table framed by the walls around it
        known = default_prototypes(edition(tileset)) if shapes is None else shapes
        return without_side_faces(without_holes(located, shapes=known), cut)
    # a hole in a layout of flat tiles too shows the table framed by its four neighbours' bodies: on three
    # rendered sets (colour-blind, tilt 20° and 35°, seed 31) 97 of 106 such holes had paint as close to the
    # table's, and 1 of 655 tiles ringed by four others (a green starburst on green felt in dim light)
    if tileset not in HOLES_BY_COLOUR:
        return located
    # a tile of the table's own colour (green on green felt) shows its own shape, the table a blunt square
    return without_holes(located, shapes=default_prototypes(edition(tileset)))


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


def _faint(patches: np.ndarray, p: Presence, among: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which of the detector's candidates ``among`` (N,) bool (their patches (N, S, S, 3) and
    :func:`presence` ``p``), whose paint stands out less than MIN_CONTRAST but more than FAINT with a
    symbol's dark rim, size and place in the cell, hold a tile: a whole symbol (:func:`whole`) whose paint
    is not the ``table``'s (3,) BGR colour."""
    m = measure(patches[among], p.take(among))
    taken = among.copy()
    taken[among] = whole(m) & unlike(m.paint, table)
    return taken


def _against_table(
    work: np.ndarray,
    lattice: Lattice,
    cells: np.ndarray,
    among: np.ndarray,
    taken: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Which of the candidates ``among`` (N,) bool ``taken(among, table)`` takes, given the table's colour
    (3,) BGR read around the tiles of ``cells`` (K, 2): none where none is among them, or where the table's
    colour is not known (:func:`vision.paint_checks.table_colour`; it is read only where needed)."""
    among = np.asarray(among)
    if not among.any():
        return among
    table = table_colour(work, lattice, cells)
    return np.zeros_like(among) if table is None else taken(among, table)


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
    (:func:`vision.probe_look._beyond_seam`; Qwirkle Cubes)."""
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
        steady = within_cells(guess, lattice.point(probe.astype(np.float64)), axes, STEADY)
        rows, where, patch, m = look(
            located.work,
            guess,
            axes,
            apart=_unclaimed(located.apart, centres, 0.5 * lattice.pitch),
            table=paint_table,
            least=least,
            steady=steady,
            away=away_from(cells, probe, axes, steady) if seams else None,
            left_out=located.left_out,
        )
        if located.shields is not None:
            rows, where, patch, m = _with_shields(
                located.work,
                guess,
                axes,
                located.shields,
                (rows, where, patch, m),
                table=table,
                left_out=located.left_out,
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


def _with_shields(
    work: np.ndarray,
    predicted: np.ndarray,
    axes: np.ndarray,
    shields: Shields,
    seen: tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None],
    *,
    table: np.ndarray | None,
    left_out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Measurements | None]:
    """:func:`~vision.probe_look.look`'s answer ``seen`` with the Herkle tiles it refused that
    :func:`vision.shield_probes.whole_shields` takes (``table``: the table's colour (3,) BGR, or None), at
    their predicted centres (N, 2) or, where the shield seen there is off its cell's middle, centred on it
    (within RECENTRE cells), or where a black ordinary's shield lies around the last look
    (:func:`vision.shield_probes.searched`; not within LEFT_OUT_NEAR cells of a candidate the grid
    ``left_out`` (K, 2))."""
    rows, where, cut, m = seen
    rest = np.setdiff1d(np.arange(len(predicted)), rows)
    if len(rest) == 0:
        return seen
    guess = predicted[rest].copy()
    patches = _cut(work, guess, axes[rest])
    taken, centre, dark = whole_shields(patches, shields, table, guess, axes[rest])
    # a probe cut off its tile sees its shield off the middle, so not whole: look again centred on it (up
    # to PROBE_LOOKS times: a shield cut by the patch's edge shows only part of its offset)
    for _ in range(PROBE_LOOKS):
        again = np.flatnonzero(~taken & (np.abs(centre).max(axis=1) > 0))
        if not len(again):
            break
        guess[again] += np.einsum("nk,nkd->nd", centre[again], axes[rest[again]])
        patches[again] = _cut(work, guess[again], axes[rest[again]])
        taken[again], centre[again], dark[again] = whole_shields(
            patches[again], shields, table, guess[again], axes[rest[again]]
        )
        far = ~within_cells(guess, predicted[rest], axes[rest], RECENTRE)
        taken &= ~far
        centre[far] = 0
    # a black ordinary's shield the window cuts shows too little of its offset to recentre on: look around,
    # but not beside a candidate the grid left out (the group's rejoining places it)
    around = np.flatnonzero(~taken & dark & (np.abs(centre).max(axis=1) > 0))
    if len(around) and left_out is not None and len(left_out):
        pitch = lengths(axes[rest[around]]).mean(axis=1)
        around = around[distances(guess[around], left_out).min(axis=1) > LEFT_OUT_NEAR * pitch]
    if len(around):
        found, at, cut_at = searched(
            work, guess[around], predicted[rest[around]], axes[rest[around]], shields, table, within=RECENTRE
        )
        taken[around[found]] = True
        guess[around[found]] = at[found]
        patches[around[found]] = cut_at[found]
    if not taken.any():
        return seen
    extra = measure(patches[taken])
    return (
        np.concatenate([rows, rest[taken]]),
        np.concatenate([where, guess[taken]]),
        np.concatenate([cut, patches[taken]]),
        extra if m is None else concat([m, extra]),
    )


def _unclaimed(points: np.ndarray, centres: np.ndarray, radius: float) -> np.ndarray:
    """The ``points`` (K, 2) further than ``radius`` pixels from every tile's centre (N, 2) found."""
    if len(points) == 0 or len(centres) == 0:
        return points
    gap = distances(points, centres).min(axis=1)
    return np.asarray(points[gap > radius])


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
