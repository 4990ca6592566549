"""The wall as every family tracks it: the deal, the slots seen taken (a draw, a replacement
tile, a late report of a tile already inferred, a refill), and a tile taken that the turn does
not allow. Who is owed a replacement tile and what a draw records come from the family."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller import events as ev
from controller.rules import walls as WL
from controller.tracker.hand import HandState, alert, live_end, matches

if TYPE_CHECKING:
    from controller.tracker.family import Family


def finish_deal(s: HandState) -> None:
    """The deal is over (its last slot seen, or the first act after it): every hand holds 13, the
    dealer is on turn; a jump deal's dealer took its 14th tile in the deal."""
    if s.wall is None or s.is_dealt:
        return
    s.is_dealt = True
    for _seat, slot in s.wall.layout.deal_takes:
        s.accounted.add(slot)
    s.wall.deal()
    for seat in s.seats:
        seat.n_concealed = 13
    s.deal_left = []
    s.turn = s.dealer
    if s.rules.procedures.dealing == "jump":
        s.seats[s.dealer].n_concealed = 14
        s.seats[s.dealer].has_drawn = True


def taken_in_deal(s: HandState, e: ev.WallStackTaken) -> bool:
    """A slot of the deal taken (True); the deal ends with its last slot, or with the first
    take outside it."""
    if not s.deal_left:
        return False
    slot = next((x for x in s.deal_left if matches(x, e.wall, e.stack)), None)
    if slot is None:
        finish_deal(s)
        return False
    s.deal_left.remove(slot)
    s.accounted.add(slot)
    if not s.deal_left:
        finish_deal(s)
    return True


def was_inferred_or_refill(s: HandState, e: ev.WallStackTaken) -> bool:
    """A late report of a tile already inferred taken, or the last live tile moved to the dead
    wall (a refill): no draw (True)."""
    if any(matches(x, e.wall, e.stack) for x in s.unreported):
        for slot in sorted(s.unreported):
            if matches(slot, e.wall, e.stack):
                s.unreported.discard(slot)
                break
        return True
    return any(matches(t.slot, e.wall, e.stack) for t in s.wall.refilled())


def extra_tile(s: HandState, seat_no: int) -> None:
    """A tile taken that the turn does not allow: it leaves the wall and joins the hand."""
    try:
        s.accounted.add(s.wall.draw().slot)
    except WL.WallError:
        return
    s.seats[seat_no].n_concealed += 1


def take_tile(s: HandState, seat_no: int, reason: str | None, cmds: list, now: float, *, inferred: bool) -> bool:
    """``seat_no`` takes the next live tile, or (``reason`` "kan", "north", "flower") a
    replacement tile from the dead wall; False (named) when there is none to take."""
    try:
        take = s.wall.draw_replacement(reason) if reason is not None else s.wall.draw()
    except WL.WallError as err:
        alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} cannot draw: {err}", now=now)
        return False
    s.accounted.add(take.slot)
    if inferred:
        s.unreported.add(take.slot)
    s.seats[seat_no].n_concealed += 1
    return True


def on_taken(fam: Family, s: HandState, e: ev.WallStackTaken, now: float, cmds: list) -> None:
    """A wall slot lost a tile: part of the deal, the replacement tile owed (or seen before the
    kan or flower that will claim it), the next draw of the seat on turn, or one too many."""
    if s.phase != "play" or s.wall is None:
        return
    ws = s.wall
    if taken_in_deal(s, e) or was_inferred_or_refill(s, e):
        return
    if matches(ws.next_replacement_slot(), e.wall, e.stack):
        if not fam.draw_replacement(s, cmds, now):
            s.early_replacement = True   # seen before its kan or flower: that will claim it
        return
    if fam.owes_replacement(s, None) and matches(live_end(s), e.wall, e.stack):
        return   # the refill tile moved before the replacement draw was seen
    if ws.next_draw_slot() is None:
        alert(s, cmds, "extra_draw", s.turn, None,
              f"a tile was taken from wall {e.wall} stack {e.stack} after the live wall ran out", now=now)
        return
    seat = s.seats[s.turn]
    if seat.has_drawn or seat.must_discard or fam.owes_replacement(s, s.turn):
        fam.name_extra_tile(s, s.turn, f"takes another tile (wall {e.wall} stack {e.stack}) before discarding",
                            cmds, now)
        extra_tile(s, s.turn)
        return
    fam.draw_next(s, cmds, now)
