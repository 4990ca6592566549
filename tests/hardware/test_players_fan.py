"""Seeded simulated players for the fan families (issue 16 item 3): Hong Kong, Chinese and
competition games played by ``hardware.sim.players_fan``, acted out physically by the simulated
table (``SimTable``: walls raised with the MCU's counts, the dice of each roll, seat buttons, the
error-free camera reading the table), followed by the tracker from those reports alone, end on
the scores the rules engine gives for the script (worked out by the players from the hands as
played, never read from the tracker).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from controller import events as ev
from controller import game as G
from controller.rules.ruleset import load as load_rules
from hardware.sim import script as S
from hardware.sim import table as table_mod
from hardware.sim import table_eyes as eyes_mod
from hardware.sim.players_fan import play_game

GAMES = {"hk": (0, 1), "chinese": (0, 2), "competition": (0, 1)}
HANDS = 4


def act_out(script: S.Script, *, red_fives: tuple[str, ...] | None = ()) -> tuple[G.GameState, list[dict]]:
    """The simulated table performs ``script``; the tracker sees MCU reports, buttons and the
    error-free camera only. ``red_fives``: the set's red fives as staff start the game (None: the
    ruleset's own)."""
    stacks = load_rules(script.ruleset).procedures.stacks_per_side
    table = table_mod.SimTable(script, stacks=stacks)
    eyes = eyes_mod.ViewTracker()
    first = script.hands[0]
    s, _ = G.step(G.new_state(), ev.StartGame(ruleset=script.ruleset, players=tuple(script.players),
                                              red_fives=red_fives, start_round=first.round,
                                              start_scores=tuple(first.scores)), 0.0)
    results, now = [], 0.0
    while not table.finished:
        waiting = table.waiting_for()
        if waiting == "lift_done":
            table.prepare_lift()
            table.on_lift_done(tuple(table.lift_counts(table.hand_index)[1]))
            continue
        if waiting == "dice_result":
            roll = table.next_op()["dice"]          # what the MCU rolls for the seat whose button is lit
            table.on_dice(table.prepare_roll(table.next_op()["seat"], len(roll)))
            continue
        op = table.step()
        now += 0.5
        events: list[ev.Event] = []
        if op["op"] == "lift":
            events.append(ev.LiftDone(counts=tuple(table.last_lift), now=now))
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
            if s.last_result is not before:
                results.append(s.last_result)
    return s, results


@pytest.mark.parametrize("ruleset,seed", [(r, sd) for r, seeds in GAMES.items() for sd in seeds])
def test_played_games_end_on_the_rules_engines_scores(ruleset, seed):
    played = play_game(ruleset, hands=HANDS, seed=seed)
    s, results = act_out(played.script)
    assert s.alerts == [], s.alerts
    assert len(results) == HANDS
    for got, want in zip(results, played.results, strict=True):
        assert got["outcome"] == want["outcome"], (got, want)
        assert list(got["deltas"]) == want["deltas"], (got, want)
    assert [seat.score for seat in s.seats] == played.final_scores


def test_the_players_use_every_kind_of_move():
    seen = Counter()
    outcomes = Counter()
    for ruleset, seeds in GAMES.items():
        for seed in seeds:
            played = play_game(ruleset, hands=HANDS, seed=seed)
            outcomes.update(r["outcome"] for r in played.results)
            for h in played.script.hands:
                seen.update(a["meld_kind"] if a["op"] == "meld" else a["op"] for a in h.actions)
                seen.update(a["action"] for a in h.actions if a["op"] == "press")
    for move in ("flower", "pon", "chi", "tsumo", "ron", "dice", "ok"):
        assert seen[move] > 0, (move, seen)
    assert seen["daiminkan"] + seen["ankan"] > 0, seen
    assert outcomes["win"] > 0 and outcomes["false_win"] > 0, outcomes


def test_a_played_script_round_trips_through_json():
    played = play_game("hk", hands=2, seed=3)
    again = S.script_from_json(json.loads(json.dumps(played.script.to_json())))
    assert again.to_json() == played.script.to_json()
    assert [h.actions for h in again.hands] == [h.actions for h in played.script.hands]


def test_same_seed_same_game_other_seed_other_game():
    a, b, c = play_game("chinese", hands=2, seed=5), play_game("chinese", hands=2, seed=5), play_game("chinese", hands=2, seed=6)
    assert a.script.to_json() == b.script.to_json() != c.script.to_json()


def test_a_short_standing_hand_is_caught_in_the_chinese_rules():
    """A seat lets a standing tile fall while play goes on: the camera counts 12 where 13 belong
    (相公); the Chinese rules keep the alert from the table until the hand ends."""
    played = play_game("chinese", hands=1, seed=0)
    hand = played.script.hands[0]
    revealers = {a["seat"] for a in hand.actions if a["op"] == "reveal"}
    seat = next(s for s in (1, 2, 3) if s not in revealers)
    first = next(i for i, a in enumerate(hand.actions) if a["op"] == "discard" and a["seat"] == seat)
    hand.actions.insert(first + 1, {"op": "drop", "seat": seat, "tile": "1m"})
    s, _results = act_out(played.script)
    got = [(a["rule"], a["hand_index"], a["seat"], a["is_public"]) for a in s.alerts]
    assert got == [("wrong_hand_size", 0, seat, False)], got
