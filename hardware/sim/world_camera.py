"""The simulated table's camera: frames rendered continuously, served on a local stream.

:class:`FrameServer` serves a unix socket in the frame-stream format the daemon's
``vision.camera.StreamCamera`` reads (ask ``F``; answer a 24-byte header ``JTF1``, width,
height, channels, capture time, then the raw BGR bytes). Every frame asked for is drawn at that
moment from what lies on the table then, so the camera runs at the rate the daemon reads it.

:class:`LiveScene` draws those frames: the table as ``scene.SceneRenderer`` renders it (drawn
again only when something on the table changed), and over it what changes from frame to frame:
a player's hand and arm reaching over the table while a tile is put down or taken (covering
what lies under it), the room's light drifting, sensor noise, and (``glare``: the share of
frames) a reflection over a random spot, which makes a tile under it misread or lost in that
frame alone. The errors are drawn into the picture; nothing is corrected from what the
simulator knows lies on the table.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

MAGIC = b"JTF1"
HEADER = struct.Struct("!4sIIId")
ASK = b"F"
SKIN = (120, 160, 205)           # BGR
SLEEVE = (70, 60, 55)


class LiveScene:
    """Frames of a changing table: ``frame(n)`` draws frame ``n`` of ``state()`` now.

    ``reach(seat, where)`` starts a hand over the table: the seat's arm from its edge to
    ``where`` (pixels), seen for ``hand_frames`` frames, moving back as it goes. ``light``: the
    light's drift (0.06 = ±6 %); ``noise``: the sensor noise's sigma in grey levels.
    """

    def __init__(self, renderer, state: Callable[[], tuple[int, object]], *, hand_frames: int = 2,
                 light: float = 0.06, noise: float = 3.0, glare: float = 0.0, seed: int = 0) -> None:
        self.renderer = renderer
        self.state = state
        self.hand_frames = hand_frames
        self.light = light
        self._base_key: object = None
        self._base: np.ndarray | None = None
        if not 0.0 <= glare <= 0.5:
            raise ValueError(f"camera errors: {glare} must be 0..0.5 (the share of frames with a glare)")
        self.glare = glare
        self.glare_frames = 0
        self._rng = np.random.default_rng(seed + 1)
        rng = np.random.default_rng(seed)
        h, w = renderer.size[1], renderer.size[0]
        # the sensor noise as what it adds and what it takes away (uint8 each), so that a frame is
        # made with saturating uint8 operations only: a few ms for a 1280x720 frame
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(4 if noise > 0 else 0):
            nz = np.clip(np.rint(rng.normal(0.0, noise, (h, w, 3))), -255, 255).astype(np.int16)
            self._noise.append((np.clip(nz, 0, 255).astype(np.uint8), np.clip(-nz, 0, 255).astype(np.uint8)))
        self._lock = threading.Lock()
        self._reach: tuple[int, tuple[int, int], int] | None = None     # seat, target, frames left
        self.frames = 0
        self.hand_frames_drawn = 0

    def reach(self, seat: int, where: tuple[int, int]) -> None:
        if self.hand_frames <= 0:
            return
        with self._lock:
            self._reach = (seat, where, self.hand_frames)

    def frame(self) -> np.ndarray:
        version, state = self.state()
        if version != self._base_key or self._base is None:
            self._base = self.renderer.render(state, seed=int(version) if isinstance(version, int) else 0)
            self._base_key = version
        n = self.frames
        gain = 1.0 + self.light * math.sin(n / 37.0)
        frame = cv2.convertScaleAbs(self._base, alpha=gain) if gain != 1.0 else self._base.copy()
        if self._noise:
            more, less = self._noise[n % len(self._noise)]
            cv2.add(frame, more, dst=frame)
            cv2.subtract(frame, less, dst=frame)
        with self._lock:
            reach = self._reach
            if reach is not None:
                seat, where, left = reach
                self._reach = (seat, where, left - 1) if left > 1 else None
        if reach is not None:
            self._draw_arm(frame, reach[0], reach[1], reach[2] / max(1, self.hand_frames))
            self.hand_frames_drawn += 1
        if self.glare and self._rng.random() < self.glare:
            self._draw_glare(frame)
            self.glare_frames += 1
        self.frames += 1
        return frame

    def _draw_glare(self, frame: np.ndarray) -> None:
        """A reflection on the felt and tiles in this frame only (a tile under it misread or lost)."""
        h, w = frame.shape[:2]
        x, y = int(self._rng.uniform(0.15, 0.85) * w), int(self._rng.uniform(0.15, 0.85) * h)
        cv2.ellipse(frame, (x, y), (int(self._rng.uniform(14, 30)), int(self._rng.uniform(10, 24))),
                    float(self._rng.uniform(0, 180)), 0, 360, (245, 245, 245), -1, cv2.LINE_AA)

    def _draw_arm(self, frame: np.ndarray, seat: int, where: tuple[int, int], reach: float) -> None:
        """An arm from the middle of the seat's edge of the picture towards ``where``, reaching
        ``reach`` (1: all the way) of the distance; the hand at its end."""
        h, w = frame.shape[:2]
        edges = {0: (w // 2, h + 40), 1: (w + 40, h // 2), 2: (w // 2, -40), 3: (-40, h // 2)}
        sx, sy = edges.get(seat % 4, edges[0])
        tx, ty = where
        hx, hy = int(sx + (tx - sx) * reach), int(sy + (ty - sy) * reach)
        cv2.line(frame, (sx, sy), (hx, hy), SLEEVE, 70, cv2.LINE_AA)
        cv2.ellipse(frame, (hx, hy), (48, 38), math.degrees(math.atan2(hy - sy, hx - sx)), 0, 360, SKIN, -1,
                    cv2.LINE_AA)


class FrameServer:
    """Serves ``frame()`` on the unix socket ``path``; ``on_frame(n)`` after each frame sent."""

    def __init__(self, path: str | Path, frame: Callable[[], np.ndarray],
                 on_frame: Callable[[int], None] | None = None) -> None:
        self.path = Path(path)
        self.frame = frame
        self.on_frame = on_frame
        self._lock = threading.Lock()        # one frame drawn at a time, whoever asks
        self._stop = threading.Event()
        self.sent = 0
        self._conns: set[socket.socket] = set()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self._sock.listen(4)
        self._sock.settimeout(0.2)
        self._thread = threading.Thread(target=self._serve, name="world-camera", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), name="world-camera-client", daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        conn.settimeout(1.0)
        self._conns.add(conn)
        with conn:
            while not self._stop.is_set():
                try:
                    ask = conn.recv(1)
                except TimeoutError:
                    continue
                except OSError:
                    return
                if ask != ASK:
                    return
                with self._lock:
                    t = time.monotonic()
                    frame = self.frame()
                    self.sent += 1
                    n = self.sent
                h, w = frame.shape[:2]
                try:
                    conn.sendall(HEADER.pack(MAGIC, w, h, 3, t))
                    conn.sendall(np.ascontiguousarray(frame).data)     # no copy of the picture
                except OSError:
                    return
                if self.on_frame is not None:
                    self.on_frame(n)

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.close()
        for conn in list(self._conns):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=2)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
