"""Cameras: files, a device that drops and comes back (``camera lost``), the rendered table."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.sim.scene import TableState
from tests.fixtures.frames import renderer_for
from vision.camera import (
    STATE_ENDED,
    STATE_LOST,
    STATE_OK,
    CameraError,
    FileCamera,
    OpenCVCamera,
    RenderedCamera,
)


class FakeDevice:
    """A V4L2 device at the OS edge: yields frames until it is unplugged."""

    def __init__(self, plugged: list[bool]) -> None:
        self.plugged = plugged
        self.props: dict[int, float] = {}
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.plugged[0]

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self):
        if not self.plugged[0]:
            return False, None
        return True, np.full((720, 1280, 3), 77, np.uint8)

    def release(self) -> None:
        self.released = True


def test_opencv_camera_loses_the_device_and_reconnects():
    plugged = [True]
    devices: list[FakeDevice] = []

    def factory(dev):
        devices.append(FakeDevice(plugged))
        return devices[-1]

    cam = OpenCVCamera("/dev/video0", exposure=120, white_balance_k=4500, retry_s=2.0, capture_factory=factory)
    assert cam.read(now=0.0).shape == (720, 1280, 3)
    assert devices[0].props[cv2.CAP_PROP_EXPOSURE] == 120
    assert devices[0].props[cv2.CAP_PROP_AUTO_WB] == 0
    assert devices[0].props[cv2.CAP_PROP_FRAME_WIDTH] == 1280
    plugged[0] = False
    assert cam.read(now=1.0) is None
    st = cam.status()
    assert st.state == STATE_LOST and "unplugged" in st.error
    assert devices[0].released
    assert cam.read(now=1.5) is None and len(devices) == 1     # no retry before retry_s
    assert cam.read(now=3.1) is None and len(devices) == 2     # retried, still gone
    plugged[0] = True
    assert cam.read(now=4.0) is None                           # waits for the next retry time
    assert cam.read(now=5.2) is not None
    assert cam.status().state == STATE_OK and cam.status().frames == 2
    cam.close()
    assert cam.read(now=9.0) is None


def test_opencv_camera_that_never_opens_is_lost_not_a_crash():
    def factory(dev):
        raise OSError("no such device")

    cam = OpenCVCamera(3, capture_factory=factory)
    assert cam.read(now=10.0) is None
    assert cam.status().state == STATE_LOST and "no such device" in cam.status().error


def test_file_camera_plays_images_and_skips_unreadable_ones(tmp_path):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((72, 128, 3), 40 * (i + 1), np.uint8))
    (tmp_path / "f1b.png").write_bytes(b"garbage")
    cam = FileCamera(tmp_path)
    got = [cam.read(), cam.read()]
    assert [int(f[0, 0, 0]) for f in got] == [40, 80]
    assert cam.read() is None
    st = cam.status()
    assert st.state == STATE_ENDED and "cannot read image" in st.error and st.frames == 2


def test_file_camera_loops_and_reads_video(tmp_path):
    path = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (128, 72))
    for i in range(3):
        out.write(np.full((72, 128, 3), 60 * (i + 1), np.uint8))
    out.release()
    cam = FileCamera(path, loop=True)
    frames = [cam.read() for _ in range(5)]
    assert all(f is not None and f.shape == (72, 128, 3) for f in frames)
    assert abs(int(frames[3][10, 10, 0]) - int(frames[0][10, 10, 0])) < 8    # looped to the start


def test_file_camera_missing_path_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        FileCamera(tmp_path / "nope.png")
    with pytest.raises(CameraError, match="no images"):
        FileCamera(tmp_path)


def test_rendered_camera_draws_the_state_and_drops_on_cue():
    r = renderer_for("riichi4", "top")
    cam = RenderedCamera(r, lambda now: TableState.full_walls(r.layout), drop_frames=[(1.0, 2.0)])
    assert cam.read(now=0.5).shape == (720, 1280, 3)
    assert cam.read(now=1.5) is None and cam.status().state == STATE_LOST
    assert cam.read(now=2.5) is not None and cam.status().state == STATE_OK
