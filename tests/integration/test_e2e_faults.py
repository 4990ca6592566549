"""End to end (issue 7): faults injected into a scripted game are committed physically by the
simulated table and caught by the daemon with the seat and the tile named.

``tablectl demo --script FILE --inject RULE@HAND[:SEAT]`` (contracts/table-api.md); the daemon
is not told what was injected. What was injected (the seat and tile the simulator picked) is
read here from the same script the table performs (``hardware.sim.script``, seed 0).
"""

from __future__ import annotations

import time

import httpx
import pytest

from hardware.sim import script as sim_script
from tests.integration.test_e2e_demo import Demo, _sample

# (recorded game, injects): faults spread over the hands of short real games, one per hand
CASES = {
    "set_and_river": ("mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json",
                      ("fifth_tile@0", "taken_back@1:2", "moved_indicator@2:1")),
    "red_turn_draw": ("mjai-reviewer__2020020316gm-0001-0000-7b22ddf5.json",
                      ("wrong_red@0", "extra_draw@1:2")),
    "turn_and_back": ("mjai-reviewer__chankan.json", ("out_of_turn@0", "other_back@0:1")),
    "walls_and_hand": ("mjai-reviewer__ryukyoku.json", ("missing_tile@0", "wrong_hand_size@0")),
    # the tracker's other rules (hardware.sim.script.EXTRA_FAULT_RULES)
    "lift_call_furiten": ("mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json",
                          ("furiten_ron@0", "stack_count@1:3", "kuikae@2")),
    "houtei_call": ("mjai-reviewer__ryukyoku.json", ("last_discard_call@0",)),
    # a tile kept back after hand 1: while hand 2 is played the shuffler counts the set short and the
    # simulated MCU reports its fault lane_count over the link (no seat, no tile: nobody knows whose)
    "short_set": ("mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json", ("set_mismatch@2:1",)),
}
# other_back: seen by the error-free reader only (the scene draws one back colour for all tiles)


RELEASE_AFTER_FRAMES = 10   # frames the camera takes of the hands laid down after OK, before staff release
CAMERA_DONE_S = 10.0        # ... or the camera took no frame for this long (the table's own eyes stop looking at its end)


def release_held(demo: Demo, state: dict) -> None:
    """Staff at the table: a result held by a set error or cheating alert is released (the alert
    dismissed with a reason, then the result confirmed) once the players have laid their hands down
    and asked to confirm (the dealer pressed OK: the table is past the hand) and the camera has
    looked at the hands a while since (``RELEASE_AFTER_FRAMES``, or it has stopped looking). Staff who confirmed earlier
    would end an exhaustive draw before the hands still to be laid down were seen (a wrong-size
    hand among them never named)."""
    if not (state.get("result_held") and state.get("pending_result")):
        return
    hand = state["hand_index"]
    table = demo.table_status()
    if not (table.get("finished") or table.get("hand", 0) > hand):
        return
    frames, now = table.get("frames", 0), time.monotonic()
    seen = demo.__dict__.setdefault("ok_seen", {})
    first, last, since = seen.setdefault(hand, (frames, frames, now))
    if frames != last:
        seen[hand] = (first, frames, now)
    elif now - since >= CAMERA_DONE_S:
        first = frames - RELEASE_AFTER_FRAMES
    if frames < first + RELEASE_AFTER_FRAMES:
        return
    auth = {"Authorization": f"Bearer {demo.token}"}
    status = httpx.get(f"{demo.url}api/staff/status", headers=auth, timeout=30).json()
    for a in status["staff_alerts"]:
        if a["hand_index"] == hand and not a.get("dismissed"):
            httpx.post(f"{demo.url}api/staff/correct", headers=auth, timeout=30,
                       json={"what": "dismiss_alert", "reason": "fault seen by staff", "data": {"index": a["index"]}})
    httpx.post(f"{demo.url}api/staff/confirm", headers=auth, timeout=30, json={"hand_index": hand})


def injected(name: str, injects: tuple[str, ...]) -> list[dict]:
    script = sim_script.load_script(str(_sample(name)), injects=[sim_script.parse_inject(i) for i in injects])
    return [f for h in script.hands for f in h.faults]


def test_injected_faults_are_caught_with_seat_and_tile(tmp_path):
    """Every case side by side (one demo each); each fault must be named by the daemon."""
    wanted = {case: injected(name, injects) for case, (name, injects) in CASES.items()}
    for case, (_name, injects) in CASES.items():
        assert sorted(f["rule"] for f in wanted[case]) == sorted(i.split("@")[0] for i in injects), case
    demos = {case: Demo(_sample(name), tmp_path / case, injects=injects) for case, (name, injects) in CASES.items()}
    states = {}
    try:
        for demo in demos.values():
            demo.ready()
        for case, demo in demos.items():
            states[case] = demo.wait_played(staff=release_held)
    finally:
        for demo in demos.values():
            demo.terminate()
        for demo in demos.values():
            demo.stop()
    for case, want in wanted.items():
        alerts = states[case]["alerts"]
        for fault in want:
            hits = [a for a in alerts if a["rule"] == fault["rule"] and a["hand_index"] == fault["hand"]]
            assert hits, (case, fault, alerts)
            assert hits[0]["seat"] == fault["seat"], (case, fault, hits)
            assert hits[0]["tile"] == fault["tile"], (case, fault, hits)
        # nothing that was not injected is named as one of the injected rules
        rules = {f["rule"] for f in want}
        assert {a["rule"] for a in alerts if a["rule"] in sim_script.INJECTABLE_RULES} == rules, (case, alerts)


# --------------------------------------------------------------------------- any fault, any hand, any seat

TRIPLES = 30
TRIPLES_SEED = 16


def _playable_hands(game) -> list[int]:
    """Hands in which every seat has a turn (a hand aborted at the first draws, nine terminals, is
    over before most seats have played: some faults have no moment there)."""
    from controller.rules import tenhou as TH
    return [h.index for h in game.hands
            if {e.seat for e in h.events if isinstance(e, TH.Discard)} == {0, 1, 2, 3}]


def test_thirty_random_faults_any_hand_any_seat_are_caught():
    """30 seeded (fault, hand, seat) triples over the sample games, every contract fault among them:
    none is refused, and each, acted out by the simulated table (the error-free camera, the MCU's
    lift counts, the seat buttons) in a game of its own, is caught with its rule, hand and seat, and
    no other contract rule is named in that hand."""
    import random

    from tests.controller.test_game_table import act_out
    from tests.paths import SAMPLE_LOGS, load_sample
    rng = random.Random(TRIPLES_SEED)
    games = {path: load_sample(path) for path in SAMPLE_LOGS}
    games = {path: g for path, g in games.items() if g.players == 4 and _playable_hands(g)}
    rules = list(sim_script.FAULT_RULES) * 4
    rng.shuffle(rules)
    rules = list(sim_script.FAULT_RULES) + rules[:TRIPLES - len(sim_script.FAULT_RULES)]
    triples = []
    for rule in rules:
        path = rng.choice(sorted(games))
        triples.append((path, rule, rng.choice(_playable_hands(games[path])), rng.randrange(4)))
    assert set(r for _p, r, _h, _s in triples) == set(sim_script.FAULT_RULES) and len(triples) == TRIPLES
    missed = []
    for path, rule, hand, seat in triples:
        script = sim_script.build_script(games[path], injects=[sim_script.Fault(rule, hand, seat)])   # never refused
        fault = script.hands[hand].faults[0]
        assert (fault["rule"], fault["hand"], fault["seat"]) == (rule, hand, seat)
        s, _ = act_out(script)
        got = [(a["rule"], a["hand_index"], a["seat"]) for a in s.alerts]
        # caught, and no other of the contract's rules named in that hand (unless the fault cut the
        # hand short: then the game leaves the log and only the alert is judged)
        others = {r for r, h, _s in got if h == hand and r in sim_script.FAULT_RULES} - {rule}
        if fault.get("cut"):
            others = set()
        if (rule, hand, seat) not in got or others:
            missed.append((path.name, rule, hand, seat, got))
    assert not missed, missed


def test_no_alert_over_the_clean_sample_games():
    from tests.controller.test_game_table import act_out
    from tests.paths import SAMPLE_LOGS, load_sample
    for path in SAMPLE_LOGS:
        game = load_sample(path)
        if game.players != 4:
            continue
        s, _ = act_out(sim_script.build_script(game))
        assert s.alerts == [], (path.name, s.alerts)

# the cases caught through the daemon's own parts (the world's MCU, mock pins, frame stream read by
# TableReader + TableTracker): every contract fault and the tracker's other rules. short_set is not
# (the world builds no short set again, so no lane_count reaches the daemon); it runs with the
# simulated table's own eyes above.
DAEMON_EYES_CASES = ("walls_and_hand", "turn_and_back", "houtei_call", "set_and_river", "red_turn_draw",
                     "lift_call_furiten")


def _check_caught(case: str, want: list[dict], alerts: list[dict]) -> None:
    for fault in want:
        hits = [a for a in alerts if a["rule"] == fault["rule"] and a["hand_index"] == fault["hand"]]
        assert hits, (case, fault, alerts)
        assert hits[0]["seat"] == fault["seat"], (case, fault, hits)
        assert hits[0]["tile"] == fault["tile"], (case, fault, hits)
    rules = {f["rule"] for f in want}
    assert {a["rule"] for a in alerts if a["rule"] in sim_script.INJECTABLE_RULES} == rules, (case, alerts)


@pytest.mark.timeout(1200)   # six excerpts side by side, every frame rendered and read: a loaded machine is slow
def test_injected_faults_are_caught_through_the_daemons_own_parts(tmp_path):
    """The faults committed in the world's table, seen in its rendered frames by the daemon's own
    camera part (``other_back``: the other set's back colour in the wall, read by TableReader)."""
    wanted = {case: injected(*CASES[case]) for case in DAEMON_EYES_CASES}
    demos = {case: Demo(_sample(CASES[case][0]), tmp_path / case, injects=CASES[case][1], eyes="daemon")
             for case in DAEMON_EYES_CASES}
    states = {}
    try:
        for demo in demos.values():
            demo.ready()
        for case, demo in demos.items():
            states[case] = demo.wait_played(900, staff=release_held)
    finally:
        for demo in demos.values():
            demo.terminate()
        for demo in demos.values():
            demo.stop()
    for case, want in wanted.items():
        _check_caught(case, want, states[case]["alerts"])
