"""The end of a hand as every family has it, and the staff's actions: the seat buttons and the
panel's declarations, OK and ``ConfirmResult``, void hand, and the staff corrections.

Corrections go through one table, :data:`CORRECTIONS` (``what`` -> handler), which a family
extends with its own (``Family.corrections``): to add a staff action, add a handler there. The
riichi family takes ``Correction``, ``VoidHand`` and ``ConfirmResult`` itself
(:mod:`controller.tracker.riichi.actions`: each checked, applied whole or not at all, kept in a
history and undoable), so this flow serves the fan family.
A handler gets ``(state, data, now, cmds)`` and raises ``KeyError``/``TypeError``/``ValueError``/
``IndexError`` for data it cannot apply (named in an alert; nothing else changes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller import events as ev
from controller.rules import tiles as T
from controller.rules.flow import round_name
from controller.tracker.hand import HandState, alert, begin_hand
from controller.tracker.seating import on_dice_button, on_way_on

if TYPE_CHECKING:
    from controller.tracker.family import Family


def on_button(fam: Family, s: HandState, e: ev.Button | ev.StaffDeclare, now: float, cmds: list) -> None:
    """A seat button, or the panel's declaration: ``dice``; ``ok`` confirms the result shown (or, when
    the hands as seen give none, says so); ``tsumo`` / ``ron``; ``draw`` (the family's)."""
    if e.action == "dice":
        on_dice_button(s, e.seat, now, cmds)
    elif e.action == "ok":
        if s.phase == "result" and s.result is not None:
            fam.confirm(s, cmds, now)
        elif s.phase in ("win", "draw", "result"):
            unscorable_at_ok(fam, s, cmds, now)
    elif e.action == "tsumo":
        fam.declare_tsumo(s, e.seat, cmds, now)
    elif e.action == "ron":
        fam.declare_ron(s, e.seat, cmds, now)
    elif e.action == "draw":
        fam.declare_draw(s, e.seat, cmds, now)


def claim_tsumo(s: HandState, seat_no: int, cmds: list, now: float, *, infer_draw, name: str) -> bool:
    """A self-drawn win declared in play: the seat must hold its drawn tile (a draw not seen is
    proven by ``infer_draw``, the family's). True when the win stands (the phase is ``win``);
    else named (``name``: the rules' word for it)."""
    if s.phase != "play":
        return False
    infer_draw(s, seat_no, cmds, now)
    if s.turn != seat_no or not s.seats[seat_no].has_drawn:
        alert(s, cmds, "inconsistent", seat_no, None, f"seat {seat_no} declares {name} without a drawn tile", now=now)
        return False
    s.winners = [(seat_no, seat_no)]
    s.phase = "win"
    s.result, s.result_problem = None, None
    return True


def unscorable_at_ok(fam: Family, s: HandState, cmds: list, now: float) -> None:
    """OK pressed (or the result confirmed) while the hands as seen give no result: now it is an
    alert, for the staff to correct the hand (or void it)."""
    message = fam.unscorable_message(s) if s.result is None else None
    if message:
        alert(s, cmds, "inconsistent", None, None, message, now=now, key=("result", s.result_error[:80]))


def on_confirm(fam: Family, s: HandState, e: ev.ConfirmResult, now: float, cmds: list) -> None:
    if e.hand_index != s.hand_index:
        return
    if s.phase == "result" and s.result is not None:
        fam.confirm(s, cmds, now)
    elif s.phase in ("win", "draw", "result"):
        unscorable_at_ok(fam, s, cmds, now)


def sheet_row(s: HandState, outcome: str, deltas: list[int]) -> None:
    """One line of the score sheet: the hand that ended, how, and every seat's score after it."""
    s.history.append({"hand": s.hand_index, "round": round_name(s.round, s.n_seats), "honba": s.honba,
                      "outcome": outcome, "deltas": list(deltas), "scores": [x.score for x in s.seats]})


def on_void(fam: Family, s: HandState, e: ev.VoidHand, now: float, cmds: list) -> None:
    """Void the hand (a tile-set error): the scores and deposits it began with, and it is played again."""
    if s.phase in ("idle", "ended", "seating"):
        return
    for seat, score in zip(s.seats, s.hand_start_scores, strict=True):
        seat.score = score
    s.sticks = s.hand_start_sticks
    sheet_row(s, "void", [0] * len(s.seats))
    s.corrections.append({"what": "void_hand", "reason": e.reason, "hand_index": s.hand_index, "now": now})
    begin_hand(s, cmds, now)


# --------------------------------------------------------------------------- corrections

def _correct_hand(fam: Family, s: HandState, d: dict, now: float, cmds: list) -> None:
    seat_no = int(d["seat"])
    seat = s.seats[seat_no]
    seat.revealed = tuple(T.check(t) for t in d["tiles"])
    seat.win_tile = d.get("win_tile")
    fam.correct_hand(s, seat_no)


def _correct_discard(fam: Family, s: HandState, d: dict, now: float, cmds: list) -> None:
    seat, index = int(d["seat"]), int(d["index"])
    fam.replace_discard(s, cmds, now, seat, index, T.check(d["tile"]))


def _correct_scores(fam: Family, s: HandState, d: dict, now: float, cmds: list) -> None:
    for seat, x in zip(s.seats, d["scores"], strict=True):
        seat.score = int(x)


def _correct_winner(fam: Family, s: HandState, d: dict, now: float, cmds: list) -> None:
    s.winners = [(int(d["seat"]), int(d.get("from", d["seat"])))]
    s.draw_kind = None
    s.phase = "win"


#: the staff corrections every family has: ``what`` -> handler(family, state, data, now, cmds)
CORRECTIONS: dict[str, Any] = {
    "hand": _correct_hand,
    "discard": _correct_discard,
    "scores": _correct_scores,
    "winner": _correct_winner,
}


def on_correction(fam: Family, s: HandState, e: ev.Correction, now: float, cmds: list) -> None:
    """A staff correction (kept with its reason); then the result as it now stands."""
    s.corrections.append({"what": e.what, "reason": e.reason, "data": e.data, "hand_index": s.hand_index, "now": now})
    if e.what in ("retry", "continue"):       # the machine's way on after a stop (controller.cycle carries it out)
        on_way_on(s, cmds, now)
        return
    common = CORRECTIONS.get(e.what)
    own = fam.corrections.get(e.what)
    if common is None and own is None:
        return
    try:
        if own is not None:
            own(s, e.data, now, cmds)
        else:
            common(fam, s, e.data, now, cmds)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        alert(s, cmds, "inconsistent", None, None, f"correction {e.what!r} could not be applied: {err}", now=now,
              key=("correction", len(s.corrections)))
        return
    if s.phase in ("win", "draw", "result"):
        fam.compute_result(s, cmds, now)
