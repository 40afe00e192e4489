"""The demo source: a seeded game filmed turn by turn, each frame with its ground truth."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from table import Board, tileset, violations
from table.codec import board_from_json
from vision.demo import DemoSource, framing, play_game
from vision.frames import Frame, FrameSource, SourceError

SIZE = (240, 320)


def _frames(n: int, **kwargs: Any) -> list[Frame]:
    options: dict[str, Any] = {
        "seed": 2,
        "size": SIZE,
        "realtime": False,
        "settle": 1,
        "reach": 2,
        "bump_chance": 0.3,
    }
    options.update(kwargs)
    with DemoSource(**options) as source:
        assert isinstance(source, FrameSource)
        return [source.read() for _ in range(n)]


def test_the_film_follows_a_legal_game_and_every_frame_carries_its_truth() -> None:
    frames = _frames(30)
    assert [f.index for f in frames] == list(range(30))
    assert frames[1].timestamp - frames[0].timestamp == pytest.approx(1 / 2.0)
    ts = tileset("classic")
    settled = [f for f in frames if f.meta["phase"] == "settled"]
    assert len(settled) >= 5 and {"reach", "settled"} <= {f.meta["phase"] for f in frames}
    previous: Board | None = None
    for f in frames:
        assert f.image.shape == (*SIZE, 3) and f.image.dtype == np.uint8
        shown = board_from_json(f.meta["board"], where="meta", tileset=ts)
        truth = board_from_json(f.meta["truth"], where="truth", tileset=ts)
        assert truth.items() <= shown.items()
        if f.meta["phase"] == "settled":
            if previous is not None and shown != previous:  # what changed is one legal placement
                added = [p for p in shown.placed if p.cell not in previous]
                assert len(shown) == len(previous) + len(added)
                assert violations(previous, added, tileset=ts) == ()
                assert f.meta["move"]["placed"] == [
                    {"row": p.row, "col": p.col, "colour": p.tile.colour, "shape": p.tile.shape}
                    for p in sorted(added)
                ]
            previous = shown


def test_the_hand_hides_the_cells_being_played() -> None:
    frames = _frames(30)
    reach = [f for f in frames if f.meta["phase"] == "reach" and f.meta["move"]["kind"] == "play"]
    assert reach
    hidden_any = False
    for f in reach:
        cells = {(p["row"], p["col"]) for p in f.meta["move"]["placed"]}
        hidden = {(u["row"], u["col"]) for u in f.meta["truth"]["uncertain"] if u["reason"] == "occluded"}
        hidden_any |= bool(cells & hidden)
    assert hidden_any
    settled = [u for f in frames if f.meta["phase"] == "settled" for u in f.meta["truth"]["uncertain"]]
    assert all(u["reason"] != "occluded" for u in settled)


def test_same_seed_same_film_and_another_seed_another() -> None:
    a, b = _frames(6), _frames(6)
    assert all(np.array_equal(x.image, y.image) and x.meta == y.meta for x, y in zip(a, b, strict=True))
    c = _frames(6, seed=3)
    assert any(not np.array_equal(x.image, y.image) for x, y in zip(a, c, strict=True))


def test_connect_demo_starts_from_the_printed_start_tiles() -> None:
    frame = _frames(1, variant="connect", size=(480, 640))[0]
    assert len(frame.meta["truth"]["tiles"]) == 24
    assert frame.meta["variant"] == "connect"


def test_reading_needs_an_open_source_and_bad_options_fail_early() -> None:
    source = DemoSource(size=SIZE, realtime=False)
    with pytest.raises(SourceError, match="not open"):
        source.read()
    with pytest.raises(ValueError, match="reach"):
        DemoSource(reach=1)
    with pytest.raises(ValueError, match="light"):
        DemoSource(conditions={"light": "disco"})


def test_games_and_framing() -> None:
    turns = play_game(seed=5)
    assert turns and turns[-1].after == turns[-1].before.with_tiles(turns[-1].placed)
    assert sum(t.score.total for t in turns if t.score) <= sum(turns[-1].scores.values())
    centre, fit = framing(turns[-1].after, variant="classic", size=(960, 1280))
    (r0, c0), (r1, c1) = turns[-1].after.bounds
    assert centre == ((r0 + r1 + 1) / 2, (c0 + c1 + 1) / 2)
    assert (r1 - r0 + 4) * fit <= 960 and (c1 - c0 + 4) * fit <= 1280
    _, turned = framing(turns[-1].after, variant="classic", size=(960, 1280), rotation=45.0)
    assert turned < fit


def test_without_loop_the_final_table_stays_in_view() -> None:
    frames = _frames(16, max_turns=2, loop=False, bump_chance=0.0)
    assert [f.meta["game"] for f in frames] == [0] * 16
    tail = frames[-5:]
    assert all(f.meta["over"] and f.meta["phase"] == "settled" for f in tail)
    assert all(f.meta["board"] == tail[0].meta["board"] for f in tail)
    looping = _frames(16, max_turns=2, bump_chance=0.0)
    assert looping[-1].meta["game"] == 1


def test_skipped_frames_are_not_rendered_but_the_film_and_clock_move_on(monkeypatch) -> None:
    import vision.demo

    read = _frames(8)
    rendered: list[Any] = []
    real = vision.demo.render
    monkeypatch.setattr(vision.demo, "render", lambda scene: rendered.append(scene) or real(scene))
    options: dict[str, Any] = {"seed": 2, "size": SIZE, "realtime": False, "settle": 1, "reach": 2}
    with DemoSource(bump_chance=0.3, **options) as source:
        skipped = [source.skip() for _ in range(5)]
        frame = source.read()
    assert len(rendered) == 1
    assert [t for t, _ in skipped] == [f.timestamp for f in read[:5]]
    assert [m for _, m in skipped] == [{k: v for k, v in f.meta.items() if k != "truth"} for f in read[:5]]
    assert frame.index == 5 and np.array_equal(frame.image, read[5].image)
    with pytest.raises(SourceError, match="not open"):
        DemoSource(**options).skip()
