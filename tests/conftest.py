"""Shared fixtures: where the real photos live (tests that read them skip when they are absent), the
stand-in ``picamera2`` module (tests/fakes) for the Pi camera code, and a clock the frame sources' pacing
runs on."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAKES = Path(__file__).resolve().parent / "fakes"
DATASETS = ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets_dir() -> Path:
    """``../shared/datasets``; the test is skipped when it is absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"real-photo datasets not present at {DATASETS}")
    return DATASETS


@pytest.fixture(scope="session")
def connect_game1(datasets_dir: Path) -> Path:
    path = datasets_dir / "connect-game1"
    if not path.is_dir():
        pytest.skip(f"dataset not present: {path}")
    return path


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The stand-in picamera2 (tests/fakes) importable for this test only, with an empty rig."""
    monkeypatch.syspath_prepend(str(FAKES))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    import picamera2

    assert picamera2.__file__ is not None and str(FAKES) in picamera2.__file__
    picamera2.rig.reset()
    yield picamera2
    picamera2.rig.reset()
    sys.modules.pop("picamera2", None)


class FakeClock:
    """A monotonic clock for frame sources (``clock=``) that moves only when told or when slept on
    (``sleep=clock.sleep``, which also records each wait)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
