"""The counter: players' visits, their seats, the charges of each game, the bill.

A visit begins when a player is checked in (by name or member number) at a table's chair
(0..3, the chairs as the table names them) and is followed through seat changes (each
seating kept with its times). When a table finishes a game, each of its seats is matched
to the open visit sitting there (by the name the table shows, else by the chair: the game's
seat ``i`` sits at chair ``(first_dealer_chair + i) % n``) and gets the game's lines
(``controller.parlour.fees``). Closing a visit adds the hours at per-hour tables and fixes
the bill.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from controller.parlour import fees as F
from controller.parlour.store import ParlourError, ParlourStore


class Counter:
    def __init__(self, store: ParlourStore, fee_rules: F.Fees) -> None:
        self.store, self.fees = store, fee_rules
        store.on_game = self._charge_game

    # -- visits -------------------------------------------------------------------------------

    def check_in(self, *, name: str = "", member: str = "", table: str, chair: int, now: float | None = None) -> int:
        name, member = (name or "").strip(), (member or "").strip()
        if not name and not member:
            raise ParlourError("check-in needs a name or a member number")
        self._check_seat(table, chair)
        t = time.time() if now is None else now

        def go(c: sqlite3.Connection) -> int:
            self._seat_free(c, table, chair, None)
            cur = c.execute("INSERT INTO visits(name, member, t_in, tbl, chair) VALUES (?, ?, ?, ?, ?)",
                            (name or f"#{member}", member, t, table, chair))
            c.execute("INSERT INTO seatings VALUES (?, ?, ?, ?, NULL)", (cur.lastrowid, table, chair, t))
            return int(cur.lastrowid)
        return self.store.write(go)

    def move(self, visit: int, *, table: str, chair: int, now: float | None = None) -> None:
        self._check_seat(table, chair)
        t = time.time() if now is None else now

        def go(c: sqlite3.Connection) -> None:
            self._open_visit(c, visit)
            self._seat_free(c, table, chair, visit)
            c.execute("UPDATE seatings SET t_to=? WHERE visit=? AND t_to IS NULL", (t, visit))
            c.execute("INSERT INTO seatings VALUES (?, ?, ?, ?, NULL)", (visit, table, chair, t))
            c.execute("UPDATE visits SET tbl=?, chair=? WHERE id=?", (table, chair, visit))
        self.store.write(go)

    def close(self, visit: int, *, now: float | None = None) -> dict[str, Any]:
        t = time.time() if now is None else now

        def go(c: sqlite3.Connection) -> None:
            self._open_visit(c, visit)
            c.execute("UPDATE seatings SET t_to=? WHERE visit=? AND t_to IS NULL", (t, visit))
            hours: dict[str, float] = {}
            for tbl, t_from, t_to in c.execute("SELECT tbl, t_from, t_to FROM seatings WHERE visit=?", (visit,)):
                hours[tbl] = hours.get(tbl, 0.0) + (t_to - t_from)
            for tbl, seated_s in hours.items():
                amount = F.hour_charge(self.fees.rule_of(tbl), seated_s)
                if amount:
                    c.execute("INSERT INTO charges(visit, game, what, amount, t) VALUES (?, NULL, ?, ?, ?)",
                              (visit, f"hours:{tbl}", amount, t))
            c.execute("UPDATE visits SET t_out=?, tbl=NULL, chair=NULL WHERE id=?", (t, visit))
        self.store.write(go)
        return self.bill(visit)

    def bill(self, visit: int, conn: sqlite3.Connection | None = None) -> dict[str, Any]:
        c = conn or self.store.reader()
        try:
            row = c.execute("SELECT id, name, member, t_in, t_out, tbl, chair FROM visits WHERE id=?",
                            (visit,)).fetchone()
            if row is None:
                raise ParlourError(f"no visit {visit}")
            lines = [{"game": g, "what": w, "amount": a, "t": t} for g, w, a, t in c.execute(
                "SELECT game, what, amount, t FROM charges WHERE visit=? ORDER BY id", (visit,))]
        finally:
            if conn is None:
                c.close()
        balance = sum(line["amount"] for line in lines)
        games = len({line["game"] for line in lines if line["game"] is not None})
        return {"visit": row[0], "name": row[1], "member": row[2], "t_in": row[3], "t_out": row[4],
                "table": row[5], "chair": row[6], "is_open": row[4] is None, "games": games, "lines": lines,
                "balance": balance, "owes": max(0, -balance)}

    def open_visits(self) -> list[dict[str, Any]]:
        c = self.store.reader()
        try:
            ids = [r[0] for r in c.execute("SELECT id FROM visits WHERE t_out IS NULL ORDER BY id")]
            return [self.bill(i, c) for i in ids]
        finally:
            c.close()

    # -- checks -------------------------------------------------------------------------------

    @staticmethod
    def _check_seat(table: str, chair: int) -> None:
        if not isinstance(table, str) or not table or "/" in table:
            raise ParlourError(f"table {table!r} is not a table name")
        if not isinstance(chair, int) or isinstance(chair, bool) or not 0 <= chair <= 3:
            raise ParlourError(f"chair {chair!r} must be 0..3")

    @staticmethod
    def _open_visit(c: sqlite3.Connection, visit: int) -> None:
        row = c.execute("SELECT t_out FROM visits WHERE id=?", (visit,)).fetchone()
        if row is None:
            raise ParlourError(f"no visit {visit}")
        if row[0] is not None:
            raise ParlourError(f"visit {visit} is closed")

    @staticmethod
    def _seat_free(c: sqlite3.Connection, table: str, chair: int, visit: int | None) -> None:
        row = c.execute("SELECT id, name FROM visits WHERE t_out IS NULL AND tbl=? AND chair=?",
                        (table, chair)).fetchone()
        if row is not None and row[0] != visit:
            raise ParlourError(f"chair {chair} at {table} is taken by {row[1]} (visit {row[0]})")

    # -- a finished game (inside the ingestion's transaction) ----------------------------------

    def _charge_game(self, c: sqlite3.Connection, game: int) -> None:
        tbl, t_end, chair0, players, scores, settlement = c.execute(
            "SELECT tbl, t_end, first_dealer_chair, players, scores, settlement FROM games WHERE id=?",
            (game,)).fetchone()
        players, scores, settlement = json.loads(players), json.loads(scores), json.loads(settlement)
        seated = {chair: (vid, name) for vid, name, chair in c.execute(
            "SELECT id, name, chair FROM visits WHERE t_out IS NULL AND tbl=?", (tbl,))}
        by_name = {name: vid for vid, name in seated.values()}
        lines = F.game_lines(self.fees.rule_of(tbl), settlement, scores)
        n = len(lines)
        for seat, seat_lines in enumerate(lines):
            name = players[seat] if seat < len(players) else ""
            visit = by_name.get(name) if name else None
            if visit is None:
                visit = seated.get((chair0 + seat) % max(n, 1), (None, ""))[0]
            if visit is None:
                continue
            for what, amount in seat_lines:
                c.execute("INSERT OR IGNORE INTO charges(visit, game, what, amount, t) VALUES (?, ?, ?, ?, ?)",
                          (visit, game, what, amount, t_end))
