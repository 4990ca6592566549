"""The game tracker's engine: follows a game at the table from events alone, for every family.

``step(state, event, now) -> (state, [Command])`` is pure: no I/O, no clock, and the state
passed in is never changed (a new one is returned). The daemon feeds it every event in the
order it stored them; replaying the stored events rebuilds the same state.

The engine owns the flow every family shares: a ``StartGame`` picks the family from the rule
set (:func:`family_for`: riichi, four or three players; or the fan family, Hong Kong, Chinese
and competition), the game is seated and each hand's walls lifted and dice rolled
(:mod:`~controller.tracker.seating`); the seat buttons and the panel's declarations, OK and
``ConfirmResult``, void hand and the staff's corrections (:mod:`~controller.tracker.staff`; the
riichi family has its own checked, undoable staff actions, :mod:`controller.tracker.riichi.actions`,
and :func:`check_staff` checks one before it is stored);
rivers changed or taken back, other backs (:mod:`~controller.tracker.river`). What differs
comes from the game's :class:`~controller.tracker.family.Family`: its handlers of play (the
deal, draws and replacement tiles, discards, calls and kans, flowers, indicators, revealed
hands), its declarations, results and part of the public state.

The concealed tiles are never seen until a hand is revealed; missed camera reports are
absorbed (a draw not seen is proven by the act that follows it); a called or winning tile read
again close up corrects the river's reading; what stays wrong is corrected by staff before
they confirm. An event that does not fit the state changes nothing and returns no command;
an event naming seat 3 at a three-player table is named and changes nothing.

Modules: :mod:`~controller.tracker.hand` (the one hand state, alerts, census),
:mod:`~controller.tracker.problems` (why a hand has no result), :mod:`~controller.tracker.view`
(``public_state``), :mod:`controller.tracker.riichi` and :mod:`controller.tracker.fan` (the families).
"""

from __future__ import annotations

from controller import events as ev
from controller.errors import GameError
from controller.rules.ruleset import RuleSet, RuleSetError
from controller.rules.ruleset import load as load_rules
from controller.tracker import river as RIVER
from controller.tracker import seating as SEATING
from controller.tracker import staff as STAFF
from controller.tracker import wall as WALL
from controller.tracker.family import Family
from controller.tracker.fan.family import FAN
from controller.tracker.fan.state import FanState
from controller.tracker.hand import HandState, alert
from controller.tracker.riichi import actions as ACTIONS
from controller.tracker.riichi.family import RIICHI
from controller.tracker.riichi.state import GameState, SeatState, new_state
from controller.tracker.view import public_state as _public_state

__all__ = ["FAMILIES", "FanState", "GameError", "GameState", "SeatState", "family_for", "new_state", "step",
           "public_state", "staff_alerts", "replay_events", "check_staff"]

FAMILIES: tuple[Family, ...] = (RIICHI, FAN)
_BY_STATE: dict[str, Family] = {fam.name: fam for fam in FAMILIES}


def family_for(rules: RuleSet) -> Family | None:
    """The family that follows games of ``rules``, or None (not followed yet)."""
    return next((fam for fam in FAMILIES if fam.follows(rules)), None)


def _dice(fam: Family, s: HandState, e: ev.DiceResult, now: float, cmds: list) -> None:
    layout = SEATING.on_dice(s, e, now, cmds)
    if layout is not None:
        fam.walls_planned(s, layout, cmds, now)


# the events every family takes alike: handler(family, state, event, now, cmds)
_COMMON = {
    ev.LiftDone: SEATING.on_lift,
    ev.StackReady: SEATING.on_stack_ready,
    ev.McuFault: SEATING.on_mcu_fault,
    ev.DiceResult: _dice,
    ev.Button: STAFF.on_button,
    ev.StaffDeclare: STAFF.on_button,
    ev.ConfirmResult: STAFF.on_confirm,
    ev.VoidHand: STAFF.on_void,
    ev.Correction: STAFF.on_correction,
    ev.DiscardRemoved: RIVER.on_removed,
    ev.WallBack: RIVER.on_wall_back,
    ev.HandCount: RIVER.on_hand_count,
    ev.WallStackTaken: WALL.on_taken,
}


def step(state: HandState, event: ev.Event, now: float) -> tuple[HandState, list[ev.Command]]:
    """Apply one event. Returns the new state and the commands for the parts.

    An event that does not fit the state (a discard before any game, a dice result nobody
    asked for) changes nothing and returns no command. Raises GameError only when ``state``
    is not a tracker state.
    """
    if not isinstance(state, HandState):
        raise GameError(f"tracker.step needs a tracker state (GameState or FanState), got {type(state).__name__}")
    if isinstance(event, ev.StartGame):
        return _start(state, event, now)
    fam = _BY_STATE[state.FAMILY]
    own = fam.handlers.get(type(event))
    common = _COMMON.get(type(event))
    if (own is None and common is None) or state.phase == "idle":
        return state, []
    s = state.clone()
    cmds: list[ev.Command] = []
    seat_no = getattr(event, "seat", None)
    if isinstance(seat_no, int) and not 0 <= seat_no < len(s.seats or range(4)):
        # three-player riichi: there is no seat 3 (a misreading, or a fourth player's button)
        alert(s, cmds, "inconsistent", None, None,
              f"{type(event).__name__} names seat {seat_no}, but this three-player table has seats 0-2",
              now=now, key=("no_seat", type(event).__name__, seat_no))
        return s, cmds
    if own is not None:
        own(s, event, now, cmds)
    else:
        common(fam, s, event, now, cmds)
    return s, cmds


def _start(state: HandState, e: ev.StartGame, now: float) -> tuple[HandState, list[ev.Command]]:
    """A new game, of the family its rule set names. A start refused (an unknown rule set, one
    not followed, start scores that do not fit) is named; a game under way goes on unchanged,
    and before any game the alert is kept in the state."""
    try:
        rules = load_rules(e.ruleset)
    except RuleSetError:
        return _refused(state, f"unknown ruleset {e.ruleset!r}: game not started", now)
    fam = family_for(rules)
    if fam is None:
        return _refused(state, f"ruleset {e.ruleset!r} is not followed by the tracker yet (four- and three-player "
                               "riichi, Hong Kong and Chinese only)", now)
    fresh = fam.fresh_state(e, rules)
    if isinstance(fresh, str):
        return _refused(state, fresh, now)
    cmds: list[ev.Command] = []
    return SEATING.start(fresh, cmds, now), cmds


def _refused(state: HandState, message: str, now: float) -> tuple[HandState, list[ev.Command]]:
    s = state.clone()
    cmds: list[ev.Command] = []
    alert(s, cmds, "inconsistent", None, None, message, now=now)
    return (s if state.phase == "idle" else state), cmds


def public_state(state: HandState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md (JSON-able), for every family."""
    return _public_state(_BY_STATE[state.FAMILY], state)


def staff_alerts(state: HandState) -> list[dict]:
    """Every alert of the game (the staff view), hidden ones included."""
    return [dict(a) for a in state.alerts]


def check_staff(state: HandState | None, e: ev.Event, now: float, machine: dict | None = None) -> None:
    """Raise :class:`controller.tracker.checks.Refused` (a plain message) when the staff action ``e``
    cannot apply to ``state`` (nothing changes), before it is stored; for ``retry`` / ``continue``
    also when the ``machine`` (the daemon core's status) is not stopped."""
    ACTIONS.check(RIICHI, state, e, now, machine)


def replay_events(events, state: HandState | None = None) -> tuple[HandState, list[ev.Command]]:
    """Feed many events (each with its ``now``); returns the final state and every command."""
    s = state or new_state()
    out: list[ev.Command] = []
    for e in events:
        s, cmds = step(s, e, e.now)
        out += cmds
    return s, out
