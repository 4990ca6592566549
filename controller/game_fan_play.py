"""The fan tracker during play: the deal, draws, flowers and their replacement tiles, discards,
chow / pung / kong and the kong's replacement tile. Handlers of :mod:`controller.game_fan`;
each changes the state it is given (a copy made by ``step``) and appends its commands.

Replacement tiles come from the tail (the dead wall) in the order :mod:`controller.rules.walls`
names; a seat owes one per flower set aside and per kong. A tail tile seen taken before its
flower or kong is claimed by it; a seat that acts (discards, kongs, declares) without its draw
or replacement seen proves it (the camera missed the wall).
"""

from __future__ import annotations

from controller import events as ev
from controller import game_fan_result as RES
from controller import integrity as IG
from controller.game_fan_state import FanState
from controller.game_state import alert, census, uncount
from controller.rules import chinese as CH
from controller.rules import tiles as T
from controller.rules import walls as WL


def _finish_deal(s: FanState) -> None:
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
    if s.rules.procedures.dealing == "jump":   # the dealer took its 14th tile in the deal
        s.seats[s.dealer].n_concealed = 14
        s.seats[s.dealer].has_drawn = True


def _matches(slot, wall: int, stack: int) -> bool:
    return slot is not None and slot.seat == wall and slot.stack == stack


def on_taken(s: FanState, e: ev.WallStackTaken, now: float, cmds: list) -> None:
    if s.phase != "play" or s.wall is None:
        return
    ws = s.wall
    if s.deal_left:
        slot = next((x for x in s.deal_left if _matches(x, e.wall, e.stack)), None)
        if slot is not None:
            s.deal_left.remove(slot)
            s.accounted.add(slot)
            if not s.deal_left:
                _finish_deal(s)
            return
        _finish_deal(s)
    if any(_matches(x, e.wall, e.stack) for x in s.unreported):
        for slot in sorted(s.unreported):
            if _matches(slot, e.wall, e.stack):
                s.unreported.discard(slot)
                break
        return
    if any(_matches(t.slot, e.wall, e.stack) for t in ws.refilled()):
        return   # the last live tile moved to the tail (a refill), not a draw
    if _matches(ws.next_replacement_slot(), e.wall, e.stack):
        if s.repl_owed:
            draw_tile(s, s.repl_owed[0][0], cmds=cmds, now=now)
        else:
            s.early_replacement = True   # seen before its flower / kong: that will claim it
        return
    if s.repl_owed and _matches(_live_end(s), e.wall, e.stack):
        return   # the refill tile moved before the replacement draw was seen
    nxt = ws.next_draw_slot()
    if nxt is None:
        alert(s, cmds, "extra_draw", s.turn, None,
              f"a tile was taken from wall {e.wall} stack {e.stack} after the live wall ran out", now=now)
        return
    seat = s.seats[s.turn]
    if seat.has_drawn or seat.must_discard or any(x[0] == s.turn for x in s.repl_owed):
        _extra_tile(s, s.turn, f"takes another tile (wall {e.wall} stack {e.stack}) before discarding", cmds, now)
        try:
            s.accounted.add(ws.draw().slot)
        except WL.WallError:
            return
        seat.n_concealed += 1
        return
    draw_tile(s, s.turn, cmds=cmds, now=now)


def _extra_tile(s: FanState, seat_no: int, what: str, cmds: list, now: float) -> None:
    """A seat takes a tile it may not: an extra draw; in the Chinese rules its hand is now too
    big (大相公): it may not win, and the alert stays off the table until the hand ends."""
    if s.rules.family == "chinese":
        s.seats[seat_no].wrong_size = "big"
        alert(s, cmds, "wrong_hand_size", seat_no, None,
              f"seat {seat_no} {what}: its hand is too big (大相公) and may not win", now=now)
    else:
        alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} {what}", now=now)


def _live_end(s: FanState):
    """The last live slot (where a refill takes its tile), or None."""
    ws = s.wall
    refilled = {t.slot for t in ws.refilled()}
    for slot in reversed(ws.layout.draw_slots):
        if slot not in s.accounted and slot not in refilled:
            return slot
    return None


def draw_tile(s: FanState, seat_no: int, *, cmds: list, now: float, inferred: bool = False) -> bool:
    """``seat_no`` takes a tile: the tail tile it is owed (flower / kong), else the next live tile."""
    ws = s.wall
    owed = next((k for k, x in enumerate(s.repl_owed) if x[0] == seat_no), None)
    try:
        take = ws.draw_replacement(s.repl_owed[owed][1]) if owed is not None else ws.draw()
    except WL.WallError as err:
        alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} cannot draw: {err}", now=now)
        return False
    s.accounted.add(take.slot)
    if inferred:
        s.unreported.add(take.slot)
    seat = s.seats[seat_no]
    seat.n_concealed += 1
    if owed is None:
        seat.has_drawn = True
        s.turn = seat_no
    else:
        reason = s.repl_owed.pop(owed)[1]
        if reason == "kan":
            seat.has_drawn = True
    s.last_kakan = None
    return True


def infer_draw(s: FanState, seat_no: int, cmds: list, now: float) -> None:
    """``seat_no`` acts without its draw seen: its owed tail tiles, then (on turn) its draw."""
    if s.deal_left:
        _finish_deal(s)
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
        _finish_deal(s)
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
        _extra_tile(s, s.turn, "takes a tile from the tail without a flower or kong", cmds, now)
    if s.deal_left:
        _finish_deal(s)
    seat = s.seats[e.seat]
    if e.seat != s.turn:
        seat.river.append({"tile": e.tile, "is_sideways": e.is_riichi, "is_tsumogiri": e.is_tsumogiri,
                           "taken_by": None, "is_out_of_turn": True})
        alert(s, cmds, "out_of_turn", e.seat, e.tile, f"seat {e.seat} discards {e.tile} while it is seat {s.turn}'s turn",
              now=now)
        census(s, cmds, now, e.seat, [e.tile])
        return
    infer_draw(s, e.seat, cmds, now)
    seat.river.append({"tile": e.tile, "is_sideways": False, "is_tsumogiri": e.is_tsumogiri,
                       "taken_by": None, "is_out_of_turn": False})
    seat.n_concealed -= 1
    seat.has_drawn = seat.must_discard = False
    seat.discards_made += 1
    s.last_discard = (e.seat, len(seat.river) - 1)
    s.last_kakan = None
    s.claimants = []
    s.turn = (e.seat + 1) % 4
    census(s, cmds, now, e.seat, [e.tile])
    if s.is_first_go:
        s.first_discards.append(T.plain(e.tile))
        if len(s.first_discards) == 4:
            s.is_first_go = False
            if s.rules.family == "chinese" and CH.is_four_winds(s.first_discards):
                RES.four_winds(s, cmds, now)
                if s.phase != "play":
                    return
    if s.phase == "play" and s.wall.live_remaining == 0:
        s.draw_kind = "exhaustive_draw"
        s.phase = "draw"
        RES.compute_result(s, cmds, now)


def on_removed(s: FanState, e: ev.DiscardRemoved, now: float, cmds: list) -> None:
    if s.phase not in ("play", "win", "draw") or not 0 <= e.index < len(s.seats[e.seat].river):
        return
    seat = s.seats[e.seat]
    entry = seat.river[e.index]
    if entry["taken_by"] is not None:
        return   # a called tile: it moved to the caller's meld
    if entry["is_out_of_turn"]:
        seat.river.pop(e.index)   # the out-of-turn tile goes back: the fault was already named
        uncount(s, [entry["tile"]])
        return
    if e.replaced_by is not None:
        alert(s, cmds, "taken_back", e.seat, entry["tile"],
              f"seat {e.seat}'s discard {entry['tile']} changed to {e.replaced_by}", now=now)
        uncount(s, [entry["tile"]])
        entry["tile"] = e.replaced_by
        census(s, cmds, now, e.seat, [e.replaced_by])
        return
    alert(s, cmds, "taken_back", e.seat, entry["tile"],
          f"seat {e.seat} takes its discard {entry['tile']} back from the river", now=now)
    is_last = s.last_discard == (e.seat, e.index)
    uncount(s, [entry["tile"]])
    seat.river.pop(e.index)
    if is_last and s.phase == "play":   # undo the discard: the seat holds the tile again and is on turn
        seat.n_concealed += 1
        seat.has_drawn = True
        seat.discards_made -= 1
        s.turn = e.seat
        s.last_discard = None
    elif s.last_discard is not None and s.last_discard[0] == e.seat and s.last_discard[1] > e.index:
        s.last_discard = (e.seat, s.last_discard[1] - 1)


def on_meld(s: FanState, e: ev.Meld, now: float, cmds: list) -> None:
    if s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and e.meld_kind in ("chi", "pon", "daiminkan") \
            and s.last_discard is not None:
        tile = s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
        alert(s, cmds, "last_discard_call", e.seat, tile,
              f"seat {e.seat} calls {tile}, the last discard of the hand: no call is allowed on it", now=now)
        return
    if s.phase != "play" or s.wall is None or e.meld_kind == "nuki":
        return
    if s.deal_left:
        _finish_deal(s)
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
        added = e.called or e.tiles[-1]
        k = next((i for i, m in enumerate(seat.melds) if m["kind"] == "pon"
                  and T.plain(m["tiles"][0]) == T.plain(added)), None)
        if k is None:
            alert(s, cmds, "inconsistent", e.seat, added, f"seat {e.seat} adds {added} to a pung it does not have",
                  now=now)
            return
        pon = seat.melds[k]
        seat.melds[k] = {"kind": "kakan", "tiles": list(pon["tiles"]) + [added], "called": pon["called"],
                         "source": pon["source"]}
        seat.n_concealed -= 1
        s.last_kakan = (e.seat, added)
        census(s, cmds, now, e.seat, [added])
    _kong_made(s, e.seat, cmds, now)


def _on_call(s: FanState, e: ev.Meld, cmds: list, now: float) -> None:
    seat = s.seats[e.seat]
    ld = s.last_discard
    if ld is None or ld[0] == e.seat or (e.source is not None and e.source != ld[0]):
        alert(s, cmds, "inconsistent", e.seat, e.called,
              f"seat {e.seat} shows a {e.meld_kind} but there is no discard from seat {e.source} to take", now=now)
        return
    if e.meld_kind == "chi" and ld[0] != (e.seat - 1) % 4:
        alert(s, cmds, "inconsistent", e.seat, e.called,
              f"seat {e.seat} chows a discard of seat {ld[0]}: a chow takes only the left player's discard", now=now)
        return
    src = s.seats[ld[0]]
    called = src.river[ld[1]]["tile"]
    if e.called is not None and T.plain(e.called) != T.plain(called):
        # the tile was read again, close up, in the meld: the river reading was wrong
        s.corrections.append({"what": "discard", "reason": "the called tile read again in the meld",
                              "data": {"seat": ld[0], "index": ld[1], "tile": e.called},
                              "hand_index": s.hand_index, "now": now})
        uncount(s, [called])
        census(s, cmds, now, ld[0], [e.called])
        src.river[ld[1]]["tile"] = called = e.called
    if s.wall.live_remaining == 0:
        alert(s, cmds, "last_discard_call", e.seat, called, f"seat {e.seat} calls {called}, the last discard of the hand",
              now=now)
    src.river[ld[1]]["taken_by"] = e.seat
    tiles = list(e.tiles)
    seat.melds.append({"kind": e.meld_kind, "tiles": tiles, "called": called, "source": ld[0]})
    seat.n_concealed -= len(tiles) - 1
    s.is_first_go = False
    s.turn = e.seat
    s.last_discard = None
    s.claimants = []
    seat.has_drawn = False
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
            RES.compute_result(s, cmds, now)
            return
    _replacement_owed(s, seat_no, cmds, now)


def on_wall_back(s: FanState, e: ev.WallBack, now: float, cmds: list) -> None:
    if s.phase in ("walls", "dice", "play"):
        alert(s, cmds, "other_back", e.wall, None,
              f"a tile with the other set's back ({e.colour}) stands in wall {e.wall} stack {e.stack}", now=now,
              key=("back", e.wall, e.stack))


def on_hand_count(s: FanState, e: ev.HandCount, now: float, cmds: list) -> None:
    """The camera's count of a seat's standing tiles (integrity.check_hand_count); in the Chinese
    rules a seat of the wrong size (相公) may no longer win, and the alert waits for the hand's end."""
    why = IG.check_hand_count(s, e.seat, e.count)
    if why is None:
        return
    if s.rules.family == "chinese":
        s.seats[e.seat].wrong_size = "small" if e.count < s.seats[e.seat].n_concealed else "big"
    alert(s, cmds, "wrong_hand_size", e.seat, None, why, now=now)
