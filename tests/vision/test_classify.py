"""vision/classify.py: names, confidences, and the names it will not guess (a leaning cube's side face)."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import pytest

import vision.classify
import vision.prototypes
from table import Tile, tileset
from tests.vision.painted import names_of, painted
from vision import render_tiles
from vision.classify import classify
from vision.features import measure
from vision.patches import PATCH
from vision.prototypes import default_prototypes, painted_prototypes
from vision.reader import MAX_FIT, MIN_CONFIDENCE
from vision.render import random_scene, render
from vision.render_tiles import BODY


def test_classic_tiles_are_named_confidently() -> None:
    tiles = [Tile(c, s) for c, s in zip(tileset("classic").colours, tileset("classic").shapes, strict=True)]
    for tile, (colour, shape, conf) in zip(tiles, names_of(tiles, "classic"), strict=True):
        assert (colour, shape) == (tile.colour, tile.shape) and conf > 0.9


def test_a_leaning_cubes_side_face_is_no_tile() -> None:
    """A side face seen past a cube's top shows its symbol squashed: not a symbol of any shape."""
    tiles = [
        Tile("red", "circle"),
        Tile("blue", "square"),
        Tile("green", "clover"),
        Tile("yellow", "diamond"),
    ]
    patches = painted(tiles, "cubes")
    squashed = np.empty_like(patches)
    for i, patch in enumerate(patches):
        squashed[i] = BODY
        flat = cv2.resize(patch, (PATCH, PATCH * 2 // 5), interpolation=cv2.INTER_AREA)
        at = (PATCH - len(flat)) // 2
        squashed[i, at : at + len(flat)] = flat
    prototypes = default_prototypes(tileset("cubes"))
    whole = classify(measure(patches), np.ones(3), prototypes)
    assert whole.shapes == [t.shape for t in tiles] and (whole.shape_fit < 2).all()
    side = classify(measure(squashed), np.ones(3), prototypes)
    assert (side.shape_fit > MAX_FIT).all(), side.shape_fit


@pytest.mark.parametrize("towards_orange", [0.6, 0.7])
def test_the_colour_blind_inner_mark_names_a_paint_between_red_and_orange(
    towards_orange: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red tiles carry a square mark, orange ones a circle: where red and orange are painted alike, and the
    prototypes learned from such paint (uncached, whatever other tests left), the mark tells them apart."""
    red, orange = np.array(render_tiles.PAINT["red"]), np.array(render_tiles.PAINT["orange"])
    between = tuple(float(v) for v in (1 - towards_orange) * red + towards_orange * orange)
    monkeypatch.setitem(render_tiles.PAINT, "red", between)
    monkeypatch.setitem(render_tiles.PAINT, "orange", between)
    tiles = [Tile(colour, shape) for colour in ("red", "orange") for shape in tileset("colour-blind").shapes]
    m = measure(painted(tiles, "colour-blind", seed=3))
    prototypes = painted_prototypes.__wrapped__(tileset("colour-blind"))
    named = classify(m, np.ones(3), prototypes)
    assert named.colours == [t.colour for t in tiles]
    assert (named.colour_confidence >= MIN_CONFIDENCE).all()
    paint_only = classify(m, np.ones(3), dataclasses.replace(prototypes, marks={}, mark_spreads={}))
    assert paint_only.colours != named.colours  # the paint alone names some of them wrong


def test_calibrated_shapes_are_named_under_the_lights_spreads() -> None:
    """Calibrated, shapes are named under how far the calibration photo's light scatters each shape's
    tiles (``learned_spreads``). Spreads as wide as the edition's name clean tiles as the edition does;
    where square and criss-cross tiles scatter well into each other (three times the distance between
    their middles) no tile is named with confidence as a shape it is not, and those two shapes' tiles are
    uncertain. A tile whose profile is noisier than the photo's (harmonics a whole symbol lacks, which
    leave its outline as it was) keeps its name with no more confidence than before."""
    classic = tileset("classic")
    tiles = list(classic.tiles())
    measured = measure(painted(tiles, "classic"))
    plain = default_prototypes(classic)
    same = dataclasses.replace(plain, learned_spreads=dict(plain.outline_spreads))
    before, clean = classify(measured, np.ones(3), plain), classify(measured, np.ones(3), same)
    assert clean.shapes == before.shapes == [t.shape for t in tiles]
    assert (clean.shape_confidence > 0.9).all()
    wide = 3 * np.abs(plain.outlines["square"] - plain.outlines["criss-cross"])
    noisy = dataclasses.replace(
        plain, learned_spreads={**plain.outline_spreads, "square": wide, "criss-cross": wide}
    )
    after = classify(measured, np.ones(3), noisy)
    for tile, shape, conf in zip(tiles, after.shapes, after.shape_confidence, strict=True):
        assert shape == tile.shape or conf < MIN_CONFIDENCE, (tile, shape, conf)
        if tile.shape in ("square", "criss-cross"):
            assert conf < MIN_CONFIDENCE, tile
    turn = np.arange(measured.radial.shape[1]) * 2 * np.pi / measured.radial.shape[1]
    wobble = 0.2 * (np.cos(turn) + np.sin(2 * turn))  # harmonics 1 and 2: off-centre, squashed
    blurred = dataclasses.replace(measured, radial=(measured.radial + wobble).astype(np.float32))
    shaky = classify(blurred, np.ones(3), same)
    assert shaky.shapes == clean.shapes
    assert (shaky.shape_confidence <= clean.shape_confidence + 1e-12).all()
    assert shaky.shape_confidence.mean() < 0.9


def test_a_calibrated_reader_counts_the_lights_noise_once() -> None:
    """The learned spreads hold the noise the calibration photo's light gave its whole symbols
    (``asymmetry_noise``); a tile as noisy as those is named as confidently as a clean one, not made
    uncertain by the same noise counted again as its own, while a tile far noisier than the photo's still
    loses confidence."""
    from vision.outline import asymmetry

    classic = tileset("classic")
    tiles = list(classic.tiles())
    measured = measure(painted(tiles, "classic"))
    plain = default_prototypes(classic)
    same = dataclasses.replace(plain, learned_spreads=dict(plain.outline_spreads))
    clean = classify(measured, np.ones(3), same)
    turn = np.arange(measured.radial.shape[1]) * 2 * np.pi / measured.radial.shape[1]
    wobble = 0.2 * (np.cos(turn) + np.sin(2 * turn))
    shaky = dataclasses.replace(measured, radial=(measured.radial + wobble).astype(np.float32))
    twice = classify(shaky, np.ones(3), same)
    noise = float(np.sqrt(np.mean(asymmetry(shaky.radial) ** 2)))
    once = classify(shaky, np.ones(3), dataclasses.replace(same, asymmetry_noise=noise))
    assert once.shapes == twice.shapes == clean.shapes
    assert (once.shape_confidence >= twice.shape_confidence - 1e-12).all()
    assert once.shape_confidence.mean() > 0.9 > twice.shape_confidence.mean()
    shakier = dataclasses.replace(measured, radial=(measured.radial + 3 * wobble).astype(np.float32))
    beyond = classify(shakier, np.ones(3), dataclasses.replace(same, asymmetry_noise=noise))
    assert beyond.shape_confidence.mean() < once.shape_confidence.mean()


def test_an_uncalibrated_reader_counts_a_tiles_own_noise() -> None:
    """Uncalibrated, the edition's spreads were measured on whole symbols, whose profiles hold about
    ASYMMETRY_SPREAD of harmonics no symbol has. A tile noisier than that (blur, few levels of light, a
    smudge) keeps its name but not full confidence, so that noise reaching from one shape to another
    leaves it uncertain instead of a confident guess; clean tiles stay confidently named."""
    classic = tileset("classic")
    tiles = list(classic.tiles())
    measured = measure(painted(tiles, "classic"))
    plain = default_prototypes(classic)
    clean = classify(measured, np.ones(3), plain)
    assert clean.shapes == [t.shape for t in tiles]
    assert (clean.shape_confidence > 0.9).all()
    turn = np.arange(measured.radial.shape[1]) * 2 * np.pi / measured.radial.shape[1]
    confidence = []
    for size in (0.1, 0.2, 0.4):
        wobble = size * (np.cos(turn) + np.sin(2 * turn))  # harmonics 1 and 2: off-centre, squashed
        shaky = classify(
            dataclasses.replace(measured, radial=(measured.radial + wobble).astype(np.float32)),
            np.ones(3),
            plain,
        )
        assert shaky.shapes == clean.shapes
        confidence.append(float(shaky.shape_confidence.mean()))
    assert confidence == sorted(confidence, reverse=True)
    assert confidence[1] < 0.9 and confidence[2] < MIN_CONFIDENCE


def test_a_noisy_outline_keeps_only_the_asymmetry_its_noise_does_not_explain() -> None:
    """In a tenth of the light a symbol's edge is noisy and so is its outline: the noise seen on the
    harmonics no fourfold symbol holds takes the part of the asymmetry it explains off (a calibrated
    reader's fit), much more of it than in clean light, while a squashed outline (a cube's side face:
    harmonic 2, its high harmonics clean) keeps all of its asymmetry."""
    from calibration.lighting import SHIFTS, shift_light
    from vision.classify import beyond_noise
    from vision.outline import asymmetry
    from vision.reader import measure_tiles

    classic = tileset("classic")
    scene = random_scene(
        seed=5, variant="classic", size=(600, 800), tiles=30, hand=0.0, tilt=0.0, light="neutral"
    )
    image = render(scene).image
    clean, _, _ = measure_tiles(image, scene.board, tileset=classic)
    dim, _, _ = measure_tiles(shift_light(image, SHIFTS["dim"], seed=5), scene.board, tileset=classic)
    for m in (clean, dim):
        assert (beyond_noise(m.radial) <= asymmetry(m.radial) + 1e-12).all()
    taken = {k: asymmetry(m.radial) - beyond_noise(m.radial) for k, m in (("clean", clean), ("dim", dim))}
    assert taken["dim"].mean() > 0.01 and (taken["dim"] > 0).mean() > 0.5, taken["dim"]
    assert taken["clean"].mean() < taken["dim"].mean() / 2, taken
    turn = np.arange(dim.radial.shape[1]) * 2 * np.pi / dim.radial.shape[1]
    squashed = (clean.radial + 0.15 * np.cos(2 * turn)).astype(np.float32)
    kept = beyond_noise(squashed) / asymmetry(squashed)
    assert (kept > 0.999).mean() > 0.9 and kept.min() > 0.75, np.sort(kept)[:5]


def test_a_calibrated_reader_names_shapes_by_size_too() -> None:
    """A calibration's coverages (each shape's paint coverage of its cell under that camera and light) are
    a second shape cue beside the outline: a tile whose outline lies between a circle's and a square's is
    named by how much of its cell it covers. Without coverages for every shape, nothing changes."""
    classic = tileset("classic")
    tiles = [Tile("red", "circle"), Tile("blue", "square")]
    measured = measure(painted(tiles, "classic"))
    plain = default_prototypes(classic)
    calibrated = dataclasses.replace(plain, learned_spreads=dict(plain.outline_spreads))
    coverages = {k: np.asarray(0.3) for k in plain.outlines}
    coverages["circle"] = np.asarray(0.4)
    # both tiles' outlines moved halfway between a circle's and a square's
    middle = plain.outlines["circle"] / 2 + plain.outlines["square"] / 2
    turn = np.arange(measured.radial.shape[1]) * 2 * np.pi / measured.radial.shape[1]
    halfway = 1 + middle[0] * np.cos(4 * turn) + middle[1] * np.cos(8 * turn)
    between = dataclasses.replace(
        measured, radial=np.tile(halfway, (2, 1)).astype(np.float32), coverage=np.array([0.4, 0.3])
    )
    unsized = classify(between, np.ones(3), calibrated)
    assert unsized.shapes[0] == unsized.shapes[1]  # the outline alone cannot tell them
    sized = classify(between, np.ones(3), dataclasses.replace(calibrated, coverages=coverages))
    assert sized.shapes == ["circle", "square"]
    assert (sized.shape_confidence >= MIN_CONFIDENCE).all()
    partial = dataclasses.replace(calibrated, coverages={"circle": np.asarray(0.4)})
    assert classify(between, np.ones(3), partial).shapes == unsized.shapes


def test_a_lamps_reflection_is_taken_off_and_a_light_table_is_not() -> None:
    # a tile whose body is lighter than the frame's black in every channel is read both ways: a red
    # under the lamp's reflection (paint and body lit alike) stays red within the fit; an orange whose
    # ring a light table lightens (its paint not) stays orange
    tiles = [
        Tile(c, s)
        for c in ("red", "orange", "yellow", "green", "blue", "purple")
        for s in ("square", "circle")
    ]
    m = measure(painted(tiles, "classic"))
    gains = np.ones(3)
    linear = vision.prototypes.srgb_to_linear
    lift = lambda v, k: 255 * (1.055 * (linear(v / 255) + k) ** (1 / 2.4) - 0.055)  # noqa: E731
    paint, body = m.paint.copy(), m.body.copy()
    paint[0], body[0] = lift(paint[0], 0.08), lift(body[0], 0.08)  # red square, under the reflection
    body[2] = lift(body[2], 0.04)  # orange square, its ring lightened by the table
    named = classify(
        dataclasses.replace(m, paint=paint, body=body), gains, default_prototypes(tileset("classic"))
    )
    assert named.colours[0] == "red" and named.colour_fit[0] < MAX_FIT
    assert named.colours[2] == "orange" and named.colour_confidence[2] >= MIN_CONFIDENCE


def test_a_rounded_corner_is_one_misfit_in_the_shape_fit() -> None:
    """Blur rounds a criss-cross's tips: its eightfold harmonic weakens. Where a shape fixes that
    harmonic's phase, its size repeats the signed value, so the misfit counts once: a symbol whose
    eightfold harmonic lies three spreads short is three spreads from its shape, not three times the
    square root of two. The starburst, whose phase is open, is fitted by the size alone."""
    from vision.classify import shape_distance
    from vision.outline import RAYS

    plain = default_prototypes(tileset("classic"))
    names = list(plain.outlines)
    turn = np.arange(RAYS) * 2 * np.pi / RAYS
    measured = measure(painted([Tile("red", "criss-cross")], "classic"))

    def fit(shape: str, h8: float, phase: float = 0.0, prototypes: Any = plain) -> float:
        h4, _, _, h12 = plain.outlines[shape]
        profile = 1 + h4 * np.cos(4 * turn) + h8 * np.cos(8 * turn + phase) + h12 * np.cos(12 * turn)
        m = dataclasses.replace(measured, radial=profile[None].astype(np.float32))
        return float(shape_distance(m, prototypes)[1][0, names.index(shape)])

    middle, spread = plain.outlines["criss-cross"][1], plain.outline_spreads["criss-cross"][1]
    assert fit("criss-cross", middle) < 0.1
    assert fit("criss-cross", middle - 3 * spread) == pytest.approx(3.0, abs=0.1)
    # on Connect's printed board a hole shows a white square, which only the fit keeps out: counted twice
    connect = default_prototypes(tileset("connect"))
    assert fit("criss-cross", middle - 3 * spread, prototypes=connect) == pytest.approx(3 * 2**0.5, abs=0.1)
    size, spread = plain.outlines["starburst"][2], plain.outline_spreads["starburst"][2]
    # points half way between the axes' eightfold peaks: the signed value is nought, the size all there is
    assert fit("starburst", size, np.pi / 2) < 0.1
    assert fit("starburst", size - 3 * spread, np.pi / 2) == pytest.approx(3.0, abs=0.1)


def test_a_calibrated_reader_names_colours_under_the_photos_body_balance() -> None:
    """A calibration's ``body_gains`` (the light as its photo's tile bodies showed it) take the place of
    the frame's own bodies' balance (its colours were learned under them) while the frame's lies near
    them; a frame whose bodies say the light has changed (a warm lamp after a daylight calibration) is
    named under its own, as without them."""
    tiles = [Tile(c, "square") for c in tileset("classic").colours]
    measured = measure(painted(tiles, "classic"))
    base = default_prototypes(tileset("classic"))
    calibrated = dataclasses.replace(base, body_gains=np.ones(3))

    def fits(gains: np.ndarray, prototypes: Any) -> list[float]:
        return classify(measured, gains, prototypes).colour_fit.tolist()

    near, changed = np.array([1.1, 1.0, 0.9]), np.array([0.5, 1.0, 1.5])
    assert np.abs(np.log(near)).max() < vision.classify.SAME_LIGHT < np.abs(np.log(changed)).max()
    assert fits(near, base) != fits(np.ones(3), base)
    assert fits(near, calibrated) == fits(np.ones(3), calibrated) == fits(np.ones(3), base)
    assert fits(changed, calibrated) == fits(changed, base)


def test_a_calibrated_shape_its_photo_leaves_in_doubt_is_uncertain() -> None:
    """A calibration's doubts (per colour, shape named and shape it may be: the log-odds its photo's own
    tile of that colour came to) leave a tile of that colour named that shape uncertain while its
    log-odds over the other shape is below them; tiles of other colours, or beyond the doubt, keep
    their confidence, and without doubts nothing changes."""
    from vision.classify import DOUBTED, decision_distances

    classic = tileset("classic")
    tiles = [Tile("purple", "diamond"), Tile("red", "diamond"), Tile("purple", "square")]
    measured = measure(painted(tiles, "classic"))
    plain = default_prototypes(classic)
    calibrated = dataclasses.replace(plain, learned_spreads=dict(plain.outline_spreads))
    before = classify(measured, np.ones(3), calibrated)
    assert before.shapes == ["diamond", "diamond", "square"]
    assert (before.shape_confidence >= MIN_CONFIDENCE).all()
    names, distance = decision_distances(measured, calibrated)
    odds = 0.5 * (distance[0, names.index("clover")] ** 2 - distance[0, names.index("diamond")] ** 2)

    def names_of(doubt: float) -> np.ndarray:
        doubts = {("purple", "diamond", "clover"): doubt}
        return classify(measured, np.ones(3), dataclasses.replace(calibrated, doubts=doubts)).shape_confidence

    doubted = names_of(odds + 0.1)
    assert doubted[0] == DOUBTED < MIN_CONFIDENCE
    assert np.array_equal(doubted[1:], before.shape_confidence[1:])  # another colour, another shape
    assert np.array_equal(names_of(odds - 0.1), before.shape_confidence)


def test_a_blurred_diamond_is_no_confident_clover() -> None:
    """Blur takes a diamond's sharp corners, its eightfold harmonic, toward nothing: in the diamond's
    narrow spreads that lay further than the clover's wide ones, and a blurred diamond, its fourfold
    harmonic below every clover's, was named a clover with confidence. Counted in blur's way the
    diamond is nearer; the two ways disagree, so the tile is uncertain. Sharp symbols keep their names."""
    from vision.classify import name_shapes
    from vision.outline import RAYS

    plain = default_prototypes(tileset("classic"))
    turn = np.arange(RAYS) * 2 * np.pi / RAYS
    measured = measure(painted([Tile("red", "diamond")], "classic"))

    def named(h4: float, h8: float, h12: float) -> tuple[str, float]:
        profile = 1 + h4 * np.cos(4 * turn) + h8 * np.cos(8 * turn) + h12 * np.cos(12 * turn)
        m = dataclasses.replace(measured, radial=profile[None].astype(np.float32))
        shapes, confidence, _ = name_shapes(m, plain)
        return shapes[0], float(confidence[0])

    for shape in ("diamond", "clover"):
        h4, h8, _, h12 = plain.outlines[shape]
        assert named(h4, h8, h12) == (shape, pytest.approx(1.0, abs=0.05))
    # a diamond blurred on a tilted camera's far side (tilt 35 degrees: fourfold 0.115, eightfold 0.005)
    shape, confidence = named(0.115, 0.005, 0.004)
    assert confidence < MIN_CONFIDENCE
