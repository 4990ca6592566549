"""End to end (issue 16 item 3): games of ``hk``, ``chinese`` and ``competition`` played by the
seeded simulated players (``hardware.sim.players_fan``), and of ``sanma`` (three-player riichi,
``hardware.sim.players_sanma``), are acted out physically by ``tablectl demo --script`` and end
on the scores the rules engine gives for the script, worked out by the players, with no alert.

The simulator is only the table at the device edge (``hardware.sim.world_table``): its MCU on a
pty, its dice buttons on the daemon's GPIO lines, its camera a stream of rendered frames (hands
over the table, light, noise) on the table the rules' set stands on (``hk144`` for the 144-tile
rules, ``sanma``, else ``riichi4``). The daemon learns each game through its own parts only: the
firmware part over the serial link, the GPIO part, and ``CameraPart(TableReader, TableTracker)``
with the shipped tile model reading flowers, norths set aside (nuki) and the fan rules' two rolls.
"""

from __future__ import annotations

import json

import pytest

from hardware.sim import players_sanma
from hardware.sim.players_fan import play_game
from tests.integration.test_e2e_demo import play_batches

GAMES = {"hk": 0, "chinese": 2, "competition": 0}
SANMA_SEED = 0
HANDS = 4
AT_ONCE = 2
FINISH_S = 600.0         # a bound for a loaded machine; a game takes 15-25 s on an idle one


@pytest.mark.timeout(1800)   # four games of rendered frames, two at a time: a minute or two, more when loaded
def test_played_games_of_every_ruleset_end_on_the_rules_engines_scores(tmp_path):
    played = {r: play_game(r, hands=HANDS, seed=seed) for r, seed in GAMES.items()}
    played["sanma"] = players_sanma.play_game(hands=HANDS, seed=SANMA_SEED)
    scripts = {}
    for ruleset, game in played.items():
        scripts[ruleset] = tmp_path / f"{ruleset}.json"
        scripts[ruleset].write_text(json.dumps(game.script.to_json()), encoding="utf-8")
    # two games side by side: a daemon and its world take turns on a frame, so two keep both cores busy
    states = {r: state for r, (_demo, state) in play_batches(scripts, tmp_path, at_once=AT_ONCE,
                                                              finish_s=FINISH_S).items()}
    for ruleset, game in played.items():
        state = states[ruleset]
        assert state["ruleset"] == ruleset and state["alerts"] == [], (ruleset, state["alerts"])
        assert [h["outcome"] for h in state["hands"]] == [r["outcome"] for r in game.results], ruleset
        assert [list(h["deltas"]) for h in state["hands"]] == [r["deltas"] for r in game.results], ruleset
        assert [s["score"] for s in state["seats"]] == game.final_scores, ruleset
