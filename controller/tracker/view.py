"""The table's public state (``GET /api/state``, contracts/table-api.md) from the tracker's
state: the read model the panel shows, for every family (its own fields from
``Family.public_extra``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.flow import round_name
from controller.tracker.hand import WINDS, HandState

if TYPE_CHECKING:
    from controller.tracker.family import Family


def public_state(fam: Family, s: HandState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md (JSON-able). Alerts kept from the
    table during a hand (chinese: a wrong-size hand) show once their hand has ended; the
    ``result_problem`` is shown while a declared hand waits for its result, with its kind."""
    extra, seat_extra = fam.public_extra(s)
    seats = []
    for i, seat in enumerate(s.seats):
        seats.append({"wind": WINDS[(i - s.dealer) % s.n_seats], "score": seat.score,
                      "name": s.players[i] if i < len(s.players) else "", "is_dealer": i == s.dealer,
                      "river": [r["tile"] for r in seat.river if r["taken_by"] is None],
                      "melds": [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in seat.melds],
                      **seat_extra[i]})
    ended_hands = s.hand_index if s.phase not in ("result", "ended") else s.hand_index + 1
    alerts = [{k: a[k] for k in ("rule", "hand_index", "seat", "tile", "message", "suggest", "now")}
              for a in s.alerts if a["is_public"] or a["hand_index"] < ended_hands]
    problem = s.result_problem if s.phase in ("win", "draw", "result") else None
    return {
        "table": s.table,
        "ruleset": s.ruleset,
        "round": round_name(s.round, s.n_seats),
        "honba": s.honba,
        "riichi_sticks": s.sticks,
        "hand_index": s.hand_index,
        "dealer": s.dealer,
        "first_dealer_chair": s.first_dealer_chair,
        "finished": s.finished,
        "phase": s.phase,
        "seats": seats,
        "live_wall": s.live_wall,
        "dice": [list(r) for r in s.rolls],
        "last_result": s.last_result,
        "pending_result": s.result,
        "result_problem": None if problem is None else problem["message"],
        "result_problem_kind": None if problem is None else problem["kind"],
        "alerts": alerts,
        "settlement": s.settlement,
        "hands": [dict(row) for row in s.history],
        **extra,
    }
