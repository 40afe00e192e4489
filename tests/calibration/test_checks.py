"""The calibration report's shape margins (calibration/checks.py) measure what the reader names by."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.appearance import arrangement, calibrate_from_photo
from calibration.checks import shape_margins
from table import tileset
from vision.reader import measure_tiles
from vision.render import Conditions, Scene, render

CLASSIC = tileset("classic")


def test_shape_margins_count_the_symbols_size_where_the_reader_does() -> None:
    # a calibrated reader names shapes by outline and by size (the paint's coverage of its cell): with
    # the square's outline made the circle's, the outline alone cannot tell the two apart (no margin),
    # while their sizes, as the photo showed them, still do; without sizes (uncalibrated) nothing does
    conditions = Conditions(px_per_tile=70.0, tilt=5.0, rotation=3.0, table="dark-wood", jpeg_quality=92)
    photo = render(Scene(arrangement(CLASSIC), "classic", conditions, size=(768, 1024), table_seed=11)).image
    calibration, _ = calibrate_from_photo(photo, arrangement(CLASSIC), tileset=CLASSIC)
    learned = calibration.prototypes
    assert set(learned.coverages) == set(CLASSIC.shapes)
    m, tiles, _ = measure_tiles(photo, arrangement(CLASSIC), tileset=CLASSIC, calibration=learned)
    alike = replace(
        learned,
        outlines={**learned.outlines, "square": learned.outlines["circle"]},
        outline_spreads={**learned.outline_spreads, "square": learned.outline_spreads["circle"]},
        learned_spreads={**learned.learned_spreads, "square": learned.learned_spreads["circle"]},
    )
    sized = shape_margins(m, tiles, alike).worst
    unsized = shape_margins(m, tiles, replace(alike, coverages={})).worst
    assert np.isclose(unsized["circle"], 0.0) and np.isclose(unsized["square"], 0.0), unsized
    # every circle and every square is nearer its own size (the worst square only just: a weak cue alone)
    assert sized["circle"] > 0 and sized["square"] > 0, sized
