"""The table's durable outbox for the parlour link: ``outbox.sqlite`` beside ``events.sqlite``.

Every message for the parlour's broker is a row here before it is sent, and the row is deleted
only when the broker has acknowledged it (PUBACK, QoS 1). A broker or network that is down
therefore loses nothing: the rows wait, and are sent again oldest first when the link is back
(also after a restart of the daemon). A row that was sent but whose acknowledgement was lost is
sent once more; each message carries ``(table, boot, seq)`` so that the receiver drops the copy.

The outbox also remembers the last event of the table's log that it took in
(``last_event_seq``), in the same transaction as the rows, so that the publisher can take the
events it missed (a crash between the event's commit and the outbox) from the event log.

One user at a time: the publisher opens it at start, then only its thread uses it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from controller.config import TableError

log = logging.getLogger(__name__)

DB_NAME = "outbox.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    topic   TEXT    NOT NULL,
    payload BLOB    NOT NULL,
    retain  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class OutboxError(TableError, OSError):
    """The outbox file cannot be used; the message names the file."""


@dataclass(frozen=True)
class Row:
    id: int
    topic: str
    payload: bytes
    is_retained: bool


class Outbox:
    """Rows waiting for the broker's acknowledgement, oldest first."""

    def __init__(self, folder: str | Path, *, synchronous: str = "normal") -> None:
        self.path = Path(folder) / DB_NAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as err:
            raise OutboxError(f"outbox {self.path}: cannot open: {err}") from err

    def close(self) -> None:
        self._conn.close()

    def meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    @property
    def last_event_seq(self) -> int | None:
        """The last event of the log taken in; None for a new outbox."""
        value = self.meta("last_event_seq")
        return int(value) if value is not None else None

    def add(self, rows: Iterable[tuple[str, bytes, bool]], *, last_event_seq: int | None = None) -> int:
        """Append (topic, payload, retain) rows in one transaction; return how many."""
        n = 0
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            for topic, payload, is_retained in rows:
                self._conn.execute("INSERT INTO outbox(topic, payload, retain) VALUES (?, ?, ?)",
                                   (topic, payload, int(is_retained)))
                n += 1
            if last_event_seq is not None:
                self._conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('last_event_seq', ?)",
                                   (str(last_event_seq),))
            self._conn.execute("COMMIT")
        except sqlite3.Error as err:
            self._conn.execute("ROLLBACK")
            raise OutboxError(f"outbox {self.path}: cannot add: {err}") from err
        return n

    def after(self, row_id: int, limit: int) -> list[Row]:
        """Up to ``limit`` rows with an id above ``row_id``, oldest first."""
        cur = self._conn.execute("SELECT id, topic, payload, retain FROM outbox WHERE id > ? ORDER BY id LIMIT ?",
                                 (row_id, limit))
        return [Row(i, t, bytes(p), bool(r)) for i, t, p, r in cur]

    def done(self, ids: Iterable[int]) -> None:
        """The broker acknowledged these rows: drop them."""
        ids = list(ids)
        if not ids:
            return
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany("DELETE FROM outbox WHERE id=?", [(i,) for i in ids])
            self._conn.execute("COMMIT")
        except sqlite3.Error as err:
            self._conn.execute("ROLLBACK")
            raise OutboxError(f"outbox {self.path}: cannot drop sent rows: {err}") from err

    def pending(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
