"""End to end (issue 7): faults injected into a scripted game are committed physically by the
simulated table and caught by the daemon with the seat and the tile named.

``tablectl demo --script FILE --inject RULE@HAND[:SEAT]`` (contracts/table-api.md); the daemon
is not told what was injected. What was injected (the seat and tile the simulator picked) is
read here from the same script the table performs (``hardware.sim.script``, seed 0).
"""

from __future__ import annotations

import httpx

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


def release_held(demo: Demo, state: dict) -> None:
    """Staff at the table: a result held by a set error or cheating alert is released once the
    alert is seen (dismissed with a reason), then confirmed."""
    if not (state.get("result_held") and state.get("pending_result")):
        return
    auth = {"Authorization": f"Bearer {demo.token}"}
    status = httpx.get(f"{demo.url}api/staff/status", headers=auth, timeout=30).json()
    for a in status["staff_alerts"]:
        if a["hand_index"] == state["hand_index"] and not a.get("dismissed"):
            httpx.post(f"{demo.url}api/staff/correct", headers=auth, timeout=30,
                       json={"what": "dismiss_alert", "reason": "fault seen by staff", "data": {"index": a["index"]}})
    httpx.post(f"{demo.url}api/staff/confirm", headers=auth, timeout=30, json={"hand_index": state["hand_index"]})


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
