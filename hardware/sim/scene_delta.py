"""The simulated camera's table drawn again only where it changed (``DeltaRenderer``).

A move on the table (a tile drawn from the wall, one put in a river, a meld laid out) changes a
small part of the picture, but ``scene.SceneRenderer.render`` draws every tile again (~25 ms of
Python per frame on a Pi-class core). :class:`DeltaRenderer` keeps the last picture and, for a
new state, finds the tiles (boxes) that came, went or changed, and draws again only the
rectangle they (and their shadows) cover: the felt there, the shadows of every tile falling
into it, and every tile reaching into it, in the renderer's own order. The result is the picture
``SceneRenderer.render(state, seed=seed)`` draws (the same pixels; ``tests/sim`` checks it), at a
fraction of the time; a change over much of the table (a new hand's walls) is drawn whole.

The per-rendering variation (the renderer's overall brightness and its noise offset) is fixed by
``seed`` once: the live camera (``world_camera.LiveScene``) adds its own light drift and sensor
noise to every frame.
"""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from hardware.sim import tile_art
from hardware.sim.scene import SceneRenderer, TableState, _Box

MARGIN_PX = 8            # anti-aliased edges, the shadows' 9x9 blur, a warped face's rounding
SHADOW = np.array([-0.25, 0.3])     # as SceneRenderer._shadows casts them (x, y per mm of height)


def _key(box: _Box) -> tuple:
    return (box.corners.tobytes(), box.z0, box.z1, box.top, box.split, box.lower_bgr, box.upper_bgr)


class DeltaRenderer:
    """``render(state)`` like ``renderer.render(state, seed=seed)``, drawing only what changed.

    ``max_share``: a change whose rectangle covers more of the picture than this is drawn whole.
    ``full`` and ``partial`` count the renderings of each kind.
    """

    def __init__(self, renderer: SceneRenderer, *, seed: int = 0, max_share: float = 0.4) -> None:
        self.renderer = renderer
        self.size = renderer.size
        self.seed = seed
        self.max_share = max_share
        rng = np.random.default_rng(seed)
        self._jitter = float(rng.uniform(0.96, 1.04))        # as render() draws them, in its order
        oy, ox = (int(v) for v in rng.integers(0, 64, 2))
        w, h = self.size
        self._noise = renderer._noise_bank[oy:oy + h, ox:ox + w] if renderer.noise > 0 else None
        self._boxes: dict[tuple, _Box] = {}
        self._keys: Counter = Counter()
        self._clean: np.ndarray | None = None     # background, shadows and tiles, before light and noise
        self._out: np.ndarray | None = None
        self._scratch = np.empty((h, w, 3), np.uint8)
        self._extent: dict[tuple, tuple[int, int, int, int]] = {}
        self.full = 0
        self.partial = 0

    # ---- geometry
    def _box_extent(self, key: tuple, box: _Box) -> tuple[int, int, int, int]:
        """Pixels (x0, y0, x1, y1) the box and its shadow may touch."""
        got = self._extent.get(key)
        if got is None:
            cam = self.renderer.camera
            pts = np.concatenate([np.column_stack([box.corners, np.full(4, z)]) for z in (box.z0, box.z1)])
            px = [cam.project(pts)]
            if box.z0 <= 0:
                px.append(cam.project_xy(box.corners + SHADOW * box.z1, 0.0))
            allpx = np.concatenate(px)
            x0, y0 = np.floor(allpx.min(axis=0)).astype(int) - MARGIN_PX
            x1, y1 = np.ceil(allpx.max(axis=0)).astype(int) + MARGIN_PX
            got = (int(x0), int(y0), int(x1), int(y1))
            if len(self._extent) > 20000:
                self._extent.clear()
            self._extent[key] = got
        return got

    # ---- drawing
    def render(self, state: TableState, *, seed: int = 0) -> np.ndarray:
        """The frame of ``state`` (BGR uint8). ``seed`` is ignored: the variation is fixed at construction."""
        r = self.renderer
        boxes = r.boxes(state)
        keys = [_key(b) for b in boxes]
        new = Counter(keys)
        if state.hands_over or self._clean is None:
            return self._render_full(state, boxes, keys, new)
        changed = (self._keys - new) + (new - self._keys)
        if not changed:
            return self._out.copy()
        w, h = self.size
        rects = _merged([self._box_extent(k, self._boxes.get(k) or boxes[keys.index(k)]) for k in changed], w, h)
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in rects) > self.max_share * w * h:
            return self._render_full(state, boxes, keys, new)
        for rect in rects:
            self._redraw(state, boxes, keys, rect)
        self._boxes = dict(zip(keys, boxes, strict=True))
        self._keys = new
        self.partial += 1
        return self._out.copy()

    def _render_full(self, state: TableState, boxes: list[_Box], keys: list[tuple], new: Counter) -> np.ndarray:
        r = self.renderer
        self.full += 1
        if state.hands_over:          # hands drawn by the renderer: no clean picture to keep
            self._clean = None
            return r.render(state, seed=self.seed)
        frame = r._background.copy()
        r._shadows(frame, boxes)
        r._draw_boxes(frame, boxes, self._back(state))
        self._clean = frame.copy()
        self._out = self._finish(frame)
        self._boxes = dict(zip(keys, boxes, strict=True))
        self._keys = new
        return self._out.copy()

    def _back(self, state: TableState) -> tuple[int, int, int]:
        return tile_art.BACK_COLOURS.get(state.back_colour, (160, 90, 20)) if isinstance(state.back_colour, str) \
            else tuple(state.back_colour)

    def _finish(self, frame: np.ndarray, region: tuple[slice, slice] = (slice(None), slice(None))) -> np.ndarray:
        """The renderer's vignette, brightness and noise over ``frame`` (a whole frame or a region of one)."""
        r = self.renderer
        out = cv2.multiply(frame, r._gain[region], scale=self._jitter / 128.0)
        if self._noise is not None:
            out = cv2.add(out.astype(np.int16), self._noise[region], dtype=cv2.CV_8U)
        return out

    def _redraw(self, state: TableState, boxes: list[_Box], keys: list[tuple], rect: tuple[int, int, int, int]
                ) -> None:
        """Draw the rectangle again: felt, the shadows falling into it, the tiles reaching into it."""
        r = self.renderer
        assert self._clean is not None and self._out is not None
        x0, y0, x1, y1 = rect
        ys, xs = slice(y0, y1), slice(x0, x1)
        scratch = self._scratch
        scratch[ys, xs] = r._background[ys, xs]
        inside = []
        for key, box in zip(keys, boxes, strict=True):
            bx0, by0, bx1, by1 = self._box_extent(key, box)
            if bx0 < x1 and bx1 > x0 and by0 < y1 and by1 > y0:
                inside.append(box)
        # the shadows as _shadows casts them, from every tile that may reach the rectangle (their
        # mask blurred over the whole picture, as there)
        mask = np.zeros((self.size[1], self.size[0]), np.uint8)
        for b in inside:
            if b.z0 > 0:
                continue
            pts = r.camera.project_xy(b.corners + SHADOW * b.z1, 0.0)
            cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 90)
        if inside:
            # blurred over the rectangle and 5 px around it: the same pixels as a blur of the whole mask
            px0, py0 = max(0, x0 - 5), max(0, y0 - 5)
            px1, py1 = min(self.size[0], x1 + 5), min(self.size[1], y1 + 5)
            blurred = cv2.blur(mask[py0:py1, px0:px1], (9, 9))[y0 - py0:y1 - py0, x0 - px0:x1 - px0]
            gain = cv2.subtract(np.full_like(blurred, 255), blurred)
            scratch[ys, xs] = cv2.multiply(scratch[ys, xs], cv2.merge([gain, gain, gain]), scale=1 / 255.0)
            r._draw_boxes(scratch, inside, self._back(state))
        self._clean[ys, xs] = scratch[ys, xs]
        self._out[ys, xs] = self._finish(self._clean[ys, xs], (ys, xs))


def _merged(rects: list[tuple[int, int, int, int]], w: int, h: int) -> list[tuple[int, int, int, int]]:
    """The rectangles clipped to the picture, overlapping ones joined (each pixel drawn once)."""
    out = [(max(0, a), max(0, b), min(w, c), min(h, d)) for a, b, c, d in rects]
    out = [q for q in out if q[2] > q[0] and q[3] > q[1]]
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out
