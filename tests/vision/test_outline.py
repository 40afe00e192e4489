"""vision/outline.py: the radial profile of a symbol's paint level, and the descriptors that name its shape
or tell a whole symbol from a squashed one."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classify import ASYMMETRY_SPREAD
from vision.outline import CHUNK, RAYS, THROUGH, _fill_from_turns, asymmetry, outline, radial
from vision.patches import PATCH


def _level_of(mask: np.ndarray) -> np.ndarray:
    return mask.astype(np.float32)[None]


def test_radial_profile_of_a_disc_is_flat_and_a_square_peaks_on_its_diagonals() -> None:
    u = np.arange(PATCH) - (PATCH - 1) / 2
    disc = _level_of(np.hypot(u[:, None], u[None, :]) < 10)
    square = _level_of(np.maximum(np.abs(u)[:, None], np.abs(u)[None, :]) < 9)
    flat = radial(disc, np.zeros((1, 2)))[0]
    assert flat.shape == (RAYS,) and np.ptp(flat) < 0.12
    peaks = radial(square, np.zeros((1, 2)))[0]
    diagonal, axis = peaks[RAYS // 8], peaks[0]
    assert diagonal / axis == pytest.approx(np.sqrt(2), rel=0.08)
    a4_disc, a4_square = outline(flat[None])[0, 0], outline(peaks[None])[0, 0]
    assert abs(a4_disc) < 0.02 and a4_square < -0.08  # a square's corners lie on the diagonals


def test_a_hole_in_the_middle_is_not_the_symbols_edge() -> None:
    u = np.arange(PATCH) - (PATCH - 1) / 2
    r = np.hypot(u[:, None], u[None, :])
    ring = _level_of((r < 11) & (r > 4))  # the colour-blind edition's inner mark
    profile = radial(ring, np.zeros((1, 2)))[0]
    assert np.ptp(profile) < 0.12  # still the outer circle


def test_a_thin_band_round_a_hole_ends_the_ray_before_a_light_table() -> None:
    # blurred thin, the band of paint round the inner mark stays below the light table past the tile's
    # edge: the ray must take the band for the paint, not run on through the black body to the table
    u = np.arange(PATCH) - (PATCH - 1) / 2
    r = np.hypot(u[:, None], u[None, :])
    level = np.where((r < 10) & (r > 4), 0.8, 0.0).astype(np.float32)
    level[:, -2:] = 1.0  # the table past the cell's right edge
    profile = radial(level[None], np.zeros((1, 2)))[0]
    assert np.ptp(profile) < 0.12  # the circle, also towards the table (ray 0)
    assert asymmetry(profile[None])[0] < ASYMMETRY_SPREAD


def test_many_patches_are_measured_in_chunks_alike() -> None:
    rng = np.random.default_rng(3)
    level = rng.random((CHUNK + 7, PATCH, PATCH)).astype(np.float32)
    offset = rng.normal(0, 0.05, (CHUNK + 7, 2))
    whole = radial(level, offset)
    assert whole.shape == (CHUNK + 7, RAYS)
    assert np.allclose(whole[CHUNK:], radial(level[CHUNK:], offset[CHUNK:]))


def test_a_circle_seen_edge_on_is_not_fourfold() -> None:
    # a leaning cube's side face: its symbol squashed flat
    u = np.arange(PATCH) - (PATCH - 1) / 2
    squashed = _level_of((u[:, None] / 4) ** 2 + (u[None, :] / 11) ** 2 < 1)
    disc = _level_of(np.hypot(u[:, None], u[None, :]) < 10)
    assert asymmetry(radial(squashed, np.zeros((1, 2))))[0] > 5 * ASYMMETRY_SPREAD
    assert asymmetry(radial(disc, np.zeros((1, 2))))[0] < ASYMMETRY_SPREAD


def test_harmonics_are_each_orders_mean_of_the_profile_times_its_wave() -> None:
    # all orders in one product: the same numbers as each order's own mean, to the last bit
    from vision.outline import harmonics

    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 71, 300):
        r = (1 + 0.2 * rng.standard_normal((n, RAYS))).astype(np.float32)
        a = np.arange(RAYS) * (2 * np.pi / RAYS)
        for orders in ((1, 2, 3, 5, 6, 7), (4, 8, 12)):
            plain = np.array([2 * (r.astype(np.float64) * np.exp(-1j * k * a)).mean(axis=1) for k in orders])
            got = harmonics(r, orders)
            assert got.shape == plain.shape and np.array_equal(got.view(np.float64), plain.view(np.float64))


def test_hole_profiles_found_later_are_found_alike_across_chunks() -> None:
    from vision.outline import profiles, profiles_later

    rng = np.random.default_rng(4)
    level = rng.random((CHUNK + 7, PATCH, PATCH)).astype(np.float32)
    offset = rng.normal(0, 0.05, (CHUNK + 7, 2))
    radial_profile, hole = profiles_later(level, offset)
    tail = profiles(level[CHUNK:], offset[CHUNK:])
    assert np.array_equal(hole()[CHUNK:], tail[1]) and np.array_equal(radial_profile[CHUNK:], tail[0])
    assert hole() is hole()  # found once


def test_paint_joined_to_the_symbol_up_to_the_faces_edge_is_read_from_the_symbols_quarter_turns() -> None:
    # a neighbouring cube's side face blurred into the symbol: a bar of paint from the disc to the edge
    u = np.arange(PATCH) - (PATCH - 1) / 2
    disc = np.hypot(u[:, None], u[None, :]) < 10
    joined = disc | ((np.abs(u)[:, None] < 2.5) & (u[None, :] > 0))
    profile = radial(_level_of(joined), np.zeros((1, 2)))[0]
    assert profile[0] == pytest.approx(1.0, abs=0.05)  # the disc's radius, also along the bar (ray 0)
    assert asymmetry(profile[None])[0] < ASYMMETRY_SPREAD  # (rays beside the bar graze it)


def test_rays_running_through_all_round_are_left_as_they_are() -> None:
    # paint reaching the face's edge on many rays is no symbol with a neighbour's paint joined to it
    rng = np.random.default_rng(5)
    r = rng.uniform(0.8, 1.2, (2, RAYS)).astype(np.float32)
    through = np.zeros((2, RAYS), bool)
    through[0, :3] = True  # a few rays of one quarter: taken from their partners
    through[1, : int(THROUGH * RAYS) + 1] = True  # more than THROUGH of them: kept
    before = r.copy()
    _fill_from_turns(r, through)
    q = RAYS // 4
    for k in range(3):
        assert r[0, k] == pytest.approx(np.median(before[0, [k + q, k + 2 * q, k + 3 * q]]))
    assert np.array_equal(r[0, 3:], before[0, 3:])
    assert np.array_equal(r[1], before[1])
