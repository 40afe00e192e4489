"""device/quality.py: focus, light and colour-cast measures on rendered tables (and, when present, the
real photos), with the doctor's thresholds."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from device.doctor import MAX_CLIPPED, MAX_EDGE_WIDTH, MAX_TINT, MAX_WARMTH, MIN_BRIGHT
from device.quality import colour_cast, edge_width, light_level
from vision.render import random_scene, render
from vision.render_table import TABLES


def table(seed: int, **conditions: object) -> np.ndarray:
    fixed = {"noise": 1.5, "jpeg_quality": 90, "exposure": 1.0} | conditions
    return render(random_scene(seed=seed, size=(360, 480), hand=0.0, **fixed)).image


@pytest.mark.parametrize("seed", range(4))
def test_focus_separates_sharp_from_soft(seed: int) -> None:
    sharp = edge_width(table(seed, blur=0.3))
    soft = edge_width(table(seed, blur=5.0))
    assert sharp is not None and soft is not None
    assert sharp < MAX_EDGE_WIDTH < soft


def test_focus_ignores_the_amount_of_light() -> None:
    bright, dim = edge_width(table(1, blur=0.5)), edge_width(table(1, blur=0.5, exposure=0.5))
    assert bright is not None and dim is not None
    assert dim == pytest.approx(bright, rel=0.15)


def test_an_even_empty_surface_cannot_be_judged() -> None:
    assert edge_width(np.full((120, 160, 3), 90, np.uint8)) is None


@pytest.mark.parametrize("table_kind", TABLES)
def test_tables_of_every_kind_read_as_white_light(table_kind: str) -> None:
    # Green felt and dark wood are the cases where the grey-world average would see a cast.
    cast = colour_cast(table(2, table=table_kind, light="neutral"))
    assert abs(cast.warmth) < MAX_WARMTH and abs(cast.tint) < MAX_TINT


@pytest.mark.parametrize("table_kind", ["dark-wood", "green-felt", "white-laminate"])
def test_uncorrected_tungsten_or_green_light_is_a_strong_cast(table_kind: str) -> None:
    image = table(3, table=table_kind, light="neutral")
    tungsten = np.clip(image * np.array([0.45, 1.0, 1.5]), 0, 255).astype(np.uint8)
    cast = colour_cast(tungsten)
    assert cast.warmth > MAX_WARMTH
    green = np.clip(image * np.array([0.6, 1.0, 0.6]), 0, 255).astype(np.uint8)
    assert colour_cast(green).tint > MAX_TINT


def test_light_level() -> None:
    good = light_level(table(4, table="dark-wood"))
    assert good.bright > MIN_BRIGHT and good.clipped < MAX_CLIPPED
    dark = light_level((table(4, table="dark-wood") * 0.2).astype(np.uint8))
    assert dark.bright < MIN_BRIGHT
    glare = table(4, table="dark-wood").copy()
    glare[:60] = 255
    assert light_level(glare).clipped > MAX_CLIPPED


@pytest.mark.parametrize(
    "bad",
    [np.zeros((100, 100, 3), np.float32), np.zeros((100, 100), np.uint8), np.zeros((8, 8, 3), np.uint8)],
)
def test_bad_frames_are_named(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match=r"frame"):
        edge_width(bad)


@pytest.mark.dataset
def test_the_real_photos_pass_and_their_blurred_copies_fail(connect_game1: Path) -> None:
    for path in sorted((connect_game1 / "frames").glob("*.jpg"))[::7]:
        image = cv2.imread(str(path))
        width = edge_width(image)
        assert width is not None and width < MAX_EDGE_WIDTH, path.name
        cast = colour_cast(image)
        assert abs(cast.warmth) < MAX_WARMTH and abs(cast.tint) < MAX_TINT, path.name
        light = light_level(image)
        assert light.bright > MIN_BRIGHT and light.clipped < MAX_CLIPPED, path.name
        blurred = edge_width(cv2.GaussianBlur(image, (0, 0), 4.0))
        assert blurred is not None and blurred > MAX_EDGE_WIDTH, path.name
