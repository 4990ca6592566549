"""The game tracker during play: the wall (deal, draws, replacement tiles), discards, calls and
kans, riichi sticks, indicators. Handlers of :mod:`controller.game`; each changes the state it
is given (a copy made by ``step``) and appends its commands."""

from __future__ import annotations

from controller import events as ev
from controller import game_record as GR
from controller import game_result as RES
from controller import integrity as IG
from controller.game_state import GameState, alert, census, count, uncount
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.melds import Meld as RMeld
from controller.rules.melds import MeldError


def _finish_deal(s: GameState) -> None:
    if s.wall is not None and not s.is_dealt:
        s.is_dealt = True
        for slot in s.wall.layout.hand_slots:
            s.accounted.update(slot)
        s.wall.deal()
        for seat in s.seats:
            seat.n_concealed = 13
        s.deal_left = []
        s.turn = s.dealer


def _slot_for_stack(candidates, wall: int, stack: int):
    for slot in candidates:
        if slot.seat == wall and slot.stack == stack:
            return slot
    return None


def on_taken(s: GameState, e: ev.WallStackTaken, now: float, cmds: list) -> None:
    if s.phase not in ("play",) or s.wall is None:
        return
    ws = s.wall
    if s.deal_left:
        slot = _slot_for_stack(s.deal_left, e.wall, e.stack)
        if slot is not None:
            s.deal_left.remove(slot)
            s.accounted.add(slot)
            if not s.deal_left:
                _finish_deal(s)
            return
        _finish_deal(s)
    # a late report of a tile already inferred, or a refill move to the dead wall
    if any(x.seat == e.wall and x.stack == e.stack for x in s.unreported):
        _mark_reported(s, e.wall, e.stack)
        return
    if any(t.slot.seat == e.wall and t.slot.stack == e.stack for t in ws.refilled()):
        return
    repl = ws.next_replacement_slot()
    if repl is not None and repl.seat == e.wall and repl.stack == e.stack:
        if s.kan_pending is not None:
            draw_tile(s, s.kan_pending, rinshan=True, cmds=cmds, now=now)
        else:
            s.early_replacement = True   # seen before the kan itself: the kan will claim it
        return
    end = _live_end(s) if s.kan_pending is not None else None
    if end is not None and end.seat == e.wall and end.stack == e.stack:
        return   # the refill tile moved before the replacement draw was seen
    nxt = ws.next_draw_slot()
    if nxt is None:
        alert(s, cmds, "extra_draw", s.turn, None, f"a tile was taken from wall {e.wall} stack {e.stack} "
               "after the live wall ran out", now=now)
        return
    seat = s.seats[s.turn]
    if seat.has_drawn or seat.must_discard or s.kan_pending is not None:
        alert(s, cmds, "extra_draw", s.turn, None,
               f"seat {s.turn} takes another tile (wall {e.wall} stack {e.stack}) before discarding", now=now)
        try:
            s.accounted.add(ws.draw().slot)
        except WL.WallError:
            return
        seat.n_concealed += 1
        return
    if s.phase == "play" and s.last_discard is None and s.turn != s.dealer and not s.timeline:
        s.turn = s.dealer
    draw_tile(s, s.turn, rinshan=False, cmds=cmds, now=now)


def _live_end(s: GameState):
    """The last live slot (where a refill after a kan takes its tile), or None."""
    ws = s.wall
    refilled = {t.slot for t in ws.refilled()}
    for slot in reversed(ws.layout.draw_slots):
        if slot not in s.accounted and slot not in refilled:
            return slot
    return None


def _mark_reported(s: GameState, wall: int, stack: int) -> None:
    for slot in sorted(s.unreported):
        if slot.seat == wall and slot.stack == stack:
            s.unreported.discard(slot)
            return


def draw_tile(s: GameState, seat_no: int, *, rinshan: bool, cmds: list, now: float, inferred: bool = False) -> bool:
    ws = s.wall
    settle_riichi_deposit(s, cmds, now)
    try:
        take = ws.draw_replacement(s.replacement_reason) if rinshan else ws.draw()
    except WL.WallError as err:
        alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} cannot draw: {err}", now=now)
        return False
    s.accounted.add(take.slot)
    if inferred:
        s.unreported.add(take.slot)
    seat = s.seats[seat_no]
    seat.n_concealed += 1
    seat.has_drawn = True
    s.turn = seat_no
    s.last_kakan = None
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
        RES.compute_result(s, cmds, now)


def on_discard(s: GameState, e: ev.Discard, now: float, cmds: list) -> None:
    if s.phase != "play" or s.wall is None:
        return
    if s.early_replacement:
        s.early_replacement = False
        alert(s, cmds, "extra_draw", s.turn, None,
              f"seat {s.turn} takes a replacement tile from the dead wall without a kan", now=now)
    if s.deal_left:
        _finish_deal(s)
    seat = s.seats[e.seat]
    if e.seat != s.turn:
        s.seats[e.seat].river.append({"tile": e.tile, "is_sideways": e.is_riichi, "is_tsumogiri": e.is_tsumogiri,
                                      "taken_by": None, "is_out_of_turn": True})
        alert(s, cmds, "out_of_turn", e.seat, e.tile,
               f"seat {e.seat} discards {e.tile} while it is seat {s.turn}'s turn", now=now)
        census(s, cmds, now, e.seat, [e.tile])
        return
    infer_draw(s, e.seat, cmds, now)
    settle_riichi_deposit(s, cmds, now)
    if seat.must_discard:
        banned = IG.check_kuikae(seat.melds[-1], e.tile, s.rules) if seat.melds else None
        if banned:
            alert(s, cmds, "kuikae", e.seat, e.tile, banned, now=now)
    is_riichi = e.is_riichi and not seat.is_riichi
    seat.river.append({"tile": e.tile, "is_sideways": e.is_riichi, "is_tsumogiri": e.is_tsumogiri,
                       "taken_by": None, "is_out_of_turn": False, "t": len(s.timeline)})
    seat.n_concealed -= 1
    seat.has_drawn = seat.must_discard = False
    seat.discards_made += 1
    if is_riichi:
        seat.is_riichi = True
        seat.riichi_index = len(seat.river) - 1
    s.timeline.append(("discard", e.seat, e.tile, e.is_tsumogiri, is_riichi))
    s.last_discard = (e.seat, len(seat.river) - 1)
    s.last_kakan = None
    s.turn = (e.seat + 1) % s.n_seats
    census(s, cmds, now, e.seat, [e.tile])
    if s.flips_owed:
        nxt = s.wall.next_indicator_slot()
        if nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="indicator", now=now))
    _check_abortive_after_discard(s, cmds, now)
    if s.phase == "play" and s.wall.live_remaining == 0:
        s.draw_kind = "exhaustive_draw"
        s.phase = "draw"
        RES.compute_result(s, cmds, now)


def infer_draw(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    """The seat on turn acts (discards, kans, declares tsumo) without a draw seen: the camera
    missed the wall; the act proves the draw (a replacement tile after a kan)."""
    if s.deal_left:
        _finish_deal(s)
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
            RES.compute_result(s, cmds, now)
            return
    if len(discards) >= s.n_seats:
        s.is_first_go = False
    if rules.abort_four_kans and len(s.kans_by) == 4 and len(set(s.kans_by)) > 1:
        last = s.timeline[-1]
        if last[0] == "discard" and last[1] == s.kans_by[-1]:
            s.draw_kind, s.phase = "four_kans", "draw"
            RES.compute_result(s, cmds, now)


def on_removed(s: GameState, e: ev.DiscardRemoved, now: float, cmds: list) -> None:
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
        # the same place now shows another tile: the discard was changed (or re-read)
        alert(s, cmds, "taken_back", e.seat, entry["tile"],
              f"seat {e.seat}'s discard {entry['tile']} changed to {e.replaced_by}", now=now)
        fix_discard(s, e.seat, e.index, e.replaced_by)
        return
    alert(s, cmds, "taken_back", e.seat, entry["tile"],
          f"seat {e.seat} takes its discard {entry['tile']} back from the river", now=now)
    is_last = s.last_discard == (e.seat, e.index)
    uncount(s, [entry["tile"]])
    seat.river.pop(e.index)
    if is_last and s.phase == "play":
        # undo the discard: the seat holds the tile again and is on turn
        for k in range(len(s.timeline) - 1, -1, -1):
            if s.timeline[k][0] == "discard" and s.timeline[k][1] == e.seat:
                item = s.timeline.pop(k)
                if item[4]:
                    seat.is_riichi, seat.riichi_index = False, None
                break
        seat.n_concealed += 1
        seat.has_drawn = True
        seat.discards_made -= 1
        s.turn = e.seat
        s.last_discard = None
    elif s.last_discard is not None and s.last_discard[0] == e.seat and s.last_discard[1] > e.index:
        s.last_discard = (e.seat, s.last_discard[1] - 1)


def _meld_record(e: ev.Meld) -> dict:
    return {"kind": e.meld_kind, "tiles": list(e.tiles), "called": e.called, "source": e.source}


def on_meld(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
    if s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and e.meld_kind in ("chi", "pon", "daiminkan") \
            and s.last_discard is not None:
        tile = s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
        alert(s, cmds, "last_discard_call", e.seat, tile,
               f"seat {e.seat} calls {tile}, the last discard of the hand: no call is allowed on it", now=now)
        return
    if s.phase != "play" or s.wall is None:
        return
    if e.meld_kind != "nuki":
        try:
            GR.rules_meld(_meld_record(e))
        except MeldError as err:   # no such meld (a chi of honours, a pon of two kinds): nothing changes
            alert(s, cmds, "inconsistent", e.seat, e.called, f"seat {e.seat} shows a {e.meld_kind} "
                  f"{''.join(e.tiles)} that cannot be: {err}", now=now, key=("meld", e.seat, e.tiles))
            return
    if s.deal_left:
        _finish_deal(s)
    seat = s.seats[e.seat]
    if e.meld_kind == "nuki":
        if s.n_seats == 3:
            _on_nuki(s, e, now, cmds)
        return
    if e.meld_kind in ("chi", "pon", "daiminkan"):
        ld = s.last_discard
        if ld is None or ld[0] == e.seat or (e.source is not None and e.source != ld[0]):
            alert(s, cmds, "inconsistent", e.seat, e.called,
                   f"seat {e.seat} shows a {e.meld_kind} but there is no discard from seat {e.source} to take",
                   now=now)
            return
        src = s.seats[ld[0]]
        called = src.river[ld[1]]["tile"]
        if e.called is not None and T.plain(e.called) != T.plain(called):
            # the tile was read again, close up, in the meld: the river reading was wrong
            s.corrections.append({"what": "discard", "reason": "the called tile read again in the meld",
                                  "data": {"seat": ld[0], "index": ld[1], "tile": e.called},
                                  "hand_index": s.hand_index, "now": now})
            fix_discard(s, ld[0], ld[1], e.called)
            called = e.called
        if s.wall.live_remaining == 0:
            alert(s, cmds, "last_discard_call", e.seat, called,
                   f"seat {e.seat} calls {called}, the last discard of the hand", now=now)
        if e.meld_kind == "chi" and s.n_seats == 3:
            alert(s, cmds, "inconsistent", e.seat, called,
                  f"seat {e.seat} calls chi on {called}: three-player riichi has no chi", now=now)
        src.river[ld[1]]["taken_by"] = e.seat
        settle_riichi_deposit(s, cmds, now)
        rec = _meld_record(e)
        rec["called"] = called
        rec["source"] = ld[0]
        tiles = list(e.tiles)
        if called not in tiles:
            # a red five read as plain (or the other way) in one place: keep the river's tile
            same = [i for i, t in enumerate(tiles) if T.plain(t) == T.plain(called)]
            if same:
                tiles[same[0]] = called
        rec["tiles"] = tiles
        seat.melds.append(rec)
        seat.n_concealed -= len(tiles) - 1
        s.timeline.append(("call", e.seat, GR.rules_meld(rec)))
        s.is_first_go = False
        s.turn = e.seat
        s.last_discard = None
        seat.has_drawn = False
        if e.meld_kind == "daiminkan":
            s.kan_pending = e.seat
            s.replacement_reason = "kan"
            s.kans_by.append(e.seat)
            if s.early_replacement:
                s.early_replacement = False
                draw_tile(s, e.seat, rinshan=True, cmds=cmds, now=now)
            _owe_kan_indicator(s)
            seat.must_discard = False
        else:
            seat.must_discard = True
        others = list(tiles)
        others.remove(called)
        census(s, cmds, now, e.seat, others)
        return
    if e.meld_kind == "ankan" or e.meld_kind == "kakan":
        infer_draw(s, e.seat, cmds, now)
        if e.seat != s.turn or not seat.has_drawn:
            alert(s, cmds, "out_of_turn", e.seat, e.tiles[0] if e.tiles else None,
                   f"seat {e.seat} makes a {e.meld_kind} out of its turn", now=now)
            return
        if s.flips_owed:
            s.flips_owed = 0  # shown before this kan, as the profile wants
        if e.meld_kind == "ankan":
            rec = _meld_record(e)
            rec["source"] = None
            seat.melds.append(rec)
            seat.n_concealed -= 4
            s.timeline.append(("kan", e.seat, GR.rules_meld(rec), None))
            s.last_kakan = (e.seat, e.tiles[0])   # robbable by thirteen orphans only
            s.flips_now += 1
            census(s, cmds, now, e.seat, list(e.tiles))
        else:
            added = e.called or e.tiles[-1]
            k = next((i for i, m in enumerate(seat.melds) if m["kind"] == "pon"
                      and T.plain(m["tiles"][0]) == T.plain(added)), None)
            if k is None:
                alert(s, cmds, "inconsistent", e.seat, added,
                       f"seat {e.seat} adds {added} to a pon it does not have", now=now)
                return
            pon = seat.melds[k]
            rec = {"kind": "kakan", "tiles": list(pon["tiles"]) + [added], "called": added,
                   "source": pon["source"], "pon_called": pon["called"]}
            seat.melds[k] = rec
            seat.n_concealed -= 1
            rest = list(pon["tiles"])
            rest.remove(pon["called"])
            km = RMeld("kakan", tuple([added, pon["called"]] + rest), pon["called"], pon["source"])
            s.timeline.append(("kan", e.seat, km, added))
            s.last_kakan = (e.seat, added)
            _owe_kan_indicator(s)
            census(s, cmds, now, e.seat, [added])
        seat.has_drawn = False
        s.kan_pending = e.seat
        s.replacement_reason = "kan"
        s.kans_by.append(e.seat)
        s.is_first_go = False
        nxt = s.wall.next_replacement_slot()
        if s.early_replacement:
            s.early_replacement = False
            draw_tile(s, e.seat, rinshan=True, cmds=cmds, now=now)
        elif nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def _on_nuki(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
    """Three-player riichi: a north set aside (抜きドラ) on the seat's own turn; a replacement tile
    follows from the dead wall. The north counts as dora in the result (profile ``north``)."""
    seat = s.seats[e.seat]
    tile = e.tiles[0] if e.tiles else (e.called or "4z")
    infer_draw(s, e.seat, cmds, now)
    if s.rules.north != "nukidora":
        alert(s, cmds, "inconsistent", e.seat, tile,
              f"seat {e.seat} sets a north aside but ruleset {s.ruleset!r} keeps norths in the hand "
              f"(north = {s.rules.north!r})", now=now)
        return
    if len(e.tiles) != 1 or T.plain(tile) != "4z":
        alert(s, cmds, "inconsistent", e.seat, tile,
              f"seat {e.seat} sets {T.fmt(list(e.tiles)) if e.tiles else tile} aside as a north", now=now)
        return
    if e.seat != s.turn or not seat.has_drawn:
        alert(s, cmds, "out_of_turn", e.seat, tile, f"seat {e.seat} sets a north aside out of its turn", now=now)
        return
    seat.norths.append(tile)
    seat.n_concealed -= 1
    seat.has_drawn = False
    s.timeline.append(("nuki", e.seat, tile))
    s.last_kakan = (e.seat, tile)   # a north set aside may be robbed (a plain ron on it)
    s.is_first_go = False
    s.kan_pending = e.seat
    s.replacement_reason = "north"
    census(s, cmds, now, e.seat, [tile])
    nxt = s.wall.next_replacement_slot()
    if s.early_replacement:
        s.early_replacement = False
        draw_tile(s, e.seat, rinshan=True, cmds=cmds, now=now)
    elif nxt is not None:
        cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def _owe_kan_indicator(s: GameState) -> None:
    """An open or added kan: its indicator turns at the next discard (tenhou) or at once (profile)."""
    if s.rules.kan_dora_timing == "immediate":
        s.flips_now += 1
    else:
        s.flips_owed += 1


def on_stick(s: GameState, e: ev.RiichiStick, now: float, cmds: list) -> None:
    seat = s.seats[e.seat]
    if s.phase == "play" and seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
        settle_riichi_deposit(s, cmds, now)


def on_indicator(s: GameState, e: ev.IndicatorRevealed, now: float, cmds: list) -> None:
    if s.wall is None or s.phase not in ("play", "win", "draw", "result"):
        return
    if (s.phase == "play") == e.is_ura:
        return   # ura indicators are read only at the end of a win; others only during play
    lay = s.wall.layout
    if e.is_ura:
        if e.stack in [x.stack for x in lay.ura_slots if x.seat == e.wall]:
            k = next(i for i, x in enumerate(lay.ura_slots) if x.seat == e.wall and x.stack == e.stack)
            while len(s.ura) <= k:
                s.ura.append("")
            s.ura[k] = e.tile
            census(s, cmds, now, None, [e.tile])
            if s.phase in ("win", "result"):
                RES.compute_result(s, cmds, now)
        return
    k = next((i for i, x in enumerate(lay.indicator_slots) if x.seat == e.wall and x.stack == e.stack), None)
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
        _flip_wall(s)
    s.indicators.append(e.tile)
    census(s, cmds, now, None, [e.tile])


def _flip_wall(s: GameState) -> None:
    """Keep the wall's count of showing indicators (its ura slots follow it)."""
    try:
        s.wall.flip_kan_indicator()
    except WL.WallError:
        pass   # turned before the replacement draw was seen: the indicator list is what counts


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


def on_wall_back(s: GameState, e: ev.WallBack, now: float, cmds: list) -> None:
    if s.phase in ("walls", "dice", "play"):
        alert(s, cmds, "other_back", e.wall, None,
               f"a tile with the other set's back ({e.colour}) stands in wall {e.wall} stack {e.stack}", now=now,
               key=("back", e.wall, e.stack))


def on_hand_count(s: GameState, e: ev.HandCount, now: float, cmds: list) -> None:
    """The camera's count of a seat's standing tiles (integrity.check_hand_count)."""
    why = IG.check_hand_count(s, e.seat, e.count)
    if why is not None:
        alert(s, cmds, "wrong_hand_size", e.seat, None, why, now=now)
