"""Reading a photo of the table into a grid of tiles: :func:`read_table` and :func:`measure_tiles`.

The steps, all on a working copy of the frame shrunk by a whole factor (a tile stays TILE_PX wide or more):

1. find symbol candidates (:mod:`vision.detect`) and fit the grid through them (:mod:`vision.lattice`);
2. cut one patch per occupied cell and per empty cell next to one (a symbol the detector missed, for
   instance one whose tip touches its tile's edge, is found there) and measure them
   (:mod:`vision.patches`, :mod:`vision.features`);
3. name colours and shapes against the prototypes (:mod:`vision.classify`);
4. look for something lying over the table next to the tiles (:mod:`vision.occlusion`);
5. with a printed board, register the grid to the board's printed start tiles to report board cells.

Whatever cannot be named with confidence goes to ``uncertain`` with the reason: ``out-of-frame``,
``glare``, ``blur``, ``occluded`` (something that is not a tile covers the symbol or the cell) or
``low-confidence``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from table import Board, Layout, PlacedTile, Tile, TileSet
from table.register import register
from vision.classify import Named, classify
from vision.detect import Blobs, find_blobs, strength
from vision.features import MAX_REACH, Measurements, measure, presence
from vision.geometry import local_axes
from vision.lattice import Lattice, cell_keys, fit_lattice
from vision.occlusion import covered_cells
from vision.patches import PATCH, inside_fraction
from vision.patches import cut_patches as _cut
from vision.prototypes import Prototypes, default_prototypes, white_balance
from vision.reading import Reading, ReadTile, Uncertain

#: The working copy's longer side on the first pass, and the least tile width it is shrunk to (by a
#: whole factor: INTER_AREA is fastest on them, and the patches are cut at 32 pixels a cell anyway).
FIRST_PASS = 700
TILE_PX = 28.0
#: Below this confidence a tile is reported as uncertain, not read.
MIN_CONFIDENCE = 0.6
#: A tile further than this many spreads from every colour or shape prototype is not trusted.
MAX_FIT = 5.0
#: A patch whose paint stands out less than this from its body holds no tile.
MIN_CONTRAST = 0.7
#: How many times the cells next to the tiles found so far are probed for tiles the detector missed (a
#: row of missed tiles is found one cell further each time; it stops early when nothing new shows).
PROBE_ROUNDS = 8


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


def read_table(
    image: np.ndarray,
    *,
    tileset: TileSet,
    layout: Layout | None = None,
    calibration: Prototypes | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> Reading:
    """Read every tile on the table in one frame.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The frame, BGR channel order.
    tileset : TileSet
        The edition's tiles (:func:`table.tileset`).
    layout : Layout, optional
        A printed board (Qwirkle Connect): cells are then board cells, registered on its start tiles.
    calibration : Prototypes, optional
        Colour and shape prototypes learned under the user's light; default: the tile set's own.
    min_confidence : float
        Tiles named with less confidence are reported as uncertain.

    Returns
    -------
    Reading
        ``geometry`` holds ``cell_to_image`` (3×3, cell centre ``(row, col, 1)`` to image ``(row, col)``
        pixels, homogeneous), ``homography`` (the same in the overlay's form: a cell corner
        ``(col, row, 1)``, cell ``(r, c)`` spanning ``r..r+1``, to image ``(x, y, w)``), ``angle``
        (degrees the grid is turned, clockwise on screen: the game service registers readings under
        quarter turns), ``pitch`` (pixels per cell at the middle of the tiles) and ``scale`` (of the
        working copy).
    """
    started = time.perf_counter()
    _check_image(image)
    prototypes = calibration or default_prototypes(tileset)
    if layout is None:
        located = locate(image)
        if located is None:
            return Reading((), (), _ms(started), {})
        gains = white_balance(located.measured.body)
        named = classify(located.measured, gains, prototypes)
        origin = located.cells.min(axis=0)
        tiles, uncertain = _decide(located, named, located.cells - origin, None, min_confidence)
        covered = covered_cells(located.work, located.lattice, located.cells, gains) - origin
        uncertain = _with_covered(tiles, uncertain, covered)
        return Reading(tuple(tiles), tuple(uncertain), _ms(started), _geometry(located, None))
    found = _registered(image, layout.start_tiles, prototypes)
    if found is None:
        return Reading((), (), _ms(started), {})
    located, named, transform = found
    if transform is None:
        lost = tuple(Uncertain(int(r), int(c), "unregistered") for r, c in located.cells)
        return Reading((), lost, _ms(started), _geometry(located, None))
    cells = _apply(transform, located.cells)
    tiles, unsure = _decide(located, named, cells, layout, min_confidence)
    gains = white_balance(located.measured.body)
    covered = covered_cells(located.work, located.lattice, located.cells, gains)
    on_board = [c for c in _apply(transform, covered) if layout.contains((int(c[0]), int(c[1])))]
    unsure = _with_covered(tiles, unsure, np.array(on_board, np.int64).reshape(-1, 2))
    return Reading(tuple(tiles), tuple(unsure), _ms(started), _geometry(located, transform))


def measure_tiles(
    image: np.ndarray, known: Board, *, tileset: TileSet, calibration: Prototypes | None = None
) -> tuple[Measurements, list[Tile], np.ndarray]:
    """Measure the tiles of a photo whose tiles are known (what calibration learns from).

    The photo is read with ``calibration`` (default: the tile set's prototypes), the grid registered onto
    ``known`` (quarter turns and a shift that put the most read tiles on equal known tiles; pass a
    layout's ``start_tiles`` or a whole known board, in board cells), and every read cell where
    ``known`` has a tile is measured.

    Returns
    -------
    measurements : Measurements
        One row per matched tile.
    tiles : list of Tile
        The known tile of each row.
    cells : ndarray, shape (N, 2), int
        Their cells in ``known``'s coordinates.

    Raises
    ------
    ValueError
        No tiles seen, or the reading cannot be placed on ``known``.
    """
    _check_image(image)
    found = _registered(image, known, calibration or default_prototypes(tileset))
    if found is None or found[2] is None:
        raise ValueError("cannot find the known tiles in the photo")
    located, transform = found[0], found[2]
    cells = _apply(transform, located.cells)
    rows = [i for i, (r, c) in enumerate(cells) if (int(r), int(c)) in known]
    tiles = [known[(int(cells[i, 0]), int(cells[i, 1]))] for i in rows]
    keep = np.array(rows, np.int64)
    return located.measured.take(keep), tiles, cells[keep].reshape(-1, 2)


Transform = tuple[int, tuple[int, int], int]


def _registered(
    image: np.ndarray, known: Board, prototypes: Prototypes
) -> tuple[Located, Named, Transform | None] | None:
    """Locate and name the tiles, and register them onto known tiles (a printed board's start tiles).

    A printed start has no two tiles side by side, so when few known tiles are found the grid is fitted
    again taking the closest tiles as diagonal neighbours, and the better registration wins.
    """
    best: tuple[Located, Named, Transform | None] | None = None
    found = candidates(image)
    if found is None:
        return None
    work, scale, blobs, lattice = found
    for diagonal in (False, True):
        if diagonal:
            lattice = fit_lattice(blobs.centres, blobs.extents, diagonal=True)
        located = _occupied(work, scale, blobs, lattice)
        if located is None:
            continue
        named = classify(located.measured, white_balance(located.measured.body), prototypes)
        transform = _register(located, named, known)
        if best is None or (transform is not None and (best[2] is None or transform[2] > best[2][2])):
            best = (located, named, transform)
        if best[2] is not None and best[2][2] * 2 >= len(known):
            break
    return best


def locate(image: np.ndarray, *, diagonal: bool = False) -> Located | None:
    """Find the grid and the occupied cells, and measure them (None when no tile is seen).

    ``diagonal``: take the closest tiles to be diagonal neighbours (see :func:`vision.lattice.fit_lattice`).
    """
    found = candidates(image)
    if found is None:
        return None
    work, scale, blobs, lattice = found
    if diagonal:
        lattice = fit_lattice(blobs.centres, blobs.extents, diagonal=True)
    return _occupied(work, scale, blobs, lattice)


def candidates(image: np.ndarray) -> tuple[np.ndarray, float, Blobs, Lattice] | None:
    """The working copy (the frame shrunk by the largest whole factor that leaves a tile TILE_PX wide),
    its scale, the symbol candidates in it and the lattice fitted to them (side neighbours nearest)."""
    h, w = image.shape[:2]
    scale = 1.0 / max(1, round(max(h, w) / FIRST_PASS))
    work = _resize(image, scale)
    blobs = find_blobs(strength(work)).typical()
    if len(blobs) == 0:
        return None
    lattice = fit_lattice(blobs.centres, blobs.extents)
    if lattice.pitch < 0.9 * TILE_PX or lattice.pitch >= 2 * TILE_PX:
        better = 1.0 / max(1, int(lattice.pitch / (scale * TILE_PX)))
        if better != scale:
            scale = better
            work = _resize(image, scale)
            blobs = find_blobs(strength(work)).typical()
            if len(blobs) == 0:
                return None
            lattice = fit_lattice(blobs.centres, blobs.extents)
    return work, scale, blobs, lattice


def _occupied(work: np.ndarray, scale: float, blobs: Blobs, lattice: Lattice) -> Located | None:
    """Measure the cells of the placed candidates, then look for missed tiles next to them."""
    cells = lattice.cells[lattice.placed]
    centres = blobs.centres[lattice.placed]
    axes = local_axes(lattice.homography, cells.astype(np.float64))
    patches = _cut(work, centres, axes)
    p = presence(patches)
    keep = (p.contrast > MIN_CONTRAST) & (p.reach < MAX_REACH)
    cells, centres, patches = cells[keep], centres[keep], patches[keep]
    if len(cells) == 0:
        return None
    measured = [measure(patches, p.take(keep))]
    tried = cells.copy()
    for _ in range(PROBE_ROUNDS):
        probe, guess = _neighbours(lattice, cells, centres, tried)
        if len(probe) == 0:
            break
        tried = np.concatenate([tried, probe])
        paxes = local_axes(lattice.homography, probe.astype(np.float64))
        # a coarse first look (a quarter of the pixels) at every probe, a full one where paint shows
        first = presence(_cut(work, guess, paxes, size=PATCH // 2))
        hopeful = first.contrast > MIN_CONTRAST
        if not hopeful.any():
            break
        # recentre on the symbol found, then look again
        probe, paxes = probe[hopeful], paxes[hopeful]
        guess = guess[hopeful] + np.einsum("nk,nkd->nd", first.offset[hopeful], paxes)
        again = _cut(work, guess, paxes)
        second = presence(again)
        found = second.found(MIN_CONTRAST)
        if not found.any():
            break
        cells = np.concatenate([cells, probe[found]])
        centres = np.concatenate([centres, guess[found]])
        patches = np.concatenate([patches, again[found]])
        measured.append(measure(again[found], second.take(found)))
    m = measured[0] if len(measured) == 1 else _concat(measured)
    return Located(work, scale, lattice, cells, centres, patches, m)


def _neighbours(
    lattice: Lattice, cells: np.ndarray, centres: np.ndarray, tried: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cells not ``tried`` (K, 2) yet next to occupied ones (sides and corners), and where to look for
    them (the grid's prediction moved by the neighbours' own offsets from it, which follows a drifting
    row)."""
    residual = centres - lattice.point(cells.astype(np.float64))
    around = (cells[:, None, :] + _AROUND[None]).reshape(-1, 2)
    source = np.repeat(np.arange(len(cells)), len(_AROUND))
    fresh = ~np.isin(cell_keys(around), cell_keys(tried))
    if not fresh.any():
        return np.zeros((0, 2), np.int64), np.zeros((0, 2))
    keys, which = np.unique(around[fresh], axis=0, return_inverse=True)
    which = which.reshape(-1)
    shift = np.zeros((len(keys), 2))
    np.add.at(shift, which, residual[source[fresh]])
    shift /= np.bincount(which, minlength=len(keys))[:, None]
    return keys.astype(np.int64), lattice.point(keys.astype(np.float64)) + shift


_AROUND = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], np.int64)


def _concat(parts: list[Measurements]) -> Measurements:
    return Measurements(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in Measurements.__dataclass_fields__)
    )


def _register(located: Located, named: Named, known: Board) -> Transform | None:
    """Quarter turns and shift taking the reader's cells onto ``known``'s, and how many known tiles that
    finds again (None when fewer than three, or no more than the conflicts)."""
    if not known:
        return None
    confident = named.confidence >= MIN_CONFIDENCE
    seen = Board.of(
        PlacedTile(int(r), int(c), Tile(col, shp))
        for (r, c), col, shp, ok in zip(located.cells, named.colours, named.shapes, confident, strict=True)
        if ok
    )
    motion = register(known, seen)
    if motion.matched < min(3, len(known)) or motion.matched <= motion.conflicts:
        return None
    return motion.turns, motion.shift, motion.matched


def _apply(transform: Transform, cells: np.ndarray) -> np.ndarray:
    from table.board import transform_cell

    turns, shift, _ = transform
    return np.array([transform_cell((int(r), int(c)), shift=shift, turns=turns) for r, c in cells], np.int64)


def _decide(
    located: Located, named: Named, cells: np.ndarray, layout: Layout | None, min_confidence: float
) -> tuple[list[ReadTile], list[Uncertain]]:
    m = located.measured
    axes = local_axes(located.lattice.homography, located.cells.astype(np.float64))
    inside = inside_fraction(located.work.shape[:2], located.centres, axes)
    sharp = float(np.median(m.sharpness)) if len(m) else 0.0
    tiles: list[ReadTile] = []
    uncertain: list[Uncertain] = []
    for i, (r, c) in enumerate(cells):
        cell = (int(r), int(c))
        conf = float(named.confidence[i])
        reason = None
        if layout is not None and not layout.contains(cell):
            if named.colour_fit[i] > MAX_FIT and named.shape_fit[i] > MAX_FIT:
                continue  # something off the board that is nothing like a tile: the table's edge
            reason = "off-board"
        elif inside[i] < 0.97:
            reason = "out-of-frame"
        elif m.glare[i] > 0.15:
            reason = "glare"
        elif conf < min_confidence or named.shape_fit[i] > MAX_FIT or named.colour_fit[i] > MAX_FIT:
            if m.sharpness[i] < 0.6 * sharp:
                reason = "blur"
            elif named.shape_fit[i] > MAX_FIT or m.frame[i] < 0.3:
                reason = "occluded"
            else:
                reason = "low-confidence"
        if reason is None:
            tile = Tile(named.colours[i], named.shapes[i])
            tiles.append(ReadTile(PlacedTile(cell[0], cell[1], tile), conf))
        else:
            uncertain.append(Uncertain(cell[0], cell[1], reason))
    return tiles, sorted(uncertain, key=lambda u: (u.row, u.col))


def _with_covered(tiles: list[ReadTile], uncertain: list[Uncertain], covered: np.ndarray) -> list[Uncertain]:
    """``uncertain`` plus an ``occluded`` entry for every covered cell not otherwise reported."""
    known = {t.placed.cell for t in tiles} | {(u.row, u.col) for u in uncertain}
    extra = [Uncertain(int(r), int(c), "occluded") for r, c in covered if (int(r), int(c)) not in known]
    return sorted([*uncertain, *extra], key=lambda u: (u.row, u.col))


def _geometry(located: Located, transform: Transform | None) -> dict[str, object]:
    """The overlay's geometry in full-frame pixels: the cell-to-image homography, angle and pitch."""
    back = np.diag([1 / located.scale, 1 / located.scale, 1.0])
    h = back @ located.lattice.homography
    if transform is not None:
        turns, (sr, sc), _ = transform
        # board cell -> reader cell: undo the shift, then turn back
        undo = np.array([[1.0, 0, -sr], [0, 1, -sc], [0, 0, 1]])
        turn = np.eye(3)
        for _ in range(turns % 4):
            turn = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]]) @ turn
        h = h @ turn @ undo
    else:
        shift = located.cells.min(axis=0)
        h = h @ np.array([[1.0, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]])
    h = h / h[2, 2]
    # the overlay's form: a cell corner (col, row, 1), cell (r, c) spanning r..r+1, to image (x, y, w)
    swap = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]])
    corner = swap @ h @ np.array([[1.0, 0, -0.5], [0, 1, -0.5], [0, 0, 1]]) @ swap
    return {
        "cell_to_image": np.round(h, 8).tolist(),
        "homography": np.round(corner / corner[2, 2], 8).tolist(),
        "angle": round(located.lattice.angle, 3),
        "pitch": round(located.lattice.pitch / located.scale, 3),
        "scale": round(located.scale, 5),
    }


def _resize(image: np.ndarray, scale: float) -> np.ndarray:
    if scale >= 0.999:
        return image
    h, w = image.shape[:2]
    size = (max(round(w * scale), 1), max(round(h * scale), 1))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def _check_image(image: object) -> None:
    if not isinstance(image, np.ndarray):
        raise TypeError(f"image must be a numpy array, got {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(
            f"image must be BGR uint8 of shape (H, W, 3), got shape {image.shape} dtype {image.dtype}"
        )
    if min(image.shape[:2]) < 16:
        raise ValueError(f"image is too small to read: {image.shape[1]}×{image.shape[0]} pixels")


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
