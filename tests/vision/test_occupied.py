"""vision/occupied.py: which cells hold tiles, the probes around the tiles the detector found."""

from __future__ import annotations

import numpy as np
import pytest

from table import tileset
from vision import occupied, read_table
from vision.evaluate import score_frame
from vision.render import random_scene, render

#: Tiles pushed together carelessly (seams a quarter of a tile wide) under a tilted camera.
SEAMS = {
    "hand": 0.0,
    "light": "neutral",
    "table": "green-felt",
    "px_per_tile": 45.0,
    "tilt": 10.0,
    "drift": 2.0,
    "gaps": 13.0,
    "blur": 0.4,
    "noise": 1.0,
    "jpeg_quality": 95,
    "askew": 0.5,
    "jitter": 0.3,
}


def test_a_probe_recentres_on_a_symbol_off_its_predicted_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    # the seams make the grid's prediction of the cells next to the tiles found miss their symbols by a
    # fifth of a cell; a second look, recentred on the paint the first showed, finds them
    out = render(random_scene(seed=7, variant="classic", size=(600, 800), tiles=30, **SEAMS))
    twice = score_frame(read_table(out.image, tileset=tileset("classic")), out.truth, layout=None, where="r")
    monkeypatch.setattr(occupied, "LOOKS", 1)
    once = score_frame(read_table(out.image, tileset=tileset("classic")), out.truth, layout=None, where="r")
    assert twice.wrong == twice.extra == 0
    assert twice.right >= once.right + 2, (twice.summary(), once.summary())


def test_located_take_keeps_the_rows_asked_for() -> None:
    out = render(random_scene(seed=1, variant="classic", size=(600, 800), tiles=12, **SEAMS))
    located = occupied.candidates(out.image)
    assert located is not None
    work, scale, blobs, lattice = located
    found = occupied.occupied(work, scale, blobs, lattice)
    assert found is not None
    keep = np.arange(len(found.cells)) % 2 == 0
    half = found.take(keep)
    assert (half.cells == found.cells[keep]).all() and (half.centres == found.centres[keep]).all()
    assert len(half.patches) == len(half.measured.paint) == int(keep.sum())
