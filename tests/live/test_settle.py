"""Settling: motion against noise and light drift; readings that must agree over time."""

import numpy as np
import pytest

from live.settle import Evidence, MotionDetector, Settler
from table import Board
from vision.reading import Reading, ReadTile, Uncertain


def frame(light=1.0, blob=None, seed=0):
    rng = np.random.default_rng(seed)
    image = np.full((240, 320, 3), 110.0) + rng.normal(0, 3, (240, 320, 3))
    if blob is not None:
        image[60:140, blob : blob + 60] = 40
    return np.clip(image * light, 0, 255).astype(np.uint8)


def test_noise_and_light_drift_are_not_motion():
    motion = MotionDetector()
    assert motion.update(frame(seed=1))  # the first frame
    for k in range(2, 30):
        assert not motion.update(frame(light=1 + 0.01 * k, seed=k))


def test_a_hand_is_motion():
    motion = MotionDetector()
    motion.update(frame())
    assert motion.update(frame(blob=100))
    assert motion.update(frame(blob=140))
    assert not motion.update(frame(blob=140))


def test_bad_frames_are_named():
    with pytest.raises(ValueError, match="H×W×3 uint8"):
        MotionDetector().update(np.zeros((4, 4, 3), np.float32))


def test_two_agreeing_readings_a_hold_apart_settle():
    s = Settler(quiet=0.1, hold=0.3)
    s.moved(0.0)
    assert not s.wants_reading(0.05)
    assert s.wants_reading(0.1)
    assert s.offer(0.1, "a", busy=False) is None
    assert s.offer(0.2, "a", busy=False) is None
    settled = s.offer(0.4, "a", busy=False)
    assert settled is not None and settled.since == 0.1
    assert s.offer(0.5, "a", busy=False) is None  # once per settle


def test_a_changed_or_busy_reading_starts_over():
    s = Settler(quiet=0.0, hold=0.3)
    s.offer(0.0, "a", busy=False)
    s.offer(0.2, "b", busy=False)
    assert s.offer(0.4, "b", busy=False) is None
    assert s.offer(0.5, "b", busy=True) is None
    assert s.offer(0.9, "b", busy=False) is None
    assert s.offer(1.2, "b", busy=False) is not None


def test_a_settled_table_is_rechecked_now_and_then():
    s = Settler(quiet=0.0, hold=0.0, recheck=2.0)
    assert s.offer(0.0, "a", busy=False) is not None
    assert not s.wants_reading(1.0)
    assert s.wants_reading(2.0)
    s.moved(2.5)
    assert s.settled is None


def _read(text, *, shift=(0, 0)):
    board = Board.from_text(text).transformed(shift=shift)
    return Reading(tuple(ReadTile(p, 0.9) for p in board.placed))


def test_evidence_keeps_a_tile_missed_in_one_reading():
    evidence = Evidence()
    assert evidence.add(_read("Ro Rx Rd"), fixed=False).board == Board.from_text("Ro Rx Rd")
    merged = evidence.add(_read("Ro Rx"), fixed=False)  # the reader missed Rd in this frame
    assert merged.board == Board.from_text("Ro Rx Rd")


def test_evidence_registers_each_reading_onto_the_first():
    evidence = Evidence()
    evidence.add(_read("Ro Rx Rd / Bo"), fixed=False)
    merged = evidence.add(_read("Rx Rd / 1"), fixed=False)  # another origin, two tiles missed
    assert merged.board == Board.from_text("Ro Rx Rd / Bo")


def test_evidence_forgets_a_tile_gone_from_the_latest_readings_and_resets():
    evidence = Evidence(window=3)
    evidence.add(_read("Ro Rx Rd"), fixed=True)
    for _ in range(2):
        assert evidence.add(_read("Ro Rx"), fixed=True).board == Board.from_text("Ro Rx Rd")
    assert evidence.add(_read("Ro Rx"), fixed=True).board == Board.from_text("Ro Rx")
    evidence.add(_read("Ro Rx Rd"), fixed=True)
    evidence.reset()  # the table moved
    assert evidence.add(_read("Ro"), fixed=True).board == Board.from_text("Ro")
    with pytest.raises(ValueError, match="window"):
        Evidence(window=0)


def test_evidence_takes_a_tile_as_last_read_and_keeps_unreadable_cells_without_a_tile():
    evidence = Evidence()
    evidence.add(_read("Ro Rx"), fixed=True)
    reading = Reading(
        tuple(ReadTile(p, 0.9) for p in Board.from_text("Ro Rs").placed),
        (Uncertain(0, 1, "low-confidence"), Uncertain(0, 2, "low-confidence")),
    )
    merged = evidence.add(reading, fixed=True)
    assert merged.board == Board.from_text("Ro Rs")
    assert [(u.row, u.col) for u in merged.uncertain] == [(0, 2)]
