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


def _sample(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """Mean BGR of a 3x3 patch at each pixel ``px`` (n, 2); NaN outside the frame."""
    h, w = frame.shape[:2]
    out = np.full((len(px), 3), np.nan)
    for i, (x, y) in enumerate(np.round(px).astype(int)):
        if 1 <= x < w - 1 and 1 <= y < h - 1:
            out[i] = frame[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0)
    return out


def count_standing(frame: np.ndarray, camera: PinholeCamera, layout: Layout, *,
                   seats: Iterable[int] = range(4)) -> dict[int, int]:
    """Seat -> tiles standing in its hand (seats with none standing are left out)."""
    t = layout.profile.tile
    out: dict[int, int] = {}
    for seat in seats:
        strip = layout.reveal_strip(seat)
        near = strip.near_d - 2.0
        u = np.array([strip.start_u + k * layout.pitch_mm + t.width_mm / 2 for k in range(MAX_STANDING)])
        top = np.array([(*layout.to_table(seat, x, near - t.thickness_mm / 2), t.length_mm - 0.5) for x in u])
        felt = np.array([(*layout.to_table(seat, x, near + 12.0), 0.0) for x in u])
        tops = _sample(frame, camera.project(top))
        base = _sample(frame, camera.project(felt))
        n = 0
        for a, b in zip(tops, base, strict=True):
            if np.isnan(a).any() or np.isnan(b).any() or float(np.abs(a - b).sum()) < FELT_DISTANCE:
                break
            n += 1
        if n:
            out[seat] = n
    return out
