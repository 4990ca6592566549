"""The machine cycle: a pure state machine (no clock, no I/O), driven through whole hands."""

from __future__ import annotations

import pytest

from controller import cycle as C
from controller import events as ev


def run(events, state=None):
    """Feed (event, now) pairs; return the final state and every command with its time."""
    s = state or C.initial_state()
    out = []
    for e, now in events:
        s, cmds = C.step(s, e, now)
        out += [(now, c) for c in cmds]
    return s, out


def kinds(cmds):
    return [c.KIND for _, c in cmds]


FIRST_HAND = [
    (ev.StartGame(ruleset="tenhou"), 0.0),
    (C.CentreDone(is_open=False), 2.0),
    (ev.LiftDone(counts=(34, 34, 34, 34)), 8.0),
    (ev.Button(seat=0, action="dice"), 10.0),
    (ev.DiceResult(seat=0, dice=(3, 5)), 11.5),
]


def test_first_hand_closes_lifts_shuffles_the_other_set_then_plays():
    s, cmds = run(FIRST_HAND)
    assert kinds(cmds) == ["machine.centre", "machine.lift", "machine.shuffle"]
    assert cmds[0][1] == C.Centre(is_open=False)
    assert cmds[2][1] == C.ShuffleSet(tile_set=1) and cmds[2][0] == 8.0
    assert (s.state, s.on_table, s.shuffling, s.stacked, s.hopper) == ("playing", 0, 1, None, None)
    assert s.last_counts == (34, 34, 34, 34)


def test_hand_end_push_close_lift_next_set_and_shuffle_the_returned_one():
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0)])
    assert (s.stacked, s.shuffling) == (1, None)
    s, cmds = run([
        (ev.Lift(), 300.0),                                  # the game asks for the next hand
        (C.CentreDone(is_open=True), 302.0),
        (ev.Button(seat=2, action="ok"), 320.0),             # tiles pushed in
        (C.CentreDone(is_open=False), 322.0),
        (ev.LiftDone(counts=(34,) * 4), 328.0),
    ], s)
    assert [c for _, c in cmds] == [C.Centre(is_open=True), C.Centre(is_open=False), C.LiftWalls(),
                                    C.ShuffleSet(tile_set=0)]
    assert (s.state, s.on_table, s.shuffling, s.hopper) == ("ready", 1, 0, None)


def test_a_short_hand_waits_for_the_shuffle_before_lifting():
    s, _ = run(FIRST_HAND)
    s, cmds = run([(ev.Lift(), 30.0), (C.CentreDone(is_open=True), 31.0), (ev.Button(seat=1, action="ok"), 33.0),
                   (C.CentreDone(is_open=False), 35.0)], s)
    assert s.state == "waiting_stack" and kinds(cmds) == ["machine.centre", "machine.centre"]
    s, cmds = run([(ev.StackReady(counts=(34,) * 4), 68.0)], s)
    assert s.state == "lifting" and kinds(cmds) == ["machine.lift"]


@pytest.mark.parametrize("before", [[], [(ev.HostRestarted(), 301.0)]], ids=["opening", "asked-again"])
def test_an_ok_before_the_opening_is_open_closes_nothing(before):
    """Seen in a loaded run: an ok (a result confirmed again) came while the opening still moved;
    the close went out at once, the MCU refused it busy, and the table halted. The opening's move
    must end first: only an ok after its ``CentreDone`` closes it."""
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0)])
    s, cmds = run([(ev.Lift(), 300.0)] + before + [(ev.Button(seat=2, action="ok"), 301.5)], s)
    assert s.state == "receiving" and not s.centre_open
    assert [c for _, c in cmds if isinstance(c, C.Centre)] == [C.Centre(is_open=True)] * (1 + len(before))
    s, cmds = run([(C.CentreDone(is_open=True), 302.0), (ev.Button(seat=2, action="ok"), 320.0)], s)
    assert s.state == "closing" and [c for _, c in cmds] == [C.Centre(is_open=False)] and not s.centre_open
    # a press while it closes changes nothing either; the close's done lifts the walls
    s, cmds = run([(ev.Button(seat=0, action="ok"), 321.0), (C.CentreDone(is_open=False), 322.0)], s)
    assert s.state == "lifting" and [c for _, c in cmds] == [C.LiftWalls()]


@pytest.mark.parametrize("event, reason", [
    (ev.McuFault(code="lift_stall", detail="wall 2"), "MCU fault lift_stall: wall 2"),
    (ev.McuFault(code="head_jam"), "MCU fault head_jam"),
    (ev.McuFault(code="chain_rod_stuck"), "MCU fault chain_rod_stuck"),
    (ev.McuFault(code="limit_switch_stuck"), "MCU fault limit_switch_stuck"),
    (ev.McuFault(code="lane_count", detail="lane 2: 33 tiles"), "MCU fault lane_count: lane 2: 33 tiles"),
    (ev.McuFault(code="dice_dead"), "MCU fault dice_dead"),
    (ev.McuFault(code="overheat", detail="92 C"), "MCU fault overheat: 92 C"),
    (ev.McuFault(code="lid_open"), "MCU fault lid_open"),
    (ev.McuFault(code="shuffle_timeout"), "MCU fault shuffle_timeout"),
    (ev.McuFault(code="deadman"), "MCU fault deadman"),
    (ev.LinkLost(reason="no valid frame from the MCU for 1.0 s"),
     "MCU link lost: no valid frame from the MCU for 1.0 s"),
    (ev.EStop(is_pressed=True), "emergency stop pressed"),
    (ev.Lid(is_open=True), "lid opened during motion"),
], ids=lambda v: getattr(v, "KIND", None) and (getattr(v, "code", "") or v.KIND))
def test_each_fault_halts_with_a_one_line_reason_and_stops_the_motors(event, reason):
    s, _ = run(FIRST_HAND)                         # playing, set 1 shuffling in the background
    s, cmds = run([(event, 20.0)], s)
    assert s.state == "halted" and s.reason == reason and "\n" not in s.reason
    assert cmds[0][1] == C.StopMotors(reason=reason)
    assert (C.MotorPower(is_on=False) in [c for _, c in cmds]) == isinstance(event, ev.EStop)
    assert s.shuffling is None and s.hopper == 1                 # the cut-short shuffle is redone later
    # latched: nothing moves, a second fault keeps the first reason
    s, cmds = run([(ev.Lift(), 21.0), (ev.McuFault(code="overheat"), 22.0),
                   (ev.Button(seat=0, action="ok"), 23.0)], s)
    assert cmds == [] and s.reason == reason


def test_operator_reset_needs_estop_released_and_lid_closed():
    s, _ = run(FIRST_HAND + [(ev.EStop(is_pressed=True), 20.0), (ev.Lid(is_open=True), 21.0)])
    s, cmds = run([(ev.Reset(reason="operator"), 30.0)], s)
    assert s.state == "halted" and "reset refused: e-stop still pressed" in s.reason and cmds == []
    s, cmds = run([(ev.EStop(is_pressed=False), 31.0), (ev.Reset(), 32.0)], s)
    assert s.state == "halted" and cmds == []
    s, cmds = run([(ev.Lid(is_open=False), 33.0), (ev.Reset(), 34.0)], s)
    assert s.state == "idle" and s.reason == ""
    assert [c for _, c in cmds] == [C.ResetFault(), C.MotorPower(is_on=True)]
    # the table starts again: walls still on the table are pushed in first
    s, cmds = run([(ev.Lift(), 40.0)], s)
    assert s.state == "receiving" and [c for _, c in cmds] == [C.Centre(is_open=True)]


def test_no_reset_while_the_link_is_down():
    s, _ = run(FIRST_HAND + [(ev.LinkLost(reason="port vanished"), 20.0), (ev.Reset(), 21.0)])
    assert s.state == "halted"
    s, cmds = run([(ev.LinkRestored(), 22.0), (ev.Reset(), 23.0)], s)
    assert s.state == "idle" and kinds(cmds) == ["machine.reset_fault", "machine.motor_power"]


def test_shuffle_over_80_s_halts():
    s, _ = run(FIRST_HAND)
    s, cmds = run([(ev.Discard(seat=1, tile="5p"), 80.0)], s)     # 72 s into the shuffle: fine
    assert s.state == "playing" and cmds == []
    s, cmds = run([(ev.Discard(seat=2, tile="1z"), 88.5)], s)     # 80.5 s
    assert s.state == "halted" and s.reason == "shuffle over 80 s (80 s)"
    assert kinds(cmds) == ["machine.stop"]


def test_no_motion_while_lid_open_or_estop_then_released():
    s, _ = run([(ev.Lid(is_open=True), 0.0)])
    assert s.state == "idle" and not s.motion_allowed and s.refusal() == "lid open"
    s, cmds = run([(ev.StartGame(ruleset="tenhou"), 1.0)], s)
    assert cmds == [] and s.state == "closing" and s.pending == (C.Centre(is_open=False),)
    s, cmds = run([(ev.Lid(is_open=False), 5.0)], s)
    assert [c for _, c in cmds] == [C.Centre(is_open=False)] and s.pending == ()


def test_lid_opened_while_nothing_moves_is_not_a_fault():
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0), (ev.Lid(is_open=True), 70.0)])
    assert s.state == "playing" and s.lid_open and s.refusal() == "lid open"


def test_aborted_jobs_from_our_own_stop_are_not_new_faults():
    s, _ = run(FIRST_HAND + [(ev.EStop(is_pressed=True), 20.0), (ev.McuFault(code="aborted"), 20.1)])
    assert s.reason == "emergency stop pressed"


def test_profile_bounds():
    with pytest.raises(ValueError, match="walls is 5, must be 3 or 4"):
        C.CycleProfile(walls=5)
    with pytest.raises(ValueError, match="shuffle_limit_s is 50"):
        C.CycleProfile(shuffle_limit_s=50)


def test_step_never_changes_the_state_passed_in():
    s0 = C.initial_state()
    s1, _ = C.step(s0, ev.StartGame(ruleset="tenhou"), 0.0)
    assert s0 == C.initial_state() and s1 is not s0


def retry(what, reason="lift jam cleared"):
    return ev.Correction(what=what, reason=reason, data={"by": "staff"})


def test_a_stopped_lift_is_retried_or_continued_by_staff():
    """A fault during the lift halts the table; a retry clears it and lifts the same walls again,
    a continue takes the walls as raised by hand and waits for the dice; neither moves anything
    while the lid is open, and neither does anything when the table is not stopped."""
    build = FIRST_HAND[:2]
    s, _ = run(build + [(ev.McuFault(code="lift_jam", detail="wall 2"), 5.0)])
    assert (s.state, s.halted_in) == ("halted", "lifting")
    again, cmds = run([(retry("retry"), 6.0)], s)
    assert again.state == "lifting" and [c for _, c in cmds] == [C.ResetFault(), C.MotorPower(is_on=True), C.LiftWalls()]
    done, cmds = run([(ev.LiftDone(counts=(34,) * 4), 12.0)], again)
    assert done.state == "ready" and kinds(cmds) == ["machine.shuffle"]
    up, cmds = run([(retry("continue", "walls raised by hand"), 6.0)], s)
    assert (up.state, up.on_table, up.stacked) == ("ready", 0, None)
    assert [c for _, c in cmds if c.is_motion] == [C.ShuffleSet(tile_set=1)]      # the other set, for the next walls
    lid, cmds = run([(ev.Lid(is_open=True), 5.5), (retry("retry"), 6.0)], s)
    assert lid.state == "halted" and "lid open" in lid.reason and cmds == []
    playing, _ = run(FIRST_HAND)
    same, cmds = run([(retry("retry"), 20.0)], playing)
    assert same == playing and cmds == []


def test_a_stop_in_play_goes_back_to_play_after_a_retry():
    s, _ = run(FIRST_HAND + [(ev.McuFault(code="overheat", detail="shuffler"), 20.0)])
    assert s.halted_in == "playing"
    assert (s.hopper, s.shuffling) == (1, None)          # the shuffle was cut short
    s, cmds = run([(retry("retry"), 30.0)], s)
    assert s.state == "playing" and [c for _, c in cmds][-1] == C.ShuffleSet(tile_set=1)
    assert (s.shuffling, s.shuffle_started_at) == (1, 30.0)


def test_a_paused_game_starts_no_motion_until_resumed():
    s, _ = run(FIRST_HAND)
    s, cmds = run([(retry("pause", "a player is unwell"), 20.0), (ev.Lift(), 30.0)], s)
    assert s.paused and s.refusal() == "paused by staff" and not any(c.is_motion for _, c in cmds)
    s, cmds = run([(retry("resume", "back"), 40.0)], s)
    assert not s.paused and [c for _, c in cmds] == [C.Centre(is_open=True)]


def test_a_deadman_while_nothing_moves_is_cleared_and_the_hand_goes_on():
    """Seen on a loaded machine: the host silent past 500 ms while the hand was played, no motor
    running; the MCU stopped nothing, so its latch is cleared instead of halting the table."""
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0)])
    s, cmds = run([(ev.McuFault(code="deadman", detail="deadman (no host frame within the deadman time)"), 90.0)], s)
    assert s.state == "playing" and [c for _, c in cmds] == [C.ResetFault()]
    s, cmds = run([(ev.Lift(), 300.0)], s)                 # the next hand is built as usual
    assert s.state == "receiving" and [c for _, c in cmds] == [C.Centre(is_open=True)]


@pytest.mark.parametrize("before, detail", [
    ([], "latched when the link came up"),                  # found at power-on: the operator decides
    (FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0), (ev.Lift(), 300.0)], ""),   # the centre moving
    (FIRST_HAND, ""),                                       # a shuffle was running
], ids=["at-start", "in-motion", "shuffling"])
def test_a_deadman_that_may_have_stopped_something_halts(before, detail):
    s, _ = run(before)
    s, cmds = run([(ev.McuFault(code="deadman", detail=detail), 400.0)], s)
    assert s.state == "halted" and cmds[0][1] == C.StopMotors(reason=s.reason)


def test_a_deadman_reported_again_as_the_link_comes_back_mid_hand_is_cleared_again():
    """Seen in a default run under load: the deadman tripped, the link dropped for 0.2 s, and the
    MCU reported the latch again as the link came up (the first clear was lost)."""
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0)])
    s, cmds = run([(ev.McuFault(code="deadman", detail="deadman (no host frame within the deadman time)"), 90.0),
                   (ev.LinkLost(reason="no valid frame from the MCU for 1.0 s"), 90.1),
                   (ev.LinkRestored(), 90.3), (ev.McuFault(code="deadman", detail="latched when the link came up"), 90.3)],
                  s)
    assert s.state == "playing" and s.link_up and [c for _, c in cmds] == [C.ResetFault(), C.ResetFault()]


@pytest.mark.parametrize("extra, asked", [
    ([], [C.ShuffleSet(tile_set=1)]),                                     # a shuffle cut short
    ([(ev.StackReady(counts=(34,) * 4), 68.0)], []),                      # nothing moving
    ([(ev.StackReady(counts=(34,) * 4), 68.0), (ev.Lift(), 300.0)], [C.Centre(is_open=True)]),
    ([(ev.StackReady(counts=(34,) * 4), 68.0), (ev.Lift(), 300.0), (C.CentreDone(is_open=True), 302.0),
      (ev.Button(seat=2, action="ok"), 320.0), (C.CentreDone(is_open=False), 322.0)], [C.LiftWalls()]),
], ids=["shuffling", "playing", "receiving", "lifting"])
def test_after_a_host_restart_the_motion_under_way_is_asked_for_again(extra, asked):
    s, _ = run(FIRST_HAND + extra)
    phase = s.state
    s, cmds = run([(ev.HostRestarted(), 1000.0)], s)
    assert s.state == phase and [c for _, c in cmds] == asked
    if s.shuffling is not None:                    # its time limit counts from the new start
        assert s.shuffle_started_at == 1000.0
        s, cmds = run([(ev.LinkRestored(), 1050.0)], s)
        assert s.state == phase and cmds == []


def test_a_link_lost_while_nothing_moves_holds_the_next_motion_until_it_is_back():
    """Seen on a loaded machine: the MCU process ran late and the host declared the link lost mid-hand,
    nothing moving; the table goes on, and the next hand's motion waits for the link."""
    s, _ = run(FIRST_HAND + [(ev.StackReady(counts=(34,) * 4), 68.0)])
    s, cmds = run([(ev.LinkLost(reason="no valid frame from the MCU for 1.0 s"), 90.0)], s)
    assert s.state == "playing" and cmds == [] and s.refusal() == "MCU link down"
    s, cmds = run([(ev.Lift(), 300.0)], s)
    assert s.state == "receiving" and cmds == [] and s.pending == (C.Centre(is_open=True),)
    s, cmds = run([(ev.LinkRestored(), 301.0)], s)
    assert [c for _, c in cmds] == [C.Centre(is_open=True)] and s.pending == ()
