"""The parlour's own SQLite (``parlour.sqlite``): every table's messages, once each.

``ingest(batch)`` takes the messages received from the broker, in the order they came, and
commits them in one transaction; the receiver acknowledges them to the broker only after that
(``controller.parlour.ingest``), so a crash loses nothing the broker has not been told about.
A message seen before (the same ``(table, boot, seq)``: a re-sent outbox row, a redelivery
after a reconnect) is dropped and counted in ``duplicates``.

Besides the messages: the live state per table (the newest ``state``), online/offline (the
retained ``online`` and the tables' Last Will), alerts with their evidence picture, faults,
hands and games (from the tables' milestone states: a longer score sheet is a hand played,
``finished`` a game), and the counter's visits and charges (``controller.parlour.counter``).
"""

from __future__ import annotations

import base64
import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from controller import mqtt_link as L
from controller.config import TableError

log = logging.getLogger(__name__)

DB_NAME = "parlour.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    tbl TEXT NOT NULL, boot TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL,
    event_seq INTEGER, kind TEXT, t_wall REAL, t_pub REAL, t_stored REAL NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (tbl, boot, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_event ON messages(tbl, event_seq);
CREATE TABLE IF NOT EXISTS tables (
    tbl TEXT PRIMARY KEY, online INTEGER NOT NULL DEFAULT 0, online_t REAL, boot TEXT, client_id TEXT,
    seen REAL, state TEXT, state_t REAL, m_hands INTEGER NOT NULL DEFAULT 0, m_finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS alerts (
    tbl TEXT NOT NULL, event_seq INTEGER NOT NULL, rule TEXT, hand_index INTEGER, seat INTEGER, tile TEXT,
    message TEXT, t_wall REAL, PRIMARY KEY (tbl, event_seq)
);
CREATE TABLE IF NOT EXISTS evidence (
    tbl TEXT NOT NULL, event_seq INTEGER NOT NULL, name TEXT, jpeg BLOB NOT NULL, PRIMARY KEY (tbl, event_seq)
);
CREATE TABLE IF NOT EXISTS faults (
    tbl TEXT NOT NULL, event_seq INTEGER NOT NULL, kind TEXT, code TEXT, detail TEXT, t_wall REAL,
    PRIMARY KEY (tbl, event_seq)
);
CREATE TABLE IF NOT EXISTS hands (id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, t REAL NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, t_end REAL NOT NULL, event_seq INTEGER, ruleset TEXT,
    first_dealer_chair INTEGER, players TEXT, scores TEXT, settlement TEXT, hands TEXT, record TEXT,
    record_error TEXT
);
CREATE TABLE IF NOT EXISTS visits (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, member TEXT NOT NULL DEFAULT '', t_in REAL NOT NULL,
    t_out REAL, tbl TEXT, chair INTEGER
);
CREATE TABLE IF NOT EXISTS seatings (
    visit INTEGER NOT NULL, tbl TEXT NOT NULL, chair INTEGER NOT NULL, t_from REAL NOT NULL, t_to REAL
);
CREATE TABLE IF NOT EXISTS charges (
    id INTEGER PRIMARY KEY, visit INTEGER NOT NULL, game INTEGER, what TEXT NOT NULL, amount INTEGER NOT NULL,
    t REAL NOT NULL, UNIQUE (visit, game, what)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class ParlourError(TableError, ValueError):
    """A parlour request or file that cannot be used; the message names it."""


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


class ParlourStore:
    """One writer connection (ingestion, the counter) behind a lock; readers open their own."""

    def __init__(self, folder: str | Path, *, on_game=None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / DB_NAME
        try:
            self._conn = _connect(self.path)
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as err:
            raise ParlourError(f"parlour store {self.path}: cannot open: {err}") from err
        # checkpoints (the WAL copied into the database, with its fsync) run in their own thread,
        # never inside an ingestion commit: the board's store stays quick under a fleet's load
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._closed = threading.Event()
        self._checkpointer = threading.Thread(target=self._checkpoints, name="parlour-checkpoint", daemon=True)
        self._checkpointer.start()
        self.lock = threading.Lock()
        self.version = 0                 # bumps on every change (the board polls it)
        self.duplicates = 0
        self.stored = 0
        self.on_game = on_game           # called with (conn, game id) in the game's transaction

    def close(self) -> None:
        self._closed.set()
        self._checkpointer.join(10)
        self._conn.close()

    def _checkpoints(self, every_s: float = 2.0) -> None:
        conn = _connect(self.path)
        try:
            while not self._closed.wait(every_s):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except sqlite3.Error as err:
                    log.warning("parlour store %s: checkpoint failed: %s", self.path, err)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()

    def reader(self) -> sqlite3.Connection:
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10.0, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        return conn

    # -- ingestion ----------------------------------------------------------------------------

    def ingest(self, batch: list[tuple[str, bytes]]) -> tuple[int, int]:
        """Commit a batch of (topic, payload); return (stored, duplicates). Bad messages are logged, dropped."""
        stored = dups = 0
        now = time.time()
        with self.lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                for name, payload in batch:
                    c.execute("SAVEPOINT one")
                    try:
                        result = self._one(c, name, payload, now)
                    except (ValueError, TypeError, KeyError, AttributeError, sqlite3.IntegrityError) as err:
                        # one malformed message must not hold back the batch (nor come back forever)
                        c.execute("ROLLBACK TO one")
                        log.warning("parlour: message on %s cannot be used (%s); dropped", name, err)
                        result = -1
                    c.execute("RELEASE one")
                    stored += result == 1
                    dups += result == 0
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
            self.stored += stored
            self.duplicates += dups
            self.version += 1
        return stored, dups

    def _one(self, c: sqlite3.Connection, name: str, payload: bytes, now: float) -> int:
        """1 stored, 0 a duplicate, -1 not stored (bad, or a coalesced state/online)."""
        where = L.parse_topic(name)
        try:
            msg = json.loads(payload)
        except ValueError:
            msg = None
        if where is None or not isinstance(msg, dict):
            log.warning("parlour: message on %s is not ours; dropped", name)
            return -1
        _, table, kind = where
        if msg.get("table") != table:
            log.warning("parlour: message on %s names table %r; dropped", name, msg.get("table"))
            return -1
        c.execute("INSERT OR IGNORE INTO tables(tbl) VALUES (?)", (table,))
        if kind == "online":
            if msg.get("online"):
                c.execute("UPDATE tables SET online=1, online_t=?, boot=?, client_id=?, seen=? WHERE tbl=?",
                          (now, msg.get("boot"), msg.get("client_id"), now, table))
            else:
                c.execute("UPDATE tables SET online=0, online_t=? WHERE tbl=? AND (boot IS NULL OR boot=?)",
                          (now, table, msg.get("boot")))
            return -1
        boot, seq = msg.get("boot"), msg.get("seq")
        if not isinstance(boot, str) or not isinstance(seq, int) or isinstance(seq, bool):
            log.warning("parlour: message on %s without (boot, seq); dropped", name)
            return -1
        c.execute("UPDATE tables SET seen=? WHERE tbl=?", (now, table))
        if kind == "state":
            self._live_state(c, table, msg)
            if not msg.get("is_milestone"):
                return -1
        body = dict(msg)
        jpeg = body.pop("jpeg", None)
        if kind == "state":
            body = {k: v for k, v in body.items() if k != "state"}
        cur = c.execute("INSERT OR IGNORE INTO messages(tbl, boot, seq, type, event_seq, kind, t_wall, t_pub, "
                        "t_stored, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (table, boot, seq, kind, msg.get("event_seq") if kind != "evidence" else msg.get("alert_seq"),
                         msg.get("kind"), msg.get("t_wall"), msg.get("t_pub"), time.time(),
                         L.dumps(body).decode()))
        if cur.rowcount == 0:
            return 0
        record = msg.get("record") if isinstance(msg.get("record"), dict) else {}
        if kind == "alert":
            c.execute("INSERT OR IGNORE INTO alerts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (table, msg.get("event_seq"), record.get("rule"), record.get("hand_index"), record.get("seat"),
                       record.get("tile"), record.get("message"), msg.get("t_wall")))
        elif kind == "fault":
            code = record.get("code") or ("estop" if msg.get("kind") == "estop" else msg.get("kind"))
            if msg.get("kind") != "estop" or record.get("is_pressed"):
                c.execute("INSERT OR IGNORE INTO faults VALUES (?, ?, ?, ?, ?, ?)",
                          (table, msg.get("event_seq"), msg.get("kind"), code,
                           record.get("detail") or record.get("reason") or "", msg.get("t_wall")))
        elif kind == "evidence" and isinstance(jpeg, str):
            try:
                data = base64.b64decode(jpeg, validate=True)
            except ValueError:
                data = b""
            if data:
                c.execute("INSERT OR REPLACE INTO evidence VALUES (?, ?, ?, ?)",
                          (table, msg.get("alert_seq"), msg.get("name"), data))
        elif kind == "state":
            self._milestone(c, table, msg)
        return 1

    def _live_state(self, c: sqlite3.Connection, table: str, msg: dict[str, Any]) -> None:
        t = float(msg.get("t_pub") or 0.0)
        c.execute("UPDATE tables SET state=?, state_t=? WHERE tbl=? AND (state_t IS NULL OR state_t <= ?)",
                  (L.dumps(msg.get("state") or {}).decode(), t, table, t))

    def _milestone(self, c: sqlite3.Connection, table: str, msg: dict[str, Any]) -> None:
        """Hands and games from a milestone state (they come in the table's order, once each)."""
        state = msg.get("state") or {}
        m_hands, m_finished = c.execute("SELECT m_hands, m_finished FROM tables WHERE tbl=?", (table,)).fetchone()
        hands = len(state.get("hands") or ())
        t = float(msg.get("t_pub") or time.time())
        new = hands - m_hands if hands >= m_hands else hands      # fewer rows: a new game began
        c.executemany("INSERT INTO hands(tbl, t) VALUES (?, ?)", [(table, t)] * max(0, new))
        finished = bool(state.get("finished"))
        if finished and not m_finished:
            seats = state.get("seats") or []
            cur = c.execute(
                "INSERT INTO games(tbl, t_end, event_seq, ruleset, first_dealer_chair, players, scores, settlement,"
                " hands) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (table, t, msg.get("event_seq"), state.get("ruleset"), state.get("first_dealer_chair") or 0,
                 L.dumps([s.get("name", "") for s in seats]).decode(), L.dumps([s.get("score") for s in seats]).decode(),
                 L.dumps(state.get("settlement")).decode(), L.dumps(state.get("hands") or []).decode()))
            if self.on_game is not None:
                self.on_game(c, cur.lastrowid)
        c.execute("UPDATE tables SET m_hands=?, m_finished=? WHERE tbl=?", (hands, int(finished), table))

    # -- writes for the counter and the records worker ---------------------------------------------

    def write(self, fn, *args: Any) -> Any:
        """Run ``fn(conn, *args)`` in one transaction of the writer connection."""
        with self.lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                result = fn(c, *args)
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
            self.version += 1
            return result
