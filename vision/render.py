"""A seeded renderer of realistic table photos with exact ground truth.

It draws the real black wooden blocks (bevelled, with their side faces when the camera leans) with their
painted symbols in every edition, on a table (wood, laminate, felt, a checked cloth) or on Qwirkle
Connect's printed board, lit warm, cool, neutral or dim with gradients and soft shadows, seen through a
pinhole camera that may be tilted, then blurred, noised and JPEG-compressed; optionally a hand hides
part of it. The same :class:`Scene` renders to the same pixels, bit for bit.

::

    from vision.render import Conditions, random_scene, render

    scene = random_scene(seed=7, variant="classic", size=(480, 640), light="warm", tilt=20.0)
    out = render(scene)
    out.image            # (480, 640, 3) uint8 BGR, as a camera would deliver it (JPEG artefacts included)
    out.truth["tiles"]   # the contract's placed tiles; out.truth["uncertain"]: cells a hand hides

Coordinates: image points are ``(row, col)``; :func:`vision.render_camera.to_xy` is the one place where
they meet OpenCV's ``(x, y)``.

The scene and its conditions live in :mod:`vision.render_scene`, the truth in :mod:`vision.render_truth`,
tile faces in :mod:`vision.render_tiles`, tables and the printed board in :mod:`vision.render_table`, the
hand in :mod:`vision.render_hand`, the camera in :mod:`vision.render_camera`; this module draws.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from table import PlacedTile, Tile, tileset
from vision.render_camera import Camera
from vision.render_draw import fill_quad, paste_quad, rotate, warp_canvas
from vision.render_hand import Hand, draw_hand
from vision.render_scene import (
    LIGHTS,
    Body,
    Conditions,
    Scene,
    body_of,
    cells_to_image,
    centre_of,
    grid_to_world,
    random_conditions,
    random_hand,
    random_scene,
    scene_camera,
)
from vision.render_table import board_margin_px, printed_board, table_surface
from vision.render_tiles import paint_face, paint_side
from vision.render_truth import Glare, truth_json

__all__ = [
    "Conditions",
    "Hand",
    "Rendered",
    "Scene",
    "cells_to_image",
    "random_conditions",
    "random_hand",
    "random_scene",
    "render",
    "scene_camera",
]


@dataclass(frozen=True)
class Rendered:
    """A rendered frame.

    Attributes
    ----------
    image : ndarray, shape (H, W, 3), dtype uint8
        BGR, after the camera's JPEG encoding if the conditions ask for one.
    jpeg : bytes or None
        That encoding (write it as it is: re-encoding would compress twice).
    truth : dict
        The dataset's truth JSON (see :func:`truth_json`) without ``image``.
    """

    image: np.ndarray
    jpeg: bytes | None
    truth: dict[str, Any]


@dataclass(frozen=True)
class _Tile:
    placed: PlacedTile
    centre: np.ndarray  # world (X, Y) mm
    angle: float  # degrees, clockwise in the image
    turns: int  # quarter turns of the painted face


def _cell_seed(table_seed: int, cell: tuple[int, int], salt: int) -> tuple[int, int, int, int]:
    return table_seed & 0xFFFFFFFF, cell[0] + (1 << 20), cell[1] + (1 << 20), salt


def _cell_rng(table_seed: int, cell: tuple[int, int], salt: int) -> np.random.Generator:
    return np.random.default_rng(list(_cell_seed(table_seed, cell, salt)))


def _face(scene: Scene, tile: Tile, size: int, cell: tuple[int, int], salt: int) -> np.ndarray:
    """The painted face of the physical tile at ``cell`` (the same tile looks the same in every frame)."""
    seed = _cell_seed(scene.table_seed, cell, salt)
    return _painted(scene.variant, tile, size, scene.conditions.imperfection, seed)


@functools.lru_cache(maxsize=1024)
def _painted(variant: str, tile: Tile, size: int, imperfection: float, seed: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(list(seed))
    face = paint_face(tile, variant=variant, size=size, rng=rng, imperfection=imperfection)
    face.setflags(write=False)
    return face


def _layout_tiles(scene: Scene) -> list[_Tile]:
    """Where each tile physically lies: its cell, bent by drift and seams, nudged by jitter and askew."""
    c = scene.conditions
    free = scene.layout is None
    seed_rng = np.random.default_rng([scene.table_seed & 0xFFFFFFFF, 7])
    waves = seed_rng.uniform(0, 2 * math.pi, 4)
    periods = seed_rng.uniform(5, 12, 4)
    seam = seed_rng.integers(-2, 3, 2)
    cr, cc = centre_of(scene)
    out = []
    for p in scene.board.placed:
        rng = _cell_rng(scene.table_seed, p.cell, 1)
        dy, dx = rng.normal(0, c.jitter, 2)
        if free:
            dy += c.drift * (
                math.sin(p.col / periods[0] * 2 * math.pi + waves[0])
                + 0.5 * math.sin(p.col / periods[1] + waves[1])
            )
            dx += c.drift * (
                math.sin(p.row / periods[2] * 2 * math.pi + waves[2])
                + 0.5 * math.sin(p.row / periods[3] + waves[3])
            )
            dy += c.gaps * (p.row >= cr + seam[0])
            dx += c.gaps * (p.col >= cc + seam[1])
        world = grid_to_world(scene, np.array([[p.row + 0.5, p.col + 0.5]]))[0]
        world = world + rotate(np.array([[dx, dy]]), c.rotation)[0]
        turns = 0 if scene.variant == "herkle" else int(rng.integers(4))
        out.append(_Tile(p, world, c.rotation + float(rng.normal(0, c.askew)), turns))
    return out


def _corners(t: _Tile, body: Body, height: float) -> np.ndarray:
    """World (X, Y, Z) of the corners of a tile top (or base) ``height`` mm up: TL, TR, BR, BL."""
    s = body.face / 2
    local = rotate(np.array([[-s, -s], [s, -s], [s, s], [-s, s]]), t.angle) + t.centre
    return np.concatenate([local, np.full((4, 1), -height)], axis=1)


def _table_layer(
    scene: Scene, cam: Camera, rng: np.random.Generator, tiles: list[_Tile], body: Body
) -> np.ndarray:
    """The table (and the printed board) with the tiles' shadows, warped into the camera's view."""
    c = scene.conditions
    h, w = scene.size
    px_per_mm = c.px_per_tile / body.pitch
    edge = np.array(
        [[r, col] for r in np.linspace(0, h - 1, 5) for col in np.linspace(0, w - 1, 5)], np.float64
    )
    world = cam.unproject_to_table(edge)
    lo, hi = world.min(axis=0) - 20, world.max(axis=0) + 20
    span = hi - lo
    scale = min(0.7 * px_per_mm, math.sqrt(0.35 * h * w / float(span[0] * span[1])))
    ch, cw = max(int(span[1] * scale), 8), max(int(span[0] * scale), 8)

    def canvas_h(world_xy_corners: np.ndarray, canvas_rc: np.ndarray) -> np.ndarray:
        return cam.plane_homography(canvas_rc, world_xy_corners)

    corners_rc = np.array([[0, 0], [0, cw], [ch, cw], [ch, 0]], np.float64) - 0.5
    corners_world = lo + (corners_rc[:, ::-1] + 0.5) / scale
    surface = table_surface(c.table, (ch, cw), px_per_mm=scale, seed=scene.table_seed)
    image = warp_canvas(surface, canvas_h(corners_world, corners_rc), scene.size)
    if scene.layout is not None:
        board_scale = min(
            px_per_mm, 2.0 * max(h, w) / (max(scene.layout.rows, scene.layout.cols) * body.pitch)
        )
        printed = printed_board(
            scene.layout, pitch_mm=body.pitch, px_per_mm=board_scale, seed=scene.table_seed
        )
        m = board_margin_px(pitch_mm=body.pitch, px_per_mm=board_scale)
        bh, bw = printed.shape[:2]
        prc = np.array([[0, 0], [0, bw], [bh, bw], [bh, 0]], np.float64) - 0.5
        cells = (prc + 0.5 - m) / (body.pitch * board_scale)
        on_board = canvas_h(grid_to_world(scene, cells), prc)
        cv2.warpPerspective(
            printed, on_board, (w, h), dst=image, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
        )
    # shadows: each tile's footprint swept away from the light, blurred, drawn on a coarse table canvas
    s2 = scale / 2
    sh, sw = max(int(span[1] * s2), 8), max(int(span[0] * s2), 8)
    shadow = np.zeros((sh, sw), np.float32)
    az, el = math.radians(c.light_direction), math.radians(c.light_elevation)
    away = -np.array([math.sin(az), math.cos(az)]) * body.height / math.tan(el)
    for t in tiles:
        base = _corners(t, body, 0.0)[:, :2]
        hull = cv2.convexHull(((np.concatenate([base, base + away]) - lo) * s2).astype(np.float32))
        cv2.fillConvexPoly(shadow, np.round(hull * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
    soft = cv2.GaussianBlur(shadow, (0, 0), max(0.8, 2.5 * s2))
    contact = cv2.GaussianBlur(shadow, (0, 0), max(0.5, 0.8 * s2))
    light = 1 - np.clip(0.35 * soft + 0.25 * contact, 0, 0.6)
    src = np.array([[0, 0], [0, sw], [sh, sw], [sh, 0]], np.float64) - 0.5
    lit = warp_canvas(
        light, canvas_h(lo + (src[:, ::-1] + 0.5) / s2, src), scene.size, border=cv2.BORDER_REPLICATE
    )
    image *= lit[..., None]
    return image


def _face_size(quad: np.ndarray) -> int:
    d = quad - quad[[1, 2, 3, 0]]
    edge = math.sqrt(float((d * d).sum(axis=1).max()))
    return int(np.clip(round(edge * 1.25), 12, 320))


def _draw_tiles(
    image: np.ndarray, scene: Scene, cam: Camera, tiles: list[_Tile], body: Body
) -> dict[tuple[int, int], np.ndarray]:
    """Paint every tile, farthest first, with the side faces the camera sees; returns each cell's
    top-face quad in the image."""
    c = scene.conditions
    az, el = math.radians(c.light_direction), math.radians(c.light_elevation)
    to_light = np.array([math.sin(az), math.cos(az)]) * math.cos(el)
    top_shade = 0.55 + 0.45 * math.sin(el)
    faces: dict[tuple[int, int], np.ndarray] = {}
    ts = tileset(scene.variant)
    if not tiles:
        return faces
    corners = np.array(
        [[_corners(t, body, body.height), _corners(t, body, 0.0)] for t in tiles]
    )  # (N, 2, 4, 3)
    projected = cam.project(corners)  # (N, 2, 4, 2)
    # Painter's order for equal blocks on a plane: farthest from the point under the camera first, so a
    # nearer block covers the side faces of the ones behind it (depth along the optical axis ties for
    # blocks under an overhead camera and let a side face paint over its neighbour's top).
    far = np.hypot(*(np.array([t.centre for t in tiles]) - cam.centre[:2]).T)
    sides: dict[tuple[int, int], np.ndarray] = {}
    side_rng = np.random.default_rng([scene.table_seed & 0xFFFFFFFF, 5])
    eye = cam.centre[:2]
    for k in np.argsort(-far, kind="stable"):
        t = tiles[k]
        salt = zlib.crc32(t.placed.tile.code.encode()) & 0xFFFF
        top_img, base_img = projected[k, 0], projected[k, 1]
        top = corners[k, 0, :, :2]
        for i in range(4):
            j = (i + 1) % 4
            edge = top[j] - top[i]
            normal = np.array([edge[1], -edge[0]]) / (np.hypot(edge[0], edge[1]) or 1.0)
            mid = (top[i] + top[j]) / 2
            if np.dot(normal, mid - t.centre) < 0:
                normal = -normal
            if np.dot(normal, eye - mid) <= 0:
                continue
            quad = np.array([top_img[i], top_img[j], base_img[j], base_img[i]])
            size = _face_size(quad)
            if scene.variant == "cubes":
                shape = ts.shapes[(ts.shapes.index(t.placed.tile.shape) + 1 + i) % len(ts.shapes)]
                side = Tile(t.placed.tile.colour, shape)
                texture = _face(scene, side, size, t.placed.cell, salt + 1 + i)
            else:
                key = (max(4, round(size * body.height / body.face)), size)
                if key not in sides:
                    sides[key] = paint_side(*key, rng=side_rng)
                texture = sides[key]
            shade = (0.42 + 0.5 * max(0.0, float(np.dot(normal, to_light)))) / top_shade
            paste_quad(image, texture, quad, gain=min(shade, 1.2))
        size = _face_size(top_img)
        texture = _face(scene, t.placed.tile, size, t.placed.cell, salt)
        texture = np.ascontiguousarray(np.rot90(texture, t.turns))
        paste_quad(image, texture, top_img)
        faces[t.placed.cell] = top_img
    return faces


def _light(image: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Colour cast, exposure, brightness gradient and vignette, lens blur and sensor noise."""
    c = scene.conditions
    h, w = scene.size
    gain, exposure, noise_factor = LIGHTS[c.light]
    gh, gw = max(h // 16, 2), max(w // 16, 2)
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    ys, xs = ys / (gh - 1) - 0.5, xs / (gw - 1) - 0.5
    az = math.radians(c.light_direction)
    ramp = xs * math.sin(az) + ys * math.cos(az)
    field = (1 + c.gradient * ramp - 0.6 * c.gradient * (xs**2 + ys**2)) * (exposure * c.exposure)
    field3 = field[..., None] * np.asarray(gain, np.float32)[None, None]
    np.multiply(image, cv2.resize(field3, (w, h), interpolation=cv2.INTER_LINEAR), out=image)
    if c.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), c.blur)
    sd = c.noise * noise_factor
    if sd > 0:
        # demosaiced, denoised sensor noise: a little blotchy, stronger where it is bright (shot noise)
        coarse = cv2.resize(image, (gw * 2, gh * 2), interpolation=cv2.INTER_AREA).mean(axis=2)
        level = cv2.resize(np.sqrt(np.clip(coarse, 1, 255) * (1 / 128)) * sd, (w, h))
        half = (max(h // 2, 1), max(w // 2, 1))
        luma = cv2.resize(rng.standard_normal(half, dtype=np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        luma *= level * np.float32(1.4)  # 1.4: the upsampling's smoothing took some of the spread away
        image += luma[..., None]
        chroma = rng.standard_normal((half[0] // 2, half[1] // 2, 3), dtype=np.float32) * (0.5 * sd)
        image += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    return image


def render(scene: Scene) -> Rendered:
    """Render ``scene`` to a photo and its ground truth.

    Parameters
    ----------
    scene : Scene
        What to draw; equal scenes give equal images, bit for bit.

    Returns
    -------
    Rendered
        The BGR uint8 image (H, W, 3), its JPEG bytes (or None), and the truth JSON.
    """
    c = scene.conditions
    body = body_of(scene.variant)
    cam = scene_camera(scene)
    rng = np.random.default_rng([scene.seed & 0xFFFFFFFF, 11])
    tiles = _layout_tiles(scene)
    image = _table_layer(scene, cam, rng, tiles, body).astype(np.float32)
    faces = _draw_tiles(image, scene, cam, tiles, body)
    spot = _glare(image, scene, faces) if c.glare > 0 and faces else None
    hand_cover = None
    if scene.hand is not None:
        az, el = math.radians(c.light_direction), math.radians(c.light_elevation)
        fall = scene.hand.lift / math.tan(el) * c.px_per_tile / body.pitch
        offset = (-math.cos(az) * fall, -math.sin(az) * fall)
        hand_cover = draw_hand(image, scene.hand, px_per_tile=c.px_per_tile, shadow_offset=offset, rng=rng)
    image = _light(image, scene, rng)
    final = cv2.convertScaleAbs(np.maximum(image, 0, out=image))  # rounds and saturates to 0..255
    jpeg = None
    if c.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", final, [cv2.IMWRITE_JPEG_QUALITY, int(c.jpeg_quality)])
        if not ok:
            raise RuntimeError("OpenCV could not encode the rendered frame as JPEG")
        jpeg = buf.tobytes()
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise RuntimeError("OpenCV could not decode its own JPEG of the rendered frame")
        final = decoded
    truth = truth_json(scene, cam, faces, hand_cover, body, glare=spot)
    return Rendered(final, jpeg, truth)


def _glare(image: np.ndarray, scene: Scene, faces: dict[tuple[int, int], np.ndarray]) -> Glare:
    """Add the lamp's reflection on the tile tops around one tile (fixed for a table and its light)."""
    c = scene.conditions
    rng = np.random.default_rng([scene.table_seed & 0xFFFFFFFF, 13, round(c.light_direction)])
    cells = sorted(faces)
    centre = faces[cells[int(rng.integers(len(cells)))]].mean(axis=0)
    spot = Glare((float(centre[0]), float(centre[1])), 0.8 * c.px_per_tile, 190.0 * c.glare)
    h, w = image.shape[:2]
    reach = 3 * spot.sigma
    r0, r1 = max(int(centre[0] - reach), 0), min(int(centre[0] + reach) + 1, h)
    c0, c1 = max(int(centre[1] - reach), 0), min(int(centre[1] + reach) + 1, w)
    if r1 <= r0 or c1 <= c0:
        return spot
    glossy = np.zeros((r1 - r0, c1 - c0), np.float32)
    for quad in faces.values():
        if (quad.max(axis=0) >= (r0, c0)).all() and (quad.min(axis=0) <= (r1, c1)).all():
            fill_quad(glossy, quad - np.array([r0, c0]))
    ys, xs = np.ogrid[r0:r1, c0:c1]
    d2 = ((ys - centre[0]) ** 2 + (xs - centre[1]) ** 2).astype(np.float32)
    image[r0:r1, c0:c1] += (glossy * spot.peak * np.exp(-d2 / (2 * spot.sigma**2)))[..., None]
    return spot
