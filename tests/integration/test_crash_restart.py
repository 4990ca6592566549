"""kill -9 of the daemon at 50 random points of a simulated game, restarting each time.

A deterministic scripted stream of table events (``[game] feed``, time-scaled) plays into
the daemon. One run goes through uninterrupted; the other is killed with SIGKILL at 50
random points (random event counts, plus a random fraction of an event's time, so kills
land before, inside and after commits) and restarted each time. The event logs and the
final table state (scores included) must be equal.
"""

from __future__ import annotations

import random
import sqlite3
import time

import httpx
import pytest

from controller import events as ev
from controller.daemon_parts import SAMPLE_GAME, write_feed
from controller.storage import DB_NAME, EventStore
from hardware.sim import script as sim_script
from tests.integration.daemonproc import DaemonProc, free_port, write_config

KILLS = 50
DELAY_S = 0.002


def scripted_game(hands: int = 3) -> list[tuple[float, ev.Event]]:
    """The first hands of the packaged recorded game, as the simulated table reports them."""
    script = sim_script.load_script(str(SAMPLE_GAME))
    script.hands = script.hands[:hands]
    return [(DELAY_S, e) for e in sim_script.events_of(script)]


def stored(data):
    store = EventStore.open(data, create=False)
    try:
        return [(e.seq, e.source, e.src_seq, e.kind, e.payload) for e in store.events()]
    finally:
        store.close()


def count(data) -> int:
    try:
        conn = sqlite3.connect(f"file:{data / DB_NAME}?mode=ro", uri=True, timeout=5)
    except sqlite3.OperationalError:
        return 0
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def wait_count(data, target: int, proc: DaemonProc, timeout_s: float = 60.0) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        n = count(data)
        if n >= target:
            return n
        if proc.proc.poll() is not None:
            raise AssertionError(f"daemon died on its own: {''.join(proc.stderr)[-2000:]}")
        time.sleep(0.001)
    raise AssertionError(f"only {count(data)} of {target} events after {timeout_s} s")


def final_state(tmp, data, feed, n):
    cfg = write_config(tmp / f"final-{data.name}.toml", data=data, feed=str(feed), port=free_port())
    proc = DaemonProc(cfg)
    try:
        url = proc.wait_ready()
        wait_count(data, n, proc)
        time.sleep(0.05)
        state = httpx.get(f"{url}api/state", timeout=30).json()
    finally:
        assert proc.stop() == 0
    return state


@pytest.mark.slow
def test_kill9_at_50_random_points_equals_an_uninterrupted_run(tmp_path):
    feed = tmp_path / "game.jsonl"
    items = scripted_game()
    write_feed(feed, items)
    n = len(items)

    reference = final_state(tmp_path, tmp_path / "reference", feed, n)

    data = tmp_path / "crashed"
    cfg = write_config(tmp_path / "crash.toml", data=data, feed=str(feed), panel=False)
    rng = random.Random(7)
    targets = sorted(rng.sample(range(1, n - 1), KILLS))
    seen_counts = []
    for target in targets:
        proc = DaemonProc(cfg)
        proc.wait_ready()
        wait_count(data, target, proc)
        time.sleep(rng.uniform(0, DELAY_S))
        proc.kill9()
        seen_counts.append(count(data))
    assert len(seen_counts) == KILLS and seen_counts[-1] < n
    assert len(set(seen_counts)) > KILLS // 2  # the kills really landed at many different points

    crashed = final_state(tmp_path, data, feed, n)

    assert stored(data) and [r[1:] for r in stored(data)] == [r[1:] for r in stored(tmp_path / "reference")]
    assert [r[0] for r in stored(data)] == list(range(1, n + 1))
    assert crashed == reference
    scores = [s["score"] for s in crashed["seats"]]
    assert scores == [s["score"] for s in reference["seats"]]
    assert scores != [25000] * 4 and sum(scores) + 1000 * crashed["riichi_sticks"] == 100000
    assert crashed["hand_index"] >= 2  # the game really went on through the kills
