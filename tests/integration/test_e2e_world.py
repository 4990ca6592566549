"""End to end through the daemon's own parts (issue 16): the simulated table is a world outside
the daemon (``python -m hardware.sim.world``), and the daemon meets it with the
parts it runs on a real table: the firmware part on the world's MCU pty (its machine cycle
lowers, shuffles, lifts, rolls), the GPIO part on mock pins that the world drives over the line
socket (the dice buttons), and ``CameraPart(TableReader, TableTracker)`` on the world's stream
of frames, drawn continuously with hands reaching over the table, the light drifting and sensor
noise. Recorded excerpts (an exhaustive draw with two tenpai hands; calls of every kind, kans
and a chankan) end on the recorded scores without an alert.
"""

from __future__ import annotations

import httpx
import pytest

from tests.integration.test_e2e_demo import Demo, _sample, check_played

EXCERPTS = ("mjai-reviewer__ryukyoku.json", "mjai-reviewer__chankan.json")


@pytest.mark.timeout(900)   # every frame rendered and read: a loaded machine is slow
@pytest.mark.parametrize("name", EXCERPTS)
def test_an_excerpt_played_through_the_daemons_own_parts_ends_on_the_recorded_scores(tmp_path, name):
    demo = Demo(_sample(name), tmp_path / "g").ready()
    try:
        state = demo.wait_played(600)
        res = httpx.get(f"{demo.url}api/staff/status", headers={"Authorization": f"Bearer {demo.token}"}, timeout=30)
        parts = res.json()["parts"]
        world = parts["sim-table"]
        assert world["level"].startswith("physical: the daemon's own"), world
        assert parts["camera"]["frames"] > 0 and parts["camera"]["state"] == "ok", parts["camera"]
        assert world["hand_frames"] > 0, world             # hands were over the table in some frames
        assert parts["firmware"]["simulated_mcu"] is False, parts["firmware"]   # the world's MCU, not the daemon's
    finally:
        demo.terminate()
        demo.stop()
    check_played(name, demo, state)
    # the daemon's own tracker saw the game: nothing came from the world but the staff's start
    assert demo.sources() <= {"staff", "firmware", "gpio", "camera", "integrity"}


@pytest.mark.timeout(900)
def test_glare_in_5_percent_of_frames_changes_no_score(tmp_path):
    """Camera errors made per frame in the picture (a reflection over a random spot: the tile under
    it misread or lost), read by the daemon's own reader and tracker, nothing corrected from the
    simulator's truth."""
    name = "mjai-reviewer__ryukyoku.json"
    demo = Demo(_sample(name), tmp_path / "g", camera_errors=0.05).ready()
    try:
        state = demo.wait_played(600)
        world = demo.table_status()
        assert 0 < world["misread_frames"] < world["frames"] * 0.15, world
    finally:
        demo.terminate()
        demo.stop()
    check_played(name, demo, state)
