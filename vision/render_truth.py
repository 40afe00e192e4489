"""The ground truth of a rendered frame, in the dataset JSON format (with the cells a perfect reader
could not be sure of, and the geometry)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np

from table.codec import placed_to_json
from vision.render_camera import Camera
from vision.render_draw import coverage, visible_fraction
from vision.render_scene import Body, Scene, grid_to_world


@dataclass(frozen=True)
class Glare:
    """A reflection: its centre (image row, col), spread (sigma, px) and peak (8-bit levels added)."""

    centre: tuple[float, float]
    sigma: float
    peak: float

    def at(self, point: np.ndarray) -> float:
        d2 = (point[0] - self.centre[0]) ** 2 + (point[1] - self.centre[1]) ** 2
        return float(self.peak * math.exp(-d2 / (2 * self.sigma**2)))


def truth_json(
    scene: Scene,
    cam: Camera,
    faces: dict[tuple[int, int], np.ndarray],
    hand_cover: np.ndarray | None,
    body: Body,
    *,
    glare: Glare | None = None,
    occluded_at: float = 0.15,
    glare_at: float = 80.0,
) -> dict[str, Any]:
    """The dataset truth of a rendered scene.

    ``tiles`` lists every tile at least partly in the picture; ``uncertain`` lists the cells a perfect
    reader could not be sure of, each ``{row, col, reason}``: ``occluded`` (a hand covers at least
    ``occluded_at`` of a tile's top face, or of an empty cell next to the tiles or on the printed board)
    or ``out-of-frame`` (a tile only partly in the picture) or ``glare`` (the lamp's reflection adds at
    least ``glare_at`` 8-bit levels at the centre of a tile's face). ``geometry`` gives the ideal grid's
    homography ``cell_to_image`` (cell ``(row, col)`` on the tiles' top plane -> image ``(row, col)``,
    3×3, homogeneous, row-col order; it ignores drift and jitter) and each tile's top-face corners (image
    ``(row, col)``).
    """
    h, w = scene.size
    tiles, uncertain, quads = [], [], []
    for p in scene.board.placed:
        quad = faces[p.cell]
        seen = visible_fraction(quad, scene.size)
        if seen <= 0:
            continue
        tiles.append(placed_to_json(p))
        quads.append({"row": p.row, "col": p.col, "corners": np.round(quad, 2).tolist()})
        if hand_cover is not None and coverage(hand_cover, quad) >= occluded_at:
            uncertain.append({"row": p.row, "col": p.col, "reason": "occluded"})
        elif seen < 0.999:
            uncertain.append({"row": p.row, "col": p.col, "reason": "out-of-frame"})
        elif glare is not None and glare.at(quad.mean(axis=0)) >= glare_at:
            uncertain.append({"row": p.row, "col": p.col, "reason": "glare"})
    if hand_cover is not None and hand_cover.max() > 0.5:
        rows = np.flatnonzero(hand_cover.max(axis=1) > 0.05)
        cols = np.flatnonzero(hand_cover.max(axis=0) > 0.05)
        box = np.array([rows[0], cols[0]]), np.array([rows[-1], cols[-1]])
        empty = (
            [(r, c) for r in range(scene.layout.rows) for c in range(scene.layout.cols)]
            if scene.layout is not None
            else sorted(scene.board.frontier)
        )
        cells = [cell for cell in empty if cell not in scene.board]
        if cells:
            corners = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], np.float64)
            rc = (np.array(cells, np.float64)[:, None, :] + corners).reshape(-1, 2)
            world = grid_to_world(scene, rc)
            spans = cam.project(np.concatenate([world, np.zeros((len(world), 1))], axis=1)).reshape(-1, 4, 2)
            near = ~((spans.max(axis=1) < box[0]).any(axis=1) | (spans.min(axis=1) > box[1]).any(axis=1))
            for cell, quad in zip(np.array(cells)[near], spans[near], strict=True):
                if coverage(hand_cover, quad) >= occluded_at:
                    uncertain.append({"row": int(cell[0]), "col": int(cell[1]), "reason": "occluded"})
    grid = np.array([[0, 0], [0, 4], [4, 4], [4, 0]], np.float64)
    world = np.concatenate([grid_to_world(scene, grid), np.full((4, 1), -body.height)], axis=1)
    to_image = cv2.getPerspectiveTransform(grid.astype(np.float32), cam.project(world).astype(np.float32))
    return {
        "width": w,
        "height": h,
        "tiles": tiles,
        "uncertain": sorted(uncertain, key=lambda u: (u["row"], u["col"])),
        "variant": scene.variant,
        "conditions": asdict(scene.conditions),
        "hand": asdict(scene.hand) if scene.hand is not None else None,
        "seed": scene.seed,
        "table_seed": scene.table_seed,
        "geometry": {
            "px_per_tile": scene.conditions.px_per_tile,
            "cell_to_image": np.round(to_image / to_image[2, 2], 8).tolist(),
            "faces": quads,
        },
    }
