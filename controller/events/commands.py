"""The commands the tracker and the machine cycle return, for the daemon to hand to the parts
(MCU, lamps, camera, panel)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.events.base import Command, register
from controller.events.staff import Alert

__all__ = ["Lift", "LightButton", "RaiseAlert", "RollDice", "Show", "Shuffle", "WatchSlot"]


@register("cmd.roll_dice")
@dataclass(frozen=True, kw_only=True)
class RollDice(Command):
    """Light ``seat``'s dice button; when pressed the table rolls ``count`` dice."""

    seat: int
    count: int = 2


@register("cmd.shuffle")
@dataclass(frozen=True, kw_only=True)
class Shuffle(Command):
    """Shuffle and build the next walls below the table."""


@register("cmd.lift")
@dataclass(frozen=True, kw_only=True)
class Lift(Command):
    """Raise the built walls onto the table."""


@register("cmd.light_button")
@dataclass(frozen=True, kw_only=True)
class LightButton(Command):
    """Light (or darken) ``seat``'s button for ``action``."""

    seat: int
    action: str
    is_on: bool = True


@register("cmd.watch_slot")
@dataclass(frozen=True, kw_only=True)
class WatchSlot(Command):
    """Tell the camera where to look: ``purpose`` ``indicator``/``ura``/``replacement``/``haitei``."""

    wall: int
    stack: int
    purpose: str


@register("cmd.show")
@dataclass(frozen=True, kw_only=True)
class Show(Command):
    """Show something on the table display / panel: ``what`` (``result``, ``message``, ...)."""

    what: str
    data: dict = field(default_factory=dict)


@register("cmd.alert")
@dataclass(frozen=True, kw_only=True)
class RaiseAlert(Command):
    """Log the alert, keep the current frame as evidence, show it to staff (and the table
    when ``alert.is_public``)."""

    alert: Alert
