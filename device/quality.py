"""Plain measures of a camera frame for ``qwirkle doctor``: focus, light and colour cast.

Every function takes a BGR uint8 frame of shape (H, W, 3) and returns numbers in physical terms (pixels of
blur, fractions of the picture, colour ratios) so the doctor's thresholds mean something on any table.
Each measure is built to ignore what the table and tiles look like: a dark wooden table, black tiles or
green felt must not read as "too dark" or "green cast".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: Blocks per side in which edges are measured.
GRID = 8


def _check_frame(image: np.ndarray) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        dtype = getattr(image, "dtype", type(image).__name__)
        raise ValueError(f"expected a BGR uint8 frame (H, W, 3), got shape {shape} and dtype {dtype}")
    if min(image.shape[:2]) < 2 * GRID:
        raise ValueError(f"frame of {image.shape[1]}×{image.shape[0]} pixels is too small to measure")


def edge_width(image: np.ndarray, *, min_contrast: float = 30.0, quantile: float = 25.0) -> float | None:
    """How soft the picture's edges are: the blur of its sharper edges as a Gaussian sigma in pixels.

    In each of :data:`GRID` × :data:`GRID` blocks with enough contrast (the 2nd..98th percentile grey
    levels span ``min_contrast``), an edge of contrast C blurred by sigma has a steepest slope of
    C / (sigma √(2π)), so sigma = C / (slope √(2π)), with the slope taken as the 99.5th percentile of the
    gradient (after a 1-pixel Gaussian that tames sensor noise). The answer is the ``quantile``-th
    percentile over those blocks: the sharper edges, since bevels and shadows are soft even in focus.

    Unlike the plain variance of the Laplacian, this does not grow with the light or the number of tiles
    in view, nor with sensor noise as much. In focus, frames give about 1.3–2.5 px; a lens that is off
    by a few pixels of blur gives 3 px and more.

    Returns
    -------
    float or None
        Sigma in pixels, or None when no block has enough contrast to judge (an empty, even surface).
    """
    _check_frame(image)
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    slope = np.hypot(gx, gy)
    h, w = grey.shape
    widths = []
    for i in range(GRID):
        for j in range(GRID):
            block = (slice(i * h // GRID, (i + 1) * h // GRID), slice(j * w // GRID, (j + 1) * w // GRID))
            low, high = np.percentile(grey[block], [2, 98])
            if high - low < min_contrast:
                continue
            steepest = float(np.percentile(slope[block], 99.5))
            widths.append((high - low) / (steepest * math.sqrt(2 * math.pi)))
    return float(np.percentile(widths, quantile)) if widths else None


@dataclass(frozen=True)
class Light:
    """How the picture is lit: ``bright`` is the 99th percentile grey level (0..255; the brightest
    symbols and surfaces), ``clipped`` the fraction of pixels blown out to white (grey level 250 or
    more; one saturated channel on a vivid colour does not count)."""

    bright: float
    clipped: float


def light_level(image: np.ndarray) -> Light:
    """The light in a frame; see :class:`Light`. Judged on the bright end so black tiles on a dark
    table do not count as darkness."""
    _check_frame(image)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    clipped = float((grey >= 250).mean())
    return Light(bright=float(np.percentile(grey, 99)), clipped=clipped)


@dataclass(frozen=True)
class Cast:
    """The colour of the light as the picture shows it, relative to green: ``red`` = R/G and
    ``blue`` = B/G (both 1.0 under white light once white-balanced)."""

    red: float
    blue: float

    @property
    def warmth(self) -> float:
        """log(R/B): positive for orange (tungsten) light, negative for blue (shade, cold LEDs)."""
        return math.log(self.red / self.blue)

    @property
    def tint(self) -> float:
        """log(G / √(R·B)): positive for green (some fluorescent tubes), negative for magenta."""
        return -math.log(math.sqrt(self.red * self.blue))


def colour_cast(image: np.ndarray) -> Cast:
    """The light's colour by the grey-edge hypothesis (van de Weijer et al., 2007): differences between
    neighbouring pixels average to grey under white light, whatever the colour of large surfaces, so a
    wooden table or green felt does not read as a cast (grey-world would). Edges are weighted by their
    6th power, which favours the strong ones (tile borders, symbols). Pixels near a clipped channel are
    left out: a channel stuck at 255 has no edges and would read as missing from the light.

    A table covered by one strongly coloured pattern (a blue gingham cloth) still reads as a cast: its
    edges all have one colour. Tiles in view dilute it.
    """
    _check_frame(image)
    smooth = cv2.GaussianBlur(image.astype(np.float32), (0, 0), 1.0)
    clipped = cv2.dilate((image.max(axis=2) >= 250).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    energy = []
    for channel in range(3):
        gx = cv2.Sobel(smooth[..., channel], cv2.CV_32F, 1, 0)
        gy = cv2.Sobel(smooth[..., channel], cv2.CV_32F, 0, 1)
        edges = np.hypot(gx, gy)[~clipped]
        energy.append(float(np.mean(edges**6)) ** (1 / 6) if edges.size else 0.0)
    blue, green, red = (max(e, 1e-6) for e in energy)
    return Cast(red=red / green, blue=blue / green)
