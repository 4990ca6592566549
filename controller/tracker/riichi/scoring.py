"""The riichi hand's result: computed by the rules engine's replay
(:func:`controller.rules.replay.replay_hand`) over the hand as the table saw it (rebuilt by
:mod:`controller.tracker.riichi.record`), so the table shows exactly what ``tablectl replay``
prints; or, while it cannot be, ``result_problem`` (:mod:`controller.tracker.problems`)."""

from __future__ import annotations

from controller import events as ev
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules.replay import replay_hand
from controller.tracker import problems as PB
from controller.tracker.riichi import record as GR
from controller.tracker.riichi.state import GameState


def _ready_for_result(s: GameState) -> str | None:
    """None when the result can be computed, else what is still awaited."""
    if s.draw_kind is None and not s.winners:
        return "a winner whose hand can score"
    if s.phase == "win" and s.draw_kind is None:
        for w, _src in s.winners:
            if s.seats[w].revealed is None:
                return f"seat {w}'s hand"
        if any(s.seats[w].is_riichi for w, _ in s.winners) and s.rules.has_ura_dora:
            if len([u for u in s.ura if u]) < len(s.indicators):
                return "the ura indicators"
    return None


def compute_result(s: GameState, cmds: list, now: float) -> None:
    """The result of the hand as it stands, shown (``Show("result")``); else ``result_problem``."""
    waiting = _ready_for_result(s)
    if waiting is not None:
        s.result = None
        if s.result_problem is None or PB.is_waiting(s.result_problem):
            s.result_problem = PB.problem(PB.WAITING, f"waiting for {waiting}")
        return
    kind = s.draw_kind or "win"
    if kind == "win":
        _choose_unread_tsumo_tile(s)
    try:
        hand = GR.log_hand(s, kind)
        out = replay_hand(hand, s.rules, source=s.table)
    except (TH.LogError, ValueError, KeyError, IndexError) as err:
        # not an alert yet: the camera looks on at the hands laid down and may read them right
        # (unscorable_at_ok raises it when the players want to confirm and still cannot)
        s.result = None
        s.result_problem = PB.problem(PB.UNSCORABLE, f"the hand cannot be scored as seen: {err}")
        s.phase = "result" if s.phase != "win" else s.phase
        return
    out["hand"] = s.hand_index
    s.result = out
    s.result_problem = None
    s.phase = "result"
    cmds.append(ev.Show(what="result", data=out, now=now))


def _choose_unread_tsumo_tile(s: GameState) -> None:
    """A tsumo hand revealed without the reader naming its drawn tile. The winner sets it apart
    at the right end of the row: when the other tiles lie in order, the last one is it.
    Otherwise take the reading that scores best (the winner would point it out) and note it
    as a correction for staff to check."""
    for w, src in s.winners:
        seat = s.seats[w]
        if w != src or seat.win_tile is not None or seat.revealed is None:
            continue
        rest = list(seat.revealed[:-1])
        if rest == T.sorted_tiles(rest):
            seat.win_tile = seat.revealed[-1]
            continue
        best = None
        for tile in dict.fromkeys(seat.revealed):
            seat.win_tile = tile
            try:
                out = replay_hand(GR.log_hand(s, "win"), s.rules, source=s.table)
            except (TH.LogError, ValueError, KeyError, IndexError):
                continue
            win = out["wins"][0]
            key = (win["points"], win["han"], win["fu"])
            if best is None or key > best[0]:
                best = (key, tile)
        seat.win_tile = best[1] if best else None
        if best:
            s.corrections.append({"what": "win_tile", "reason": "the drawn tile was not set apart: best reading",
                                  "data": {"seat": w, "tile": best[1]}, "hand_index": s.hand_index})


def unscorable_message(s: GameState) -> str | None:
    """OK pressed while the hands as seen cannot be scored: the alert for staff (None otherwise)."""
    if s.result_problem is not None and s.result_problem["kind"] == PB.UNSCORABLE:
        return f"{s.result_problem['message']}; staff to correct the hand or void it"
    return None
