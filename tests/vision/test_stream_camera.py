"""The stream camera (``[camera] source = "stream"``) against the simulated table's frame server:
real frames over a real unix socket; a server that goes away is ``camera lost``, then back."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from hardware.sim.world_camera import FrameServer, LiveScene
from vision.camera import STATE_CLOSED, STATE_LOST, STATE_OK, StreamCamera


def _frames(h=72, w=128):
    n = {"i": 0}

    def frame():
        n["i"] += 1
        return np.full((h, w, 3), n["i"] % 256, np.uint8)
    return frame


def test_each_read_gets_the_frame_drawn_for_it(tmp_path):
    seen = []
    server = FrameServer(tmp_path / "cam.sock", _frames(), on_frame=seen.append)
    cam = StreamCamera(tmp_path / "cam.sock")
    try:
        a, b = cam.read(), cam.read()
        assert a.shape == (72, 128, 3) and a.dtype == np.uint8
        assert int(a[0, 0, 0]) == 1 and int(b[0, 0, 0]) == 2
        deadline = time.monotonic() + 10
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert seen == [1, 2] and cam.status().state == STATE_OK and cam.status().size == (128, 72)
        assert cam.last_capture > 0
    finally:
        cam.close()
        server.close()
    assert cam.status().state == STATE_CLOSED and cam.read() is None


def test_a_stream_that_goes_away_is_lost_and_reconnected(tmp_path):
    path = tmp_path / "cam.sock"
    cam = StreamCamera(path, retry_s=0.0, timeout_s=2.0)
    assert cam.read() is None and cam.status().state == STATE_LOST and "cannot connect" in cam.status().error
    server = FrameServer(path, _frames())
    assert cam.read() is not None
    server.close()
    assert cam.read() is None and cam.status().state == STATE_LOST
    server = FrameServer(path, _frames())
    try:
        assert cam.read() is not None and cam.status().state == STATE_OK
    finally:
        cam.close()
        server.close()


def test_garbage_on_the_stream_is_lost_not_an_exception(tmp_path):
    path = tmp_path / "bad.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        conn.recv(1)
        conn.sendall(b"NOPE" + bytes(20))
        conn.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    cam = StreamCamera(path, timeout_s=2.0)
    assert cam.read() is None
    assert cam.status().state == STATE_LOST and "not a frame header" in cam.status().error
    cam.close()
    srv.close()


def test_the_live_scene_draws_hands_light_and_noise_over_one_rendering():
    class Renderer:
        size = (160, 90)
        calls = 0

        def render(self, state, seed=0):
            Renderer.calls += 1
            return np.full((90, 160, 3), 128, np.uint8)
    scene = LiveScene(Renderer(), lambda: (1, None), hand_frames=2, noise=3.0)
    plain = scene.frame()
    scene.reach(0, (80, 45))
    hand = scene.frame()
    assert Renderer.calls == 1                      # the table drawn once; the frames differ
    assert not np.array_equal(plain, hand)
    assert np.abs(hand.astype(int) - plain.astype(int)).max() > 30    # an arm, not only noise
    assert scene.hand_frames_drawn == 1
    scene.frame()
    scene.frame()
    assert scene.hand_frames_drawn == 2             # the hand is gone after its frames


def test_glare_is_drawn_in_its_share_of_frames_and_a_bad_share_is_refused():
    class Renderer:
        size = (160, 90)

        def render(self, state, seed=0):
            return np.full((90, 160, 3), 60, np.uint8)
    scene = LiveScene(Renderer(), lambda: (1, None), noise=0.0, light=0.0, glare=0.2, seed=3)
    frames = [scene.frame() for _ in range(200)]
    bright = sum(1 for f in frames if f.max() > 200)
    assert bright == scene.glare_frames and 20 <= bright <= 60
    with pytest.raises(ValueError, match="must be 0..0.5"):
        LiveScene(Renderer(), lambda: (1, None), glare=0.9)
