import json
import sqlite3
import subprocess
import sys

import pytest

from controller.storage import DB_NAME, ChainBroken, EventStore, StorageError


def fill(folder, n=20):
    store = EventStore.open(folder)
    for i in range(n):
        kind = ("mcu.dice_result", "vision.discard", "alert")[i % 3]
        store.append("test", kind, {"i": i, "tile": "5m"})
    store.close()


def tamper(folder, sql):
    """Edit the database behind the store's back (as an attacker with file access would)."""
    conn = sqlite3.connect(folder / DB_NAME)
    conn.executescript("DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete;" + sql)
    conn.close()


def tablectl(*args):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=60)


def test_events_survive_reopen_in_order(tmp_path):
    fill(tmp_path, 10)
    store = EventStore.open(tmp_path)
    events = list(store.events())
    assert [e.seq for e in events] == list(range(1, 11))
    assert [e.payload["i"] for e in events] == list(range(10))
    assert store.verify_chain() == 10
    store.close()


def test_journal_is_wal(tmp_path):
    fill(tmp_path, 1)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_resent_source_frame_is_stored_once(tmp_path):
    store = EventStore.open(tmp_path)
    assert store.append("mcu", "mcu.lift_done", {"counts": [34] * 4}, src_seq=7) is not None
    assert store.append("mcu", "mcu.lift_done", {"counts": [34] * 4}, src_seq=7) is None
    assert store.append("gpio", "button", {"seat": 0}, src_seq=7) is not None
    assert store.last_seq == 2 and store.last_src_seq("mcu") == 7


def test_events_are_append_only(tmp_path):
    fill(tmp_path, 3)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET payload='{}' WHERE seq=2")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events WHERE seq=3")


@pytest.mark.parametrize("sql, seq, words", [
    ("UPDATE events SET payload='{\"i\":99,\"tile\":\"5m\"}' WHERE seq=7;", 7, "changed"),
    ("DELETE FROM events WHERE seq=12;", 12, "missing"),
    ("UPDATE events SET kind='staff.reset' WHERE seq=4;", 4, "changed"),
    ("UPDATE events SET prev_hash='00' WHERE seq=15;", 15, "prev_hash"),
], ids=["payload-edited", "row-deleted", "kind-edited", "link-edited"])
def test_chain_names_the_first_broken_row(tmp_path, sql, seq, words):
    fill(tmp_path, 20)
    tamper(tmp_path, sql)
    with pytest.raises(ChainBroken) as err:
        EventStore.open(tmp_path)
    assert err.value.seq == seq and words in str(err.value)
    proc = tablectl("verify-log", "--data", str(tmp_path))
    assert proc.returncode == 1
    assert f"chain breaks at seq {seq}" in proc.stdout


def test_verify_log_says_ok_for_an_intact_chain(tmp_path):
    fill(tmp_path, 5)
    proc = tablectl("verify-log", "--data", str(tmp_path))
    assert proc.returncode == 0 and "ok: 5 events" in proc.stdout


def test_empty_file_is_not_silently_reset(tmp_path):
    fill(tmp_path, 5)
    for suffix in ("-wal", "-shm"):
        (tmp_path / (DB_NAME + suffix)).unlink(missing_ok=True)
    (tmp_path / DB_NAME).write_bytes(b"")
    with pytest.raises(StorageError, match="too short"):
        EventStore.open(tmp_path)
    assert (tmp_path / DB_NAME).stat().st_size == 0  # left as found


def _checkpointed(folder, n):
    fill(folder, n)
    conn = sqlite3.connect(folder / DB_NAME)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    return (folder / DB_NAME).read_bytes()


def test_truncated_file_is_refused(tmp_path):
    data = _checkpointed(tmp_path, 400)
    assert len(data) > 8192
    (tmp_path / DB_NAME).write_bytes(data[: len(data) // 2])
    with pytest.raises(StorageError, match="truncated"):
        EventStore.open(tmp_path)


def test_corrupted_pages_are_refused(tmp_path):
    data = bytearray(_checkpointed(tmp_path, 400))
    for at in range(4096, len(data), 4096):  # scribble on every page but the first
        data[at + 8: at + 200] = b"\xa5" * 192
    (tmp_path / DB_NAME).write_bytes(bytes(data))
    with pytest.raises(StorageError, match="corrupt|refusing"):
        EventStore.open(tmp_path)


def test_other_database_is_refused(tmp_path):
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("CREATE TABLE notes(x)")
    conn.commit()
    conn.close()
    with pytest.raises(StorageError, match="not a jantaku event store"):
        EventStore.open(tmp_path)


def test_daemon_refuses_to_start_on_a_corrupt_database(tmp_path):
    data = _checkpointed(tmp_path, 400)
    (tmp_path / DB_NAME).write_bytes(data[: len(data) - 5000])
    proc = tablectl("run", "--data", str(tmp_path), "--port", "0")
    assert proc.returncode == 2
    assert "refusing to start" in proc.stderr and str(tmp_path / DB_NAME) in proc.stderr
    assert "panel:" not in proc.stdout
    assert len((tmp_path / DB_NAME).read_bytes()) == len(data) - 5000  # untouched


def test_evidence_is_rotated_within_budget_but_events_never(tmp_path):
    store = EventStore.open(tmp_path, evidence_budget_mb=1.0)
    names = []
    for i in range(8):
        seq = store.append("integrity", "alert", {"rule": "fifth_tile", "i": i}).seq
        names.append(store.save_evidence(seq, "fifth_tile", bytes([i]) * 300_000))
    kept = [n for n in names if store.evidence_path(n) is not None]
    assert kept == names[-3:]  # 3 x 300 kB fit in 1 MiB; the oldest went first
    total = sum(p.stat().st_size for p in store.evidence_dir.glob("*.jpg"))
    assert total <= 1024 * 1024
    assert store.last_seq == 8 and store.verify_chain() == 8
    assert json.loads(json.dumps([e.payload for e in store.events()]))[0]["i"] == 0
