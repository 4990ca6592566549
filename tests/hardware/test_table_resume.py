"""The simulated table laid out again where the daemon's log says a game stands (a world started
anew after a restart of the daemon): the step within the hand, the table as it lay, the MCU's sets."""

from __future__ import annotations

import pytest

from controller import events as ev
from controller import game as G
from controller.cycle import initial_state as cycle_start
from controller.daemon_parts import SAMPLE_GAME
from controller.daemon_resume import table_position
from hardware.sim import script as S
from hardware.sim.mcu_process import SimMcuError
from hardware.sim.table import SimTable
from hardware.sim.table_resume import lay_out, resume_index

SCRIPT = S.load_script(str(SAMPLE_GAME))


def game_at(n_events: int):
    """The tracker's state after the first ``n_events`` of the sample game as a perfect table reports it."""
    s, _ = G.replay_events(S.events_of(SCRIPT)[:n_events])
    return s


@pytest.mark.parametrize("done, index", [
    ({}, 0),                                                              # nothing seen: from the lift
    ({"lift": 1}, 1),                                                     # the dealer presses the dice again
    ({"lift": 1, "dice": 1, "take": 52}, 55),                             # dealt, the indicator not seen yet
    ({"lift": 1, "dice": 1, "take": 53, "flip": 1, "discard": 1}, 58),    # after the first discard
    ({"lift": 1, "dice": 1, "take": 54, "flip": 1, "discard": 1}, 59),    # ... and the next draw seen
    ({"lift": 1, "dice": 1, "take": 40, "flip": 0, "discard": 1}, 58),    # discards lead: no deal again
], ids=["none", "lifted", "dealt", "discard", "draw", "short-count"])
def test_the_step_within_the_hand(done, index):
    assert resume_index(SCRIPT.hands[1].actions, done) == index


def test_the_position_the_daemon_gives_lays_the_table_out_as_the_game_has_it():
    events = S.events_of(SCRIPT)
    oks = [i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok"]
    n = oks[0] + 1 + 90                          # well into the second hand
    s = game_at(n)
    pos = table_position(s, cycle_start(), games=1)
    assert pos is not None and pos["hand"] == 1 and not pos["finished"]
    table = SimTable(SCRIPT)
    lay_out(table, 1, resume_index(SCRIPT.hands[1].actions, pos["done"]))
    assert (table.hand_index, table.lifts_done, table.rolls_done) == (1, 2, 2)
    # each river as the game has it, tile for tile
    for seat, st in enumerate(s.seats):
        game_river = [r["tile"] for r in st.river if r["taken_by"] is None]
        assert [t for t, _ in table.scene.rivers.get(seat, [])] == game_river
    # the next action is the one the game has not seen
    nxt = table.next_op()
    assert nxt is not None and table.waiting_for() is None


def test_no_position_before_a_game_and_a_bad_hand_is_refused():
    assert table_position(game_at(0), cycle_start(), games=0) is None
    with pytest.raises(ValueError, match="not in the script"):
        lay_out(SimTable(SCRIPT), 99, 0)


def test_the_mcu_holds_the_sets_as_the_machine_left_them(sim_mcu):
    sim_mcu.control("restore", sets=["stacked", "table"], walls_up=True, centre_open=False)
    st = sim_mcu.state()
    assert st["sets"] == ["stacked", "table"] and st["walls_up"] and not st["centre_open"]
    with pytest.raises(SimMcuError, match="at most one on the table"):
        sim_mcu.control("restore", sets=["table", "table"])
    assert sim_mcu.state()["sets"] == ["stacked", "table"]
