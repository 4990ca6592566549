"""The game tracker: follows a game at the table from events alone.

``step(state, event, now) -> (state, [Command])`` is pure: no I/O, no clock, and the state
passed in is never changed (a new one is returned). The daemon feeds it every event in the
order it stored them; replaying the stored events rebuilds the same state.

What it follows (riichi profiles):

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
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from controller import events as ev
from controller import game_record as GR
from controller import integrity as IG
from controller.rules import dice as DC
from controller.rules import flow as FL
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.melds import Meld as RMeld
from controller.rules.replay import replay_hand
from controller.rules.ruleset import RuleSet, RuleSetError
from controller.rules.ruleset import load as load_rules
from controller.rules.settlement import settle

WINDS = ("E", "S", "W", "N")
class GameError(ValueError):
    """A state that ``step`` cannot work on (not a GameState)."""


@dataclass
class SeatState:
    """One seat during a hand. ``river`` entries: ``{"tile", "is_sideways", "is_tsumogiri",
    "taken_by", "is_out_of_turn"}`` (a removed tile leaves the list)."""

    score: int
    river: list[dict] = field(default_factory=list)
    melds: list[dict] = field(default_factory=list)
    n_concealed: int = 0
    has_drawn: bool = False       # holds 3n+2 tiles after a draw: must discard (or kan / tsumo)
    must_discard: bool = False    # after chi / pon: discards without drawing
    is_riichi: bool = False
    riichi_index: int | None = None
    revealed: tuple[str, ...] | None = None
    win_tile: str | None = None
    discards_made: int = 0

    def clone(self) -> SeatState:
        new = copy.copy(self)
        new.river = [dict(r) for r in self.river]
        new.melds = [dict(m) for m in self.melds]
        return new


@dataclass
class GameState:
    """Everything the tracker knows. Treat as read-only outside :func:`step`."""

    phase: str = "idle"        # idle, walls, dice, play, win, draw, result, ended
    table: str = "t1"
    ruleset: str = "tenhou"
    players: tuple[str, ...] = ("", "", "", "")
    red_fives: tuple[str, ...] = ("0m", "0p", "0s")
    round: int = 0
    honba: int = 0
    sticks: int = 0
    hand_index: int = 0
    seats: list[SeatState] = field(default_factory=list)
    hand_start_scores: tuple[int, ...] = ()
    hand_start_sticks: int = 0
    rolls: list[tuple[int, ...]] = field(default_factory=list)
    wall: Any = None                            # controller.rules.walls.WallState
    deal_left: list[Any] = field(default_factory=list)   # deal slots not yet seen taken
    accounted: set = field(default_factory=set)          # slots taken (seen or inferred)
    unreported: set = field(default_factory=set)         # slots inferred taken, not yet seen taken
    lift_total: int = 0
    is_dealt: bool = False
    turn: int = 0
    kan_pending: int | None = None              # seat owed a replacement draw
    flips_owed: int = 0                         # kan indicators due at the next discard
    flips_now: int = 0                          # kan indicators due at once (closed kan)
    indicators: list[str] = field(default_factory=list)
    ura: list[str] = field(default_factory=list)
    last_discard: tuple[int, int] | None = None  # (seat, river index)
    last_kakan: tuple[int, str] | None = None    # (seat, tile) of the kan just made: robbable
    timeline: list[tuple] = field(default_factory=list)
    is_first_go: bool = True                     # no call yet, first discards being made
    kans_by: list[int] = field(default_factory=list)
    winners: list[tuple[int, int]] = field(default_factory=list)  # (seat, from)
    draw_kind: str | None = None
    result: dict | None = None
    result_error: str | None = None
    last_result: dict | None = None
    alerts: list[dict] = field(default_factory=list)
    alert_keys: set = field(default_factory=set)
    corrections: list[dict] = field(default_factory=list)
    finished: bool = False
    settlement: list[float] | None = None
    face_up_counts: dict = field(default_factory=dict)

    def clone(self) -> GameState:
        new = copy.copy(self)
        new.seats = [s.clone() for s in self.seats]
        for name in ("rolls", "deal_left", "indicators", "ura", "timeline", "kans_by", "winners", "alerts",
                     "corrections"):
            setattr(new, name, list(getattr(self, name)))
        new.accounted = set(self.accounted)
        new.unreported = set(self.unreported)
        new.alert_keys = set(self.alert_keys)
        new.face_up_counts = dict(self.face_up_counts)
        if self.wall is not None:
            new.wall = _clone_wall(self.wall)
        return new

    @property
    def dealer(self) -> int:
        return self.round % 4

    @property
    def rules(self) -> RuleSet:
        return load_rules(self.ruleset)

    @property
    def live_wall(self) -> int | None:
        if self.wall is None:
            return None
        return self.wall.live_remaining


def _clone_wall(ws: WL.WallState) -> WL.WallState:
    """Copy a WallState: its containers hold only immutable slots and tiles."""
    new = copy.copy(ws)
    for name, value in vars(ws).items():
        if isinstance(value, (list, set, dict)) or type(value).__name__ == "deque":
            setattr(new, name, copy.copy(value))
    return new


def new_state() -> GameState:
    """The tracker before any game: waits for ``StartGame``."""
    return GameState()


# --------------------------------------------------------------------------- step


def step(state: GameState, event: ev.Event, now: float) -> tuple[GameState, list[ev.Command]]:
    """Apply one event. Returns the new state and the commands for the parts.

    An event that does not fit the state (a discard before any game, a dice result nobody
    asked for) changes nothing and returns no command. Raises GameError only when ``state``
    is not a GameState.
    """
    if not isinstance(state, GameState):
        raise GameError(f"game.step needs a GameState, got {type(state).__name__}")
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return state, []
    if state.phase == "idle" and not isinstance(event, ev.StartGame):
        return state, []
    s = state.clone()
    cmds: list[ev.Command] = []
    handler(s, event, now, cmds)
    return s, cmds


def _alert(s: GameState, cmds: list, rule: str, seat: int | None, tile: str | None, message: str, *,
           now: float = 0.0, key: Any = None, suggest: str | None = None, is_public: bool | None = None) -> None:
    key = (s.hand_index, rule, seat, tile) if key is None else (s.hand_index, rule, key)
    if key in s.alert_keys:
        return
    s.alert_keys.add(key)
    if is_public is None:
        is_public = IG.is_public(rule, s.rules)
    if suggest is None and rule in IG.SET_ERRORS:
        suggest = "void_hand"
    alert = ev.Alert(rule=rule, hand_index=s.hand_index, seat=seat, tile=tile, message=message,
                     is_public=is_public, suggest=suggest, now=now)
    s.alerts.append(ev.to_record(alert))
    cmds.append(ev.RaiseAlert(alert=alert, now=now))


# --------------------------------------------------------------------------- game and hand start


def _on_start(s: GameState, e: ev.StartGame, now: float, cmds: list) -> None:
    try:
        rules = load_rules(e.ruleset)
    except RuleSetError:
        _alert(s, cmds, "inconsistent", None, None, f"unknown ruleset {e.ruleset!r}: game not started", now=now)
        return
    if rules.family != "riichi" or rules.players != 4:
        _alert(s, cmds, "inconsistent", None, None,
               f"ruleset {e.ruleset!r} is not followed by the tracker yet (four-player riichi only)", now=now)
        return
    reds = e.red_fives
    if reds is None:
        reds = tuple(r for r, n in zip(T.REDS, rules.red_fives, strict=True) for _ in range(n))
    fresh = GameState(table=e.table, ruleset=e.ruleset, players=tuple(e.players), red_fives=tuple(reds),
                      round=e.start_round, honba=e.start_honba, sticks=e.start_sticks)
    scores = e.start_scores or (rules.start_points,) * 4
    fresh.seats = [SeatState(score=int(x)) for x in scores]
    s.__dict__.update(fresh.__dict__)
    _begin_hand(s, cmds, now)


def _begin_hand(s: GameState, cmds: list, now: float) -> None:
    scores = [seat.score for seat in s.seats]
    s.seats = [SeatState(score=x) for x in scores]
    s.hand_start_scores = tuple(scores)
    s.hand_start_sticks = s.sticks
    s.phase = "walls"
    s.rolls, s.deal_left, s.accounted, s.unreported = [], [], set(), set()
    s.wall, s.lift_total, s.turn, s.is_dealt = None, 0, s.dealer, False
    s.kan_pending, s.flips_owed, s.flips_now = None, 0, 0
    s.indicators, s.ura, s.last_discard, s.last_kakan = [], [], None, None
    s.timeline, s.is_first_go, s.kans_by, s.winners = [], True, [], []
    s.draw_kind, s.result, s.result_error = None, None, None
    s.face_up_counts = {}
    cmds += [ev.Shuffle(now=now), ev.Lift(now=now)]


def _on_stack_ready(s: GameState, e: ev.StackReady, now: float, cmds: list) -> None:
    """The set just played is built into walls again: it must add up to the whole set."""
    if s.phase == "ended":
        return
    problem = IG.check_set_total(e.counts, s.rules.procedures)
    if problem:
        _alert(s, cmds, "set_mismatch", None, None, problem, now=now, key=("set", now))


def _on_lift(s: GameState, e: ev.LiftDone, now: float, cmds: list) -> None:
    if s.phase != "walls":
        return
    proc = s.rules.procedures
    for rule, seat, message in IG.check_lift(e.counts, proc):
        _alert(s, cmds, rule, seat, None, message, now=now)
    s.lift_total = sum(e.counts)
    s.phase = "dice"
    cmds.append(ev.LightButton(seat=s.dealer, action="dice", now=now))


def _on_button(s: GameState, e: ev.Button | ev.StaffDeclare, now: float, cmds: list) -> None:
    if e.action == "dice":
        if s.phase == "dice":
            nxt = DC.next_roller(s.rules.procedures.break_method, s.dealer, s.rolls)
            if nxt is not None and nxt[0] == e.seat:
                cmds.append(ev.RollDice(seat=e.seat, count=nxt[1], now=now))
        return
    if e.action == "ok":
        if s.phase == "result" and s.result is not None:
            _confirm(s, cmds, now)
        return
    if e.action == "tsumo":
        _declare_tsumo(s, e.seat, cmds, now)
    elif e.action == "ron":
        _declare_ron(s, e.seat, cmds, now)
    elif e.action == "draw":
        _declare_nine_terminals(s, e.seat, cmds, now)


def _on_dice(s: GameState, e: ev.DiceResult, now: float, cmds: list) -> None:
    if s.phase != "dice":
        return
    proc = s.rules.procedures
    nxt = DC.next_roller(proc.break_method, s.dealer, s.rolls)
    if nxt is None or nxt[0] != e.seat or len(e.dice) != nxt[1]:
        return
    s.rolls.append(tuple(e.dice))
    nxt = DC.next_roller(proc.break_method, s.dealer, s.rolls)
    if nxt is not None:
        cmds.append(ev.LightButton(seat=nxt[0], action="dice", now=now))
        return
    lay = WL.plan(proc, s.dealer, s.rolls)
    s.wall = WL.WallState(lay)
    s.deal_left = [slot for _seat, slot in lay.deal_takes]
    s.phase = "play"
    ind = lay.indicator_slots[0]
    cmds.append(ev.WatchSlot(wall=ind.seat, stack=ind.stack, purpose="indicator", now=now))


# --------------------------------------------------------------------------- the wall


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


def _on_taken(s: GameState, e: ev.WallStackTaken, now: float, cmds: list) -> None:
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
    if s.kan_pending is not None and repl is not None and repl.seat == e.wall and repl.stack == e.stack:
        _draw(s, s.kan_pending, rinshan=True, cmds=cmds, now=now)
        return
    nxt = ws.next_draw_slot()
    if nxt is None:
        _alert(s, cmds, "extra_draw", s.turn, None, f"a tile was taken from wall {e.wall} stack {e.stack} "
               "after the live wall ran out", now=now)
        return
    seat = s.seats[s.turn]
    if seat.has_drawn or seat.must_discard or s.kan_pending is not None:
        _alert(s, cmds, "extra_draw", s.turn, None,
               f"seat {s.turn} takes another tile (wall {e.wall} stack {e.stack}) before discarding", now=now)
        try:
            s.accounted.add(ws.draw().slot)
        except WL.WallError:
            return
        seat.n_concealed += 1
        return
    if s.phase == "play" and s.last_discard is None and s.turn != s.dealer and not s.timeline:
        s.turn = s.dealer
    _draw(s, s.turn, rinshan=False, cmds=cmds, now=now)


def _still_unreported(s: GameState, slot) -> bool:
    return slot in s.unreported


def _mark_reported(s: GameState, wall: int, stack: int) -> None:
    for slot in sorted(s.unreported):
        if slot.seat == wall and slot.stack == stack:
            s.unreported.discard(slot)
            return


def _draw(s: GameState, seat_no: int, *, rinshan: bool, cmds: list, now: float, inferred: bool = False) -> bool:
    ws = s.wall
    _settle_riichi_deposit(s, cmds, now)
    try:
        take = ws.draw_replacement("kan") if rinshan else ws.draw()
    except WL.WallError as err:
        _alert(s, cmds, "extra_draw", seat_no, None, f"seat {seat_no} cannot draw: {err}", now=now)
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
        if s.flips_now:
            nxt = ws.next_indicator_slot()
            if nxt is not None:
                cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="indicator", now=now))
    s.timeline.append(("draw", seat_no, rinshan))
    return True


# --------------------------------------------------------------------------- discards and calls


def _settle_riichi_deposit(s: GameState, cmds: list, now: float) -> None:
    """A riichi discard that nobody won on: its stick goes down (once). The fourth one ends
    the hand when the profile aborts on four riichi."""
    for seat in s.seats:
        if seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
            seat.score -= s.rules.riichi_cost
            s.sticks += 1
            seat.riichi_index = -1   # deposited
    if s.phase == "play" and s.rules.abort_four_riichi and all(x.is_riichi for x in s.seats):
        s.draw_kind = "four_riichi"
        s.phase = "draw"
        _compute_result(s, cmds, now)


def _on_discard(s: GameState, e: ev.Discard, now: float, cmds: list) -> None:
    if s.phase != "play" or s.wall is None:
        return
    if s.deal_left:
        _finish_deal(s)
    seat = s.seats[e.seat]
    if e.seat != s.turn or not (seat.has_drawn or seat.must_discard or _owes_draw(s, e.seat)):
        s.seats[e.seat].river.append({"tile": e.tile, "is_sideways": e.is_riichi, "is_tsumogiri": e.is_tsumogiri,
                                      "taken_by": None, "is_out_of_turn": True})
        _alert(s, cmds, "out_of_turn", e.seat, e.tile,
               f"seat {e.seat} discards {e.tile} while it is seat {s.turn}'s turn", now=now)
        _census(s, cmds, now, e.seat, [e.tile])
        return
    if not (seat.has_drawn or seat.must_discard):
        # the draw was not seen (a missed frame): the discard proves it happened
        _draw(s, e.seat, rinshan=s.kan_pending is not None, cmds=cmds, now=now, inferred=True)
    _settle_riichi_deposit(s, cmds, now)
    if seat.must_discard:
        IG_alert = IG.check_kuikae(seat.melds[-1], e.tile, s.rules) if seat.melds else None
        if IG_alert:
            _alert(s, cmds, "kuikae", e.seat, e.tile, IG_alert, now=now)
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
    s.turn = (e.seat + 1) % 4
    _census(s, cmds, now, e.seat, [e.tile])
    if s.flips_owed:
        nxt = s.wall.next_indicator_slot()
        if nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="indicator", now=now))
    _check_abortive_after_discard(s, cmds, now)
    if s.phase == "play" and s.wall.live_remaining == 0:
        s.draw_kind = "exhaustive_draw"
        s.phase = "draw"
        _compute_result(s, cmds, now)


def _owes_draw(s: GameState, seat_no: int) -> bool:
    seat = s.seats[seat_no]
    return not seat.has_drawn and not seat.must_discard


def _check_abortive_after_discard(s: GameState, cmds: list, now: float) -> None:
    rules = s.rules
    discards = [x for x in s.timeline if x[0] == "discard"]
    if s.is_first_go and len(discards) == 4:
        tiles = {T.plain(x[2]) for x in discards}
        if rules.abort_four_winds and len(tiles) == 1 and next(iter(tiles)) in ("1z", "2z", "3z", "4z"):
            s.draw_kind, s.phase = "four_winds", "draw"
            _compute_result(s, cmds, now)
            return
    if len(discards) >= 4:
        s.is_first_go = False
    if rules.abort_four_kans and len(s.kans_by) == 4 and len(set(s.kans_by)) > 1:
        last = s.timeline[-1]
        if last[0] == "discard" and last[1] == s.kans_by[-1]:
            s.draw_kind, s.phase = "four_kans", "draw"
            _compute_result(s, cmds, now)


def _on_removed(s: GameState, e: ev.DiscardRemoved, now: float, cmds: list) -> None:
    if s.phase not in ("play", "win", "draw") or not 0 <= e.index < len(s.seats[e.seat].river):
        return
    seat = s.seats[e.seat]
    entry = seat.river[e.index]
    if entry["taken_by"] is not None:
        return   # a called tile: it moved to the caller's meld
    if entry["is_out_of_turn"]:
        seat.river.pop(e.index)   # the out-of-turn tile goes back: the fault was already named
        _uncount(s, [entry["tile"]])
        return
    _alert(s, cmds, "taken_back", e.seat, entry["tile"],
           f"seat {e.seat} takes its discard {entry['tile']} back from the river", now=now)
    is_last = s.last_discard == (e.seat, e.index)
    _uncount(s, [entry["tile"]])
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
    if e.replaced_by is not None:
        _on_discard(s, ev.Discard(seat=e.seat, tile=e.replaced_by, now=now), now, cmds)


def _meld_record(e: ev.Meld) -> dict:
    return {"kind": e.meld_kind, "tiles": list(e.tiles), "called": e.called, "source": e.source}


def _on_meld(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
    if s.phase in ("draw", "result") and s.draw_kind == "exhaustive_draw" and e.meld_kind in ("chi", "pon", "daiminkan") \
            and s.last_discard is not None:
        tile = s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
        _alert(s, cmds, "last_discard_call", e.seat, tile,
               f"seat {e.seat} calls {tile}, the last discard of the hand: no call is allowed on it", now=now)
        return
    if s.phase != "play" or s.wall is None:
        return
    if s.deal_left:
        _finish_deal(s)
    seat = s.seats[e.seat]
    if e.meld_kind in ("chi", "pon", "daiminkan"):
        ld = s.last_discard
        if ld is None or ld[0] == e.seat or (e.source is not None and e.source != ld[0]):
            _alert(s, cmds, "inconsistent", e.seat, e.called,
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
            _fix_discard(s, ld[0], ld[1], e.called)
            called = e.called
        if s.wall.live_remaining == 0:
            _alert(s, cmds, "last_discard_call", e.seat, called,
                   f"seat {e.seat} calls {called}, the last discard of the hand", now=now)
        src.river[ld[1]]["taken_by"] = e.seat
        _settle_riichi_deposit(s, cmds, now)
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
            s.kans_by.append(e.seat)
            _owe_kan_indicator(s)
            seat.must_discard = False
        else:
            seat.must_discard = True
        others = list(tiles)
        others.remove(called)
        _census(s, cmds, now, e.seat, others)
        return
    if e.meld_kind == "ankan" or e.meld_kind == "kakan":
        if e.seat != s.turn or not seat.has_drawn:
            _alert(s, cmds, "out_of_turn", e.seat, e.tiles[0] if e.tiles else None,
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
            _census(s, cmds, now, e.seat, list(e.tiles))
        else:
            added = e.called or e.tiles[-1]
            k = next((i for i, m in enumerate(seat.melds) if m["kind"] == "pon"
                      and T.plain(m["tiles"][0]) == T.plain(added)), None)
            if k is None:
                _alert(s, cmds, "inconsistent", e.seat, added,
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
            _census(s, cmds, now, e.seat, [added])
        seat.has_drawn = False
        s.kan_pending = e.seat
        s.kans_by.append(e.seat)
        s.is_first_go = False
        nxt = s.wall.next_replacement_slot()
        if nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def _owe_kan_indicator(s: GameState) -> None:
    """An open or added kan: its indicator turns at the next discard (tenhou) or at once (profile)."""
    if s.rules.kan_dora_timing == "immediate":
        s.flips_now += 1
    else:
        s.flips_owed += 1


def _on_stick(s: GameState, e: ev.RiichiStick, now: float, cmds: list) -> None:
    seat = s.seats[e.seat]
    if s.phase == "play" and seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
        _settle_riichi_deposit(s, cmds, now)


def _on_indicator(s: GameState, e: ev.IndicatorRevealed, now: float, cmds: list) -> None:
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
            _census(s, cmds, now, None, [e.tile])
            if s.phase in ("win", "result"):
                _compute_result(s, cmds, now)
        return
    k = next((i for i, x in enumerate(lay.indicator_slots) if x.seat == e.wall and x.stack == e.stack), None)
    if k is None:
        _alert(s, cmds, "wrong_indicator", None, e.tile,
               f"a tile {e.tile} is turned at wall {e.wall} stack {e.stack}, not an indicator slot", now=now)
        return
    if k < len(s.indicators):
        if s.indicators[k] != e.tile:
            _alert(s, cmds, "moved_indicator", s.turn, e.tile,
                   f"the indicator at wall {e.wall} stack {e.stack} changed from {s.indicators[k]} to {e.tile}",
                   now=now, key=("indicator", k))
        return
    if k > len(s.indicators):
        return
    if k >= 1:   # a kan indicator: one per kan made
        if len(s.kans_by) < k:
            _alert(s, cmds, "wrong_indicator", None, e.tile, f"a kan indicator {e.tile} is turned without a kan",
                   now=now)
            return
        s.flips_now = max(0, s.flips_now - 1)
        s.flips_owed = max(0, s.flips_owed - 1)
        _flip_wall(s)
    s.indicators.append(e.tile)
    _census(s, cmds, now, None, [e.tile])


def _flip_wall(s: GameState) -> None:
    """Keep the wall's count of showing indicators (its ura slots follow it)."""
    try:
        s.wall.flip_kan_indicator()
    except WL.WallError:
        pass   # turned before the replacement draw was seen: the indicator list is what counts


# --------------------------------------------------------------------------- declarations and results


def _declare_tsumo(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    if s.phase != "play":
        return
    seat = s.seats[seat_no]
    if s.turn != seat_no or not seat.has_drawn:
        _alert(s, cmds, "inconsistent", seat_no, None, f"seat {seat_no} declares tsumo without a drawn tile",
               now=now)
        return
    s.winners = [(seat_no, seat_no)]
    s.phase = "win"
    _watch_ura(s, cmds, now)


def _declare_ron(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    on_draw = s.draw_kind in ("exhaustive_draw", "four_riichi", "four_kans", "four_winds") and not s.winners
    on_ron = bool(s.winners) and s.winners[0][0] != s.winners[0][1] and s.draw_kind is None
    if not (s.phase == "play" or (s.phase in ("draw", "result") and on_draw)
            or (s.phase in ("win", "result") and on_ron)):
        return   # a ron beats a draw on the same discard (houtei), and a second ron joins the first
    if s.last_kakan is not None:
        src = s.last_kakan[0]
    elif s.last_discard is not None:
        src = s.last_discard[0]
    else:
        return
    if src == seat_no or any(w[0] == seat_no for w in s.winners):
        return
    _settle_undo_riichi_for_ron(s, src)
    s.winners.append((seat_no, src))
    s.winners.sort(key=lambda w: (w[0] - src) % 4)
    s.phase = "win"
    s.draw_kind = None
    s.result = None
    if len(s.winners) == 3 and s.rules.triple_ron == "abort":
        s.draw_kind = "triple_ron"
        _compute_result(s, cmds, now)
        return
    _watch_ura(s, cmds, now)


def _settle_undo_riichi_for_ron(s: GameState, src: int) -> None:
    """A ron on a riichi discard: no stick goes down (undo a deposit taken on the stick event)."""
    seat = s.seats[src]
    last = s.timeline[-1] if s.timeline else None
    if seat.is_riichi and seat.riichi_index == -1 and last and last[0] == "discard" and last[1] == src and last[4]:
        seat.score += s.rules.riichi_cost
        s.sticks -= 1
        seat.riichi_index = len(seat.river) - 1


def _watch_ura(s: GameState, cmds: list, now: float) -> None:
    if any(s.seats[w].is_riichi for w, _ in s.winners) and s.rules.has_ura_dora and s.wall is not None:
        for slot in s.wall.layout.ura_slots[:len(s.indicators)]:
            cmds.append(ev.WatchSlot(wall=slot.seat, stack=slot.stack, purpose="ura", now=now))


def _declare_nine_terminals(s: GameState, seat_no: int, cmds: list, now: float) -> None:
    seat = s.seats[seat_no]
    if s.phase != "play" or s.turn != seat_no or not seat.has_drawn or not s.is_first_go or seat.discards_made:
        _alert(s, cmds, "inconsistent", seat_no, None,
               f"seat {seat_no} declares a draw (nine terminals) but it is not its first draw", now=now)
        return
    if not s.rules.abort_nine_terminals:
        return
    s.draw_kind = "nine_terminals"
    s.phase = "draw"
    s.winners = []


def _on_revealed(s: GameState, e: ev.HandRevealed, now: float, cmds: list) -> None:
    if s.phase not in ("win", "draw", "result"):
        return
    seat = s.seats[e.seat]
    is_winner = any(w[0] == e.seat for w in s.winners)
    if not is_winner and s.draw_kind is None:
        return   # at a win only the winners' hands count
    is_ron = is_winner and s.winners[0][0] != s.winners[0][1]
    tiles = list(e.tiles)
    win_tile = e.win_tile
    if is_ron:
        ron_tile = GR.ron_tile(s)
        if len(tiles) == seat.n_concealed and ron_tile is not None and win_tile not in tiles:
            tiles.append(win_tile or ron_tile)   # the ron tile was left lying in the river
        if win_tile is None:
            win_tile = ron_tile
    want = seat.n_concealed + (1 if is_ron else 0)
    if s.draw_kind == "nine_terminals":
        want = 14
    n = len(tiles)
    seat.revealed = tuple(tiles)
    seat.win_tile = win_tile
    if n != want or n % 3 == 0:
        _alert(s, cmds, "wrong_hand_size", e.seat, None,
               f"seat {e.seat} reveals {n} tiles where {want} belong: this hand may not win", now=now)
        seat.revealed = None
        if is_winner:
            s.winners = [w for w in s.winners if w[0] != e.seat]
            if not s.winners and s.draw_kind is None:
                s.phase = "result"
                s.result = None
                s.result_error = (f"seat {e.seat}'s win is refused (wrong hand size): "
                                  "staff to correct the hand or void the hand")
                return
    else:
        _census(s, cmds, now, e.seat, IG.new_face_up_of_reveal(s, e.seat, tiles))
        if is_ron:
            ld = s.last_discard
            if ld is not None and s.last_kakan is None and e.win_tile is not None \
                    and T.plain(s.seats[ld[0]].river[ld[1]]["tile"]) != T.plain(e.win_tile):
                # the winning tile set apart is read close up: the river reading was wrong
                s.corrections.append({"what": "discard", "reason": "the winning tile read again in the hand",
                                      "data": {"seat": ld[0], "index": ld[1], "tile": e.win_tile},
                                      "hand_index": s.hand_index, "now": now})
                _fix_discard(s, ld[0], ld[1], e.win_tile)
            problem = IG.check_furiten(s, e.seat, tiles)
            if problem:
                _alert(s, cmds, "furiten_ron", e.seat, win_tile, problem, now=now)
    _compute_result(s, cmds, now)


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


def _compute_result(s: GameState, cmds: list, now: float) -> None:
    waiting = _ready_for_result(s)
    if waiting is not None:
        s.result = None
        if s.result_error is None or s.result_error.startswith("waiting"):
            s.result_error = f"waiting for {waiting}"
        return
    kind = s.draw_kind or "win"
    if kind == "win":
        _choose_unread_tsumo_tile(s)
    try:
        hand = GR.log_hand(s, kind)
        out = replay_hand(hand, s.rules, source=s.table)
    except (TH.LogError, ValueError, KeyError, IndexError) as err:
        s.result = None
        s.result_error = str(err)
        s.phase = "result" if s.phase != "win" else s.phase
        _alert(s, cmds, "inconsistent", None, None, f"the hand cannot be scored as seen: {err}", now=now,
               key=("result", str(err)[:80]))
        return
    out["hand"] = s.hand_index
    s.result = out
    s.result_error = None
    s.phase = "result"
    cmds.append(ev.Show(what="result", data=out, now=now))


def _choose_unread_tsumo_tile(s: GameState) -> None:
    """A tsumo hand revealed without its drawn tile set apart: take the reading that scores
    best (the winner would point it out) and note it as a correction."""
    for w, src in s.winners:
        seat = s.seats[w]
        if w != src or seat.win_tile is not None or seat.revealed is None:
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


def _confirm(s: GameState, cmds: list, now: float) -> None:
    """Apply the shown result; the rules engine's game flow says what comes next."""
    out = s.result
    assert out is not None
    rules = s.rules
    deltas = list(out["deltas"])
    after = list(out["scores_after"])
    before = tuple(a - d for a, d in zip(after, deltas, strict=True))
    if out["outcome"] == "win":
        sticks = s.hand_start_sticks
    else:
        sticks = s.hand_start_sticks + sum(1 for seat in s.seats if seat.is_riichi and seat.riichi_index == -1)
    flow_cls = getattr(FL, "GameScore", None) or FL.GameState   # the rules engine's game flow
    flow = flow_cls(scores=before, round=s.round, honba=s.honba, sticks=sticks)
    nxt = flow.finish_hand(out["outcome"], deltas, rules, winners=[w["seat"] for w in out.get("wins", [])],
                           dealer_tenpai=bool(out.get("tenpai", [False] * 4)[s.dealer]))
    for seat, score in zip(s.seats, nxt.scores, strict=True):
        seat.score = score
    s.last_result = out
    s.result = None
    s.sticks = nxt.sticks
    if nxt.is_over:
        s.phase = "ended"
        s.finished = True
        s.settlement = settle([x.score for x in s.seats], rules=rules, sticks=s.sticks)
        cmds.append(ev.Show(what="settlement", data={"scores": [x.score for x in s.seats], "reason": nxt.end_reason,
                                                     "points": s.settlement}, now=now))
        return
    s.round, s.honba = nxt.round, nxt.honba
    s.hand_index += 1
    _begin_hand(s, cmds, now)


def _on_confirm(s: GameState, e: ev.ConfirmResult, now: float, cmds: list) -> None:
    if s.phase == "result" and s.result is not None and e.hand_index == s.hand_index:
        _confirm(s, cmds, now)


def _on_void(s: GameState, e: ev.VoidHand, now: float, cmds: list) -> None:
    if s.phase in ("idle", "ended"):
        return
    for seat, score in zip(s.seats, s.hand_start_scores, strict=True):
        seat.score = score
    s.sticks = s.hand_start_sticks
    s.corrections.append({"what": "void_hand", "reason": e.reason, "hand_index": s.hand_index, "now": now})
    _begin_hand(s, cmds, now)


def _on_correction(s: GameState, e: ev.Correction, now: float, cmds: list) -> None:
    s.corrections.append({"what": e.what, "reason": e.reason, "data": e.data, "hand_index": s.hand_index,
                          "now": now})
    d = e.data
    try:
        if e.what == "hand":
            seat = s.seats[int(d["seat"])]
            seat.revealed = tuple(T.check(t) for t in d["tiles"])
            seat.win_tile = d.get("win_tile")
        elif e.what == "discard":
            _fix_discard(s, int(d["seat"]), int(d["index"]), T.check(d["tile"]))
        elif e.what == "indicator":
            k = int(d.get("index", 0))
            target = s.ura if d.get("is_ura") else s.indicators
            tile = T.check(d["tile"])
            if not 0 <= k <= len(target):
                raise ValueError(f"indicator index {k}: {len(target)} indicator(s) are known")
            if k == len(target):
                target.append(tile)
            else:
                target[k] = tile
        elif e.what == "scores":
            for seat, x in zip(s.seats, d["scores"], strict=True):
                seat.score = int(x)
        elif e.what == "winner":
            s.winners = [(int(d["seat"]), int(d.get("from", d["seat"])))]
            s.phase = "win"
        else:
            return
    except (KeyError, TypeError, ValueError, IndexError) as err:
        _alert(s, cmds, "inconsistent", None, None, f"correction {e.what!r} could not be applied: {err}", now=now,
               key=("correction", len(s.corrections)))
        return
    if s.phase in ("win", "draw", "result"):
        _compute_result(s, cmds, now)


def _fix_discard(s: GameState, seat_no: int, index: int, tile: str) -> None:
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
    _uncount(s, [old])
    _count(s, [tile])


def _on_wall_back(s: GameState, e: ev.WallBack, now: float, cmds: list) -> None:
    if s.phase in ("walls", "dice", "play"):
        _alert(s, cmds, "other_back", e.wall, None,
               f"a tile with the other set's back ({e.colour}) stands in wall {e.wall} stack {e.stack}", now=now,
               key=("back", e.wall, e.stack))


# --------------------------------------------------------------------------- census


def _count(s: GameState, tiles: list[str]) -> None:
    for t in tiles:
        s.face_up_counts[t] = s.face_up_counts.get(t, 0) + 1


def _uncount(s: GameState, tiles: list[str]) -> None:
    for t in tiles:
        if s.face_up_counts.get(t, 0) > 0:
            s.face_up_counts[t] -= 1


def _census(s: GameState, cmds: list, now: float, seat: int | None, tiles: list[str]) -> None:
    _count(s, tiles)
    for rule, tile, message in IG.census_problems(s.face_up_counts, GR.census_of(s), tiles):
        _alert(s, cmds, rule, seat, tile, message, now=now)


_HANDLERS = {
    ev.StartGame: _on_start,
    ev.LiftDone: _on_lift,
    ev.StackReady: _on_stack_ready,
    ev.Button: _on_button,
    ev.StaffDeclare: _on_button,
    ev.DiceResult: _on_dice,
    ev.WallStackTaken: _on_taken,
    ev.Discard: _on_discard,
    ev.DiscardRemoved: _on_removed,
    ev.Meld: _on_meld,
    ev.RiichiStick: _on_stick,
    ev.IndicatorRevealed: _on_indicator,
    ev.HandRevealed: _on_revealed,
    ev.ConfirmResult: _on_confirm,
    ev.VoidHand: _on_void,
    ev.Correction: _on_correction,
    ev.WallBack: _on_wall_back,
}


def replay_events(events, state: GameState | None = None) -> tuple[GameState, list[ev.Command]]:
    """Feed many events (each with its ``now``); returns the final state and every command."""
    s = state or new_state()
    out: list[ev.Command] = []
    for e in events:
        s, cmds = step(s, e, e.now)
        out += cmds
    return s, out


# the public view lives in its own module; it is part of this module's API
from controller.game_view import public_state, staff_alerts  # noqa: E402

__all__ = ["GameError", "GameState", "SeatState", "new_state", "step", "public_state", "staff_alerts",
           "replay_events"]
