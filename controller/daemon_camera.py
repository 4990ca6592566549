"""The camera part: frames -> table reader -> tracker -> events, on a capture thread.

The thread owns the camera, the reader (``vision.reader.TableReader``: calibration +
ONNX tile classifier) and the voting tracker (``vision.tracker.TableTracker``); it only
posts the tracker's events to the daemon's loop and never touches the daemon's state. The
newest frame is kept for the staff view (calibration picture) and as alert evidence.

Backends (``[camera] source``): ``v4l2`` (``vision.camera.OpenCVCamera`` on ``device``),
``file`` (``vision.camera.FileCamera`` replaying ``device``), ``rendered`` (the simulated
table's camera, ``vision.camera.RenderedCamera``, given a scene ``state_at(now)`` by the
simulator).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from controller import events as ev
from controller.config import ConfigError

log = logging.getLogger(__name__)

SOURCE = "camera"


class CameraPart:
    """Reads frames at up to ``fps`` (0: as fast as the reader goes) and posts tracker events."""

    name = "camera"

    def __init__(self, camera: Any, reader: Any, tracker: Any, *, fps: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, on_frame: Callable[[float, int], None] | None = None
                 ) -> None:
        self.camera, self.reader, self.tracker = camera, reader, tracker
        self.fps = fps
        self.clock = clock
        self.on_frame = on_frame            # (capture time, frame number): for the bench
        self._latest: np.ndarray | None = None
        self._latest_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0
        self.read_ms = 0.0
        self.error = ""
        self.learner: Any = None            # controller.learned.Learner: revealed crops kept on confirmation
        self.tile_set = ""                  # the tile set in use (or why none), for the staff view

    async def start(self, post: Callable[..., None]) -> None:
        self._thread = threading.Thread(target=self._run, args=(post,), name="camera", daemon=True)
        self._thread.start()

    def _run(self, post: Callable[..., None]) -> None:
        period = 1.0 / self.fps if self.fps > 0 else 0.0
        while not self._stop.is_set():
            t0 = self.clock()
            frame = self.camera.read(t0)
            if frame is None:
                self.tracker.update(None, t0)
                self._stop.wait(max(period, 0.05))
                continue
            self.frames += 1
            if self.on_frame is not None:
                self.on_frame(t0, self.frames)
            with self._latest_lock:
                self._latest = frame
            try:
                view = self.reader.read(frame, now=t0)
            except ValueError as err:   # vision.reader.ReaderError: this frame cannot be read
                if str(err) != self.error:
                    log.warning("camera: frame not readable: %s", err)
                self.error = str(err)
                continue
            self.error = ""
            if self.learner is not None:
                self.learner.see(self.reader, frame, view)
            for event in self.tracker.update(view, t0):
                post(SOURCE, event)
            spent = self.clock() - t0
            self.read_ms = 0.9 * self.read_ms + 0.1 * spent * 1000 if self.frames > 1 else spent * 1000
            if period > spent:
                self._stop.wait(period - spent)

    async def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.camera.close()

    def handle(self, command: ev.Command) -> bool:
        # WatchSlot (where the indicator must appear) is advice: the reader reads every slot anyway.
        return isinstance(command, ev.WatchSlot)

    def resume(self, position: dict[str, Any]) -> None:
        """The daemon started again (``controller.daemon_resume``): the tracker starts from what the
        game knows lies on the table, before the first frame is read."""
        seed = position.get("seed") or {}
        if position.get("finished") or position.get("phase") in ("idle", "walls"):
            return
        self.tracker.resume(rivers=seed.get("rivers"), melds=seed.get("melds"), revealed=seed.get("revealed"),
                            sticks=seed.get("sticks") or set(), called=seed.get("called"))

    def on_confirm(self, game_state: Any) -> None:
        """A result is being confirmed: keep the revealed tiles' crops with their labels (own thread)."""
        if self.learner is not None:
            from controller.learned import confirmed_hands
            threading.Thread(target=self.learner.confirmed, args=(confirmed_hands(game_state),),
                             name="learn", daemon=True).start()

    def latest_jpeg(self) -> bytes | None:
        with self._latest_lock:
            frame = self._latest
        if frame is None:
            return None
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return data.tobytes() if ok else None

    def calibration_jpeg(self) -> bytes | None:
        """The current frame with the calibrated layout drawn over it (the staff's check picture)."""
        with self._latest_lock:
            frame = self._latest
        if frame is None:
            return None
        try:
            from vision.calibration import overlay
            picture = overlay(frame, self.reader.calibration, self.reader.profile)
        except (ImportError, AttributeError, ValueError) as err:
            log.warning("camera: no calibration overlay: %s", err)
            picture = frame
        ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return data.tobytes() if ok else None

    def status(self) -> dict[str, Any]:
        cam = self.camera.status()
        return {"state": getattr(cam, "state", "?"), "source": getattr(cam, "source", "?"), "frames": self.frames,
                "read_ms": round(self.read_ms, 1), "error": self.error or getattr(cam, "error", ""),
                "tile_set": self.tile_set}


def build_pipeline(camera: Any, *, profile: str = "riichi4", calibration: Any | None = None,
                   calibration_file: str = "", fps: float = 10.0, threads: int = 1,
                   first_dealer_position: int = 0, on_frame=None, tile_set_file: str = "",
                   learn_dir: str = "", census: dict[str, int] | None = None) -> CameraPart:
    """Camera + calibration + the shipped ONNX classifier + reader + tracker as one part.

    ``calibration``: a ``vision.calibration.Calibration``; else read from ``calibration_file``;
    else found from the table-corner markers in the first frame. Raises ConfigError naming the
    missing piece (no model file, no calibration, markers not found). ``tile_set_file``: a set made by
    ``tablectl enrol`` (one that cannot be used is logged and the shipped model runs alone);
    ``learn_dir``: keep confirmed revealed crops there (``vision.confirmed``). ``census``: the tile
    set the table plays, tile -> copies (``controller.rules.tilesets.census_for``): the classifier
    weighs each kind by its copies (``OnnxTileClassifier.play_set``).
    """
    from vision.calibration import Calibration, CalibrationError, calibrate
    from vision.classifier import ClassifierError, OnnxTileClassifier
    from vision.layout import VisionError, load_profile
    from vision.reader import TableReader
    from vision.tracker import TableTracker

    try:
        table_profile = load_profile(profile)
        if calibration is None and calibration_file:
            calibration = Calibration.load(calibration_file, profile=table_profile)
        if calibration is None:
            frame = None
            for _ in range(50):
                frame = camera.read(time.monotonic())
                if frame is not None:
                    break
            if frame is None:
                raise ConfigError("camera: no frame to calibrate from")
            calibration = calibrate(frame, table_profile)
        classifier = OnnxTileClassifier(threads=threads)
        classifier.play_set(census)
        from vision.enrol import with_tile_set
        classifier, tile_set = with_tile_set(classifier, tile_set_file)
        reader = TableReader(table_profile, calibration, classifier, reuse_crops=True)
    except (ClassifierError, CalibrationError, VisionError) as err:
        raise ConfigError(f"camera: {err}") from err
    tracker = TableTracker(positions=table_profile.positions, first_dealer_position=first_dealer_position)
    part = CameraPart(camera, reader, tracker, fps=fps, on_frame=on_frame)
    part.tile_set = tile_set
    if learn_dir:
        from controller.learned import Learner
        from vision.confirmed import ConfirmedStore
        part.learner = Learner(ConfirmedStore(learn_dir))
    return part

