"""vision/learning.py: calibration learns prototypes from a photo of known tiles, as estimates under
the photo's few tiles and its light's noise."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from table import Tile, tileset
from table.codec import board_from_json
from vision import Prototypes, default_prototypes, learn_prototypes, measure_tiles
from vision.features import Measurements
from vision.outline import asymmetry, outline
from vision.prototypes import OUTLINE_FLOOR
from vision.render import random_scene, render


def _learned_from_a_photo(
    variant: str, *, seed: int, light: str
) -> tuple[Measurements, list[Tile], Prototypes]:
    """A rendered photo of 30 tiles seen square-on: their measurements, the tiles, what is learned."""
    scene = random_scene(
        seed=seed, variant=variant, size=(600, 800), tiles=30, hand=0.0, light=light, tilt=0.0
    )
    measured, known, _ = measure_tiles(render(scene).image, scene.board, tileset=tileset(variant))
    return measured, known, learn_prototypes([(measured, known)], tileset=tileset(variant))


def test_learning_moves_the_prototypes_to_the_light() -> None:
    tiles = tileset("classic")
    measured, known, learned = _learned_from_a_photo("classic", seed=5, light="warm")
    base = default_prototypes(tiles)
    seen = {t.colour for t in known}
    assert any(not np.allclose(learned.colours[c], base.colours[c]) for c in seen)
    assert learned.shape_spread > 0 and learned.colour_spread > 0
    shapes = {t.shape for t in known}
    assert any(not np.allclose(learned.outlines[s], base.outlines[s]) for s in shapes)
    for s in shapes:  # a few tiles say where a shape lies, not every printing's range
        assert np.array_equal(learned.outline_spreads[s], base.outline_spreads[s])
    assert base.learned_spreads == {}
    assert set(learned.learned_spreads) == shapes
    descriptors = outline(measured.radial)
    for s in shapes:  # each middle lies between the edition's and the photo's own tiles'
        own = np.median(descriptors[[t.shape == s for t in known]], axis=0)
        low, high = np.minimum(own, base.outlines[s]), np.maximum(own, base.outlines[s])
        assert (learned.outlines[s] >= low - 1e-12).all() and (learned.outlines[s] <= high + 1e-12).all()
        assert (learned.learned_spreads[s] >= OUTLINE_FLOOR).all()
    back = Prototypes.from_json(learned.to_json(), where="p.json")
    for s, v in learned.learned_spreads.items():
        assert np.allclose(back.learned_spreads[s], v, atol=1e-4)
    data = learned.to_json()
    data["learned_spreads"]["oval"] = [0.01, 0.01, 0.01, 0.01]
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*learned_spreads"):
        Prototypes.from_json(data, where="p.json")
    # a file written before the learned spreads keeps its outlines; its older scatter is left out
    older = {**learned.to_json(), "outline_scatter": {"circle": [0.01, 0.01, 0.01, 0.01]}}
    del older["learned_spreads"]
    assert Prototypes.from_json(older, where="p.json").learned_spreads == {}
    if "starburst" in shapes:  # its eightfold phase says nothing, and stays where it was
        assert learned.outlines["starburst"][1] == base.outlines["starburst"][1]
        assert learned.learned_spreads["starburst"][1] == base.outline_spreads["starburst"][1]


def test_outlines_are_learned_as_an_estimate_under_the_lights_noise() -> None:
    """A shape's middle weighs the edition's (uncertain by its spread) against the photo's tiles (uncertain
    by the noise this light gives them, measured on the photo's own tiles): six clean tiles move it
    almost all the way to them, six noisy ones (the same middle) less, and the learned spread holds the
    noise; a shape shown once takes the light's noise from the others."""
    from vision.learning import _learned_outlines

    base = default_prototypes(tileset("classic"))
    target = base.outlines["square"] + np.array([0.02, -0.015, -0.015, -0.005])  # a square, as this camera
    offsets = np.array([1, -1, 1, -1, 2, -2])[:, None] * np.array([1, -1, 1, 1])  # median 0, sd 1.5
    moved = {}
    for noise in (0.002, 0.03):
        desc = np.vstack(
            [
                target + noise * offsets,
                base.outlines["diamond"] + noise * offsets[::-1],
                base.outlines["circle"] + [0.01, 0.0, 0.01, 0.0],  # one circle
            ]
        )
        shapes = ["square"] * 6 + ["diamond"] * 6 + ["circle"]
        outlines, spreads = _learned_outlines(desc, shapes, base)
        moved[noise] = np.abs(outlines["square"] - base.outlines["square"]) / np.abs(
            target - base.outlines["square"]
        )
        assert set(spreads) == {"square", "diamond", "circle"}
        assert (spreads["square"] >= OUTLINE_FLOOR).all()
        if noise > 0.01:  # the light's noise, not the edition's range, is what the spread says
            assert (spreads["square"] > 0.6 * noise).all() and (spreads["circle"] > 0.6 * noise).all()
        assert np.array_equal(outlines["starburst"], base.outlines["starburst"])  # not shown: as it was
    assert (moved[0.002] > 0.8).all()  # (the noise is never taken below OUTLINE_FLOOR)
    assert moved[0.03].mean() < moved[0.002].mean()
    outlines, spreads = _learned_outlines(np.zeros((3, 4)), ["square", "diamond", "circle"], base)
    assert spreads == {} and all(outlines[k] is base.outlines[k] for k in base.outlines)  # no noise seen


def test_herkle_learns_its_colours_from_the_ordinaries_not_the_field() -> None:
    """Herkle's reader names an ordinary's paint told from its shield's grey field; calibration learns the
    colours from that same paint, so a calibrated frame reads as well as an uncalibrated one, and no tile
    is read wrong."""
    from vision.evaluate import score_frame
    from vision.reader import read_table

    tiles = tileset("herkle")
    options = {"tiles": 20, "hand": 0.0, "light": "warm", "tilt": 0.0, "px_per_tile": 70.0}
    out = render(random_scene(seed=3, variant="herkle", size=(600, 800), **options))  # type: ignore[arg-type]
    known_board = board_from_json(out.truth, where="render")
    measured, known, _ = measure_tiles(out.image, known_board, tileset=tiles)
    learned = learn_prototypes([(measured, known)], tileset=tiles)
    base = default_prototypes(tiles)
    # green is hardly stronger than the grey field: learned from all the paint in the shield it would
    # come out half grey (a* -42, b* 15 in this photo), learned from the ordinary it stays green
    assert "green" in {t.colour for t in known}
    assert np.linalg.norm(learned.colours["green"] - base.colours["green"]) < 2 * base.colour_spread
    plain = score_frame(read_table(out.image, tileset=tiles), out.truth, layout=None, where="render")
    calibrated = read_table(out.image, tileset=tiles, calibration=learned)
    tally = score_frame(calibrated, out.truth, layout=None, where="render")
    assert tally.wrong + tally.extra == 0
    assert tally.right >= plain.right - 1 and tally.right >= tally.tiles // 2, tally.summary()


def test_herkle_learns_its_colours_under_the_balance_the_reader_names_them_under() -> None:
    """Herkle's reader names hues balanced on the shields' grey field (:func:`vision.shields.field_gains`),
    so calibration learns them under that balance too; other editions under the bodies'."""
    from vision.learning import named_gains
    from vision.prototypes import white_balance
    from vision.shields import field_gains, shield_view

    for variant in ("herkle", "classic"):
        tiles = tileset(variant)
        options = {"tiles": 12, "hand": 0.0, "light": "warm", "tilt": 0.0, "px_per_tile": 70.0}
        out = render(random_scene(seed=5, variant=variant, size=(500, 600), **options))  # type: ignore[arg-type]
        measured, _, _ = measure_tiles(out.image, board_from_json(out.truth, where="render"), tileset=tiles)
        bodies = white_balance(measured.body)
        if variant == "herkle":
            field = field_gains(shield_view(measured.patch, outline=False), bodies)
            assert not np.allclose(field, bodies, atol=0.01)
            assert np.array_equal(named_gains(measured, tiles), field)
        else:
            assert np.array_equal(named_gains(measured, tiles), bodies)


def test_colour_blind_marks_are_learned_as_the_photo_shows_them() -> None:
    """The inner marks (the colour-blind edition's second colour cue) are learned from the photo: each
    colour shown with its mark on enough tiles takes their mean, with their scatter as spread, never
    narrower than the default's; colours shown too rarely keep the defaults."""
    from vision.prototypes import MIN_MARK_TILES, mark_descriptor

    tiles = tileset("colour-blind")
    measured, known, learned = _learned_from_a_photo("colour-blind", seed=4, light="neutral")
    base = default_prototypes(tiles)
    desc, seen = mark_descriptor(measured.hole)
    taught = 0
    for colour in tiles.colours:
        pick = [i for i, t in enumerate(known) if t.colour == colour and seen[i]]
        if len(pick) >= MIN_MARK_TILES:
            taught += 1
            assert np.allclose(learned.marks[colour], desc[pick].mean(axis=0))
            assert (learned.mark_spreads[colour] >= base.mark_spreads[colour]).all()
        else:
            assert np.array_equal(learned.marks[colour], base.marks[colour])
            assert np.array_equal(learned.mark_spreads[colour], base.mark_spreads[colour])
    assert taught >= 2
    classic = tileset("classic")  # no marks to learn
    plain = random_scene(seed=5, size=(600, 800), tiles=20, hand=0.0)
    measured, known, _ = measure_tiles(render(plain).image, plain.board, tileset=classic)
    assert learn_prototypes([(measured, known)], tileset=classic).marks == {}


def test_the_spread_is_learned_as_an_estimate_under_few_tiles() -> None:
    """A spread learned from a photo's tiles weighs the photo's scatter (about means learned from the same
    tiles, widened for that) against the edition's, which counts as much as a photo of every distinct
    tile: a photo whose classes each show one tile tells nothing, a few tiles move the spread part of the
    way, and many almost all of it."""
    from vision.learning import _spread

    assert _spread([0.0] * 6, 6, 6.0, 30) == 6.0  # one tile per class: no scatter to measure
    # two tiles per class (6 degrees of freedom): each lies half its class's scatter from their mean,
    # and the next tile lies from that mean by the scatter widened by 1 + 1/2 (in variance)
    own = np.sqrt(12 * 12.0**2 / 6 * 1.5)
    few = _spread([12.0] * 12, 6, 6.0, 30)
    assert 6.0 < few < own
    assert np.isclose(few, np.sqrt((30 * 6.0**2 + 6 * own**2) / 36))
    many = _spread([12.0] * 600, 6, 6.0, 30)  # a hundred tiles per class: the photo's own, nearly
    assert np.isclose(many, 12.0 * np.sqrt(600 / 594 * 1.01), rtol=0.05)
    assert _spread([2.0] * 36, 6, 6.0, 30) < 6.0  # a clean photo narrows it, as far as its tiles tell


def test_a_photos_noise_is_learned_with_the_outlines() -> None:
    """Calibration keeps the root-mean-square asymmetry of the photo's symbols (what its light makes of a
    whole symbol): more under a tenth of the light than in daylight; files without it read as 0."""
    from calibration.lighting import SHIFTS, shift_light
    from vision.learning import _whole_outlines
    from vision.outline import asymmetry

    classic = tileset("classic")
    scene = random_scene(
        seed=5, variant="classic", size=(600, 800), tiles=30, hand=0.0, tilt=0.0, light="neutral"
    )
    image = render(scene).image
    noise = {}
    for name, photo in (("clean", image), ("dim", shift_light(image, SHIFTS["dim"], seed=5))):
        measured, known, _ = measure_tiles(photo, scene.board, tileset=classic)
        learned = learn_prototypes([(measured, known)], tileset=classic)
        noise[name] = learned.asymmetry_noise
        whole = _whole_outlines(measured, [t.shape for t in known], default_prototypes(classic))
        assert whole.all()  # noisy, but whole symbols
        assert np.isclose(noise[name], np.sqrt(np.mean(asymmetry(measured.radial[whole]) ** 2)))
        back = Prototypes.from_json(learned.to_json(), where="p.json")
        assert np.isclose(back.asymmetry_noise, noise[name], atol=1e-4)
    assert noise["dim"] > noise["clean"] > 0
    data = default_prototypes(classic).to_json()
    assert Prototypes.from_json(data, where="p.json").asymmetry_noise == 0.0
    del data["asymmetry_noise"]
    assert Prototypes.from_json(data, where="p.json").asymmetry_noise == 0.0
    data["asymmetry_noise"] = -0.1
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*asymmetry_noise"):
        Prototypes.from_json(data, where="p.json")


def test_a_tile_whose_outline_fits_no_shape_teaches_no_outline() -> None:
    """A known tile whose outline lies far beyond the reader's fit limit from its own shape (paint run in,
    the colour-blind inner mark joined to the outline) is measured wrong: the outlines, sizes and the
    light's noise are learned as without it; its colour still counts."""
    classic = tileset("classic")
    measured, known, _ = _learned_from_a_photo("classic", seed=5, light="neutral")
    rays = measured.radial.shape[1]
    bulge = 1 + 0.9 * np.cos(2 * np.pi * np.arange(rays) / rays)  # lopsided: paint run in on one side
    radial = np.array(measured.radial, copy=True)
    radial[0] *= bulge.astype(radial.dtype)
    columns = {f: getattr(measured, f) for f in Measurements.__dataclass_fields__}
    broken = Measurements(**{**columns, "radial": radial})
    with_it = learn_prototypes([(broken, known)], tileset=classic)
    rest = np.arange(1, len(known))
    without = learn_prototypes([(measured.take(rest), known[1:])], tileset=classic)
    everything = learn_prototypes([(measured, known)], tileset=classic)
    assert with_it.asymmetry_noise == pytest.approx(without.asymmetry_noise)
    assert with_it.asymmetry_noise < 0.5 * float(np.sqrt(np.mean(asymmetry(radial) ** 2)))
    for k in with_it.outlines:
        assert np.allclose(with_it.outlines[k], without.outlines[k])
        assert np.allclose(with_it.learned_spreads[k], without.learned_spreads[k])
    assert with_it.coverages.keys() == without.coverages.keys()
    for k, v in with_it.coverages.items():
        assert np.isclose(v, without.coverages[k])
    for k in with_it.colours:
        assert np.allclose(with_it.colours[k], everything.colours[k])


def test_herkle_arches_are_learned_as_the_photo_shows_them() -> None:
    """Herkle's ordinaries are told apart by their arch as well as their silhouette; calibration learns
    each one's arch from the photo's whole shields as an estimate (between the painted model's and the
    photo's own median), which names a dim photo's tiles at least as well as the painted model's. The
    other editions learn none, and files without arches read as the painted model's."""
    from calibration.lighting import SHIFTS, shift_light
    from vision.classify import classify
    from vision.ordinaries import arch, shield_templates
    from vision.shields import field_colour, shield_outline, view_shields

    tiles = tileset("herkle")
    options = {"tiles": 30, "hand": 0.0, "light": "neutral", "tilt": 0.0, "px_per_tile": 60.0}
    out = render(random_scene(seed=3, variant="herkle", size=(600, 800), **options))  # type: ignore[arg-type]
    image = shift_light(out.image, SHIFTS["dim"], seed=3)
    measured, known, _ = measure_tiles(image, board_from_json(out.truth, where="render"), tileset=tiles)
    learned = learn_prototypes([(measured, known)], tileset=tiles)
    base = default_prototypes(tiles)
    templates = shield_templates(tiles)
    painted = dict(zip(templates, arch(np.array(list(templates.values()))), strict=True))
    view = view_shields(measured.patch, field_colour(measured.patch), outline=shield_outline(tiles))
    rises = arch(view.silhouette)
    assert set(learned.arches) == {t.shape for t, ok in zip(known, view.found, strict=True) if ok}
    for shape, middle in learned.arches.items():
        own = np.median(
            [r for r, t, ok in zip(rises, known, view.found, strict=True) if ok and t.shape == shape]
        )
        assert min(own, painted[shape]) - 1e-9 <= middle <= max(own, painted[shape]) + 1e-9

    def right(prototypes: Prototypes) -> int:
        named = classify(measured, np.ones(3), prototypes)
        sure = named.shape_confidence >= 0.6
        return sum(bool(ok) and s == t.shape for ok, s, t in zip(sure, named.shapes, known, strict=True))

    assert right(learned) >= right(dataclasses.replace(learned, arches={}))
    back = Prototypes.from_json(learned.to_json(), where="p.json")
    assert {k: round(float(v), 4) for k, v in back.arches.items()} == {
        k: round(float(v), 4) for k, v in learned.arches.items()
    }
    assert base.arches == {} and Prototypes.from_json(base.to_json(), where="p.json").arches == {}
    assert _learned_from_a_photo("classic", seed=5, light="neutral")[2].arches == {}
    data = learned.to_json()
    data["arches"]["oval"] = 0.3
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*arches"):
        Prototypes.from_json(data, where="p.json")


def test_a_shapes_coverage_is_learned_from_the_photo() -> None:
    """Calibration keeps each shape's paint coverage of its cell as the photo shows it (the median of its
    tiles there); the edition's defaults have none, files round-trip it, and a coverage outside 0..1 or
    of no shape is refused with the file named."""
    classic = tileset("classic")
    measured, known, learned = _learned_from_a_photo("classic", seed=5, light="neutral")
    shown = {s for s in classic.shapes if sum(t.shape == s for t in known) >= 2}
    assert set(learned.coverages) == shown
    for s in shown:
        own = measured.coverage[[t.shape == s for t in known]]
        assert np.isclose(learned.coverages[s], np.median(own))
    if {"circle", "criss-cross"} <= shown:  # a disc covers more of its cell than a thin cross
        assert learned.coverages["circle"] > learned.coverages["criss-cross"]
    assert default_prototypes(classic).coverages == {}
    back = Prototypes.from_json(learned.to_json(), where="p.json")
    for s, v in learned.coverages.items():
        assert np.isclose(back.coverages[s], v, atol=1e-4)
    data = learned.to_json()
    data["coverages"] = {"circle": 1.5}
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*coverages"):
        Prototypes.from_json(data, where="p.json")
    data["coverages"] = {"oval": 0.3}
    with pytest.raises(ValueError, match=r"p\.json: malformed prototypes .*coverages"):
        Prototypes.from_json(data, where="p.json")


def test_colours_are_learned_under_one_balance_of_the_bodies_kept_for_the_reader() -> None:
    """Calibration keeps the photo's tile-body balance with the colours learned under it
    (``body_gains``); a refine (an earlier calibration as ``base``) learns under the base's balance, so
    its colours blend with the ones they were learned beside."""
    from vision.prototypes import colour_features, white_balance

    measured, known, learned = _learned_from_a_photo("classic", seed=5, light="warm")
    assert learned.body_gains is not None
    assert np.allclose(learned.body_gains, white_balance(measured.body))
    assert default_prototypes(tileset("classic")).body_gains is None
    other = np.array([0.8, 1.0, 1.2])
    refined = learn_prototypes(
        [(measured, known)], tileset=tileset("classic"), base=dataclasses.replace(learned, body_gains=other)
    )
    assert refined.body_gains is not None and np.array_equal(refined.body_gains, other)
    reds = np.array([t.colour == "red" for t in known])
    under_other = colour_features(measured, other)[reds].mean(axis=0)
    under_own = colour_features(measured, learned.body_gains)[reds].mean(axis=0)
    assert np.linalg.norm(refined.colours["red"] - under_other) < np.linalg.norm(
        refined.colours["red"] - under_own
    )


def test_pair_doubts_keep_how_near_a_held_out_tile_came_to_another_shape() -> None:
    """For each known tile and other shape, the log-odds of that shape over the tile's own (as the reader
    decides) plus the margin, kept by the tile's colour where that reaches the confidence cut: a tile
    measured where another shape lies leaves that pair in doubt for its colour; Herkle has none."""
    from vision.classify import decision_distances
    from vision.learning import DOUBT_MARGIN, pair_doubts
    from vision.reader import MIN_CONFIDENCE

    measured, known, learned = _learned_from_a_photo("classic", seed=5, light="neutral")
    cut = np.log(MIN_CONFIDENCE / (1 - MIN_CONFIDENCE))
    names, distance = decision_distances(measured, learned)
    expected: dict[tuple[str, str, str], float] = {}
    for row, tile in zip(distance, known, strict=True):
        own = row[names.index(tile.shape)]
        for k, other in enumerate(names):
            need = 0.5 * (own**2 - row[k] ** 2) + DOUBT_MARGIN
            if other != tile.shape and need >= cut:
                expected[(tile.colour, other, tile.shape)] = max(
                    need, expected.get((tile.colour, other, tile.shape), need)
                )
    doubts = pair_doubts(measured, known, learned)
    assert doubts.keys() == expected.keys()
    assert all(np.isclose(doubts[k], v) for k, v in expected.items())
    # a tile claimed to be another shape than it shows: that pair is in doubt for its colour
    first = known[0]
    other = next(s for s in names if s != first.shape)
    claimed = [Tile(first.colour, other), *known[1:]]
    assert pair_doubts(measured, claimed, learned)[(first.colour, first.shape, other)] > DOUBT_MARGIN
    assert pair_doubts(measured, known, default_prototypes(tileset("herkle"))) == {}
