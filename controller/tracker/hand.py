"""The game tracker's state (:mod:`controller.game`), and the helpers every handler uses:
raising an alert, counting face-up tiles, starting a hand."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from controller import events as ev
from controller import integrity as IG
from controller.rules import walls as WL
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.tracker.riichi import record as GR

WINDS = ("E", "S", "W", "N")




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
    norths: list[str] = field(default_factory=list)   # three-player: norths set aside (nuki)
    # the alerts its revealed hand raised, as (keys, records) per reading: withdrawn if it is read again
    reveal_alerts: tuple[tuple[frozenset, tuple[dict, ...]], ...] = ()

    def clone(self) -> SeatState:
        new = copy.copy(self)
        new.river = [dict(r) for r in self.river]
        new.melds = [dict(m) for m in self.melds]
        new.norths = list(self.norths)
        return new


@dataclass


class GameState:
    """Everything the tracker knows. Treat as read-only outside :func:`step`."""

    phase: str = "idle"        # idle, seating, walls, dice, play, win, draw, result, ended
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
    kan_pending: int | None = None              # seat owed a replacement draw (after a kan or a north)
    replacement_reason: str = "kan"             # what the owed replacement draw is for: "kan" or "north"
    early_replacement: bool = False             # a replacement tile seen taken before its kan
    nine_terminals_seat: int | None = None
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
    history: list[dict] = field(default_factory=list)   # the score sheet: one row per hand ended
    alerts: list[dict] = field(default_factory=list)
    alert_keys: set = field(default_factory=set)
    corrections: list[dict] = field(default_factory=list)
    finished: bool = False
    settlement: list[float] | None = None
    face_up_counts: dict = field(default_factory=dict)
    first_dealer_method: str = "seated"
    first_dealer_chair: int = 0                 # the chair (as seated) of game seat 0
    seating_rolls: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)   # (chair, dice)

    def clone(self) -> GameState:
        new = copy.copy(self)
        new.seats = [s.clone() for s in self.seats]
        for name in ("rolls", "seating_rolls", "deal_left", "indicators", "ura", "timeline", "kans_by", "winners", "alerts",
                     "corrections", "history"):
            setattr(new, name, list(getattr(self, name)))
        new.accounted = set(self.accounted)
        new.unreported = set(self.unreported)
        new.alert_keys = set(self.alert_keys)
        new.face_up_counts = dict(self.face_up_counts)
        if self.wall is not None:
            new.wall = _clone_wall(self.wall)
        return new

    @property
    def n_seats(self) -> int:
        """Seats at the table: 4, or 3 in three-player riichi (4 before any game)."""
        return len(self.seats) or 4

    @property
    def dealer(self) -> int:
        return self.round % self.n_seats

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


def alert(s: GameState, cmds: list, rule: str, seat: int | None, tile: str | None, message: str, *,
           now: float = 0.0, key: Any = None, suggest: str | None = None, is_public: bool | None = None) -> None:
    """Raise an integrity alert once per hand and key: kept in the state, sent as ``RaiseAlert``."""
    key = (s.hand_index, rule, seat, tile) if key is None else (s.hand_index, rule, key)
    if key in s.alert_keys:
        return
    s.alert_keys.add(key)
    if is_public is None:
        is_public = IG.is_public(rule, s.rules)
    if suggest is None and rule in IG.SET_ERRORS:
        suggest = "void_hand"
    found = ev.Alert(rule=rule, hand_index=s.hand_index, seat=seat, tile=tile, message=message,
                     is_public=is_public, suggest=suggest, now=now)
    s.alerts.append(ev.to_record(found))
    cmds.append(ev.RaiseAlert(alert=found, now=now))


def begin_hand(s: GameState, cmds: list, now: float) -> None:
    """A new hand at the current round and honba: shuffle and lift the next walls."""
    scores = [seat.score for seat in s.seats]
    s.seats = [SeatState(score=x) for x in scores]
    s.hand_start_scores = tuple(scores)
    s.hand_start_sticks = s.sticks
    s.phase = "walls"
    s.rolls, s.deal_left, s.accounted, s.unreported = [], [], set(), set()
    s.wall, s.lift_total, s.turn, s.is_dealt = None, 0, s.dealer, False
    s.kan_pending, s.flips_owed, s.flips_now, s.early_replacement = None, 0, 0, False
    s.replacement_reason = "kan"
    s.nine_terminals_seat = None
    s.indicators, s.ura, s.last_discard, s.last_kakan = [], [], None, None
    s.timeline, s.is_first_go, s.kans_by, s.winners = [], True, [], []
    s.draw_kind, s.result, s.result_error = None, None, None
    s.face_up_counts = {}
    cmds += [ev.Shuffle(now=now), ev.Lift(now=now)]


def count(s: GameState, tiles: list[str]) -> None:
    for t in tiles:
        s.face_up_counts[t] = s.face_up_counts.get(t, 0) + 1


def uncount(s: GameState, tiles: list[str]) -> None:
    for t in tiles:
        if s.face_up_counts.get(t, 0) > 0:
            s.face_up_counts[t] -= 1


def census(s: GameState, cmds: list, now: float, seat: int | None, tiles: list[str]) -> None:
    count(s, tiles)
    for rule, tile, message in IG.census_problems(s.face_up_counts, GR.census_of(s), tiles):
        alert(s, cmds, rule, seat, tile, message, now=now)
