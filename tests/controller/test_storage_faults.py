"""The event store under faults: a WAL the main file lags behind, a read-only disk, a folder that
cannot be made, bad bytes in a payload, a tail lost from the WAL, single bit flips anywhere."""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
import sys

import pytest

from controller.storage import DB_NAME, ChainBroken, EventStore, LostTail, StorageError
from controller.storage_head import HEAD_NAME, read_head
from tests.controller.mounts import remount, tmpfs

WAL = DB_NAME + "-wal"


def refusal(proc) -> str:
    """The one-line refusal of a start (exit 2, no traceback): the ``tablectl:`` line of stderr."""
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("tablectl")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def tablectl(*args):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=120)


def grow(store: EventStore, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        kind = ("mcu.dice_result", "vision.discard", "alert")[i % 3]
        store.append("test", kind, {"i": i, "tile": "5m", "note": "x" * (i % 50)})


def live_copy(src, dst, *, n: int = 60, checkpoint_at: int | None = None):
    """A log of ``n`` events whose newest pages are still in the WAL, as a crash leaves it:
    built in ``src`` with automatic checkpoints off, its files copied to ``dst`` while open."""
    store = EventStore.open(src)
    store._conn.execute("PRAGMA wal_autocheckpoint=0")
    grow(store, checkpoint_at or 0)
    if checkpoint_at is not None:
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    grow(store, n - (checkpoint_at or 0), checkpoint_at or 0)
    dst.mkdir(parents=True, exist_ok=True)
    for name in (DB_NAME, WAL, HEAD_NAME):
        shutil.copyfile(src / name, dst / name)
    events = [(e.seq, e.kind, e.payload) for e in store.events()]
    store.close()
    return events


def stored(folder):
    store = EventStore.open(folder, create=False, read_only=True, verify=False)
    try:
        return [(e.seq, e.kind, e.payload) for e in store.events()]
    finally:
        store.close()


def test_a_main_file_shorter_than_its_header_opens_when_the_wal_holds_the_pages(tmp_path):
    """Issue 13.1: a checkpoint that wrote page 1 and then found the disk full."""
    events = live_copy(tmp_path / "src", tmp_path / "db")
    wal = (tmp_path / "db" / WAL).read_bytes()
    page_size = struct.unpack(">I", wal[8:12])[0]
    page1 = None
    for off in range(32, len(wal) - 24 - page_size + 1, 24 + page_size):
        if struct.unpack(">I", wal[off:off + 4])[0] == 1:
            page1 = wal[off + 24:off + 24 + page_size]
    assert page1 is not None
    (tmp_path / "db" / DB_NAME).write_bytes(page1)          # page 1 checkpointed, the rest not
    header_pages = struct.unpack(">I", page1[28:32])[0]
    assert header_pages * page_size > page_size              # the old pre-open check refused this

    store = EventStore.open(tmp_path / "db")
    assert [(e.seq, e.kind, e.payload) for e in store.events()] == events
    grow(store, 3, len(events))                              # and the table goes on
    store.close()
    assert len(stored(tmp_path / "db")) == len(events) + 3
    proc = tablectl("verify-log", "--data", str(tmp_path / "db"))
    assert proc.returncode == 0 and f"ok: {len(events) + 3} events" in proc.stdout


def test_a_payload_that_is_not_utf8_is_refused_by_its_row(tmp_path):
    store = EventStore.open(tmp_path)
    grow(store, 10)
    store.close()
    data = bytearray((tmp_path / DB_NAME).read_bytes())
    at = data.find(b'"i":6,')
    assert at > 0
    data[at + 1] = 0xC3                                        # 'i' becomes the start of a 2-byte sequence
    data[at + 2] = 0x28
    (tmp_path / DB_NAME).write_bytes(bytes(data))
    with pytest.raises(ChainBroken) as err:
        EventStore.open(tmp_path)
    assert err.value.seq == 7 and "not UTF-8" in str(err.value)
    proc = tablectl("verify-log", "--data", str(tmp_path))
    assert proc.returncode == 1 and "chain breaks at seq 7" in proc.stdout and "Traceback" not in proc.stderr
    assert "seq 7" in refusal(tablectl("run", "--data", str(tmp_path)))


def test_a_tail_lost_from_the_wal_is_told_apart_from_a_short_log(tmp_path):
    """Issue 13.5: one bad bit in a WAL frame; SQLite drops it and every later frame."""
    events = live_copy(tmp_path / "src", tmp_path / "db", n=60, checkpoint_at=20)
    wal = bytearray((tmp_path / "db" / WAL).read_bytes())
    page_size = struct.unpack(">I", wal[8:12])[0]
    frames = (len(wal) - 32) // (24 + page_size)
    at = 32 + (frames // 2) * (24 + page_size) + 24 + 100
    wal[at] ^= 0x10
    (tmp_path / "db" / WAL).write_bytes(bytes(wal))
    kept = stored(tmp_path / "db")
    assert 20 <= len(kept) < len(events) and kept == events[:len(kept)]   # SQLite itself is silent
    with pytest.raises(LostTail) as err:
        EventStore.open(tmp_path / "db")
    assert err.value.anchored_seq == len(events) and err.value.last_seq == len(kept)
    assert "lost" in str(err.value) and HEAD_NAME in str(err.value)
    proc = tablectl("verify-log", "--data", str(tmp_path / "db"))
    assert proc.returncode == 1 and proc.stdout.startswith("LOST TAIL:") and f"says seq {len(events)}" in proc.stdout
    assert "lost" in refusal(tablectl("run", "--data", str(tmp_path / "db")))


def test_a_log_short_by_a_lagging_anchor_is_fine_and_a_foreign_log_is_not(tmp_path):
    store = EventStore.open(tmp_path / "a")
    grow(store, 5)
    head5 = read_head(tmp_path / "a" / HEAD_NAME)
    grow(store, 1, 5)
    store.close()
    assert head5.seq == 5
    # a crash between the commit and the anchor write leaves the anchor one behind: fine
    slot = (tmp_path / "a" / HEAD_NAME).read_bytes()
    (tmp_path / "a" / HEAD_NAME).write_bytes(slot[128:256] + slot[128:256])
    assert read_head(tmp_path / "a" / HEAD_NAME).seq == 5
    EventStore.open(tmp_path / "a").close()
    # another log of the same length under this anchor: refused
    store = EventStore.open(tmp_path / "b")
    grow(store, 6, 100)
    store.close()
    shutil.copyfile(tmp_path / "a" / HEAD_NAME, tmp_path / "b" / HEAD_NAME)
    with pytest.raises(StorageError, match="not the one its head anchor"):
        EventStore.open(tmp_path / "b")


def test_a_folder_that_cannot_be_made_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StorageError, match="cannot be made"):
        EventStore.open(tmp_path / "file" / "data")
    assert "cannot be made" in refusal(tablectl("run", "--data", str(tmp_path / "file" / "data")))
    proc = tablectl("verify-log", "--data", str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr


@pytest.mark.parametrize("left_open", [False, True], ids=["closed-cleanly", "wal-left-by-a-crash"])
def test_a_healthy_log_on_a_read_only_disk_is_read_not_called_corrupt(tmp_path, left_open):
    with tmpfs("8m") as mnt:
        data = mnt / "data"
        if left_open:
            events = live_copy(tmp_path / "src", data, n=30)
            (data / (DB_NAME + "-shm")).unlink(missing_ok=True)
        else:
            store = EventStore.open(data)
            grow(store, 30)
            events = [(e.seq, e.kind, e.payload) for e in store.events()]
            store.close()
        remount(mnt, ro=True)
        try:
            proc = tablectl("verify-log", "--data", str(data))
            assert proc.returncode == 0 and "ok: 30 events, chain intact" in proc.stdout, proc.stdout + proc.stderr
            assert stored(data) == events
            with pytest.raises(StorageError, match="read-only") as err:
                EventStore.open(data)
            assert "corrupt" not in str(err.value)
            assert "read-only" in refusal(tablectl("run", "--data", str(data)))
        finally:
            remount(mnt, ro=False)


# -- single bit flips over the log -----------------------------------------------------------

def _outcome(folder, original) -> str:
    """'refused', 'lost tail' or 'unchanged'; anything else fails the test."""
    try:
        store = EventStore.open(folder)
    except LostTail as err:
        assert "\n" not in str(err)
        return "lost tail"
    except StorageError as err:
        text = str(err)
        assert "\n" not in text and str(folder) in text, text
        return "refused"
    try:
        got = [(e.seq, e.kind, e.payload) for e in store.events()]
    finally:
        store.close()
    assert got == original, "a bit flip changed the log and nothing said so"
    return "unchanged"


def test_single_bit_flips_are_refused_by_name_or_shown_as_a_lost_tail(tmp_path):
    events = live_copy(tmp_path / "src", tmp_path / "pristine", n=80, checkpoint_at=50)
    files = {name: (tmp_path / "pristine" / name).read_bytes() for name in (DB_NAME, WAL)}
    rng = random.Random(1313)
    seen: dict[str, int] = {}
    payload_refusals = 0
    trials = 600
    for k in range(trials):
        name = DB_NAME if k % 2 == 0 else WAL
        data = bytearray(files[name])
        if k % 6 < 2:     # aim a third of the flips at the rows' bytes themselves
            at = data.find(b'"note":"', rng.randrange(len(data)))
            at = at + rng.randrange(8) if at > 0 else rng.randrange(len(data))
        else:
            at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
        folder = tmp_path / f"flip{k}"
        shutil.copytree(tmp_path / "pristine", folder)
        (folder / name).write_bytes(bytes(data))
        result = _outcome(folder, events)
        seen[result] = seen.get(result, 0) + 1
        if result == "refused" and name == DB_NAME and k % 6 < 2:
            payload_refusals += 1
        shutil.rmtree(folder)
    print("bit flips:", seen, "payload refusals", payload_refusals)
    assert sum(seen.values()) == trials
    assert seen.get("refused", 0) > 50 and seen.get("lost tail", 0) > 50, seen
    assert payload_refusals > 20, seen
