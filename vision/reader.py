"""Reading a photo of the table into a grid of tiles: :func:`read_table` and :func:`measure_tiles`.

The steps, all on a working copy of the frame shrunk by a whole factor (a tile stays TILE_PX wide or more):

1. find symbol candidates (:mod:`vision.detect`) and fit the grid through them (:mod:`vision.lattice`);
2. cut one patch per occupied cell and per empty cell next to one (a symbol the detector missed, for
   instance one whose tip touches its tile's edge, is found there) and measure them
   (:mod:`vision.occupied`, :mod:`vision.patches`, :mod:`vision.features`);
3. name colours and shapes against the prototypes (:mod:`vision.classify`);
4. look for something lying over the table next to the tiles (:mod:`vision.occlusion`);
5. with a printed board, register the grid to the board's printed start tiles to report board cells;
   groups the grid left out are read as parts of their own, each registered on the start tiles it holds;
6. a group still left out joins where the rules of the game allow it one place only (:mod:`vision.rejoin`).

Whatever cannot be named with confidence goes to ``uncertain`` with the reason: ``out-of-frame``,
``glare``, ``blur``, ``occluded`` (something that is not a tile covers the symbol or the cell) or
``low-confidence``.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from table import Board, Layout, PlacedTile, Tile, TileSet
from table.register import register
from vision.classify import classify
from vision.detect import Blobs
from vision.features import Measurements, concat
from vision.geometry import fit_homography, local_axes
from vision.lattice import AROUND, Lattice, cell_keys, fit_lattice
from vision.line_doubts import doubted
from vision.named import Named
from vision.occlusion import covered_cells
from vision.occupied import Located, occupied, probed
from vision.patches import FACE_SPAN, inside_fraction
from vision.probe_look import look
from vision.prototypes import Prototypes, default_prototypes, white_balance
from vision.reading import Reading, ReadTile, Uncertain
from vision.rejoin import rejoined, seen
from vision.symbol_candidates import candidates

#: Below this confidence a tile is reported as uncertain, not read.
MIN_CONFIDENCE = 0.6
#: A tile further than this many spreads from every colour or shape prototype is not trusted.
MAX_FIT = 5.0
#: With a printed board, the tiles are read in at most this many parts (see :func:`_registered`).
PARTS = 6
#: A registration onto known tiles finds more than this many times as many as it contradicts.
AGREEMENT = 2


def read_table(
    image: np.ndarray,
    *,
    tileset: TileSet,
    layout: Layout | None = None,
    calibration: Prototypes | None = None,
    min_confidence: float = MIN_CONFIDENCE,
    min_colour_confidence: float = 0.0,
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
    min_colour_confidence : float
        Tiles whose colour is named with less confidence are reported as uncertain too (to read a frame
        with its shapes' guesses only, ``min_confidence`` 0, as :mod:`calibration.denoise` does).

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
        spotted = candidates(image, tileset=tileset.name)
        first = None if spotted is None else occupied(*spotted, tileset=tileset.name, shapes=prototypes)
        if spotted is None or first is None:
            return Reading((), (), _ms(started), {})
        named = classify(first.measured, white_balance(first.measured.body), prototypes)
        # the groups the grid left out join where the rules of the game put them
        located, named = rejoined(first, named, spotted[2], prototypes, tileset=tileset.name)
        named = doubted(
            named, located.cells, located.measured, prototypes, least=min_confidence, max_fit=MAX_FIT
        )
        gains = white_balance(located.measured.body)
        origin = located.cells.min(axis=0)
        tiles, uncertain = _decide(
            located, named, located.cells - origin, None, (min_confidence, min_colour_confidence)
        )
        covered = covered_cells(located.work, located.lattice, located.cells, gains) - origin
        uncertain = _with_covered(tiles, uncertain, covered)
        return Reading(tuple(tiles), tuple(uncertain), _ms(started), _geometry(located, None, image.shape))
    found = _registered(image, layout.start_tiles, prototypes)
    if found is None:
        return Reading((), (), _ms(started), {})
    located, named, transform = found
    if transform is None:
        lost = tuple(Uncertain(int(r), int(c), "unregistered") for r, c in located.cells)
        return Reading((), lost, _ms(started), _geometry(located, None, image.shape))
    cells = _apply(transform, located.cells)
    named = doubted(named, cells, located.measured, prototypes, least=min_confidence, max_fit=MAX_FIT)
    tiles, unsure = _decide(located, named, cells, layout, (min_confidence, min_colour_confidence))
    gains = white_balance(located.measured.body)
    covered = covered_cells(located.work, located.lattice, located.cells, gains)
    on_board = [c for c in _apply(transform, covered) if layout.contains((int(c[0]), int(c[1])))]
    unsure = _with_covered(tiles, unsure, np.array(on_board, np.int64).reshape(-1, 2))
    return Reading(tuple(tiles), tuple(unsure), _ms(started), _geometry(located, transform, image.shape))


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
    again taking the closest tiles as diagonal neighbours, and the better registration wins. Groups the
    grid left out (far apart on the board, beyond what one grid fitted through the others can place
    safely) are then read one by one as parts of their own, each kept only when it registers on the known
    tiles by itself, under the same quarter turns and on cells no other part has.
    """
    found = candidates(image, tileset=prototypes.tileset, shields=False)
    if found is None:
        return None
    work, scale, blobs, lattice = found
    part = _registered_part(work, scale, blobs, lattice, known, prototypes)
    if part is None:
        return None
    first = part
    pitch = part[0].lattice.pitch
    parts: list[Located] = []
    transform: Transform | None = None
    matched = 0
    alone_named = part[1]
    left = np.ones(len(blobs), bool)
    for _ in range(PARTS):
        located, named, moved = part
        left &= ~seen(blobs.centres, located.centres, pitch)
        if moved is not None and transform is None:
            parts, transform, matched, alone_named = [located], moved, moved[2], named
        elif moved is not None and transform is not None and moved[0] == transform[0]:
            # a part's probes may find again tiles of the parts before
            taken = np.concatenate([p.centres for p in parts])
            piece = located.take(~seen(located.centres, taken, pitch))
            cells = _to_reader(moved, transform, piece.cells)
            if not np.isin(cell_keys(cells), cell_keys(np.concatenate([p.cells for p in parts]))).any():
                parts.append(replace(piece, cells=cells))
                matched += moved[2]
        if left.sum() < 2:
            break
        rest = blobs.take(left)
        alone = fit_lattice(rest.centres, rest.extents, join=False)
        found_part = _registered_part(work, scale, rest, alone, known, prototypes, join=False)
        if found_part is None:
            break
        part = found_part
    if transform is None:
        return first
    located = parts[0]
    if len(parts) > 1:
        located = replace(
            located,
            cells=np.concatenate([p.cells for p in parts]),
            centres=np.concatenate([p.centres for p in parts]),
            patches=np.concatenate([p.patches for p in parts]),
            measured=concat([p.measured for p in parts]),
        )
    grown = _on_known(located, transform, known, prototypes)
    if grown is located and len(parts) == 1:
        named = alone_named
    else:
        named = classify(grown.measured, white_balance(grown.measured.body), prototypes)
    # what no part registered joins where the rules of the game put it
    joined, named = rejoined(grown, named, blobs, prototypes)
    if joined is located:
        return located, named, transform
    return joined, named, (transform[0], transform[1], matched)


def _on_known(located: Located, transform: Transform, known: Board, prototypes: Prototypes) -> Located:
    """``located`` and the tiles found on the known cells (a printed board's start tiles) not read yet.

    Each is looked at where the grid through all the read tiles puts it, and kept only when it is named
    as the tile the board prints there (a start tile never leaves its cell; a tile named otherwise is
    not trusted); the cells next to the ones kept are then probed as usual.
    """
    read = {(int(r), int(c)) for r, c in _apply(transform, located.cells)}
    missing = np.array([c for c in known if c not in read], np.int64).reshape(-1, 2)
    if len(missing) == 0:
        return located
    seeds = _to_reader((0, (0, 0), 0), transform, missing)
    h = fit_homography(
        located.cells.astype(np.float64), located.centres, tolerance=0.3 * located.lattice.pitch
    )
    lattice = replace(located.lattice, homography=h)
    where = seeds.astype(np.float64)
    rows, centres, patches, m = look(located.work, lattice.point(where), local_axes(h, where))
    if m is None:
        return located
    both = concat([located.measured, m])
    named = classify(both, white_balance(both.body), prototypes)
    k = len(located.cells) + np.arange(len(rows))
    want = [known[(int(r), int(c))] for r, c in missing[rows]]
    agree = np.array(
        [
            named.colours[i] == t.colour
            and named.shapes[i] == t.shape
            and named.confidence[i] >= MIN_CONFIDENCE
            for i, t in zip(k, want, strict=True)
        ]
    )
    if not agree.any():
        return located
    grown = replace(
        located,
        lattice=lattice,
        cells=np.concatenate([located.cells, seeds[rows][agree]]),
        centres=np.concatenate([located.centres, centres[agree]]),
        patches=np.concatenate([located.patches, patches[agree]]),
        measured=concat([located.measured, m.take(agree)]),
    )
    # the cells next to the tiles read before were probed then
    around = (located.cells[:, None, :] + AROUND[None]).reshape(-1, 2)
    return probed(grown, np.concatenate([located.cells, around, seeds]))


def _registered_part(  # noqa: PLR0917 (one step of _registered, passed its state)
    work: np.ndarray,
    scale: float,
    blobs: Blobs,
    lattice: Lattice,
    known: Board,
    prototypes: Prototypes,
    *,
    join: bool = True,
) -> tuple[Located, Named, Transform | None] | None:
    """The tiles on ``lattice`` (or, if it registers better, on the lattice taking the closest tiles as
    diagonal neighbours), named and registered onto ``known``."""
    best: tuple[Located, Named, Transform | None] | None = None
    for diagonal in (False, True):
        if diagonal:
            lattice = fit_lattice(blobs.centres, blobs.extents, diagonal=True, join=join)
        located = occupied(work, scale, blobs, lattice)
        if located is None:
            continue
        named = classify(located.measured, white_balance(located.measured.body), prototypes)
        transform = _register(located, named, known, alone=not join)
        if best is None or (transform is not None and (best[2] is None or transform[2] > best[2][2])):
            best = (located, named, transform)
        if best[2] is not None and best[2][2] * 2 >= len(known):
            break
    return best


def _to_reader(part: Transform, main: Transform, cells: np.ndarray) -> np.ndarray:
    """A part's cells (N, 2) in the main part's reader cells: onto the board by the part's transform,
    back by the main one's (the two share their quarter turns)."""
    board = _apply(part, cells)
    turns, (sr, sc), _ = main
    back = (-turns) % 4
    return _apply((back, (0, 0), 0), board - np.array([sr, sc]))


def locate(
    image: np.ndarray, *, diagonal: bool = False, tileset: str | None = None, shields: bool = True
) -> Located | None:
    """Find the grid and the occupied cells, and measure them (None when no tile is seen).

    ``diagonal``: take the closest tiles to be diagonal neighbours (see :func:`vision.lattice.fit_lattice`).
    ``tileset``: the edition's name (Herkle's tiles are found by their shields, or with ``shields`` False
    by their pieces of paint: see :func:`vision.symbol_candidates.candidates`).
    """
    found = candidates(image, tileset=tileset, shields=shields)
    if found is None:
        return None
    work, scale, blobs, lattice = found
    if diagonal:
        lattice = fit_lattice(blobs.centres, blobs.extents, diagonal=True)
    return occupied(work, scale, blobs, lattice)


def _register(located: Located, named: Named, known: Board, *, alone: bool = False) -> Transform | None:
    """Quarter turns and shift taking the reader's cells onto ``known``'s, and how many known tiles that
    finds again (None when fewer than three, or no more than AGREEMENT times the known tiles it contradicts:
    a few misnamed tiles can line up with the known ones by chance). A group read ``alone`` (a part of the
    board's tiles) may find as few as two known tiles when none of its tiles conflicts."""
    if not known:
        return None
    confident = (named.confidence >= MIN_CONFIDENCE).tolist()
    seen = Board.of(
        PlacedTile(r, c, Tile(col, shp))
        for (r, c), col, shp, ok in zip(
            np.asarray(located.cells, np.int64).tolist(), named.colours, named.shapes, confident, strict=True
        )
        if ok
    )
    motion = register(known, seen)
    enough = motion.matched >= min(3, len(known)) or (alone and motion.matched == 2 and not motion.conflicts)
    if not enough or motion.matched <= AGREEMENT * motion.conflicts:
        return None
    return motion.turns, motion.shift, motion.matched


def _apply(transform: Transform, cells: np.ndarray) -> np.ndarray:
    from table.board import transform_cell

    turns, shift, _ = transform
    whole = np.asarray(cells, np.int64).tolist()
    moved = [transform_cell((r, c), shift=shift, turns=turns) for r, c in whole]
    return np.array(moved, np.int64).reshape(-1, 2)


def _decide(
    located: Located,
    named: Named,
    cells: np.ndarray,
    layout: Layout | None,
    least: tuple[float, float],
) -> tuple[list[ReadTile], list[Uncertain]]:
    """The tiles named with at least ``least`` (confidence, colour confidence) and fits within MAX_FIT,
    and the other cells as uncertain, with why."""
    m = located.measured
    axes = local_axes(located.lattice.homography, located.cells.astype(np.float64))
    inside = inside_fraction(located.work.shape[:2], located.centres, axes, span=FACE_SPAN)
    sharp = float(np.median(m.sharpness)) if len(m) else 0.0
    # every test on whole arrays, then one pass over plain lists (per-tile NumPy scalars are slow)
    shape_off, colour_off = named.shape_fit > MAX_FIT, named.colour_fit > MAX_FIT
    unsure = (named.confidence < least[0]) | (named.colour_confidence < least[1]) | shape_off | colour_off
    reasons = np.select(
        [
            inside < 0.97,
            m.glare > 0.15,
            unsure & (m.sharpness < 0.6 * sharp),
            unsure & (shape_off | (m.frame < 0.3)),
            unsure,
        ],
        ["out-of-frame", "glare", "blur", "occluded", "low-confidence"],
        "",
    ).tolist()
    nothing = (shape_off & colour_off).tolist()
    tiles: list[ReadTile] = []
    uncertain: list[Uncertain] = []
    for (r, c), why, off, colour, shape, conf in zip(
        np.asarray(cells, np.int64).tolist(),
        reasons,
        nothing,
        named.colours,
        named.shapes,
        named.confidence.tolist(),
        strict=True,
    ):
        if layout is not None and not layout.contains((r, c)):
            if off:
                continue  # something off the board that is nothing like a tile: the table's edge
            why = "off-board"  # noqa: PLW2901 (the board's verdict comes first)
        if why:
            uncertain.append(Uncertain(r, c, why))
        else:
            tiles.append(ReadTile(PlacedTile(r, c, Tile(colour, shape)), conf))
    return tiles, sorted(uncertain, key=lambda u: (u.row, u.col))


def _with_covered(tiles: list[ReadTile], uncertain: list[Uncertain], covered: np.ndarray) -> list[Uncertain]:
    """``uncertain`` plus an ``occluded`` entry for every covered cell not otherwise reported."""
    known = {t.placed.cell for t in tiles} | {(u.row, u.col) for u in uncertain}
    extra = [Uncertain(int(r), int(c), "occluded") for r, c in covered if (int(r), int(c)) not in known]
    return sorted([*uncertain, *extra], key=lambda u: (u.row, u.col))


def _geometry(located: Located, transform: Transform | None, shape: tuple[int, ...]) -> dict[str, object]:
    """The overlay's geometry in the pixels of the frame (``shape`` (H, W, ...)): the cell-to-image
    homography, angle and pitch."""
    # the working copy's pixel (r, c) is the mean of a block of the frame's whose middle is at
    # ((r + 0.5)·k - 0.5, (c + 0.5)·k - 0.5), k the ratio of the two sizes along each axis (a whole factor
    # only where the frame's side is a multiple of it)
    k = np.array(shape[:2], np.float64) / located.work.shape[:2]
    back = np.array([[k[0], 0, (k[0] - 1) / 2], [0, k[1], (k[1] - 1) / 2], [0, 0, 1]])
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
        "pitch": round(located.lattice.pitch * float(k.mean()), 3),
        "scale": round(located.scale, 5),
    }


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
