"""An alert's evidence frame cut to the seat's river with the tile outlined, on a rendered and
calibrated frame of the simulated table (tests/fixtures/frames.py)."""

from __future__ import annotations

import cv2
import numpy as np

from controller.panel.evidence import crop, river_place
from tests.fixtures.frames import rendered


def test_the_crop_holds_the_seats_river_with_the_tile_outlined():
    table = rendered("top")
    ok, jpeg = cv2.imencode(".jpg", np.ascontiguousarray(table.frame))
    river = table.state.rivers[0]
    sideways = [side for _t, side in river]
    out = cv2.imdecode(np.frombuffer(crop(jpeg.tobytes(), table.calibration, table.profile, 0, 7, sideways), np.uint8),
                       cv2.IMREAD_COLOR)
    h, w = table.frame.shape[:2]
    assert out is not None and out.shape[0] * out.shape[1] < h * w / 6      # the river, not the frame
    red = (out[..., 2] > 200) & (out[..., 1] < 60) & (out[..., 0] < 60)
    assert red.sum() > 50                                                   # the outline is drawn
    # the outline is round the place of the eighth discard (the sideways 2s): compare with an outline
    # of the first discard, which lies elsewhere in the crop
    first = cv2.imdecode(np.frombuffer(crop(jpeg.tobytes(), table.calibration, table.profile, 0, 0, sideways),
                                       np.uint8), cv2.IMREAD_COLOR)
    red_first = (first[..., 2] > 200) & (first[..., 1] < 60) & (first[..., 0] < 60)
    assert first.shape == out.shape
    centre = np.argwhere(red).mean(axis=0)
    centre_first = np.argwhere(red_first).mean(axis=0)
    assert np.hypot(*(centre - centre_first)) > 20


def test_the_place_is_the_seats_latest_discard_of_the_tile():
    class Seat:
        river = [{"tile": "7z", "is_sideways": False}, {"tile": "1m", "is_sideways": True},
                 {"tile": "7z", "is_sideways": False}]

    class State:
        hand_index = 2
        seats = [Seat(), Seat()]

    assert river_place(State(), {"seat": 1, "tile": "7z", "hand_index": 2}) == (1, 2, [False, True, False])
    assert river_place(State(), {"seat": 1, "tile": "7z", "hand_index": 1}) is None       # another hand
    assert river_place(State(), {"seat": None, "tile": "7z", "hand_index": 2}) is None
