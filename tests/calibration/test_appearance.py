"""calibration/appearance.py (with checks.py and contact.py): calibrating from one rendered photo of known
tiles under a strong colour cast, reading with the result, refining from a confirmed board, and failing
clearly on photos it cannot learn from."""

from __future__ import annotations

import dataclasses
from typing import Any

import cv2
import numpy as np
import pytest

from calibration import (
    Calibration,
    CalibrationFailed,
    Report,
    appearance,
    arrangement,
    calibrate_from_photo,
    read_calibrated,
    refine,
)
from calibration.checks import view_changed
from calibration.lighting import SHIFTS, shift_light
from table import Board, connect_layout, tileset
from table.simulate import random_board
from vision.pi_camera import CameraSettings
from vision.reading import Reading, Uncertain
from vision.render import Conditions, Scene, render

CLASSIC = tileset("classic")
CONDITIONS = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
SIZE = (768, 1024)


def _photo(board: Board, *, variant: str = "classic", seed: int = 0, **change: object) -> np.ndarray:
    """A rendered photo of ``board`` on the test table, turned warm (2800 K, uncorrected)."""
    conditions = Conditions(**{**CONDITIONS.__dict__, **change})
    image = render(Scene(board, variant, conditions, size=SIZE, table_seed=11, seed=seed)).image
    return shift_light(image, SHIFTS["warm"], seed=seed)


@pytest.fixture(scope="module")
def calibrated() -> tuple[Calibration, Report]:
    return calibrate_from_photo(_photo(arrangement(CLASSIC)), arrangement(CLASSIC), tileset=CLASSIC)


def test_arrangement_holds_every_distinct_tile() -> None:
    board = arrangement(CLASSIC)
    assert len(board) == 36
    assert set(board.values()) == set(CLASSIC.tiles())
    assert board[(1, 2)].colour == CLASSIC.colours[1] and board[(1, 2)].shape == CLASSIC.shapes[2]


def test_calibration_from_one_warm_photo(calibrated: tuple[Calibration, Report]) -> None:
    cal, report = calibrated
    assert report.found == 36 and report.known == 36
    assert report.read_right == 36
    assert cal.size == (SIZE[1], SIZE[0])
    b, _, r = report.photo["cast_gains"]
    assert b > 2.0 and r < 0.6  # the tungsten cast, measured
    assert cal.balance[0] >= 1.0 >= cal.balance[2]  # kept: none of it, or part of it in its direction
    assert any("colour cast" in w for w in report.warnings)
    assert set(report.colour_margins.worst) == set(CLASSIC.colours)
    assert set(report.shape_margins.worst) == set(CLASSIC.shapes)
    pitch = cal.geometry.pitch
    assert pitch is not None and 60 < pitch < 80
    sheet = report.contact_sheet
    assert sheet.dtype == np.uint8 and sheet.shape == (7 * 72, 7 * 72, 3)
    cell = sheet[72 + 6 : 144 - 6, 72 + 6 : 144 - 6]  # red circle as seen: the contact sheet shows tiles
    assert cell.std() > 20
    assert report.to_json()["read_right"] == 36


def test_calibrated_reading_beats_the_defaults_under_the_same_light(
    calibrated: tuple[Calibration, Report],
) -> None:
    cal, _ = calibrated
    board = random_board(30, seed=4)
    photo = _photo(board, seed=2)
    plain = read_calibrated(photo, None, tileset=CLASSIC)
    mine = read_calibrated(photo, cal, tileset=CLASSIC)

    def right(reading: Reading) -> int:
        from table.register import register

        seen = reading.board
        moved = register(board, seen).board(seen)
        return sum(moved.get(cell) == tile for cell, tile in board.items())

    assert right(mine) >= len(board) - 1
    assert right(mine) > right(plain)


def test_refine_adds_a_confirmed_board(calibrated: tuple[Calibration, Report]) -> None:
    cal, _ = calibrated
    board = random_board(24, seed=8)
    better = refine(cal, _photo(board, seed=5), board, tileset=CLASSIC)
    assert better.source["refined"] == 1
    assert sum(better.samples["colours"].values()) == 36 + len(board)
    moved = [
        not np.allclose(better.prototypes.colours[c], cal.prototypes.colours[c]) for c in CLASSIC.colours
    ]
    assert any(moved)
    assert np.array_equal(better.balance, cal.balance)
    # how far each shape's tiles scatter under this light is learned from the calibration photo, and a
    # calibration made before it was (none recorded) takes it from the confirmed board's tiles
    assert set(cal.prototypes.learned_spreads) == set(CLASSIC.shapes)
    older = dataclasses.replace(cal, prototypes=dataclasses.replace(cal.prototypes, learned_spreads={}))
    shown = {t.shape for t in board.values()}
    assert shown == set(
        refine(older, _photo(board, seed=5), board, tileset=CLASSIC).prototypes.learned_spreads
    )
    blank = np.full((*SIZE, 3), 60, np.uint8)
    assert refine(cal, blank, board, tileset=CLASSIC) is cal
    with pytest.raises(ValueError, match="calibrated for classic, not connect"):
        refine(cal, blank, board, tileset=tileset("connect"))


def test_a_printed_board_start(calibrated: tuple[Calibration, Report]) -> None:
    layout = connect_layout()
    tiles = tileset("connect")
    photo = _photo(layout.start_tiles, variant="connect", px_per_tile=44.0)
    lock = CameraSettings(15000, 2.0, (1.8, 1.5), 1.2)
    cal, report = calibrate_from_photo(
        photo, layout.start_tiles, tileset=tiles, layout=layout, how="layout", camera=lock
    )
    assert cal.camera == lock
    assert report.found == 24 and report.read_right == 24
    assert cal.source["known"] == "layout"
    area = cal.geometry.play_area
    assert area is not None and area.shape == (4, 2)
    # the same view does not count as moved; a zoomed one does
    reading = read_calibrated(photo, cal, tileset=tiles, layout=layout)
    corners = np.array([[0.0, 0], [0, 15], [15, 15], [15, 0]])
    g = cal.geometry
    assert (
        view_changed(reading.geometry, cell_to_image=g.cell_to_image, pitch=g.pitch, corners=corners) is None
    )
    zoomed = {**reading.geometry, "pitch": reading.geometry["pitch"] * 1.3}
    assert "tiles are +30 %" in (view_changed(zoomed, cell_to_image=g.cell_to_image, pitch=g.pitch) or "")
    moved = np.array(reading.geometry["cell_to_image"]) + np.array([[0, 0, 60], [0, 0, 0], [0, 0, 0]])
    shifted = {**reading.geometry, "cell_to_image": moved.tolist()}
    message = view_changed(shifted, cell_to_image=g.cell_to_image, pitch=g.pitch, corners=corners)
    assert message is not None and "shifted by up to 1.4 cells" in message


def test_photos_it_cannot_learn_from() -> None:
    blank = np.full((*SIZE, 3), 90, np.uint8)
    with pytest.raises(CalibrationFailed, match="only 0 of the 36 known tiles"):
        calibrate_from_photo(blank, arrangement(CLASSIC), tileset=CLASSIC)
    with pytest.raises(CalibrationFailed, match="no known tiles"):
        calibrate_from_photo(blank, Board(), tileset=CLASSIC)
    with pytest.raises(ValueError, match=r"BGR uint8 of shape \(H, W, 3\)"):
        calibrate_from_photo(blank[..., 0], arrangement(CLASSIC), tileset=CLASSIC)


def test_dim_glare_and_blur_are_reported() -> None:
    board = arrangement(CLASSIC)
    dark = render(
        Scene(
            board,
            "classic",
            Conditions(**{**CONDITIONS.__dict__, "exposure": 0.25}),
            size=SIZE,
            table_seed=11,
        )
    ).image
    _, report = calibrate_from_photo(dark, board, tileset=CLASSIC)
    assert any(w.startswith("dim:") for w in report.warnings)
    soft = render(
        Scene(board, "classic", Conditions(**{**CONDITIONS.__dict__, "blur": 4.0}), size=SIZE, table_seed=11)
    ).image
    _, report = calibrate_from_photo(soft, board, tileset=CLASSIC)
    assert any(w.startswith("blur:") for w in report.warnings)
    shiny = render(Scene(board, "classic", CONDITIONS, size=SIZE, table_seed=11)).image
    cv2.circle(shiny, (SIZE[1] // 2, SIZE[0] // 2), 140, (255, 255, 255), -1)  # a lamp's blown-out reflection
    _, report = calibrate_from_photo(shiny, board, tileset=CLASSIC)
    assert any(w.startswith("glare:") for w in report.warnings)
    assert report.photo["clipped"] > 0.05


def test_red_and_orange_stay_apart_in_dim_light() -> None:
    """A tenth of the light (``SHIFTS["dim"]``: noisy, re-compressed) leaves orange's green only a few
    8-bit levels above the tile body. Paint and body compared in linear light keep red and orange apart:
    calibrated from a dim photo of the 36 tiles, both keep a margin well clear of the report's "at risk"
    line of 1 spread (subtracted in 8-bit values, as before, they came out at 1.3 and 1.0), and the reader
    names every red and orange tile it finds on a dim board of them."""
    dim = {**CONDITIONS.__dict__, "px_per_tile": 56.0}

    def photo(board: Board, seed: int) -> np.ndarray:
        scene = Scene(board, "classic", Conditions(**dim), size=SIZE, table_seed=11, seed=seed)
        return shift_light(render(scene).image, SHIFTS["dim"], seed=seed)

    cal, report = calibrate_from_photo(photo(arrangement(CLASSIC), 1), arrangement(CLASSIC), tileset=CLASSIC)
    assert report.found == 36
    for colour in ("red", "orange"):
        assert report.colour_margins.worst[colour] >= 1.5
    reds = Board.from_text("Ro Rx Rd Rs Rc Rt / Oo Ox Od Os Oc Ot / Rt Ot Rs Oo Ro Oc / Oc Rc Ox Rx Od Rd")
    seen = read_calibrated(photo(reds, 2), cal, tileset=CLASSIC)
    from table.register import register

    moved = register(reds, seen.board).board(seen.board)
    assert len(moved) >= len(reds) - 1
    assert all(moved[cell] == reds[cell] for cell in moved)


def test_dim_light_on_small_tiles_is_read_under_the_spreads_the_photo_shows() -> None:
    """A tenth of the light on 40-pixel tiles scatters the symbols' outlines wider than the edition's
    spreads and moves their middles (a blurred criss-cross's and starburst's harmonics shrink). Learned
    from a dim photo of the 36 tiles as estimates under that noise, the outlines read every tile of a dim
    board right; the edition's outlines under the same calibration leave tiles out."""
    from table.register import register
    from vision.prototypes import default_prototypes

    small = Conditions(**{**CONDITIONS.__dict__, "px_per_tile": 40.0})

    def photo(board: Board, seed: int) -> np.ndarray:
        scene = Scene(board, "classic", small, size=SIZE, table_seed=11, seed=seed)
        return shift_light(render(scene).image, SHIFTS["dim"], seed=seed)

    cal, _ = calibrate_from_photo(photo(arrangement(CLASSIC), 3), arrangement(CLASSIC), tileset=CLASSIC)
    assert set(cal.prototypes.learned_spreads) == set(CLASSIC.shapes)
    edition = dataclasses.replace(
        cal.prototypes, outlines=default_prototypes(CLASSIC).outlines, learned_spreads={}
    )
    board = random_board(40, seed=31)
    frame = photo(board, 100)

    def right(used: Calibration) -> int:
        seen = read_calibrated(frame, used, tileset=CLASSIC).board
        moved = register(board, seen).board(seen)
        assert all(moved[cell] == board[cell] for cell in moved if cell in board)  # nothing read wrong
        return sum(moved.get(cell) == tile for cell, tile in board.items())

    assert right(cal) == len(board)
    plain = dataclasses.replace(cal, filtered=None)  # the prototypes alone, no second look (denoise)
    assert right(plain) == len(board)
    assert right(dataclasses.replace(plain, prototypes=edition)) < len(board)


def test_a_calibration_that_cannot_read_its_own_photo_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Learning from tiles the reader then cannot read back on the same photo would make reading worse
    than the defaults: with only a third of the known tiles read back, calibration is refused."""
    real = appearance.read_table

    def a_third_read(image: np.ndarray, **kwargs: object) -> Reading:
        reading = real(image, **kwargs)  # type: ignore[arg-type]
        keep = reading.tiles[: len(reading.tiles) // 3]
        lost = tuple(
            Uncertain(t.placed.row, t.placed.col, "low-confidence") for t in reading.tiles[len(keep) :]
        )
        return Reading(keep, reading.uncertain + lost, reading.elapsed_ms, reading.geometry)

    monkeypatch.setattr(appearance, "read_table", a_third_read)
    with pytest.raises(
        CalibrationFailed, match="reads only 12 of the 36 known tiles right on the photo itself"
    ):
        calibrate_from_photo(_photo(arrangement(CLASSIC)), arrangement(CLASSIC), tileset=CLASSIC)


def test_outlines_that_do_not_hold_on_the_photo_are_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outlines learned from a photo are kept only when they name its own tiles, each named against the
    outlines learned from the others, at least as well as the edition's defaults: a circle learned where
    the starburst lies is dropped, and the photo is read back right with the defaults."""
    from vision.prototypes import Prototypes, default_prototypes

    real = appearance.learn_prototypes

    def misled(*args: object, **kwargs: object) -> Prototypes:
        learned = real(*args, **kwargs)  # type: ignore[arg-type]
        wrong = {**learned.outlines, "circle": learned.outlines["starburst"]}
        return dataclasses.replace(learned, outlines=wrong)

    monkeypatch.setattr(appearance, "learn_prototypes", misled)
    cal, report = calibrate_from_photo(_photo(arrangement(CLASSIC)), arrangement(CLASSIC), tileset=CLASSIC)
    assert np.array_equal(cal.prototypes.outlines["circle"], default_prototypes(CLASSIC).outlines["circle"])
    assert cal.prototypes.learned_spreads == {}  # the edition's outlines come back with their spreads
    assert report.read_right == 36


def test_refine_keeps_blended_outlines_only_where_they_hold(calibrated: tuple[Calibration, Report]) -> None:
    """Refining blends the photo's outlines into the calibration's, and keeps the blend only when it names
    the photo's tiles, each judged against the blend made without it, at least as well as the defaults
    (calibration's own check): a calibration whose circle outline is the starburst's gets the defaults
    back; a sound one keeps its blend, moved towards the photo."""
    from vision.prototypes import default_prototypes

    cal, _ = calibrated
    default = default_prototypes(CLASSIC).outlines
    board = random_board(24, seed=8)
    photo = _photo(board, seed=5)
    sound = refine(cal, photo, board, tileset=CLASSIC)
    assert not any(np.allclose(sound.prototypes.outlines[s], default[s]) for s in CLASSIC.shapes)
    assert any(
        not np.allclose(sound.prototypes.outlines[s], cal.prototypes.outlines[s]) for s in CLASSIC.shapes
    )
    outlines = {**cal.prototypes.outlines, "circle": cal.prototypes.outlines["starburst"]}
    misled = dataclasses.replace(cal, prototypes=dataclasses.replace(cal.prototypes, outlines=outlines))
    mended = refine(misled, photo, board, tileset=CLASSIC)
    assert all(np.array_equal(mended.prototypes.outlines[s], default[s]) for s in CLASSIC.shapes)
    assert mended.source["refined"] == 1


def test_herkle_shape_margins_are_the_readers() -> None:
    """Herkle's reader names ordinaries on their shields (:mod:`vision.shields`), not by the whole tile's
    silhouette; the shape margins shown after calibrating are measured the same way, so they agree with
    the names the reader gives the calibration tiles: every shape it reads right on the photo has a
    positive margin (by the whole tile's silhouette, every one was negative)."""
    from vision.classify import classify
    from vision.prototypes import white_balance
    from vision.reader import measure_tiles

    herkle = tileset("herkle")
    known = arrangement(herkle)
    photo = _photo(known, variant="herkle")
    cal, report = calibrate_from_photo(photo, known, tileset=herkle)
    m, tiles, _ = measure_tiles(
        appearance.prepare(photo, cal), known, tileset=herkle, calibration=cal.prototypes
    )
    named = classify(m, white_balance(m.body), cal.prototypes)
    margins = report.shape_margins.worst
    assert set(margins) == set(herkle.shapes)
    for shape in herkle.shapes:
        mine = [i for i, t in enumerate(tiles) if t.shape == shape and named.shape_confidence[i] > 0]
        assert mine, shape
        all_right = all(named.shapes[i] == shape for i in mine)
        assert all_right and margins[shape] > 0, (shape, margins[shape], all_right)


def test_the_balance_kept_is_the_weakest_under_which_every_known_tile_stands_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # under none and the half power of the cast's gains every known tile is found, but one only by paint
    # as faint as vision.occupied.FAINT lets through; the 3/4 power, under which all stand out, is kept
    from vision.features import Measurements
    from vision.paint_checks import FAINT, MIN_CONTRAST

    known = arrangement(CLASSIC)
    gains = np.array([2.0, 1.0, 0.5])

    def measure(image: np.ndarray, board: Board, _: object) -> tuple[Measurements, list[object]]:
        contrast = np.full(len(board), MIN_CONTRAST + 0.1)
        if image[0, 0, 0] < 156:  # the grey frame's blue: 128 uncorrected, 150 at half power, 162 at 3/4
            contrast[0] = (FAINT + MIN_CONTRAST) / 2
        fields = dataclasses.fields(Measurements)
        columns = {f.name: np.zeros(len(board)) for f in fields}
        return Measurements(**{**columns, "contrast": contrast}), list(board.values())

    monkeypatch.setattr(appearance, "estimate_balance", lambda _: gains)
    monkeypatch.setattr(appearance, "measure_known", measure)
    balance, *_ = appearance._balanced(np.full((8, 8, 3), 128, np.uint8), known, CLASSIC)
    assert np.allclose(balance, gains**0.75)


def test_a_balance_that_finds_a_few_more_tiles_by_chance_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # no correction makes every known tile stand out (the edge of the detector's reach in dim light):
    # a stronger one that finds two tiles more than none (and loses one) is chance, and none is kept; a
    # stronger one that finds ten more is kept
    from vision.features import Measurements
    from vision.paint_checks import MIN_CONTRAST

    known = arrangement(CLASSIC)
    gains = np.array([2.0, 1.0, 0.5])
    tiles = list(known.values())

    def kept(clear_by_blue: dict[int, range]) -> np.ndarray:
        def measure(image: np.ndarray, board: Board, _: object) -> tuple[Measurements, list[object]]:
            clear = clear_by_blue[int(image[0, 0, 0])]
            contrast = np.array([MIN_CONTRAST + (0.1 if i in clear else -0.1) for i in range(len(tiles))])
            columns = {f.name: np.zeros(len(tiles)) for f in dataclasses.fields(Measurements)}
            return Measurements(**{**columns, "contrast": contrast}), list(tiles)

        monkeypatch.setattr(appearance, "measure_known", measure)
        balance, *_ = appearance._balanced(np.full((8, 8, 3), 128, np.uint8), known, CLASSIC)
        return balance

    monkeypatch.setattr(appearance, "estimate_balance", lambda _: gains)
    # blue 128 uncorrected, 150 at half power, 162 at 3/4, 176 full
    assert np.allclose(kept({128: range(20), 150: range(1, 22), 162: range(1, 22), 176: range(1, 22)}), 1.0)
    found = kept({128: range(20), 150: range(30), 162: range(29), 176: range(28)})
    assert np.allclose(found, gains**0.5)


@pytest.fixture(scope="module")
def warm_uncorrected() -> tuple[np.ndarray, Calibration, Report]:
    """The warm arrangement calibrated as if no correction had let every known tile stand out (so none is
    kept, and the known paints' colour chart is tried)."""
    photo = _photo(arrangement(CLASSIC))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(appearance, "MIN_CONTRAST", 1.01)
        cal, report = calibrate_from_photo(photo, arrangement(CLASSIC), tileset=CLASSIC)
    return photo, cal, report


def test_the_known_paints_correct_a_cast_no_edge_estimate_could(
    warm_uncorrected: tuple[np.ndarray, Calibration, Report],
) -> None:
    _, cal, report = warm_uncorrected
    blue, green, red = cal.balance
    assert blue > 2.5 and green == 1.0 and red < 0.6  # the tungsten light's (3.9, 1, 0.46), about
    assert report.read_right == 36


def test_the_chart_balance_is_kept_only_when_it_reads_more_known_tiles(
    warm_uncorrected: tuple[np.ndarray, Calibration, Report], monkeypatch: pytest.MonkeyPatch
) -> None:
    photo, _, chosen = warm_uncorrected
    monkeypatch.setattr(appearance, "MIN_CONTRAST", 1.01)
    monkeypatch.setattr(
        appearance, "chart_balance", lambda *_: np.array([0.25, 1.0, 4.0])
    )  # the cast doubled
    cal, report = calibrate_from_photo(photo, arrangement(CLASSIC), tileset=CLASSIC)
    assert np.allclose(cal.balance, 1.0)  # none: nothing found every tile, and the chart read fewer
    assert report.read_right <= chosen.read_right


def test_the_chart_is_not_tried_when_every_known_tile_is_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The colour chart can only be kept when what is learned under it reads more known tiles right: when
    what was learned first reads every one of them, the chart's second learning and reading (a second
    Herkle calibration's worth of work) is not done, whatever made it worth trying."""
    known = arrangement(CLASSIC)
    photo = render(Scene(known, "classic", CONDITIONS, size=SIZE, table_seed=11)).image  # neutral light
    tried: list[np.ndarray] = []
    chart = appearance.chart_balance
    monkeypatch.setattr(appearance, "MIN_CONTRAST", 1.01)  # no correction lets every known tile stand out
    monkeypatch.setattr(appearance, "chart_balance", lambda *args: tried.append(chart(*args)) or tried[-1])
    cal, report = calibrate_from_photo(photo, known, tileset=CLASSIC)
    assert report.read_right == len(known)
    assert not tried
    assert np.allclose(cal.balance, 1.0)


def test_herkle_tiles_that_stand_out_under_a_tungsten_lamp_are_read_under_the_chart() -> None:
    """Large Herkle tiles under an uncorrected 2800 K lamp all stand out from their bodies without any
    correction, so the weakest balance is none; but the reader finds Herkle's shields on their grey field,
    which that lamp turns orange, and reads none of them back. Before refusing, the known paints are used
    as a colour chart, and what is learned under it reads the photo's tiles back."""
    herkle = tileset("herkle")
    known = arrangement(herkle)
    photo = _photo(known, variant="herkle", px_per_tile=110.0)
    cal, report = calibrate_from_photo(photo, known, tileset=herkle)
    assert report.read_right >= 30, report.read_right
    red, green, blue = cal.balance[2], cal.balance[1], cal.balance[0]
    assert blue > 2 * green > 4 * red  # a tungsten lamp's cast undone: blue lifted, red lowered


def test_the_doubts_kept_are_the_photos_held_out_tiles() -> None:
    """With the outlines it learns, calibration keeps the pairs of shapes the photo's own tiles leave in
    doubt, each tile named against what the others teach (held out, as the outlines are checked): a
    dim photo of 40-pixel tiles leaves some; under the edition's outlines, the tiles as they are."""
    from vision.learning import learn_prototypes, pair_doubts
    from vision.prototypes import default_prototypes
    from vision.reader import measure_tiles

    small = Conditions(**{**CONDITIONS.__dict__, "px_per_tile": 40.0})
    scene = Scene(arrangement(CLASSIC), "classic", small, size=SIZE, table_seed=11, seed=3)
    image = shift_light(render(scene).image, SHIFTS["dim"], seed=3)
    measured, tiles, _ = measure_tiles(image, arrangement(CLASSIC), tileset=CLASSIC)

    def learn(m: Any, t: list[Any]) -> Any:
        return learn_prototypes([(m, t)], tileset=CLASSIC)

    kept = appearance._outlines_that_hold(learn, measured, tiles, CLASSIC)
    expected: dict[tuple[str, str, str], float] = {}
    for i, tile in enumerate(tiles):
        others = np.arange(len(tiles)) != i
        without = learn(measured.take(others), tiles[:i] + tiles[i + 1 :])
        for k, v in pair_doubts(measured.take(np.array([i])), [tile], without).items():
            expected[k] = max(v, expected.get(k, v))
    if kept.learned_spreads:
        assert kept.doubts == expected and expected
    else:
        edition = dataclasses.replace(kept, outlines=default_prototypes(CLASSIC).outlines)
        assert kept.doubts == pair_doubts(measured, tiles, edition)
