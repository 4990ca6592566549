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
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller import events as ev
from controller import integrity as IG
from controller.rules import dice as DC
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules import waits as WT
from controller.rules.dora import dora_of
from controller.rules.draws import dealer_keeps_after_draw
from controller.rules.flow import round_name
from controller.rules.melds import Meld as RMeld
from controller.rules.replay import replay_hand
from controller.rules.ruleset import RuleSet, RuleSetError
from controller.rules.ruleset import load as load_rules
from controller.rules.settlement import settle
from controller.rules.tilesets import census, census_for

WINDS = ("E", "S", "W", "N")
_RESULT_NAMES = {"win": "和了", "exhaustive_draw": "流局", "nine_terminals": "九種九牌", "four_riichi": "四家立直",
                 "triple_ron": "三家和了", "four_winds": "四風連打", "four_kans": "四槓散了"}
_OUTCOME = {"win": ("win", "win"), "exhaustive_draw": ("exhaustive_draw", "exhaustive_draw"),
            "nine_terminals": ("abortive_draw", "nine_terminals"), "four_riichi": ("abortive_draw", "four_riichi"),
            "triple_ron": ("abortive_draw", "triple_ron"), "four_winds": ("abortive_draw", "four_winds"),
            "four_kans": ("abortive_draw", "four_kans")}
_FILLER_ORDER = ("1m", "4m", "7m", "2p", "5p", "8p", "3s", "6s", "9s", "1z", "2z", "3z", "5z", "9m", "3p", "6p",
                 "1s", "4s", "7s", "2m", "8m", "9p", "2s", "8s", "4z", "6z", "7z", "3m", "6m", "1p", "4p", "7p",
                 "5s", "5m")


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
    turn: int = 0
    kan_pending: int | None = None              # seat owed a replacement draw
    flips_owed: int = 0                         # kan indicators due at the next discard
    flips_now: int = 0                          # kan indicators due at once (closed kan)
    indicators: list[str] = field(default_factory=list)
    ura: list[str] = field(default_factory=list)
    last_discard: tuple[int, int] | None = None  # (seat, river index)
    last_kakan: tuple[int, str] | None = None    # (seat, added tile): robbable
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
    s.wall, s.lift_total, s.turn = None, 0, s.dealer
    s.kan_pending, s.flips_owed, s.flips_now = None, 0, 0
    s.indicators, s.ura, s.last_discard, s.last_kakan = [], [], None, None
    s.timeline, s.is_first_go, s.kans_by, s.winners = [], True, [], []
    s.draw_kind, s.result, s.result_error = None, None, None
    s.face_up_counts = {}
    cmds += [ev.Shuffle(now=now), ev.Lift(now=now)]


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
    if s.wall is not None and s.deal_left is not None and not getattr(s.wall, "_is_dealt", False):
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
        slot = ws.draw().slot
        s.accounted.add(slot)
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
    """A riichi discard that nobody won on: its stick goes down (once)."""
    for i, seat in enumerate(s.seats):
        if seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
            seat.score -= s.rules.riichi_cost
            s.sticks += 1
            seat.riichi_index = -1
            if sum(1 for x in s.seats if x.is_riichi) == 4 and s.rules.abort_four_riichi and s.phase == "play":
                s.draw_kind = "four_riichi"
                s.phase = "draw"
                _compute_result(s, cmds, now)
            del i


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
                       "taken_by": None, "is_out_of_turn": False})
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


def _rules_meld(m: dict) -> RMeld:
    kind = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "kakan", "ankan": "ankan"}[m["kind"]]
    tiles = list(m["tiles"])
    called = m["called"]
    if kind in ("chi", "pon", "kan") and called in tiles:
        tiles.remove(called)
        tiles = [called] + tiles
    elif kind == "kakan":
        called = m.get("pon_called") or tiles[0]
    return RMeld(kind, tuple(tiles), called if kind != "ankan" else None,
                 m["source"] if kind != "ankan" else None)


def _on_meld(s: GameState, e: ev.Meld, now: float, cmds: list) -> None:
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
            _alert(s, cmds, "inconsistent", e.seat, e.called,
                   f"seat {e.seat} calls {e.called} but the last discard is {called}", now=now)
            return
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
            # the reader may name the red five differently; keep the river's tile in the meld
            tiles = [called] + [t for t in tiles if T.plain(t) != T.plain(called)][:len(tiles) - 1] \
                if any(T.plain(t) == T.plain(called) for t in tiles) else tiles
            for i, t in enumerate(list(e.tiles)):
                if T.plain(t) == T.plain(called) and t != called:
                    tiles = list(e.tiles)
                    tiles[i] = called
                    break
        rec["tiles"] = tiles
        seat.melds.append(rec)
        seat.n_concealed -= len(tiles) - 1
        s.timeline.append(("call", e.seat, _rules_meld(rec)))
        s.is_first_go = False
        s.turn = e.seat
        s.last_discard = None
        seat.has_drawn = False
        if e.meld_kind == "daiminkan":
            s.kan_pending = e.seat
            s.kans_by.append(e.seat)
            s.flips_owed += 1
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
            s.timeline.append(("kan", e.seat, _rules_meld(rec), None))
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
            km = RMeld("kakan", tuple([added, pon["called"]] + [t for t in pon["tiles"] if t != pon["called"]][:2]),
                       pon["called"], pon["source"])
            s.timeline.append(("kan", e.seat, km, added))
            s.last_kakan = (e.seat, added)
            s.flips_owed += 1
            _census(s, cmds, now, e.seat, [added])
        seat.has_drawn = False
        s.kan_pending = e.seat
        s.kans_by.append(e.seat)
        s.is_first_go = False
        nxt = s.wall.next_replacement_slot()
        if nxt is not None:
            cmds.append(ev.WatchSlot(wall=nxt.seat, stack=nxt.stack, purpose="replacement", now=now))


def _on_stick(s: GameState, e: ev.RiichiStick, now: float, cmds: list) -> None:
    seat = s.seats[e.seat]
    if s.phase == "play" and seat.is_riichi and seat.riichi_index is not None and seat.riichi_index >= 0:
        _settle_riichi_deposit(s, cmds, now)


def _on_indicator(s: GameState, e: ev.IndicatorRevealed, now: float, cmds: list) -> None:
    if s.wall is None or s.phase not in ("play", "win", "draw", "result"):
        return
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
    if k >= 1:
        if s.flips_now:
            s.flips_now -= 1
            if k >= 1 and s.wall.kans >= k + 0:
                _flip_wall(s)
        elif s.flips_owed or len(s.kans_by) >= k:
            s.flips_owed = max(0, s.flips_owed - 1)
            _flip_wall(s)
        else:
            _alert(s, cmds, "wrong_indicator", None, e.tile, f"a kan indicator {e.tile} is turned without a kan",
                   now=now)
            return
    s.indicators.append(e.tile)
    _census(s, cmds, now, None, [e.tile])


def _flip_wall(s: GameState) -> None:
    try:
        s.wall.flip_kan_indicator()
    except WL.WallError:
        pass


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
    if s.phase not in ("play", "draw", "win") or (s.phase == "win" and s.winners and
                                                  s.winners[0][0] == s.winners[0][1]):
        return
    if s.phase == "draw" and s.draw_kind not in ("exhaustive_draw", "four_riichi", "four_kans", "four_winds"):
        return
    if s.last_kakan is not None:
        src, tile = s.last_kakan
    elif s.last_discard is not None:
        src = s.last_discard[0]
        tile = s.seats[src].river[s.last_discard[1]]["tile"]
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
        for slot in s.wall.ura_slots():
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
    want = seat.n_concealed + (1 if is_winner and s.winners[0][0] != s.winners[0][1] else 0)
    if s.draw_kind == "nine_terminals":
        want = 14
    n = len(e.tiles)
    seat.revealed = tuple(e.tiles)
    seat.win_tile = e.win_tile
    if n != want or n % 3 == 0:
        _alert(s, cmds, "wrong_hand_size", e.seat, None,
               f"seat {e.seat} reveals {n} tiles where {want} belong: this hand may not win", now=now)
        seat.revealed = None
    else:
        _census(s, cmds, now, e.seat, IG.new_face_up_of_reveal(s, e.seat, list(e.tiles)))
        if is_winner and s.winners[0][0] != s.winners[0][1]:
            problem = IG.check_furiten(s, e.seat, list(e.tiles))
            if problem:
                _alert(s, cmds, "furiten_ron", e.seat, e.win_tile, problem, now=now)
    _compute_result(s, cmds, now)


def _ready_for_result(s: GameState) -> str | None:
    """None when the result can be computed, else what is still awaited."""
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
        s.result_error = f"waiting for {waiting}"
        return
    kind = s.draw_kind or "win"
    try:
        hand = _log_hand(s, kind)
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


def _log_hand(s: GameState, kind: str) -> TH.LogHand:
    """The hand as the table saw it, in the replay's form (unseen tiles rebuilt consistently)."""
    outcome, rkind = _OUTCOME[kind]
    timeline = s.timeline
    # per seat: references to unseen tiles; ("h", seat, i) haipai, ("d", k) the draw at timeline k
    held: list[list[tuple]] = [[("h", seat, i) for i in range(13)] for seat in range(4)]
    value: dict[tuple, str] = {}
    last_draw: list[tuple | None] = [None] * 4

    def give(seat: int, tile: str, prefer: tuple | None = None) -> None:
        refs = held[seat]
        if prefer is not None and prefer in refs:
            ref = prefer
        else:
            ref = next((r for r in refs if r != last_draw[seat]), None) or (refs[0] if refs else None)
        if ref is None:
            raise ValueError(f"seat {seat} gives up {tile} but holds no tile")
        refs.remove(ref)
        value[ref] = tile

    for k, item in enumerate(timeline):
        op, seat = item[0], item[1]
        if op == "draw":
            held[seat].append(("d", k))
            last_draw[seat] = ("d", k)
        elif op == "discard":
            give(seat, item[2], last_draw[seat] if item[3] else None)
            last_draw[seat] = None
        elif op == "call":
            m: RMeld = item[2]
            rest = list(m.tiles)
            rest.remove(m.called)
            for t in rest:
                give(seat, t)
            last_draw[seat] = None
        elif op == "kan":
            m = item[2]
            if m.kind == "ankan":
                for t in m.tiles:
                    give(seat, t)
            else:
                give(seat, item[3])
    # what is left: the revealed tiles, or unseen tiles that do not wait
    for seat in range(4):
        st = s.seats[seat]
        refs = held[seat]
        if st.revealed is not None:
            tiles = list(st.revealed)
            is_ron = any(w == seat and src != seat for w, src in s.winners)
            if is_ron:
                tiles.remove(st.win_tile if st.win_tile in tiles else tiles[-1])
            if len(tiles) != len(refs):
                raise ValueError(f"seat {seat} shows {len(tiles)} standing tiles where {len(refs)} are held")
            is_tsumo = any(w == seat and src == seat for w, src in s.winners)
            if is_tsumo and last_draw[seat] in refs and st.win_tile in tiles:
                value[last_draw[seat]] = st.win_tile
                tiles.remove(st.win_tile)
                refs = [r for r in refs if r != last_draw[seat]]
            for r, t in zip(refs, tiles, strict=True):
                value[r] = t
    pool = Counter(census_for(s.rules)) if not s.red_fives else Counter(_census_of(s))
    pool.subtract(Counter(value.values()))
    pool.subtract(Counter(s.indicators))
    pool.subtract(Counter(u for u in s.ura if u))
    for seat in range(4):
        st = s.seats[seat]
        refs = [r for r in held[seat] if r not in value]
        if not refs:
            continue
        melds = [_rules_meld(m) for m in st.melds]
        filler = _noten_filler(pool, len(refs), melds)
        for r, t in zip(refs, filler, strict=True):
            value[r] = t
            pool[t] -= 1
    haipai = [[value[("h", seat, i)] for i in range(13)] for seat in range(4)]
    events: list[Any] = []
    for k, item in enumerate(timeline):
        op, seat = item[0], item[1]
        if op == "draw":
            events.append(TH.Draw(seat, value[("d", k)], item[2]))
        elif op == "discard":
            events.append(TH.Discard(seat, item[2], item[3], item[4]))
        elif op == "call":
            events.append(TH.Call(seat, item[2]))
        else:
            events.append(TH.Kan(seat, item[2], item[3]))
    wins = tuple(TH.WinRecord(w, src, w, (), ()) for w, src in s.winners) if kind in ("win", "triple_ron") else ()
    result = TH.Result(_RESULT_NAMES[kind], outcome if kind != "triple_ron" else "win", rkind, wins, ())
    if kind == "triple_ron":
        result = TH.Result(_RESULT_NAMES[kind], "abortive_draw", "triple_ron", (), ())
    ura = [u for u in s.ura if u][:len(s.indicators)]
    return TH.LogHand(s.hand_index, s.round, s.honba, s.hand_start_sticks, tuple(s.hand_start_scores),
                      list(s.indicators) or ["1z"], ura, haipai, events, result)


def _census_of(s: GameState) -> dict[str, int]:
    base = census(s.rules.procedures.tile_set, "none")
    out = dict(base)
    for r in s.red_fives:
        five = T.plain(r)
        out[five] = out.get(five, 0) - 1
        out[r] = out.get(r, 0) + 1
    return {k: v for k, v in out.items() if v > 0}


def _noten_filler(pool: Counter, n: int, melds: list[RMeld]) -> list[str]:
    order = [t for t in _FILLER_ORDER] + [t for t in T.KINDS_34 if t not in _FILLER_ORDER]
    for shift in range(len(order)):
        rot = order[shift:] + order[:shift]
        picked: list[str] = []
        left = Counter(pool)
        rounds = 0
        while len(picked) < n and rounds < 4:
            for t in rot:
                if len(picked) == n:
                    break
                if left[t] > 0:
                    picked.append(t)
                    left[t] -= 1
            rounds += 1
        if len(picked) < n:
            break
        if n % 3 != 1:
            return picked
        try:
            if not WT.is_tenpai(picked, melds):
                return picked
        except ValueError:
            return picked
    raise ValueError("no unseen tiles left to stand for a hand that was not shown")


def _confirm(s: GameState, cmds: list, now: float) -> None:
    out = s.result
    assert out is not None
    for i, seat in enumerate(s.seats):
        seat.score = out["scores_after"][i]
    s.last_result = out
    rules = s.rules
    dealer = s.dealer
    if out["outcome"] == "win":
        s.sticks = 0
        keeps = any(w["seat"] == dealer for w in out.get("wins", []))
    elif out["outcome"] == "exhaustive_draw":
        keeps = dealer_keeps_after_draw(dealer_tenpai=bool(out.get("tenpai", [False] * 4)[dealer]),
                                        round_index=s.round, rules=rules)
    else:
        keeps = rules.abortive_dealer == "keep"
    honba_up = out["outcome"] != "win" or keeps
    ended = _is_game_over(s, keeps, out)
    if ended:
        s.phase = "ended"
        s.finished = True
        s.settlement = settle([x.score for x in s.seats], rules=rules, sticks=s.sticks)
        cmds.append(ev.Show(what="settlement", data={"scores": [x.score for x in s.seats],
                                                     "points": s.settlement}, now=now))
        return
    s.honba = s.honba + 1 if honba_up else 0
    if not keeps:
        s.round += 1
    s.hand_index += 1
    _begin_hand(s, cmds, now)


def _is_game_over(s: GameState, dealer_keeps: bool, out: dict) -> bool:
    rules = s.rules
    scores = [x.score for x in s.seats]
    if rules.has_tobi and min(scores) < 0:
        return True
    last_round = {"east": 3, "hanchan": 7, "full": 15}[rules.game_length]
    top = max(scores)
    target = rules.return_points if rules.has_west_extension else 0
    next_round = s.round if dealer_keeps else s.round + 1
    if s.round >= last_round:
        dealer = s.dealer
        if s.round > last_round and top >= target:
            return True   # extension: sudden death once someone reaches the target
        if dealer_keeps:
            is_top = scores[dealer] == top and scores.index(top) == dealer
            if out["outcome"] == "win" and rules.has_agari_yame and is_top and top >= target:
                return True
            if out["outcome"] == "exhaustive_draw" and rules.has_tenpai_yame and is_top and top >= target:
                return True
            return False
        if next_round > last_round:
            if top >= target or not rules.has_west_extension:
                return True
            return next_round > last_round + 4
    return False


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
            seat = s.seats[int(d["seat"])]
            idx = int(d["index"])
            old = seat.river[idx]["tile"]
            new = T.check(d["tile"])
            seat.river[idx]["tile"] = new
            n_seen = -1
            for k, item in enumerate(s.timeline):
                if item[0] == "discard" and item[1] == int(d["seat"]):
                    n_seen += 1
                    if n_seen == idx - sum(1 for r in seat.river[:idx] if r["is_out_of_turn"]):
                        s.timeline[k] = (item[0], item[1], new, item[3], item[4])
                        break
            _uncount(s, [old])
            _count(s, [new])
        elif e.what == "indicator":
            k = int(d.get("index", 0))
            target = s.ura if d.get("is_ura") else s.indicators
            while len(target) <= k:
                target.append("")
            target[k] = T.check(d["tile"])
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
    for rule, tile, message in IG.census_problems(s.face_up_counts, _census_of(s), tiles):
        _alert(s, cmds, rule, seat, tile, message, now=now)


_HANDLERS = {
    ev.StartGame: _on_start,
    ev.LiftDone: _on_lift,
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


# --------------------------------------------------------------------------- public state


def public_state(state: GameState) -> dict:
    """The ``GET /api/state`` object of contracts/table-api.md (JSON-able)."""
    s = state
    n = len(s.seats) or 4
    seats = []
    for i in range(4):
        seat = s.seats[i] if i < len(s.seats) else SeatState(score=0)
        wind = WINDS[(i - s.dealer) % 4]
        seats.append({"wind": wind, "score": seat.score, "riichi": seat.is_riichi,
                      "name": s.players[i] if i < len(s.players) else "",
                      "is_dealer": i == s.dealer,
                      "river": [r["tile"] for r in seat.river if r["taken_by"] is None],
                      "melds": [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in seat.melds],
                      "tenpai": _tenpai_of(s, i)})
    del n
    ended_hands = s.hand_index if s.phase not in ("result", "ended") else s.hand_index + 1
    alerts = [{k: a[k] for k in ("rule", "hand_index", "seat", "tile", "message", "suggest", "now")}
              for a in s.alerts if a["is_public"] or a["hand_index"] < ended_hands]
    return {
        "table": s.table,
        "ruleset": s.ruleset,
        "round": round_name(s.round),
        "honba": s.honba,
        "riichi_sticks": s.sticks,
        "hand_index": s.hand_index,
        "dealer": s.dealer,
        "finished": s.finished,
        "phase": s.phase,
        "seats": seats,
        "dora_indicators": list(s.indicators),
        "dora": [dora_of(t) for t in s.indicators],
        "live_wall": s.live_wall,
        "dice": [list(r) for r in s.rolls],
        "last_result": s.last_result,
        "pending_result": s.result,
        "alerts": alerts,
        "settlement": s.settlement,
    }


def _tenpai_of(s: GameState, seat: int) -> bool | None:
    res = s.result if s.result is not None else None
    if res is not None and "tenpai" in res:
        return bool(res["tenpai"][seat])
    return None


def staff_alerts(state: GameState) -> list[dict]:
    """Every alert of the game (the staff view), hidden ones included."""
    return [dict(a) for a in state.alerts]


def replay_events(events, state: GameState | None = None) -> tuple[GameState, list[ev.Command]]:
    """Feed many events (each with its ``now``); returns the final state and every command."""
    s = state or new_state()
    out: list[ev.Command] = []
    for e in events:
        s, cmds = step(s, e, e.now)
        out += cmds
    return s, out
