"""What the table display needs beyond the contract's fields (the daemon core's read model adds it, :mod:`controller.daemon_core`).

Every figure is read from the tracker's state or the rules engine; nothing here decides play:

- per seat: ``discards`` (the river in order, the riichi tile ``sideways``, a tile taken by a
  call kept and marked ``called``), ``place`` (1 = leading; ties by seat order from the first
  dealer) and ``gaps`` (this seat's points minus every other seat's, None for itself), the
  ``hand`` shown at a win or a draw and its ``win_tile``;
- ``turn``: the seat to play (None outside play); ``ura_indicators`` once turned;
- ``result_view``: the shown result made readable (limit names, winners' hands, waits at a
  draw, the abortive draw by name);
- ``final``: the ranked end of the game (final points with uma and oka);
- ``needs``: in the game's last hand, what each seat needs to take the lead (AMOS style).
"""

from __future__ import annotations

from typing import Any

from controller.rules import scoring as SC
from controller.rules import waits as WT
from controller.rules.settlement import ranking

_ABORTIVE = ("nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron")


def _places(scores: list[int], first_dealer: int = 0) -> list[int]:
    order = ranking(scores, first_dealer=first_dealer)
    places = [0] * len(scores)
    for place, seat in enumerate(order):
        places[seat] = place + 1
    return places


def seat_extras(out: dict[str, Any], state: Any) -> None:
    """Places and point gaps for any tracker; rivers and shown hands for the riichi tracker."""
    seats = out.get("seats") or []
    scores = [int(s.get("score", 0)) for s in seats]
    places = _places(scores) if scores else []
    for i, seat in enumerate(seats):
        seat["place"] = places[i]
        seat["gaps"] = [None if j == i else scores[i] - scores[j] for j in range(len(scores))]
    tracked = getattr(state, "seats", None)
    if not tracked or not hasattr(tracked[0], "river") or len(tracked) != len(seats):
        return
    for seat, st in zip(seats, tracked, strict=True):
        seat["discards"] = [{"tile": r["tile"], "sideways": bool(r.get("is_sideways")),
                             "tsumogiri": bool(r.get("is_tsumogiri")), "called": r.get("taken_by") is not None}
                            for r in st.river]
        revealed = getattr(st, "revealed", None)
        seat["hand"] = list(revealed) if revealed is not None else None
        seat["win_tile"] = getattr(st, "win_tile", None)
    phase = getattr(state, "phase", "")
    out["turn"] = getattr(state, "turn", None) if phase == "play" else None
    ura = [u for u in getattr(state, "ura", []) or [] if u]
    out["ura_indicators"] = ura if phase in ("win", "draw", "result") else []


def _limit(win: dict, rules: Any) -> str:
    if "fan" in win or rules is None:
        return ""
    try:
        return SC.base_points(int(win.get("han", 0)), int(win.get("fu", 0)), rules, int(win.get("yakuman", 0)))[1]
    except (ValueError, TypeError):
        return ""


def _melds_of(st: Any) -> list:
    from controller.tracker.riichi.record import rules_meld
    try:
        return [rules_meld(m) for m in st.melds]
    except (KeyError, ValueError):
        return []


def result_view(out: dict[str, Any], state: Any, rules: Any) -> dict[str, Any] | None:
    """The shown (or last) result, readable: winners' hands, limit names, waits, draw names."""
    res = out.get("pending_result") or out.get("last_result")
    if not res:
        return None
    is_current = out.get("pending_result") is not None or getattr(state, "phase", "") in ("win", "draw", "result")
    tracked = getattr(state, "seats", None) if is_current else None
    kind = res.get("outcome")
    draw_kind = getattr(state, "draw_kind", None) if is_current else None
    if kind == "abortive_draw":
        kind = draw_kind if draw_kind in _ABORTIVE else res.get("kind", "abortive_draw")
    view: dict[str, Any] = {"hand": res.get("hand"), "round": res.get("round"), "honba": res.get("honba"),
                            "kind": kind, "is_pending": out.get("pending_result") is not None,
                            "deltas": list(res.get("deltas", []))[:len(out.get("seats") or [])],
                            "dora_indicators": res.get("dora_indicators", []),
                            "ura_indicators": list(out.get("ura_indicators") or []) if is_current else [],
                            "wins": [], "tenpai": []}
    for w in res.get("wins", []):
        item = {**w, "limit": _limit(w, rules), "is_tsumo": w.get("seat") == w.get("from")}
        if tracked is not None and 0 <= w.get("seat", -1) < len(tracked):
            st = tracked[w["seat"]]
            item["hand"] = list(st.revealed) if getattr(st, "revealed", None) else None
            item["win_tile"] = getattr(st, "win_tile", None)
            item["melds"] = [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in getattr(st, "melds", [])]
        view["wins"].append(item)
    for i, is_tenpai in enumerate(res.get("tenpai", [])[:len(out.get("seats") or [])]):
        if not is_tenpai:
            continue
        entry: dict[str, Any] = {"seat": i, "hand": None, "waits": [], "melds": []}
        if tracked is not None and i < len(tracked) and getattr(tracked[i], "revealed", None):
            st = tracked[i]
            entry["hand"] = list(st.revealed)
            entry["melds"] = [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in st.melds]
            try:
                entry["waits"] = WT.waits(list(st.revealed), _melds_of(st))
            except ValueError:
                entry["waits"] = []
        view["tenpai"].append(entry)
    return view


def final_view(out: dict[str, Any], rules: Any, first_dealer: int = 0) -> list[dict[str, Any]] | None:
    """The ranked end: place, seat, final score, uma/oka (thousands) and the settled points."""
    points = out.get("settlement")
    if not out.get("finished") or not points:
        return None
    scores = [int(s["score"]) for s in out["seats"]]
    order = ranking(scores, first_dealer=first_dealer)
    ret = getattr(rules, "return_points", 30000)
    rows = []
    for place, seat in enumerate(order):
        bonus = round(points[seat] - (scores[seat] - ret) / 1000, 1)
        rows.append({"place": place + 1, "seat": seat, "score": scores[seat], "uma_oka": bonus,
                     "points": points[seat]})
    return rows


# han/fu hands from cheapest up, for "what each needs"
_HANDS = [(1, 30), (1, 40), (2, 30), (2, 40), (3, 30), (3, 40), (4, 30), (5, 30), (6, 30), (8, 30), (11, 30),
          (13, 30)]


def _up(x: float) -> int:
    return int(-(-x // 100) * 100)


def _pay(han: int, fu: int, rules: Any, *, dealer_wins: bool) -> tuple[int, int, int]:
    """(ron points, tsumo: each non-dealer pays, the dealer pays) without honba."""
    base, _ = SC.base_points(han, fu, rules)
    if dealer_wins:
        return _up(base * 6), _up(base * 2), 0
    return _up(base * 4), _up(base), _up(base * 2)


def _label(han: int, fu: int, rules: Any) -> dict[str, Any]:
    _, limit = SC.base_points(han, fu, rules)
    return {"han": han, "fu": fu, "limit": limit}


def needs_view(out: dict[str, Any], state: Any, rules: Any) -> list[dict[str, Any]] | None:
    """All-last: for each seat behind the leader, the cheapest hand for a direct ron off the
    leader, a ron off another seat and a tsumo that takes the lead (honba and sticks counted)."""
    if rules is None or out.get("finished") or getattr(state, "phase", "") not in ("walls", "dice", "play"):
        return None
    n = len(out.get("seats") or [])
    length = getattr(rules, "game_length", None) or getattr(rules, "length", "hanchan")
    winds = 1 if str(length).startswith(("tonpu", "east")) else 2
    if n != 4 or getattr(state, "round", 0) != winds * 4 - 1:
        return None
    scores = [int(s["score"]) for s in out["seats"]]
    honba, sticks = int(out.get("honba", 0)), int(out.get("riichi_sticks", 0))
    dealer = int(out.get("dealer", 0))
    leader = ranking(scores)[0]
    rows = []
    hands = sorted(_HANDS, key=lambda hf: SC.base_points(hf[0], hf[1], rules)[0])
    for seat in range(n):
        if seat == leader:
            continue
        gap = scores[leader] - scores[seat]
        row: dict[str, Any] = {"seat": seat, "gap": gap, "direct": None, "ron": None, "tsumo": None}
        for han, fu in hands:
            ron, each, dpay = _pay(han, fu, rules, dealer_wins=seat == dealer)
            gain_ron = ron + 300 * honba + 1000 * sticks
            if row["direct"] is None and 2 * gain_ron - 1000 * sticks > gap:
                row["direct"] = {**_label(han, fu, rules), "points": ron}
            if row["ron"] is None and gain_ron > gap:
                row["ron"] = {**_label(han, fu, rules), "points": ron}
            leader_pays = (dpay if leader == dealer else each) + 100 * honba
            total = (each * 3 if seat == dealer else each * 2 + dpay) + 300 * honba + 1000 * sticks
            if row["tsumo"] is None and total + leader_pays > gap:
                row["tsumo"] = {**_label(han, fu, rules), "points": total - 300 * honba - 1000 * sticks}
        rows.append(row)
    return rows
