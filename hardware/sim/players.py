"""Simulated players: who holds what while a recorded hand is acted out at the simulated table.

The tenhou.net/6 log says what each seat drew, discarded and called
(:mod:`controller.rules.tenhou` reads it into a timeline). The players here keep each
seat's standing tiles and melds as the timeline is played, so that the script can have
them reveal exactly what they hold: the winner's hand at a win, the tenpai hands at an
exhaustive draw, all four at four riichi, the declarer's at nine terminals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.rules import tiles as T
from controller.rules import waits as W
from controller.rules.melds import Meld


class PlayerError(ValueError):
    """A player told to give up a tile it does not hold (the log and the hand disagree)."""


@dataclass
class Player:
    """One seat's standing tiles (``hand``), melds and discards during a hand."""

    seat: int
    hand: list[str]
    melds: list[Meld] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    last_draw: str | None = None
    is_riichi: bool = False

    def draw(self, tile: str) -> None:
        self.hand.append(tile)
        self.last_draw = tile

    def give(self, tile: str) -> None:
        """Take ``tile`` out of the hand (exactly that tile, red or not)."""
        try:
            self.hand.remove(tile)
        except ValueError:
            raise PlayerError(f"seat {self.seat} does not hold {tile} (holds {T.fmt(T.sorted_tiles(self.hand))})") \
                from None

    def discard(self, tile: str, *, is_riichi: bool = False) -> None:
        self.give(tile)
        self.discards.append(tile)
        self.is_riichi = self.is_riichi or is_riichi
        self.last_draw = None

    def call(self, meld: Meld) -> None:
        """A chi / pon / open kan: the tiles other than the called one leave the hand."""
        rest = list(meld.tiles)
        rest.remove(meld.called)
        for t in rest:
            self.give(t)
        self.melds.append(meld)
        self.last_draw = None

    def kan(self, meld: Meld, added: str | None) -> None:
        """A closed kan (four tiles from the hand) or an added kan (``added`` joins the pon)."""
        if meld.kind == "ankan":
            for t in meld.tiles:
                self.give(t)
            self.melds.append(meld)
            return
        self.give(added)
        for i, m in enumerate(self.melds):
            if m.kind == "pon" and T.plain(m.tiles[0]) == T.plain(added):
                self.melds[i] = meld
                return
        raise PlayerError(f"seat {self.seat} adds {added} to a pon it does not have")

    def is_tenpai(self) -> bool:
        """Tenpai by the tiles (the rules decide furiten and the four-held wait)."""
        try:
            return W.is_tenpai(self.hand, self.melds)
        except ValueError:
            return False


def seat_players(haipai: list[list[str]]) -> list[Player]:
    return [Player(seat=s, hand=list(h)) for s, h in enumerate(haipai)]
