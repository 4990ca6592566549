"""The fan family's hand state (Hong Kong, Chinese, competition): :class:`controller.tracker.hand.HandState`
with what only these rules have: flowers, the tail tiles owed (flower or kong), ron claims on
one discard, the first go-round's discards (four winds), fines paid during the hand.

``round`` is ``round_wind * 4 + dealer`` (0 = East round, seat 0 deals; 15 = North round,
seat 3 deals), so ``round_name`` reads "E1".."N4"; ``honba`` counts the hands the dealer
kept the deal in a row (连庄: shown only, nothing is paid for it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.tracker.hand import HandSeat, HandState


@dataclass
class FanSeat(HandSeat):
    """A fan seat: its flowers set aside, and ``wrong_size`` "big" / "small" (相公) once seen."""

    flowers: list[str] = field(default_factory=list)
    wrong_size: str | None = None


@dataclass
class FanState(HandState):
    """Everything the tracker knows of a Hong Kong or Chinese game."""

    SEAT = FanSeat
    FAMILY = "fan"

    ruleset: str = "hk"
    red_fives: tuple[str, ...] = ()
    repl_owed: list[tuple[int, str]] = field(default_factory=list)   # (seat, "flower" | "kan") owed a tail tile
    first_discards: list[str] = field(default_factory=list)
    claimants: list[int] = field(default_factory=list)   # ron claims on the current discard
    fines: list[dict] = field(default_factory=list)      # paid during the hand (four winds fine)
    # hands the camera saw laid down in play, before the seat's win button reached the game
    # (the button travels over the MCU link, the reveal over the camera): kept for the win
    early_reveals: dict[int, Any] = field(default_factory=dict)   # seat -> its ev.HandRevealed

    def reset_hand(self) -> None:
        self.repl_owed, self.first_discards, self.claimants, self.fines = [], [], [], []
        self.early_reveals = {}

    @property
    def dealer(self) -> int:
        return self.round % 4

    @property
    def round_wind(self) -> int:
        return self.round // 4

    @property
    def family(self) -> str:
        return self.rules.family

    @property
    def indicators(self) -> list[str]:
        return []   # no dora in these rules


def new_state() -> FanState:
    return FanState()
