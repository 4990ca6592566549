"""Cameras: where frames come from.

``Camera`` is the interface; ``OpenCVCamera`` reads a V4L2 device (index or path) through
OpenCV, ``FileCamera`` replays video or image files, ``StreamCamera`` takes frames from a local
stream (a unix socket: the simulated table's camera process), ``RenderedCamera`` draws a scene
with a renderer it is given. A camera that drops is not an exception in the loop:
``read()`` returns None and ``status().state`` says ``camera lost`` until it is back
(``OpenCVCamera`` reopens the device on later reads, at most every ``retry_s``).

Frames are BGR uint8 ``(height, width, 3)``. Time comes in as ``now`` (monotonic seconds);
cameras never sleep.
"""

from __future__ import annotations

import logging
import socket
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.layout import VisionError

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
STATE_OK = "ok"
STATE_LOST = "camera lost"
STATE_CLOSED = "closed"
STATE_ENDED = "ended"


class CameraError(VisionError, OSError):
    """A camera that cannot be opened at all (bad path, unreadable file); the message names it."""


@dataclass(frozen=True)
class CameraStatus:
    """Plain data, safe to log or publish: ``state`` (ok / camera lost / closed / ended), the
    source's name, frames read, the last error and the frame size (width, height) when known."""

    state: str
    source: str
    frames: int = 0
    error: str = ""
    size: tuple[int, int] | None = None


class Camera(Protocol):
    """A source of frames.

    Implementations must provide :meth:`read` (the next frame, or None when there is none now:
    the camera is lost, or a file ended), :meth:`status` and :meth:`close`. They may raise
    :class:`CameraError` from the constructor when the source cannot be opened at all; after
    that, trouble is reported by ``status()``, never raised from ``read()``.
    """

    def read(self, now: float | None = None) -> np.ndarray | None: ...
    def status(self) -> CameraStatus: ...
    def close(self) -> None: ...


# --------------------------------------------------------------------------- OpenCV device


class OpenCVCamera:
    """A V4L2 camera (``0`` or ``/dev/video0``) through OpenCV, with fixed exposure and white balance.

    ``size``: requested frame size; ``exposure``/``white_balance_k``: fixed values where the
    driver supports them (None leaves the driver's automatic setting). When a read fails the
    camera is ``camera lost``; later reads try to reopen it every ``retry_s`` seconds.
    ``capture_factory`` builds the ``cv2.VideoCapture``-like object (tests pass a fake device
    here; it is the OS edge).
    """

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] = (1280, 720), fps: float = 10.0,
                 exposure: float | None = None, white_balance_k: float | None = None, retry_s: float = 2.0,
                 capture_factory: Callable[[int | str], object] | None = None) -> None:
        if isinstance(device, str) and device.isdigit():
            device = int(device)
        self.device = device
        self.size = (int(size[0]), int(size[1]))
        self.fps = float(fps)
        self.exposure = exposure
        self.white_balance_k = white_balance_k
        self.retry_s = float(retry_s)
        self._factory = capture_factory or self._default_factory
        self._cap: object | None = None
        self._state = STATE_LOST
        self._error = ""
        self._frames = 0
        self._next_try = 0.0
        self._open(time.monotonic())

    @staticmethod
    def _default_factory(device: int | str) -> object:
        return cv2.VideoCapture(device, cv2.CAP_V4L2) if isinstance(device, int) or str(device).startswith(
            "/dev/") else cv2.VideoCapture(device)

    def _open(self, now: float) -> bool:
        self._release()
        try:
            cap = self._factory(self.device)
        except (cv2.error, OSError) as err:
            return self._lost(now, f"cannot open {self.device}: {err}")
        if not cap.isOpened():
            return self._lost(now, f"cannot open {self.device}")
        self._cap = cap
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        if self.exposure is not None:
            # V4L2: 1 = manual exposure (OpenCV passes it through); not every driver honours it
            cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            cap.set(cv2.CAP_PROP_EXPOSURE, float(self.exposure))
        if self.white_balance_k is not None:
            cap.set(cv2.CAP_PROP_AUTO_WB, 0)
            cap.set(cv2.CAP_PROP_WB_TEMPERATURE, float(self.white_balance_k))
        if self._state != STATE_OK:
            log.info("camera %s: open", self.device)
        self._state = STATE_OK
        self._error = ""
        return True

    def _lost(self, now: float, why: str) -> bool:
        if self._state != STATE_LOST or not self._error:
            log.warning("camera %s: %s; will retry every %.1f s", self.device, why, self.retry_s)
        self._state = STATE_LOST
        self._error = why
        self._next_try = now + self.retry_s
        self._release()
        return False

    def _release(self) -> None:
        if self._cap is not None:
            try:
                self._cap.release()
            except cv2.error:  # a vanished device may fail to release; it is gone either way
                pass
            self._cap = None

    def read(self, now: float | None = None) -> np.ndarray | None:
        """The next frame, or None while the camera is lost (it reopens every ``retry_s``)."""
        now = time.monotonic() if now is None else now
        if self._state == STATE_CLOSED:
            return None
        if self._cap is None:
            if now < self._next_try or not self._open(now):
                return None
        try:
            ok, frame = self._cap.read()
        except cv2.error as err:
            ok, frame = False, None
            self._error = str(err)
        if not ok or frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3:
            self._lost(now, "no frame from the device (unplugged?)")
            return None
        self._frames += 1
        return frame

    def status(self) -> CameraStatus:
        return CameraStatus(self._state, str(self.device), self._frames, self._error, self.size)

    def close(self) -> None:
        self._release()
        self._state = STATE_CLOSED


# --------------------------------------------------------------------------- files


class FileCamera:
    """Replays frames from image files or one video file, in order.

    ``paths``: a video file, an image file, a folder of images, or a list of images.
    ``loop`` starts again at the end; otherwise the camera is ``ended`` and ``read()`` gives None.
    An image that cannot be read is skipped with its error in ``status()``; a missing path
    raises CameraError at construction.
    """

    def __init__(self, paths: str | Path | Sequence[str | Path], *, loop: bool = False) -> None:
        if isinstance(paths, (str, Path)):
            p = Path(paths)
            if not p.exists():
                raise CameraError(f"file camera: {p} does not exist")
            if p.is_dir():
                files = sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
                if not files:
                    raise CameraError(f"file camera: no images ({', '.join(IMAGE_SUFFIXES)}) in {p}")
                paths = files
            else:
                paths = [p]
        self.paths = [Path(p) for p in paths]
        for p in self.paths:
            if not p.is_file():
                raise CameraError(f"file camera: {p} does not exist")
        self.loop = loop
        self._i = 0
        self._video: cv2.VideoCapture | None = None
        self._frames = 0
        self._error = ""
        self._state = STATE_OK
        self._size: tuple[int, int] | None = None
        self.source = str(self.paths[0]) if len(self.paths) == 1 else f"{len(self.paths)} files"

    def read(self, now: float | None = None) -> np.ndarray | None:
        for _ in range(len(self.paths) + 1):
            if self._state in (STATE_CLOSED, STATE_ENDED):
                return None
            if self._i >= len(self.paths):
                if not self.loop:
                    self._state = STATE_ENDED
                    return None
                self._i = 0
            path = self.paths[self._i]
            if path.suffix.lower() in IMAGE_SUFFIXES:
                self._i += 1
                frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if frame is None:
                    self._error = f"cannot read image {path}"
                    log.warning("file camera: %s", self._error)
                    continue
                return self._got(frame)
            if self._video is None:
                self._video = cv2.VideoCapture(str(path))
                if not self._video.isOpened():
                    self._error = f"cannot open video {path}"
                    self._video = None
                    self._i += 1
                    continue
            ok, frame = self._video.read()
            if ok and frame is not None:
                return self._got(frame)
            self._video.release()
            self._video = None
            self._i += 1
        return None

    def _got(self, frame: np.ndarray) -> np.ndarray:
        self._frames += 1
        self._size = (frame.shape[1], frame.shape[0])
        return frame

    def status(self) -> CameraStatus:
        return CameraStatus(self._state, self.source, self._frames, self._error, self._size)

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
        self._state = STATE_CLOSED


# --------------------------------------------------------------------------- simulated table


class RenderedCamera:
    """The simulated table's camera: renders ``state_at(now)`` (a ``hardware.sim.scene.TableState``)
    with a ``SceneRenderer``. ``drop_frames``: (start, end) time windows where the camera is lost,
    a fault knob for tests; the frame seed is the frame count plus ``seed``, so runs repeat."""

    def __init__(self, renderer, state_at: Callable[[float], object], *, seed: int = 0,
                 drop_frames: Sequence[tuple[float, float]] = ()) -> None:
        self.renderer = renderer
        self.state_at = state_at
        self.seed = int(seed)
        self.drop_frames = tuple(drop_frames)
        self._frames = 0
        self._state = STATE_OK
        self._t0 = time.monotonic()

    def read(self, now: float | None = None) -> np.ndarray | None:
        if self._state == STATE_CLOSED:
            return None
        now = time.monotonic() - self._t0 if now is None else now
        if any(a <= now < b for a, b in self.drop_frames):
            self._state = STATE_LOST
            return None
        self._state = STATE_OK
        frame = self.renderer.render(self.state_at(now), seed=self.seed + self._frames)
        self._frames += 1
        return frame

    def status(self) -> CameraStatus:
        return CameraStatus(self._state, "rendered", self._frames, "", self.renderer.size)

    def close(self) -> None:
        self._state = STATE_CLOSED


# --------------------------------------------------------------------------- frame stream

STREAM_MAGIC = b"JTF1"
STREAM_HEADER = struct.Struct("!4sIIId")     # magic, width, height, channels, capture time (monotonic s)
STREAM_ASK = b"F"


class StreamCamera:
    """Frames from a local stream: a unix socket (``[camera] source = "stream"``, ``device`` the
    socket's path) served by a camera process (the simulated table's, or a capture helper).

    Each ``read()`` asks for one frame (``F``) and gets a header (``STREAM_HEADER``: ``JTF1``,
    width, height, channels, capture time) and the raw BGR bytes, as a V4L2 read gives the next
    buffer; the wait is bounded by ``timeout_s``. A stream that closes, stalls or sends garbage
    is ``camera lost`` (``read()`` returns None) and is connected again at later reads, at most
    every ``retry_s``.
    """

    def __init__(self, path: str | Path, *, timeout_s: float = 10.0, retry_s: float = 0.5,
                 max_size: tuple[int, int] = (4096, 4096)) -> None:
        self.path = str(path)
        if not self.path:
            raise CameraError("stream camera: no socket path ([camera] device)")
        self.timeout_s = timeout_s
        self.retry_s = retry_s
        self.max_size = max_size
        self._sock: socket.socket | None = None
        self._state = STATE_LOST
        self._error = ""
        self._frames = 0
        self._size: tuple[int, int] | None = None
        self._retry_at = 0.0
        self.last_capture = 0.0          # the capture time the stream gave the last frame

    def _connect(self, now: float) -> bool:
        if now < self._retry_at:
            return False
        self._retry_at = now + self.retry_s
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout_s)
        try:
            sock.connect(self.path)
        except OSError as err:
            sock.close()
            return self._lost(f"cannot connect to {self.path}: {err.strerror or err}")
        self._sock = sock
        return True

    def _lost(self, why: str) -> bool:
        if self._state != STATE_LOST or why != self._error:
            log.warning("stream camera: %s", why)
        self._state, self._error = STATE_LOST, why
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        return False

    def _recv(self, n: int) -> bytearray:
        assert self._sock is not None
        buf = bytearray(n)      # the frame's own buffer (np.frombuffer keeps it): no copy
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self._sock.recv_into(view[got:], n - got)
            if k == 0:
                raise ConnectionError("the stream ended")
            got += k
        return buf

    def read(self, now: float | None = None) -> np.ndarray | None:
        if self._state == STATE_CLOSED:
            return None
        now = time.monotonic() if now is None else now
        if self._sock is None and not self._connect(now):
            return None
        try:
            assert self._sock is not None
            self._sock.sendall(STREAM_ASK)
            magic, w, h, c, t = STREAM_HEADER.unpack(self._recv(STREAM_HEADER.size))
            if magic != STREAM_MAGIC or c not in (1, 3) or not (0 < w <= self.max_size[0] and 0 < h <= self.max_size[1]):
                self._lost(f"not a frame header: {magic!r} {w}x{h}x{c}")
                return None
            data = self._recv(w * h * c)
        except (OSError, ConnectionError) as err:
            self._lost(f"stream {self.path}: {err}")
            return None
        frame = np.frombuffer(data, np.uint8).reshape((h, w, c) if c == 3 else (h, w))
        if c == 1:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        if self._state != STATE_OK:
            log.info("stream camera: frames from %s (%dx%d)", self.path, w, h)
        self._state, self._error = STATE_OK, ""
        self._frames += 1
        self._size = (w, h)
        self.last_capture = t
        return frame

    def status(self) -> CameraStatus:
        return CameraStatus(self._state, f"stream:{self.path}", self._frames, self._error, self._size)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._state = STATE_CLOSED
