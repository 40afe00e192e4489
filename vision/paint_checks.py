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
from vision.outline import asymmetry
from vision.patches import cut_patches as _cut

#: Paint whose chromaticity (B, G, R over their sum) lies within this of the table's is taken for the
#: table (the tiles' paints are saturated: their chromaticities lie further than this from any table's).
TABLE_CHROMA = 0.1
#: Paint whose chromaticity lies within this of the table's is the table itself, seen through a hole in the
#: layout (on the rendered Cubes set such holes lie within 0.03 of the table, differing by shading only,
#: while 1 in 5,956 right tiles lies this close).
HOLE_CHROMA = 0.05
#: A patch whose paint stands out less than this from its body holds no tile...
MIN_CONTRAST = 0.7
#: ...unless its paint stands out more than this, shows a whole symbol and is not the table's colour, in a
#: frame whose grid holds its tiles (:func:`vision.occupied._held`). Between the two, on the rendered classic
#: and colour-blind sets, 64 of the 65 empty cells that pass every other test show the table's colour (a hole
#: in the layout ringed by the neighbours' bodies), and 53 of the 56 tiles show paint of another colour.
FAINT = 0.6


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


def unlike(paint: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Which paint colours (N, 3) BGR are not the table's (3,)."""
    return np.asarray(chroma_gap(paint, table) > TABLE_CHROMA)


def pure(patches: np.ndarray, paint: np.ndarray) -> np.ndarray:
    """Which patches (N, S, S, 3) show their measured ``paint`` (N, 3) BGR in the symbol's middle (the
    middle quarter of the patch's side each way; chromaticities within TABLE_CHROMA): a frame lit by a
    neighbour's paint or by the table past the body mixes them into the paint measured."""
    s = patches.shape[1]
    middle = patches[:, 3 * s // 8 : s - 3 * s // 8, 3 * s // 8 : s - 3 * s // 8]
    return np.asarray(chroma_gap(paint, middle.reshape(len(patches), -1, 3).mean(axis=1)) <= TABLE_CHROMA)


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
