"""vision/reader.py on rendered photos: what it reads, what it refuses, and the geometry it reports."""

from __future__ import annotations

from functools import cache, partial
from types import SimpleNamespace

import numpy as np
import pytest

from table import Board, Tile, tileset
from table.codec import board_from_json
from table.register import register
from vision import measure_tiles, occupied, read_table, reader, symbol_candidates
from vision.detect import Blobs, find_blobs
from vision.evaluate import score_frame
from vision.geometry import apply_homography
from vision.lattice import fit_lattice
from vision.named import Named
from vision.render import Rendered, Scene, random_scene, render

EASY = {
    "hand": 0.0,
    "light": "neutral",
    "tilt": 0.0,
    "px_per_tile": 60.0,
    "blur": 0.4,
    "noise": 1.0,
    "jpeg_quality": 95,
    "askew": 0.5,
    "jitter": 0.3,
}


@cache
def _frame(seed: int, variant: str = "classic", **kw: object) -> tuple[Scene, Rendered]:
    options = {**EASY, **kw}
    if variant == "connect":
        options["px_per_tile"] = 34.0  # the whole 16×16 board in the frame
    else:
        options.setdefault("table", "green-felt")
    options.setdefault("tiles", 20)
    scene = random_scene(seed=seed, variant=variant, size=(600, 800), **options)  # type: ignore[arg-type]
    return scene, render(scene)


@pytest.mark.parametrize("variant", ["classic", "colour-blind"])
def test_easy_free_tables_are_read_exactly(variant: str) -> None:
    for seed in range(4):
        _, out = _frame(seed, variant)
        reading = read_table(out.image, tileset=tileset(variant))
        tally = score_frame(reading, out.truth, layout=None, where="render")
        assert tally.wrong == 0 and tally.extra == 0, f"seed {seed}: a silent wrong answer"
        assert tally.right >= tally.tiles - 1, f"seed {seed}: {tally.summary()}"


def test_groups_pulled_apart_at_their_seams_are_joined_where_they_touch() -> None:
    # tiles pushed together carelessly: gaps of a quarter tile open seams that split the layout in groups
    _, out = _frame(9, tiles=30, px_per_tile=45.0, gaps=13.0, tilt=10.0, drift=2.0)
    reading = read_table(out.image, tileset=tileset("classic"))
    tally = score_frame(reading, out.truth, layout=None, where="render")
    assert tally.wrong == 0 and tally.extra == 0
    assert tally.right >= tally.tiles - 2, tally.summary()


def test_printed_board_reports_board_cells() -> None:
    scene, out = _frame(0, "connect")
    reading = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    assert reading.board == scene.board


def test_groups_far_apart_on_a_printed_board_are_read_as_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    # a steep camera: the groups on the four arms of the board can lie too far apart for one grid to join
    # them safely (forced here: the lattice now joins these arms itself); each is read on its own and
    # registered on the start tiles it holds
    monkeypatch.setattr(symbol_candidates, "fit_lattice", partial(fit_lattice, join=False))
    scene, out = _frame(1, "connect", tilt=20.0, tiles=10)
    reading = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    tally = score_frame(reading, out.truth, layout=scene.layout, where="render")
    assert tally.wrong == 0 and tally.extra == 0
    assert tally.right >= tally.tiles - 2, tally.summary()
    monkeypatch.setattr(reader, "PARTS", 1)
    # one part only: the other arms are joined by the rules of the game (vision/rejoin.py) where they touch
    # the read tiles, with no tile put a cell off
    by_rules = score_frame(
        read_table(out.image, tileset=tileset("connect"), layout=scene.layout),
        out.truth,
        layout=scene.layout,
        where="render",
    )
    assert by_rules.wrong == 0 and by_rules.extra == 0
    monkeypatch.setattr(reader, "rejoined", lambda located, named, blobs, prototypes: (located, named))
    alone = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    assert score_frame(alone, out.truth, layout=scene.layout, where="render").right < tally.tiles // 2
    assert by_rules.right > tally.tiles // 2, by_rules.summary()


def test_a_start_tile_the_detector_missed_is_looked_for_on_its_printed_cell(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene, out = _frame(0, "connect")
    assert scene.layout is not None
    cell, tile = sorted(scene.layout.start_tiles.items())[0]
    corners = next(
        np.asarray(f["corners"]) for f in out.truth["geometry"]["faces"] if (f["row"], f["col"]) == cell
    )
    centre, width = corners.mean(axis=0), float(np.ptp(corners[:, 1]))

    def without_it(q: np.ndarray, **kw: object) -> Blobs:
        blobs = find_blobs(q, **kw)  # type: ignore[arg-type]
        scale = q.shape[0] / out.image.shape[0]
        return blobs.take(np.linalg.norm(blobs.centres - centre * scale, axis=1) > 0.5 * width * scale)

    monkeypatch.setattr(symbol_candidates, "find_blobs", without_it)
    monkeypatch.setattr(occupied, "PROBE_ROUNDS", 0)  # not found next to the tiles read either
    reading = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    assert reading.board.get(cell) == tile
    assert reading.board.items() <= scene.board.items()
    monkeypatch.setattr(reader, "_on_known", lambda located, *_: located)
    blind = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    assert cell not in blind.board


def test_geometry_maps_cells_onto_the_tiles() -> None:
    scene, out = _frame(0, "connect")
    reading = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    h = np.asarray(reading.geometry["cell_to_image"])
    faces = {(f["row"], f["col"]): np.asarray(f["corners"]) for f in out.truth["geometry"]["faces"]}
    for t in reading.tiles:
        centre = apply_homography(h, np.array([t.placed.row, t.placed.col], float))
        assert np.linalg.norm(centre - faces[t.placed.cell].mean(axis=0)) < 0.25 * reading.geometry["pitch"]
    assert -45 < reading.geometry["angle"] <= 45


def test_json_shape() -> None:
    _, out = _frame(1)
    data = read_table(out.image, tileset=tileset("classic")).to_json()
    assert set(data) == {"tiles", "uncertain", "elapsed_ms"}
    assert all(0 <= t["confidence"] <= 1 for t in data["tiles"])


def test_tiles_whose_colour_is_in_doubt_can_be_left_uncertain_whatever_their_shape() -> None:
    """With ``min_confidence`` 0 every found tile is read, its shape guessed; ``min_colour_confidence``
    leaves those whose colour is named with less confidence uncertain (``low-confidence``)."""
    _, out = _frame(1)
    classic = tileset("classic")
    guesses = read_table(out.image, tileset=classic, min_confidence=0.0)
    assert guesses.tiles and not any(u.reason == "low-confidence" for u in guesses.uncertain)
    unsure = read_table(out.image, tileset=classic, min_confidence=0.0, min_colour_confidence=1.01)
    assert unsure.tiles == ()
    doubted = {(u.row, u.col) for u in unsure.uncertain if u.reason == "low-confidence"}
    assert {t.placed.cell for t in guesses.tiles} <= doubted


def test_an_empty_table_reads_empty() -> None:
    image = np.full((480, 640, 3), (40, 120, 30), np.uint8)
    reading = read_table(image, tileset=tileset("classic"))
    assert reading.tiles == () and reading.uncertain == ()


def test_a_tile_cut_by_the_frame_is_uncertain_not_guessed() -> None:
    _, out = _frame(2)
    faces = out.truth["geometry"]["faces"]
    edge = min(faces, key=lambda f: np.asarray(f["corners"])[:, 1].min())
    cut = int(np.asarray(edge["corners"])[:, 1].mean())
    reading = read_table(np.ascontiguousarray(out.image[:, cut:]), tileset=tileset("classic"))
    truth = {**out.truth, "uncertain": []}
    tally = score_frame(reading, truth, layout=None, where="render")
    assert tally.wrong == 0 and tally.extra == 0


def test_measure_tiles_finds_the_known_tiles() -> None:
    scene, out = _frame(3)
    measured, tiles, cells = measure_tiles(out.image, scene.board, tileset=tileset("classic"))
    assert len(tiles) >= len(scene.board) - 1
    assert all(scene.board[(int(r), int(c))] == t for (r, c), t in zip(cells, tiles, strict=True))
    assert measured.paint.shape == (len(tiles), 3)


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.zeros((100, 100), np.uint8), "BGR uint8"),
        (np.zeros((100, 100, 3), np.float32), "BGR uint8"),
        (np.zeros((8, 8, 3), np.uint8), "too small"),
    ],
)
def test_bad_images_are_refused_with_a_message(image: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_table(image, tileset=tileset("classic"))


def _named(tiles: list[Tile]) -> Named:
    n = len(tiles)
    ones, zeros = np.ones(n), np.zeros(n)
    return Named([t.colour for t in tiles], [t.shape for t in tiles], ones, ones, zeros, zeros)


def test_a_registration_the_read_tiles_contradict_too_often_is_refused() -> None:
    known = Board.from_text("Ro 1 Gx 1 Bd / / Os 1 Yc 1 Pt")
    cells = [(0, 0), (0, 2), (0, 4), (2, 0), (2, 2)]
    agreeing = [known[c] for c in cells]
    located = SimpleNamespace(cells=np.array(cells))
    # three found again, two contradicted: as likely a chance alignment of misread tiles
    contradicted = [*agreeing[:3], Tile("red", "starburst"), Tile("red", "clover")]
    assert reader._register(located, _named(contradicted), known) is None  # type: ignore[arg-type]
    # four found again, one contradicted: registered
    mostly = [*agreeing[:4], Tile("red", "clover")]
    assert reader._register(located, _named(mostly), known) == (0, (0, 0), 4)  # type: ignore[arg-type]


def test_a_tilted_connect_frame_registers_whole_on_its_start_tiles() -> None:
    # a camera tilted 22°: with one pitch for the whole grid, a part of this frame lined up with a few
    # start tiles under a wrong shift while contradicting others (the registration's agreement rule,
    # tested above on its own, refused it, and its tiles went unread); with the perspective taken
    # out of the grid (vision.perspective) every part registers
    scene = random_scene(seed=1163859351, variant="connect", size=(768, 1024))
    out = render(scene)
    reading = read_table(out.image, tileset=tileset("connect"), layout=scene.layout)
    tally = score_frame(reading, out.truth, layout=scene.layout, where="render")
    assert tally.wrong == 0 and tally.extra <= 1
    assert tally.right >= tally.tiles - 1, tally.summary()


def test_geometry_is_centred_on_the_tiles_in_the_frames_pixels() -> None:
    # tiles 100 pixels wide are read on a working copy shrunk three times (800 columns to 267: not a whole
    # factor); a block mean's middle lies at (x + 0.5)·k - 0.5 in the frame, not at x·k (a pixel up-left)
    steady = {**EASY, "jitter": 0.0, "askew": 0.0, "drift": 0.0}
    offsets = []
    for seed in range(4):
        options = {**steady, "px_per_tile": 100.0, "tiles": 12, "table": "green-felt"}
        scene = random_scene(seed=seed, variant="classic", size=(600, 800), **options)  # type: ignore[arg-type]
        out = render(scene)
        reading = read_table(out.image, tileset=tileset("classic"))
        assert reading.geometry["scale"] < 0.5
        h = np.asarray(reading.geometry["cell_to_image"])
        motion = register(board_from_json(out.truth, where="render"), reading.board)
        faces = {(f["row"], f["col"]): np.asarray(f["corners"]) for f in out.truth["geometry"]["faces"]}
        for t in reading.tiles:
            (cell,) = motion.cells({t.placed.cell})
            offsets.append(apply_homography(h, np.array(t.placed.cell, float)) - faces[cell].mean(axis=0))
    assert len(offsets) >= 30
    assert np.all(np.abs(np.mean(offsets, axis=0)) < 0.3)  # in pixels, rows and columns
