"""Seeded simulated players for three-player riichi (issue 16 item 3): ``sanma`` games played
by ``hardware.sim.players_sanma`` (norths set aside, pons and no chi, riichi, wins on a draw and
on a discard, exhaustive draws), acted out physically by the simulated table (three walls raised
with the MCU's counts, the dice, seat buttons, the error-free camera), followed by the tracker
from those reports alone, end on the scores the rules engine gives for the players' own record
of each hand (``replay_hand`` and the game flow, never read from the tracker).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from controller.rules import tenhou as TH
from hardware.sim import script as S
from hardware.sim.players_sanma import play_game
from hardware.sim.script_model import ScriptError
from tests.hardware.test_players_fan import act_out

SEEDS = (0, 1, 2, 3)
HANDS = 4


@pytest.mark.parametrize("seed", SEEDS)
def test_played_sanma_games_end_on_the_rules_engines_scores(seed):
    played = play_game(hands=HANDS, seed=seed)
    s, results = act_out(played.script, red_fives=None)
    assert len(s.seats) == 3
    assert s.alerts == [], s.alerts
    assert len(results) == len(played.results) == HANDS
    for got, want in zip(results, played.results, strict=True):
        assert got["outcome"] == want["outcome"], (got, want)
        assert list(got["deltas"])[:3] == want["deltas"], (got, want)
    assert [seat.score for seat in s.seats] == played.final_scores
    assert sum(played.final_scores) == 3 * 35000 - 1000 * s.sticks


def test_the_sanma_players_use_every_kind_of_move():
    seen, outcomes, wins = Counter(), Counter(), Counter()
    for seed in SEEDS:
        played = play_game(hands=HANDS, seed=seed)
        outcomes.update(r["outcome"] for r in played.results)
        for h in played.script.hands:
            seen.update(a["meld_kind"] if a["op"] == "meld" else a["op"] for a in h.actions)
            seen.update("riichi" for a in h.actions if a["op"] == "discard" and a["is_riichi"])
            seen.update(a["action"] for a in h.actions if a["op"] == "press")
            assert h.actions[0] == {"op": "lift", "counts": [36, 36, 36], "odd_backs": []}
        for lh in played.log.hands:
            wins.update("tsumo" if w.seat == w.from_seat else "ron" for w in lh.result.wins)
            assert all(not (isinstance(e, TH.Call) and e.meld.kind == "chi") for e in lh.events)
    for move in ("nuki", "pon", "riichi", "stick", "tsumo", "ron", "dice", "ok", "reveal"):
        assert seen[move] > 0, (move, seen)
    assert seen["chi"] == 0, seen
    assert wins["tsumo"] > 0 and wins["ron"] > 0, wins
    assert outcomes["win"] > 0 and outcomes["exhaustive_draw"] > 0, outcomes


def test_a_played_sanma_script_round_trips_through_json_and_seeds_decide_the_game():
    a, b, c = play_game(hands=2, seed=5), play_game(hands=2, seed=5), play_game(hands=2, seed=6)
    assert a.script.to_json() == b.script.to_json() != c.script.to_json()
    again = S.script_from_json(json.loads(json.dumps(a.script.to_json())))
    assert again.to_json() == a.script.to_json()


def test_the_sanma_players_refuse_a_four_player_profile():
    with pytest.raises(ScriptError, match="three-player riichi"):
        play_game(ruleset="tenhou", hands=1)
