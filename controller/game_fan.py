"""The game tracker for the fan families: Hong Kong (``hk``) and general Chinese (``chinese``,
``competition``) games, followed from events alone, as :mod:`controller.game` follows riichi.

``step(state, event, now) -> (state, [Command])`` is pure (the state given is never changed);
:mod:`controller.game` hands a ``StartGame`` of a fan-family profile over to this module and
dispatches every later event on the state's type.

What it follows:

- the game (``StartGame``: profile, seat order, first dealer as seated or rolled at the table
  through ``Button(dice)`` → ``RollDice`` → ``DiceResult``, :mod:`controller.rules.seating`);
- per hand: the lift (``LiftDone``, counts checked against the profile), the dealer's dice and
  the break per the profile (hk: three dice, then two by the wall's owner; chinese: two rolls
  summed), the deal (jump deal: the dealer holds 14), the draws (``WallStackTaken`` at the slots
  :mod:`controller.rules.walls` names), flowers set aside (``FlowerSetAside``) and their
  replacement tiles from the tail, discards, chow / pung / kong (``Meld``) and the kong's
  replacement tile; the live wall count;
- wins declared on the seat buttons (tsumo / ron; hk: the first claimant counter-clockwise from
  the discarder wins; chinese: three claims on one discard are a draw or the first claimant
  wins, per profile), the revealed hand (``HandRevealed``) scored by
  :func:`controller.rules.hk.score` / :func:`controller.rules.chinese.score`, shown
  (``Show("result")``) and applied on ``ok`` or ``ConfirmResult``;
- chinese: the false win (诈和: a declared win whose hand does not win, or a hand of the wrong
  size) paid by the profile's penalty; four winds in the first go-round (a draw, or the
  dealer's fine and play goes on); four kans (one seat with three, another makes the fourth);
- exhaustive draws (no tenpai payments; chinese: the dealer stays, or passes and pays);
- the deal's rotation (hk: after every hand; chinese: the dealer keeps the deal on a win) and
  the round wind (a round ends when the deal comes back to the first dealer); the game ends
  after the North round and is settled (final scores);
- integrity (:mod:`controller.integrity`): walls' counts, fifth copies (a second copy of a
  flower), discards out of turn, discards taken back, extra draws, the wrong-size hand (相公:
  chinese keeps it from the table until the hand ends), other backs, the set after the hand;
- staff corrections (hand, discard, scores, winner) and void hand.

Modules: :mod:`controller.game_fan_play` (walls, draws, flowers, discards, melds),
:mod:`controller.game_fan_result` (declarations, scoring, flow, staff).
"""

from __future__ import annotations

from controller import events as ev
from controller import game_fan_play as PLAY
from controller import game_fan_result as RES
from controller import game_seating as SEATING
from controller.game_fan_state import FanSeat, FanState, begin_hand, new_state
from controller.game_state import GameError, alert
from controller.rules.flow import round_name
from controller.rules.ruleset import RuleSetError
from controller.rules.ruleset import load as load_rules

__all__ = ["FAMILIES", "FanSeat", "FanState", "follows", "new_state", "step", "public_state", "staff_alerts"]

FAMILIES = ("hk", "chinese")
WINDS = ("E", "S", "W", "N")


def follows(ruleset: str) -> bool:
    """Is ``ruleset`` a four-player profile of a fan family (followed by this module)?"""
    try:
        rules = load_rules(ruleset)
    except RuleSetError:
        return False
    return rules.family in FAMILIES and rules.players == 4


def step(state: FanState, event: ev.Event, now: float) -> tuple[FanState, list[ev.Command]]:
    """Apply one event (see the module docstring). An event that does not fit changes nothing.
    Raises GameError only when ``state`` is not a FanState."""
    if not isinstance(state, FanState):
        raise GameError(f"game_fan.step needs a FanState, got {type(state).__name__}")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return state, []
    if state.phase == "idle" and not isinstance(event, ev.StartGame):
        return state, []
    s = state.clone()
    cmds: list[ev.Command] = []
    handler(s, event, now, cmds)
    return s, cmds


def _on_start(s: FanState, e: ev.StartGame, now: float, cmds: list) -> None:
    try:
        rules = load_rules(e.ruleset)
    except RuleSetError:
        alert(s, cmds, "inconsistent", None, None, f"unknown ruleset {e.ruleset!r}: game not started", now=now)
        return
    if rules.family not in FAMILIES or rules.players != 4:
        alert(s, cmds, "inconsistent", None, None,
              f"ruleset {e.ruleset!r} is not a four-player Hong Kong or Chinese profile", now=now)
        return
    fresh = FanState(table=e.table, ruleset=e.ruleset, players=tuple(e.players), round=e.start_round,
                     honba=e.start_honba)
    scores = e.start_scores or (rules.start_points,) * 4
    fresh.seats = [FanSeat(score=int(x)) for x in scores]
    fresh.first_dealer_method = e.first_dealer
    SEATING.start(s, fresh, cmds, now, begin_hand)


def _on_button(s: FanState, e: ev.Button | ev.StaffDeclare, now: float, cmds: list) -> None:
    SEATING.on_button(s, e, now, cmds, RES)


def _on_dice(s: FanState, e: ev.DiceResult, now: float, cmds: list) -> None:
    SEATING.on_dice(s, e, now, cmds, begin_hand)


_HANDLERS = {
    ev.StartGame: _on_start,
    ev.LiftDone: SEATING.on_lift,
    ev.StackReady: SEATING.on_stack_ready,
    ev.McuFault: SEATING.on_mcu_fault,
    ev.Button: _on_button,
    ev.StaffDeclare: _on_button,
    ev.DiceResult: _on_dice,
    ev.WallStackTaken: PLAY.on_taken,
    ev.FlowerSetAside: PLAY.on_flower,
    ev.Discard: PLAY.on_discard,
    ev.DiscardRemoved: PLAY.on_removed,
    ev.Meld: PLAY.on_meld,
    ev.WallBack: PLAY.on_wall_back,
    ev.HandCount: PLAY.on_hand_count,
    ev.HandRevealed: RES.on_revealed,
    ev.ConfirmResult: RES.on_confirm,
    ev.VoidHand: RES.on_void,
    ev.Correction: RES.on_correction,
}


def public_state(state: FanState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md, plus each seat's ``flowers`` and
    the score sheet (``hands``). A wrong-size alert kept from the table (chinese) shows once its
    hand has ended."""
    s = state
    seats = []
    for i, seat in enumerate(s.seats):
        seats.append({"wind": WINDS[(i - s.dealer) % 4], "score": seat.score, "riichi": False,
                      "name": s.players[i] if i < len(s.players) else "", "is_dealer": i == s.dealer,
                      "river": [r["tile"] for r in seat.river if r["taken_by"] is None],
                      "melds": [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in seat.melds],
                      "flowers": list(seat.flowers), "tenpai": None})
    ended_hands = s.hand_index if s.phase not in ("result", "ended") else s.hand_index + 1
    alerts = [{k: a[k] for k in ("rule", "hand_index", "seat", "tile", "message", "suggest", "now")}
              for a in s.alerts if a["is_public"] or a["hand_index"] < ended_hands]
    return {
        "table": s.table,
        "ruleset": s.ruleset,
        "family": s.rules.family if s.phase != "idle" else None,
        "round": round_name(s.round),
        "round_wind": WINDS[s.round_wind % 4],
        "honba": s.honba,
        "riichi_sticks": 0,
        "hand_index": s.hand_index,
        "dealer": s.dealer,
        "first_dealer_chair": s.first_dealer_chair,
        "finished": s.finished,
        "phase": s.phase,
        "seats": seats,
        "dora_indicators": [],
        "dora": [],
        "live_wall": s.live_wall,
        "dice": [list(r) for r in s.rolls],
        "last_result": s.last_result,
        "pending_result": s.result,
        "result_problem": s.result_error if s.phase in ("win", "draw", "result") else None,
        "alerts": alerts,
        "settlement": s.settlement,
        "hands": [dict(row) for row in s.history],
    }


def staff_alerts(state: FanState) -> list[dict]:
    """Every alert of the game (the staff view), hidden ones included."""
    return [dict(a) for a in state.alerts]
