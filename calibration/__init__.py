"""Teaching the reader a table, a light and a tile set: colour and shape prototypes, white balance,
geometry and camera settings, kept in one JSON file.

``load(path)`` / ``save(cal, path)`` read and write the file (:mod:`calibration.file`);
``calibrate_from_photo(image, known, tileset=...)`` learns from one photo of known tiles and returns the
calibration and a :class:`Report` (checks, margins, contact sheet); ``refine`` adds a confirmed board;
``read_calibrated`` reads a frame with a calibration. See ``docs/calibration.md``.
"""

from calibration.appearance import (
    CalibrationFailed,
    Report,
    arrangement,
    calibrate_from_photo,
    prepare,
    read_calibrated,
    refine,
)
from calibration.file import Calibration, CalibrationError, load, save

__all__ = [
    "Calibration",
    "CalibrationError",
    "CalibrationFailed",
    "Report",
    "arrangement",
    "calibrate_from_photo",
    "load",
    "prepare",
    "read_calibrated",
    "refine",
    "save",
]
