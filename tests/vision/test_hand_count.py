"""The standing hands counted from above on rendered frames (vision.hand_count), and the count's
integrity rule (controller.integrity.check_hand_count)."""

from __future__ import annotations

import pytest

from hardware.sim.scene import SceneRenderer, TableState
from vision.calibration import calibrate
from vision.hand_count import count_standing
from vision.layout import Layout, load_profile


@pytest.fixture(scope="module")
def rig():
    r = SceneRenderer(load_profile("riichi4"))
    return r, calibrate(r.render(TableState(), seed=0), r.profile), Layout(r.profile)


@pytest.mark.parametrize("standing", [{0: 13, 1: 12, 2: 14, 3: 10}, {0: 11, 1: 13, 2: 13, 3: 1}, {1: 13}])
def test_each_seats_standing_tiles_are_counted(rig, standing):
    renderer, cal, layout = rig
    for seed in (3, 4):
        frame = renderer.render(TableState.full_walls(renderer.layout, standing=dict(standing)), seed=seed)
        assert count_standing(frame, cal.camera, layout) == standing


def test_a_hand_laid_down_is_not_counted(rig):
    renderer, cal, layout = rig
    state = TableState.full_walls(renderer.layout, standing={0: 13, 2: 13}, revealed={2: ["1m"] * 3 + ["2p"] * 11})
    frame = renderer.render(state, seed=5)
    assert count_standing(frame, cal.camera, layout, seats=[0, 1, 3]) == {0: 13}
