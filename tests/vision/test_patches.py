"""vision/patches.py: patches are cut in the grid's axes, in chunks when there are many."""

from __future__ import annotations

import numpy as np

from vision.patches import FACE_SPAN, cut_patches, inside_fraction


def _image() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)


def test_a_patch_turned_a_quarter_is_the_image_turned() -> None:
    image = _image()
    centre = np.array([[60.0, 80.0]])
    upright = cut_patches(image, centre, np.array([[[20.0, 0.0], [0.0, 20.0]]]), size=20)[0]
    turned = cut_patches(image, centre, np.array([[[0.0, 20.0], [-20.0, 0.0]]]), size=20)[0]
    # a patch whose rows run right and whose columns run up is the upright one turned clockwise
    assert np.array_equal(np.rot90(upright, -1), turned)


def test_many_patches_are_cut_in_several_calls_alike() -> None:
    image = _image()
    n, size = 120, 300  # cv2.remap takes at most 32767 rows: 109 patches of 300 per call
    rng = np.random.default_rng(1)
    centres = rng.uniform(20, 100, (n, 2))
    axes = np.repeat(np.array([[[20.0, 3.0], [-3.0, 20.0]]]), n, axis=0)
    many = cut_patches(image, centres, axes, size=size)
    assert many.shape == (n, size, size, 3)
    assert np.array_equal(many[-3:], cut_patches(image, centres[-3:], axes[-3:], size=size))


def test_inside_fraction() -> None:
    axes = np.array([[[10.0, 0.0], [0.0, 10.0]]] * 2)
    inside = inside_fraction((100, 100), np.array([[50.0, 50.0], [0.0, 50.0]]), axes)
    assert inside[0] == 1.0 and 0.4 < inside[1] < 0.8


def test_inside_fraction_of_the_face() -> None:
    # a cell of 100 px whose edge lies 1 px past the frame: the cell's square is cut, the face it is
    # read on (FACE_SPAN of it, its edge and the gap between tiles left out) is whole; 10 px past, not
    axes = np.array([[[100.0, 0.0], [0.0, 100.0]]])
    centre = np.array([[50.0, 200.0]])
    assert inside_fraction((99, 400), centre, axes) < 0.97
    assert inside_fraction((99, 400), centre, axes, span=FACE_SPAN)[0] == 1.0
    assert inside_fraction((90, 400), centre, axes, span=FACE_SPAN)[0] < 0.97


def test_inside_fraction_counts_the_edge_pixels_whole() -> None:
    # pixel centres are whole numbers and each pixel's square reaches half a pixel past its centre: a
    # cell exactly as wide as a 10-pixel image spans -0.5..9.5 and lies wholly inside it (in a working
    # copy shrunk seven times, half a pixel is 3.5 px of the frame, 0.02 of a tile at 200 px a tile)
    axes = np.array([[[10.0, 0.0], [0.0, 10.0]]])
    assert inside_fraction((10, 10), np.array([[4.5, 4.5]]), axes)[0] == 1.0
    assert inside_fraction((10, 10), np.array([[4.4, 4.5]]), axes)[0] < 1.0
