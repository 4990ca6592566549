"""Scripted games: the simulated table acts out a tenhou.net/6 log physically and consistently."""

import json
from collections import Counter
from pathlib import Path

import pytest

from controller import events as ev
from controller.rules import tenhou as TH
from controller.rules import walls as WL
from controller.rules.ruleset import load as load_rules
from controller.rules.tilesets import census_for
from hardware.sim import script as S
from tests.paths import SAMPLE_LOGS, TENHOU_SAMPLES, load_sample

SHARED = TENHOU_SAMPLES   # fails loudly when the shared folder is missing
SAMPLES = SAMPLE_LOGS
WHOLE = SHARED / "mjlog2json__2019081518gm-00a9-0000-cce9d00c.json"


def load(path: Path) -> TH.LogGame:
    return load_sample(path)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem[-28:])
def test_walls_dice_and_takes_agree_with_the_log(path):
    game = load(path)
    script = S.build_script(game, seed=7)
    proc = load_rules("tenhou").procedures
    census = census_for(load_rules("tenhou"))
    for lh, hand in zip(game.hands, script.hands, strict=True):
        assert Counter(t for t in hand.walls.values() if t) == Counter(census)      # the whole set, once
        lay = WL.plan(proc, lh.dealer, [hand.dice])
        acts = hand.actions
        assert acts[1] == {"op": "press", "seat": lh.dealer, "action": "dice"}
        assert acts[2] == {"op": "dice", "seat": lh.dealer, "dice": list(hand.dice)}
        takes = [a for a in acts if a["op"] == "take"]
        for a in takes:
            assert hand.walls[WL.WallSlot(a["wall"], a["stack"], a["layer"])] == a["tile"]
        dealt = [[a["tile"] for a in takes[:52] if a["seat"] == s] for s in range(4)]
        assert [sorted(d) for d in dealt] == [sorted(h) for h in lh.haipai]
        draws = [e.tile for e in lh.events if isinstance(e, TH.Draw)]
        assert [a["tile"] for a in takes[52:]] == draws
        flips = [a for a in acts if a["op"] == "flip" and not a["is_ura"]]
        assert flips[0]["tile"] == lh.dora_indicators[0]
        assert (flips[0]["wall"], flips[0]["stack"]) == lay.indicator_slots[0].stack_pos
        assert [f["tile"] for f in flips] == lh.dora_indicators[:len(flips)]
        assert acts[-1] == {"op": "press", "seat": lh.dealer, "action": "ok"}
        discards = [(a["seat"], a["tile"]) for a in acts if a["op"] == "discard"]
        assert discards == [(e.seat, e.tile) for e in lh.events if isinstance(e, TH.Discard)]


def test_wins_are_declared_and_revealed_as_recorded():
    game = load(WHOLE)
    script = S.build_script(game)
    for lh, hand in zip(game.hands, script.hands, strict=True):
        presses = [(a["seat"], a["action"]) for a in hand.actions if a["op"] == "press"]
        reveals = {a["seat"]: a for a in hand.actions if a["op"] == "reveal"}
        if lh.result.outcome == "win":
            for w in lh.result.wins:
                assert (w.seat, "tsumo" if w.seat == w.from_seat else "ron") in presses
                assert reveals[w.seat]["win_tile"] in reveals[w.seat]["tiles"]
        else:
            assert not any(p[1] in ("tsumo", "ron") for p in presses)


def test_script_json_round_trip_and_events():
    script = S.build_script(load(WHOLE), injects=[S.Fault("taken_back", 2, None)])
    data = json.loads(json.dumps(script.to_json()))
    again = S.script_from_json(data)
    assert again.to_json() == script.to_json()
    assert S.events_of(again) == S.events_of(script)
    events = S.events_of(script)
    assert isinstance(events[0], ev.StartGame) and events[0].start_scores == (25000,) * 4
    assert all(ev.from_record(ev.to_record(e)) == e for e in events)
    assert [e.now for e in events] == sorted(e.now for e in events)


def test_bad_logs_and_faults_are_refused_by_name(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"log": [[1, 2]]}')
    with pytest.raises(S.ScriptError, match="hand 0"):
        S.load_script(str(bad))
    with pytest.raises(S.ScriptError, match="cannot read"):
        S.load_script(str(tmp_path / "missing.json"))
    if WHOLE.exists():
        with pytest.raises(S.ScriptError, match="hands 0..15"):
            S.build_script(load(WHOLE), injects=[S.Fault("taken_back", 99, None)])
        # an exhaustive draw: no spare tile in the live wall, the extra one is the last live tile and
        # the hand ends a draw early (the script leaves the log there); never refused
        clean = S.build_script(load(WHOLE)).hands[5]
        extra = S.build_script(load(WHOLE), injects=[S.Fault("extra_draw", 5, None)]).hands[5]
        assert extra.faults[0]["rule"] == "extra_draw"
        assert sorted(t for t in extra.walls.values() if t) == sorted(t for t in clean.walls.values() if t)
        takes = [a for a in extra.actions if a["op"] == "take"]
        assert len(takes) == sum(1 for a in clean.actions if a["op"] == "take")
        assert extra.actions[-1] == {"op": "press", "seat": extra.dealer, "action": "ok"}
        assert not any(a["op"] == "reveal" for a in extra.actions)


def test_injected_faults_are_physical():
    game = load(WHOLE)
    missing = S.build_script(game, injects=[S.Fault("missing_tile", 1, None)]).hands[1]
    assert sum(missing.actions[0]["counts"]) == 135 and sum(t is not None for t in missing.walls.values()) == 135
    fifth = S.build_script(game, injects=[S.Fault("fifth_tile", 1, None)]).hands[1]
    kind = fifth.faults[0]["tile"]
    shown = [a["tile"] for a in fifth.actions if a["op"] == "discard"]
    assert sum(1 for t in shown if t == kind) >= 2
    assert sum(1 for t in fifth.walls.values() if t == kind) >= 5
    moved = S.build_script(game, injects=[S.Fault("moved_indicator", 1, 3)]).hands[1]
    swap = next(a for a in moved.actions if a["op"] == "swap_indicator")
    assert swap["seat"] == 3 and swap["tile"] != next(a for a in moved.actions if a["op"] == "flip")["tile"]
