"""The default table killed mid-hand and started again goes on in the same hand (issue 12).

``tablectl run`` on the embedded default (the simulated table acting out the packaged game,
met by the daemon's own firmware, GPIO and camera parts; its players at full speed) is killed with SIGKILL in the middle
of its second hand, world and all, and started again on the same data folder. The daemon
replays its log and tells the new world where the game stands; the players lay the table out
again and go on: ``/api/state`` shows the same hand with the same scores (the hand's start, less
the riichi sticks put down in it), the next discards
arrive, no alert is raised over the tiles that were already on the table, and the hand ends
on the recorded scores.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from controller.daemon_parts import SAMPLE_GAME
from hardware.sim import script as sim_script
from tests.integration.daemonproc import DaemonProc, free_port

ROOT = Path(__file__).resolve().parents[2]


def default_config(path: Path, *, data: Path, port: int) -> Path:
    """The embedded default (hardware/table.toml) with its own data folder and panel port, its
    players at full speed."""
    text = (ROOT / "hardware" / "table.toml").read_text(encoding="utf-8")
    text = text.replace('data_dir = ""', f'data_dir = "{data}"', 1)
    text = text.replace("port = 8080", f"port = {port}", 1).replace("port_fallback = true", "port_fallback = false", 1)
    text = text.replace('token = ""', 'token = "test-token"', 1)
    # the players as fast as the camera takes their moves (its frames, not a human's pace, set the
    # game's clock: FRAMES_PER_CHANGE frames of each change): the same parts, hands in seconds
    text = text.replace("speed = 1.0 ", "speed = 0.0 ", 1)
    assert "\nspeed = 0.0 " in text, "hardware/table.toml: no [game] speed line to set"
    path.write_text(text, encoding="utf-8")
    return path


def state(url: str) -> dict:
    return httpx.get(f"{url}api/state", timeout=60).json()


def discards(s: dict) -> int:
    return sum(len(seat.get("discards") or []) for seat in s["seats"])


def deposits(s: dict, start: list[int]) -> list[int]:
    """Each seat's riichi stick put down in this hand, from its score against the hand's ``start``
    (a riichi seat's stick goes down once nobody won on its discard): 0 or 1 each, and 1 only for
    a seat in riichi. Play at full speed may have had a riichi since the state was read."""
    down = [(a - seat["score"]) // 1000 for a, seat in zip(start, s["seats"], strict=True)]
    assert all(d in (0, 1) and (d == 0 or seat["riichi"]) for d, seat in zip(down, s["seats"], strict=True)), \
        (start, s["seats"])
    assert [seat["score"] + 1000 * d for d, seat in zip(down, s["seats"], strict=True)] == start, (start, s["seats"])
    return down


def wait_for(url: str, proc: DaemonProc, what: str, cond, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    last: dict = {}
    while time.monotonic() < deadline:
        if proc.proc.poll() is not None:
            raise AssertionError(f"daemon ended while waiting for {what}: {''.join(proc.stderr)[-3000:]}")
        try:
            last = state(url)
        except httpx.HTTPError:
            time.sleep(1.0)
            continue
        if cond(last):
            return last
        time.sleep(0.5)
    raise AssertionError(f"no {what} after {timeout_s:.0f} s; last: hand {last.get('hand_index')} "
                         f"{last.get('phase')} discards {discards(last) if last else '?'} machine {last.get('machine')}"
                         f"\n{''.join(proc.stderr)[-3000:]}")


@pytest.mark.slow
@pytest.mark.timeout(2400)      # every frame rendered and read by the model: a loaded machine is slow
def test_killed_mid_hand_the_default_table_goes_on_in_the_same_hand(tmp_path):
    script = sim_script.load_script(str(SAMPLE_GAME))
    data = tmp_path / "data"
    port = free_port()
    cfg = default_config(tmp_path / "table.toml", data=data, port=port)

    first = DaemonProc(cfg)
    try:
        url = first.wait_ready(600)
        before = wait_for(url, first, "the second hand under way",
                          lambda s: s["hand_index"] == 1 and s["phase"] == "play" and discards(s) >= 8, 1500)
        start = list(script.hands[1].scores)        # the hand's recorded start, the first hand's result in
        assert start != [25000] * 4
        carried = before["riichi_sticks"] - sum(deposits(before, start))
    finally:
        first.kill9()          # mid-hand: the world and its MCU go with the daemon
    alerts_before = len(before["alerts"])

    second = DaemonProc(cfg)
    try:
        url = second.wait_ready(600)
        again = state(url)
        # the same hand, the same scores, the table as it was (a discard, even a riichi, may have come
        # in between)
        assert (again["hand_index"], again["round"], again["honba"]) == (1, before["round"], before["honba"])
        assert again["riichi_sticks"] - sum(deposits(again, start)) == carried
        assert all(now["riichi"] for was, now in zip(before["seats"], again["seats"], strict=True) if was["riichi"])
        assert discards(again) >= discards(before)
        for was, now in zip(before["seats"], again["seats"], strict=True):
            tiles = [d["tile"] for d in was["discards"]]
            assert [d["tile"] for d in now["discards"]][:len(tiles)] == tiles
        # play goes on: the next discards arrive, read from the table laid out again
        n = discards(again)
        wait_for(url, second, "the next discards", lambda s: s["hand_index"] > 1 or discards(s) >= n + 4, 900)
        # the hand ends as recorded, the next one begins, nothing seen twice
        after = wait_for(url, second, "the next hand", lambda s: s["hand_index"] >= 2 and s["phase"] == "play", 1200)
        deposits(after, list(script.hands[2].scores))
        assert len(after["alerts"]) == alerts_before, after["alerts"]
        assert after["machine"]["state"] != "halted", after["machine"]
    finally:
        assert second.stop(60) == 0
