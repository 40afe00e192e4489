"""Painting tile faces for the renderer: the black wooden blocks and their painted symbols, every edition.

A face is painted into a square BGRA texture (uint8, BGR channel order, alpha for the rounded corners),
which the renderer then warps onto the projected top of each tile. Symbols are polygons in *face units*:
the face spans -1..1 on both axes, ``(row, col)`` order, row growing down the face.

Editions:

- classic, Connect, Cubes: a symbol painted in the tile's colour on the black body.
- colour-blind: the outer symbol is the shape, painted in the tile's colour (slightly fatter than classic
  so the inner mark fits); a small inner mark in the body's black identifies the colour, following
  :data:`INNER_MARKS` (square red, diamond blue, clover green, circle orange, starburst yellow,
  criss-cross purple). The colour is thus told twice: by paint and by the inner mark.
- Herkle: a shield with a mid-grey field on the black body, the ordinary (fess, pale, bend, cross,
  saltire, chevron) painted on it in the tile's colour with a thin dark outline; the shield's flat top
  marks "up", and tiles lie upright with respect to the board's rows.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from table import Tile

#: Paint colours, BGR, as measured on the real Connect photos under daylight (and chosen for the others).
PAINT: dict[str, tuple[float, float, float]] = {
    "red": (32, 28, 160),
    "orange": (36, 78, 184),
    "yellow": (16, 160, 178),
    "green": (36, 102, 14),
    "blue": (178, 92, 18),
    "purple": (132, 44, 112),
    "white": (222, 214, 204),
    "black": (34, 32, 33),
}
BODY = (28.0, 26.0, 28.0)
HERKLE_FIELD = (118.0, 120.0, 124.0)

#: Colour-blind edition: the inner mark that identifies each colour.
INNER_MARKS: dict[str, str] = {
    "red": "square",
    "blue": "diamond",
    "green": "clover",
    "orange": "circle",
    "yellow": "starburst",
    "purple": "criss-cross",
}

_SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
Polygon = np.ndarray  # (N, 2) float, face units, (row, col)


def _ring(n: int, radius: float, start: float = 0.0) -> Polygon:
    a = start + np.arange(n) * 2 * math.pi / n
    return np.stack([-radius * np.cos(a), radius * np.sin(a)], axis=1)


def _concave_star(tips: Polygon, pull: float) -> Polygon:
    """A star through ``tips`` whose sides are quadratic curves bent towards the centre by ``pull``."""
    out = []
    t = np.linspace(0, 1, 9)[:-1, None]
    for i in range(len(tips)):
        a, b = tips[i], tips[(i + 1) % len(tips)]
        c = (a + b) / 2 * pull
        out.append((1 - t) ** 2 * a + 2 * (1 - t) * t * c + t**2 * b)
    return np.concatenate(out)


def _harmonic_outline(reach: float, harmonics: tuple[float, float, float], start: float) -> Polygon:
    """A fourfold outline from its radial profile ``1 + a4·cos 4φ + a8·cos 8φ + a12·cos 12φ``.

    ``φ`` is measured from the direction ``start`` (radians, from "up" towards the right), where the
    outline reaches furthest, ``reach`` face units from the centre. These are the harmonics the reader
    measures (:func:`vision.outline.outline`), so a symbol drawn from the ones measured on real tiles
    looks to it as the real one does.
    """
    a4, a8, a12 = harmonics
    phi = np.arange(192) * (2 * math.pi / 192)
    r = 1 + a4 * np.cos(4 * phi) + a8 * np.cos(8 * phi) + a12 * np.cos(12 * phi)
    r *= reach / (1 + a4 + a8 + a12)
    a = start + phi
    return np.stack([-r * np.cos(a), r * np.sin(a)], axis=1)


#: Radial harmonics (a4, a8, a12) of the real criss-cross as the reader measures it on the Connect photos:
#: four deep arms on the diagonals with blunt tips (its waist is 0.675 of its mean radius).
CRISS_CROSS_HARMONICS = (0.40, 0.13, 0.06)


def symbol_polygons(shape: str, *, fat: bool = False) -> list[Polygon]:
    """The classic symbols as convex-or-simple polygons in face units; their union is the symbol."""
    k = 1.04 if fat else 1.0
    if shape == "circle":
        return [_ring(48, 0.78 * k)]
    if shape == "square":
        s = 0.6 * k
        return [np.array([[-s, -s], [-s, s], [s, s], [s, -s]])]
    if shape == "diamond":
        d = 0.84 * k
        return [np.array([[-d, 0], [0, d], [d, 0], [0, -d]])]
    if shape == "criss-cross":
        if fat:  # the colour-blind edition's, wide enough to hold the inner mark
            return [_concave_star(_ring(4, 0.96, math.pi / 4), 0.45)]
        return [_harmonic_outline(0.9, CRISS_CROSS_HARMONICS, math.pi / 4)]
    if shape == "starburst":
        outer, inner = _ring(8, 0.86), _ring(8, 0.6 if fat else 0.45, math.pi / 8)
        return [np.stack([outer, inner], axis=1).reshape(-1, 2)]
    if shape == "clover":  # lobes and centre as measured on real tiles: a4 0.28, a8 -0.07, waist 0.64
        # (the colour-blind edition's keeps its own, wide enough round the inner mark)
        r, d, c = (0.364, 0.52, 0.374) if fat else (0.32, 0.52, 0.34)
        lobes = [_ring(32, r) + np.array(off) for off in ((-d, 0), (d, 0), (0, -d), (0, d))]
        return [*lobes, np.array([[-c, -c], [-c, c], [c, c], [c, -c]])]
    raise ValueError(f"shape {shape!r}: no classic symbol of that name")


def _shield() -> Polygon:
    """A heater shield: flat top, straight sides, curving to a point at the bottom."""
    a = np.linspace(0, math.pi / 2, 12)
    right = np.stack([0.05 + 0.87 * np.sin(a), 0.78 * np.cos(a)], axis=1)
    left = right[::-1] * np.array([1, -1])
    return np.concatenate([[[-0.86, -0.78], [-0.86, 0.78]], right, left])


def ordinary_polygons(shape: str) -> list[Polygon]:
    """Herkle's ordinaries in face units (clipped to the shield when painted)."""
    w, m = 0.3, -0.08  # half band width; the shield's visual middle row
    if shape == "fess":
        return [np.array([[m - w, -2], [m - w, 2], [m + w, 2], [m + w, -2]])]
    if shape == "pale":
        return [np.array([[-2, -w], [-2, w], [2, w], [2, -w]])]
    if shape == "bend":
        v = w * math.sqrt(2)
        return [np.array([[-2 - v, -2], [-2 + v, -2], [2 + v, 2], [2 - v, 2]])]
    if shape == "cross":
        t = 0.21
        return [
            np.array([[m - t, -2], [m - t, 2], [m + t, 2], [m + t, -2]]),
            np.array([[-2, -t], [-2, t], [2, t], [2, -t]]),
        ]
    if shape == "saltire":
        v = 0.21 * math.sqrt(2)
        return [
            np.array([[-2 - v, -2], [-2 + v, -2], [2 + v, 2], [2 - v, 2]]),
            np.array([[-2 - v, 2], [-2 + v, 2], [2 + v, -2], [2 - v, -2]]),
        ]
    if shape == "chevron":
        apex, foot, t = -0.42, 0.62, 0.27
        return [
            np.array([[apex - t, 0], [foot - t, -1.2], [foot + t, -1.2], [apex + t, 0]]),
            np.array([[apex - t, 0], [foot - t, 1.2], [foot + t, 1.2], [apex + t, 0]]),
        ]
    raise ValueError(f"shape {shape!r}: no Herkle ordinary of that name")


def fill_mask(polygons: list[Polygon], size: int, *, transform: np.ndarray | None = None) -> np.ndarray:
    """Rasterise the union of face-unit polygons into a (size, size) float32 mask in 0..1, anti-aliased.

    ``transform`` is an optional 2×3 affine on face-unit ``(row, col)`` applied first.
    """
    mask = np.zeros((size, size), np.uint8)
    half = size / 2
    for poly in polygons:
        pts = poly if transform is None else poly @ transform[:, :2].T + transform[:, 2]
        xy = (pts[:, ::-1] * half + half - 0.5) * (1 << _SHIFT)
        cv2.fillPoly(mask, [np.round(xy).astype(np.int32)], 255, cv2.LINE_AA, _SHIFT)
    return mask.astype(np.float32) / 255


def _jitter_transform(rng: np.random.Generator, amount: float) -> np.ndarray:
    """A small random affine (scale, rotation, offset) for hand-painted imperfection."""
    s = 1 + rng.normal(0, 0.025 * amount)
    a = rng.normal(0, math.radians(2.0) * amount)
    off = rng.normal(0, 0.025 * amount, 2)
    c, n = s * math.cos(a), s * math.sin(a)
    return np.array([[c, -n, off[0]], [n, c, off[1]]])


def _noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Smooth noise in about -1..1: ``cells``×``cells`` random values blown up to size×size."""
    small = rng.standard_normal((cells, cells), dtype=np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


@functools.lru_cache(maxsize=64)
def _bevel(size: int) -> tuple[np.ndarray, np.ndarray]:
    """The rim (brightness rising towards the edges) and corner-wear weights of a face, (size, size)."""
    u = np.abs(np.linspace(-1, 1, size, dtype=np.float32))
    edge = np.maximum(u[:, None], u[None, :])
    width = max(0.06, 1.5 / size)
    rim = np.clip((edge - (1 - width)) / width, 0, 1) ** 1.5
    corner = (u[:, None] * u[None, :]) ** 6
    rim.setflags(write=False)
    corner.setflags(write=False)
    return rim, corner


def _body(size: int, rng: np.random.Generator, colour: tuple[float, float, float]) -> np.ndarray:
    """The painted-black wood: base colour, mottling, grain, and the lighter worn bevel at the edges."""
    rim, corner = _bevel(size)
    wear = rim * np.float32(10 + 14 * rng.random()) + corner * np.float32(10)
    shade = _noise(rng, size, 6) * np.float32(2.5) + rng.standard_normal((size, size), dtype=np.float32) * 2
    shade += wear * (0.7 + 0.6 * _noise(rng, size, 5) ** 2)
    return np.asarray(colour, np.float32) + shade[..., None]


@functools.lru_cache(maxsize=64)
def _rounded_alpha(size: int, radius: float) -> np.ndarray:
    r = max(radius * size / 2, 1.0)
    alpha = np.zeros((size, size), np.uint8)
    s = 1 << _SHIFT
    box = np.array([r, r, size - 1 - r, size - 1 - r]) * s
    x0, y0, x1, y1 = (int(v) for v in box)
    rr = int(r * s)
    for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        cv2.circle(alpha, (cx, cy), rr, 255, -1, cv2.LINE_AA, _SHIFT)
    cv2.rectangle(alpha, (x0 >> _SHIFT, 0), (x1 >> _SHIFT, size - 1), 255, -1)
    cv2.rectangle(alpha, (0, y0 >> _SHIFT), (size - 1, y1 >> _SHIFT), 255, -1)
    alpha.setflags(write=False)
    return alpha


def _paint(
    img: np.ndarray, mask: np.ndarray, colour: tuple[float, float, float], rng: np.random.Generator
) -> None:
    """Lay ``colour`` where ``mask`` is set, with per-tile tint variation and brush texture, in place."""
    size = mask.shape[0]
    tint = np.asarray(colour, np.float32) * (1 + rng.normal(0, 0.035, 3).astype(np.float32))
    brush = _noise(rng, size, 9) * np.float32(0.025) + np.float32(1)
    m = mask[..., None]
    img += m * (tint * brush[..., None] - img)


def paint_face(
    tile: Tile,
    *,
    variant: str,
    size: int,
    rng: np.random.Generator,
    imperfection: float = 1.0,
) -> np.ndarray:
    """The top face of one tile, as a BGRA texture.

    Parameters
    ----------
    tile : Tile
        The tile; its colour and shape names must belong to ``variant``.
    variant : str
        ``classic``, ``colour-blind``, ``herkle``, ``cubes`` or ``connect``.
    size : int
        Texture side in pixels (8..1024).
    rng : numpy.random.Generator
        Source of the per-tile imperfections (symbol placement, paint tint, wear).
    imperfection : float
        Scales the hand-painted irregularity (0 = perfect symbols).

    Returns
    -------
    ndarray, shape (size, size, 4), dtype uint8
        BGR colour and alpha (the rounded corners of the block).
    """
    if not 8 <= size <= 1024:
        raise ValueError(f"face size must be 8..1024 pixels, got {size}")
    if tile.colour not in PAINT:
        raise ValueError(f"tile {tile}: no paint for colour {tile.colour!r}")
    img = _body(size, rng, BODY)
    jitter = _jitter_transform(rng, imperfection)
    soft = size / 220

    def fill(polygons: list[Polygon], transform: np.ndarray) -> np.ndarray:
        mask = fill_mask(polygons, size, transform=transform)
        return cv2.GaussianBlur(mask, (0, 0), soft) if soft > 0.3 else mask  # paint edges are a little soft

    colour = PAINT[tile.colour]
    if variant == "herkle":
        shield = fill([_shield()], jitter)
        _paint(img, shield, HERKLE_FIELD, rng)
        band = fill(ordinary_polygons(tile.shape), jitter) * shield
        outline = np.clip(cv2.GaussianBlur(band, (0, 0), max(size / 120, 0.6)) * 2.2, 0, 1) * shield
        _paint(img, outline, (40, 38, 40), rng)
        _paint(img, band, colour, rng)
    else:
        fat = variant == "colour-blind"
        mask = fill(symbol_polygons(tile.shape, fat=fat), jitter)
        _paint(img, mask, colour, rng)
        if fat:
            inner_shape = INNER_MARKS.get(tile.colour)
            if inner_shape is None:
                raise ValueError(
                    f"tile {tile}: the colour-blind edition has no inner mark for {tile.colour!r}"
                )
            inner = jitter.copy()
            inner[:, :2] *= 0.36
            _paint(img, fill(symbol_polygons(inner_shape), inner) * mask, BODY, rng)
    alpha = _rounded_alpha(size, 0.07)
    return np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])


def paint_side(
    height: int, width: int, *, rng: np.random.Generator, body: tuple[float, float, float] = BODY
) -> np.ndarray:
    """A side face of a block (BGRA uint8, ``height``×``width``): the black paint over wood, lit edges."""
    side = max(height, width)
    img = (
        _body(side, rng, body)[:height, :width]
        if side <= 1024
        else np.full((height, width, 3), body, np.float32)
    )
    alpha = np.full((height, width), 255, np.uint8)
    return np.dstack([np.clip(img, 0, 255).astype(np.uint8), alpha])
