"""The fan tracker at a hand's end: declared wins, revealed hands scored by the rules engine
(:mod:`controller.rules.hk`, :mod:`controller.rules.chinese`), draws, the result's confirmation,
the rotation of the deal and the round, the game's end; staff corrections and void hand.
Handlers of :mod:`controller.tracker.fan.family`.

A result (``Show("result")``, then ``last_result``) is a JSON-able dict::

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
from controller.tracker.fan.state import FanState, begin_hand
from controller.tracker.hand import alert, census, uncount

_WIND_FAN = {"double_wind": 2, "seat_wind_pung": 1, "dealer_wind_pair": 1}   # S000:L20-21
_MELD_KIND = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "kan", "ankan": "ankan"}


# --------------------------------------------------------------------------- declarations

def declare_tsumo(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    if s.phase != "play":
        return
    from controller.tracker.fan.play import infer_draw
    infer_draw(s, seat_no, cmds, now)
    seat = s.seats[seat_no]
    if s.turn != seat_no or not seat.has_drawn:
        alert(s, cmds, "inconsistent", seat_no, None, f"seat {seat_no} declares a self-drawn win without a drawn tile",
              now=now)
        return
    s.winners = [(seat_no, seat_no)]
    s.phase = "win"
    s.result, s.result_error = None, None


def _ron_source(s: FanState) -> int | None:
    if s.last_kakan is not None:
        return s.last_kakan[0]
    return s.last_discard[0] if s.last_discard is not None else None


def ron_tile(s: FanState) -> str | None:
    """The tile a discard win takes: the kong tile just added (robbing the kong) or the last discard."""
    if s.last_kakan is not None:
        return s.last_kakan[1]
    if s.last_discard is not None:
        return s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
    return None


def declare_ron(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    """A win on a discard (or on a kong's added tile). hk: the first claimant counter-clockwise
    from the discarder wins (S003:L115); chinese: three claims are a draw or the first claimant
    wins (profile ``three_claims``)."""
    on_draw = s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and not s.winners
    on_ron = s.phase in ("win", "result") and bool(s.winners) and s.winners[0][0] != s.winners[0][1] \
        and s.draw_kind is None
    if not (s.phase == "play" or on_draw or on_ron):
        return   # a win on the last discard beats the draw; a second claim on the same tile joins
    src = _ron_source(s)
    if src is None or src == seat_no or seat_no in s.claimants:
        return
    s.claimants.append(seat_no)
    if s.rules.family == "chinese":
        first = CH.three_claims(src, s.claimants, s.rules.chinese)
        if first is None:
            s.winners, s.draw_kind, s.phase = [], "three_claims", "draw"
            compute_result(s, cmds, now)
            return
    else:
        first = min(s.claimants, key=lambda c: (c - src) % 4)
    s.winners = [(first, src)]
    s.draw_kind = None
    s.result, s.result_error = None, None
    s.phase = "win"
    if s.seats[first].revealed is not None:
        compute_result(s, cmds, now)


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


# --------------------------------------------------------------------------- revealed hands

def on_revealed(s: FanState, e: ev.HandRevealed, now: float, cmds: list) -> None:
    if s.phase not in ("win", "draw", "result"):
        return
    seat = s.seats[e.seat]
    is_winner = any(w == e.seat for w, _src in s.winners)
    if not is_winner and s.draw_kind is None:
        return   # at a win only the winner's hand counts
    tiles = list(e.tiles)
    win_tile = e.win_tile
    is_ron = is_winner and s.winners[0][1] != e.seat
    if is_ron:
        rt = ron_tile(s)
        if len(tiles) + 3 * len(seat.melds) == 13 and rt is not None and (win_tile is None or win_tile not in tiles):
            tiles.append(win_tile or rt)   # the tile won on was left lying in the river
        if win_tile is None:
            win_tile = rt
    if seat.revealed is not None:
        if tuple(tiles) == seat.revealed:
            return
        uncount(s, _new_face_up(s, e.seat, list(seat.revealed)))
        s.corrections.append({"what": "hand", "reason": "read again by the camera",
                              "data": {"seat": e.seat, "was": list(seat.revealed), "tiles": tiles},
                              "hand_index": s.hand_index, "now": now})
    seat.revealed = tuple(tiles)
    seat.win_tile = win_tile
    wrong = CH.hand_size_error(len(tiles), len(seat.melds), has_drawn=is_winner)   # 相公: 14 to win, else 13
    if wrong is not None:
        size, want = len(tiles) + 3 * len(seat.melds), 14 if is_winner else 13
        alert(s, cmds, "wrong_hand_size", e.seat, None,
              f"seat {e.seat} reveals {len(tiles)} tiles and {len(seat.melds)} melds, {size} tiles where {want} "
              f"belong ({'大相公' if wrong == 'big' else '小相公'}): this hand may not win", now=now)
    else:
        census(s, cmds, now, e.seat, _new_face_up(s, e.seat, tiles))
    if is_winner:
        compute_result(s, cmds, now)


def _new_face_up(s: FanState, seat_no: int, tiles: list[str]) -> list[str]:
    rest = list(tiles)
    st = s.seats[seat_no]
    if any(w == seat_no and src != seat_no for w, src in s.winners) and st.win_tile in rest:
        rest.remove(st.win_tile)
    return rest


# --------------------------------------------------------------------------- results

def _meld_of(m: dict) -> Meld:
    return Meld(_MELD_KIND[m["kind"]], tuple(T.plain(t) for t in m["tiles"]))


def _next_round(s: FanState, new_dealer: int) -> tuple[int, int, bool]:
    """(round index, dealer's repeat count, whether the game is over) once the deal goes to
    ``new_dealer``: a round ends when the deal comes back to the first dealer (seat 0)."""
    wind, over = HK.advance_round(s.round_wind, s.dealer, new_dealer, 0)
    honba = s.honba + 1 if new_dealer == s.dealer else 0
    return wind * 4 + new_dealer, honba, over


def _publish(s: FanState, cmds: list, now: float, *, outcome: str, kind: str, deltas, next_dealer: int,
             wins: list[dict] = (), false_win: dict | None = None, note: str | None = None) -> None:
    before = [x.score for x in s.seats]
    nxt_round, _honba, over = _next_round(s, next_dealer)
    out = {"hand": s.hand_index, "round": round_name(s.round), "honba": s.honba, "family": s.rules.family,
           "outcome": outcome, "kind": kind, "wins": list(wins), "false_win": false_win,
           "deltas": list(deltas), "scores_before": before,
           "scores_after": [b + d for b, d in zip(before, deltas, strict=True)],
           "fines": [dict(f) for f in s.fines], "next_dealer": next_dealer,
           "next_round": None if over else round_name(nxt_round), "game_over": over, "note": note}
    s.result = out
    s.result_error = None
    s.phase = "result"
    cmds.append(ev.Show(what="result", data=out, now=now))


def compute_result(s: FanState, cmds: list, now: float) -> None:
    """The result of the hand as it stands, shown; or ``result_error`` saying what is awaited."""
    family = s.rules.family
    if s.draw_kind is not None:
        _draw_result(s, cmds, now)
        return
    if not s.winners:
        s.result, s.result_error = None, "waiting for a winner"
        return
    w, src = s.winners[0]
    seat = s.seats[w]
    if seat.revealed is None:
        s.result, s.result_error = None, f"waiting for seat {w}'s hand"
        return
    tiles = [t for t in seat.revealed]
    size = len(tiles) + 3 * len(seat.melds)
    problem = None
    if size != 14:
        problem = f"seat {w}'s hand holds {size} tiles (melds counting 3) where 14 belong"
    elif seat.wrong_size is not None:
        problem = f"seat {w}'s hand was {'too big' if seat.wrong_size == 'big' else 'too small'} during the hand (相公)"
    if problem is None:
        try:
            win = _score_win(s, w, src)
        except (HandShapeError, ValueError) as err:
            s.result, s.result_error = None, f"the hand cannot be scored as seen: {err}"
            s.phase = "result"
            return
        if win.get("error") is None:
            pay = win.pop("payments")
            nd = (HK.next_dealer(s.dealer, w, s.rules.hk) if family == "hk"
                  else CH.next_dealer(s.dealer, w, s.rules.chinese))
            _publish(s, cmds, now, outcome="win", kind="win", deltas=pay, next_dealer=nd, wins=[win])
            return
        problem = f"seat {w}'s hand does not win ({win['error']})"
    if family == "chinese":   # 诈和: the false winner pays each of the others
        deltas = CH.false_win_penalty(w, 0, s.rules.chinese)
        _publish(s, cmds, now, outcome="false_win", kind="false_win", deltas=deltas,
                 next_dealer=(s.dealer + 1) % 4, false_win={"seat": w, "reason": problem},
                 note="false win: penalty by the hand's base value (0 fan); the deal passes")
        return
    s.result = None
    s.result_error = f"the hand cannot be scored as seen: {problem}; staff to correct the hand or void it"
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


# --------------------------------------------------------------------------- flow

def confirm(s: FanState, cmds: list, now: float) -> None:
    """Apply the shown result; then the next hand, or the game's end and its settlement."""
    out = s.result
    assert out is not None
    for seat, d in zip(s.seats, out["deltas"], strict=True):
        seat.score += d
    s.last_result = out
    _sheet_row(s, out["outcome"])
    s.result = None
    nd = out["next_dealer"]
    rnd, honba, over = _next_round(s, nd)
    if over:
        s.phase = "ended"
        s.finished = True
        s.settlement = [float(x.score) for x in s.seats]
        cmds.append(ev.Show(what="settlement", data={"scores": [x.score for x in s.seats], "reason": "north_round_end",
                                                     "points": s.settlement}, now=now))
        return
    s.round, s.honba = rnd, honba
    s.hand_index += 1
    begin_hand(s, cmds, now)


def _sheet_row(s: FanState, outcome: str) -> None:
    """One line of the score sheet: every seat's change over the hand (fines included) and score after it."""
    scores = [x.score for x in s.seats]
    s.history.append({"hand": s.hand_index, "round": round_name(s.round), "honba": s.honba, "outcome": outcome,
                      "deltas": [a - b for a, b in zip(scores, s.hand_start_scores, strict=True)], "scores": scores})


def unscorable_at_ok(s: FanState, cmds: list, now: float) -> None:
    """OK pressed while the hand gives no result: now an alert, for staff to correct or void."""
    if s.result is None and s.result_error and not s.result_error.startswith("waiting"):
        alert(s, cmds, "inconsistent", None, None, s.result_error, now=now, key=("result", s.result_error[:80]))


def on_confirm(s: FanState, e: ev.ConfirmResult, now: float, cmds: list) -> None:
    if e.hand_index != s.hand_index:
        return
    if s.phase == "result" and s.result is not None:
        confirm(s, cmds, now)
    elif s.phase in ("win", "draw", "result"):
        unscorable_at_ok(s, cmds, now)


def on_void(s: FanState, e: ev.VoidHand, now: float, cmds: list) -> None:
    if s.phase in ("idle", "ended", "seating"):
        return
    for seat, score in zip(s.seats, s.hand_start_scores, strict=True):
        seat.score = score
    _sheet_row(s, "void")
    s.corrections.append({"what": "void_hand", "reason": e.reason, "hand_index": s.hand_index, "now": now})
    begin_hand(s, cmds, now)


def on_correction(s: FanState, e: ev.Correction, now: float, cmds: list) -> None:
    s.corrections.append({"what": e.what, "reason": e.reason, "data": e.data, "hand_index": s.hand_index, "now": now})
    d = e.data
    try:
        if e.what == "hand":
            seat = s.seats[int(d["seat"])]
            seat.revealed = tuple(T.check(t) for t in d["tiles"])
            seat.win_tile = d.get("win_tile")
            seat.wrong_size = None   # staff checked the hand
        elif e.what == "discard":
            entry = s.seats[int(d["seat"])].river[int(d["index"])]
            uncount(s, [entry["tile"]])
            entry["tile"] = T.check(d["tile"])
            census(s, cmds, now, int(d["seat"]), [entry["tile"]])
        elif e.what == "scores":
            for seat, x in zip(s.seats, d["scores"], strict=True):
                seat.score = int(x)
        elif e.what == "winner":
            s.winners = [(int(d["seat"]), int(d.get("from", d["seat"])))]
            s.draw_kind = None
            s.phase = "win"
        else:
            return
    except (KeyError, TypeError, ValueError, IndexError) as err:
        alert(s, cmds, "inconsistent", None, None, f"correction {e.what!r} could not be applied: {err}", now=now,
              key=("correction", len(s.corrections)))
        return
    if s.phase in ("win", "draw", "result"):
        compute_result(s, cmds, now)
