"""The world camera's table drawn again only where it changed (``hardware.sim.scene_delta``): over a
recorded hand with calls and kans, every picture is the one the renderer draws whole, pixel for
pixel, and most of them were drawn in part."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hardware.sim import script as sim_script
from hardware.sim.scene import SceneRenderer, TableState
from hardware.sim.scene_delta import DeltaRenderer
from hardware.sim.table import VISIBLE_OPS, SimTable
from vision.layout import load_profile

SAMPLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "samples" / "tenhou"


def _states(name: str) -> list[TableState]:
    table = SimTable(sim_script.load_script(SAMPLES / name))
    table.lifts_done = table.rolls_done = 10 ** 6        # no MCU here: its motions count as done
    out = []
    while (op := table.step()) is not None:
        if op["op"] in VISIBLE_OPS:
            out.append(table.snapshot())
    return out


def test_a_hand_drawn_in_parts_is_the_hand_drawn_whole():
    states = _states("mjai-reviewer__chankan.json")
    assert len(states) > 100
    renderer = SceneRenderer(load_profile("riichi4"))
    delta = DeltaRenderer(renderer, seed=5)
    for k, state in enumerate(states):
        frame = delta.render(state)
        if k % 7 == 0 or k == len(states) - 1:
            whole = renderer.render(state, seed=5)
            assert np.array_equal(frame, whole), (k, int(np.abs(frame.astype(int) - whole).max()))
    assert delta.full <= 3 and delta.partial >= len(states) - 3, (delta.full, delta.partial)


def test_a_hand_over_the_table_is_drawn_whole_and_the_next_picture_too():
    renderer = SceneRenderer(load_profile("riichi4"))
    delta = DeltaRenderer(renderer, seed=1)
    state = _states("mjai-reviewer__kyushukyuhai.json")[-1]
    delta.render(state)
    over = state.copy()
    over.hands_over = ((0.0, -200.0),)
    assert np.array_equal(delta.render(over), renderer.render(over, seed=1))
    assert np.array_equal(delta.render(state), renderer.render(state, seed=1))
    assert delta.full == 3
