"""What the parlour board shows, read from the parlour store (plain data for the JSON API).

- ``board(conn)``: every table: online or not, round, honba, dealer, seats (name, score,
  riichi), the machine's state and reason, the latest alerts and faults, when last heard.
- ``table_history(conn, table)``: one table's recent events, alerts (with evidence links),
  faults, games and statistics.
- ``stats(conn)``: per table, build-cycle time (from ``mcu.lift_done`` to the next
  ``mcu.stack_ready``: the set's shuffle and build), faults per day, hands and games played.
- ``games(conn)``: the finished games, with their tenhou.net/6 record where one was made.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any


def _summary(state: dict[str, Any]) -> dict[str, Any]:
    seats = [{"name": s.get("name", ""), "score": s.get("score"), "riichi": bool(s.get("riichi")),
              "wind": s.get("wind"), "is_dealer": bool(s.get("is_dealer"))} for s in state.get("seats") or []]
    machine = state.get("machine") or {}
    return {"round": state.get("round"), "honba": state.get("honba"), "riichi_sticks": state.get("riichi_sticks"),
            "hand_index": state.get("hand_index"), "dealer": state.get("dealer"), "finished": state.get("finished"),
            "phase": state.get("phase"), "ruleset": state.get("ruleset"), "seats": seats,
            "machine": {"state": machine.get("state"), "reason": machine.get("reason", "")},
            "hands_in_game": len(state.get("hands") or ())}


def board(c: sqlite3.Connection, *, now: float | None = None) -> list[dict[str, Any]]:
    now = time.time() if now is None else now
    out = []
    for row in c.execute("SELECT tbl, online, online_t, seen, state, client_id FROM tables ORDER BY tbl"):
        table = row["tbl"]
        state = json.loads(row["state"]) if row["state"] else {}
        alerts = [dict(a) for a in c.execute(
            "SELECT a.event_seq, rule, hand_index, seat, tile, message, t_wall, e.event_seq IS NOT NULL AS has_evidence "
            "FROM alerts a LEFT JOIN evidence e ON e.tbl=a.tbl AND e.event_seq=a.event_seq WHERE a.tbl=? "
            "ORDER BY a.event_seq DESC LIMIT 5", (table,))]
        faults = [dict(f) for f in c.execute(
            "SELECT event_seq, kind, code, detail, t_wall FROM faults WHERE tbl=? ORDER BY event_seq DESC LIMIT 3",
            (table,))]
        out.append({"table": table, "online": bool(row["online"]), "online_t": row["online_t"], "seen": row["seen"],
                    "client_id": row["client_id"], "state": _summary(state) if state else None,
                    "alerts": alerts, "faults": faults,
                    "is_halted": (state.get("machine") or {}).get("state") == "halted"})
    return out


def table_history(c: sqlite3.Connection, table: str, *, limit: int = 200) -> dict[str, Any] | None:
    row = c.execute("SELECT tbl FROM tables WHERE tbl=?", (table,)).fetchone()
    if row is None:
        return None
    events = [dict(r) for r in c.execute(
        "SELECT event_seq, kind, type, t_wall, boot, seq FROM messages WHERE tbl=? AND type IN "
        "('event', 'alert', 'fault') ORDER BY event_seq DESC LIMIT ?", (table, limit))]
    alerts = [dict(a) for a in c.execute(
        "SELECT a.event_seq, rule, hand_index, seat, tile, message, t_wall, e.event_seq IS NOT NULL AS has_evidence "
        "FROM alerts a LEFT JOIN evidence e ON e.tbl=a.tbl AND e.event_seq=a.event_seq WHERE a.tbl=? "
        "ORDER BY a.event_seq DESC", (table,))]
    faults = [dict(f) for f in c.execute(
        "SELECT event_seq, kind, code, detail, t_wall FROM faults WHERE tbl=? ORDER BY event_seq DESC", (table,))]
    return {"table": table, "events": events, "alerts": alerts, "faults": faults,
            "games": games(c, table=table), "stats": stats(c, table=table).get(table, _empty_stats())}


def _empty_stats() -> dict[str, Any]:
    return {"build_cycle_s": None, "build_cycles": 0, "faults_per_day": {}, "hands": 0, "games": 0}


def stats(c: sqlite3.Connection, *, table: str | None = None) -> dict[str, dict[str, Any]]:
    where, args = ("WHERE tbl=?", (table,)) if table else ("", ())
    out: dict[str, dict[str, Any]] = {r[0]: _empty_stats() for r in c.execute(f"SELECT tbl FROM tables {where}", args)}
    last_lift: dict[str, float] = {}
    cycles: dict[str, list[float]] = {}
    seen: set[tuple[str, int]] = set()
    for tbl, event_seq, kind, t in c.execute(
            f"SELECT tbl, event_seq, kind, t_wall FROM messages {where}{' AND' if where else 'WHERE'} kind IN "
            "('mcu.lift_done', 'mcu.stack_ready') ORDER BY tbl, event_seq", args):
        if (tbl, event_seq) in seen:
            continue
        seen.add((tbl, event_seq))
        if kind == "mcu.lift_done":
            last_lift[tbl] = t
        elif tbl in last_lift:
            cycles.setdefault(tbl, []).append(t - last_lift.pop(tbl))
    for tbl, values in cycles.items():
        out[tbl]["build_cycle_s"] = round(sum(values) / len(values), 2)
        out[tbl]["build_cycles"] = len(values)
    for tbl, day, n in c.execute(f"SELECT tbl, date(t_wall, 'unixepoch'), COUNT(*) FROM faults {where} "
                                 "GROUP BY tbl, date(t_wall, 'unixepoch')", args):
        out.setdefault(tbl, _empty_stats())["faults_per_day"][day] = n
    for tbl, n in c.execute(f"SELECT tbl, COUNT(*) FROM hands {where} GROUP BY tbl", args):
        out.setdefault(tbl, _empty_stats())["hands"] = n
    for tbl, n in c.execute(f"SELECT tbl, COUNT(*) FROM games {where} GROUP BY tbl", args):
        out.setdefault(tbl, _empty_stats())["games"] = n
    return out


def games(c: sqlite3.Connection, *, table: str | None = None) -> list[dict[str, Any]]:
    where, args = ("WHERE tbl=?", (table,)) if table else ("", ())
    out = []
    for r in c.execute(f"SELECT id, tbl, t_end, ruleset, players, scores, settlement, record, record_error "
                       f"FROM games {where} ORDER BY id", args):
        out.append({"id": r[0], "table": r[1], "t_end": r[2], "ruleset": r[3], "players": json.loads(r[4]),
                    "scores": json.loads(r[5]), "settlement": json.loads(r[6]),
                    "record": json.loads(r[7]) if r[7] else None, "record_error": r[8]})
    return out
