"""Crash consistency in the SQLite manner: the database, its WAL and the head anchor copied at 50
random moments of a running game, as a power cut leaves them, and the table started from each.

The daemon (a real ``tablectl run`` process playing a scripted game from a feed) is frozen
with SIGSTOP at each moment, so that the copy holds the files exactly as they were at one
instant (a write cut short included), then let go on (SIGCONT). From every copy:

- the store opens (nothing refused: the log is not damaged, the anchor is never ahead);
- it holds a prefix of the events of the finished run, the chain intact;
- the game goes on: the remaining events taken from there end in the very same table state
  as the uninterrupted run (in-process for every copy, and with a real daemon for three).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time

import httpx
import pytest

from controller import config as config_mod
from controller import events as ev
from controller.daemon import Daemon
from controller.daemon_parts import write_feed
from controller.storage import DB_NAME, EventStore
from controller.storage_head import HEAD_NAME
from tests.integration.daemonproc import DaemonProc, free_port, write_config
from tests.integration.test_crash_restart import count, scripted_game, wait_count

MOMENTS = 50
FILES = (DB_NAME, DB_NAME + "-wal", HEAD_NAME)


def rows(folder):
    store = EventStore.open(folder, create=False)
    try:
        return [(e.seq, e.source, e.src_seq, e.kind, e.payload) for e in store.events()]
    finally:
        store.close()


def go_on(cfg, folder, full_log):
    """Open ``folder`` as the daemon does, replay it, take the rest of ``full_log``; the view after."""
    store = EventStore.open(folder, create=False)
    try:
        daemon = Daemon(cfg, store)
        n = daemon.rebuild()
        for seq, source, src_seq, _kind, payload in full_log[n:]:
            assert daemon.accept(source, ev.from_record(payload), src_seq) == seq
        daemon.publish()
        state = daemon.snapshot()
        state.pop("shown", None)       # what the last commands showed: not replayed (by design)
        return state, store.verify_chain()
    finally:
        store.close()


@pytest.mark.slow
def test_power_cut_copies_at_50_moments_all_start_and_go_on(tmp_path):
    items = [(0.01, e) for _d, e in scripted_game()]
    feed = tmp_path / "game.jsonl"
    write_feed(feed, items)
    n = len(items)
    data = tmp_path / "live"
    cfg_path = write_config(tmp_path / "live.toml", data=data, feed=str(feed), panel=False)
    proc = DaemonProc(cfg_path)
    proc.wait_ready()
    rng = random.Random(50)
    copies = []
    try:
        wait_count(data, 1, proc)
        for k in range(MOMENTS):
            time.sleep(rng.uniform(0.0, 0.09))
            os.kill(proc.proc.pid, signal.SIGSTOP)
            try:
                target = tmp_path / f"cut{k:02d}"
                target.mkdir()
                for name in FILES:
                    if (data / name).exists():
                        shutil.copyfile(data / name, target / name)
            finally:
                os.kill(proc.proc.pid, signal.SIGCONT)
            copies.append(target)
        wait_count(data, n, proc, timeout_s=120)
    finally:
        assert proc.stop() == 0
    full_log = rows(data)
    assert len(full_log) == n and count(data) == n

    cfg = config_mod.load(cfg_path)
    reference, _ = go_on(cfg, data, full_log)
    sizes = []
    for target in copies:
        kept = rows(target)                                   # opens: chain, payloads, anchor checked
        sizes.append(len(kept))
        assert kept == full_log[:len(kept)], target.name
        state, chained = go_on(cfg, target, full_log)
        assert chained == n and state == reference, target.name
    assert len(set(sizes)) > MOMENTS // 3 and min(sizes) < n, sizes   # the cuts landed at many points
    scores = [s["score"] for s in reference["seats"]]
    assert scores != [25000] * 4

    for target in rng.sample(copies, 3):                      # and a real daemon starts from a copy
        cfg3 = write_config(tmp_path / f"{target.name}.toml", data=target, feed=str(feed), port=free_port())
        again = DaemonProc(cfg3)
        try:
            url = again.wait_ready()
            wait_count(target, n, again, timeout_s=120)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                state = httpx.get(f"{url}api/state", timeout=30).json()
                if [s["score"] for s in state["seats"]] == scores:
                    break
                time.sleep(0.05)
            assert [s["score"] for s in state["seats"]] == scores
        finally:
            assert again.stop() == 0
        assert rows(target) == full_log
