"""The tracker's other alert rules injected into scripted games (issue 7): ``stack_count``,
``set_mismatch``, ``kuikae``, ``last_discard_call``, ``furiten_ron`` (``hardware.sim.script``,
beside the nine of contracts/table-api.md).

Each is committed physically in the script (the walls, the players' actions), recorded in
``hand.faults`` with the seat and tile the tracker names, and caught by the tracker from the
events a perfect camera and the firmware would report (``events_of``) and from what the
simulated table does (``SimTable`` seen by the error-free camera tracker): that rule alone, in
that hand, with that seat and tile, and every hand of the game still ends with a result.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import daemon_cli
from controller import integrity as IG
from controller import tracker as G
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.ruleset import load as load_rules
from hardware.sim import script as S
from hardware.sim import table as table_mod
from tests.controller.test_game_table import act_out as act_out_table
from tests.paths import TENHOU_SAMPLES, load_sample

WHOLE = TENHOU_SAMPLES / "mjlog2json__2019081518gm-00a9-0000-cce9d00c.json"     # 16 hands
RYUKYOKU = TENHOU_SAMPLES / "mjai-reviewer__ryukyoku.json"                      # one exhaustive draw
SHORT = TENHOU_SAMPLES / "mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json"  # three hands
_GAMES: dict = {}


def load(path: Path):
    if path not in _GAMES:
        _GAMES[path] = load_sample(path)
    return _GAMES[path]


def alerts_of(s) -> list[tuple]:
    return [(a["rule"], a["hand_index"], a["seat"], a["tile"]) for a in s.alerts]


def play(script: S.Script) -> tuple[G.GameState, list[dict]]:
    s, results = G.new_state(), []
    for e in S.events_of(script):
        before = s.last_result
        s, _ = G.step(s, e, e.now)
        if s.last_result is not before:
            results.append(s.last_result)
    return s, results


def act_out(script: S.Script) -> G.GameState:
    """The simulated table performs the script; the tracker sees the MCU's lift counts, the seat
    buttons and the error-free camera (``tests/controller/test_game_table.act_out``); a ``stacked``
    op stands for the firmware's count of the set built again (``StackReady``)."""
    return act_out_table(script)[0]


def assert_set_is_whole(script: S.Script, hand: int) -> None:
    """The walls a hand is played from hold the whole set (136 tiles, four of each kind)."""
    tiles = [t for t in script.hands[hand].walls.values() if t is not None]
    assert len(tiles) == 136, len(tiles)
    counts = {k: sum(1 for t in tiles if T.plain(t) == k) for k in T.KINDS_34}
    assert set(counts.values()) == {4}, counts


# (game, rule, hand, seat): a case of each rule and of each way the simulator commits it
CASES = [
    (WHOLE, "stack_count", 1, None), (WHOLE, "stack_count", 6, 1),
    (WHOLE, "set_mismatch", 3, None), (WHOLE, "set_mismatch", 6, 2),
    (WHOLE, "kuikae", 2, None),            # the caller holds a barred tile
    (WHOLE, "kuikae", 8, 1),               # the caller was dealt one instead of a tile it keeps all hand
    (WHOLE, "last_discard_call", 10, None),  # the caller was dealt the pair
    (RYUKYOKU, "last_discard_call", 0, None),  # the last tile drawn (and let go) was another one
    (WHOLE, "furiten_ron", 0, None), (WHOLE, "furiten_ron", 4, 0),
]


@pytest.mark.parametrize("path,rule,hand,seat", CASES, ids=lambda x: x.stem[-12:] if isinstance(x, Path) else str(x))
def test_each_new_fault_is_caught_alone_with_seat_and_tile(path, rule, hand, seat):
    game = load(path)
    script = S.build_script(game, injects=[S.Fault(rule, hand, seat)])
    faults = [f for h in script.hands for f in h.faults]
    assert len(faults) == 1 and faults[0]["rule"] == rule and faults[0]["hand"] == hand
    fault = faults[0]
    if seat is not None and rule != "set_mismatch":
        assert fault["seat"] == seat
    for k in range(len(script.hands)):
        assert_set_is_whole(script, k)
    s, results = play(script)
    assert alerts_of(s) == [(rule, hand, fault["seat"], fault["tile"])], alerts_of(s)
    assert [r["hand"] for r in results] == list(range(len(game.hands)))     # every hand still ends
    alert = s.alerts[0]
    assert alert["message"]
    if rule in ("stack_count", "set_mismatch"):
        assert alert["suggest"] == "void_hand"
    # the simulated table performs it and the error-free camera tracker sees the same
    assert alerts_of(act_out(script)) == alerts_of(s)


def test_stack_count_moves_an_unused_stack_onto_the_next_wall():
    script = S.build_script(load(WHOLE), injects=[S.Fault("stack_count", 6, 1)])
    h = script.hands[6]
    assert h.actions[0]["counts"] == [34, 32, 36, 34]
    gone = [slot for slot, t in h.walls.items() if t is None]
    assert len(gone) == 2 and {slot.seat for slot in gone} == {1} and len({slot.stack for slot in gone}) == 1
    assert h.walls[WL.WallSlot(2, 18, WL.UPPER)] is not None and h.walls[WL.WallSlot(2, 18, WL.LOWER)] is not None
    used = {(a["wall"], a["stack"]) for a in h.actions if a["op"] in ("take", "flip", "refill")}
    assert (1, gone[0].stack) not in used and (2, 18) not in used
    # the MCU counts what the table raises: 16 and 18 stacks
    table = table_mod.SimTable(script)
    assert table.lift_counts(6) == ([17, 16, 18, 17], [34, 32, 36, 34])
    assert table.lift_counts(5) == ([17] * 4, [34] * 4)
    # a saved script keeps the 18th stack
    again = S.script_from_json(script.to_json())
    assert again.hands[6].walls == h.walls and again.hands[5].walls == script.hands[5].walls


def test_set_mismatch_is_a_tile_kept_back_after_the_hand_before():
    script = S.build_script(load(WHOLE), injects=[S.Fault("set_mismatch", 6, 2)])
    prev, h = script.hands[5], script.hands[6]
    fault = h.faults[0]
    assert (fault["seat"], fault["tile"]) == (None, None)      # the tracker cannot know whose tile it was
    kept = prev.actions[-1]
    assert kept["op"] == "keep" and kept["seat"] == 2 and prev.actions[-2] == {"op": "press", "seat": prev.dealer,
                                                                                "action": "ok"}
    assert fault["kept_back"] == {"hand": 5, "seat": 2, "tile": kept["tile"]}
    assert h.actions[0]["op"] == "lift" and h.actions[1] == {"op": "stacked", "counts": [34, 34, 33, 34]}
    assert not any(a["op"] == "reveal" and a["seat"] == 2 for a in prev.actions)    # it kept a face-down tile
    table = table_mod.SimTable(script)
    while table.hand_index < 6:
        if table.waiting_for() == "lift_done":
            table.prepare_lift()
            table.on_lift_done(tuple(table.lift_counts(table.hand_index)[1]))
        elif table.waiting_for() == "dice_result":
            table.on_dice(tuple(table.hand.dice))
        else:
            table.step()
    assert table.kept == [(5, 2, kept["tile"])]
    with pytest.raises(S.ScriptError, match="cannot inject set_mismatch: no set comes back"):
        S.build_script(load(WHOLE), injects=[S.Fault("set_mismatch", 0, None)])
    with pytest.raises(S.ScriptError, match="cannot inject stack_count for seat 2: every stack of wall 2 is used"):
        S.build_script(load(WHOLE), injects=[S.Fault("stack_count", 6, 2)])


def test_kuikae_is_the_discard_right_after_the_call():
    game = load(WHOLE)
    clean = S.build_script(game).hands[2]
    h = S.build_script(game, injects=[S.Fault("kuikae", 2, None)]).hands[2]
    fault = h.faults[0]
    changed = [i for i, (a, b) in enumerate(zip(clean.actions, h.actions, strict=True)) if a != b]
    assert len(changed) == 1 and h.walls == clean.walls      # it held the barred tile: only the discard differs
    i = changed[0]
    meld, discard = h.actions[i - 1], h.actions[i]
    assert meld["op"] == "meld" and discard["op"] == "discard" and meld["seat"] == discard["seat"] == fault["seat"]
    assert discard["tile"] == fault["tile"] != clean.actions[i]["tile"]
    call = {"kind": meld["meld_kind"], "called": meld["called"], "tiles": meld["tiles"]}
    assert IG.check_kuikae(call, fault["tile"], load_rules("tenhou")) is not None
    # it keeps the tile it meant to discard to the end, face down: it never lays its hand down
    assert not any(a["op"] == "reveal" and a["seat"] == fault["seat"] for a in h.actions)
    # dealt a barred tile instead of one it keeps face down all hand: two wall slots swapped
    clean8 = S.build_script(game).hands[8]
    h8 = S.build_script(game, injects=[S.Fault("kuikae", 8, 1)]).hands[8]
    moved = [slot for slot in h8.walls if h8.walls[slot] != clean8.walls[slot]]
    assert len(moved) == 2 and sorted(h8.walls[s] for s in moved) == sorted(clean8.walls[s] for s in moved)
    assert T.plain(h8.faults[0]["tile"]) in {T.plain(h8.walls[s]) for s in moved}


def test_last_discard_call_lays_a_pon_on_the_houtei_discard():
    h = S.build_script(load(RYUKYOKU), injects=[S.Fault("last_discard_call", 0, None)]).hands[0]
    fault = h.faults[0]
    i = max(k for k, a in enumerate(h.actions) if a["op"] == "discard")
    last, meld = h.actions[i], h.actions[i + 1]
    assert meld["op"] == "meld" and meld["meld_kind"] in ("pon", "chi") and meld["source"] == last["seat"]
    assert meld["called"] == last["tile"] == fault["tile"] and meld["seat"] == fault["seat"]
    assert not any(a["op"] == "reveal" and a["seat"] == fault["seat"] for a in h.actions)
    for bad, words in ((S.Fault("last_discard_call", 1, None), "does not end on its last discard"),
                       (S.Fault("last_discard_call", 10, 3), "seat 3 discarded it or lays its hand down")):
        with pytest.raises(S.ScriptError, match=words):
            S.build_script(load(WHOLE), injects=[bad])


def test_furiten_ron_puts_a_winning_tile_in_the_winners_river():
    game = load(WHOLE)
    clean = S.build_script(game).hands[4]
    h = S.build_script(game, injects=[S.Fault("furiten_ron", 4, 0)]).hands[4]
    fault = h.faults[0]
    reveal = next(a for a in h.actions if a["op"] == "reveal" and a["seat"] == 0)
    assert fault == {"rule": "furiten_ron", "hand": 4, "seat": 0, "tile": reveal["win_tile"]}
    changed = [i for i, (a, b) in enumerate(zip(clean.actions, h.actions, strict=True)) if a != b]
    take, discard = (h.actions[i] for i in changed)
    assert take["op"] == "take" and discard["op"] == "discard" and discard["is_tsumogiri"]
    assert take["seat"] == discard["seat"] == 0 and take["tile"] == discard["tile"]
    # two wall slots swapped their tiles: the set is whole
    moved = [slot for slot in h.walls if h.walls[slot] != clean.walls[slot]]
    assert len(moved) == 2 and sorted(h.walls[s] for s in moved) == sorted(clean.walls[s] for s in moved)
    for bad, words in ((S.Fault("furiten_ron", 1, None), "no one wins by ron"),
                       (S.Fault("furiten_ron", 4, 2), "seat 2: it does not win by ron")):
        with pytest.raises(S.ScriptError, match=words):
            S.build_script(game, injects=[bad])


def test_every_hand_of_a_whole_game_each_new_rule():
    """Each new rule in each hand of a whole game: caught alone with its seat and tile, or refused
    with the reason it cannot physically happen there."""
    game = load(WHOLE)
    caught: dict[str, int] = {}
    for rule in S.EXTRA_FAULT_RULES:
        for hand in range(len(game.hands)):
            try:
                script = S.build_script(game, injects=[S.Fault(rule, hand, None)], seed=3)
            except S.ScriptError as err:
                assert f"cannot inject {rule}" in str(err)
                continue
            fault = script.hands[hand].faults[0]
            s, results = play(script)
            assert alerts_of(s) == [(rule, hand, fault["seat"], fault["tile"])], (rule, hand, alerts_of(s))
            assert len(results) == len(game.hands)
            caught[rule] = caught.get(rule, 0) + 1
    assert caught["stack_count"] == 16 and caught["set_mismatch"] == 15
    assert min(caught.values()) >= 1, caught


def test_several_faults_in_one_game():
    game = load(SHORT)
    injects = [S.parse_inject(x) for x in ("furiten_ron@0", "stack_count@1:3", "set_mismatch@2:0", "kuikae@2")]
    script = S.build_script(game, injects=injects)
    want = sorted((f["rule"], f["hand"], f["seat"], f["tile"]) for h in script.hands for f in h.faults)
    assert [w[0] for w in want] == sorted(f.rule for f in injects)
    s, results = play(script)
    assert sorted(alerts_of(s)) == want
    assert len(results) == len(game.hands)


def test_the_rules_are_injectable_by_name():
    assert S.INJECTABLE_RULES == S.FAULT_RULES + S.EXTRA_FAULT_RULES and len(S.FAULT_RULES) == 9
    for rule in S.EXTRA_FAULT_RULES:
        assert S.parse_inject(f"{rule}@3:1") == S.Fault(rule, 3, 1)
        assert daemon_cli.parse_inject(f"{rule}@3") == {"rule": rule, "hand": 3, "seat": None}
    assert set(daemon_cli.INJECT_RULES) == set(S.INJECTABLE_RULES)
    with pytest.raises(S.ScriptError, match="unknown rule 'furiten'"):
        S.parse_inject("furiten@1")
