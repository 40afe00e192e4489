"""What a rendered photo shows: the scene (board, edition, conditions, hand, seeds), the physical tiles,
where cells land in the picture, and random scenes over the whole range the reader must handle.

See :mod:`vision.render` for the renderer itself and ``docs/render.md`` for the conditions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from table import Board, Layout, connect_layout, tileset
from table.simulate import random_board
from vision.render_camera import Camera, camera_for
from vision.render_draw import rotate
from vision.render_hand import SKINS, Hand
from vision.render_table import TABLES

#: Light conditions: name -> (BGR gain, exposure, extra noise factor).
LIGHTS: dict[str, tuple[tuple[float, float, float], float, float]] = {
    "neutral": ((1.0, 1.0, 1.0), 1.0, 1.0),
    "warm": ((0.70, 0.90, 1.08), 1.0, 1.0),
    "cool": ((1.10, 1.0, 0.84), 1.0, 1.0),
    "dim": ((0.92, 0.97, 1.02), 0.55, 2.2),
}


@dataclass(frozen=True)
class Body:
    """A tile's physical size in millimetres: face side, height, and the grid pitch it is laid on."""

    face: float
    height: float
    pitch: float


BLOCK = Body(face=29.0, height=10.0, pitch=30.5)
CUBE = Body(face=22.0, height=22.0, pitch=23.0)
CONNECT_PITCH = 30.5


@dataclass(frozen=True, kw_only=True)
class Conditions:
    """How the photo is taken: the named conditions a dataset varies.

    Attributes
    ----------
    light : str
        ``neutral``, ``warm``, ``cool`` or ``dim`` (colour cast and exposure, see :data:`LIGHTS`).
    table : str
        The surface, one of :data:`vision.render_table.TABLES`.
    px_per_tile : float
        Image pixels per grid cell at the point the camera aims at (20..400).
    tilt : float
        Degrees the camera leans from straight overhead (0..60).
    tilt_direction : float
        Degrees: the side the camera leans from (0 = the photo's bottom side, growing towards its right).
    rotation : float
        Degrees the whole layout is turned on the table, clockwise in the image.
    fov : float
        Horizontal field of view in degrees (sets the strength of the perspective).
    jitter : float
        Millimetres (standard deviation) each tile sits off its cell.
    askew : float
        Degrees (standard deviation) each tile is turned off the grid.
    drift : float
        Millimetres by which rows and columns of a free table bend (0 = straight).
    gaps : float
        Millimetres by which the layout is pulled apart along one row seam and one column seam.
    light_direction, light_elevation : float
        Degrees: where the main light comes from (azimuth like ``tilt_direction``) and how high it stands.
    gradient : float
        Strength of the brightness falloff across the picture (0 = even light).
    exposure : float
        Overall brightness multiplier on top of the light's own.
    blur : float
        Lens blur, Gaussian sigma in pixels (0 = sharp).
    noise : float
        Sensor noise, standard deviation in 8-bit levels at mid-grey.
    jpeg_quality : int or None
        JPEG quality (10..100) of the camera's encoding; None keeps the raw frame.
    shift : (float, float)
        Cells by which the layout sits off the aimed-at point (rows, cols): a bumped camera.
    imperfection : float
        Scales the irregularity of the hand-painted symbols (0 = perfect).
    glare : float
        Strength (0..1) of the lamp's reflection on the glossy tile tops around one spot.
    """

    light: str = "neutral"
    table: str = "dark-wood"
    px_per_tile: float = 60.0
    tilt: float = 0.0
    tilt_direction: float = 0.0
    rotation: float = 0.0
    fov: float = 62.0
    jitter: float = 0.4
    askew: float = 1.0
    drift: float = 0.0
    gaps: float = 0.0
    light_direction: float = 150.0
    light_elevation: float = 60.0
    gradient: float = 0.2
    exposure: float = 1.0
    blur: float = 0.5
    noise: float = 1.5
    jpeg_quality: int | None = 90
    shift: tuple[float, float] = (0.0, 0.0)
    imperfection: float = 1.0
    glare: float = 0.0

    def __post_init__(self) -> None:
        if self.light not in LIGHTS:
            raise ValueError(f"light {self.light!r}: unknown (known: {', '.join(LIGHTS)})")
        if self.table not in TABLES:
            raise ValueError(f"table {self.table!r}: unknown (known: {', '.join(TABLES)})")
        checks = {
            "px_per_tile": (20.0, 400.0),
            "tilt": (0.0, 60.0),
            "fov": (10.0, 110.0),
            "light_elevation": (15.0, 90.0),
            "jitter": (0.0, 10.0),
            "askew": (0.0, 20.0),
            "drift": (0.0, 40.0),
            "gaps": (0.0, 60.0),
            "gradient": (0.0, 1.0),
            "exposure": (0.05, 4.0),
            "blur": (0.0, 20.0),
            "noise": (0.0, 60.0),
            "imperfection": (0.0, 5.0),
            "glare": (0.0, 1.0),
        }
        for name, (lo, hi) in checks.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise ValueError(f"{name} must be {lo:g}..{hi:g}, got {value}")
        if self.jpeg_quality is not None and not 10 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 10..100 or None, got {self.jpeg_quality}")


@dataclass(frozen=True)
class Scene:
    """Everything a frame shows: the board, the edition, the conditions, a hand, and the seeds.

    Attributes
    ----------
    board : Board
        The tiles on the table (board cells 0..15 for Connect).
    variant : str
        The edition (``classic``, ``colour-blind``, ``herkle``, ``cubes``, ``connect``).
    conditions : Conditions
        Camera, light, table and imperfections.
    size : (int, int)
        Image height and width in pixels.
    layout : Layout or None
        The printed board; Connect's standard one when None and the variant is ``connect``.
    centre : (float, float) or None
        The cell position ``(row, col)`` (cell ``(r, c)`` spans ``r..r+1``, ``c..c+1``) placed at the aimed-at
        point before ``conditions.shift``; by default the middle of the board's bounding box (or layout).
        Fix it to keep a growing board still between frames.
    hand : Hand or None
        A hand over the table.
    table_seed : int
        Seeds the physical table: its texture, where each tile sits and how its paint looks. Keep it for
        all the frames of one game.
    seed : int
        Seeds what changes from frame to frame (sensor noise, the hand's texture).
    """

    board: Board
    variant: str = "classic"
    conditions: Conditions = field(default_factory=Conditions)
    size: tuple[int, int] = (480, 640)
    layout: Layout | None = None
    centre: tuple[float, float] | None = None
    hand: Hand | None = None
    table_seed: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        tiles = tileset(self.variant)
        for p in self.board.placed:
            tiles.check(p.tile)
        h, w = self.size
        if not (16 <= h <= 8192 and 16 <= w <= 8192):
            raise ValueError(f"size must be 16..8192 pixels each way, got {h}×{w}")
        if self.layout is None and self.variant == "connect":
            object.__setattr__(self, "layout", connect_layout())


def body_of(variant: str) -> Body:
    """The physical tile of an edition: cubes for Qwirkle Cubes, blocks otherwise."""
    if variant == "cubes":
        return CUBE
    if variant == "connect":
        return Body(BLOCK.face, BLOCK.height, CONNECT_PITCH)
    return BLOCK


def centre_of(scene: Scene) -> tuple[float, float]:
    if scene.centre is not None:
        return scene.centre
    if scene.layout is not None:
        return scene.layout.rows / 2, scene.layout.cols / 2
    if not scene.board:
        return 0.5, 0.5
    (r0, c0), (r1, c1) = scene.board.bounds
    return (r0 + r1 + 1) / 2, (c0 + c1 + 1) / 2


def grid_to_world(scene: Scene, cells_rc: np.ndarray) -> np.ndarray:
    """World ``(X, Y)`` millimetres of cell positions ``(row, col)`` (N, 2) on the ideal grid (no drift or
    jitter); cell ``(r, c)``'s centre is at ``(r + 0.5, c + 0.5)``."""
    c = scene.conditions
    pitch = body_of(scene.variant).pitch
    cr, cc = centre_of(scene)
    rc = np.asarray(cells_rc, np.float64)
    local = np.stack([(rc[:, 1] - cc) * pitch, (rc[:, 0] - cr) * pitch], axis=1)
    return rotate(local, c.rotation) - np.array([c.shift[1], c.shift[0]]) * pitch


def scene_camera(scene: Scene) -> Camera:
    """The camera that photographs ``scene``."""
    c = scene.conditions
    return camera_for(
        size=scene.size,
        px_per_mm=c.px_per_tile / body_of(scene.variant).pitch,
        fov=c.fov,
        tilt=c.tilt,
        tilt_direction=c.tilt_direction,
    )


def cells_to_image(scene: Scene, cells_rc: np.ndarray, *, on_top: bool = True) -> np.ndarray:
    """Image ``(row, col)`` of cell positions ``(row, col)`` (N, 2) of the ideal grid (cell ``(r, c)``'s
    centre is ``(r + 0.5, c + 0.5)``), on the tiles' top faces or (``on_top=False``) on the table."""
    world = grid_to_world(scene, np.asarray(cells_rc, np.float64).reshape(-1, 2))
    height = body_of(scene.variant).height if on_top else 0.0
    return scene_camera(scene).project(np.concatenate([world, np.full((len(world), 1), -height)], axis=1))


def random_conditions(rng: np.random.Generator, *, variant: str = "classic", **fixed: Any) -> Conditions:
    """Conditions drawn at random over the whole range the reader must handle; ``fixed`` ones are kept.

    Unknown names in ``fixed`` raise ``TypeError`` (from :class:`Conditions`).
    """
    free = variant != "connect"
    if rng.random() < 0.5 or not free:
        rotation = float(rng.normal(0, 4 if free else 2.5) + (90 * rng.integers(4) if free else 0))
    else:
        rotation = float(rng.uniform(0, 360))
    drawn: dict[str, Any] = {
        "light": str(rng.choice(list(LIGHTS))),
        "table": str(rng.choice(TABLES)),
        "px_per_tile": float(math.exp(rng.uniform(math.log(40), math.log(130)))),
        "tilt": float(abs(rng.normal(0, 14))) % 40,
        "tilt_direction": float(rng.uniform(0, 360)),
        "rotation": rotation % 360,
        "fov": float(rng.uniform(50, 75)),
        "jitter": float(rng.uniform(0.2, 1.5)),
        "askew": float(rng.uniform(0.3, 3.0)),
        "drift": float(rng.uniform(0, 5)) if free and rng.random() < 0.5 else 0.0,
        "gaps": float(rng.uniform(2, 15)) if free and rng.random() < 0.2 else 0.0,
        "light_direction": float(rng.uniform(0, 360)),
        "light_elevation": float(rng.uniform(35, 80)),
        "gradient": float(rng.uniform(0, 0.5)),
        "exposure": float(rng.uniform(0.85, 1.15)),
        "blur": float(rng.uniform(0.2, 1.4)),
        "noise": float(rng.uniform(0.5, 4.0)),
        "jpeg_quality": int(rng.integers(60, 96)),
        "imperfection": float(rng.uniform(0.5, 1.5)),
        "glare": float(rng.uniform(0.3, 1.0)) if rng.random() < 0.15 else 0.0,
    }
    drawn.update(fixed)
    return Conditions(**drawn)


def random_hand(rng: np.random.Generator, *, near: tuple[float, float] = (0.5, 0.5)) -> Hand:
    """A hand reaching in from a random side towards ``near`` (image fractions)."""
    return Hand(
        row=float(np.clip(near[0] + rng.normal(0, 0.18), 0.05, 0.95)),
        col=float(np.clip(near[1] + rng.normal(0, 0.18), 0.05, 0.95)),
        angle=float(rng.uniform(0, 360)),
        size=float(rng.uniform(2.3, 3.2)),
        skin=SKINS[int(rng.integers(len(SKINS)))],
        lift=float(rng.uniform(50, 150)),
    )


def random_scene(
    *,
    seed: int,
    variant: str = "classic",
    size: tuple[int, int] = (480, 640),
    tiles: int | None = None,
    hand: float = 0.25,
    **conditions: Any,
) -> Scene:
    """A random legal board under random conditions, all from ``seed``.

    Parameters
    ----------
    seed : int
        Seeds everything: the board, the conditions not given, the table, the hand, the noise.
    variant : str
        The edition.
    size : (int, int)
        Image height and width.
    tiles : int, optional
        How many tiles the board holds at least, grown by legal play (default: random, 1..70; Connect
        adds them to its 24 start tiles).
    hand : float
        Chance (0..1) that a hand hides part of the table.
    **conditions
        Fixed values for any :class:`Conditions` field (``light="dim"``, ``tilt=30.0``, ...).
    """
    if not 0.0 <= hand <= 1.0:
        raise ValueError(f"hand must be a chance 0..1, got {hand}")
    rng = np.random.default_rng([seed & 0xFFFFFFFF, 1])
    n = int(rng.integers(1, 71)) if tiles is None else tiles
    board = random_board(n + 24 * (variant == "connect"), seed=seed, variant=variant)
    if "px_per_tile" not in conditions:
        layout = connect_layout() if variant == "connect" else None
        rows, cols = (
            (layout.rows, layout.cols)
            if layout
            else (board.bounds[1][0] - board.bounds[0][0] + 1, board.bounds[1][1] - board.bounds[0][1] + 1)
            if board
            else (1, 1)
        )
        fit = 0.9 * min(size[0], size[1]) / (max(rows, cols) + 1)
        conditions["px_per_tile"] = float(
            np.clip(min(fit, math.exp(rng.uniform(math.log(40), math.log(130)))), 20, 400)
        )
    cond = random_conditions(rng, variant=variant, **conditions)
    return Scene(
        board,
        variant,
        cond,
        size,
        hand=random_hand(rng) if rng.random() < hand else None,
        table_seed=seed,
        seed=seed,
    )
