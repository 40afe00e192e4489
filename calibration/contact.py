"""The contact sheet: what calibration learned, as one picture for the wizard and the command line.

A table with one row per colour and one column per shape. The header column shows each learned colour
(as the reader normalises it: the paint's hue at full brightness) with its margin; the header row shows
each learned silhouette with its margin. Every other cell shows one calibration tile of that colour and
shape as the camera saw it, framed green when the calibrated reader reads it right on the same photo,
red when it reads another tile, amber when it cannot read it; an empty grey cell means no known tile
of that kind was in the photo.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.checks import MIN_MARGIN, Margins
from calibration.geometry import apply_homography, to_xy
from table import Board, TileSet
from vision.prototypes import Prototypes

CELL = 72
RIGHT, WRONG, UNREAD = "right", "wrong", "unread"
FRAME = {RIGHT: (60, 170, 60), WRONG: (40, 40, 220), UNREAD: (0, 170, 240)}
BACKGROUND = (40, 40, 40)


def cut_cell(image: np.ndarray, cell_to_image: np.ndarray, cell: tuple[int, int], size: int) -> np.ndarray:
    """The square ``size``×``size`` BGR patch of one cell, straightened (perspective undone)."""
    r, c = cell
    corners = np.array([[r - 0.5, c - 0.5], [r - 0.5, c + 0.5], [r + 0.5, c + 0.5], [r + 0.5, c - 0.5]])
    src = apply_homography(cell_to_image, corners)
    dst = np.array([[0, 0], [0, size - 1], [size - 1, size - 1], [size - 1, 0]], np.float64)
    warp = cv2.getPerspectiveTransform(to_xy(src), to_xy(dst))
    patch = cv2.warpPerspective(image, warp, (size, size), flags=cv2.INTER_AREA, borderValue=BACKGROUND)
    return np.asarray(patch)


def _label(canvas: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
    row, col = at
    cv2.putText(canvas, text, (col, row), cv2.FONT_HERSHEY_SIMPLEX, 0.38, colour, 1, cv2.LINE_AA)


def _swatch(lab: np.ndarray, size: int) -> np.ndarray:
    bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_LAB2BGR)[0, 0]
    patch = np.empty((size, size, 3), np.uint8)
    patch[:] = np.clip(bgr * 255, 0, 255).astype(np.uint8)
    return patch


def _silhouette(mask: np.ndarray, size: int) -> np.ndarray:
    grey = cv2.resize(
        (np.clip(mask, 0, 1) * 255).astype(np.uint8), (size, size), interpolation=cv2.INTER_NEAREST
    )
    return np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


def _margin_text(margins: Margins, name: str) -> tuple[str, tuple[int, int, int]]:
    m = margins.worst.get(name)
    if m is None:
        return "default", (160, 160, 160)
    return f"{m:.1f}", (120, 220, 120) if m >= MIN_MARGIN else (80, 80, 255)


def contact_sheet(
    image: np.ndarray,
    cell_to_image: np.ndarray | None,
    known: Board,
    verdicts: dict[tuple[int, int], str],
    *,
    tileset: TileSet,
    prototypes: Prototypes,
    colour_margins: Margins,
    shape_margins: Margins,
) -> np.ndarray:
    """The contact sheet (see the module docstring).

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The calibration photo (BGR, as the reader saw it: balanced).
    cell_to_image : ndarray, shape (3, 3), or None
        ``known``'s cell centre ``(row, col, 1)`` to image ``(row, col)``; None leaves the tile cells blank.
    known : Board
        The known tiles.
    verdicts : dict
        Known cell to ``right``, ``wrong`` or ``unread`` (the calibrated reader on the same photo).
    tileset, prototypes, colour_margins, shape_margins :
        What the headers show.

    Returns
    -------
    ndarray, shape ((1 + colours) * CELL, (1 + shapes) * CELL, 3), dtype uint8
        BGR.
    """
    colours, shapes = list(tileset.colours), list(tileset.shapes)
    sheet = np.full(((len(colours) + 1) * CELL, (len(shapes) + 1) * CELL, 3), BACKGROUND, np.uint8)
    inner = CELL - 18
    for j, shape in enumerate(shapes):
        x = (j + 1) * CELL
        if shape in prototypes.shapes:
            sheet[4 : 4 + inner, x + 9 : x + 9 + inner] = _silhouette(prototypes.shapes[shape], inner)
        text, colour = _margin_text(shape_margins, shape)
        _label(sheet, text, (CELL - 3, x + 9), colour)
    for i, name in enumerate(colours):
        y = (i + 1) * CELL
        if name in prototypes.colours:
            sheet[y + 4 : y + 4 + inner, 9 : 9 + inner] = _swatch(prototypes.colours[name], inner)
        text, colour = _margin_text(colour_margins, name)
        _label(sheet, text, (y + CELL - 3, 9), colour)
    shown: set[tuple[str, str]] = set()
    for cell, tile in sorted(known.items()):
        key = (tile.colour, tile.shape)
        if key in shown or tile.colour not in colours or tile.shape not in shapes:
            continue
        shown.add(key)
        y, x = (colours.index(tile.colour) + 1) * CELL, (shapes.index(tile.shape) + 1) * CELL
        verdict = verdicts.get(cell, UNREAD)
        cv2.rectangle(sheet, (x + 2, y + 2), (x + CELL - 3, y + CELL - 3), FRAME[verdict], 3)
        if cell_to_image is not None:
            sheet[y + 6 : y + CELL - 6, x + 6 : x + CELL - 6] = cut_cell(
                image, cell_to_image, cell, CELL - 12
            )
    return sheet
