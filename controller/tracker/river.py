"""What happens alike at every family's rivers and melds: a discard out of turn, a discard
taken back or changed, a call checked against the discard it takes, an added kan's pon
found, a tile with the other set's back. Each family's handlers call these; what differs
(how a river tile is set right, how a discard is undone) comes from its :class:`~controller.tracker.family.Family`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller import events as ev
from controller import integrity as IG
from controller.rules import tiles as T
from controller.tracker.hand import HandState, alert, census, uncount

if TYPE_CHECKING:
    from controller.tracker.family import Family


def discard_out_of_turn(s: HandState, e: ev.Discard, cmds: list, now: float) -> bool:
    """A discard by a seat not on turn: it lies in the river, marked, and is named. True if so."""
    if e.seat == s.turn:
        return False
    s.seats[e.seat].river.append({"tile": e.tile, "is_sideways": e.is_riichi, "is_tsumogiri": e.is_tsumogiri,
                                  "taken_by": None, "is_out_of_turn": True})
    alert(s, cmds, "out_of_turn", e.seat, e.tile, f"seat {e.seat} discards {e.tile} while it is seat {s.turn}'s turn",
          now=now)
    census(s, cmds, now, e.seat, [e.tile])
    return True


def add_discard(s: HandState, e: ev.Discard, entry: dict) -> None:
    """The seat on turn discards: ``entry`` joins its river, its hand and the turn move on."""
    seat = s.seats[e.seat]
    seat.river.append({"tile": e.tile, "is_tsumogiri": e.is_tsumogiri, "taken_by": None, "is_out_of_turn": False,
                       **entry})
    seat.n_concealed -= 1
    seat.has_drawn = seat.must_discard = False
    seat.discards_made += 1
    s.last_discard = (e.seat, len(seat.river) - 1)
    s.last_kakan = None
    s.turn = (e.seat + 1) % s.n_seats


def on_removed(fam: Family, s: HandState, e: ev.DiscardRemoved, now: float, cmds: list) -> None:
    """A tile left a river other than by a call: an out-of-turn tile taken back, a discard
    changed (or re-read), or a discard taken back (the last one is undone: the seat holds it
    again and is on turn)."""
    if s.phase not in ("play", "win", "draw") or not 0 <= e.index < len(s.seats[e.seat].river):
        return
    seat = s.seats[e.seat]
    entry = seat.river[e.index]
    if entry["taken_by"] is not None:
        return   # a called tile: it moved to the caller's meld
    if entry["is_out_of_turn"]:
        seat.river.pop(e.index)   # the out-of-turn tile goes back: the fault was already named
        uncount(s, [entry["tile"]])
        if e.replaced_by is not None and s.phase == "play":
            # the same place already shows another tile: the out-of-turn tile went back and, on its
            # turn, the seat discarded this one there (the camera never saw the place empty for
            # long): it is that seat's discard
            fam.handlers[ev.Discard](s, ev.Discard(seat=e.seat, tile=e.replaced_by, now=now), now, cmds)
        return
    if e.replaced_by is not None:
        # the same place now shows another tile: the discard was changed, or re-read (a camera's
        # misread put right: seen in default runs, a 2m first read as 3m). Named for staff, but it
        # does not hold the result: the hand is scored on the tile as it lies now
        alert(s, cmds, "taken_back", e.seat, entry["tile"],
              f"seat {e.seat}'s discard {entry['tile']} changed to {e.replaced_by}", now=now, holds=False)
        fam.replace_discard(s, cmds, now, e.seat, e.index, e.replaced_by)
        return
    alert(s, cmds, "taken_back", e.seat, entry["tile"],
          f"seat {e.seat} takes its discard {entry['tile']} back from the river", now=now)
    is_last = s.last_discard == (e.seat, e.index)
    uncount(s, [entry["tile"]])
    seat.river.pop(e.index)
    if is_last and s.phase == "play":
        fam.undo_discard(s, e.seat)
        seat.n_concealed += 1
        seat.has_drawn = True
        seat.discards_made -= 1
        s.turn = e.seat
        s.last_discard = None
    elif s.last_discard is not None and s.last_discard[0] == e.seat and s.last_discard[1] > e.index:
        s.last_discard = (e.seat, s.last_discard[1] - 1)


def is_call_after_last_discard(s: HandState, e: ev.Meld, cmds: list, now: float) -> bool:
    """A call shown after the hand ran out (on its last discard): named, and nothing else. True if so."""
    if s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and e.meld_kind in ("chi", "pon", "daiminkan") \
            and s.last_discard is not None:
        tile = s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
        alert(s, cmds, "last_discard_call", e.seat, tile,
              f"seat {e.seat} calls {tile}, the last discard of the hand: no call is allowed on it", now=now)
        return True
    return False


def called_discard(s: HandState, e: ev.Meld, cmds: list, now: float) -> str | None:
    """The discard a chi / pon / open kan takes, as the river read it: None (named) when there is
    none to take."""
    ld = s.last_discard
    if ld is None or ld[0] == e.seat or (e.source is not None and e.source != ld[0]):
        alert(s, cmds, "inconsistent", e.seat, e.called,
              f"seat {e.seat} shows a {e.meld_kind} but there is no discard from seat {e.source} to take", now=now)
        return None
    return s.seats[ld[0]].river[ld[1]]["tile"]


Replace = Callable[[HandState, list, float, int, int, str], None]   # Family.replace_discard


def take_discard(s: HandState, e: ev.Meld, called: str, cmds: list, now: float, replace: Replace) -> str:
    """The last discard goes to ``e.seat``'s meld; returns the called tile. The tile read again
    close up in the meld sets the river's reading right (``replace``, the family's way); a call
    on the last discard of the hand is named."""
    ld = s.last_discard
    assert ld is not None
    if e.called is not None and T.plain(e.called) != T.plain(called):
        # the tile was read again, close up, in the meld: the river reading was wrong
        s.corrections.append({"what": "discard", "reason": "the called tile read again in the meld",
                              "data": {"seat": ld[0], "index": ld[1], "tile": e.called},
                              "hand_index": s.hand_index, "now": now})
        replace(s, cmds, now, ld[0], ld[1], e.called)
        called = e.called
    if s.wall.live_remaining == 0:
        alert(s, cmds, "last_discard_call", e.seat, called, f"seat {e.seat} calls {called}, the last discard of the hand",
              now=now)
    s.seats[ld[0]].river[ld[1]]["taken_by"] = e.seat
    return called


def seat_calls(s: HandState, seat_no: int) -> None:
    """After a call: the caller is on turn, the go-round is broken, the discard is taken."""
    s.is_first_go = False
    s.turn = seat_no
    s.last_discard = None
    s.seats[seat_no].has_drawn = False


def pon_added_to(s: HandState, e: ev.Meld, word: str, cmds: list, now: float) -> tuple[int, dict, str] | None:
    """An added kan: ``(index, pon, added tile)`` of the pon (``word``: the rules' name for it)
    the tile joins, or None (named) when the seat has no such pon."""
    seat = s.seats[e.seat]
    added = e.called or e.tiles[-1]
    k = next((i for i, m in enumerate(seat.melds) if m["kind"] == "pon" and T.plain(m["tiles"][0]) == T.plain(added)),
             None)
    if k is None:
        alert(s, cmds, "inconsistent", e.seat, added, f"seat {e.seat} adds {added} to a {word} it does not have", now=now)
        return None
    return k, seat.melds[k], added


def on_wall_back(fam: Family, s: HandState, e: ev.WallBack, now: float, cmds: list) -> None:
    if s.phase in ("walls", "dice", "play"):
        alert(s, cmds, "other_back", e.wall, None,
              f"a tile with the other set's back ({e.colour}) stands in wall {e.wall} stack {e.stack}", now=now,
              key=("back", e.wall, e.stack))


def on_hand_count(fam: Family, s: HandState, e: ev.HandCount, now: float, cmds: list) -> None:
    """The camera's count of a seat's standing tiles (integrity.check_hand_count). In the Chinese
    rules a seat of the wrong size (相公) may no longer win; its alert waits for the hand's end."""
    why = IG.check_hand_count(s, e.seat, e.count)
    if why is None:
        return
    if getattr(s.rules, "family", None) == "chinese" and hasattr(s.seats[e.seat], "wrong_size"):
        s.seats[e.seat].wrong_size = "small" if e.count < s.seats[e.seat].n_concealed else "big"
    alert(s, cmds, "wrong_hand_size", e.seat, None, why, now=now)
