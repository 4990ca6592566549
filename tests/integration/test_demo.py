"""``tablectl demo --script FILE``: the simulated table plays a recorded game; the panel ends on its scores."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import httpx

from controller.daemon_parts import SAMPLE_GAME
from controller.rules import tenhou as TH
from controller.rules.replay import replay_game
from tests.integration.daemonproc import free_port


def test_demo_plays_a_recorded_game_to_its_final_scores(tmp_path):
    recorded = replay_game(TH.parse_log(json.loads(SAMPLE_GAME.read_text()), "sample"))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--script", str(SAMPLE_GAME),
                             "--speed", "max", "--port", str(port), "--data", str(tmp_path / "data"),
                             "--simulation", "events"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == f"panel: http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        state = {}
        while time.monotonic() < deadline:
            state = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=30).json()
            if state["finished"]:
                break
            time.sleep(0.2)
        assert state["finished"], state
        assert [s["score"] for s in state["seats"]] == recorded[-1]["scores_after"]
        assert state["hand_index"] == len(recorded) - 1
        assert state["last_result"]["deltas"] == recorded[-1]["deltas"]
        assert proc.poll() is None  # keeps serving after the game
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_demo_refuses_a_bad_script_and_a_bad_inject(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--script", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and str(bad) in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--script", str(SAMPLE_GAME),
                           "--inject", "sixth_tile@1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "sixth_tile" in proc.stderr


def test_demo_inject_reaches_the_simulated_table_and_is_caught(tmp_path):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--script", str(SAMPLE_GAME),
                             "--speed", "max", "--port", str(port), "--data", str(tmp_path / "data"),
                             "--simulation", "events", "--inject", "fifth_tile@1:2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("panel: ")
        deadline = time.monotonic() + 120
        alerts = []
        while time.monotonic() < deadline and not alerts:
            alerts = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=30).json()["alerts"]
            time.sleep(0.2)
        # the first alert is the injected one; it holds hand 2's result for staff (the event-level
        # players do not wait for the table and play on, which may name more while it is held)
        assert [(a["rule"], a["hand_index"], a["seat"]) for a in alerts][:1] == [("fifth_tile", 1, 2)]
        assert alerts[0]["tile"]
        state = httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=30).json()
        assert state["hand_index"] == 1 and "fifth tile" in (state["result_held"] or "")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
