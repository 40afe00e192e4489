"""Surfaces for the renderer: table textures and the printed Qwirkle Connect board.

Everything here is drawn on flat canvases seen from straight above (``(row, col)`` pixels, BGR float32),
which the renderer then warps into the camera's view; a canvas pixel is ``1 / px_per_mm`` millimetres.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from table import Layout

#: The table surfaces the renderer knows.
TABLES = ("light-wood", "dark-wood", "white-laminate", "green-felt", "cloth-pattern")

_BOARD_BG = (234.0, 240.0, 236.0)
_BOARD_TINT = (150.0, 205.0, 160.0)
_GRID = (70.0, 165.0, 60.0)
_BORDER = (50.0, 150.0, 45.0)
_BONUS_FRAME = (50.0, 140.0, 236.0)
_BONUS_INSIDE = (232.0, 236.0, 238.0)
_DIGIT = (48.0, 52.0, 214.0)


def _smooth(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth noise of about unit spread: a ``cells`` grid of random values, bicubically enlarged."""
    small = rng.standard_normal((max(cells[0], 2), max(cells[1], 2))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _wood(
    rng: np.random.Generator, shape: tuple[int, int], px_per_mm: float, base: np.ndarray, dark: np.ndarray
) -> np.ndarray:
    """Wood planks: streaky grain along the planks, growth rings, plank seams and tones."""
    h, w = shape
    along_rows = rng.random() < 0.5  # the grain runs down the canvas (else across it)
    fine, coarse = (
        (int(n / px_per_mm / 1.5) + 2 for n in (h, w)),
        (int(n / px_per_mm / 60) + 2 for n in (h, w)),
    )
    (fine_h, fine_w), (coarse_h, coarse_w) = fine, coarse  # noise cells: 1.5 mm across, 60 mm along
    if along_rows:
        grid = (coarse_h, fine_w)
        across = (np.arange(w, dtype=np.float32) / px_per_mm)[None, :]
    else:
        grid = (fine_h, coarse_w)
        across = (np.arange(h, dtype=np.float32) / px_per_mm)[:, None]
    streak = _smooth(rng, shape, grid)
    warp = _smooth(rng, shape, (int(h / px_per_mm / 80) + 2, int(w / px_per_mm / 80) + 2)) * 6.0
    pos = across + warp  # millimetres across the grain, wavy
    rings = 0.5 + 0.5 * np.sin(pos * np.float32(2 * math.pi / rng.uniform(5, 11)))
    t = 0.45 + 0.12 * streak + 0.12 * rings**3
    # planks: a dark seam every 90..160 mm across the grain, each plank a slightly different tone
    plank_mm = np.float32(rng.uniform(90, 160))
    plank = np.floor(pos / plank_mm + np.float32(rng.random()))
    t += np.sin(plank * np.float32(12.9898) + np.float32(rng.random() * 6)) * np.float32(0.06)
    t += (np.abs((pos / plank_mm) % 1.0 - 0.5) > 0.5 - 0.6 / plank_mm) * np.float32(0.35)
    np.clip(t, 0, 1, out=t)
    base32, dark32 = base.astype(np.float32), dark.astype(np.float32)
    return base32 + t[..., None] * (dark32 - base32)


def table_surface(kind: str, shape: tuple[int, int], *, px_per_mm: float, seed: int) -> np.ndarray:
    """A table top seen from above.

    Parameters
    ----------
    kind : str
        One of :data:`TABLES`.
    shape : (int, int)
        Canvas height and width in pixels.
    px_per_mm : float
        Canvas pixels per millimetre (sets the scale of grain, weave and checks).
    seed : int
        Seeds the texture. The same arguments give the same canvas (the last few are remembered: a
        game's frames all show the same table).

    Returns
    -------
    ndarray, shape (H, W, 3), dtype float32
        BGR in 0..255 (do not modify: it may be shared).
    """
    if kind not in TABLES:
        raise ValueError(f"table {kind!r}: unknown (known: {', '.join(TABLES)})")
    return _surface(kind, shape, round(px_per_mm, 6), seed)


@functools.lru_cache(maxsize=2)
def _surface(kind: str, shape: tuple[int, int], px_per_mm: float, seed: int) -> np.ndarray:
    surface = _paint_surface(kind, shape, px_per_mm, np.random.default_rng([seed & 0xFFFFFFFF, 3]))
    surface.setflags(write=False)
    return surface


def _paint_surface(
    kind: str, shape: tuple[int, int], px_per_mm: float, rng: np.random.Generator
) -> np.ndarray:
    h, w = shape
    tone = 1 + rng.normal(0, 0.06)
    if kind == "light-wood":
        return _wood(
            rng, shape, px_per_mm, np.array([150, 196, 226.0]) * tone, np.array([95, 145, 190.0]) * tone
        )
    if kind == "dark-wood":
        return _wood(rng, shape, px_per_mm, np.array([52, 86, 134.0]) * tone, np.array([26, 46, 82.0]) * tone)
    fibre = rng.standard_normal((h, w)).astype(np.float32)
    if kind == "white-laminate":
        base = np.array([212, 214, 214.0], np.float32) * tone
        t = 1 + 0.02 * _smooth(rng, shape, (h // 40 + 2, w // 40 + 2)) + 0.012 * fibre
        return base * t[..., None]
    if kind == "green-felt":
        base = np.array([46, 104, 36.0], np.float32) * tone
        t = 1 + 0.05 * _smooth(rng, shape, (h // 25 + 2, w // 25 + 2)) + 0.07 * fibre
        return base * t[..., None]
    # cloth-pattern: a gingham check in a random colour, with a visible weave
    check_mm = rng.uniform(12, 40)
    colours = [np.array(c, np.float32) for c in ((60, 60, 190), (170, 90, 40), (60, 130, 60), (40, 150, 210))]
    ink = colours[int(rng.integers(len(colours)))]
    white = np.array([228, 230, 232], np.float32)
    ys = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
    xs = np.arange(w, dtype=np.float32)[None, :] / px_per_mm
    band_r = ((ys / check_mm) % 2.0 < 1.0).astype(np.float32)
    band_c = ((xs / check_mm) % 2.0 < 1.0).astype(np.float32)
    amount = (0.5 * band_r + 0.5 * band_c)[..., None]  # 0, half (mixed) or full ink
    weave = 1 + 0.06 * np.sin(ys * 2 * math.pi / 0.8) * np.sin(xs * 2 * math.pi / 0.8) + 0.04 * fibre
    cloth: np.ndarray = ((white * (1 - amount) + ink * amount) * weave[..., None] * tone).astype(np.float32)
    return cloth


def _digit_patch(digit: str, size: int, angle: float) -> np.ndarray:
    """A red digit with a light edge, rotated, as a (size, size, 4) float32 BGRA patch (alpha 0..1)."""
    patch = np.zeros((size, size, 4), np.float32)
    scale = size / 27.0
    thick = max(1, round(size / 7.5))
    (tw, th), _ = cv2.getTextSize(digit, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    org = ((size - tw) // 2, (size + th) // 2)
    edge = np.zeros((size, size), np.uint8)
    cv2.putText(
        edge, digit, org, cv2.FONT_HERSHEY_DUPLEX, scale, 255, thick + max(2, thick // 2), cv2.LINE_AA
    )
    ink = np.zeros((size, size), np.uint8)
    cv2.putText(ink, digit, org, cv2.FONT_HERSHEY_DUPLEX, scale, 255, thick, cv2.LINE_AA)
    m = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), angle, 1.0)
    edge_f = cv2.warpAffine(edge, m, (size, size)).astype(np.float32) / 255
    ink_f = cv2.warpAffine(ink, m, (size, size)).astype(np.float32) / 255
    patch[..., :3] = (
        np.array([226.0, 228, 240]) * (1 - ink_f[..., None]) + np.array(_DIGIT) * ink_f[..., None]
    )
    patch[..., 3] = np.maximum(edge_f, ink_f)
    return patch


def printed_board(layout: Layout, *, pitch_mm: float, px_per_mm: float, seed: int) -> np.ndarray:
    """Qwirkle Connect's printed board seen from above: four square pieces of ``rows/2 × cols/2`` cells.

    The canvas is exactly the pieces: the cell grid plus a margin of a fifth of a cell on every side;
    cell ``(r, c)`` covers canvas rows ``(m + r·p) .. (m + (r+1)·p)`` with ``p = pitch_mm · px_per_mm`` and
    ``m`` the margin in pixels (:func:`board_margin_px`). The same arguments give the same canvas (the
    last few are remembered: a game's frames all show the same board).

    Returns
    -------
    ndarray, shape (H, W, 3), dtype float32
        BGR 0..255 (do not modify: it may be shared).
    """
    bonus = tuple(sorted(layout.bonus.items()))
    return _printed_board(
        layout.rows,
        layout.cols,
        bonus=bonus,
        pitch_mm=round(pitch_mm, 6),
        px_per_mm=round(px_per_mm, 6),
        seed=seed,
    )


@functools.lru_cache(maxsize=2)
def _printed_board(
    rows: int,
    cols: int,
    *,
    bonus: tuple[tuple[tuple[int, int], int], ...],
    pitch_mm: float,
    px_per_mm: float,
    seed: int,
) -> np.ndarray:
    rng = np.random.default_rng([seed & 0xFFFFFFFF, 4])
    p = pitch_mm * px_per_mm
    m = board_margin_px(pitch_mm=pitch_mm, px_per_mm=px_per_mm)
    h, w = round(2 * m + rows * p), round(2 * m + cols * p)
    half_r, half_c = max(rows // 2, 1), max(cols // 2, 1)
    # the tint, computed coarse (it is smooth): pale green clouds, stronger towards each piece's edges
    sh, sw = max(h // 8, 4), max(w // 8, 4)
    clouds = np.clip(_smooth(rng, (sh, sw), (rows + 2, cols + 2)) * 0.5 + 0.25, 0, 1)
    ys = ((np.arange(sh, dtype=np.float32) + 0.5) * h / sh - m) / p
    xs = ((np.arange(sw, dtype=np.float32) + 0.5) * w / sw - m) / p
    dy = np.abs(np.clip(ys, 0, rows - 1e-3) % half_r / half_r - 0.5)[:, None]
    dx = np.abs(np.clip(xs, 0, cols - 1e-3) % half_c / half_c - 0.5)[None, :]
    edge = np.clip((np.maximum(dy, dx) - 0.3) * 4, 0, 1)
    t = cv2.resize(np.clip(0.12 * clouds + 0.4 * edge, 0, 0.5), (w, h), interpolation=cv2.INTER_LINEAR)
    bg, tint = np.array(_BOARD_BG, np.float32), np.array(_BOARD_TINT, np.float32)
    img = bg + t[..., None] * (tint - bg)
    lw = max(1, round(0.45 * px_per_mm))
    pieces = [(r0, c0) for r0 in (0, half_r) for c0 in (0, half_c)]
    for k, (r0, c0) in enumerate(pieces):
        top = 0 if r0 == 0 else round(m + r0 * p)
        left = 0 if c0 == 0 else round(m + c0 * p)
        bottom = h if r0 else round(m + half_r * p)
        right = w if c0 else round(m + half_c * p)
        _draw_watermarks(img, (top, left, bottom, right), p, rng)
        for i in range(half_r + 1):
            y = round(m + (r0 + i) * p)
            cv2.line(img, (left, y), (right - 1, y), _GRID, lw, cv2.LINE_AA)
        for j in range(half_c + 1):
            x = round(m + (c0 + j) * p)
            cv2.line(img, (x, top), (x, bottom - 1), _GRID, lw, cv2.LINE_AA)
        edge_w = max(2, round(1.8 * px_per_mm))
        cv2.rectangle(
            img,
            (left + edge_w // 2, top + edge_w // 2),
            (right - 1 - edge_w // 2, bottom - 1 - edge_w // 2),
            _BORDER,
            edge_w,
        )
        cv2.rectangle(img, (left, top), (right - 1, bottom - 1), (40, 70, 40), 1)  # the seam between pieces
        turn = 90 * ((k * 3 + 1) % 4)
        for (r, c), points in bonus:
            if r0 <= r < r0 + half_r and c0 <= c < c0 + half_c:
                angle = turn + (45 if (r + c) % 2 else -45) * (points == 1)
                _draw_bonus(img, (m + r * p, m + c * p), p, str(points), angle)
    img.setflags(write=False)
    return img


def board_margin_px(*, pitch_mm: float, px_per_mm: float) -> float:
    """The printed board canvas's margin around the cell grid, in pixels."""
    return 0.2 * pitch_mm * px_per_mm


def _draw_watermarks(
    img: np.ndarray, box: tuple[int, int, int, int], p: float, rng: np.random.Generator
) -> None:
    """Faint green symbols printed under the grid, as on the real board."""
    top, left, bottom, right = box
    for _ in range(5):
        y, x = rng.uniform(top + p, bottom - p), rng.uniform(left + p, right - p)
        r = p * rng.uniform(0.6, 1.1)
        colour = tuple(float(v) for v in np.array(_BOARD_BG) * 0.9 + np.array(_BOARD_TINT) * 0.1)
        if rng.random() < 0.5:
            cv2.circle(img, (round(x), round(y)), round(r), colour, -1, cv2.LINE_AA)
        else:
            pts = np.array([[x - r, y], [x, y - r], [x + r, y], [x, y + r]], np.int32)
            cv2.fillConvexPoly(img, pts, colour, cv2.LINE_AA)


def _draw_bonus(img: np.ndarray, corner: tuple[float, float], p: float, digit: str, angle: float) -> None:
    """An orange-framed bonus cell with its red digit, top-left corner at canvas ``(row, col)``."""
    y0, x0 = corner
    frame = max(1.0, 0.13 * p)
    a, b = round(y0 + 0.04 * p), round(y0 + 0.96 * p)
    c, d = round(x0 + 0.04 * p), round(x0 + 0.96 * p)
    img[a:b, c:d] = _BONUS_FRAME
    fa, fb, fc, fd = round(a + frame), round(b - frame), round(c + frame), round(d - frame)
    img[fa:fb, fc:fd] = _BONUS_INSIDE
    size = min(fb - fa, fd - fc)
    if size < 6:
        return
    patch = _digit_patch(digit, size, angle)
    region = img[fa : fa + size, fc : fc + size]
    alpha = patch[..., 3:4]
    region[:] = region * (1 - alpha) + patch[..., :3] * alpha
