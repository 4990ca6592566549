"""The table's event store: SQLite (WAL), append-only, hash-chained.

Every accepted event is one row of ``events``, committed before the daemon applies or shows
it; on start the whole state is rebuilt by replaying the rows in order. Rows are never
updated or deleted (triggers refuse it), and each row stores ``hash = sha256(prev_hash +
canonical JSON of the row)``, so the log of dice, deals and scores (and every other event)
forms one chain: a later edit, insertion or deletion breaks it at a row that
``verify_chain`` names. Events that a part delivers with its own sequence number
(``src_seq``) are stored once per (source, src_seq): a re-sent frame is not a new event.

Evidence frames (JPEG pictures of alerts) are files beside the database, within a disk
budget: past it the oldest are deleted. Events are never rotated.

Opening checks the log by reading it: SQLite opens the file with its WAL (pages not yet
checkpointed live there, so the main file may be shorter than its header says), runs
``quick_check``, compares the schema, then reads every row back and checks the chain and each
payload (``verify_chain``). A database that is damaged, truncated or not ours stops the start
with a one-line ``StorageError`` that names the first bad row where one can be named; nothing
is ever reset silently. The chain's head is anchored outside the log (``events.head``, see
``controller.storage_head``): a log that ends before its anchor lost its tail (``LostTail``).

A read-only data folder is named as such; ``open(read_only=True)`` (``verify-log``) reads a log
there. A full disk raises ``StorageFull`` from ``append`` (the store unchanged); the daemon
halts the table until space is back, using the small ``events.reserve`` file it keeps beside
the log as room to record the halt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.storage_checks import (
    ChainBroken,
    LostTail,
    StorageError,
    StorageFull,
    _check_file,
    _folder_problem,
    _is_full,
    _size_note,
    connect_read_only,
)
from controller.storage_head import HEAD_NAME, Head, HeadAnchor, read_head

log = logging.getLogger(__name__)

APP_ID = "jantaku-events"
SCHEMA_VERSION = 1
GENESIS = "0" * 64
DB_NAME = "events.sqlite"
EVIDENCE_DIR = "evidence"
RESERVE_NAME = "events.reserve"
RESERVE_BYTES = 512 * 1024

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    seq       INTEGER PRIMARY KEY,
    t_wall    REAL    NOT NULL,
    source    TEXT    NOT NULL,
    src_seq   INTEGER,
    kind      TEXT    NOT NULL,
    payload   TEXT    NOT NULL,
    prev_hash TEXT    NOT NULL,
    hash      TEXT    NOT NULL
);
CREATE UNIQUE INDEX events_source_seq ON events(source, src_seq) WHERE src_seq IS NOT NULL;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TABLE evidence (
    name    TEXT PRIMARY KEY,
    seq     INTEGER NOT NULL,
    bytes   INTEGER NOT NULL,
    rotated INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class Event:
    """One stored event. ``payload`` is plain JSON data; ``seq`` counts from 1 without gaps."""

    seq: int
    t_wall: float
    source: str
    kind: str
    payload: dict[str, Any]
    src_seq: int | None = None


def canonical(obj: Any) -> str:
    """The one JSON text of a value that the chain hashes: sorted keys, no spaces, UTF-8."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def row_hash(prev_hash: str, seq: int, t_wall: float, source: str, src_seq: int | None, kind: str,
             payload_json: str) -> str:
    body = canonical({"seq": seq, "t_wall": t_wall, "source": source, "src_seq": src_seq, "kind": kind,
                      "payload": json.loads(payload_json)})
    return hashlib.sha256((prev_hash + body).encode("utf-8")).hexdigest()


def _expected_schema() -> set[tuple[str, str, str]]:
    mem = sqlite3.connect(":memory:")
    try:
        mem.executescript(_SCHEMA)
        return set(mem.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
    finally:
        mem.close()


class EventStore:
    """The append-only event log of one table. Use ``EventStore.open(folder)``."""

    def __init__(self, conn: sqlite3.Connection, folder: Path, *, evidence_budget_bytes: int) -> None:
        self._conn = conn
        self.folder = folder
        self.path = folder / DB_NAME
        self.evidence_dir = folder / EVIDENCE_DIR
        self.evidence_budget_bytes = evidence_budget_bytes
        self.head_path = folder / HEAD_NAME
        self.reserve_path = folder / RESERVE_NAME
        self.read_only = False
        self._tmp_copy: str | None = None
        self._anchor: HeadAnchor | None = None
        try:
            row = conn.execute("SELECT seq, CAST(hash AS BLOB) FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            row = None                                   # verify_chain names what is wrong
        self._last_seq = row[0] if row else 0
        self._last_hash = row[1].decode("utf-8", "replace") if row and isinstance(row[1], bytes) else GENESIS

    # -- opening --------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: str | Path, *, create: bool = True, synchronous: str = "full",
             evidence_budget_mb: float = 200.0, verify: bool = True, read_only: bool = False) -> EventStore:
        """Open (or with ``create``, make) the store in ``folder``.

        Raises StorageError (one line) for a folder that is missing, cannot be made or is
        read-only, and for a database that is missing (without ``create``), damaged, of another
        program or schema, whose chain is broken or (``LostTail``) whose tail is lost
        (``verify``). ``read_only`` opens an existing log only to read it (``verify-log``).
        """
        folder = Path(folder)
        path = folder / DB_NAME
        create = create and not read_only
        if not folder.is_dir():
            if folder.exists():
                raise StorageError(f"data folder {folder} is not a folder")
            if not create:
                raise StorageError(f"event store {path} does not exist (no data folder {folder})")
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StorageError(f"data folder {folder} cannot be made: {err.strerror or err}") from err
        exists = path.exists()
        if not exists and not create:
            raise StorageError(f"event store {path} does not exist")
        if exists:
            _check_file(path)
        problem = None if read_only else _folder_problem(folder)
        if problem:
            raise StorageError(f"{problem}; refusing to start (tablectl verify-log can still read it)")
        tmp_copy = None
        try:
            if read_only:
                conn, tmp_copy = connect_read_only(path)
            else:
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except (sqlite3.Error, OSError) as err:
            raise StorageError(f"event store {path}: cannot open: {err}") from err
        try:
            if not read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            if exists:
                cls._check_database(conn, path)
            else:
                conn.executescript(
                    "BEGIN;" + _SCHEMA
                    + f"INSERT INTO meta(key, value) VALUES ('app', '{APP_ID}'), "
                    f"('schema_version', '{SCHEMA_VERSION}'), ('created', '{time.time():.3f}');COMMIT;")
        except sqlite3.DatabaseError as err:
            conn.close()
            if _is_full(err):
                raise StorageFull(f"event store {path}: the disk is full ({err}); free some space "
                                  "and start again") from err
            raise StorageError(f"event store {path}: database is corrupt ({err}{_size_note(path)}); "
                               "refusing to start. Keep the file for inspection and move it aside "
                               "to start a new log.") from err
        except StorageError:
            conn.close()
            raise
        store = cls(conn, folder, evidence_budget_bytes=int(evidence_budget_mb * 1024 * 1024))
        store.read_only, store._tmp_copy = read_only, tmp_copy
        try:
            if verify:
                store.check()
            if not read_only:
                store._start_anchor(durable=synchronous.lower() == "extra")
                store.restore_reserve()
        except (StorageError, OSError) as err:
            store.close()
            if isinstance(err, StorageError):
                raise
            raise StorageError(f"event store {path}: cannot write beside it: {err.strerror or err}") from err
        return store

    @classmethod
    def _check_database(cls, conn: sqlite3.Connection, path: Path) -> None:
        result = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if result != ["ok"]:
            result = [" ".join(r.replace("*** in database main ***", "").split()) for r in result]
            where = ""
            try:
                cls._scan_chain(conn, path)
            except ChainBroken as err:
                where = f"; first bad row: seq {err.seq}"
            except sqlite3.DatabaseError:
                pass
            raise StorageError(f"event store {path}: database is corrupt (quick_check: {'; '.join(result[:3])}"
                               f"{where}{_size_note(path)}); refusing to start. Keep the file and move it "
                               "aside to start a new log.")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "events", "evidence"} <= tables:
            raise StorageError(f"event store {path}: not a jantaku event store (tables {sorted(tables)}); "
                               "refusing to start")

        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("app") != APP_ID:
            raise StorageError(f"event store {path}: meta 'app' is {meta.get('app')!r}, not {APP_ID!r}")
        if meta.get("schema_version") != str(SCHEMA_VERSION):
            raise StorageError(f"event store {path}: schema version {meta.get('schema_version')!r}, "
                               f"this program reads {SCHEMA_VERSION}; refusing to start")

    def close(self) -> None:
        self._conn.close()
        if self._anchor is not None:
            self._anchor.close()
        if self._tmp_copy:
            shutil.rmtree(self._tmp_copy, ignore_errors=True)
            self._tmp_copy = None

    # -- the head anchor and the reserve ----------------------------------------------------

    def head(self) -> tuple[int, str]:
        """The chain's head: (seq of the newest row, its hash); (0, GENESIS) when empty."""
        return self._last_seq, self._last_hash

    def _start_anchor(self, *, durable: bool) -> None:
        anchored = read_head(self.head_path)
        if anchored is None and self._last_seq:
            log.warning("event store %s: no head anchor %s (made now; the tail before it is unchecked)",
                        self.path, self.head_path.name)
        self._anchor = HeadAnchor(self.head_path, durable=durable)
        self._anchor.open(Head(self._last_seq, self._last_hash))

    def anchor_state(self) -> str:
        """'ok', 'absent', or the last write error of the anchor (for the staff view)."""
        if self._anchor is not None and self._anchor.failed:
            return f"not written: {self._anchor.failed}"
        return "ok" if read_head(self.head_path) is not None else "absent"

    def check(self) -> int:
        """Read the whole log back: the chain and each payload (ChainBroken), the schema
        (StorageError), the tail against the head anchor (LostTail). Return the number of rows."""
        n = self.verify_chain()
        problem = self.schema_problem()
        if problem:
            raise StorageError(f"{problem}; refusing to start")
        problem = self.tail_problem()
        if problem:
            anchored = read_head(self.head_path)
            raise LostTail(f"{problem}; refusing to start. Keep the files; to go on with the "
                           f"{self.last_seq} events kept, move {self.head_path.name} aside",
                           self.last_seq, anchored.seq if anchored else 0)
        return n

    def schema_problem(self) -> str | None:
        """How the database's schema (tables, index, triggers) differs from this program's, or None."""
        schema = set(self._conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall())
        expected = _expected_schema()
        if schema == expected:
            return None
        odd = sorted({str(r[1]) for r in schema ^ expected})
        return f"event store {self.path}: the schema is not this program's (differs at {', '.join(odd[:3])})"

    def tail_problem(self) -> str | None:
        """What is wrong between the log's last row and its head anchor, or None (no anchor: None)."""
        anchored = read_head(self.head_path)
        if anchored is None:
            return None
        if anchored.seq > self._last_seq:
            return (f"event store {self.path}: the log ends at seq {self._last_seq} but its head anchor "
                    f"{self.head_path.name} says seq {anchored.seq}: {anchored.seq - self._last_seq} "
                    "event(s) at the tail are lost")
        if anchored.seq == 0:
            return None
        row = self._conn.execute("SELECT CAST(hash AS BLOB) FROM events WHERE seq=?", (anchored.seq,)).fetchone()
        if row is None or row[0] != anchored.hash.encode("ascii"):
            return (f"event store {self.path}: row {anchored.seq} is not the one its head anchor "
                    f"{self.head_path.name} names (the log was replaced or rewritten)")
        return None

    def restore_reserve(self) -> bool:
        """Make the ``events.reserve`` file (room to record a disk-full halt); True if it is there."""
        if self.reserve_path.exists() and self.reserve_path.stat().st_size >= RESERVE_BYTES:
            return True
        try:
            with open(self.reserve_path, "wb") as fh:
                fh.write(b"\0" * RESERVE_BYTES)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            self.reserve_path.unlink(missing_ok=True)
            return False
        return True

    def release_reserve(self) -> bool:
        """Delete the reserve file, giving its room back; True if there was one."""
        try:
            self.reserve_path.unlink()
        except FileNotFoundError:
            return False
        return True

    # -- events ---------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def head_hash(self) -> str:
        return self._last_hash

    def append(self, source: str, kind: str, payload: dict[str, Any], *, src_seq: int | None = None,
               t_wall: float | None = None) -> Event | None:
        """Commit one event and return it; None when (source, src_seq) is already stored.

        The row is durable (per the ``synchronous`` setting) when this returns.
        Raises StorageError when the write fails; the store is then unchanged.
        """
        if not isinstance(payload, dict):
            raise TypeError("event payload must be a dict")
        payload_json = canonical(payload)
        t = round(time.time() if t_wall is None else t_wall, 6)
        seq = self._last_seq + 1
        digest = row_hash(self._last_hash, seq, t, source, src_seq, kind, payload_json)
        try:
            self._conn.execute(
                "INSERT INTO events(seq, t_wall, source, src_seq, kind, payload, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, t, source, src_seq, kind, payload_json, self._last_hash, digest))
        except sqlite3.IntegrityError:
            if src_seq is not None and self._conn.execute(
                    "SELECT 1 FROM events WHERE source=? AND src_seq=?", (source, src_seq)).fetchone():
                return None
            raise
        except sqlite3.Error as err:
            if self._conn.in_transaction:
                self._conn.rollback()
            if _is_full(err):
                raise StorageFull(f"event store {self.path}: disk full, {kind!r} not stored ({err})") from err
            raise StorageError(f"event store {self.path}: cannot append {kind!r}: {err}") from err
        self._last_seq, self._last_hash = seq, digest
        if self._anchor is not None:
            self._anchor.write(Head(seq, digest))
        return Event(seq, t, source, kind, json.loads(payload_json), src_seq)

    def events(self, after: int = 0) -> Iterator[Event]:
        """All events with ``seq > after``, in order."""
        cur = self._conn.execute(
            "SELECT seq, t_wall, source, src_seq, kind, payload FROM events WHERE seq > ? ORDER BY seq", (after,))
        for seq, t, source, src_seq, kind, payload in cur:
            yield Event(seq, t, source, kind, json.loads(payload), src_seq)

    def last_src_seq(self, source: str) -> int | None:
        row = self._conn.execute("SELECT MAX(src_seq) FROM events WHERE source=?", (source,)).fetchone()
        return row[0]

    def verify_chain(self) -> int:
        """Read every row back and check its hash and payload; return the number of rows.

        Raises ChainBroken (naming the first bad row) for a row that is missing, unreadable,
        not UTF-8, not JSON or changed; never an SQLite error.
        """
        return self._scan_chain(self._conn, self.path)

    @staticmethod
    def _scan_chain(conn: sqlite3.Connection, path: Path) -> int:
        prev, expected_seq = GENESIS, 1
        where = f"event store {path}: chain breaks at seq"
        try:
            cur = conn.execute(
                "SELECT seq, t_wall, CAST(source AS BLOB), src_seq, CAST(kind AS BLOB), CAST(payload AS BLOB), "
                "CAST(prev_hash AS BLOB), CAST(hash AS BLOB) FROM events ORDER BY seq")
            for seq, t, *raw in cur:
                if seq != expected_seq:
                    raise ChainBroken(f"{where} {expected_seq}: row missing (next row is seq {seq})", expected_seq)
                try:
                    source, src_seq, kind, payload, prev_hash, digest = (
                        v.decode("utf-8") if isinstance(v, bytes) else v for v in raw)
                except UnicodeDecodeError as err:
                    raise ChainBroken(f"{where} {seq}: a text column is not UTF-8 ({err.reason})", seq) from None
                if prev_hash != prev:
                    raise ChainBroken(f"{where} {seq} ({kind}): prev_hash does not match the row before", seq)
                if not isinstance(t, float | int) or not (src_seq is None or isinstance(src_seq, int)):
                    raise ChainBroken(f"{where} {seq} ({kind}): a column holds the wrong type", seq)
                try:
                    recomputed = row_hash(prev, seq, t, source, src_seq, kind, payload)
                except (ValueError, TypeError, RecursionError) as err:
                    raise ChainBroken(f"{where} {seq} ({kind}): payload is not JSON ({err})", seq) from None
                if recomputed != digest:
                    raise ChainBroken(f"{where} {seq} ({kind}): row was changed after it was written "
                                      "(hash mismatch)", seq)
                prev, expected_seq = digest, seq + 1
        except sqlite3.DatabaseError as err:
            raise ChainBroken(f"{where} {expected_seq}: the row cannot be read ({err})", expected_seq) from None
        return expected_seq - 1

    # -- evidence -------------------------------------------------------------------------

    def save_evidence(self, seq: int, label: str, jpeg: bytes) -> str:
        """Write an evidence frame for event ``seq``; rotate old frames past the budget; return its name."""
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:40]
        name = f"{seq:08d}-{safe}.jpg"
        tmp = self.evidence_dir / (name + ".tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(jpeg)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.evidence_dir / name)
            self._conn.execute("INSERT OR REPLACE INTO evidence(name, seq, bytes) VALUES (?, ?, ?)",
                               (name, seq, len(jpeg)))
            self.rotate_evidence()
        except (OSError, sqlite3.Error) as err:       # a full disk: the frame is not kept, the event is
            tmp.unlink(missing_ok=True)
            raise StorageError(f"evidence {name} not kept: {err}") from err
        return name

    def rotate_evidence(self) -> list[str]:
        """Delete the oldest evidence frames until the total is within the budget; return their names."""
        rows = self._conn.execute(
            "SELECT name, bytes FROM evidence WHERE rotated=0 ORDER BY seq, name").fetchall()
        total = sum(b for _n, b in rows)
        removed: list[str] = []
        for name, size in rows:
            if total <= self.evidence_budget_bytes:
                break
            try:
                (self.evidence_dir / name).unlink()
            except FileNotFoundError:
                pass
            self._conn.execute("UPDATE evidence SET rotated=1 WHERE name=?", (name,))
            total -= size
            removed.append(name)
        if removed:
            log.info("evidence rotated: %d frames removed, %d bytes kept (budget %d)",
                     len(removed), total, self.evidence_budget_bytes)
        return removed

    def evidence_kept(self) -> dict[int, str]:
        """Event seq -> name of each evidence frame still kept."""
        return dict(self._conn.execute("SELECT seq, name FROM evidence WHERE rotated=0 ORDER BY seq").fetchall())

    def evidence_path(self, name: str) -> Path | None:
        """The file of a kept evidence frame, or None (unknown or rotated away)."""
        row = self._conn.execute("SELECT rotated FROM evidence WHERE name=?", (name,)).fetchone()
        if row is None or row[0]:
            return None
        path = self.evidence_dir / name
        return path if path.exists() else None
