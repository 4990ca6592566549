"""The one hand state of the tracker, for every family: seats, wall, rivers, melds, the census
of face-up tiles, alerts and corrections; and the helpers every handler uses (raising an
alert, counting face-up tiles, starting a hand, finding a wall slot).

A family's state (:class:`controller.tracker.riichi.state.GameState`,
:class:`controller.tracker.fan.state.FanState`) is a :class:`HandState` with the fields only
that family has; its seats are :class:`HandSeat` likewise. ``clone()`` copies every
container, so ``step`` can hand back a new state and leave the old one as it was.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from controller import events as ev
from controller import integrity as IG
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.rules.tilesets import census as set_census

WINDS = ("E", "S", "W", "N")


def _copy_containers(obj: Any, new: Any, *, own_dicts: tuple[str, ...] = ()) -> None:
    """Give ``new`` its own copy of every list and set field of ``obj``, and of the dict
    ``face_up_counts``. The lists named in ``own_dicts`` get copies of their dicts too (they are
    changed in place); the others share their items (alerts are matched by identity when a
    revealed hand's alerts are withdrawn; a result is never changed once made, and its
    identity says when a new one came)."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, list):
            setattr(new, f.name, [dict(x) for x in value] if f.name in own_dicts else list(value))
        elif isinstance(value, set) or f.name == "face_up_counts":
            setattr(new, f.name, copy.copy(value))


@dataclass
class HandSeat:
    """One seat during a hand. ``river`` entries: ``{"tile", "is_sideways", "is_tsumogiri",
    "taken_by", "is_out_of_turn"}`` (a removed tile leaves the list); ``melds``
    ``{"kind", "tiles", "called", "source"}``."""

    score: int
    river: list[dict] = field(default_factory=list)
    melds: list[dict] = field(default_factory=list)
    n_concealed: int = 0
    has_drawn: bool = False       # holds 3n+2 tiles after a draw: must discard (or kan / win)
    must_discard: bool = False    # after chi / pon: discards without drawing
    revealed: tuple[str, ...] | None = None
    win_tile: str | None = None
    discards_made: int = 0

    def clone(self) -> HandSeat:
        new = copy.copy(self)
        _copy_containers(self, new, own_dicts=("river", "melds"))
        return new


@dataclass
class HandState:
    """Everything the tracker knows of a game, whatever the family. Treat as read-only outside
    ``step``. ``phase``: idle, seating, walls, dice, play, win, draw, result, ended.

    ``result_problem``: why a declared hand has no result yet, ``{"kind", "message"}`` with a
    kind of :data:`controller.tracker.problems.KINDS` (None once there is a result)."""

    SEAT: ClassVar[type[HandSeat]] = HandSeat
    FAMILY: ClassVar[str] = ""

    phase: str = "idle"
    table: str = "t1"
    ruleset: str = "tenhou"
    players: tuple[str, ...] = ("", "", "", "")
    red_fives: tuple[str, ...] = ("0m", "0p", "0s")
    round: int = 0
    honba: int = 0
    sticks: int = 0
    hand_index: int = 0
    seats: list = field(default_factory=list)
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
    early_replacement: bool = False             # a replacement tile seen taken before its kan / flower
    last_discard: tuple[int, int] | None = None  # (seat, river index)
    last_kakan: tuple[int, str] | None = None    # (seat, tile) of the kan (or north) just made: robbable
    is_first_go: bool = True                     # no call yet, first discards being made
    kans_by: list[int] = field(default_factory=list)
    winners: list[tuple[int, int]] = field(default_factory=list)  # (seat, from)
    draw_kind: str | None = None
    result: dict | None = None
    result_problem: dict | None = None
    last_result: dict | None = None
    history: list[dict] = field(default_factory=list)   # the score sheet: one row per hand ended
    alerts: list[dict] = field(default_factory=list)
    alert_keys: set = field(default_factory=set)
    corrections: list[dict] = field(default_factory=list)
    finished: bool = False
    paused: bool = False                        # staff paused the game (the machine starts no new motion)
    settlement: list[float] | None = None
    face_up_counts: dict = field(default_factory=dict)
    first_dealer_method: str = "seated"
    first_dealer_chair: int = 0                 # the chair (as seated) of game seat 0
    seating_rolls: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)   # (chair, dice)

    def clone(self) -> HandState:
        new = copy.copy(self)
        _copy_containers(self, new)
        new.seats = [s.clone() for s in self.seats]
        if self.wall is not None:
            new.wall = clone_wall(self.wall)
        return new

    def reset_hand(self) -> None:
        """A family's own fields back to their start of a hand (the common ones are reset by
        :func:`begin_hand`)."""

    @property
    def result_error(self) -> str | None:
        """The readable message of ``result_problem`` (None when there is none)."""
        return None if self.result_problem is None else self.result_problem["message"]

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
        return None if self.wall is None else self.wall.live_remaining


def clone_wall(ws: WL.WallState) -> WL.WallState:
    """Copy a WallState: its containers hold only immutable slots and tiles."""
    new = copy.copy(ws)
    for name, value in vars(ws).items():
        if isinstance(value, (list, set, dict)) or type(value).__name__ == "deque":
            setattr(new, name, copy.copy(value))
    return new


def alert(s: HandState, cmds: list, rule: str, seat: int | None, tile: str | None, message: str, *,
          now: float = 0.0, key: Any = None, suggest: str | None = None, is_public: bool | None = None,
          holds: bool = True) -> None:
    """Raise an integrity alert once per hand and key: kept in the state, sent as ``RaiseAlert``.
    ``holds=False``: the alert does not hold the hand's result even where its rule would (its
    record says ``"holds": false``)."""
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
    s.alerts.append({**ev.to_record(found), **({} if holds else {"holds": False})})
    cmds.append(ev.RaiseAlert(alert=found, now=now))


def begin_hand(s: HandState, cmds: list, now: float) -> None:
    """A new hand at the current round and honba: shuffle and lift the next walls."""
    scores = [seat.score for seat in s.seats]
    s.seats = [s.SEAT(score=x) for x in scores]
    s.hand_start_scores = tuple(scores)
    s.hand_start_sticks = s.sticks
    s.phase = "walls"
    s.rolls, s.deal_left, s.accounted, s.unreported = [], [], set(), set()
    s.wall, s.lift_total, s.turn, s.is_dealt = None, 0, s.dealer, False
    s.early_replacement = False
    s.last_discard, s.last_kakan = None, None
    s.is_first_go, s.kans_by, s.winners = True, [], []
    s.draw_kind, s.result, s.result_problem = None, None, None
    s.face_up_counts = {}
    s.reset_hand()
    cmds += [ev.Shuffle(now=now), ev.Lift(now=now)]


def census_of(s: HandState) -> dict[str, int]:
    """The table's set, kind by kind (the profile's tiles, the table's red fives among the fives)."""
    out = dict(set_census(s.rules.procedures.tile_set, "none"))
    for r in s.red_fives:
        five = T.plain(r)
        out[five] = out.get(five, 0) - 1
        out[r] = out.get(r, 0) + 1
    return {k: v for k, v in out.items() if v > 0}


def count(s: HandState, tiles: list[str]) -> None:
    for t in tiles:
        s.face_up_counts[t] = s.face_up_counts.get(t, 0) + 1


def uncount(s: HandState, tiles: list[str]) -> None:
    for t in tiles:
        if s.face_up_counts.get(t, 0) > 0:
            s.face_up_counts[t] -= 1


def census(s: HandState, cmds: list, now: float, seat: int | None, tiles: list[str]) -> None:
    """``tiles`` turned face up: counted, and a fifth copy (or a red five too many) named."""
    count(s, tiles)
    for rule, tile, message in IG.census_problems(s.face_up_counts, census_of(s), tiles):
        alert(s, cmds, rule, seat, tile, message, now=now)


def matches(slot: Any, wall: int, stack: int) -> bool:
    """Is ``slot`` (a ``WallSlot`` or None) the stack ``stack`` of wall ``wall``?"""
    return slot is not None and slot.seat == wall and slot.stack == stack


def live_end(s: HandState) -> Any:
    """The last live slot (where a refill after a kan or flower takes its tile), or None."""
    ws = s.wall
    refilled = {t.slot for t in ws.refilled()}
    for slot in reversed(ws.layout.draw_slots):
        if slot not in s.accounted and slot not in refilled:
            return slot
    return None


def ron_tile(s: HandState) -> str | None:
    """The tile a ron takes: the kan tile just added or the north just set aside (robbing it),
    or the last discard."""
    if s.last_kakan is not None:
        return s.last_kakan[1]
    if s.last_discard is not None:
        return s.seats[s.last_discard[0]].river[s.last_discard[1]]["tile"]
    return None


def ron_source(s: HandState) -> int | None:
    """The seat a ron takes its tile from (the kan's or the discard's), or None."""
    if s.last_kakan is not None:
        return s.last_kakan[0]
    return s.last_discard[0] if s.last_discard is not None else None
