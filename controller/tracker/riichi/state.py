"""The riichi family's hand state: :class:`controller.tracker.hand.HandState` with what only
riichi has (riichi sticks, indicators and ura, the record of the hand for the replay, the
replacement tile owed after a kan or a north, nine terminals)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.tracker.hand import HandSeat, HandState


@dataclass
class SeatState(HandSeat):
    """A riichi seat: riichi (``riichi_index``: the sideways tile's place, -1 once its stick is
    down), norths set aside (three players), the alerts its revealed hand raised (as (keys,
    records) per reading: withdrawn if it is read again)."""

    is_riichi: bool = False
    riichi_index: int | None = None
    norths: list[str] = field(default_factory=list)
    reveal_alerts: tuple[tuple[frozenset, tuple[dict, ...]], ...] = ()


@dataclass
class GameState(HandState):
    """Everything the tracker knows of a riichi game. ``timeline``: the hand's acts in order,
    ``("draw", seat, is_rinshan)``, ``("discard", seat, tile, is_tsumogiri, is_riichi)``,
    ``("call", seat, Meld)``, ``("kan", seat, Meld, added)``, ``("nuki", seat, tile)``."""

    SEAT = SeatState
    FAMILY = "riichi"

    kan_pending: int | None = None              # seat owed a replacement draw (after a kan or a north)
    replacement_reason: str = "kan"             # what the owed replacement draw is for: "kan" or "north"
    nine_terminals_seat: int | None = None
    flips_owed: int = 0                         # kan indicators due at the next discard
    flips_now: int = 0                          # kan indicators due at once (closed kan)
    indicators: list[str] = field(default_factory=list)
    ura: list[str] = field(default_factory=list)
    timeline: list[tuple] = field(default_factory=list)
    deducted: int = 0                           # points taken off by penalties, paid to nobody (the game's)
    # hands seen laid down while play still went on, seat -> (tiles, win_tile): the camera may see
    # a winner's hand before its tsumo / ron / draw button comes over the MCU's link
    early_reveals: dict[int, tuple[tuple[str, ...], str | None]] = field(default_factory=dict)
    # ura indicators seen turned while play still went on (their win's button still on its way)
    early_ura: tuple = ()

    def reset_hand(self) -> None:
        self.kan_pending, self.flips_owed, self.flips_now = None, 0, 0
        self.replacement_reason = "kan"
        self.nine_terminals_seat = None
        self.indicators, self.ura, self.timeline = [], [], []
        self.early_reveals = {}
        self.early_ura = ()


def new_state() -> GameState:
    """The tracker before any game: waits for ``StartGame``."""
    return GameState()
