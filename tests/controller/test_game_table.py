"""The scripted game acted out by the simulated table (``hardware.sim.table``) and seen by an
error-free camera tracker (``hardware.sim.table_eyes``): the game tracker, fed only with the
MCU's reports, the seat buttons and what the camera sees, follows every sample game to its
recorded results, and catches each injected fault. (The rendered-camera path is the daemon's
integration tests.)"""

from pathlib import Path

import pytest

from controller import events as ev
from controller import tracker as G
from controller.rules import tenhou as TH
from controller.rules.replay import replay_game
from hardware.sim import script as S
from hardware.sim import table as table_mod
from hardware.sim import table_eyes as eyes_mod
from tests.paths import SAMPLE_LOGS, TENHOU_SAMPLES, load_sample

SHARED = TENHOU_SAMPLES   # fails loudly when the shared folder is missing
SAMPLES = SAMPLE_LOGS
WHOLE = SHARED / "mjlog2json__2019081518gm-00a9-0000-cce9d00c.json"


def load(path: Path) -> TH.LogGame:
    return load_sample(path)


def act_out(script: S.Script) -> tuple[G.GameState, list[dict]]:
    """Run the simulated table; the tracker sees only MCU reports, buttons and camera views."""
    table = table_mod.SimTable(script)
    eyes = eyes_mod.ViewTracker()
    first = script.hands[0]
    s, _ = G.step(G.new_state(), ev.StartGame(ruleset="tenhou", start_round=first.round, start_honba=first.honba,
                                              start_sticks=first.sticks, start_scores=tuple(first.scores)), 0.0)
    results, now = [], 0.0
    while not table.finished:
        waiting = table.waiting_for()
        if waiting == "lift_done":          # the MCU raised the walls and counted them
            table.prepare_lift()
            table.on_lift_done(tuple(table.lift_counts(table.hand_index)[1]))
            continue
        if waiting == "dice_result":
            table.on_dice(tuple(table.hand.dice))
            continue
        op = table.step()
        now += 0.5
        events: list[ev.Event] = []
        if op["op"] == "lift":
            events.append(ev.LiftDone(counts=tuple(table.last_lift), now=now))
            events += [ev.WallBack(wall=b["wall"], stack=b["stack"], colour="other", now=now)
                       for b in op["odd_backs"]]   # the back colour check stands in for the reader's
        elif op["op"] == "stacked":                 # the set built again, as the firmware counts it
            events.append(ev.StackReady(counts=table.stacked[-1][1], now=now))
        elif op["op"] == "press":
            eyes.on_button(op["seat"], op["action"])
            events.append(ev.Button(seat=op["seat"], action=op["action"], now=now))
        elif op["op"] == "dice":
            events.append(ev.DiceResult(seat=op["seat"], dice=tuple(table.last_dice), now=now))
        if op["op"] in table_mod.VISIBLE_OPS:
            events += eyes.update(eyes_mod.perfect_view(table.snapshot(), now=now), now)
        for e in events:
            before = s.last_result
            s, _ = G.step(s, e, e.now)
            s = _staff_release(s, e.now)
            if s.last_result is not before:
                results.append(s.last_result)
    return s, results


def _staff_release(s, now: float):
    """The staff at the table: an alert that holds the hand's result (a set error, cheating) is seen
    and dismissed with a reason, as the staff view does, so that the hand can be confirmed."""
    from controller.tracker.riichi.held import holds_result
    if getattr(s, "alerts", None) is None or not holds_result(s):
        return s
    for k, a in enumerate(s.alerts):
        if a.get("hand_index") == s.hand_index and not a.get("dismissed"):
            s, _ = G.step(s, ev.Correction(what="dismiss_alert", reason="seen by staff", data={"index": k}, now=now), now)
    return s


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem[-28:])
def test_the_table_acts_out_each_sample_and_the_tracker_follows(path):
    game = load(path)
    s, results = act_out(S.build_script(game, seed=5))
    assert results == replay_game(game)
    assert s.alerts == []


@pytest.mark.parametrize("rule", S.FAULT_RULES)
def test_each_fault_acted_out_is_caught(rule):
    script = S.build_script(load(WHOLE), injects=[S.Fault(rule, 3, None)])
    fault = script.hands[3].faults[0]
    s, _ = act_out(script)
    got = [(a["rule"], a["hand_index"], a["seat"], a["tile"]) for a in s.alerts]
    assert (fault["rule"], 3, fault["seat"], fault["tile"]) in got
