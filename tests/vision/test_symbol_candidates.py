"""vision/symbol_candidates.py: the working copy of a frame and the candidates the grid is fitted through."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from table import tileset
from vision import read_table, symbol_candidates
from vision.evaluate import score_frame
from vision.render import random_scene, render


def test_herkle_in_dim_light_reads_its_shields_or_falls_back_from_noise_to_paint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a tenth of the light on dark felt: at full resolution the shield detector's cores are the table's
    # noise, and smoothed they are the shields, which the grid holds; without the smoothing it finds no
    # shields (or none a grid holds), the pieces of paint then find the tiles; either way nothing is read
    # wrong, and by the shields more is read right (36 of 37 tiles against 33)
    from dataclasses import replace as changed

    from calibration.lighting import SHIFTS, shift_light
    from vision import shield_detect
    from vision.shield_detect import find_shields

    scene = random_scene(seed=0, variant="herkle", size=(960, 1280))
    conditions = changed(scene.conditions, table="green-felt", px_per_tile=40.0, tilt=3.0, light="neutral")
    out = render(changed(scene, conditions=conditions))
    image = shift_light(out.image, SHIFTS["dim"], seed=1)
    shields = symbol_candidates._found_by(image, find_shields)
    assert shields is not None and shields[3].placed.mean() >= symbol_candidates.SHIELDS_PLACED
    by_shields = score_frame(
        read_table(image, tileset=tileset("herkle")), out.truth, layout=None, where="dim"
    )
    monkeypatch.setattr(shield_detect, "SMOOTHING", (1,))
    shields = symbol_candidates._found_by(image, find_shields)
    assert shields is None or shields[3].placed.mean() < symbol_candidates.SHIELDS_PLACED
    by_paint = score_frame(read_table(image, tileset=tileset("herkle")), out.truth, layout=None, where="dim")
    assert by_shields.wrong == by_shields.extra == by_paint.wrong == by_paint.extra == 0
    assert by_shields.right > by_paint.right >= by_paint.tiles // 2, (
        by_shields.summary(),
        by_paint.summary(),
    )


@pytest.mark.parametrize("factor", [2, 3, 4, 5, 7])
def test_the_working_copy_is_the_area_mean_of_each_block(factor: int) -> None:
    # a rendered frame cut to whole blocks, and blocks of every sum an odd factor's box filter could round
    # differently from INTER_AREA (an even factor, whose means can fall halfway, keeps INTER_AREA itself)
    frame = render(random_scene(seed=1, variant="classic", size=(420, 630))).image
    frame = frame[: frame.shape[0] // factor * factor, : frame.shape[1] // factor * factor]
    sums = np.arange(255 * factor * factor + 1)
    blocks = sums[:, None] // factor**2 + (np.arange(factor**2)[None] < (sums % factor**2)[:, None])
    side = factor * len(sums)
    crafted = blocks.reshape(1, len(sums), factor, factor).transpose(0, 2, 1, 3).reshape(factor, side)
    crafted = np.repeat(crafted.astype(np.uint8)[..., None], 3, axis=2)
    for image in (frame, np.ascontiguousarray(crafted), np.ascontiguousarray(crafted[:, ::-1])):
        h, w = image.shape[:2]
        area = cv2.resize(image, (w // factor, h // factor), interpolation=cv2.INTER_AREA)
        assert np.array_equal(symbol_candidates.working_copy(image, 1.0 / factor), area)
