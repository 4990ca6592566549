"""The table daemon (a real ``tablectl run`` process) publishing to a real Mosquitto, seen by the parlour."""

from __future__ import annotations

import json
import time

from controller.parlour import views
from tests.integration.daemonproc import DaemonProc, write_config
from tests.parlour.conftest import PARLOUR, PASSWORDS, wait_for

KEEPALIVE_S = 2


def _board(parlour) -> dict:
    c = parlour.store.reader()
    try:
        return {t["table"]: t for t in views.board(c)}
    finally:
        c.close()


def _event_seqs(parlour, table: str) -> list[int]:
    c = parlour.store.reader()
    try:
        return [r[0] for r in c.execute("SELECT event_seq FROM messages WHERE tbl=? AND type IN ('event', 'alert', "
                                        "'fault') ORDER BY event_seq", (table,))]
    finally:
        c.close()


def test_a_daemon_publishes_its_events_and_state_and_a_killed_one_shows_offline(tmp_path, broker, parlour):
    data = tmp_path / "t1"
    config = write_config(tmp_path / "t1.toml", data=data, panel=False, script="", speed=200.0, extra=f"""
[table]
name = "t1"
[mqtt]
enabled = true
port = {broker.port}
parlour = "{PARLOUR}"
username = "t1"
password = "{PASSWORDS['t1']}"
keepalive_s = {KEEPALIVE_S}
state_interval_s = 0.1
""")
    daemon = DaemonProc(config)
    try:
        wait_for(lambda: _board(parlour).get("t1", {}).get("online"), timeout_s=120, what="t1 online on the board")
        wait_for(lambda: len(_event_seqs(parlour, "t1")) > 200, timeout_s=120, what="t1's events")
        wait_for(lambda: (_board(parlour)["t1"].get("state") or {}).get("seats"), what="t1's live state")
        assert _board(parlour)["t1"]["client_id"].startswith("jantaku-t1-")
        daemon.kill9()
        t_kill = time.monotonic()
        wait_for(lambda: not _board(parlour)["t1"]["online"], timeout_s=60, what="t1 offline")
        offline_after_s = time.monotonic() - t_kill
    finally:
        daemon.stop()
    # the broker sends the Last Will 1.5 keep-alives after the last packet; a little slack for a loaded machine
    assert offline_after_s <= 1.5 * KEEPALIVE_S + 2.0, offline_after_s
    # every event the daemon committed reached the parlour once, in the log's order, no gaps
    from controller.storage import EventStore
    store = EventStore.open(data, create=False)
    try:
        committed = store.last_seq
        head = store.head_hash
    finally:
        store.close()
    # (the last events may still sit in the killed table's outbox: they go out on its next start)
    got = _event_seqs(parlour, "t1")
    assert got == list(range(got[0], got[0] + len(got))) and len(got) == len(set(got))
    restarted = DaemonProc(config)
    try:
        wait_for(lambda: len(_event_seqs(parlour, "t1")) >= committed - got[0] + 1, timeout_s=120,
                 what="the outbox's rest after the restart")
    finally:
        restarted.stop()
    got = _event_seqs(parlour, "t1")
    assert got[: committed - got[0] + 1] == list(range(got[0], committed + 1))
    c = parlour.store.reader()
    body = json.loads(c.execute("SELECT body FROM messages WHERE tbl='t1' AND type IN ('event', 'alert', 'fault') "
                        "AND event_seq=?", (committed,)).fetchone()[0])
    c.close()
    assert body["head"] == {"seq": committed, "hash": head}


def test_a_finished_game_becomes_a_tenhou_record_at_the_parlour_equal_to_the_tables_own(tmp_path, broker, parlour):
    from controller.daemon_export import export_games
    from controller.parlour import views
    from controller.storage import EventStore
    data = tmp_path / "t2"
    config = write_config(tmp_path / "t2.toml", data=data, panel=False, script="", speed=400.0, extra=f"""
[table]
name = "t2"
[mqtt]
enabled = true
port = {broker.port}
parlour = "{PARLOUR}"
username = "t2"
password = "{PASSWORDS['t2']}"
state_interval_s = 0.2
""")
    daemon = DaemonProc(config)

    def made() -> list:
        c = parlour.store.reader()
        try:
            return [g for g in views.games(c) if g["record"] or g["record_error"]]
        finally:
            c.close()
    try:
        games = wait_for(made, timeout_s=300, what="a finished game with its record at the parlour")
    finally:
        daemon.stop()
    store = EventStore.open(data, create=False)
    try:
        own = export_games(store)
    finally:
        store.close()
    game = games[0]
    assert game["record_error"] is None
    assert game["record"]["log"] == own[0]["log"] and game["record"]["name"] == own[0]["name"]
    assert game["settlement"] and len(game["scores"]) == 4
    c = parlour.store.reader()
    try:
        stats = views.stats(c)["t2"]
    finally:
        c.close()
    assert stats["games"] >= 1 and stats["hands"] >= len(own[0]["log"])


def test_a_daemon_whose_broker_is_down_keeps_playing_and_keeps_its_messages_in_the_outbox(tmp_path):
    import json as json_
    import sqlite3
    import urllib.request

    from tests.fixtures.mosquitto import free_port
    data = tmp_path / "t3"
    config = write_config(tmp_path / "t3.toml", data=data, script="", speed=200.0, extra=f"""
[table]
name = "t3"
[mqtt]
enabled = true
port = {free_port()}
parlour = "{PARLOUR}"
username = "t3"
password = "x"
""")
    daemon = DaemonProc(config)
    try:
        url = daemon.wait_ready(timeout_s=120)

        def hand_index() -> int:
            with urllib.request.urlopen(url + "api/state", timeout=30) as resp:
                return json_.loads(resp.read())["hand_index"]

        def pending() -> int:
            with sqlite3.connect(f"file:{data / 'outbox.sqlite'}?mode=ro", uri=True, timeout=10) as c:
                return c.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
        wait_for(lambda: hand_index() >= 2, timeout_s=120, what="the game going on without a broker")
        wait_for(lambda: pending() > 100, what="the messages waiting in the outbox")
    finally:
        assert daemon.stop() == 0                    # and it stops cleanly, the broker still away
