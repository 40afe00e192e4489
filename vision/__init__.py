"""Reading the table from camera frames: finding tiles, classifying colour and shape, and frame sources.

The reader's public names: :func:`read_table` (a frame to a :class:`vision.reading.Reading`),
:func:`measure_tiles` (what calibration measures on known tiles), :class:`Prototypes` with
:func:`default_prototypes` and :func:`learn_prototypes` (the reference colours and shapes, as data).
"""

from vision.learning import learn_prototypes
from vision.prototypes import Prototypes, default_prototypes
from vision.reader import measure_tiles, read_table

__all__ = ["Prototypes", "default_prototypes", "learn_prototypes", "measure_tiles", "read_table"]
