"""Settling: motion against noise and light drift; readings that must agree over time."""

import numpy as np
import pytest

from live.settle import MotionDetector, Settler


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
