"""The riichi tracker at a hand's end: declarations (tsumo, ron, nine terminals), revealed
hands, the confirmation of the result and the game flow after it (held while
:func:`~controller.tracker.riichi.held.holds_result`). Handlers of the riichi family."""

from __future__ import annotations

from controller import events as ev
from controller import integrity as IG
from controller.rules import flow as FL
from controller.rules import tiles as T
from controller.rules.draws import is_nine_terminals
from controller.rules.settlement import settle
from controller.tracker import problems as PB
from controller.tracker.hand import alert, begin_hand, census, ron_source, ron_tile, uncount
from controller.tracker.riichi import play as PLAY
from controller.tracker.riichi.held import holds_result
from controller.tracker.riichi.scoring import compute_result
from controller.tracker.riichi.state import GameState
from controller.tracker.staff import claim_tsumo, sheet_row


def declare_tsumo(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    if claim_tsumo(s, seat_no, cmds, now, infer_draw=PLAY.infer_draw, name="tsumo"):
        _watch_ura(s, cmds, now)
        _early_reveals(s, cmds, now)


def _early_reveals(s: GameState, cmds: list, now: float) -> None:
    """The hands seen laid down and the ura indicators seen turned before the declaration that
    ends play (its button came over the link after the camera saw them): taken now, as if seen
    after it."""
    ura, s.early_ura = s.early_ura, ()
    if s.phase in ("win", "result"):
        for e in ura:
            PLAY.on_indicator(s, e, now, cmds)
    kept, s.early_reveals = s.early_reveals, {}
    for seat, (tiles, win_tile) in sorted(kept.items()):
        on_revealed(s, ev.HandRevealed(seat=seat, tiles=tiles, win_tile=win_tile, now=now), now, cmds)


def declare_ron(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    on_draw = s.draw_kind in ("exhaustive_draw", "four_riichi", "four_kans", "four_winds") and not s.winners
    on_ron = bool(s.winners) and s.winners[0][0] != s.winners[0][1] and s.draw_kind is None
    if not (s.phase == "play" or (s.phase in ("draw", "result") and on_draw)
            or (s.phase in ("win", "result") and on_ron)):
        return   # a ron beats a draw on the same discard (houtei), and a second ron joins the first
    src = ron_source(s)
    if src is None or src == seat_no or any(w[0] == seat_no for w in s.winners):
        return
    if s.last_kakan is not None and s.timeline and s.timeline[-1][:2] == ("draw", src) and s.timeline[-1][2]:
        # the kan (or north) is robbed after its replacement tile was seen taken: that tile goes
        # back, and the ron takes the kan's tile
        s.timeline.pop()
        s.seats[src].n_concealed -= 1
        s.seats[src].has_drawn = False
    _settle_undo_riichi_for_ron(s, src)
    s.winners.append((seat_no, src))
    s.winners.sort(key=lambda w: (w[0] - src) % s.n_seats)
    s.phase = "win"
    s.draw_kind = None
    s.result = None
    if len(s.winners) == 3 and s.rules.triple_ron == "abort":
        s.draw_kind = "triple_ron"
        compute_result(s, cmds, now)
        return
    _watch_ura(s, cmds, now)
    _early_reveals(s, cmds, now)


def _settle_undo_riichi_for_ron(s: GameState, src: int) -> None:
    """A ron on a riichi discard: no stick goes down (undo a deposit taken on the stick event)."""
    seat = s.seats[src]
    last = s.timeline[-1] if s.timeline else None
    if seat.is_riichi and seat.riichi_index == -1 and last and last[0] == "discard" and last[1] == src and last[4]:
        seat.score += s.rules.riichi_cost
        s.sticks -= 1
        seat.riichi_index = len(seat.river) - 1


def _watch_ura(s: GameState, cmds: list, now: float) -> None:
    if any(s.seats[w].is_riichi for w, _ in s.winners) and s.rules.has_ura_dora and s.wall is not None:
        for slot in s.wall.layout.ura_slots[:len(s.indicators)]:
            cmds.append(ev.WatchSlot(wall=slot.seat, stack=slot.stack, purpose="ura", now=now))


def declare_nine_terminals(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    seat = s.seats[seat_no]
    if s.phase == "play":
        PLAY.infer_draw(s, seat_no, cmds, now)
    if s.phase != "play" or s.turn != seat_no or not seat.has_drawn or not s.is_first_go or seat.discards_made:
        alert(s, cmds, "inconsistent", seat_no, None,
              f"seat {seat_no} declares a draw (nine terminals) but it is not its first draw", now=now)
        return
    if not s.rules.abort_nine_terminals:
        return
    s.draw_kind = "nine_terminals"
    s.phase = "draw"
    s.winners = []
    s.nine_terminals_seat = seat_no
    compute_result(s, cmds, now)   # an abortive draw: nothing changes hands; the reveal is checked
    _early_reveals(s, cmds, now)


def on_revealed(s: GameState, e: ev.HandRevealed, now: float, cmds: list) -> None:
    """A hand laid down (or read again): checked, then the result computed if it can be. The
    alerts the hand raises are kept with it, to be withdrawn if the camera reads it again."""
    keys, n = set(s.alert_keys), len(s.alerts)
    _on_revealed(s, e, now, cmds)
    if len(s.alerts) > n and 0 <= e.seat < len(s.seats):
        seat = s.seats[e.seat]
        seat.reveal_alerts = seat.reveal_alerts + ((frozenset(s.alert_keys - keys), tuple(s.alerts[n:])),)


def _withdraw_reveal_alerts(s: GameState, seat_no: int) -> list[str]:
    """Withdraw the alerts ``seat_no``'s revealed hand raised; returns their rules."""
    seat = s.seats[seat_no]
    keys = {k for group, _recs in seat.reveal_alerts for k in group}
    gone = [rec for _keys, recs in seat.reveal_alerts for rec in recs]
    seat.reveal_alerts = ()
    if gone:
        s.alerts = [a for a in s.alerts if all(a is not g for g in gone)]
        s.alert_keys = s.alert_keys - keys
    return [a["rule"] for a in gone]


def _on_revealed(s: GameState, e: ev.HandRevealed, now: float, cmds: list) -> None:
    if s.phase == "play" and 0 <= e.seat < len(s.seats):
        # its declaration may still be on its way (a new dict: a state's dicts are shared by its clones)
        s.early_reveals = {**s.early_reveals, e.seat: (tuple(e.tiles), e.win_tile)}
        return
    if s.phase not in ("win", "draw", "result"):
        return
    seat = s.seats[e.seat]
    is_winner = any(w[0] == e.seat for w in s.winners)
    if not is_winner and s.draw_kind is None:
        return   # at a win only the winners' hands count
    is_ron = is_winner and s.winners[0][0] != s.winners[0][1]
    tiles = list(e.tiles)
    win_tile = e.win_tile
    if is_ron:
        rt = ron_tile(s)
        if len(tiles) == seat.n_concealed and rt is not None and win_tile not in tiles:
            tiles.append(win_tile or rt)   # the ron tile was left lying in the river
        if win_tile is None:
            win_tile = rt
    want = seat.n_concealed + (1 if is_ron else 0)
    if s.draw_kind == "nine_terminals":
        want = 14
    n = len(tiles)
    if seat.revealed is not None:
        # the camera read the hand again (the looks after outvoted a tile): the new reading replaces
        # the old one, in the census too
        if tuple(tiles) == seat.revealed:
            return
        uncount(s, IG.new_face_up_of_reveal(s, e.seat, list(seat.revealed)))
        withdrawn = _withdraw_reveal_alerts(s, e.seat)
        s.corrections.append({"what": "hand", "reason": "read again by the camera",
                              "data": {"seat": e.seat, "was": list(seat.revealed), "tiles": tiles,
                                       "alerts_withdrawn": withdrawn},
                              "hand_index": s.hand_index, "now": now})
    seat.revealed = tuple(tiles)
    seat.win_tile = win_tile
    if n != want or n % 3 == 0:
        alert(s, cmds, "wrong_hand_size", e.seat, None,
              f"seat {e.seat} reveals {n} tiles where {want} belong: this hand may not win", now=now)
        seat.revealed = None
        if is_winner:
            s.winners = [w for w in s.winners if w[0] != e.seat]
            if not s.winners and s.draw_kind is None:
                s.phase = "result"
                s.result = None
                s.result_problem = PB.problem(PB.WRONG_HAND_SIZE, f"seat {e.seat}'s win is refused (wrong hand "
                                              "size): staff to correct the hand or void the hand")
                return
    else:
        census(s, cmds, now, e.seat, IG.new_face_up_of_reveal(s, e.seat, tiles))
        if s.draw_kind == "nine_terminals" and e.seat == s.nine_terminals_seat and not is_nine_terminals(tiles):
            alert(s, cmds, "inconsistent", e.seat, None,
                  f"seat {e.seat} declared nine terminals but shows {T.fmt(T.sorted_tiles(tiles))}", now=now)
        if is_ron:
            ld = s.last_discard
            if ld is not None and s.last_kakan is None and e.win_tile is not None \
                    and T.plain(s.seats[ld[0]].river[ld[1]]["tile"]) != T.plain(e.win_tile):
                # the winning tile set apart is read close up: the river reading was wrong
                s.corrections.append({"what": "discard", "reason": "the winning tile read again in the hand",
                                      "data": {"seat": ld[0], "index": ld[1], "tile": e.win_tile},
                                      "hand_index": s.hand_index, "now": now})
                PLAY.fix_discard(s, ld[0], ld[1], e.win_tile)
            problem = IG.check_furiten(s, e.seat, tiles)
            if problem:
                alert(s, cmds, "furiten_ron", e.seat, win_tile, problem, now=now)
    compute_result(s, cmds, now)


def confirm(s: GameState, cmds: list, now: float) -> None:
    """Apply the shown result; the rules engine's game flow says what comes next."""
    out = s.result
    assert out is not None
    if holds_result(s):   # a set error or cheating alert: staff decide first (controller.tracker.riichi.actions)
        return
    rules = s.rules
    n = s.n_seats   # a three-player result has the replay's empty fourth seat: cut it off
    deltas = list(out["deltas"])[:n]
    after = list(out["scores_after"])[:n]
    before = tuple(a - d for a, d in zip(after, deltas, strict=True))
    if out["outcome"] == "win":
        sticks = s.hand_start_sticks
    else:
        sticks = s.hand_start_sticks + sum(1 for seat in s.seats if seat.is_riichi and seat.riichi_index == -1)
    flow = FL.GameScore(scores=before, round=s.round, honba=s.honba, sticks=sticks)
    nxt = flow.finish_hand(out["outcome"], deltas, rules, winners=[w["seat"] for w in out.get("wins", [])],
                           dealer_tenpai=bool(out.get("tenpai", [False] * 4)[s.dealer]))
    for seat, score in zip(s.seats, nxt.scores, strict=True):
        seat.score = score
    s.last_result = out
    sheet_row(s, out["outcome"], deltas)
    s.result = None
    s.sticks = nxt.sticks
    if nxt.is_over:
        s.phase = "ended"
        s.finished = True
        s.settlement = settle([x.score for x in s.seats], rules=rules, sticks=s.sticks, deducted=s.deducted)
        cmds.append(ev.Show(what="settlement", data={"scores": [x.score for x in s.seats], "reason": nxt.end_reason,
                                                     "points": s.settlement}, now=now))
        return
    s.round, s.honba = nxt.round, nxt.honba
    s.hand_index += 1
    begin_hand(s, cmds, now)
