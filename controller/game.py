"""The game tracker: follows a game at the table from events alone.

``step(state, event, now) -> (state, [Command])`` is pure: no I/O, no clock, and the state
passed in is never changed (a new one is returned). The daemon feeds it every event in the
order it stored them; replaying the stored events rebuilds the same state.

What it follows (riichi profiles, four players or three (``sanma``); a game of the Hong Kong or
Chinese family is handed over to :mod:`controller.game_fan`, and `step`, `public_state`,
`staff_alerts` dispatch on the state):

- a new game (``StartGame``: ruleset profile, seat order, optionally a mid-game start);
- per hand: the walls lifted (``LiftDone``: the counts are checked), the dealer's dice roll
  (``Button(dice)`` → ``RollDice`` → ``DiceResult``), the break point and from it the wall
  slots of the deal, the draws, the replacement tiles and the indicators
  (:mod:`controller.rules.walls`); the camera must find the dora indicator at the slot the
  tracker names (``WatchSlot``);
- the deal and each draw (``WallStackTaken``), discards (``Discard``, sideways = riichi; after
  a called riichi tile the next sideways tile is only a marker), calls and kans (``Meld``),
  riichi sticks, kan indicators; the live wall count and haitei;
- wins declared on the seat buttons or the panel (``Button``/``StaffDeclare`` tsumo/ron),
  the revealed hands (``HandRevealed``) and ura indicators; exhaustive draws (tenpai from the
  revealed hands); abortive draws (nine terminals declared, four riichi, four winds,
  four kans, triple ron);
- three players (``sanma``): three seats (winds E/S/W, the deal passing among three, rounds
  E1-E3, S1-S3), three walls and the sanma break, no chi (a chi shown is named), a north set
  aside (``Meld`` "nuki") with its replacement tile from the dead wall (kita dora in the
  result, may be robbed), no four-riichi or four-winds abort, payments and settlement for
  three; an event naming seat 3 is named and changes nothing. The result shown is the replay's
  (its empty fourth seat included, as ``tablectl replay`` prints it); the seats and the score
  sheet have three entries;
- every result is computed by the rules engine's replay (:func:`controller.rules.replay.replay_hand`)
  over the hand as the table saw it, shown (``Show("result")``), and applied when confirmed
  (``ConfirmResult`` or the dealer's ``ok`` button); then the next hand or the game's end
  and settlement;
- staff corrections (with a reason), void hand, and the integrity checks of
  :mod:`controller.integrity`, whose alerts come back as ``RaiseAlert`` commands.

The concealed tiles are never seen until a hand is revealed; to replay a hand the tracker
rebuilds a consistent record: every tile given up is taken from the earliest unseen tile
of that seat, the revealed hand fills what is left, and the hands never shown are filled
with unseen tiles that do not wait (a hand not shown at a draw is noten).

Missed camera reports are absorbed: a draw not seen is proven by the act that follows it
(a discard, a kan, a tsumo); a called or winning tile read again close up corrects the
river's reading; what stays wrong is corrected by staff before they confirm.

Modules: :mod:`controller.game_state` (the state, alerts, census), :mod:`controller.game_play`
(wall, discards, calls, indicators), :mod:`controller.game_result` (declarations, results,
flow, staff), :mod:`controller.game_record` (the hand rebuilt for the replay),
:mod:`controller.game_view` (``public_state``).
"""

from __future__ import annotations

from controller import events as ev
from controller import game_fan as FAN
from controller import game_play as PLAY
from controller import game_result as RES
from controller import game_seating as SEATING
from controller import staff_actions as STAFF
from controller.game_state import GameError, GameState, SeatState, alert, begin_hand, new_state
from controller.game_view import public_state as _riichi_public_state
from controller.game_view import staff_alerts as _riichi_staff_alerts
from controller.rules import tiles as T
from controller.rules.ruleset import RuleSetError
from controller.rules.ruleset import load as load_rules

__all__ = ["GameError", "GameState", "SeatState", "new_state", "step", "public_state", "staff_alerts",
           "replay_events"]


def step(state: GameState, event: ev.Event, now: float) -> tuple[GameState, list[ev.Command]]:
    """Apply one event. Returns the new state and the commands for the parts.

    An event that does not fit the state (a discard before any game, a dice result nobody
    asked for) changes nothing and returns no command. Raises GameError only when ``state``
    is not a GameState.
    """
    # the Hong Kong and Chinese families are followed by controller.game_fan (its own state)
    is_fan_start = isinstance(event, ev.StartGame) and FAN.follows(event.ruleset)
    if is_fan_start or isinstance(state, FAN.FanState):
        if is_fan_start or not isinstance(event, ev.StartGame):
            return FAN.step(state if isinstance(state, FAN.FanState) else FAN.new_state(), event, now)
        fresh, cmds = step(new_state(), event, now)   # a riichi game after a fan game (if it starts)
        return (fresh, cmds) if fresh.phase != "idle" else (state, cmds)
    if not isinstance(state, GameState):
        raise GameError(f"game.step needs a GameState, got {type(state).__name__}")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return state, []
    if state.phase == "idle" and not isinstance(event, ev.StartGame):
        return state, []
    s = state.clone()
    cmds: list[ev.Command] = []
    seat_no = getattr(event, "seat", None)
    if len(s.seats) == 3 and isinstance(seat_no, int) and not 0 <= seat_no < 3 and not isinstance(event, ev.StartGame):
        # three-player riichi: there is no seat 3 (a misreading, or a fourth player's button)
        alert(s, cmds, "inconsistent", None, None,
              f"{type(event).__name__} names seat {seat_no}, but this three-player table has seats 0-2",
              now=now, key=("no_seat", type(event).__name__, seat_no))
        return s, cmds
    handler(s, event, now, cmds)
    return s, cmds


def _on_start(s: GameState, e: ev.StartGame, now: float, cmds: list) -> None:
    try:
        rules = load_rules(e.ruleset)
    except RuleSetError:
        alert(s, cmds, "inconsistent", None, None, f"unknown ruleset {e.ruleset!r}: game not started", now=now)
        return
    if rules.family != "riichi" or rules.players not in (3, 4):
        alert(s, cmds, "inconsistent", None, None,
               f"ruleset {e.ruleset!r} is not followed by the tracker yet (four- and three-player riichi, "
               "Hong Kong and Chinese only)", now=now)
        return
    n = rules.players
    players = tuple(e.players)
    scores = e.start_scores or (rules.start_points,) * n
    if n == 3:
        # three-player riichi: three seats (four names or a tenhou-style score list with an empty
        # fourth seat are cut to three)
        players = (players + ("",) * 3)[:3]
        if len(scores) == 4 and int(scores[3]) == 0:
            scores = tuple(scores[:3])
        if len(scores) != 3:
            alert(s, cmds, "inconsistent", None, None,
                  f"ruleset {e.ruleset!r} is played by 3 players but {len(scores)} start scores are given: "
                  "game not started", now=now)
            return
    reds = e.red_fives
    if reds is None:
        reds = tuple(r for r, k in zip(T.REDS, rules.red_fives, strict=True) for _ in range(k))
    fresh = GameState(table=e.table, ruleset=e.ruleset, players=players, red_fives=tuple(reds),
                      round=e.start_round, honba=e.start_honba, sticks=e.start_sticks)
    fresh.seats = [SeatState(score=int(x)) for x in scores]
    fresh.first_dealer_method = e.first_dealer
    SEATING.start(s, fresh, cmds, now, begin_hand)


def _on_button(s: GameState, e: ev.Button | ev.StaffDeclare, now: float, cmds: list) -> None:
    SEATING.on_button(s, e, now, cmds, RES)


def _on_dice(s: GameState, e: ev.DiceResult, now: float, cmds: list) -> None:
    lay = SEATING.on_dice(s, e, now, cmds, begin_hand)
    if lay is not None:     # play begins: the camera must find the dora indicator here
        ind = lay.indicator_slots[0]
        cmds.append(ev.WatchSlot(wall=ind.seat, stack=ind.stack, purpose="indicator", now=now))


_HANDLERS = {
    ev.StartGame: _on_start,
    ev.LiftDone: SEATING.on_lift,
    ev.StackReady: SEATING.on_stack_ready,
    ev.McuFault: SEATING.on_mcu_fault,
    ev.Button: _on_button,
    ev.StaffDeclare: _on_button,
    ev.DiceResult: _on_dice,
    ev.WallStackTaken: PLAY.on_taken,
    ev.Discard: PLAY.on_discard,
    ev.DiscardRemoved: PLAY.on_removed,
    ev.Meld: PLAY.on_meld,
    ev.RiichiStick: PLAY.on_stick,
    ev.IndicatorRevealed: PLAY.on_indicator,
    ev.HandRevealed: RES.on_revealed,
    ev.ConfirmResult: STAFF.on_confirm,    # staff actions: checked, kept in a history, undoable
    ev.VoidHand: STAFF.on_void,
    ev.Correction: STAFF.on_correction,
    ev.WallBack: PLAY.on_wall_back,
}


def public_state(state: GameState | FAN.FanState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md (JSON-able), for either tracker."""
    return FAN.public_state(state) if isinstance(state, FAN.FanState) else _riichi_public_state(state)


def staff_alerts(state: GameState | FAN.FanState) -> list[dict]:
    """Every alert of the game (the staff view), hidden ones included."""
    return FAN.staff_alerts(state) if isinstance(state, FAN.FanState) else _riichi_staff_alerts(state)


def replay_events(events, state: GameState | None = None) -> tuple[GameState, list[ev.Command]]:
    """Feed many events (each with its ``now``); returns the final state and every command."""
    s = state or new_state()
    out: list[ev.Command] = []
    for e in events:
        s, cmds = step(s, e, e.now)
        out += cmds
    return s, out
