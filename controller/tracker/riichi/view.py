"""The table's public state (``GET /api/state``, contracts/table-api.md) from the tracker's state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.dora import dora_of
from controller.rules.flow import round_name

if TYPE_CHECKING:
    from controller.tracker.riichi.state import GameState

WINDS = ("E", "S", "W", "N")


def public_state(state: GameState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md (JSON-able)."""
    s = state
    seats = []
    for i, seat in enumerate(s.seats):
        wind = WINDS[(i - s.dealer) % s.n_seats]
        seats.append({"wind": wind, "score": seat.score, "riichi": seat.is_riichi,
                      "name": s.players[i] if i < len(s.players) else "",
                      "is_dealer": i == s.dealer,
                      "river": [r["tile"] for r in seat.river if r["taken_by"] is None],
                      "melds": [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in seat.melds]
                      + [{"kind": "nuki", "tiles": [t]} for t in seat.norths],
                      "tenpai": _tenpai_of(s, i)})
    ended_hands = s.hand_index if s.phase not in ("result", "ended") else s.hand_index + 1
    alerts = [{k: a[k] for k in ("rule", "hand_index", "seat", "tile", "message", "suggest", "now")}
              for a in s.alerts if a["is_public"] or a["hand_index"] < ended_hands]
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
        "dora_indicators": list(s.indicators),
        "dora": [dora_of(t, is_sanma=s.n_seats == 3) for t in s.indicators],
        "live_wall": s.live_wall,
        "dice": [list(r) for r in s.rolls],
        "last_result": s.last_result,
        "pending_result": s.result,
        "result_problem": s.result_error if s.phase in ("win", "draw", "result") else None,
        "alerts": alerts,
        "settlement": s.settlement,
        "hands": [dict(row) for row in s.history],
    }


def _tenpai_of(s: GameState, seat: int) -> bool | None:
    """Tenpai at a draw, from the shown (or, once applied, the last) result; None otherwise."""
    res = s.result if s.result is not None else (s.last_result if s.phase in ("walls", "ended") else None)
    if res is not None and "tenpai" in res:
        return bool(res["tenpai"][seat])
    return None


def staff_alerts(state: GameState) -> list[dict]:
    """Every alert of the game (the staff view), hidden ones included."""
    return [dict(a) for a in state.alerts]
