"""Whether what a probe sees is a tile's paint: not the table's colour, a whole symbol, the same colour in
the symbol's middle as measured (:mod:`vision.occupied` takes faint paint and paint without a dark frame
only where these hold), and the table's colour read around the tiles.
"""

from __future__ import annotations

import numpy as np

from vision.classify import ASYMMETRY_SPREAD
from vision.features import Measurements
from vision.geometry import local_axes
from vision.lattice import AROUND, Lattice, among, cell_keys
from vision.outline import asymmetry, harmonics
from vision.patch_masks import patch_grid
from vision.patches import cut_patches as _cut

#: Paint whose chromaticity (B, G, R over their sum) lies within this of the table's is taken for the
#: table (the tiles' paints are saturated: their chromaticities lie further than this from any table's).
TABLE_CHROMA = 0.1
#: Paint whose chromaticity lies within this of the table's is the table itself, seen through a hole in the
#: layout (on the rendered Cubes set such holes lie within 0.03 of the table, differing by shading only,
#: while 1 in 5,956 right tiles lies this close).
HOLE_CHROMA = 0.05
#: A probe's patch shows the table past a tile's body only in a band this many cells wide along its edge
#: (a tile at the layout's corner, smaller than its cell or a little off the probe's middle).
PAST = 0.125
#: A patch whose paint stands out less than this from its body holds no tile...
MIN_CONTRAST = 0.7
#: ...unless its paint stands out more than this, shows a whole symbol and is not the table's colour, in a
#: frame whose grid holds its tiles (:func:`vision.occupied._held`). Between the two, on the rendered classic
#: and colour-blind sets, 64 of the 65 empty cells that pass every other test show the table's colour (a hole
#: in the layout ringed by the neighbours' bodies), and 53 of the 56 tiles show paint of another colour.
FAINT = 0.6
#: A cube's side face seen in the cell in front of it (:func:`vision.cube_faces.without_side_faces`) shows
#: a symbol of its top face's colour (chromaticities within this of each other, under half the gap between
#: the nearest two paints, red and orange, 0.175: a side face's darker paint reads further off its top
#: face's than another top of that colour does)...
SIDE_CHROMA = 0.08
#: ...lit less than the top face, its paint at most this fraction as bright (light from above falls aslant
#: on a side face: on the rendered Cubes set the side faces read as tiles lay at 0.43-0.80 of their top
#: face, while 3 in 100 true tiles beside one of their colour are this much darker)...
SIDE_SHADE = 0.85
#: ...and squashed, seen aslant: the second harmonic of its outline's radial profile at least this, in
#: fractions of its mean radius (a whole symbol has none; 5 in 100 true top faces reach 0.057 and 1 in 20
#: side faces read as tiles lies below)...
SIDE_SQUASH = 0.045
#: ...where the camera leans towards it from the cube: its cell seen at least this much larger along that
#: step than the cube's own (the side faces a camera sees are the cubes' near ones)...
SIDE_LEAN = 1.01
#: ...at 30° or more there (the cell's axes foreshortened to this, cos 30°): nearer the vertical a side
#: face's symbol is squashed to under tan 30° = 0.58 of its width, flatter than the detector's ISOTROPY
#: lets a symbol be (0.63).
SIDE_TILT = 0.866


def chroma_gap(paint: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Distance (N,) between the chromaticities of colours (N, 3) and the table's (3,), or each colour's
    own (N, 3)."""
    c = paint / np.maximum(paint.sum(axis=1, keepdims=True), 1.0)
    t = table / np.maximum(table.sum(axis=-1, keepdims=True), 1.0)
    return np.asarray(np.linalg.norm(c - t, axis=1))


def whole(m: Measurements) -> np.ndarray:
    """Which measured patches (N,) show a whole symbol: its outline no further from a fourfold symmetry
    than whole symbols lie (two spreads of :data:`vision.classify.ASYMMETRY_SPREAD`; the symbol on a
    cube's side face seen aslant is squashed)."""
    return np.asarray(asymmetry(m.radial) <= 2 * ASYMMETRY_SPREAD)


def squash(m: Measurements) -> np.ndarray:
    """How squashed each measured symbol (N,) is: the size of its outline's second harmonic, in fractions
    of its mean radius (a cube's side face seen aslant shows its symbol squashed along the cube's edge;
    every whole symbol has a fourfold symmetry, so holds none)."""
    return np.asarray(np.abs(harmonics(m.radial, (2,))[0]))


def unlike(paint: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which paint colours (N, 3) BGR are not the table's (3,)."""
    return np.asarray(chroma_gap(paint, table) > TABLE_CHROMA)


def pure(patches: np.ndarray, paint: np.ndarray) -> np.ndarray:
    """Which patches (N, S, S, 3) show their measured ``paint`` (N, 3) BGR in the symbol's middle (the lit
    pixels of the middle quarter of the patch's side each way, those whose paint strength lies above
    halfway between its least and most there; chromaticities within TABLE_CHROMA): a frame lit by a
    neighbour's paint or by the table past the body mixes them into the paint measured. (Only the lit
    pixels: the colour-blind edition's inner mark shows the black body in the middle.)"""
    n, s = patches.shape[:2]
    middle = patches[:, 3 * s // 8 : s - 3 * s // 8, 3 * s // 8 : s - 3 * s // 8].reshape(n, -1, 3)
    pixels = middle.astype(np.float32)
    q = 2 * pixels.max(axis=2) - pixels.min(axis=2)
    lit = q >= (q.min(axis=1, keepdims=True) + q.max(axis=1, keepdims=True)) / 2
    mean = (pixels * lit[..., None]).sum(axis=1) / np.maximum(lit.sum(axis=1), 1)[:, None]
    return np.asarray(chroma_gap(paint, mean) <= TABLE_CHROMA)


def without_table(patches: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The patches (N, S, S, 3) uint8 BGR with the table seen in them (pixels of the ``table``'s (3,) BGR
    chromaticity, within TABLE_CHROMA, and at least half its brightness) painted the colour of their
    darkest quarter (the tile's body), and which of them (N,) show the table only past a tile's body: in
    the band along the patch's edge (PAST cells wide), the darkest quarter at most half as bright as the
    table (the table in a patch's middle is a hole in the layout, a symbol of its colour, or a cloth's
    pattern around a check, which is no tile's body)."""
    n, s = patches.shape[:2]
    pixels = patches.reshape(n, s * s, 3).astype(np.float32)
    total = pixels.sum(axis=2)
    bright = float(np.sum(table))
    chroma = pixels / np.maximum(total, 1.0)[..., None]
    seen = np.linalg.norm(chroma - table / max(bright, 1.0), axis=2) <= TABLE_CHROMA
    seen &= total >= 0.5 * bright
    darkest = np.argsort(total, axis=1)[:, : s * s // 4]
    body = np.take_along_axis(pixels, darkest[..., None], axis=1).mean(axis=1)  # (N, 3)
    cleaned = np.where(seen[..., None], body[:, None, :], pixels).round().astype(np.uint8)
    inner = patch_grid(s).radius.reshape(-1) < 0.5 - PAST
    past = ~(seen & inner).any(axis=1) & (body.sum(axis=1) <= 0.5 * bright)
    return cleaned.reshape(patches.shape), np.asarray(past)


def table_colour(work: np.ndarray, lattice: Lattice, cells: np.ndarray) -> np.ndarray | None:
    """The table's colour (3,) BGR: the median over the cells two steps from the tiles (``cells`` (N, 2))
    inside the working copy of each one's middle (most of them are empty: a missed tile there weighs
    no more than one vote). None when fewer than three such cells are in view."""
    ring = np.array([(r, c) for r in range(-2, 3) for c in range(-2, 3) if max(abs(r), abs(c)) == 2])
    around = (cells[:, None, :] + ring[None]).reshape(-1, 2)
    near = (cells[:, None, :] + np.concatenate([AROUND, [[0, 0]]])[None]).reshape(-1, 2)
    # the distinct cells, sorted (keys sort as cells do)
    _, first = np.unique(cell_keys(around), return_index=True)
    around = around[first[~among(around[first], near)]]
    if len(around) == 0:
        return None
    where = around.astype(np.float64)
    axes = local_axes(lattice.homography, where)
    points = lattice.point(where)
    h, w = work.shape[:2]
    inside = (points[:, 0] >= 0) & (points[:, 0] < h) & (points[:, 1] >= 0) & (points[:, 1] < w)
    if inside.sum() < 3:
        return None
    middles = _cut(work, points[inside], axes[inside], size=4, span=0.3)
    return np.asarray(np.median(middles.reshape(len(middles), -1, 3).mean(axis=1), axis=0))
