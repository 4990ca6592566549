"""The fan tracker at a hand's end: declared wins (hk: the first claimant counter-clockwise
from the discarder; chinese: three claims are a draw or the first claimant wins), revealed
hands (相公: a hand of the wrong size may not win), the confirmation of the result, the
rotation of the deal and the round, the game's end. Handlers of the fan family."""

from __future__ import annotations

from controller import events as ev
from controller import integrity as IG
from controller.rules import chinese as CH
from controller.tracker.fan.play import infer_draw
from controller.tracker.fan.scoring import compute_result, next_round
from controller.tracker.fan.state import FanState
from controller.tracker.hand import alert, begin_hand, census, ron_source, ron_tile, uncount
from controller.tracker.staff import claim_tsumo, sheet_row


def declare_tsumo(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    if claim_tsumo(s, seat_no, cmds, now, infer_draw=infer_draw, name="a self-drawn win"):
        _take_early_reveal(s, seat_no, now, cmds)


def _take_early_reveal(s: FanState, seat_no: int, now: float, cmds: list) -> None:
    """The winner's hand, seen laid down before its win button reached the game, is its reveal."""
    # new dicts, never changed in place: a state's dicts are shared with its clones (the states
    # before this step)
    early = s.early_reveals.get(seat_no)
    s.early_reveals = {k: v for k, v in s.early_reveals.items() if k != seat_no}
    if early is not None and s.seats[seat_no].revealed is None:
        on_revealed(s, early, now, cmds)


def declare_ron(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    """A win on a discard (or on a kong's added tile). hk: the first claimant counter-clockwise
    from the discarder wins (S003:L115); chinese: three claims are a draw or the first claimant
    wins (profile ``three_claims``)."""
    on_draw = s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and not s.winners
    on_ron = s.phase in ("win", "result") and bool(s.winners) and s.winners[0][0] != s.winners[0][1] \
        and s.draw_kind is None
    if not (s.phase == "play" or on_draw or on_ron):
        return   # a win on the last discard beats the draw; a second claim on the same tile joins
    src = ron_source(s)
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
    s.result, s.result_problem = None, None
    s.phase = "win"
    if s.seats[first].revealed is not None:
        compute_result(s, cmds, now)
    else:
        _take_early_reveal(s, first, now, cmds)


def on_revealed(s: FanState, e: ev.HandRevealed, now: float, cmds: list) -> None:
    if s.phase == "play" and 0 <= e.seat < len(s.seats):
        s.early_reveals = {**s.early_reveals, e.seat: e}     # the win button may be on its way still
        return
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
        uncount(s, IG.new_face_up_of_reveal(s, e.seat, list(seat.revealed)))
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
        census(s, cmds, now, e.seat, IG.new_face_up_of_reveal(s, e.seat, tiles))
    if is_winner:
        compute_result(s, cmds, now)


def confirm(s: FanState, cmds: list, now: float) -> None:
    """Apply the shown result; then the next hand, or the game's end and its settlement."""
    out = s.result
    assert out is not None
    for seat, d in zip(s.seats, out["deltas"], strict=True):
        seat.score += d
    s.last_result = out
    scores = [x.score for x in s.seats]   # the sheet's deltas: the whole hand's, fines included
    sheet_row(s, out["outcome"], [a - b for a, b in zip(scores, s.hand_start_scores, strict=True)])
    s.result = None
    rnd, honba, over = next_round(s, out["next_dealer"])
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
