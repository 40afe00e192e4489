"""A hand (and forearm) over the table: the renderer's partial occlusion, with its soft shadow.

The hand is drawn in image space (it floats well above the table, nearer the camera, so it is also a
little out of focus). Its pose is given in image fractions so that a scene can be re-rendered at another
size and the hand covers the same part of the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render_camera import to_xy

#: Skin tones (BGR) the random scenes pick from.
SKINS: tuple[tuple[float, float, float], ...] = (
    (150, 175, 225),
    (125, 150, 205),
    (95, 125, 180),
    (70, 95, 140),
    (48, 66, 100),
)


@dataclass(frozen=True)
class Hand:
    """Where a hand is over the picture.

    Attributes
    ----------
    row, col : float
        The palm's centre as fractions of the image height and width (may lie outside 0..1).
    angle : float
        Degrees: where the fingers point, 0 towards the top of the image, growing clockwise; the forearm
        runs the opposite way, out of the picture.
    size : float
        The palm's width in tiles (a real palm is about 2.5 to 3 tiles wide).
    skin : (float, float, float)
        BGR skin colour under neutral light.
    lift : float
        Millimetres above the table (sets how far its shadow falls from it).
    """

    row: float
    col: float
    angle: float = 0.0
    size: float = 2.7
    skin: tuple[float, float, float] = SKINS[1]
    lift: float = 90.0


def _local(points: np.ndarray, centre: np.ndarray, angle: float, unit: float) -> np.ndarray:
    """Hand-frame points ``(along, across)`` in palm widths -> image ``(row, col)``."""
    a = math.radians(angle)
    along = np.array([-math.cos(a), math.sin(a)])  # fingers' direction in (row, col)
    across = np.array([math.sin(a), math.cos(a)])
    image_rc: np.ndarray = centre + unit * (points[:, :1] * along + points[:, 1:2] * across)
    return image_rc


def hand_mask(hand: Hand, *, size: tuple[int, int], px_per_tile: float) -> np.ndarray:
    """The hand's sharp silhouette: uint8 (H, W), 255 on the hand, anti-aliased edges."""
    h, w = size
    unit = hand.size * px_per_tile
    centre = np.array([hand.row * h, hand.col * w])
    mask = np.zeros((h, w), np.uint8)
    far = 4 * max(h, w)

    def line(a: tuple[float, float], b: tuple[float, float], width: float) -> None:
        p = np.clip(to_xy(_local(np.array([a, b], float), centre, hand.angle, unit)), -far, far)
        ends = [(int(x), int(y)) for x, y in p]
        cv2.line(mask, ends[0], ends[1], 255, max(1, round(width * unit)), cv2.LINE_AA)

    # palm: a rounded block; forearm: a thick band leaving the picture; then four fingers and a thumb
    line((-0.15, -0.12), (0.2, -0.12), 0.75)
    line((-0.15, 0.12), (0.2, 0.12), 0.75)
    line((-0.2, 0.0), (-6.0, 0.0), 0.8)
    for across, length, splay in ((-0.3, 0.72, -8), (-0.1, 0.84, -2), (0.1, 0.8, 3), (0.29, 0.62, 9)):
        s = math.radians(splay)
        line((0.42, across), (0.42 + length * math.cos(s), across + length * math.sin(s)), 0.19)
    line((0.0, -0.42), (0.45, -0.78), 0.23)
    return mask


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur of a float32 mask, done on a reduced copy (the result is smooth anyway)."""
    h, w = mask.shape
    f = int(np.clip(sigma / 2, 1, 8))
    if f == 1:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    small = cv2.resize(mask, (max(w // f, 1), max(h // f, 1)), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / f), (w, h), interpolation=cv2.INTER_LINEAR)


def draw_hand(
    image: np.ndarray,
    hand: Hand,
    *,
    px_per_tile: float,
    shadow_offset: tuple[float, float],
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw ``hand`` and its shadow into ``image`` (float32 BGR, H×W×3, in place).

    ``shadow_offset`` is how far (rows, cols of pixels) the shadow falls from the hand. Returns the
    hand's coverage, float32 (H, W) in 0..1 (the hand is a little out of focus: it is nearer the camera).
    """
    h, w = image.shape[:2]
    sharp = hand_mask(hand, size=(h, w), px_per_tile=px_per_tile)
    cover = np.zeros((h, w), np.float32)
    x, y, bw, bh = cv2.boundingRect(sharp)
    if bw == 0 or bh == 0:
        return cover
    unit = hand.size * px_per_tile
    dr, dc = shadow_offset
    focus, spread, round_ = max(0.6, unit * 0.012), max(1.0, unit * 0.12), max(1.0, unit * 0.08)
    pad = int(abs(dr) + abs(dc) + 3 * spread + 3 * focus) + 2
    r0, r1, c0, c1 = max(y - pad, 0), min(y + bh + pad, h), max(x - pad, 0), min(x + bw + pad, w)
    mask = cv2.GaussianBlur(sharp[r0:r1, c0:c1].astype(np.float32) * (1 / 255), (0, 0), focus)
    roi = image[r0:r1, c0:c1]
    shift = np.array([[1, 0, dc], [0, 1, dr]], np.float32)
    shadow = _soft(cv2.warpAffine(mask, shift, (c1 - c0, r1 - r0)), spread)
    # shading: rounder (brighter) in the middle of each limb, darker towards the outline; some texture
    body = _soft(mask, round_)
    small = rng.standard_normal((max((r1 - r0) // 16, 2), max((c1 - c0) // 16, 2)), dtype=np.float32)
    texture = cv2.resize(small, (c1 - c0, r1 - r0), interpolation=cv2.INTER_CUBIC)
    skin = mask * (0.72 + 0.35 * body + 0.03 * texture)
    keep = (1 - 0.45 * shadow) * (1 - mask)  # the shadow falls on the table, the hand covers it
    roi *= keep[..., None]
    roi += skin[..., None] * np.asarray(hand.skin, np.float32)
    cover[r0:r1, c0:c1] = mask
    return cover
