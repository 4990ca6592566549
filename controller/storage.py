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

A database that is truncated, corrupted or not ours stops the start with a clear
``StorageError``; nothing is ever reset silently.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config import TableError

log = logging.getLogger(__name__)

APP_ID = "jantaku-events"
SCHEMA_VERSION = 1
GENESIS = "0" * 64
DB_NAME = "events.sqlite"
EVIDENCE_DIR = "evidence"
_SQLITE_MAGIC = b"SQLite format 3\x00"

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


class StorageError(TableError, OSError):
    """The event store cannot be used; the message names the file and what is wrong."""


class ChainBroken(StorageError):
    """The hash chain does not hold at ``seq``."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


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


def _check_file(path: Path) -> None:
    """Refuse files that are plainly not a whole SQLite database, before SQLite sees them.

    SQLite treats an empty file as a new database, so a file truncated to nothing would
    otherwise be reset without a word.
    """
    size = path.stat().st_size
    if size < 100:
        raise StorageError(f"event store {path}: file is {size} bytes, too short for a database "
                           "(truncated?); refusing to start. Move it aside to start a new log.")
    with open(path, "rb") as fh:
        header = fh.read(100)
    if header[:16] != _SQLITE_MAGIC:
        raise StorageError(f"event store {path}: not an SQLite database (bad header); refusing to start")
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, n_pages = struct.unpack(">II", header[24:32])
    valid_for = struct.unpack(">I", header[92:96])[0]
    if n_pages and valid_for == change_counter and size < page_size * n_pages:
        raise StorageError(f"event store {path}: file is {size} bytes but its header says "
                           f"{n_pages} pages of {page_size} bytes (truncated); refusing to start")


class EventStore:
    """The append-only event log of one table. Use ``EventStore.open(folder)``."""

    def __init__(self, conn: sqlite3.Connection, folder: Path, *, evidence_budget_bytes: int) -> None:
        self._conn = conn
        self.folder = folder
        self.path = folder / DB_NAME
        self.evidence_dir = folder / EVIDENCE_DIR
        self.evidence_budget_bytes = evidence_budget_bytes
        row = conn.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq, self._last_hash = (row[0], row[1]) if row else (0, GENESIS)

    # -- opening --------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: str | Path, *, create: bool = True, synchronous: str = "full",
             evidence_budget_mb: float = 200.0, verify: bool = True) -> EventStore:
        """Open (or with ``create``, make) the store in ``folder``.

        Raises StorageError for a database that is missing (without ``create``), truncated,
        corrupted, of another program or schema, or whose chain is broken (``verify``).
        """
        folder = Path(folder)
        path = folder / DB_NAME
        exists = path.exists()
        if not exists and not create:
            raise StorageError(f"event store {path} does not exist")
        if exists:
            _check_file(path)
        else:
            folder.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as err:
            raise StorageError(f"event store {path}: cannot open: {err}") from err
        try:
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
            raise StorageError(f"event store {path}: database is corrupt ({err}); refusing to start. "
                               "Keep the file for inspection and move it aside to start a new log.") from err
        except StorageError:
            conn.close()
            raise
        store = cls(conn, folder, evidence_budget_bytes=int(evidence_budget_mb * 1024 * 1024))
        if verify:
            try:
                store.verify_chain()
            except ChainBroken:
                store.close()
                raise
        return store

    @staticmethod
    def _check_database(conn: sqlite3.Connection, path: Path) -> None:
        result = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        if result != ["ok"]:
            raise StorageError(f"event store {path}: database is corrupt (quick_check: {'; '.join(result[:3])});"
                               " refusing to start. Keep the file and move it aside to start a new log.")
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
            raise StorageError(f"event store {self.path}: cannot append {kind!r}: {err}") from err
        self._last_seq, self._last_hash = seq, digest
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
        """Check every row's hash; return the number of rows. Raises ChainBroken at the first bad row."""
        prev, expected_seq = GENESIS, 1
        cur = self._conn.execute(
            "SELECT seq, t_wall, source, src_seq, kind, payload, prev_hash, hash FROM events ORDER BY seq")
        for seq, t, source, src_seq, kind, payload, prev_hash, digest in cur:
            if seq != expected_seq:
                raise ChainBroken(f"event store {self.path}: chain breaks at seq {expected_seq}: "
                                  f"row missing (next row is seq {seq})", expected_seq)
            if prev_hash != prev:
                raise ChainBroken(f"event store {self.path}: chain breaks at seq {seq} ({kind}): "
                                  "prev_hash does not match the row before", seq)
            try:
                recomputed = row_hash(prev, seq, t, source, src_seq, kind, payload)
            except (ValueError, TypeError) as err:
                raise ChainBroken(f"event store {self.path}: chain breaks at seq {seq} ({kind}): "
                                  f"payload is not JSON ({err})", seq) from err
            if recomputed != digest:
                raise ChainBroken(f"event store {self.path}: chain breaks at seq {seq} ({kind}): "
                                  "row was changed after it was written (hash mismatch)", seq)
            prev, expected_seq = digest, seq + 1
        return expected_seq - 1

    # -- evidence -------------------------------------------------------------------------

    def save_evidence(self, seq: int, label: str, jpeg: bytes) -> str:
        """Write an evidence frame for event ``seq``; rotate old frames past the budget; return its name."""
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in label)[:40]
        name = f"{seq:08d}-{safe}.jpg"
        tmp = self.evidence_dir / (name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(jpeg)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.evidence_dir / name)
        self._conn.execute("INSERT OR REPLACE INTO evidence(name, seq, bytes) VALUES (?, ?, ?)",
                           (name, seq, len(jpeg)))
        self.rotate_evidence()
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
