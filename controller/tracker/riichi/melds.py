"""The riichi tracker's melds: chi, pon and open kan on a discard, closed and added kans, the
north set aside in three-player riichi (nuki), the replacement tile and the kan indicator each
kan owes. Handlers of the riichi family."""

from __future__ import annotations

from controller import events as ev
from controller.rules import tiles as T
from controller.rules.melds import Meld as RMeld
from controller.rules.melds import MeldError
from controller.tracker import river as RIVER
from controller.tracker import wall as WALL
from controller.tracker.hand import alert, census
from controller.tracker.riichi import record as GR
from controller.tracker.riichi.play import (
    draw_tile,
    infer_draw,
    replace_discard,
    settle_riichi_deposit,
)
from controller.tracker.riichi.state import GameState


def _meld_record(e: ev.Meld) -> dict:
    return {"kind": e.meld_kind, "tiles": list(e.tiles), "called": e.called, "source": e.source}


def on_meld(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
    if RIVER.is_call_after_last_discard(s, e, cmds, now) or s.phase != "play" or s.wall is None:
        return
    if e.meld_kind != "nuki":
        try:
            GR.rules_meld(_meld_record(e))
        except MeldError as err:   # no such meld (a chi of honours, a pon of two kinds): nothing changes
            alert(s, cmds, "inconsistent", e.seat, e.called, f"seat {e.seat} shows a {e.meld_kind} "
                  f"{''.join(e.tiles)} that cannot be: {err}", now=now, key=("meld", e.seat, e.tiles))
            return
    if s.deal_left:
        WALL.finish_deal(s)
    if e.meld_kind == "nuki":
        if s.n_seats == 3:
            _on_nuki(s, e, now, cmds)
    elif e.meld_kind in ("chi", "pon", "daiminkan"):
        called = RIVER.called_discard(s, e, cmds, now)
        if called is not None:
            _on_call(s, e, called, now, cmds)
    else:
        _on_own_kan(s, e, now, cmds)


def _on_call(s: GameState, e: ev.Meld, called: str, now: float, cmds: list) -> None:
    seat = s.seats[e.seat]
    ld = s.last_discard
    called = RIVER.take_discard(s, e, called, cmds, now, replace_discard)
    if e.meld_kind == "chi" and s.n_seats == 3:
        alert(s, cmds, "inconsistent", e.seat, called,
              f"seat {e.seat} calls chi on {called}: three-player riichi has no chi", now=now)
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
    RIVER.seat_calls(s, e.seat)
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


def _on_own_kan(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
    """A closed kan (ankan) or a tile added to a pon (kakan), on the seat's own turn."""
    seat = s.seats[e.seat]
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
        found = RIVER.pon_added_to(s, e, "pon", cmds, now)
        if found is None:
            return
        k, pon, added = found
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
    s.kans_by.append(e.seat)
    _owe_replacement(s, e.seat, "kan", cmds, now)


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
    s.timeline.append(("nuki", e.seat, tile))
    s.last_kakan = (e.seat, tile)   # a north set aside may be robbed (a plain ron on it)
    census(s, cmds, now, e.seat, [tile])
    _owe_replacement(s, e.seat, "north", cmds, now)


def _owe_replacement(s: GameState, seat_no: int, reason: str, cmds: list, now: float) -> None:
    """After a closed or added kan, or a north: the seat is owed a tile from the dead wall (taken
    at once if it was seen taken already), and the camera watches the slot."""
    s.seats[seat_no].has_drawn = False
    s.kan_pending = seat_no
    s.replacement_reason = reason
    s.is_first_go = False
    nxt = s.wall.next_replacement_slot()
    if s.early_replacement:
        s.early_replacement = False
        draw_tile(s, seat_no, rinshan=True, cmds=cmds, now=now)
    elif nxt is not None:
        cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def _owe_kan_indicator(s: GameState) -> None:
    """An open or added kan: its indicator turns at the next discard (tenhou) or at once (profile)."""
    if s.rules.kan_dora_timing == "immediate":
        s.flips_now += 1
    else:
        s.flips_owed += 1
