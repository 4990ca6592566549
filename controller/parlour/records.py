"""Finished games as tenhou.net/6 score sheets, made from the events the table sent.

The parlour has each table's events (``record``: the event as ``controller.events`` writes
it). For a finished game, its events (from the game's ``staff.start_game`` up to the finish)
are replayed through the same tracker ``tablectl export`` uses (``controller.daemon_export``),
off the ingestion path (``RecordsWorker``'s own thread). A game whose events did not all
reach the parlour (it joined late) gets ``record_error`` instead, and keeps its scores and
settlement from the table's state.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

from controller.parlour.store import ParlourStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Stored:
    seq: int
    t_wall: float
    payload: dict[str, Any]


class _Events:
    """The duck-typed event store ``export_games`` reads."""

    def __init__(self, rows: list[_Stored]) -> None:
        self.rows = rows

    def events(self, after: int = 0):
        return iter(self.rows)


def game_record(c: sqlite3.Connection, table: str, upto_event_seq: int) -> dict[str, Any]:
    """The tenhou.net/6 record of the game that finished at ``upto_event_seq``; ValueError if it cannot be made."""
    from controller.daemon_export import export_games
    start = c.execute("SELECT MAX(event_seq) FROM messages WHERE tbl=? AND kind='staff.start_game' "
                      "AND event_seq <= ?", (table, upto_event_seq)).fetchone()[0]
    if start is None:
        raise ValueError("the game's start did not reach the parlour")
    rows, seen = [], set()
    for event_seq, t_wall, body in c.execute(
            "SELECT event_seq, t_wall, body FROM messages WHERE tbl=? AND type IN ('event', 'alert', 'fault') "
            "AND event_seq BETWEEN ? AND ? ORDER BY event_seq", (table, start, upto_event_seq)):
        if event_seq in seen:
            continue
        seen.add(event_seq)
        rows.append(_Stored(event_seq, t_wall, json.loads(body)["record"]))
    expected = upto_event_seq - start + 1
    if len(rows) != expected:
        raise ValueError(f"{expected - len(rows)} of the game's {expected} events did not reach the parlour")
    games = export_games(_Events(rows))  # type: ignore[arg-type]
    if not games:
        raise ValueError("the replayed events finish no game")
    return games[-1]


class RecordsWorker:
    """Makes the records of newly finished games, one at a time, in its own thread."""

    def __init__(self, store: ParlourStore) -> None:
        self.store = store
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="parlour-records", daemon=True)
        self._version = -1

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def run_once(self) -> int:
        c = self.store.reader()
        try:
            todo = c.execute("SELECT id, tbl, event_seq FROM games WHERE record IS NULL AND record_error IS NULL "
                             "ORDER BY id").fetchall()
            done = 0
            for game, table, event_seq in todo:
                try:
                    record, error = json.dumps(game_record(c, table, int(event_seq or 0)), ensure_ascii=False), None
                except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
                    record, error = None, str(err) or type(err).__name__
                    log.warning("parlour: game %d of %s has no tenhou.net/6 record: %s", game, table, error)
                self.store.write(lambda conn, r=record, e=error, g=game: conn.execute(
                    "UPDATE games SET record=?, record_error=? WHERE id=?", (r, e, g)))
                done += 1
            return done
        finally:
            c.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            if self.store.version != self._version:
                self._version = self.store.version
                try:
                    self.run_once()
                except sqlite3.Error:
                    log.exception("parlour: records not made")
