"""What calibration checks and warns about: separation of the learned prototypes, the calibration photo's
light, glare and sharpness, and later frames whose view no longer matches the calibration.

The photo measures are :mod:`device.quality`'s with ``qwirkle doctor``'s thresholds, so the wizard and the
doctor agree; margins are in the classifier's own units (spreads of :class:`vision.Prototypes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from device.doctor import MAX_CLIPPED, MAX_EDGE_WIDTH, MIN_BRIGHT
from device.quality import edge_width, light_level
from table import Tile
from vision.classify import light_spreads, shape_distance, size_distance
from vision.features import Measurements
from vision.named import colour_distance
from vision.prototypes import Prototypes, colour_features, white_balance

#: Below this margin (spreads between a tile's own prototype and the nearest other) a class is at risk.
MIN_MARGIN = 1.0
#: A tile whose cell is more than this fraction blown out is unreadable (the reader's own limit).
MAX_TILE_GLARE = 0.15
#: Symbols standing out from their bodies by fewer 8-bit levels than this are read with coarse colour.
MIN_PAINT_LEVELS = 60.0
#: A frame-level gain beyond this factor either way means the light is strongly coloured.
MAX_BALANCE = 2.5
#: The camera counts as moved when the board's corners shift by more than this many cells, or the tile
#: size changes by more than this fraction.
MAX_SHIFT_CELLS = 0.5
MAX_ZOOM = 0.1
#: Blur is judged on the middle of the frame, at most this many pixels each way (at full resolution).
BLUR_WINDOW = 1024


@dataclass(frozen=True)
class Margins:
    """Per class (colour or shape name) that calibration tiles showed: the worst margin among its tiles
    (distance to the nearest other prototype minus distance to its own, in the classifier's spreads;
    negative means a tile is nearer another class) and that nearest other class."""

    worst: dict[str, float]
    nearest: dict[str, str]

    def to_json(self) -> dict[str, Any]:
        return {
            name: {"margin": round(margin, 3), "nearest": self.nearest[name]}
            for name, margin in self.worst.items()
        }


def _margins(distance: np.ndarray, names: Sequence[str], labels: Sequence[str]) -> Margins:
    """Margins from each tile's distance (N, K) to the K prototypes ``names``, for tiles ``labels``; a tile
    the classifier does not measure (NaN distances: a Herkle tile whose shield is not whole) has none."""
    worst: dict[str, float] = {}
    nearest: dict[str, str] = {}
    for i, label in enumerate(labels):
        if label not in names or not np.isfinite(distance[i]).all():
            continue
        own = list(names).index(label)
        other = distance[i].copy()
        other[own] = np.inf
        runner = int(other.argmin())
        margin = float(other[runner] - distance[i, own])
        if margin < worst.get(label, np.inf):
            worst[label], nearest[label] = margin, names[runner]
    return Margins(worst, nearest)


def colour_margins(m: Measurements, tiles: Sequence[Tile], prototypes: Prototypes) -> Margins:
    """Separation of the colour prototypes on the calibration tiles, as the classifier measures it."""
    names = list(prototypes.colours)
    if not len(m):
        return Margins({}, {})
    centres = np.array([prototypes.colours[k] for k in names])
    feats = colour_features(m, white_balance(m.body))
    distance = colour_distance(feats, centres) / prototypes.colour_spread
    return _margins(distance, names, [t.colour for t in tiles])


def shape_margins(m: Measurements, tiles: Sequence[Tile], prototypes: Prototypes) -> Margins:
    """Separation of the shape prototypes on the calibration tiles, as the classifier measures it
    (:func:`vision.classify.shape_distance`: Herkle's ordinaries on their shields, with the frame's "up"
    voted over ``m``'s tiles; calibrated outlines in the spreads learned under the photo's light,
    :func:`vision.classify.light_spreads`)."""
    if not len(m):
        return Margins({}, {})
    if prototypes.learned_spreads:
        prototypes = replace(prototypes, outline_spreads=light_spreads(prototypes))
    names, distance = shape_distance(m, prototypes)
    size = size_distance(m, prototypes, names)  # calibrated: the symbol's size joins the outline
    if size is not None:
        distance = np.hypot(distance, size)
    return _margins(distance, names, [t.shape for t in tiles])


def photo_checks(image: np.ndarray, m: Measurements, cast: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    """Measures of the calibration photo and the warnings they call for (one line each).

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        The photo as the camera gave it (BGR; before white balance).
    m : Measurements
        The known tiles' measurements.
    cast : ndarray, shape (3,)
        The gains that would neutralise the light (:func:`calibration.balance.estimate_balance`).

    Returns
    -------
    numbers : dict
        ``bright`` (99th-percentile grey level), ``clipped`` (fraction blown out), ``edge_width`` (blur
        sigma of the sharper edges in the middle of the frame, px), ``glare_tiles`` (known tiles with
        glare), ``paint_levels`` (median 8-bit levels by which the symbols stand out from their bodies),
        ``cast_gains`` (``cast``).
    warnings : list of str
    """
    light = light_level(image)
    blur = edge_width(_centre(image, BLUR_WINDOW))
    glare = int(np.sum(m.glare > MAX_TILE_GLARE)) if len(m) else 0
    levels = float(np.median((m.paint - m.body).max(axis=1))) if len(m) else 0.0
    numbers = {
        "bright": round(light.bright, 1),
        "clipped": round(light.clipped, 4),
        "edge_width": None if blur is None else round(blur, 2),
        "glare_tiles": glare,
        "paint_levels": round(levels, 1),
        "cast_gains": [round(float(g), 3) for g in cast],
    }
    warnings = []
    if light.bright < MIN_BRIGHT or levels < MIN_PAINT_LEVELS:
        warnings.append(
            f"dim: the symbols stand only {levels:.0f} levels above the tiles (want {MIN_PAINT_LEVELS:.0f}) "
            f"and the brightest parts reach {light.bright:.0f} of 255; more light makes colours surer"
        )
    if light.clipped > MAX_CLIPPED or glare:
        warnings.append(
            f"glare: {100 * light.clipped:.1f} % of the picture is blown out and {glare} tiles shine; "
            "move the lamp sideways or diffuse it"
        )
    if blur is not None and blur > MAX_EDGE_WIDTH:
        warnings.append(
            f"blur: edges are {blur:.1f} px soft (in focus: under {MAX_EDGE_WIDTH:g}); refocus or hold still"
        )
    if np.any(cast > MAX_BALANCE) or np.any(cast < 1 / MAX_BALANCE):
        warnings.append(
            "strong colour cast: the light is far from white (corrected, but a white lamp keeps colours "
            "apart better)"
        )
    return numbers, warnings


def _centre(image: np.ndarray, side: int) -> np.ndarray:
    h, w = image.shape[:2]
    top, left = max(0, (h - side) // 2), max(0, (w - side) // 2)
    return image[top : top + side, left : left + side]


def margin_warnings(kind: str, margins: Margins, *, seen: Sequence[str], every: Sequence[str]) -> list[str]:
    """Warnings for classes at risk (margin under :data:`MIN_MARGIN`) and classes no tile showed."""
    out = []
    for name, margin in sorted(margins.worst.items(), key=lambda kv: kv[1]):
        if margin < MIN_MARGIN:
            near = margins.nearest[name]
            out.append(f"{kind} {name} is close to {near} under this light (margin {margin:.2f} spreads)")
    missing = [n for n in every if n not in seen]
    if missing:
        out.append(f"no known tile showed {kind} {', '.join(missing)}: those keep the default prototypes")
    return out


def view_changed(
    geometry: dict[str, Any],
    *,
    cell_to_image: np.ndarray | None,
    pitch: float | None,
    corners: np.ndarray | None = None,
) -> str | None:
    """Whether a reading's ``geometry`` shows the camera moved since calibration; a one-line reason or None.

    Parameters
    ----------
    geometry : dict
        :attr:`vision.reading.Reading.geometry` of a frame read with a layout (board cells) or not.
    cell_to_image, pitch :
        The calibration's (:class:`calibration.geometry.Geometry`).
    corners : ndarray, shape (K, 2), optional
        Board cells to compare the two views at (a printed board's corners); without them only the tile
        size is compared.
    """
    if not geometry or pitch is None:
        return None
    now = float(geometry["pitch"])
    zoom = now / pitch - 1
    if abs(zoom) > MAX_ZOOM:
        return f"the camera moved: tiles are {100 * zoom:+.0f} % the size they were at calibration"
    if cell_to_image is not None and corners is not None:
        from calibration.geometry import apply_homography

        before = apply_homography(cell_to_image, corners)
        after = apply_homography(np.asarray(geometry["cell_to_image"], np.float64), corners)
        shift = float(np.max(np.linalg.norm(after - before, axis=1))) / pitch
        if shift > MAX_SHIFT_CELLS:
            return f"the camera moved: the board shifted by up to {shift:.1f} cells since calibration"
    return None
