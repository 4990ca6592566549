"""The simulated table's camera: deterministic frames of a table state, as the reader expects them."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.sim.scene import MeldShape, SceneRenderer, TableState, pose_camera
from tests.fixtures.frames import TEST_POSES, renderer_for
from vision.calibration import detect_markers
from vision.layout import load_profile


@pytest.fixture(scope="module")
def renderer() -> SceneRenderer:
    return renderer_for("riichi4", "top")


def test_frames_are_deterministic_per_seed(renderer):
    st = TableState.full_walls(renderer.layout, rivers={0: [("1m", False)]})
    a = renderer.render(st, seed=3)
    b = renderer.render(st, seed=3)
    c = renderer.render(st, seed=4)
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.abs(a.astype(int) - c.astype(int)).mean() < 6   # only noise and light differ


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_all_four_markers_are_visible_from_every_test_pose(pose):
    r = renderer_for("riichi4", pose)
    frame = r.render(TableState.full_walls(r.layout), seed=1)
    assert sorted(detect_markers(frame, r.profile)) == [0, 1, 2, 3]


def test_tiles_are_drawn_where_the_camera_sees_them(renderer):
    lay = renderer.layout
    empty = renderer.render(TableState(), seed=1)
    st = TableState(rivers={0: [("5z", False)]}, walls={2: [2] + [0] * 16})
    frame = renderer.render(st, seed=1)
    cam = renderer.camera
    # the haku's face (ivory) at its top, the wall slot's back (blue) at two tiles' height
    haku = lay.strip_tile(lay.river_strip(0, 0), 0.0)
    x, y = cam.project_xy(np.array(haku.centre), 20.0).round().astype(int)
    b, g, r = frame[y, x].astype(int)
    assert min(b, g, r) > 180 and max(b, g, r) - min(b, g, r) < 40
    x, y = cam.project_xy(np.array(lay.wall_slot(2, 1).centre), 40.0).round().astype(int)
    b, g, r = frame[y, x].astype(int)
    assert b > r + 60
    # an empty slot shows felt, as on the empty table
    x, y = cam.project_xy(np.array(lay.wall_slot(2, 6).centre), 0.0).round().astype(int)
    assert np.abs(frame[y, x].astype(int) - empty[y, x].astype(int)).max() < 25


def test_melds_hands_and_a_passing_hand_change_the_frame(renderer):
    base = TableState.full_walls(renderer.layout)
    a = renderer.render(base, seed=2)
    st = base.copy()
    st.melds = {1: [MeldShape(("back", "9s", "9s", "back")), MeldShape(("6s",) * 3, sideways=1, added="6s")]}
    st.hands_over = ((0.0, -150.0),)
    b = renderer.render(st, seed=2)
    diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 60
    assert diff.sum() > 5000
    assert base.melds == {}      # copy() is deep enough: the base state is untouched


def test_too_many_discards_is_an_error(renderer):
    st = TableState(rivers={0: [("1m", False)] * 30})
    with pytest.raises(ValueError, match="seat 0 has 30 discards, the river holds 24"):
        renderer.render(st)


def test_other_poses_and_profiles_render():
    r = SceneRenderer(load_profile("sanma"), pose_camera(dict(distance_mm=1000.0)))
    st = TableState.full_walls(r.layout, flowers={0: ["1f"]})
    assert sorted(st.walls) == [0, 1, 2]
    assert r.render(st, seed=0).shape == (720, 1280, 3)
