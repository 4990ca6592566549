"""End to end (issue 16 item 3): games of ``hk``, ``chinese`` and ``competition`` played by the
seeded simulated players (``hardware.sim.players_fan``), and of ``sanma`` (three-player riichi,
``hardware.sim.players_sanma``), are acted out physically by ``tablectl demo --script`` (the
daemon with the simulated MCU on a pty, the mock seat buttons and the camera; the error-free
camera, since the rendered camera's reader has no flower reading yet) and end on the scores the
rules engine gives for the script, worked out by the players.
"""

from __future__ import annotations

import json

from hardware.sim import players_sanma
from hardware.sim.players_fan import play_game
from tests.integration.test_e2e_demo import Demo

GAMES = {"hk": 0, "chinese": 2, "competition": 0}
SANMA_SEED = 0
HANDS = 4


def test_played_games_of_every_ruleset_end_on_the_rules_engines_scores(tmp_path):
    played = {r: play_game(r, hands=HANDS, seed=seed) for r, seed in GAMES.items()}
    played["sanma"] = players_sanma.play_game(hands=HANDS, seed=SANMA_SEED)
    demos = {}
    for ruleset, game in played.items():
        path = tmp_path / f"{ruleset}.json"
        path.write_text(json.dumps(game.script.to_json()), encoding="utf-8")
        demos[ruleset] = Demo(path, tmp_path / ruleset, camera="perfect")
    states = {}
    try:
        for demo in demos.values():
            demo.ready()
        for ruleset, demo in demos.items():
            states[ruleset] = demo.wait_played()
    finally:
        for demo in demos.values():
            demo.terminate()
        for demo in demos.values():
            demo.stop()
    for ruleset, game in played.items():
        state = states[ruleset]
        assert state["ruleset"] == ruleset and state["alerts"] == [], (ruleset, state["alerts"])
        assert [h["outcome"] for h in state["hands"]] == [r["outcome"] for r in game.results], ruleset
        assert [list(h["deltas"]) for h in state["hands"]] == [r["deltas"] for r in game.results], ruleset
        assert [s["score"] for s in state["seats"]] == game.final_scores, ruleset
