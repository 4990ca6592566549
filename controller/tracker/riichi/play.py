"""The riichi tracker during play: the wall (deal, draws, replacement tiles), discards, riichi
sticks, indicators, the abortive draws a discard can bring. Handlers of the riichi family; each
changes the state it is given (a copy made by ``step``) and appends its commands."""

from __future__ import annotations

from controller import events as ev
from controller import integrity as IG
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.tracker import river as RIVER
from controller.tracker import wall as WALL
from controller.tracker.hand import alert, census, count, matches, uncount
from controller.tracker.riichi.scoring import compute_result
from controller.tracker.riichi.state import GameState


def draw_replacement(s: GameState, cmds: list, now: float) -> bool:
    """The replacement tile seen taken: drawn by the seat owed it (False: nobody is, yet)."""
    if s.kan_pending is None:
        return False
    draw_tile(s, s.kan_pending, rinshan=True, cmds=cmds, now=now)
    return True


def owes_replacement(s: GameState, seat_no: int | None) -> bool:
    return s.kan_pending is not None   # only ever the seat on turn


def draw_next(s: GameState, cmds: list, now: float) -> None:
    """The next live tile seen taken: the seat on turn draws it (the dealer, before any act)."""
    if s.last_discard is None and s.turn != s.dealer and not s.timeline:
        s.turn = s.dealer
    draw_tile(s, s.turn, rinshan=False, cmds=cmds, now=now)


def name_extra_tile(s: GameState, seat_no: int, what: str, cmds: list, now: float) -> None:
    alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} {what}", now=now)


def draw_tile(s: GameState, seat_no: int, *, rinshan: bool, cmds: list, now: float, inferred: bool = False) -> bool:
    ws = s.wall
    settle_riichi_deposit(s, cmds, now)
    if not WALL.take_tile(s, seat_no, s.replacement_reason if rinshan else None, cmds, now, inferred=inferred):
        return False
    seat = s.seats[seat_no]
    seat.has_drawn = True
    s.turn = seat_no
    if not rinshan:
        s.last_kakan = None   # the kan (or north) just made stays robbable until its maker discards
    if rinshan:
        s.kan_pending = None
        s.replacement_reason = "kan"
        if s.flips_now:
            nxt = ws.next_indicator_slot()
            if nxt is not None:
                cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="indicator", now=now))
    s.timeline.append(("draw", seat_no, rinshan))
    return True


def settle_riichi_deposit(s: GameState, cmds: list, now: float) -> None:
    """A riichi discard that nobody won on: its stick goes down (once). The fourth one ends
    the hand when the profile aborts on four riichi."""
    for seat in s.seats:
        if seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
            seat.score -= s.rules.riichi_cost
            s.sticks += 1
            seat.riichi_index = -1   # deposited
    if s.phase == "play" and s.rules.abort_four_riichi and len(s.seats) == 4 and all(x.is_riichi for x in s.seats):
        s.draw_kind = "four_riichi"
        s.phase = "draw"
        compute_result(s, cmds, now)


def on_discard(s: GameState, e: ev.Discard, now: float, cmds: list) -> None:
    if s.phase != "play" or s.wall is None:
        return
    if s.early_replacement:
        s.early_replacement = False
        alert(s, cmds, "extra_draw", s.turn, None,
              f"seat {s.turn} takes a replacement tile from the dead wall without a kan", now=now)
    if s.deal_left:
        WALL.finish_deal(s)
    if RIVER.discard_out_of_turn(s, e, cmds, now):
        return
    seat = s.seats[e.seat]
    infer_draw(s, e.seat, cmds, now)
    settle_riichi_deposit(s, cmds, now)
    if seat.must_discard:
        banned = IG.check_kuikae(seat.melds[-1], e.tile, s.rules) if seat.melds else None
        if banned:
            alert(s, cmds, "kuikae", e.seat, e.tile, banned, now=now)
    is_riichi = e.is_riichi and not seat.is_riichi
    RIVER.add_discard(s, e, {"is_sideways": e.is_riichi, "t": len(s.timeline)})
    if is_riichi:
        seat.is_riichi = True
        seat.riichi_index = len(seat.river) - 1
    s.timeline.append(("discard", e.seat, e.tile, e.is_tsumogiri, is_riichi))
    census(s, cmds, now, e.seat, [e.tile])
    if s.flips_owed:
        nxt = s.wall.next_indicator_slot()
        if nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="indicator", now=now))
    _check_abortive_after_discard(s, cmds, now)
    if s.phase == "play" and s.wall.live_remaining == 0:
        s.draw_kind = "exhaustive_draw"
        s.phase = "draw"
        compute_result(s, cmds, now)


def infer_draw(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    """The seat on turn acts (discards, kans, declares tsumo) without a draw seen: the camera
    missed the wall; the act proves the draw (a replacement tile after a kan)."""
    if s.deal_left:
        WALL.finish_deal(s)
    seat = s.seats[seat_no]
    if s.turn == seat_no and not seat.has_drawn and not seat.must_discard and s.wall is not None:
        draw_tile(s, seat_no, rinshan=s.kan_pending is not None, cmds=cmds, now=now, inferred=True)


def _check_abortive_after_discard(s: GameState, cmds: list, now: float) -> None:
    rules = s.rules
    discards = [x for x in s.timeline if x[0] == "discard"]
    if s.is_first_go and len(discards) == 4 and s.n_seats == 4:
        tiles = {T.plain(x[2]) for x in discards}
        if rules.abort_four_winds and len(tiles) == 1 and next(iter(tiles)) in ("1z", "2z", "3z", "4z"):
            s.draw_kind, s.phase = "four_winds", "draw"
            compute_result(s, cmds, now)
            return
    if len(discards) >= s.n_seats:
        s.is_first_go = False
    if rules.abort_four_kans and len(s.kans_by) == 4 and len(set(s.kans_by)) > 1:
        last = s.timeline[-1]
        if last[0] == "discard" and last[1] == s.kans_by[-1]:
            s.draw_kind, s.phase = "four_kans", "draw"
            compute_result(s, cmds, now)


def undo_discard(s: GameState, seat_no: int) -> None:
    """The seat's last discard is taken back: out of the hand's record (and its riichi with it)."""
    seat = s.seats[seat_no]
    for k in range(len(s.timeline) - 1, -1, -1):
        if s.timeline[k][0] == "discard" and s.timeline[k][1] == seat_no:
            item = s.timeline.pop(k)
            if item[4]:
                seat.is_riichi, seat.riichi_index = False, None
            break


def on_stick(s: GameState, e: ev.RiichiStick, now: float, cmds: list) -> None:
    seat = s.seats[e.seat]
    if s.phase == "play" and seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
        settle_riichi_deposit(s, cmds, now)


def on_indicator(s: GameState, e: ev.IndicatorRevealed, now: float, cmds: list) -> None:
    if s.wall is None or s.phase not in ("play", "win", "draw", "result"):
        return
    if e.is_ura and s.phase == "play":
        # turned beside a hand laid down whose tsumo / ron button is still on its way over the
        # MCU's link: kept, and taken when the win is declared (a new tuple: clones share it)
        s.early_ura = (*s.early_ura, e)
        return
    if (s.phase == "play") == e.is_ura:
        return   # ura indicators are read only at the end of a win; others only during play
    lay = s.wall.layout
    if e.is_ura:
        k = next((i for i, x in enumerate(lay.ura_slots) if matches(x, e.wall, e.stack)), None)
        if k is not None:
            while len(s.ura) <= k:
                s.ura.append("")
            s.ura[k] = e.tile
            census(s, cmds, now, None, [e.tile])
            if s.phase in ("win", "result"):
                compute_result(s, cmds, now)
        return
    k = next((i for i, x in enumerate(lay.indicator_slots) if matches(x, e.wall, e.stack)), None)
    if k is None:
        alert(s, cmds, "wrong_indicator", None, e.tile,
              f"a tile {e.tile} is turned at wall {e.wall} stack {e.stack}, not an indicator slot", now=now)
        return
    if k < len(s.indicators):
        if s.indicators[k] != e.tile:
            alert(s, cmds, "moved_indicator", s.turn, e.tile,
                  f"the indicator at wall {e.wall} stack {e.stack} changed from {s.indicators[k]} to {e.tile}",
                  now=now, key=("indicator", k))
        return
    if k > len(s.indicators):
        return
    if k >= 1:   # a kan indicator: one per kan made
        if len(s.kans_by) < k:
            alert(s, cmds, "wrong_indicator", None, e.tile, f"a kan indicator {e.tile} is turned without a kan",
                  now=now)
            return
        s.flips_now = max(0, s.flips_now - 1)
        s.flips_owed = max(0, s.flips_owed - 1)
        try:
            s.wall.flip_kan_indicator()   # keep the wall's count of showing indicators (its ura follow)
        except WL.WallError:
            pass   # turned before the replacement draw was seen: the indicator list is what counts
    s.indicators.append(e.tile)
    census(s, cmds, now, None, [e.tile])


def fix_discard(s: GameState, seat_no: int, index: int, tile: str) -> None:
    """Set river tile ``index`` of ``seat_no`` (and the hand record) to ``tile``."""
    entry = s.seats[seat_no].river[index]
    old = entry["tile"]
    if old == tile:
        return
    entry["tile"] = tile
    k = entry.get("t")
    if k is not None and k < len(s.timeline) and s.timeline[k][0] == "discard":
        item = s.timeline[k]
        s.timeline[k] = (item[0], item[1], tile, item[3], item[4])
    for m in s.seats[entry["taken_by"]].melds if entry["taken_by"] is not None else ():
        if m["called"] == old and m.get("from_t") == k:
            m["called"] = tile
    uncount(s, [old])
    count(s, [tile])


def replace_discard(s: GameState, cmds: list, now: float, seat_no: int, index: int, tile: str) -> None:
    """The family's way to set a river tile right (``Family.replace_discard``): the hand's record too."""
    fix_discard(s, seat_no, index, tile)
