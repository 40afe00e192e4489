"""Shared fixtures: where the real photos live (tests that read them skip when they are absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
