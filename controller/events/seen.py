"""Events the camera's tracker reports (``vision.tracker``): discards, wall slots, indicators,
melds, revealed hands, flowers."""

from __future__ import annotations

from dataclasses import dataclass

from controller.events.base import MELD_KINDS, Event, register

__all__ = ["Discard", "DiscardRemoved", "FlowerSetAside", "HandCount", "HandRevealed", "IndicatorRevealed", "Meld", "RiichiStick", "WallBack", "WallStackTaken"]


@register("vision.discard")
@dataclass(frozen=True, kw_only=True)
class Discard(Event):
    """A new tile in ``seat``'s river. ``is_riichi``: placed sideways; ``is_tsumogiri``: if known."""

    seat: int
    tile: str
    is_riichi: bool = False
    is_tsumogiri: bool = False


@register("vision.discard_removed")
@dataclass(frozen=True, kw_only=True)
class DiscardRemoved(Event):
    """A tile left ``seat``'s river other than by a call: ``index`` in the river (0-based, in
    discard order, tiles called away keep their place), ``tile`` as read.

    ``replaced_by``: the tile now at that place when it changed rather than vanished.
    """

    seat: int
    index: int
    tile: str
    replaced_by: str | None = None


@register("vision.riichi_stick")
@dataclass(frozen=True, kw_only=True)
class RiichiStick(Event):
    """A 1000-point stick put out in front of ``seat``."""

    seat: int


@register("vision.indicator")
@dataclass(frozen=True, kw_only=True)
class IndicatorRevealed(Event):
    """A face-up indicator read at a dead-wall slot; ``is_ura`` for an ura indicator (under it)."""

    wall: int
    stack: int
    tile: str
    is_ura: bool = False


@register("vision.wall_stack_taken")
@dataclass(frozen=True, kw_only=True)
class WallStackTaken(Event):
    """A wall slot lost a tile; ``tiles_left``: tiles the slot now holds (1 or 0)."""

    wall: int
    stack: int
    tiles_left: int

    def _check(self) -> str | None:
        return None if self.tiles_left in (0, 1) else f"tiles_left is {self.tiles_left!r}, must be 0 or 1"


@register("vision.wall_back")
@dataclass(frozen=True, kw_only=True)
class WallBack(Event):
    """The back colour seen at a wall slot (the two sets of an automatic table differ)."""

    wall: int
    stack: int
    colour: str


@register("vision.meld")
@dataclass(frozen=True, kw_only=True)
class Meld(Event):
    """A meld laid out by ``seat``: ``meld_kind`` from MELD_KINDS, all its ``tiles`` (for a kakan the
    four tiles), ``called``: the tile taken from a discard or added (None for ankan/nuki),
    ``source``: the seat it came from (the sideways tile's side), None when closed."""

    seat: int
    meld_kind: str
    tiles: tuple[str, ...]
    called: str | None = None
    source: int | None = None

    def _check(self) -> str | None:
        if self.meld_kind not in MELD_KINDS:
            return f"meld_kind {self.meld_kind!r} is not one of {', '.join(MELD_KINDS)}"
        return None


@register("vision.hand_revealed")
@dataclass(frozen=True, kw_only=True)
class HandRevealed(Event):
    """``seat`` laid its concealed tiles face up (melds not included).

    ``tiles``: every concealed tile shown, the winning tile included; a ron winner may leave
    the ron tile in the river (then ``tiles`` lacks it and the tracker adds the last discard).
    ``win_tile``: the tile set apart as the winning tile (None when no win: tenpai at a draw,
    nine terminals, four riichi). For a tsumo the drawn tile must be set apart to be known:
    without ``win_tile`` the tracker takes the last tile when ``tiles`` is a row in order with
    one tile set apart at its right end, else the best-scoring reading (noted for staff).
    """

    seat: int
    tiles: tuple[str, ...]
    win_tile: str | None = None


@register("vision.flower")
@dataclass(frozen=True, kw_only=True)
class FlowerSetAside(Event):
    """A flower or season tile set aside by ``seat`` (HK/Chinese)."""

    seat: int
    tile: str


@register("vision.hand_count")
@dataclass(frozen=True, kw_only=True)
class HandCount(Event):
    """The camera counted ``count`` concealed tiles standing in front of ``seat`` (seen from above),
    reported when the count does not fit the seat's melds (13 or 14 with them, a meld counted as 3)."""

    seat: int
    count: int
