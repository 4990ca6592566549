"""The fan tracker during play: the deal (jump deal: the dealer holds 14), draws, flowers set
aside and their tail tiles, discards, chow / pung / kong and the kong's tail tile, four winds
and four kongs (chinese). Handlers of the fan family; each changes the state it is given (a
copy made by ``step``) and appends its commands."""

from __future__ import annotations

from controller import events as ev
from controller.rules import chinese as CH
from controller.rules import tiles as T
from controller.tracker import river as RIVER
from controller.tracker import wall as WALL
from controller.tracker.fan.scoring import compute_result, four_winds
from controller.tracker.fan.state import FanState
from controller.tracker.hand import alert, census, uncount


def draw_replacement(s: FanState, cmds: list, now: float) -> bool:
    """The tail tile seen taken: drawn by the first seat owed one (False: nobody is, yet)."""
    if not s.repl_owed:
        return False
    draw_tile(s, s.repl_owed[0][0], cmds=cmds, now=now)
    return True


def owes_replacement(s: FanState, seat_no: int | None) -> bool:
    """Is ``seat_no`` (None: any seat) owed a tail tile (flower or kong)?"""
    return any(seat_no is None or x[0] == seat_no for x in s.repl_owed)


def draw_next(s: FanState, cmds: list, now: float) -> None:
    draw_tile(s, s.turn, cmds=cmds, now=now)


def name_extra_tile(s: FanState, seat_no: int, what: str, cmds: list, now: float) -> None:
    """A seat takes a tile it may not: an extra draw; in the Chinese rules its hand is now too
    big (大相公): it may not win, and the alert stays off the table until the hand ends."""
    if s.rules.family == "chinese":
        s.seats[seat_no].wrong_size = "big"
        alert(s, cmds, "wrong_hand_size", seat_no, None,
              f"seat {seat_no} {what}: its hand is too big (大相公) and may not win", now=now)
    else:
        alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} {what}", now=now)


def draw_tile(s: FanState, seat_no: int, *, cmds: list, now: float, inferred: bool = False) -> bool:
    """``seat_no`` takes a tile: the tail tile it is owed (flower / kong), else the next live tile."""
    owed = next((k for k, x in enumerate(s.repl_owed) if x[0] == seat_no), None)
    if not WALL.take_tile(s, seat_no, s.repl_owed[owed][1] if owed is not None else None, cmds, now,
                          inferred=inferred):
        return False
    seat = s.seats[seat_no]
    if owed is None:
        seat.has_drawn = True
        s.turn = seat_no
    else:
        reason = s.repl_owed.pop(owed)[1]
        if reason == "kan":
            seat.has_drawn = True
    if owed is None:
        s.last_kakan = None   # an added kong stays robbable until its maker discards
    return True


def infer_draw(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    """``seat_no`` acts without its draw seen: its owed tail tiles, then (on turn) its draw."""
    if s.deal_left:
        WALL.finish_deal(s)
    if s.wall is None:
        return
    while any(x[0] == seat_no for x in s.repl_owed):
        if not draw_tile(s, seat_no, cmds=cmds, now=now, inferred=True):
            break
    seat = s.seats[seat_no]
    if s.turn == seat_no and not seat.has_drawn and not seat.must_discard and s.is_dealt:
        draw_tile(s, seat_no, cmds=cmds, now=now, inferred=True)


def on_flower(s: FanState, e: ev.FlowerSetAside, now: float, cmds: list) -> None:
    """A flower or season set aside face up: the seat is owed a tile from the tail."""
    if s.phase != "play" or s.wall is None:
        return
    if s.deal_left:
        WALL.finish_deal(s)
    if not T.is_flower(e.tile):
        alert(s, cmds, "inconsistent", e.seat, e.tile, f"seat {e.seat} sets aside {e.tile}, which is not a flower",
              now=now)
        return
    if s.rules.procedures.flower_replacement == "none":
        alert(s, cmds, "inconsistent", e.seat, e.tile,
              f"seat {e.seat} sets aside flower {e.tile}, but this table plays without flowers", now=now)
        census(s, cmds, now, e.seat, [e.tile])
        return
    seat = s.seats[e.seat]
    seat.flowers.append(e.tile)
    seat.n_concealed -= 1
    census(s, cmds, now, e.seat, [e.tile])
    s.repl_owed.append((e.seat, "flower"))
    _replacement_owed(s, e.seat, cmds, now)


def _replacement_owed(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    if s.early_replacement:
        s.early_replacement = False
        draw_tile(s, seat_no, cmds=cmds, now=now)
        return
    nxt = s.wall.next_replacement_slot()
    if nxt is not None:
        cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def on_discard(s: FanState, e: ev.Discard, now: float, cmds: list) -> None:
    if s.phase != "play" or s.wall is None:
        return
    if s.early_replacement:
        s.early_replacement = False
        name_extra_tile(s, s.turn, "takes a tile from the tail without a flower or kong", cmds, now)
    if s.deal_left:
        WALL.finish_deal(s)
    if RIVER.discard_out_of_turn(s, e, cmds, now):
        return
    infer_draw(s, e.seat, cmds, now)
    RIVER.add_discard(s, e, {"is_sideways": False})
    s.claimants = []
    census(s, cmds, now, e.seat, [e.tile])
    if s.is_first_go:
        s.first_discards.append(T.plain(e.tile))
        if len(s.first_discards) == 4:
            s.is_first_go = False
            if s.rules.family == "chinese" and CH.is_four_winds(s.first_discards):
                four_winds(s, cmds, now)
                if s.phase != "play":
                    return
    if s.phase == "play" and s.wall.live_remaining == 0:
        s.draw_kind = "exhaustive_draw"
        s.phase = "draw"
        compute_result(s, cmds, now)


def replace_discard(s: FanState, cmds: list, now: float, seat_no: int, index: int, tile: str) -> None:
    """River tile ``index`` of ``seat_no`` is ``tile`` after all: counted again (a fifth copy named)."""
    entry = s.seats[seat_no].river[index]
    uncount(s, [entry["tile"]])
    entry["tile"] = tile
    census(s, cmds, now, seat_no, [tile])


def undo_discard(s: FanState, seat_no: int) -> None:
    return None   # the fan tracker keeps no record of the discard beyond the river


def on_meld(s: FanState, e: ev.Meld, now: float, cmds: list) -> None:
    if RIVER.is_call_after_last_discard(s, e, cmds, now):
        return
    if s.phase != "play" or s.wall is None or e.meld_kind == "nuki":
        return
    if s.deal_left:
        WALL.finish_deal(s)
    seat = s.seats[e.seat]
    if e.meld_kind in ("chi", "pon", "daiminkan"):
        _on_call(s, e, cmds, now)
        return
    infer_draw(s, e.seat, cmds, now)
    if e.seat != s.turn or not seat.has_drawn:
        alert(s, cmds, "out_of_turn", e.seat, e.tiles[0] if e.tiles else None,
              f"seat {e.seat} makes a {e.meld_kind} out of its turn", now=now)
        return
    if e.meld_kind == "ankan":
        seat.melds.append({"kind": "ankan", "tiles": list(e.tiles), "called": None, "source": None})
        seat.n_concealed -= 4
        census(s, cmds, now, e.seat, list(e.tiles))   # a kong laid face down shows its tiles to the camera only
    else:
        found = RIVER.pon_added_to(s, e, "pung", cmds, now)
        if found is None:
            return
        k, pon, added = found
        seat.melds[k] = {"kind": "kakan", "tiles": list(pon["tiles"]) + [added], "called": pon["called"],
                         "source": pon["source"]}
        seat.n_concealed -= 1
        s.last_kakan = (e.seat, added)
        census(s, cmds, now, e.seat, [added])
    _kong_made(s, e.seat, cmds, now)


def _on_call(s: FanState, e: ev.Meld, cmds: list, now: float) -> None:
    seat = s.seats[e.seat]
    called = RIVER.called_discard(s, e, cmds, now)
    if called is None:
        return
    ld = s.last_discard
    if e.meld_kind == "chi" and ld[0] != (e.seat - 1) % 4:
        alert(s, cmds, "inconsistent", e.seat, e.called,
              f"seat {e.seat} chows a discard of seat {ld[0]}: a chow takes only the left player's discard", now=now)
        return
    called = RIVER.take_discard(s, e, called, cmds, now, replace_discard)
    tiles = list(e.tiles)
    seat.melds.append({"kind": e.meld_kind, "tiles": tiles, "called": called, "source": ld[0]})
    seat.n_concealed -= len(tiles) - 1
    RIVER.seat_calls(s, e.seat)
    s.claimants = []
    others = list(tiles)
    if called in others:
        others.remove(called)
    else:
        others = others[1:]
    census(s, cmds, now, e.seat, others)
    if e.meld_kind == "daiminkan":
        seat.must_discard = False
        _kong_made(s, e.seat, cmds, now)
    else:
        seat.must_discard = True


def _kong_made(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    """A kong: the seat is owed a tail tile; four kongs may end the hand (chinese)."""
    seat = s.seats[seat_no]
    seat.has_drawn = False
    s.kans_by.append(seat_no)
    s.is_first_go = False
    s.repl_owed.append((seat_no, "kan"))
    if s.rules.family == "chinese" and len(s.kans_by) == 4:
        per_seat = [s.kans_by.count(i) for i in range(4)]
        if CH.four_kans_aborts(per_seat, s.rules.chinese):
            s.draw_kind, s.phase = "four_kans", "draw"
            compute_result(s, cmds, now)
            return
    _replacement_owed(s, seat_no, cmds, now)
