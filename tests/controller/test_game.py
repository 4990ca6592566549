"""The game tracker follows recorded games from the table's events alone.

Each sample game (tenhou.net/6) is turned into the physical script of the simulated table
(``hardware.sim.script``) and then into the event stream the firmware link and a perfect
camera tracker report. The tracker never sees the log: after every hand its public state
must show the recorded result (the rules engine's replay of the log) and the next hand must
start with the recorded round, honba, sticks and scores.
"""

import copy
import json
from pathlib import Path

import pytest

from controller import events as ev
from controller import tracker as G
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules.replay import replay_game
from controller.rules.tiles import KINDS_34
from hardware.sim import script as S
from tests.paths import SAMPLE_LOGS, TENHOU_SAMPLES, load_sample

ROOT = Path(__file__).resolve().parents[2]
SHARED = TENHOU_SAMPLES   # fails loudly when the shared folder is missing
SAMPLES = SAMPLE_LOGS
EXTRA = [ROOT / "tests" / "data" / "tenhou" / n for n in ("kokushi_closed_kan.json", "pao_ron.json",
                                                          "triple_ron.json")]
LOGS = SAMPLES + [p for p in EXTRA if p.exists()]
WHOLE = SHARED / "mjlog2json__2019081518gm-00a9-0000-cce9d00c.json"   # a whole hanchan, 16 hands


def load(path: Path) -> TH.LogGame:
    return load_sample(path)


def play(events, state=None):
    """Feed events; return the final state, every command and the states after each event."""
    s = state or G.new_state()
    commands = []
    for e in events:
        s, cmds = G.step(s, e, e.now)
        commands += cmds
    return s, commands


def played(events) -> tuple[list[dict], G.GameState]:
    """Step the game tracker through ``events``: every hand's result as it was applied, and the state."""
    s = G.new_state()
    results = []
    for e in events:
        before = s.last_result
        s, _ = G.step(s, e, e.now)
        if s.last_result is not before:
            results.append(s.last_result)
    return results, s


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem[-28:])
def test_recorded_game_followed_hand_by_hand(path):
    game = load(path)
    want = replay_game(game)
    script = S.build_script(game)
    s = G.new_state()
    results, starts = [], []
    for e in S.events_of(script):
        before = s
        s, _cmds = G.step(s, e, e.now)
        if isinstance(e, ev.LiftDone):
            pub = G.public_state(s)
            starts.append((pub["round"], pub["honba"], pub["riichi_sticks"], [x["score"] for x in pub["seats"]]))
        if s.last_result is not None and s.last_result is not before.last_result:
            results.append(s.last_result)
            pub = G.public_state(s)
            assert pub["last_result"] == s.last_result
            if not pub["finished"]:
                assert [x["score"] for x in pub["seats"]] == s.last_result["scores_after"]
    assert results == want
    for h, (rnd, honba, sticks, scores) in zip(game.hands, starts, strict=True):
        assert (rnd, honba, sticks, scores) == (want[h.index]["round"], h.honba, h.sticks, list(h.scores))
    pub = G.public_state(s)
    assert pub["alerts"] == []
    assert [x["score"] for x in pub["seats"]] == want[-1]["scores_after"]
    # the score sheet: a row per hand, with the hand's payments and every seat's score after it
    sheet = pub["hands"]
    assert [(r["hand"], r["outcome"], r["deltas"]) for r in sheet] == [
        (w["hand"], w["outcome"], w["deltas"]) for w in want]
    assert [r["scores"] for r in sheet] == [list(h.scores) for h in game.hands[1:]] + [
        [x["score"] for x in pub["seats"]]]
    if path.name.startswith("mjlog2json"):   # whole games end, and are settled
        assert pub["finished"] and pub["settlement"] is not None and len(pub["settlement"]) == 4


def test_public_state_has_the_contract_fields_at_every_step():
    game = load(SAMPLES[0])
    s = G.new_state()
    keys = {"table", "ruleset", "round", "honba", "riichi_sticks", "hand_index", "dealer", "finished", "seats",
            "dora_indicators", "dora", "live_wall", "last_result", "alerts"}
    live = []
    events = S.events_of(S.build_script(game))
    first_hand = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    for e in events[:first_hand]:
        s, _ = G.step(s, e, e.now)
        pub = G.public_state(s)
        assert keys <= set(pub)
        json.dumps(pub)
        assert [set(x) >= {"wind", "score", "riichi"} for x in pub["seats"]] == [True] * 4
        if pub["live_wall"] is not None:
            live.append(pub["live_wall"])
    assert max(live) == 70 and live == sorted(live, reverse=True)


def test_dice_break_and_indicator_slot_come_from_the_roll():
    game = load(SAMPLES[0])
    script = S.build_script(game, seed=3)
    events = S.events_of(script)
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.DiceResult))
    s, cmds = play(events[:start])
    assert any(isinstance(c, ev.LightButton) and c.action == "dice" and c.seat == 0 for c in cmds)
    s, cmds = G.step(s, ev.Button(seat=1, action="dice"), 1.0)
    assert cmds == []                          # not the dealer's button
    s, cmds = G.step(s, ev.Button(seat=0, action="dice"), 1.0)
    assert [type(c) for c in cmds] == [ev.RollDice]
    s, cmds = G.step(s, events[start], events[start].now)
    flip = next(a for a in script.hands[0].actions if a["op"] == "flip")
    assert cmds == [ev.WatchSlot(wall=flip["wall"], stack=flip["stack"], purpose="indicator", now=events[start].now)]


def test_step_never_changes_the_state_it_is_given():
    events = S.events_of(S.build_script(load(SAMPLES[1])))
    s = G.new_state()
    for i, e in enumerate(events):
        if i % 37 == 0:
            frozen = copy.deepcopy(s)
            pub = G.public_state(s)
            nxt, _ = G.step(s, e, e.now)
            assert G.public_state(s) == pub and s.timeline == frozen.timeline
            assert [x.river for x in s.seats] == [x.river for x in frozen.seats]
            s = nxt
        else:
            s, _ = G.step(s, e, e.now)


def test_same_events_same_state():
    events = S.events_of(S.build_script(load(SAMPLES[0])))
    a, ca = play(events)
    b, cb = play(events)
    assert G.public_state(a) == G.public_state(b)
    assert [ev.to_record(c) for c in ca] == [ev.to_record(c) for c in cb]


def test_events_before_a_game_change_nothing():
    s = G.new_state()
    for e in (ev.Discard(seat=0, tile="1m"), ev.Button(seat=0, action="tsumo"), ev.LiftDone(counts=(34,) * 4)):
        s2, cmds = G.step(s, e, 0.0)
        assert s2 is s and cmds == []
    with pytest.raises(G.GameError):
        G.step({"phase": "idle"}, ev.Lid(is_open=True), 0.0)


def test_unknown_or_unfollowed_ruleset_is_refused_with_an_alert():
    s, cmds = G.step(G.new_state(), ev.StartGame(ruleset="nope"), 0.0)
    assert s.phase == "idle" and cmds[0].alert.rule == "inconsistent" and "nope" in cmds[0].alert.message
    s, cmds = G.step(G.new_state(), ev.StartGame(ruleset="sanma"), 0.0)   # followed since three-player riichi
    assert s.phase == "walls" and len(s.seats) == 3 and cmds == [ev.Shuffle(now=0.0), ev.Lift(now=0.0)]


def test_riichi_stick_and_marker_after_called_riichi_tile():
    """A sideways tile after a seat's riichi is only a marker: no second deposit."""
    game = load(WHOLE)
    events = S.events_of(S.build_script(game))
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.Discard) and e.is_riichi)
    seat = events[i].seat
    j = next(j for j in range(i + 1, len(events)) if isinstance(events[j], ev.Discard) and events[j].seat == seat)
    marked = list(events)
    marked[j] = ev.Discard(seat=seat, tile=events[j].tile, is_riichi=True, is_tsumogiri=events[j].is_tsumogiri,
                           now=events[j].now)
    a, _ = play(events[:j + 1])
    b, _ = play(marked[:j + 1])
    assert a.sticks == b.sticks and [x.score for x in a.seats] == [x.score for x in b.seats]
    assert b.seats[seat].is_riichi and G.public_state(b)["seats"][seat]["riichi"]


def test_void_hand_restores_scores_and_keeps_dealer_and_honba():
    events = S.events_of(S.build_script(load(WHOLE)))
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.RiichiStick))
    s, _ = play(events[:i + 1])
    assert s.sticks == s.hand_start_sticks + 1
    s2, cmds = G.step(s, ev.VoidHand(reason="two red 5p in the set"), 99.0)
    assert [x.score for x in s2.seats] == list(s.hand_start_scores) and s2.sticks == s.hand_start_sticks
    assert (s2.round, s2.honba, s2.hand_index, s2.phase) == (s.round, s.honba, s.hand_index, "walls")
    assert [type(c) for c in cmds] == [ev.Shuffle, ev.Lift]
    assert s2.corrections[-1]["reason"] == "two red 5p in the set"
    # the score sheet shows the voided hand, nobody paid
    assert G.public_state(s2)["hands"][-1] == {"hand": s.hand_index, "round": G.public_state(s)["round"],
                                               "honba": s.honba, "outcome": "void", "deltas": [0, 0, 0, 0],
                                               "scores": list(s.hand_start_scores)}


def misread_first_reveal():
    """The first sample's first revealed hand with one tile (not the winning one) misread as an
    honour: (the recorded result, the events, the true reveal, the misread tiles, the state just
    before OK with the misread hand in it, the index of the OK press)."""
    game = load(SAMPLES[0])
    want = replay_game(game)[0]
    events = S.events_of(S.build_script(game))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.HandRevealed))
    true = events[k]
    wrong_tiles = list(true.tiles)
    idx = next(i for i, t in enumerate(wrong_tiles) if t != true.win_tile)
    wrong_tiles[idx] = "7z" if wrong_tiles[idx] != "7z" else "6z"
    bad = ev.HandRevealed(seat=true.seat, tiles=tuple(wrong_tiles), win_tile=true.win_tile, now=true.now)
    end = next(i for i in range(k, len(events)) if isinstance(events[i], ev.Button) and events[i].action == "ok")
    misread, _ = play(events[:k] + [bad] + events[k + 1:end])
    return want, events, true, wrong_tiles, misread, end


def test_staff_correction_of_a_misread_revealed_hand():
    want, _events, true, _wrong, s, _end = misread_first_reveal()
    assert s.result is None or s.result != want      # the misread hand does not give the recorded result
    s, cmds = G.step(s, ev.Correction(what="hand", reason="camera misread",
                                      data={"seat": true.seat, "tiles": list(true.tiles), "win_tile": true.win_tile}),
                     100.0)
    assert s.result == want and any(isinstance(c, ev.Show) for c in cmds)
    s, _ = G.step(s, ev.ConfirmResult(hand_index=0), 101.0)
    assert s.last_result == want and s.hand_index == 1


def test_a_revealed_hand_read_again_replaces_the_misreading():
    """The camera reports a revealed hand again when later looks outvote a tile: the new reading
    replaces the old one (result and census alike), with the re-reading on record."""
    want, events, true, wrong_tiles, misread, end = misread_first_reveal()
    assert misread.result is None and misread.result_error.startswith("the hand cannot be scored")
    assert not any(a["rule"] == "inconsistent" for a in misread.alerts)     # not yet: the camera looks on
    pressed, cmds = G.step(misread, events[end], events[end].now)          # OK pressed on a hand that does not score
    assert [c.alert.rule for c in cmds if isinstance(c, ev.RaiseAlert)] == ["inconsistent"]
    assert pressed.last_result is None and G.public_state(pressed)["result_problem"] == misread.result_error
    s, cmds = G.step(misread, true, true.now + 1)
    assert s.result == want and any(isinstance(c, ev.Show) and c.what == "result" for c in cmds)
    right, _ = play(events[:end])
    assert s.face_up_counts == right.face_up_counts        # the misread tile no longer counted
    assert s.corrections[-1]["what"] == "hand" and s.corrections[-1]["data"]["was"] == wrong_tiles
    again, cmds = G.step(s, true, true.now + 2)          # the same reading once more: nothing new
    assert again.result == want and cmds == [] and len(again.corrections) == len(s.corrections)
    assert G.public_state(again)["alerts"] == []


def test_a_result_waits_for_confirmation():
    events = S.events_of(S.build_script(load(SAMPLES[0])))
    end = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    s, cmds = play(events[:end])
    assert s.phase == "result" and s.result is not None and s.last_result is None
    assert any(isinstance(c, ev.Show) and c.what == "result" for c in cmds)
    s2, _ = G.step(s, ev.ConfirmResult(hand_index=5), 1.0)       # another hand: ignored
    assert s2.last_result is None
    s3, cmds = G.step(s, ev.Button(seat=0, action="ok"), 1.0)
    assert s3.last_result == s.result and s3.hand_index == 1 and s3.phase == "walls"


@pytest.mark.parametrize("drop_ron_tile", [False, True], ids=["ron_tile_in_hand", "ron_tile_left_in_river"])
def test_ron_hands_revealed_without_the_winning_tile_set_apart(drop_ron_tile):
    """A reader that does not say which tile won a ron (win_tile None), or a ron winner who
    leaves the ron tile in the river: the ron tile is the last discard, results are as recorded."""
    game = load(WHOLE)
    want = replay_game(game)
    events = []
    for e in S.events_of(S.build_script(game)):
        if isinstance(e, ev.HandRevealed) and e.win_tile is not None and _is_ron_reveal(events, e.seat):
            tiles = list(e.tiles)
            if drop_ron_tile:
                tiles.remove(e.win_tile)
            e = ev.HandRevealed(seat=e.seat, tiles=tuple(tiles), now=e.now)
        events.append(e)
    results, s = played(events)
    assert results == want and s.alerts == []


def test_tsumo_hand_without_its_drawn_tile_set_apart_takes_the_best_reading_until_corrected():
    game = load(WHOLE)
    want = replay_game(game)
    events = S.events_of(S.build_script(game))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.HandRevealed) and e.win_tile is not None
             and not _is_ron_reveal(events[:i], e.seat))
    true = events[k]
    hand = next(h for h in range(len(want)) if sum(isinstance(e, ev.Button) and e.action == "ok"
                                                    for e in events[:k]) == h)
    end = next(i for i in range(k, len(events)) if isinstance(events[i], ev.Button) and events[i].action == "ok")
    s, _ = play(events[:k] + [ev.HandRevealed(seat=true.seat, tiles=true.tiles, now=true.now)] + events[k + 1:end])
    assert s.result is not None and s.corrections[-1]["what"] == "win_tile"
    best = s.result["wins"][0]["points"]
    assert best >= want[hand]["wins"][0]["points"]
    s, _ = G.step(s, ev.Correction(what="hand", reason="drawn tile shown by the winner",
                                   data={"seat": true.seat, "tiles": list(true.tiles), "win_tile": true.win_tile}),
                  true.now + 1)
    assert s.result == want[hand]


def _is_ron_reveal(events, seat):
    for e in reversed(events):
        if isinstance(e, ev.Button) and e.seat == seat and e.action in ("ron", "tsumo"):
            return e.action == "ron"
    return False


@pytest.mark.parametrize("seed", range(12))
def test_garbled_event_streams_never_break_the_tracker(seed):
    """Dropped, repeated, swapped and mis-seated events, stray staff actions: the tracker keeps
    answering (alerts, no exception) and its public state stays JSON."""
    import dataclasses
    import random
    rng = random.Random(seed)
    events = S.events_of(S.build_script(load(WHOLE)))[:rng.randrange(200, 2600)]
    out = []
    for e in events:
        r = rng.random()
        if r < 0.03:
            continue
        if r < 0.06:
            out.append(e)
        if r < 0.09 and hasattr(e, "seat") and not isinstance(e, ev.StartGame):
            e = dataclasses.replace(e, seat=rng.randrange(4))
        if r < 0.11 and out:
            out[-1], e = e, out[-1]
        out.append(e)
    for x in (ev.ConfirmResult(hand_index=rng.randrange(3)), ev.VoidHand(reason="test"),
              ev.Correction(what="discard", reason="r", data={"seat": 1, "index": rng.randrange(30), "tile": "5m"}),
              ev.Correction(what="hand", reason="r", data={"seat": 2, "tiles": ["1m"] * 13}),
              ev.Correction(what="indicator", reason="r", data={"index": 3, "tile": "1z"}),
              ev.Correction(what="discard", reason="r", data={"seat": "x"}),
              ev.StaffDeclare(seat=1, action="ron"), ev.Button(seat=0, action="tsumo"),
              ev.Button(seat=2, action="draw"), ev.DiscardRemoved(seat=1, index=0, tile="1m", replaced_by="2m")):
        out.insert(rng.randrange(len(out)), x)
    s = G.new_state()
    for e in out:
        s, cmds = G.step(s, e, e.now)
        assert all(isinstance(c, ev.Command) for c in cmds)
    json.dumps(G.public_state(s))


def test_ron_on_the_last_discard_beats_the_exhaustive_draw():
    """Houtei (河底): the hand looked like an exhaustive draw after the last discard, then a ron."""
    events = S.events_of(S.build_script(load(WHOLE)))
    s = G.new_state()
    for e in events:
        s, _ = G.step(s, e, e.now)
        if isinstance(e, ev.Discard) and s.draw_kind == "exhaustive_draw":
            closed = [w for w in range(4) if w != e.seat and not s.seats[w].melds]
            if closed:
                break
    last, winner = e, closed[0]
    assert s.result["outcome"] == "exhaustive_draw"
    x = last.tile
    pairs = [t for t in KINDS_34 if T.plain(x) != t and t[0] != "5" and s.face_up_counts.get(t, 0) <= 2][:6]
    assert len(pairs) == 6
    hand = tuple(t for p in pairs for t in (p, p)) + (x, x)
    s, _ = G.step(s, ev.Button(seat=winner, action="ron"), last.now + 1)
    assert s.phase == "win" and s.winners == [(winner, last.seat)]
    s, cmds = G.step(s, ev.HandRevealed(seat=winner, tiles=hand, win_tile=x), last.now + 2)
    assert s.result is not None and s.result["outcome"] == "win", s.result_error
    yaku = dict(s.result["wins"][0]["yaku"])
    assert yaku["houtei"] == 1 and yaku["chiitoitsu"] == 2


def test_a_camera_that_never_sees_the_walls_still_follows_the_game():
    """No wall stack reported taken at all: every draw is proven by the act that follows it."""
    game = load(WHOLE)
    want = replay_game(game)
    events = [e for e in S.events_of(S.build_script(game)) if not isinstance(e, ev.WallStackTaken)]
    results, s = played(events)
    assert results == want and s.alerts == [] and s.finished


def test_a_roll_refused_by_a_stopped_machine_is_asked_for_again_after_the_retry():
    """The dealer pressed dice while the machine was stopped (a latched fault refuses every job, the
    roll never came): staff's retry lights the dealer's dice lamp again, so the dealer presses again;
    with no roll owed, a retry lights nothing."""
    game = load(SAMPLES[0])
    events = S.events_of(S.build_script(game, seed=3))
    start = next(i for i, e in enumerate(events) if isinstance(e, ev.DiceResult))
    s, _ = play(events[:start])
    s, cmds = G.step(s, ev.Button(seat=0, action="dice"), 1.0)
    assert [type(c) for c in cmds] == [ev.RollDice]
    s, _ = G.step(s, ev.McuFault(code="lane_count", detail="lane_count: detail 1, value 33"), 2.0)
    for way_on in ("retry", "continue"):
        s2, cmds = G.step(s, ev.Correction(what=way_on, reason="tile put back"), 3.0)
        assert s2.phase == "dice" and cmds == [ev.LightButton(seat=0, action="dice", now=3.0)], way_on
    s, _ = G.step(s, events[start], events[start].now)       # the roll made after all
    assert s.phase != "dice"
    s, cmds = G.step(s, ev.Correction(what="retry", reason="again"), 4.0)
    assert not [c for c in cmds if isinstance(c, ev.LightButton)]


def test_first_dealer_rolled_at_the_table():
    """S002:L15 (RULINGS): the East drawer rolls 3 -> West rolls 6 -> North deals first."""
    s, cmds = G.step(G.new_state(), ev.StartGame(ruleset="tenhou", players=("a", "b", "c", "d"),
                                                 first_dealer="two_rolls"), 0.0)
    assert s.phase == "seating" and cmds == [ev.LightButton(seat=0, action="dice", now=0.0)]
    s, cmds = G.step(s, ev.Button(seat=2, action="dice"), 1.0)
    assert cmds == []                                   # not the chair asked to roll
    s, cmds = G.step(s, ev.Button(seat=0, action="dice"), 1.0)
    assert cmds == [ev.RollDice(seat=0, count=2, now=1.0)]
    s, cmds = G.step(s, ev.DiceResult(seat=0, dice=(1, 2)), 2.0)
    assert cmds == [ev.LightButton(seat=2, action="dice", now=2.0)]
    s, cmds = G.step(s, ev.DiceResult(seat=2, dice=(2, 4)), 3.0)
    assert s.first_dealer_chair == 3 and s.players == ("d", "a", "b", "c") and s.phase == "walls"
    shown = next(c for c in cmds if isinstance(c, ev.Show))
    assert shown.what == "seating" and shown.data["rolls"] == [[0, [1, 2]], [2, [2, 4]]]
    pub = G.public_state(s)
    assert pub["first_dealer_chair"] == 3 and [x["name"] for x in pub["seats"]] == ["d", "a", "b", "c"]
    assert pub["seats"][0]["wind"] == "E"


_PLAIN = {51: 15, 52: 25, 53: 35}


def _no_reds(x):
    """A log value with every red five made plain (tile numbers and call strings alike)."""
    if isinstance(x, list):
        return [_no_reds(v) for v in x]
    if isinstance(x, int):
        return _PLAIN.get(x, x)
    if isinstance(x, str):
        out, i = "", 0
        while i < len(x):
            if x[i].isdigit():
                code = int(x[i:i + 2])
                out += str(_PLAIN.get(code, code))
                i += 2
            else:
                out += x[i]
                i += 1
        return out
    return x


def test_a_game_without_red_fives():
    """A log whose rule has no red fives: four plain fives of each suit, no aka dora, no alert."""
    data = json.loads(WHOLE.read_text())
    data["log"] = [_no_reds(h[:16]) + [h[16]] for h in data["log"]]
    data["rule"] = {"disp": "般南喰", "aka": 0}
    game = TH.parse_log(data, "no-reds")
    assert not any(t.startswith("0") for h in game.hands for hp in h.haipai for t in hp)
    want = replay_game(game)
    script = S.build_script(game)
    assert script.red_fives == ()
    results, s = played(S.events_of(script))
    # scores now run on from the computed results (the log's recorded scores had red fives)
    strip = ("scores_after",)
    assert [{k: v for k, v in r.items() if k not in strip} for r in results] == \
        [{k: v for k, v in r.items() if k not in strip} for r in want][:len(results)]
    assert s.alerts == [] and len(results) >= 10
    assert not any(y[0] == "aka_dora" for r in want for w in r.get("wins", []) for y in w["yaku"])


KAN_SAMPLES = [p for p in SAMPLES if any(isinstance(e, TH.Draw) and e.is_rinshan
                                          for h in load(p).hands for e in h.events)]


@pytest.mark.parametrize("order", ["replacement_first", "refill_first"])
@pytest.mark.parametrize("path", KAN_SAMPLES, ids=lambda p: p.stem[-28:])
def test_kan_seen_in_another_order(path, order):
    """The camera may see the replacement tile taken before the kan is laid out, or the refill
    tile move before the replacement draw: same results, no alert."""
    game = load(path)
    events = S.events_of(S.build_script(game))
    reordered, i = list(events), 0
    while i < len(reordered) - 2:
        a, b, c = reordered[i:i + 3]
        if isinstance(a, ev.Meld) and "kan" in a.meld_kind and isinstance(b, ev.WallStackTaken):
            if order == "replacement_first":            # kan, replacement -> replacement, kan
                reordered[i:i + 2] = [b, a]
            elif isinstance(c, ev.WallStackTaken):      # kan, replacement, refill -> kan, refill, replacement
                reordered[i:i + 3] = [a, c, b]
            i += 3
        else:
            i += 1
    assert reordered != events
    results, s = played(reordered)
    assert results == replay_game(game) and s.alerts == []


def test_nine_terminals_declared_then_checked():
    events = S.events_of(S.build_script(load(SHARED / "mjai-reviewer__kyushukyuhai.json")))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "draw")
    s, _ = play(events[:k + 1])
    assert s.result["outcome"] == "abortive_draw" and s.draw_kind == "nine_terminals"   # before the reveal
    true = events[k + 1]
    assert isinstance(true, ev.HandRevealed)
    good, _ = G.step(s, true, true.now)
    assert good.alerts == [] and good.result == s.result
    fake = ev.HandRevealed(seat=true.seat, tiles=("2m", "3m", "4m", "5m", "6m", "7m", "2p", "3p", "4p", "5p",
                                                  "6p", "7p", "8p", "1z"), now=true.now)
    bad, cmds = G.step(s, fake, true.now)
    assert [c.alert.rule for c in cmds if isinstance(c, ev.RaiseAlert)] == ["inconsistent"]


def test_tsumo_tile_set_apart_at_the_right_end_of_a_sorted_row():
    """A reader that lists the revealed row left to right (sorted, the drawn tile set apart at
    the right end) but does not name the winning tile: the results are as recorded."""
    game = load(WHOLE)
    events = []
    for e in S.events_of(S.build_script(game)):
        if isinstance(e, ev.HandRevealed) and e.win_tile is not None:
            rest = list(e.tiles)
            rest.remove(e.win_tile)
            e = ev.HandRevealed(seat=e.seat, tiles=tuple(T.sorted_tiles(rest)) + (e.win_tile,), now=e.now)
        events.append(e)
    results, s = played(events)
    assert results == replay_game(game) and s.alerts == []
    assert not any(c["what"] == "win_tile" for c in s.corrections)


def test_a_meld_that_cannot_be_is_named_and_changes_nothing():
    """A chi of honours (a misread, or a bad event): an alert naming seat and tile, the state as it was."""
    events = S.events_of(S.build_script(load(SAMPLES[0])))
    k = next(i for i, e in enumerate(events) if isinstance(e, ev.Discard))
    s, _ = play(events[:k + 1])
    d = events[k]
    bad = ev.Meld(seat=(d.seat + 1) % 4, meld_kind="chi", tiles=("1z", "2z", "3z"), called="1z", source=d.seat)
    s2, cmds = G.step(s, bad, 1.0)
    assert [(c.alert.rule, c.alert.seat, c.alert.tile) for c in cmds] == [("inconsistent", (d.seat + 1) % 4, "1z")]
    assert "cannot be" in cmds[0].alert.message
    assert [x.melds for x in s2.seats] == [x.melds for x in s.seats] and s2.timeline == s.timeline
    assert s2.seats[d.seat].river == s.seats[d.seat].river


def test_a_winners_hand_seen_before_its_win_button_arrived_gives_the_recorded_results():
    """The camera may see a winner's hand laid down before the seat's tsumo or ron button reaches
    the game (the button over the MCU link, the hand over the camera): the results are as recorded."""
    game = load(WHOLE)
    want = replay_game(game)
    events = list(S.events_of(S.build_script(game)))
    swapped = 0
    for i in range(len(events) - 1):
        a, b = events[i], events[i + 1]
        if isinstance(a, ev.Button) and a.action in ("tsumo", "ron") and isinstance(b, ev.HandRevealed) \
                and b.seat == a.seat:
            events[i], events[i + 1] = b, a
            swapped += 1
    assert swapped >= 2
    results, s = played(events)
    assert results == want and s.alerts == []


def _declared_after_the_camera(events: list) -> tuple[list, int]:
    """The events with each tsumo / ron button moved to just after the ura indicators and hands the
    camera saw for that win (the link's button late behind the camera); and how many were moved."""
    out, moved, i = [], 0, 0
    while i < len(events):
        e = events[i]
        if isinstance(e, ev.Button) and e.action in ("tsumo", "ron"):
            j = i + 1
            seen = []
            while j < len(events) and (isinstance(events[j], (ev.HandRevealed, ev.IndicatorRevealed))
                                       or (isinstance(events[j], ev.Button) and events[j].action == "ron")):
                seen.append(events[j])
                j += 1
            if any(isinstance(x, ev.IndicatorRevealed) and x.is_ura for x in seen):
                buttons = [e, *(x for x in seen if isinstance(x, ev.Button))]
                out += [x for x in seen if not isinstance(x, ev.Button)] + buttons
                moved += 1
                i = j
                continue
        out.append(e)
        i += 1
    return out, moved


def test_an_ura_seen_turned_before_its_win_button_arrived_counts():
    """Under load the camera may see the winner's hand and the ura turned before the tsumo or ron
    button comes over the MCU's link (a recorded game stalled so, waiting for an ura it had seen):
    every win's button late behind the camera, the game still ends on the recorded results."""
    game = load(WHOLE)
    events, moved = _declared_after_the_camera(list(S.events_of(S.build_script(game))))
    assert moved >= 3
    results, s = played(events)
    assert results == replay_game(game) and s.alerts == []
