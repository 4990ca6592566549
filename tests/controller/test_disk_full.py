"""A full disk: the table halts with a message, nothing stored is lost, it resumes once space is back.

On a small tmpfs (a real ``ENOSPC`` from the kernel) where this machine lets us mount one;
the in-process tests also run where it does not, with SQLite's own ``max_page_count`` limit,
which fails a write with the same ``SQLITE_FULL`` as a full disk.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time

import httpx
import pytest

from controller import config as config_mod
from controller import events as ev
from controller.daemon import Daemon, _Item
from controller.daemon_parts import write_feed
from controller.storage import DB_NAME, EventStore, StorageFull
from tests.controller.mounts import fill_up, tmpfs
from tests.integration.daemonproc import DaemonProc, free_port, write_config
from tests.integration.test_crash_restart import scripted_game


def _limit_pages(store: EventStore, extra: int) -> None:
    have = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={have + extra}")


def test_a_full_disk_refuses_the_write_and_keeps_the_store_whole():
    with tmpfs("2m") as mnt:
        store = EventStore.open(mnt / "data")
        for i in range(20):
            store.append("test", "vision.discard", {"i": i})
        store.release_reserve()
        filler = fill_up(mnt)
        with pytest.raises(StorageFull, match="disk full"):
            for i in range(20, 100000):
                store.append("test", "vision.discard", {"i": i, "pad": "p" * 2000})
        last = store.last_seq
        assert store.verify_chain() == last and store.head()[0] == last
        with pytest.raises(StorageFull):
            store.append("test", "vision.discard", {"i": -1, "pad": "p" * 2000})
        assert store.last_seq == last
        filler.unlink()
        assert store.append("test", "vision.discard", {"i": "after"}).seq == last + 1
        store.close()
        store = EventStore.open(mnt / "data")
        assert store.last_seq == last + 1 and store.verify_chain() == last + 1
        store.close()


def _daemon(tmp_path) -> Daemon:
    cfg = config_mod.load(write_config(tmp_path / "t.toml", data=tmp_path / "data", panel=False))
    return Daemon(cfg, EventStore.open(tmp_path / "data"))


def _feed(daemon: Daemon, events, start: int) -> None:
    for k, event in enumerate(events):
        daemon._handle(_Item("feed", event, start + k))


@pytest.mark.parametrize("reserve_helps", [True, False], ids=["halt-stored-in-reserve", "no-room-at-all"])
def test_the_daemon_halts_keeps_later_events_and_resumes_in_order(tmp_path, monkeypatch, reserve_helps):
    """In process, with SQLite's page limit standing in for the disk (runs everywhere); deleting
    the reserve gives a few pages back, as it does on a real disk, or (worst case) nothing."""
    monkeypatch.setattr("controller.daemon_disk.RETRY_S", 0.0)
    game = [e for _d, e in scripted_game(hands=1)]
    daemon = _daemon(tmp_path)
    store = daemon.store
    release = store.release_reserve

    def release_and_room():
        if reserve_helps:
            _limit_pages(store, 4)
        return release()
    monkeypatch.setattr(store, "release_reserve", release_and_room)
    _feed(daemon, game[:40], 1)
    _limit_pages(store, 0)
    k = 40
    while not daemon.disk.message:                            # the disk fills up from here
        before = [(e.seq, e.kind, e.payload) for e in store.events()]
        _feed(daemon, game[k:k + 1], k + 1)
        k += 1
    _limit_pages(store, 0)                                    # whatever room the reserve gave is used up
    _feed(daemon, game[k:k + 20], k + 1)
    k += 20
    assert daemon.disk.message.startswith("disk full")
    view = daemon.hub.state
    assert view["machine"]["state"] == "halted" and "disk full" in view["machine"]["reason"]
    stored = [(e.seq, e.kind, e.payload) for e in store.events()]
    assert stored[:len(before)] == before                     # nothing stored is lost
    halt_rows = [kind for _s, kind, _p in stored[len(before):]]
    assert halt_rows == (["mcu.fault"] if reserve_helps else [])   # the halt, in the reserve's room
    assert store.verify_chain() == len(stored)
    assert len(daemon.disk.backlog) == 21                      # kept in order, not applied
    loop = asyncio.new_event_loop()
    try:                                                       # a staff request is refused meanwhile
        item = _Item("panel", ev.Reset(reason="try", now=0.0), None, loop.create_future())
        daemon._handle(item)
        assert isinstance(item.future.exception(), StorageFull)
    finally:
        loop.close()
    daemon.disk.tick()
    assert daemon.disk.message and daemon.disk.backlog        # still (nearly) full: stays halted
    store._conn.execute("PRAGMA max_page_count=1073741823")    # space is back
    daemon.disk.tick()
    assert not daemon.disk.message and not daemon.disk.backlog
    rows = list(store.events())
    assert rows[len(before)].kind == "mcu.fault" and rows[len(before)].payload["code"] == "disk_full"
    assert rows[-1].kind == "staff.reset" and rows[-1].source == "storage"
    assert [e.src_seq for e in rows if e.source == "feed"] == list(range(1, k + 1))  # each once, in order
    assert "disk" not in daemon.hub.state["machine"]["reason"]
    _feed(daemon, game[k:], k + 1)                             # the game goes on
    assert not daemon.disk.message and store.verify_chain() == store.last_seq
    assert daemon.core.applied == store.last_seq
    store.close()


def _get(url, path, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"{url}{path}", headers=headers, timeout=30)


def _wait(pred, what, proc, timeout_s=90.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        assert proc.proc.poll() is None, f"daemon exited: {''.join(proc.stderr)[-2000:]}"
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _count(data):
    conn = sqlite3.connect(f"file:{data / DB_NAME}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.slow
def test_a_real_daemon_on_a_full_tmpfs_halts_and_resumes(tmp_path):
    items = [(0.01, e) for _d, e in scripted_game(hands=2)]
    feed = tmp_path / "game.jsonl"
    write_feed(feed, items)
    with tmpfs("6m") as mnt:
        data = mnt / "data"
        cfg = write_config(tmp_path / "t.toml", data=data, feed=str(feed), port=free_port(), token="tok")
        proc = DaemonProc(cfg)
        try:
            url = proc.wait_ready()
            _wait(lambda: _count(data) > 60, "the game to be under way", proc)
            filler = fill_up(mnt)
            state = _wait(lambda: (s := _get(url, "api/state").json())["machine"]["state"] == "halted" and s,
                          "the halt", proc)
            assert state["machine"]["reason"].startswith("disk full")
            status = _get(url, "api/staff/status", "tok").json()
            assert status["disk"]["full"] and status["machine"]["state"] == "halted"
            refused = httpx.post(f"{url}api/staff/reset", json={"reason": "x"},
                                 headers={"Authorization": "Bearer tok"}, timeout=30)
            assert refused.status_code == 503 and "disk full" in refused.json()["error"]
            halted_at = _count(data)
            time.sleep(0.5)
            assert _count(data) == halted_at                   # nothing more is stored while full
            filler.unlink()
            _wait(lambda: not _get(url, "api/staff/status", "tok").json()["disk"]["full"], "the resume", proc)
            _wait(lambda: _count(data) >= len(items) + 2, "the rest of the game", proc)
        finally:
            assert proc.stop() == 0
        store = EventStore.open(data, create=False)
        try:
            rows = list(store.events())
            assert [e.src_seq for e in rows if e.source == "feed"] == list(range(1, len(items) + 1))
            faults = [e for e in rows if e.kind == "mcu.fault"]
            assert faults and faults[0].payload["code"] == "disk_full"
            assert any(e.kind == "staff.reset" and e.source == "storage" for e in rows)
        finally:
            store.close()
