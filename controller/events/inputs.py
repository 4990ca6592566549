"""Events from the seats and the table: buttons, lid, emergency stop, and the MCU's reports
(firmware names, ``hardware/PROTOCOL.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.events.base import Event, check_action, register

__all__ = ["Button", "CentreDone", "DiceResult", "EStop", "HostRestarted", "Lid", "LiftDone", "LinkLost", "LinkRestored",
           "McuFault", "StackReady"]


@register("button")
@dataclass(frozen=True, kw_only=True)
class Button(Event):
    """A seat button pressed: ``action`` from BUTTON_ACTIONS (dice, tsumo, ron, draw, riichi, ok)."""

    seat: int
    action: str

    def _check(self) -> str | None:
        return check_action(self.action)


@register("lid")
@dataclass(frozen=True, kw_only=True)
class Lid(Event):
    """The table lid (shuffler hatch) switch: ``is_open`` True when open (no motor may run)."""

    is_open: bool


@register("estop")
@dataclass(frozen=True, kw_only=True)
class EStop(Event):
    """The emergency stop: ``is_pressed`` True while latched (no motor may run)."""

    is_pressed: bool


@register("mcu.stack_ready")
@dataclass(frozen=True, kw_only=True)
class StackReady(Event):
    """Shuffled walls are built below the table; ``counts``: tiles per wall (seat 0..3 walls)."""

    counts: tuple[int, ...]

    def _check(self) -> str | None:
        return f"counts {self.counts!r} must not be negative" if any(c < 0 for c in self.counts) else None


@register("mcu.lift_done")
@dataclass(frozen=True, kw_only=True)
class LiftDone(Event):
    """The walls are raised onto the table; ``counts``: tiles counted per wall (seat 0..3)."""

    counts: tuple[int, ...]

    def _check(self) -> str | None:
        return f"counts {self.counts!r} must not be negative" if any(c < 0 for c in self.counts) else None


@register("mcu.dice_result")
@dataclass(frozen=True, kw_only=True)
class DiceResult(Event):
    """The dice shown by the table after a roll (values 1..6), rolled for ``seat``."""

    seat: int
    dice: tuple[int, ...]

    def _check(self) -> str | None:
        if not (self.dice and all(1 <= d <= 6 for d in self.dice)):
            return f"dice {self.dice!r} must be one or more values 1..6"
        return None


@register("mcu.fault")
@dataclass(frozen=True, kw_only=True)
class McuFault(Event):
    """A firmware fault: ``code`` as the firmware names it (e.g. ``lift_jam``), ``detail`` free text."""

    code: str
    detail: str = ""


@register("mcu.link_lost")
@dataclass(frozen=True, kw_only=True)
class LinkLost(Event):
    """The serial link to the MCU stopped answering."""

    reason: str = ""


@register("mcu.link_restored")
@dataclass(frozen=True, kw_only=True)
class LinkRestored(Event):
    """The serial link to the MCU answers again."""


@register("mcu.centre_done")
@dataclass(frozen=True, kw_only=True)
class CentreDone(Event):
    """The centre opening reached its position (the firmware's ``done`` for ``centre``)."""

    is_open: bool


@register("host.restarted")
@dataclass(frozen=True, kw_only=True)
class HostRestarted(Event):
    """The daemon started again with the machine mid-cycle (a crash, a kill, a power cut of the
    host alone): the motions it had asked for were stopped by the MCU's deadman when the host went
    silent, so the machine cycle asks for them again (``controller.cycle``)."""
