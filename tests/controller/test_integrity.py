"""Integrity: every injected fault is caught with its rule, seat and tile; clean play raises
nothing; a camera that misreads or loses now and then does not change any score."""

import dataclasses
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller import events as ev
from controller import integrity as IG
from controller import tracker as G
from controller.rules import tenhou as TH
from controller.rules.procedures import ProcedureRules
from controller.rules.replay import replay_game
from controller.rules.ruleset import load as load_rules
from hardware.sim import script as S
from tests.paths import SAMPLE_LOGS, TENHOU_SAMPLES, load_sample

SHARED = TENHOU_SAMPLES   # fails loudly when the shared folder is missing
SAMPLES = SAMPLE_LOGS
WHOLE = SHARED / "mjlog2json__2019081518gm-00a9-0000-cce9d00c.json"
_GAMES: dict = {}


def load(path: Path) -> TH.LogGame:
    if path not in _GAMES:
        _GAMES[path] = load_sample(path)
    return _GAMES[path]


def play(events):
    s = G.new_state()
    for e in events:
        s, _ = G.step(s, e, e.now)
    return s


def alerts_of(s):
    return [(a["rule"], a["hand_index"], a["seat"], a["tile"]) for a in s.alerts]


# --------------------------------------------------------------------------- injected faults

CASES = [(rule, hand, seat) for rule in S.FAULT_RULES for hand, seat in ((1, None), (3, None), (6, 2))
         if (rule, seat) != ("missing_tile", 2)] + [("missing_tile", 6, 0)]


@pytest.mark.parametrize("rule,hand,seat", CASES, ids=lambda x: str(x))
def test_injected_fault_is_caught_with_seat_and_tile(rule, hand, seat):
    try:
        script = S.build_script(load(WHOLE), injects=[S.Fault(rule, hand, seat)])
    except S.ScriptError as err:
        # only a fault that cannot physically happen in this hand may be refused, and it says why
        assert f"cannot inject {rule}" in str(err)
        pytest.skip(str(err))
    fault = script.hands[hand].faults[0]
    if seat is not None:
        assert fault["seat"] == seat
    s = play(S.events_of(script))
    found = [a for a in s.alerts if a["rule"] == rule and a["hand_index"] == hand]
    assert found, f"{rule} in hand {hand} not caught; alerts: {alerts_of(s)}"
    assert (found[0]["seat"], found[0]["tile"]) == (fault["seat"], fault["tile"])
    assert all(a["hand_index"] >= hand for a in s.alerts)     # nothing before the fault
    assert found[0]["message"]
    if rule in ("missing_tile", "fifth_tile", "wrong_red", "other_back"):
        assert found[0]["suggest"] == "void_hand"


def test_alerts_reach_the_public_state_and_the_commands():
    script = S.build_script(load(WHOLE), injects=[S.Fault("taken_back", 2, None)])
    s = G.new_state()
    raised = []
    for e in S.events_of(script):
        s, cmds = G.step(s, e, e.now)
        raised += [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    pub = G.public_state(s)
    assert [(a.rule, a.seat, a.tile) for a in raised] == [(a["rule"], a["seat"], a["tile"]) for a in pub["alerts"]]
    assert raised[0].rule == "taken_back" and raised[0].hand_index == 2 and raised[0].is_public


def test_inject_option_is_parsed_strictly():
    assert S.parse_inject("taken_back@2:1") == S.Fault("taken_back", 2, 1)
    assert S.parse_inject("missing_tile@0") == S.Fault("missing_tile", 0, None)
    for bad, words in (("cheat@1", "unknown rule"), ("taken_back@x", "RULE@HAND"), ("taken_back@1:7", "seat 7")):
        with pytest.raises(S.ScriptError, match=words):
            S.parse_inject(bad)


# --------------------------------------------------------------------------- clean play


def test_no_alert_over_two_hundred_clean_hands():
    hands = 0
    for seed in range(3):
        for path in SAMPLES:
            game = load(path)
            s = play(S.events_of(S.build_script(game, seed=seed)))
            assert s.alerts == [], (path.name, seed, alerts_of(s))
            assert s.last_result == replay_game(game)[-1]
            hands += len(game.hands)
    assert hands >= 200


# --------------------------------------------------------------------------- a camera that errs


def _misread(tile: str, rng: random.Random) -> str:
    if tile[1] == "z":
        return f"{(int(tile[0]) % 7) + 1}z"
    n = 5 if tile[0] == "0" else int(tile[0])
    return f"{n % 9 + 1}{tile[1]}"


def _noisy(events, rng: random.Random, rate: float):
    """Per event, with probability ``rate``: a wall take or a stick is lost, a tile is misread."""
    for e in events:
        if rng.random() >= rate:
            yield e
            continue
        if isinstance(e, (ev.WallStackTaken, ev.RiichiStick)):
            continue
        if isinstance(e, (ev.Discard, ev.IndicatorRevealed)):
            yield dataclasses.replace(e, tile=_misread(e.tile, rng))
        elif isinstance(e, ev.HandRevealed):
            tiles = list(e.tiles)
            k = rng.randrange(len(tiles))
            if tiles[k] != e.win_tile:
                tiles[k] = _misread(tiles[k], rng)
            yield dataclasses.replace(e, tiles=tuple(tiles))
        else:
            yield e


def _staff_check(noisy: G.GameState, clean: G.GameState, now: float) -> list[ev.Correction]:
    """What staff looking at the table would correct before confirming: tiles the camera misread."""
    out = []
    for seat in range(4):
        for i, (a, b) in enumerate(zip(noisy.seats[seat].river, clean.seats[seat].river, strict=False)):
            if a["tile"] != b["tile"]:
                out.append(ev.Correction(what="discard", reason="camera misread", now=now,
                                         data={"seat": seat, "index": i, "tile": b["tile"]}))
        if clean.seats[seat].revealed is not None and noisy.seats[seat].revealed != clean.seats[seat].revealed:
            out.append(ev.Correction(what="hand", reason="camera misread", now=now,
                                     data={"seat": seat, "tiles": list(clean.seats[seat].revealed),
                                           "win_tile": clean.seats[seat].win_tile}))
    for name in ("indicators", "ura"):
        for k, (a, b) in enumerate(zip(getattr(noisy, name), getattr(clean, name), strict=False)):
            if a != b:
                out.append(ev.Correction(what="indicator", reason="camera misread", now=now,
                                         data={"index": k, "tile": b, "is_ura": name == "ura"}))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_two_percent_camera_errors_do_not_change_any_score(seed):
    """Lost takes and sticks are inferred; misread tiles are either read again (a called or
    winning tile) or corrected by staff before they confirm the shown result."""
    game = load(WHOLE)
    want = replay_game(game)
    rng = random.Random(seed)
    clean_events = S.events_of(S.build_script(game, seed=seed))
    noisy_state, clean_state = G.new_state(), G.new_state()
    results, corrections, lost_or_misread = [], 0, 0
    for e in clean_events:
        noisy = list(_noisy([e], rng, 0.02))
        lost_or_misread += noisy != [e]
        if isinstance(e, ev.Button) and e.action == "ok":
            for c in _staff_check(noisy_state, clean_state, e.now):
                noisy_state, _ = G.step(noisy_state, c, c.now)
                corrections += 1
        clean_state, _ = G.step(clean_state, e, e.now)
        before = noisy_state.last_result
        for n in noisy:
            noisy_state, _ = G.step(noisy_state, n, n.now)
        if noisy_state.last_result is not before:
            results.append(noisy_state.last_result)
    assert lost_or_misread > 0
    assert results == want
    assert [x.score for x in noisy_state.seats] == want[-1]["scores_after"] and noisy_state.finished
    assert corrections <= lost_or_misread


# --------------------------------------------------------------------------- the rules one by one


def test_lift_counts():
    proc = ProcedureRules()
    assert IG.check_lift([34, 34, 34, 34], proc) == []
    assert IG.check_lift([34, 33, 34, 34], proc)[0][:2] == ("missing_tile", 1)
    assert IG.check_lift([34, 34, 34, 35], proc)[0][:2] == ("stack_count", 3)
    assert IG.check_lift([33, 35, 34, 34], proc)[0][:2] == ("stack_count", 0)


def test_census_names_fifth_copies_and_reds_the_set_lacks():
    census = {"5p": 3, "0p": 1, "1z": 4}
    assert IG.census_problems({"1z": 4}, census, ["1z"]) == []
    assert IG.census_problems({"1z": 5}, census, ["1z"])[0][:2] == ("fifth_tile", "1z")
    assert IG.census_problems({"0p": 2}, census, ["0p"])[0][:2] == ("wrong_red", "0p")
    assert IG.census_problems({"5p": 4}, census, ["5p"])[0][:2] == ("fifth_tile", "5p")  # 4 plain: one is foreign
    assert IG.census_problems({"5p": 3, "0p": 1}, census, ["5p"]) == []


@pytest.mark.parametrize("meld,discard,banned", [
    # RULINGS worked examples (kuikae)
    ({"kind": "chi", "called": "4p", "tiles": ["4p", "2p", "3p"]}, "4p", True),
    ({"kind": "chi", "called": "1p", "tiles": ["1p", "2p", "3p"]}, "4p", True),
    ({"kind": "chi", "called": "4p", "tiles": ["4p", "5p", "6p"]}, "1p", False),
    ({"kind": "chi", "called": "7p", "tiles": ["7p", "5p", "6p"]}, "1p", False),
    ({"kind": "chi", "called": "7p", "tiles": ["7p", "5p", "6p"]}, "4p", True),
    ({"kind": "chi", "called": "3s", "tiles": ["3s", "2s", "4s"]}, "3s", True),
    ({"kind": "pon", "called": "7z", "tiles": ["7z", "7z", "7z"]}, "7z", True),
    ({"kind": "pon", "called": "5m", "tiles": ["5m", "5m", "0m"]}, "0m", True),
], ids=lambda x: str(x))
def test_kuikae(meld, discard, banned):
    assert (IG.check_kuikae(meld, discard, load_rules("tenhou")) is not None) == banned
    assert IG.check_kuikae(meld, discard, dataclasses.replace(load_rules("tenhou"), kuikae="allowed")) is None


def test_wrong_hand_size_is_kept_from_the_table_in_the_chinese_rules():
    assert IG.is_public("wrong_hand_size", load_rules("tenhou"))
    assert not IG.is_public("wrong_hand_size", load_rules("chinese"))
    assert IG.is_public("fifth_tile", load_rules("chinese"))


def _seat(river, melds=(), win_tile="3m"):
    return SimpleNamespace(river=[{"tile": t} for t in river], melds=list(melds), win_tile=win_tile)


def test_furiten_ron():
    hand = ["1m", "2m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "9s", "9s", "3m"]   # waits 3m
    timeline = [("discard", 1, "3m", False, False), ("discard", 2, "6z", False, False),
                ("discard", 3, "3m", False, False)]
    clean = SimpleNamespace(seats=[_seat([]), _seat(["1z"]), _seat([]), _seat([])], timeline=timeline[:1])
    own = SimpleNamespace(seats=[_seat(["3m"]), _seat([]), _seat([]), _seat([])], timeline=timeline[:1])
    assert IG.check_furiten(clean, 0, hand) is None
    assert "discard furiten" in IG.check_furiten(own, 0, hand)
    passed = SimpleNamespace(seats=[_seat(["1z"]), _seat([]), _seat([]), _seat([])],
                             timeline=[("discard", 0, "1z", False, False)] + timeline)
    assert "temporary furiten" in IG.check_furiten(passed, 0, hand)


def test_kuikae_and_last_discard_call_in_play():
    events = S.events_of(S.build_script(load(WHOLE)))
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.Meld) and e.meld_kind == "chi")
    chi = events[i]
    j = next(j for j in range(i + 1, len(events)) if isinstance(events[j], ev.Discard))
    bad = dataclasses.replace(events[j], tile=chi.called)
    s = play(events[:j] + [bad])
    assert alerts_of(s)[-1][0] == "kuikae" and alerts_of(s)[-1][2:] == (chi.seat, chi.called)
    # an exhaustive draw: a pon on the last discard is refused
    s = G.new_state()
    k = 0
    for k, e in enumerate(events):  # noqa: B007 (k is the index of the last discard)
        s, _ = G.step(s, e, e.now)
        if isinstance(e, ev.Discard) and s.draw_kind == "exhaustive_draw":
            break
    last = events[k]
    pon = ev.Meld(seat=(last.seat + 2) % 4, meld_kind="pon", tiles=(last.tile,) * 3, called=last.tile,
                  source=last.seat, now=last.now)
    s = play(events[:k + 1] + [pon])
    assert alerts_of(s)[-1] == ("last_discard_call", s.hand_index, (last.seat + 2) % 4, last.tile)


def test_a_set_that_does_not_add_up_when_built_again():
    events = S.events_of(S.build_script(load(WHOLE)))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    s = play(events[:k])
    s2, cmds = G.step(s, ev.StackReady(counts=(34, 34, 34, 34)), 1.0)
    assert cmds == [] and s2.alerts == []
    s3, cmds = G.step(s, ev.StackReady(counts=(34, 33, 34, 34)), 1.0)
    assert cmds[0].alert.rule == "set_mismatch" and cmds[0].alert.suggest == "void_hand"
    assert "135" in cmds[0].alert.message


def test_the_shufflers_wrong_lane_count_is_a_set_that_does_not_add_up():
    """Real firmware reports a short lane as the fault lane_count (PROTOCOL.md), not as a count."""
    events = S.events_of(S.build_script(load(WHOLE)))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    s = play(events[:k])
    s2, cmds = G.step(s, ev.McuFault(code="lift_jam", detail="wall 2"), 1.0)
    assert cmds == [] and s2.alerts == []                  # other faults are the machine's, not the set's
    s3, cmds = G.step(s, ev.McuFault(code="lane_count", detail="lane 1: 33 tiles"), 1.0)
    assert [(c.alert.rule, c.alert.seat, c.alert.tile, c.alert.suggest) for c in cmds] == [
        ("set_mismatch", None, None, "void_hand")]
    assert "lane 1: 33 tiles" in cmds[0].alert.message


def test_four_winds_and_four_riichi_abort_the_hand():
    events = S.events_of(S.build_script(load(WHOLE)))
    first = [i for i, e in enumerate(events) if isinstance(e, ev.Discard)][:4]
    winds = list(events)
    for i in first:
        winds[i] = dataclasses.replace(events[i], tile="2z", is_riichi=False)
    s = play(winds[:first[-1] + 1])
    assert s.result["outcome"] == "abortive_draw" and s.phase == "result"
    s, _ = G.step(s, ev.Button(seat=0, action="ok"), 1.0)
    assert (s.round, s.honba, s.hand_index) == (0, 1, 1)
    riichi = list(events)
    for i in first:
        riichi[i] = dataclasses.replace(events[i], is_riichi=True)
    nxt = first[-1] + 1
    s = play(riichi[:nxt] + [ev.RiichiStick(seat=events[first[-1]].seat, now=1.0)])
    assert s.draw_kind == "four_riichi" and s.sticks == 4 and s.result["outcome"] == "abortive_draw"
    assert s.result["scores_after"] == [24000] * 4


def test_an_alert_kept_from_the_table_appears_when_the_hand_ends():
    """Chinese rules: a wrong-size hand (相公) is told to staff at once, to the table at hand end."""
    s = G.new_state()
    s.phase, s.hand_index = "play", 2
    s.seats = [G.SeatState(score=25000) for _ in range(4)]
    hidden = ev.to_record(ev.Alert(rule="wrong_hand_size", hand_index=2, seat=1, message="15 tiles",
                                   is_public=False))
    shown = ev.to_record(ev.Alert(rule="taken_back", hand_index=2, seat=3, tile="5p", message="taken back"))
    s.alerts = [hidden, shown]
    assert [a["rule"] for a in G.public_state(s)["alerts"]] == ["taken_back"]
    assert [a["rule"] for a in G.staff_alerts(s)] == ["wrong_hand_size", "taken_back"]
    s.phase = "result"
    assert [a["rule"] for a in G.public_state(s)["alerts"]] == ["wrong_hand_size", "taken_back"]
    s.phase, s.hand_index = "play", 3
    assert len(G.public_state(s)["alerts"]) == 2


def test_a_discard_that_changes_in_place():
    events = S.events_of(S.build_script(load(WHOLE)))
    k = [i for i, e in enumerate(events) if isinstance(e, ev.Discard)][10]
    s = play(events[:k + 3])
    d = events[k]
    index = len([x for x in events[:k] if isinstance(x, ev.Discard) and x.seat == d.seat])
    new = "7z" if d.tile != "7z" else "6z"
    s2, cmds = G.step(s, ev.DiscardRemoved(seat=d.seat, index=index, tile=d.tile, replaced_by=new), 1.0)
    assert [(c.alert.rule, c.alert.seat, c.alert.tile) for c in cmds] == [("taken_back", d.seat, d.tile)]
    assert s2.seats[d.seat].river[index]["tile"] == new and s2.turn == s.turn
    assert "changed to 7z" in cmds[0].alert.message or "changed to 6z" in cmds[0].alert.message


def test_an_out_of_turn_tile_taken_back_and_the_place_then_read_as_the_seats_own_discard():
    """A seat discards out of turn and takes the tile back; on its turn it discards another tile
    at the same place, and the camera, which never saw the place empty for long, reports the
    place changed (``DiscardRemoved`` with ``replaced_by``). That tile is the seat's discard: the
    turn goes on, and the hand ends on the recorded result, held for staff by the one alert."""
    events = S.events_of(S.build_script(load(WHOLE)))
    end = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    clean = play(events[:end])
    discards = [i for i, e in enumerate(events[:end]) if isinstance(e, ev.Discard)]
    k = discards[8]                                   # seat A discards on its turn
    b = (events[k].seat + 1) % 4
    own = [i for i in discards if i > k and events[i].seat == b]
    mine, later = own[0], own[1]                      # B's next discard, and a later one
    s = play(events[:k])
    wrong = dataclasses.replace(events[later], is_tsumogiri=False, is_riichi=False, now=events[k].now - 0.1)
    s, cmds = G.step(s, wrong, wrong.now)             # B, out of turn
    assert [(c.alert.rule, c.alert.seat, c.alert.tile) for c in cmds] == [("out_of_turn", b, wrong.tile)]
    index = len(s.seats[b].river) - 1
    for e in events[k:mine]:
        s, _ = G.step(s, e, e.now)
    now = events[mine].now
    s, cmds = G.step(s, ev.DiscardRemoved(seat=b, index=index, tile=wrong.tile, replaced_by=events[mine].tile,
                                          now=now), now)
    assert [c for c in cmds if isinstance(c, ev.RaiseAlert)] == []
    assert s.seats[b].river[-1]["tile"] == events[mine].tile and not s.seats[b].river[-1]["is_out_of_turn"]
    assert s.turn == (b + 1) % 4
    for e in events[mine + 1:end]:
        s, _ = G.step(s, e, e.now)
    assert [(a["rule"], a["seat"], a["tile"]) for a in s.alerts] == [("out_of_turn", b, wrong.tile)]
    assert s.result is not None and s.result["deltas"] == clean.result["deltas"]


@pytest.mark.parametrize("rule", S.FAULT_RULES)
def test_every_hand_of_a_whole_game(rule):
    """Each fault in each hand of a whole game is caught with its seat and tile, or refused
    with a reason when it cannot physically happen in that hand."""
    game = load(WHOLE)
    caught = 0
    for hand in range(len(game.hands)):
        try:
            script = S.build_script(game, injects=[S.Fault(rule, hand, None)])
        except S.ScriptError as err:
            assert f"cannot inject {rule}" in str(err)
            continue
        fault = script.hands[hand].faults[0]
        s = G.new_state()
        for e in S.events_of(script):        # up to the end of the faulty hand
            s, _ = G.step(s, e, e.now)
            if s.hand_index > hand:
                break
        assert (rule, hand, fault["seat"], fault["tile"]) in alerts_of(s)
        caught += 1
    assert caught >= len(game.hands) // 2   # extra_draw needs a spare live tile: not at an exhaustive draw


def test_the_standing_hand_count_is_judged_only_between_turns():
    """12 or 14 standing where 13 belong (with the melds) is a wrong-size hand; a seat on turn, a
    tile discarded out of turn (still in the river) or the deal are not."""
    from types import SimpleNamespace as NS
    seat = NS(n_concealed=13, melds=[], river=[])
    on_turn = NS(n_concealed=14, melds=[], river=[])
    out_of_turn = NS(n_concealed=13, melds=[], river=[{"tile": "1m", "is_out_of_turn": True}])
    melded = NS(n_concealed=10, melds=[{"kind": "pon"}], river=[])
    state = NS(phase="play", is_dealt=True, deal_left=[], seats=[seat, on_turn, out_of_turn, melded])
    assert IG.check_hand_count(state, 0, 12) and IG.check_hand_count(state, 0, 14)
    assert IG.check_hand_count(state, 0, 13) is None
    assert IG.check_hand_count(state, 1, 12) is None            # on turn: the tracker's own count is 14
    assert IG.check_hand_count(state, 2, 12) is None            # one tile lies in the river out of turn
    assert IG.check_hand_count(state, 3, 9) and IG.check_hand_count(state, 3, 10) is None
    dealing = NS(phase="play", is_dealt=False, deal_left=[1], seats=[seat] * 4)
    assert IG.check_hand_count(dealing, 0, 4) is None
