"""The camera snapshot: the frame with the tiles read outlined where the reader's homography puts them."""

import cv2
import numpy as np
import pytest

from live.overlay import annotate
from vision.reading import Reading

from .conftest import reading


def test_tiles_are_drawn_at_their_cells():
    image = np.full((200, 300, 3), 50, np.uint8)
    plain = reading("Ro Rx")
    # cell corner (col, row) -> pixels (x, y): 40 px cells from (20, 30)
    placed = Reading(
        plain.tiles, plain.uncertain, geometry={"homography": [[40, 0, 20], [0, 40, 30], [0, 0, 1]]}
    )
    drawn = cv2.imdecode(np.frombuffer(annotate(image, placed), np.uint8), cv2.IMREAD_COLOR)
    bare = cv2.imdecode(np.frombuffer(annotate(image, plain), np.uint8), cv2.IMREAD_COLOR)
    assert drawn.shape == image.shape
    outline = np.abs(drawn.astype(int) - bare.astype(int)).sum(axis=2) > 60
    ys, xs = np.nonzero(outline)
    assert ys.min() >= 25 and ys.max() <= 75 and xs.min() >= 15 and xs.max() <= 105  # cells (0,0), (0,1)


def test_a_bad_frame_is_named():
    with pytest.raises(ValueError, match="H×W×3 uint8"):
        annotate(np.zeros((4, 4)), None)
