"""``tablectl export``: finished games from the event log as tenhou.net/6 JSON that replays to the same scores."""

import json
import subprocess
import sys

from controller import events as ev
from controller.daemon_export import export_games
from controller.daemon_parts import SAMPLE_GAME
from controller.rules import tenhou as TH
from controller.rules.replay import replay_hand
from controller.rules.ruleset import load as load_rules
from controller.storage import EventStore
from hardware.sim import script as sim_script


def stored_game(folder, hands=None):
    script = sim_script.load_script(str(SAMPLE_GAME))
    if hands is not None:
        script.hands = script.hands[:hands]
    store = EventStore.open(folder, synchronous="normal")
    for event in sim_script.events_of(script):
        store.append("sim-table", event.KIND, ev.to_record(event))
    return store


def test_export_of_a_finished_game_replays_to_the_recorded_scores(tmp_path):
    store = stored_game(tmp_path)
    games = export_games(store)
    assert len(games) == 1
    exported = games[0]
    recorded = json.loads(SAMPLE_GAME.read_text())
    assert len(exported["log"]) == len(recorded["log"])
    game = TH.parse_log(json.loads(json.dumps(exported)), "export")
    rules = load_rules("tenhou")
    for hand, rec in zip(game.hands, recorded["log"], strict=True):
        out = replay_hand(hand, rules, source="export")
        assert hand.scores == tuple(rec[1])
        assert out["deltas"] == rec[-1][1]  # the replay of our export pays what the table recorded


def test_unfinished_game_is_not_exported(tmp_path):
    store = stored_game(tmp_path, hands=3)
    assert export_games(store) == []


def test_export_command_writes_json_lines(tmp_path):
    stored_game(tmp_path / "data").close()
    out = tmp_path / "games.jsonl"
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "export", "--data", str(tmp_path / "data"),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "exported 1 finished game" in proc.stderr
    game = json.loads(out.read_text().splitlines()[0])
    assert set(game) >= {"title", "name", "rule", "log"} and len(game["log"]) == 10
