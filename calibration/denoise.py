"""A second look through a noise filter: reading frames of a dim light twice (calibrated reading only).

In a tenth of the light the camera's noise is a large part of what a faint symbol stands out by (a
green or purple symbol's paint stands a few tens of levels above its body, each pixel scatters by
several), so the outline measured on a patch is noisy and the reader leaves such tiles uncertain, or,
more rarely, names another shape. A 3×3 median filter takes most of that noise off and keeps the
symbols' edges: read through it (with prototypes learned through it), the rendered dim Connect game
names 1083 of 1120 tiles right instead of 1071. But every threshold of the detector is on the paint's
contrast, which the noise raises (the brightest tenth of a symbol's pixels is taken for its paint), so
through the filter faint tiles are found less often: green tiles on green felt go missing (classic 3
→ 7 missed, Cubes 156 → 183). Hence a dim frame is read twice, plainly and through the filter, and
:func:`named_through_filter` keeps the plain reading's cells (where the tiles are) with the filtered
reading's names, where the two readings do not contradict each other.

Calibration decides whether a light needs it (:func:`calibration.appearance.calibrate_from_photo`): only
for a dim photo, and only when the outlines learned through the filter name the photo's own tiles
better, each against what the others teach (:func:`held_out_shapes`). The colour-blind
edition's symbols, with an inner mark some 8 pixels wide, do not gain from it (its dim games read 489
and 527 tiles right through it against 495 and 530 plainly), and its photos say so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from table import PlacedTile, Tile
from vision.classify import name_shapes, shape_probabilities
from vision.features import Measurements
from vision.prototypes import Prototypes
from vision.reader import MAX_FIT, MIN_CONFIDENCE
from vision.reading import Reading, ReadTile, Uncertain

#: The median filter's side in pixels (the smallest: it keeps a 40-pixel tile's symbol whole).
MEDIAN = 3
#: A filtered reading's cell lands within this fraction of a cell of a plain reading's cell, else the two
#: readings are not put together (their grids disagree).
ALIGNED = 0.4
#: The least probability a held-out tile's own shape is counted with (a log of 0 would end the mean).
TINY = 1e-6


def denoised(image: np.ndarray) -> np.ndarray:
    """The frame (H, W, 3) uint8 BGR through the :data:`MEDIAN` median filter, each channel alone."""
    return np.asarray(cv2.medianBlur(image, MEDIAN))


def named_through_filter(plain: Reading, filtered: Reading) -> Reading:
    """One reading of a frame from its plain reading and its reading through the filter.

    The plain reading says where the tiles are: its cells are kept, and nothing only the filtered
    reading found is added. The filtered reading names their shapes, not their colours: the filter takes
    noise off a symbol's outline, but a paint's colour is a mean over its pixels, which the filter leaves
    about as it was, so the filtered reading's colour is the same measurement again and confirms nothing
    (in the rendered Connect game in a tenth of the light, two orange tiles in the frame's dim corner
    guessed red, with under 0.6 confidence, were read red through the filter too: 3 wrong tiles). So the
    plain reading is read with its guesses of shapes only (a tile whose colour is named with less than
    :data:`vision.reader.MIN_CONFIDENCE`, or fits no colour, is uncertain there, ``low-confidence``), and
    such a cell stays uncertain. A cell the plain reading left uncertain otherwise (its outline fits no
    shape) takes the filtered reading's tile; a tile of the plain reading named with confidence stands
    where the filtered reading has the same tile or did not find the cell, and is uncertain where the
    filtered reading reads another tile (``low-confidence``) or leaves the cell uncertain (its reason);
    one named with less than :data:`vision.reader.MIN_CONFIDENCE` (a guess of its shape) stands only
    where the filtered reading reads the same tile, else it is uncertain (``low-confidence``). When the
    two grids do not line up (:func:`_aligned`), nothing is taken from the filtered reading: the plain
    one with its guesses uncertain.

    Parameters
    ----------
    plain, filtered : Reading
        The same frame read plainly and through :func:`denoised` (each with its own cells and
        ``geometry["cell_to_image"]``).

    Returns
    -------
    Reading
        In the plain reading's cells and geometry; ``elapsed_ms`` of both readings.
    """
    tiles_there, unsure_there = _aligned(plain, filtered) or ({}, {})
    tiles: list[ReadTile] = []
    uncertain: list[Uncertain] = []
    for read in plain.tiles:
        cell = read.placed.cell
        other = tiles_there.get(cell)
        if read.confidence < MIN_CONFIDENCE:  # a guess: it stands where the filtered reading confirms it
            if other is not None and other.placed.tile == read.placed.tile:
                tiles.append(other)
            else:
                uncertain.append(Uncertain(*cell, "low-confidence"))
        elif other is not None and other.placed.tile != read.placed.tile:
            uncertain.append(Uncertain(*cell, "low-confidence"))
        elif other is None and cell in unsure_there:
            uncertain.append(Uncertain(*cell, unsure_there[cell]))
        else:
            tiles.append(read)
    for unsure in plain.uncertain:
        other = tiles_there.get((unsure.row, unsure.col))
        if other is not None and unsure.reason != "low-confidence":
            tiles.append(other)
        else:
            uncertain.append(unsure)
    return Reading(
        tuple(tiles),
        tuple(sorted(uncertain, key=lambda u: (u.row, u.col))),
        plain.elapsed_ms + filtered.elapsed_ms,
        plain.geometry,
    )


def _aligned(
    plain: Reading, filtered: Reading
) -> tuple[dict[tuple[int, int], ReadTile], dict[tuple[int, int], str]] | None:
    """The filtered reading's tiles and uncertain cells (with their reasons) in the plain reading's cells,
    through the two readings' cell-to-image maps; None when either has none, or most cells land further
    than :data:`ALIGNED` from a whole cell. The cells that land so far, where most do not, are left out
    (:func:`_lined_up`)."""
    try:
        to_image = np.asarray(filtered.geometry["cell_to_image"], np.float64)
        from_image = np.linalg.inv(np.asarray(plain.geometry["cell_to_image"], np.float64))
    except (KeyError, np.linalg.LinAlgError):
        return None
    cells = [t.placed.cell for t in filtered.tiles] + [(u.row, u.col) for u in filtered.uncertain]
    if not cells:
        return {}, {}
    rc = np.column_stack([np.array(cells, np.float64), np.ones(len(cells))])
    there = (from_image @ to_image @ rc.T).T
    there = there[:, :2] / there[:, 2:]
    whole = np.rint(there)
    near = _lined_up(there - whole)
    if near is None:
        return None
    onto = [(int(r), int(c)) for r, c in whole.tolist()]
    n = len(filtered.tiles)
    tiles = {
        cell: ReadTile(PlacedTile(*cell, t.placed.tile), t.confidence)
        for cell, t, ok in zip(onto[:n], filtered.tiles, near[:n], strict=True)
        if ok
    }
    unsure = {
        cell: u.reason for cell, u, ok in zip(onto[n:], filtered.uncertain, near[n:], strict=True) if ok
    }
    return tiles, unsure


def _lined_up(off: np.ndarray) -> np.ndarray | None:
    """Per cell of the filtered reading, its offset (N, 2) from a whole cell of the plain one: whether it
    lies within ALIGNED of it; None where most cells do not (the two grids do not line up). Each reading's
    map is fitted through its own tiles, and past a seam the two may part: a dim Cubes calibration frame
    whose filtered reading joined a part across a seam (:func:`vision.rejoin._across_seam`) lay half a cell
    off the plain one's map past the seam (9 of 29 cells) and on it elsewhere; refusing them all lost the
    filtered reading's word on a diamond the plain one named a clover."""
    near = np.abs(off).max(axis=1) <= ALIGNED
    return near if 2 * near.sum() > len(near) else None


def held_out_shapes(
    measured: Measurements, tiles: Sequence[Tile], learn: Callable[[Measurements, list[Tile]], Prototypes]
) -> tuple[int, float]:
    """How well what ``learn`` makes of a photo's known tiles names tiles it was not learned from.

    Each tile is named against what ``learn`` makes of the others (leave one out), as the reader names
    shapes (:func:`vision.classify.name_shapes`). Returns how many are named right with confidence and
    within the fit (:data:`vision.reader.MIN_CONFIDENCE`, :data:`vision.reader.MAX_FIT`), and the mean
    log-probability of each tile's own shape under the outline and size distances the reader decides
    by (:func:`vision.classify.shape_probabilities`), which
    tells two ways of looking at the photo apart where the count does not.
    """
    right, log_p = 0, 0.0
    every = np.arange(len(tiles))
    for i, tile in enumerate(tiles):
        one = measured.take(np.array([i]))
        others = learn(measured.take(every != i), [t for j, t in enumerate(tiles) if j != i])
        shapes, confidence, fit = name_shapes(one, others)
        right += int(shapes[0] == tile.shape and confidence[0] >= MIN_CONFIDENCE and fit[0] <= MAX_FIT)
        names, probability = shape_probabilities(one, others)
        log_p += float(np.log(max(probability[0, names.index(tile.shape)], TINY)))
    return right, log_p / max(len(tiles), 1)
