from __future__ import annotations

from typing import Any

import pytest

from table import tileset
from vision import occupied, read_table
from vision.evaluate import score_frame
from vision.render import random_scene, render


def test_side_faces_of_cubes_under_a_steep_camera_are_not_read_as_tiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # forty cubes under a 35° camera: the near side face of a cube at the layout's edge shows a symbol of
    # its top face's colour, squashed and shaded, in the cell in front of it; those cells are dropped
    # (five of them were read as tiles), no true tile with them
    scene = random_scene(
        seed=15, variant="cubes", size=(600, 800), tiles=40, hand=0.0, tilt=35.0, light="neutral"
    )
    out = render(scene)
    cubes = tileset("cubes")

    def scored() -> Any:
        return score_frame(read_table(out.image, tileset=cubes), out.truth, layout=None, where="r")

    kept = scored()
    monkeypatch.setattr(occupied, "without_side_faces", lambda located, cut: located)
    sides = scored()
    assert kept.extra == kept.wrong == 0 and kept.right == sides.right, (kept.summary(), sides.summary())
    assert sides.extra >= 3, sides.summary()
