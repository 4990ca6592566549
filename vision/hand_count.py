"""Counting each seat's standing hand from above.

A concealed hand stands at the near edge of the seat's reveal strip, one tile a pitch from the
strip's start, backs to the camera; only the tops of the tiles and their backs are seen. A seat
that never lays its hand down still shows how many tiles it holds: :func:`count_standing` looks
at the top of each place along the strip (the tile's height above the table, projected with the
calibrated camera) and compares it with the felt just in front of the hand. The count is the
number of places from the start that hold a tile (12 or 14 where 13 belong is a wrong-size hand:
``controller.integrity.check_hand_count``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vision.calibration import PinholeCamera
from vision.layout import Layout

MAX_STANDING = 18          # places looked at per seat
FELT_DISTANCE = 60.0       # summed BGR difference from the felt above which a place holds a tile


_PATCH = np.arange(-1, 2)


def _sample(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Mean BGR of a 3x3 patch at each pixel ``px`` (n, 2); NaN outside the frame."""
    h, w = frame.shape[:2]
    xy = np.round(px).astype(int)
    inside = (xy[:, 0] >= 1) & (xy[:, 0] < w - 1) & (xy[:, 1] >= 1) & (xy[:, 1] < h - 1)
    out = np.full((len(px), 3), np.nan)
    if inside.any():
        x, y = xy[inside, 0], xy[inside, 1]
        patches = frame[y[:, None, None] + _PATCH[None, :, None], x[:, None, None] + _PATCH[None, None, :]]
        out[inside] = patches.reshape(len(x), 9, -1)[..., :3].mean(axis=1)
    return out


class StandingCounter:
    """:func:`count_standing` for one calibrated camera and layout: the places' pixels (the tops
    of the tiles a seat may hold and the felt in front of them) are projected once."""

    def __init__(self, camera: PinholeCamera, layout: Layout) -> None:
        self.camera = camera
        self.layout = layout
        self._px: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _places(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        px = self._px.get(seat)
        if px is None:
            layout, t = self.layout, self.layout.profile.tile
            strip = layout.reveal_strip(seat)
            near = strip.near_d - 2.0
            u = [strip.start_u + k * layout.pitch_mm + t.width_mm / 2 for k in range(MAX_STANDING)]
            top = np.array([(*layout.to_table(seat, x, near - t.thickness_mm / 2), t.length_mm - 0.5) for x in u])
            felt = np.array([(*layout.to_table(seat, x, near + 12.0), 0.0) for x in u])
            px = self._px[seat] = (self.camera.project(top), self.camera.project(felt))
        return px

    def count(self, frame: np.ndarray, seats: Iterable[int] = range(4)) -> dict[int, int]:
        """Seat -> tiles standing in its hand (seats with none standing are left out)."""
        seats = list(seats)
        if not seats:
            return {}
        places = [self._places(seat) for seat in seats]
        colours = _sample(frame, np.concatenate([px for pair in places for px in pair]))
        out: dict[int, int] = {}
        for i, seat in enumerate(seats):
            tops = colours[(2 * i) * MAX_STANDING:(2 * i + 1) * MAX_STANDING]
            base = colours[(2 * i + 1) * MAX_STANDING:(2 * i + 2) * MAX_STANDING]
            # a place holds a tile when its top differs from the felt in front; the count stops at the first that does not
            holds = np.abs(tops - base).sum(axis=1) >= FELT_DISTANCE    # NaN (outside the frame) compares False
            n = int(np.argmin(holds)) if not holds.all() else len(holds)
            if n:
                out[seat] = n
        return out


def count_standing(frame: np.ndarray, camera: PinholeCamera, layout: Layout, *,
                   seats: Iterable[int] = range(4)) -> dict[int, int]:
    """Seat -> tiles standing in its hand (seats with none standing are left out)."""
    return StandingCounter(camera, layout).count(frame, seats)
