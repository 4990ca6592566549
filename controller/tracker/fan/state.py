"""The fan tracker's state (:mod:`controller.tracker.fan.family`): seats, the hand, the game, and the
start of a hand."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from controller import events as ev
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.tracker.hand import _clone_wall


@dataclass
class FanSeat:
    """One seat during a hand. ``river`` entries as in the riichi tracker (``tile``, ``taken_by``,
    ``is_out_of_turn``...); ``melds`` ``{"kind", "tiles", "called", "source"}``; ``flowers`` set aside."""

    score: int
    river: list[dict] = field(default_factory=list)
    melds: list[dict] = field(default_factory=list)
    flowers: list[str] = field(default_factory=list)
    n_concealed: int = 0
    has_drawn: bool = False       # holds 14 (melds counting 3): must discard, kong or win
    must_discard: bool = False    # after a chow / pung: discards without drawing
    wrong_size: str | None = None  # "big" / "small" (相公) once the tracker has seen it
    revealed: tuple[str, ...] | None = None
    win_tile: str | None = None
    discards_made: int = 0

    def clone(self) -> FanSeat:
        new = copy.copy(self)
        new.river = [dict(r) for r in self.river]
        new.melds = [dict(m) for m in self.melds]
        new.flowers = list(self.flowers)
        return new


@dataclass
class FanState:
    """Everything the fan tracker knows. Treat as read-only outside :func:`step`.

    ``round`` is ``round_wind * 4 + dealer`` (0 = East round, seat 0 deals; 15 = North round,
    seat 3 deals), so ``round_name`` reads "E1".."N4"; ``honba`` counts the hands the dealer
    kept the deal in a row (连庄: shown only, nothing is paid for it).
    """

    phase: str = "idle"        # idle, seating, walls, dice, play, win, draw, result, ended
    table: str = "t1"
    ruleset: str = "hk"
    players: tuple[str, ...] = ("", "", "", "")
    red_fives: tuple[str, ...] = ()
    round: int = 0
    honba: int = 0
    sticks: int = 0
    hand_index: int = 0
    seats: list[FanSeat] = field(default_factory=list)
    hand_start_scores: tuple[int, ...] = ()
    rolls: list[tuple[int, ...]] = field(default_factory=list)
    wall: Any = None                            # controller.rules.walls.WallState
    deal_left: list[Any] = field(default_factory=list)
    accounted: set = field(default_factory=set)
    unreported: set = field(default_factory=set)
    lift_total: int = 0
    is_dealt: bool = False
    turn: int = 0
    repl_owed: list[tuple[int, str]] = field(default_factory=list)   # (seat, "flower" | "kan") owed a tail tile
    early_replacement: bool = False             # a tail tile seen taken before its flower / kong
    last_discard: tuple[int, int] | None = None  # (seat, river index)
    last_kakan: tuple[int, str] | None = None    # (seat, tile) of the added kong just made: robbable
    first_discards: list[str] = field(default_factory=list)
    is_first_go: bool = True
    kans_by: list[int] = field(default_factory=list)
    claimants: list[int] = field(default_factory=list)   # ron claims on the current discard
    winners: list[tuple[int, int]] = field(default_factory=list)  # (seat, from)
    draw_kind: str | None = None     # exhaustive_draw, four_winds, four_kans, three_claims
    fines: list[dict] = field(default_factory=list)      # paid during the hand (four winds fine)
    result: dict | None = None
    result_error: str | None = None
    last_result: dict | None = None
    history: list[dict] = field(default_factory=list)
    alerts: list[dict] = field(default_factory=list)
    alert_keys: set = field(default_factory=set)
    corrections: list[dict] = field(default_factory=list)
    finished: bool = False
    settlement: list[float] | None = None
    face_up_counts: dict = field(default_factory=dict)
    first_dealer_method: str = "seated"
    first_dealer_chair: int = 0
    seating_rolls: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)

    def clone(self) -> FanState:
        new = copy.copy(self)
        new.seats = [s.clone() for s in self.seats]
        for name in ("rolls", "seating_rolls", "deal_left", "repl_owed", "first_discards", "kans_by", "claimants",
                     "winners", "fines", "alerts", "corrections", "history"):
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
    def round_wind(self) -> int:
        return self.round // 4

    @property
    def rules(self) -> RuleSet:
        return load_rules(self.ruleset)

    @property
    def family(self) -> str:
        return self.rules.family

    @property
    def live_wall(self) -> int | None:
        return None if self.wall is None else self.wall.live_remaining

    @property
    def indicators(self) -> list[str]:
        return []   # no dora in these rules


def new_state() -> FanState:
    return FanState()


def begin_hand(s: FanState, cmds: list, now: float) -> None:
    """A new hand at the current round: shuffle and lift the next walls."""
    s.seats = [FanSeat(score=x.score) for x in s.seats]
    s.hand_start_scores = tuple(x.score for x in s.seats)
    s.phase = "walls"
    s.rolls, s.deal_left, s.accounted, s.unreported = [], [], set(), set()
    s.wall, s.lift_total, s.turn, s.is_dealt = None, 0, s.dealer, False
    s.repl_owed, s.early_replacement = [], False
    s.last_discard, s.last_kakan = None, None
    s.first_discards, s.is_first_go, s.kans_by, s.claimants, s.winners = [], True, [], [], []
    s.draw_kind, s.fines, s.result, s.result_error = None, [], None, None
    s.face_up_counts = {}
    cmds += [ev.Shuffle(now=now), ev.Lift(now=now)]
