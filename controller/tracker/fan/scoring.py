"""The fan family's hand result: the revealed hand scored by the rules engine
(:func:`controller.rules.hk.score` / :func:`controller.rules.chinese.score`), draws, the false
win (chinese), shown (``Show("result")``); or ``result_problem`` (:mod:`controller.tracker.problems`).

A result (then ``last_result``) is a JSON-able dict::

    {"hand", "round", "honba", "family", "outcome" (win | exhaustive_draw | abortive_draw |
     false_win), "kind" (win, exhaustive_draw, four_winds, four_kans, three_claims, false_win),
     "wins": [{"seat", "from", "is_self_draw", "fan", "points", ...}], "false_win": {...} | None,
     "deltas", "scores_before", "scores_after", "next_dealer", "next_round", "game_over"}

Choices where the seeds and RULINGS are silent (named in the result's ``note``): a false win's
"intended value" is the hand's base value (0 fan: a hand that does not win has no fan); after a
false win the deal passes (the dealer did not win, S000:L16); after four kans or three claims the
deal moves as after an exhaustive draw, without its penalty.
"""

from __future__ import annotations

from controller import events as ev
from controller.rules import chinese as CH
from controller.rules import hk as HK
from controller.rules import tiles as T
from controller.rules.flow import round_name
from controller.rules.hk.arrange import HandShapeError, Meld
from controller.tracker import problems as PB
from controller.tracker.fan.state import FanState

_WIND_FAN = {"double_wind": 2, "seat_wind_pung": 1, "dealer_wind_pair": 1}   # S000:L20-21
_MELD_KIND = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "kan", "ankan": "ankan"}


def four_winds(s: FanState, cmds: list, now: float) -> None:
    """四风连打 in the first go-round (chinese): a draw, or the dealer pays the fine and play goes on."""
    mode, _nd, deltas = CH.four_winds(s.dealer, s.rules.chinese)
    if mode == "draw":
        s.draw_kind, s.phase = "four_winds", "draw"
        compute_result(s, cmds, now)
        return
    for seat, d in zip(s.seats, deltas, strict=True):
        seat.score += d
    s.fines.append({"kind": "four_winds_fine", "deltas": list(deltas)})
    cmds.append(ev.Show(what="message", data={"text": "four winds: the dealer pays the fine, play goes on",
                                              "deltas": list(deltas)}, now=now))


def _meld_of(m: dict) -> Meld:
    return Meld(_MELD_KIND[m["kind"]], tuple(T.plain(t) for t in m["tiles"]))


def next_round(s: FanState, new_dealer: int) -> tuple[int, int, bool]:
    """(round index, dealer's repeat count, whether the game is over) once the deal goes to
    ``new_dealer``: a round ends when the deal comes back to the first dealer (seat 0)."""
    wind, over = HK.advance_round(s.round_wind, s.dealer, new_dealer, 0)
    honba = s.honba + 1 if new_dealer == s.dealer else 0
    return wind * 4 + new_dealer, honba, over


def _publish(s: FanState, cmds: list, now: float, *, outcome: str, kind: str, deltas, next_dealer: int,
             wins: list[dict] = (), false_win: dict | None = None, note: str | None = None) -> None:
    before = [x.score for x in s.seats]
    nxt_round, _honba, over = next_round(s, next_dealer)
    out = {"hand": s.hand_index, "round": round_name(s.round), "honba": s.honba, "family": s.rules.family,
           "outcome": outcome, "kind": kind, "wins": list(wins), "false_win": false_win,
           "deltas": list(deltas), "scores_before": before,
           "scores_after": [b + d for b, d in zip(before, deltas, strict=True)],
           "fines": [dict(f) for f in s.fines], "next_dealer": next_dealer,
           "next_round": None if over else round_name(nxt_round), "game_over": over, "note": note}
    s.result = out
    s.result_problem = None
    s.phase = "result"
    cmds.append(ev.Show(what="result", data=out, now=now))


def compute_result(s: FanState, cmds: list, now: float) -> None:
    """The result of the hand as it stands, shown; or ``result_problem`` saying why not."""
    family = s.rules.family
    if s.draw_kind is not None:
        _draw_result(s, cmds, now)
        return
    if not s.winners:
        s.result, s.result_problem = None, PB.problem(PB.WAITING, "waiting for a winner")
        return
    w, src = s.winners[0]
    seat = s.seats[w]
    if seat.revealed is None:
        s.result, s.result_problem = None, PB.problem(PB.WAITING, f"waiting for seat {w}'s hand")
        return
    tiles = [t for t in seat.revealed]
    size = len(tiles) + 3 * len(seat.melds)
    problem, kind = None, PB.WRONG_HAND_SIZE
    if size != 14:
        problem = f"seat {w}'s hand holds {size} tiles (melds counting 3) where 14 belong"
    elif seat.wrong_size is not None:
        problem = f"seat {w}'s hand was {'too big' if seat.wrong_size == 'big' else 'too small'} during the hand (相公)"
    if problem is None:
        try:
            win = _score_win(s, w, src)
        except (HandShapeError, ValueError) as err:
            s.result = None
            s.result_problem = PB.problem(PB.UNSCORABLE, f"the hand cannot be scored as seen: {err}")
            s.phase = "result"
            return
        if win.get("error") is None:
            pay = win.pop("payments")
            nd = (HK.next_dealer(s.dealer, w, s.rules.hk) if family == "hk"
                  else CH.next_dealer(s.dealer, w, s.rules.chinese))
            _publish(s, cmds, now, outcome="win", kind="win", deltas=pay, next_dealer=nd, wins=[win])
            return
        problem, kind = f"seat {w}'s hand does not win ({win['error']})", PB.NO_WIN
    if family == "chinese":   # 诈和: the false winner pays each of the others
        deltas = CH.false_win_penalty(w, 0, s.rules.chinese)
        _publish(s, cmds, now, outcome="false_win", kind="false_win", deltas=deltas,
                 next_dealer=(s.dealer + 1) % 4, false_win={"seat": w, "reason": problem},
                 note="false win: penalty by the hand's base value (0 fan); the deal passes")
        return
    s.result = None
    s.result_problem = PB.problem(kind, f"the hand cannot be scored as seen: {problem}; staff to correct the hand "
                                  "or void it")
    s.phase = "result"


def _score_win(s: FanState, w: int, src: int) -> dict:
    """Score seat ``w``'s revealed hand (a self-drawn win when ``src == w``). Returns the win's
    record with its ``payments`` (or ``error``). Raises HandShapeError for an impossible hand."""
    seat = s.seats[w]
    tiles = list(seat.revealed or ())
    melds = [_meld_of(m) for m in seat.melds]
    is_self_draw = src == w
    win_tile = seat.win_tile
    robbed = not is_self_draw and s.last_kakan is not None and s.last_kakan[0] == src
    seat_wind = (w - s.dealer) % 4
    rules = s.rules
    candidates = [win_tile] if win_tile in tiles else list(dict.fromkeys(tiles))
    best: dict | None = None
    for tile in candidates:
        if rules.family == "hk":
            r = HK.score(tiles, win_tile=tile, melds=melds, is_self_draw=is_self_draw, flowers=seat.flowers,
                         seat_wind=seat_wind, rules=rules.hk)
            rec = {"seat": w, "from": src, "is_self_draw": is_self_draw, "win_tile": tile, "hand": tiles,
                   "error": r.error, "pattern": r.pattern, "fan": r.fan, "pattern_fan": r.pattern_fan,
                   "flower_fan": r.flower_fan, "own_flowers": r.own_flowers, "points": r.points,
                   "hits": [{"name": h.name, "kanji": h.kanji, "fan": h.fan} for h in r.hits],
                   "arrangement": r.arrangement, "flowers": list(seat.flowers), "robbed_kong": robbed,
                   "yaku": [[r.pattern, r.pattern_fan]] + ([["flowers", r.flower_fan]] if r.flower_fan else [])}
            if r.error is None:
                rec["payments"] = HK.payments(r.points, w, None if is_self_draw else src, rules.hk)
        else:
            r = CH.score(tiles, win_tile=tile, melds=melds, seat_wind=seat_wind, round_wind=s.round_wind % 4,
                         winner=w, discarder=None if (is_self_draw or robbed) else src, dealer=s.dealer,
                         robbed_kong_by=src if robbed else None, rules=rules.chinese)
            rec = {"seat": w, "from": src, "is_self_draw": is_self_draw, "win_tile": tile, "hand": tiles,
                   "error": r.error, "fan": r.fan, "points": r.points, "reasons": list(r.reasons),
                   "arrangement": r.arrangement, "flowers": list(seat.flowers), "robbed_kong": robbed,
                   "yaku": [[x, _WIND_FAN.get(x, 1)] for x in r.reasons]}
            if r.error is None:
                rec["payments"] = r.payments
        key = (rec["error"] is None, rec["points"])
        if best is None or key > (best["error"] is None, best["points"]):
            best = rec
    assert best is not None
    if len(candidates) > 1 and best["error"] is None:
        s.corrections.append({"what": "win_tile", "reason": "the winning tile was not set apart: best reading",
                              "data": {"seat": w, "tile": best["win_tile"]}, "hand_index": s.hand_index})
    return best


def _draw_result(s: FanState, cmds: list, now: float) -> None:
    kind = s.draw_kind
    family = s.rules.family
    zero = (0, 0, 0, 0)
    if family == "hk":
        _publish(s, cmds, now, outcome="exhaustive_draw" if kind == "exhaustive_draw" else "abortive_draw",
                 kind=kind, deltas=zero, next_dealer=HK.next_dealer(s.dealer, None, s.rules.hk))
        return
    rules = s.rules.chinese
    if kind == "exhaustive_draw":
        nd, deltas = CH.exhaustive_draw(s.dealer, rules)
        _publish(s, cmds, now, outcome="exhaustive_draw", kind=kind, deltas=deltas, next_dealer=nd)
        return
    if kind == "four_winds":
        _mode, nd, deltas = CH.four_winds(s.dealer, rules)
        _publish(s, cmds, now, outcome="abortive_draw", kind=kind, deltas=deltas, next_dealer=nd)
        return
    nd = s.dealer if rules.exhaustive_draw == "dealer_stays" else (s.dealer + 1) % 4
    _publish(s, cmds, now, outcome="abortive_draw", kind=kind, deltas=zero, next_dealer=nd,
             note=f"{kind}: the deal moves as after an exhaustive draw, nothing is paid")


def unscorable_message(s: FanState) -> str | None:
    """OK pressed while the hand has no result and nothing is awaited: the alert for staff."""
    if s.result_problem is not None and not PB.is_waiting(s.result_problem):
        return s.result_problem["message"]
    return None
