"""The daemon with its firmware part on the simulated MCU (a real process on a pty, real pyserial link):
a staff start drives the machine cycle through real MCU jobs; SIGTERM stops the simulator too."""

from __future__ import annotations

import os
import time

import httpx

from tests.integration.daemonproc import DaemonProc, free_port, write_config

TOKEN = "fw-token"


def wait_machine(url, states, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    seen = []
    while time.monotonic() < deadline:
        machine = httpx.get(f"{url}api/state", timeout=30).json()["machine"]
        if not seen or seen[-1] != machine["state"]:
            seen.append(machine["state"])
        if machine["state"] in states:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"machine never reached {states}; went through {seen}")


def test_start_game_runs_the_machine_cycle_on_the_simulated_mcu(tmp_path):
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN,
                       extra="[gpio]\npin_factory = 'mock'\n")
    cfg.write_text(cfg.read_text().replace('port = "off"', 'port = "sim"', 1))
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        status = httpx.get(f"{url}api/staff/status", headers=headers, timeout=30).json()
        fw = status["parts"]["firmware"]
        assert fw["simulated_mcu"] and fw["link"] == "up", status
        sim_pid = fw["sim_pid"]
        assert status["machine"]["state"] == "idle"
        res = httpx.post(f"{url}api/staff/start_game", headers=headers, timeout=30,
                         json={"ruleset": "tenhou", "players": ["A", "B", "C", "D"]})
        assert res.status_code == 200, res.text
        # StartGame -> close the centre opening -> lift the stacked set -> walls up, ready for the dice
        seen = wait_machine(url, {"ready", "halted"})
        assert seen[-1] == "ready", seen
        state = httpx.get(f"{url}api/state", timeout=30).json()
        assert state["machine"]["reason"] == ""
        status = httpx.get(f"{url}api/staff/status", headers=headers, timeout=30).json()
        assert status["parts"]["firmware"]["last_error"] == ""
    finally:
        assert proc.stop() == 0
    for _ in range(100):
        try:
            os.kill(sim_pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the simulated MCU (pid {sim_pid}) still runs after the daemon stopped")
