"""The reader's sampling helpers: points projected in one batch, colour classes of samples."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.layout import Layout, Strip
from vision.reader_view import (
    STEP_MM,
)

log = logging.getLogger(__name__)


class _Samples:
    """Collects named sets of table points; one remap map for all of them."""

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []
        self._index: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._n = 0

    def add(self, name: str, points_mm: np.ndarray) -> None:
        pts = np.asarray(points_mm, dtype=np.float64)
        shape = pts.shape[:-1]
        flat = pts.reshape(-1, 3)
        self._index[name] = (self._n, shape)
        self._parts.append(flat)
        self._n += len(flat)

    def build(self, camera) -> tuple[np.ndarray, np.ndarray]:
        pts = np.concatenate(self._parts)
        px = camera.project(pts).astype(np.float32)
        w = 1024
        rows = -(-len(px) // w)
        pad = rows * w - len(px)
        px = np.concatenate([px, np.full((pad, 2), -10.0, np.float32)])
        return px[:, 0].reshape(rows, w).copy(), px[:, 1].reshape(rows, w).copy()

    def get(self, flat: np.ndarray, name: str) -> np.ndarray:
        start, shape = self._index[name]
        n = int(np.prod(shape))
        return flat[start:start + n].reshape(*shape, flat.shape[-1])


def _seg_points(lay: Layout, strip: Strip, d_offsets: Sequence[float], z: Sequence[float], n: int) -> np.ndarray:
    """Points along a strip at 1 mm steps, line k at height ``z[k]``: shape (len(d_offsets), n, 3)."""
    s = np.arange(n) * STEP_MM + STEP_MM / 2
    u = strip.start_u + strip.direction * s
    out = np.empty((len(d_offsets), n, 3))
    for k, off in enumerate(d_offsets):
        d = np.full(n, strip.near_d - off)
        out[k, :, :2] = lay.to_table_array(strip.seat, u, d)
        out[k, :, 2] = z[k]
    return out


@dataclass
class _Colour:
    """Colour classes of samples against the felt measured in this frame (per channel, no axis reductions:
    a reduction over a length-3 axis is slow in numpy)."""

    felt: np.ndarray          # BGR float
    felt_sum: float

    def classify(self, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(occupied, ivory) boolean arrays for BGR samples (..., 3).

        occupied: not felt (another chromaticity, or much brighter; a shadow keeps the felt's
        chromaticity). ivory: a bright, nearly grey surface: a tile face.
        """
        b, g, r = (samples[..., i].astype(np.float32) for i in range(3))
        tot = b + g + r + 1.0
        fb, fg, fr = (float(v) / self.felt_sum for v in self.felt)
        inv = 1.0 / tot
        d = np.abs(b * inv - fb) + np.abs(g * inv - fg) + np.abs(r * inv - fr)
        bright = tot > 1.8 * self.felt_sum
        occupied = (d > 0.12) | bright
        mx = np.maximum(np.maximum(b, g), r)
        mn = np.minimum(np.minimum(b, g), r)
        ivory = ((mx - mn) < 0.3 * mx) & (tot > 1.5 * self.felt_sum)
        return occupied, ivory
