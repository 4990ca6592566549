"""Staff actions that cannot hurt a game: each checked for its meaning, applied whole or not at
all, kept in a history with who and why, and undone by a later action (nothing rewritten).

Every action is one stored ``staff.correction`` event (``what`` names the action, ``data`` its
fields, ``by`` the staff member inside ``data``), or ``staff.void_hand`` / ``staff.confirm_result``.
The panel calls :func:`check` before the event is stored: it applies the action to a copy of
the tracker's state, so a request that cannot apply is refused with a plain message
(:class:`Refused`) and nothing is stored. The tracker applies it with the same code
(:func:`guarded`, the riichi family's handler of ``Correction``, ``VoidHand`` and ``ConfirmResult``); should the game have moved in
between and the action no longer fit, the state stays exactly as it was (no alert, players never
see staff errors).

Actions (``what``, ``data``), numbered as the table display numbers them in every message
(hand 1 is the first hand, seat 1 the first dealer's seat):

- ``discard`` {seat, index, tile}: the tile of a river place; ``call`` {seat, index, tiles}: a
  meld's tiles; ``indicator`` {index, tile, is_ura}: a dora or ura indicator; ``hand`` {seat,
  tiles, win_tile}: a revealed hand; ``result`` {seat, from}: who won from whom;
- ``scores`` {scores, sticks}: every seat's points and the sticks on the table; the total must
  stay what it was (points and sticks, 1000 a stick);
- ``dismiss_alert`` {index}: an alert judged harmless (it no longer holds the result);
- ``penalty`` {seat, kind: "chombo"}: a chombo by the ruleset's ``[payments] chombo``: a reverse
  mangan (``reverse_mangan``, the default: dealer 4000 to each, else 4000 to the dealer and 2000
  to each other seat), or ``deduction``: ``chombo_points`` (20000) off the offender alone, paid
  to nobody (the table's total drops by it; the settlement's results then sum to minus it);
- ``end_game`` {}: the game ends now and is settled at the scores as they stand;
  ``pause`` / ``resume`` {}: the display shows the game paused and the machine starts no new
  motion (controller.cycle) until resumed;
- ``undo`` {id}: the history entry ``id`` undone: the state becomes exactly what it was before
  it. Only the latest change to the game can be undone (undo later ones first); a confirmed
  result or a voided hand is not undone (its tiles are back in the machine), nor are the
  machine's retry / continue and pause / resume (each has its own way back).

A set error or a cheating alert of the hand (:data:`HOLDING`) holds its result: neither the ok
button nor staff confirm it until staff dismiss the alert or void the hand.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from controller import events as ev
from controller.rules import tiles as T
from controller.rules.melds import Meld as RMeld
from controller.rules.melds import MeldError
from controller.tracker import seating as SEATING
from controller.tracker import staff as STAFF
from controller.tracker.checks import Refused, _index, _seat, _shown, _tile, _tiles, _who, check_fan
from controller.tracker.riichi import play as PLAY
from controller.tracker.riichi import result as RES
from controller.tracker.riichi.held import HOLDING, holds_result
from controller.tracker.riichi.scoring import compute_result
from controller.tracker.riichi.state import GameState

if TYPE_CHECKING:
    from controller.tracker.family import Family

log = logging.getLogger(__name__)

__all__ = ["ACTIONS", "HOLDING", "Refused", "apply", "check", "fingerprint", "guarded", "history", "holds_result"]

ACTIONS = ("discard", "call", "indicator", "hand", "result", "scores", "dismiss_alert", "penalty", "end_game",
           "pause", "resume", "undo", "retry", "continue")
_NOT_UNDONE = ("void_hand", "confirm", "retry", "continue", "pause", "resume")


def _in_hand(s: GameState, phases: tuple[str, ...], what: str) -> None:
    if s.phase not in phases:
        raise Refused(f"{what} cannot be corrected now: the table is at '{s.phase}'")


def fingerprint(s: GameState) -> str:
    """Everything of the game an action may change (not the history itself)."""
    seats = [(x.score, [tuple(sorted(r.items())) for r in x.river], [repr(sorted(m.items())) for m in x.melds],
              x.is_riichi, x.revealed, x.win_tile, tuple(x.norths)) for x in s.seats]
    return repr((s.phase, s.round, s.honba, s.sticks, s.hand_index, seats, s.indicators, s.ura, s.winners,
                 s.draw_kind, s.result, s.result_error, s.alerts, s.history, s.finished, s.settlement,
                 len(s.timeline), s.lift_total, s.wall is None, getattr(s, "paused", False)))


def _recompute(s: GameState, cmds: list, now: float) -> None:
    if s.phase in ("win", "draw", "result"):
        compute_result(s, cmds, now)


# --------------------------------------------------------------------------- the actions

def _discard(s: GameState, d: dict, now: float, cmds: list) -> None:
    _in_hand(s, ("play", "win", "draw", "result"), "a discard")
    seat = _seat(s, d)
    river = s.seats[seat].river
    k = _index(d, "index", len(river), f"river place of {_who(s, seat)}")
    tile = _tile(d.get("tile"))
    if river[k]["tile"] == tile:
        raise Refused(f"{_who(s, seat)}'s river place {k + 1} already shows {tile}")
    PLAY.fix_discard(s, seat, k, tile)
    _recompute(s, cmds, now)


def _call(s: GameState, d: dict, now: float, cmds: list) -> None:
    _in_hand(s, ("play", "win", "draw", "result"), "a call")
    seat = _seat(s, d)
    melds = s.seats[seat].melds
    k = _index(d, "index", len(melds), f"meld of {_who(s, seat)}")
    tiles = _tiles(d.get("tiles"))
    old = melds[k]
    kind = {"daiminkan": "kan"}.get(old["kind"], old["kind"])
    called = old.get("called") if old.get("called") in tiles else tiles[0]
    if tuple(tiles) == tuple(old["tiles"]):
        raise Refused(f"{_who(s, seat)}'s meld {k + 1} already is {T.fmt(tiles)}")
    try:
        RMeld(kind, tuple(tiles), called, old.get("source"))
    except MeldError as err:
        raise Refused(f"a {old['kind']} cannot be {T.fmt(tiles)}: {err}") from None
    old_tiles = tuple(old["tiles"])
    melds[k] = {**old, "tiles": tuple(tiles), "called": called}
    for i, item in enumerate(s.timeline):
        if item[0] in ("call", "kan") and item[1] == seat and tuple(item[2].tiles) == old_tiles:
            s.timeline[i] = (item[0], item[1], dataclasses.replace(item[2], tiles=tuple(tiles),
                                                                  called=called if item[2].called else None),
                             *item[3:])
    _recompute(s, cmds, now)


def _indicator(s: GameState, d: dict, now: float, cmds: list) -> None:
    _in_hand(s, ("dice", "play", "win", "draw", "result"), "an indicator")
    is_ura = bool(d.get("is_ura", False))
    target = s.ura if is_ura else s.indicators
    size = len(target) + 1 if is_ura else max(len(target), 1)
    k = _index(d, "index", size, "ura indicator" if is_ura else "dora indicator")
    tile = _tile(d.get("tile"))
    if k == len(target):
        target.append(tile)
    else:
        target[k] = tile
    _recompute(s, cmds, now)


def _hand(s: GameState, d: dict, now: float, cmds: list) -> None:
    _in_hand(s, ("win", "draw", "result"), "a revealed hand")
    seat = _seat(s, d)
    tiles = _tiles(d.get("tiles"))
    st = s.seats[seat]
    is_winner = any(w == seat for w, _ in s.winners)
    need = 14 - 3 * len(st.melds) if is_winner or s.draw_kind == "nine_terminals" else 13 - 3 * len(st.melds)
    if len(tiles) != need:
        raise Refused(f"{_who(s, seat)} holds {need} standing tiles ({len(st.melds)} melds), {len(tiles)} given")
    win_tile = d.get("win_tile")
    if win_tile is not None:
        win_tile = _tile(win_tile, "winning tile")
        if win_tile not in tiles:
            raise Refused(f"the winning tile {win_tile} is not among the hand's tiles")
    if not is_winner and s.draw_kind is None:
        raise Refused(f"{_who(s, seat)} did not win: only the winners' hands count at a win")
    if st.revealed == tuple(tiles):      # the same tiles: only the winning tile is set apart anew
        if st.win_tile == win_tile:
            raise Refused(f"{_who(s, seat)}'s hand already reads so")
        st.win_tile = win_tile
        _recompute(s, cmds, now)
        return
    # as if the camera read it again: the census and the alerts the misreading raised follow
    RES.on_revealed(s, ev.HandRevealed(seat=seat, tiles=tuple(tiles), win_tile=win_tile, now=now), now, cmds)


def _result(s: GameState, d: dict, now: float, cmds: list) -> None:
    _in_hand(s, ("play", "win", "draw", "result"), "the result")
    seat = _seat(s, d)
    src = _seat(s, d, "from") if "from" in d else seat
    s.winners = [(seat, src)]
    s.draw_kind = None
    s.phase = "win"
    _recompute(s, cmds, now)


def _scores(s: GameState, d: dict, now: float, cmds: list) -> None:
    if s.phase in ("idle", "seating"):
        raise Refused("no game is being played")
    scores = d.get("scores")
    n = s.n_seats
    if not isinstance(scores, list) or len(scores) != n or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in scores):
        raise Refused(f"scores must be {n} whole numbers, one per seat")
    if any(x % 100 for x in scores):
        raise Refused("scores must be whole hundreds of points")
    sticks = d.get("sticks", s.sticks)
    if isinstance(sticks, bool) or not isinstance(sticks, int) or sticks < 0:
        raise Refused("sticks must be a number of riichi sticks (0 or more)")
    cost = s.rules.riichi_cost
    before = sum(x.score for x in s.seats) + cost * s.sticks
    after = sum(scores) + cost * sticks
    if after != before:
        raise Refused(f"the points do not add up: {after:,} with the sticks where the table holds {before:,} "
                      f"({after - before:+,})")
    for seat, x in zip(s.seats, scores, strict=True):
        seat.score = x
    s.sticks = sticks


def _dismiss(s: GameState, d: dict, now: float, cmds: list) -> None:
    k = _index(d, "index", len(s.alerts), "alert")
    a = s.alerts[k]
    if a.get("dismissed"):
        raise Refused(f"alert {k + 1} ({a['rule']}) is already dismissed")
    s.alerts[k] = {**a, "dismissed": True}


def _penalty(s: GameState, d: dict, now: float, cmds: list) -> None:
    if s.phase in ("idle", "seating", "ended"):
        raise Refused("no game is being played")
    seat = _seat(s, d)
    kind = d.get("kind", "chombo")
    if kind != "chombo":
        raise Refused(f"penalty {kind!r} is not known: chombo only")
    if s.rules.chombo == "deduction":
        # off the offender alone, paid to nobody: the table's total drops by it (scores
        # corrected later keep the new total; the settlement's results sum to minus it)
        s.seats[seat].score -= s.rules.chombo_points
        s.deducted += s.rules.chombo_points
        return
    if s.n_seats != 4:
        raise Refused("chombo payments are set for four players only")
    dealer = s.dealer
    for i, st in enumerate(s.seats):
        if i == seat:
            continue
        pay = 4000 if seat == dealer or i == dealer else 2000
        st.score += pay
        s.seats[seat].score -= pay


def _end_game(s: GameState, d: dict, now: float, cmds: list) -> None:
    if s.phase in ("idle", "ended") or s.finished:
        raise Refused("no game is being played" if s.phase == "idle" else "the game has already ended")
    from controller.rules.settlement import settle
    s.finished = True
    s.phase = "ended"
    s.result = None
    s.settlement = settle([x.score for x in s.seats], rules=s.rules, sticks=s.sticks, deducted=s.deducted)


def _pause(s: GameState, d: dict, now: float, cmds: list) -> None:
    if getattr(s, "paused", False):
        raise Refused("the game is already paused")
    if s.phase in ("idle", "ended"):
        raise Refused("no game is being played")
    s.paused = True


def _resume(s: GameState, d: dict, now: float, cmds: list) -> None:
    if not getattr(s, "paused", False):
        raise Refused("the game is not paused")
    s.paused = False


def _machine(s: GameState, d: dict, now: float, cmds: list) -> None:
    """``retry`` / ``continue``: the machine's way on after a stop (controller.cycle carries it out);
    the game keeps its state, the history keeps the action; a roll still to come has its lamp lit again."""
    SEATING.on_way_on(s, cmds, now)


_HANDLERS = {"retry": _machine, "continue": _machine, "discard": _discard, "call": _call, "indicator": _indicator, "hand": _hand, "result": _result,
             "winner": _result, "scores": _scores, "dismiss_alert": _dismiss, "penalty": _penalty,
             "end_game": _end_game, "pause": _pause, "resume": _resume}
_TOLD = {"remove_discard": "a discard is removed by the table itself (the tile taken back); to fix a misread "
                           "discard correct its tile",
         "meld": "a meld is corrected with 'call' (seat, meld number, tiles)",
         "dice": "the dice are rolled again on the machine (staff: retry), not corrected"}


def _undo(s: GameState, d: dict) -> dict:
    hist = s.corrections
    k = d.get("id")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(hist):
        raise Refused(f"history entry {_shown(k)} does not exist ({len(hist)} there)")
    entry = hist[k]
    if entry.get("what") in _NOT_UNDONE:
        why = {"pause": "resume the game instead", "resume": "pause the game again instead",
               "retry": "the machine has moved", "continue": "the machine has moved"}.get(
            entry["what"], "its tiles are back in the machine")
        raise Refused(f"a {entry['what'].replace('_', ' ')} cannot be undone: {why}")
    if "_before" not in entry:
        raise Refused(f"history entry {k + 1} was made by the table, not by staff: correct it anew instead")
    if entry.get("undone_by") is not None:
        raise Refused(f"history entry {k + 1} is already undone (by entry {entry['undone_by'] + 1})")
    if fingerprint(s) != entry["_after"]:
        raise Refused(f"the game has changed since history entry {k + 1}: undo the later changes first, "
                      "or correct it anew")
    return entry


def _record(s: GameState, e: ev.Event, what: str, data: dict, before: GameState | None) -> None:
    entry = {"id": len(s.corrections), "what": what, "data": dict(data), "reason": getattr(e, "reason", ""),
             "by": str(data.get("by") or "staff"), "hand_index": s.hand_index if before is None else before.hand_index,
             "now": e.now, "undone_by": None}
    if before is not None:
        entry["_before"] = before
        entry["_after"] = fingerprint(s)
    s.corrections.append(entry)


def apply(fam: Family, s: GameState, e: ev.Event, now: float, cmds: list) -> None:
    """Apply a staff action to ``s`` (in place) or raise Refused (``s`` then partly changed: callers
    work on a copy or restore it). ``fam``: the riichi family (the engine's void hand takes it)."""
    if isinstance(e, ev.ConfirmResult):
        if e.hand_index != s.hand_index:
            raise Refused(f"hand {_shown(e.hand_index)} is not the hand at the table (hand {s.hand_index + 1})")
        if s.phase != "result" or s.result is None:
            raise Refused(f"hand {s.hand_index + 1} has no result to confirm"
                          + (f": {s.result_error}" if s.result_error else ""))
        held = holds_result(s)
        if held:
            raise Refused(f"hand {s.hand_index + 1}'s result is held: {held}")
        _record(s, e, "confirm", {"hand_index": e.hand_index}, None)
        RES.confirm(s, cmds, now)
        return
    if isinstance(e, ev.VoidHand):
        if s.phase in ("idle", "seating", "ended"):
            raise Refused("there is no hand to void")
        _record(s, e, "void_hand", {}, None)
        STAFF.on_void(fam, s, e, now, cmds)
        return
    assert isinstance(e, ev.Correction)
    data = dict(e.data)
    if e.what in _TOLD:
        raise Refused(_TOLD[e.what])
    if e.what == "undo":
        entry = _undo(s, data)
        current = s.clone()
        hist = list(s.corrections)
        hist[entry["id"]] = {**entry, "undone_by": len(hist)}
        _restore(s, entry["_before"].clone())
        s.corrections = hist
        _record(s, e, "undo", data, current)
        return
    handler = _HANDLERS.get(e.what)
    if handler is None:
        raise Refused(f"unknown correction {e.what!r}: one of {', '.join(ACTIONS)}")
    before = s.clone()
    handler(s, data, now, cmds)
    _record(s, e, e.what, data, before)


def _restore(s: GameState, other: GameState) -> None:
    """``s`` becomes ``other`` field by field (the pause flag included)."""
    s.__dict__.clear()
    s.__dict__.update(other.__dict__)


def guarded(fam: Family, s: GameState, e: ev.Event, now: float, cmds: list) -> None:
    """The riichi family's handler of a staff action (``Correction``, ``VoidHand``, ``ConfirmResult``):
    applied whole, or (refused) the state and the commands exactly as they were."""
    before = s.clone()
    mark = len(cmds)
    try:
        apply(fam, s, e, now, cmds)
    except Refused as err:
        _restore(s, before)
        del cmds[mark:]
        log.info("staff %s not applied (state unchanged): %s", e.KIND, err)


def check(fam: Family, state: Any, e: ev.Event, now: float, machine: dict | None = None) -> None:
    """Raise Refused when ``e`` cannot apply to ``state`` (the tracker's; nothing changes; ``fam``: the
    riichi family, :func:`controller.tracker.engine.check_staff` passes it) or, for
    ``retry`` / ``continue``, when the ``machine`` (the core's status) is not stopped."""
    if isinstance(e, ev.Correction) and e.what in ("retry", "continue"):
        if machine is not None and machine.get("state") != "halted":
            raise Refused(f"the machine is not stopped (it is {machine.get('state', 'idle')}): nothing to {e.what}")
        if not isinstance(state, GameState) or state.phase == "idle":
            return
    if not isinstance(e, ev.Correction | ev.VoidHand | ev.ConfirmResult) or state is None:
        return
    if not isinstance(state, GameState):
        check_fan(state, e)
        return
    if state.phase == "idle":
        raise Refused("no game is being played")
    apply(fam, state.clone(), e, now, [])


def history(state: Any) -> list[dict]:
    """The staff history, plain (for the staff view): who, what, why, when, undone by which entry."""
    out = []
    for k, entry in enumerate(getattr(state, "corrections", ()) or ()):
        row = {key: v for key, v in entry.items() if not key.startswith("_")}
        row.setdefault("id", k)
        row.setdefault("by", "table")
        row["can_undo"] = "_before" in entry and entry.get("undone_by") is None and entry.get("what") not in _NOT_UNDONE
        out.append(row)
    return out
