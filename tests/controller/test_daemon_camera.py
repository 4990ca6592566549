"""The camera part: rendered frames of the simulated table -> reader (shipped ONNX model) -> tracker -> events."""

from __future__ import annotations

import asyncio
import time

import cv2

from controller import events as ev
from controller.daemon_camera import CameraPart
from hardware.sim.scene import SceneRenderer, TableState, pose_camera
from vision.calibration import calibrate
from vision.camera import FileCamera
from vision.layout import load_profile
from vision.reader import TableReader
from vision.tracker import TableTracker


def test_camera_part_posts_the_discards_it_sees(tmp_path, tile_model):
    profile = load_profile("riichi4")
    renderer = SceneRenderer(profile, pose_camera(dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0)))
    state = TableState.full_walls(renderer.layout)
    paths = []
    for k in range(4):
        path = tmp_path / f"empty{k}.png"
        cv2.imwrite(str(path), renderer.render(state, seed=k))
        paths.append(path)
    state.rivers = {1: [("7p", False), ("3z", True)]}
    for k in range(6):
        path = tmp_path / f"river{k}.png"
        cv2.imwrite(str(path), renderer.render(state, seed=10 + k))
        paths.append(path)
    camera = FileCamera(paths)
    calibration = calibrate(cv2.imread(str(paths[0])), profile)
    part = CameraPart(camera, TableReader(profile, calibration, tile_model), TableTracker(), fps=0)
    posted: list[tuple[str, ev.Event]] = []

    def post(source, event, src_seq=None):
        posted.append((source, event))

    async def run():
        await part.start(post)
        deadline = time.monotonic() + 60
        while part.frames < len(paths) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        jpeg, overlay = part.latest_jpeg(), part.calibration_jpeg()
        await part.stop()
        return jpeg, overlay

    jpeg, overlay = asyncio.run(run())
    discards = [(e.seat, e.tile, e.is_riichi) for s, e in posted if isinstance(e, ev.Discard)]
    assert discards == [(1, "7p", False), (1, "3z", True)], discards
    assert all(source == "camera" for source, _ in posted)
    assert jpeg[:2] == b"\xff\xd8" and overlay[:2] == b"\xff\xd8"
    assert part.status()["frames"] == len(paths)
