"""Events from the staff (the panel, with the staff token) and the integrity alerts the
tracker raises (stored as events too)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.events.base import ALERT_RULES, Event, check_action, register

__all__ = ["Alert", "ConfirmResult", "Correction", "Reset", "StaffDeclare", "StartGame", "VoidHand"]


@register("staff.start_game")
@dataclass(frozen=True, kw_only=True)
class StartGame(Event):
    """Start a game: ``ruleset`` profile name, ``players`` names in seat order (seat 0 deals
    first), ``table`` the table's name, ``red_fives`` the set's red fives (mpsz, e.g.
    ``("0m","0p","0s")``; None: the profile's default).

    ``first_dealer``: "seated" (``players[0]`` deals first), or a first-dealer procedure of
    the profile's seeds ("two_rolls", "one_roll", "east", see ``controller.rules.seating``)
    rolled at the table by the chairs as seated (``players`` from the East drawer on): the
    game's seat 0 is then the chair the procedure names, and seats count from it.

    A game taken over mid-way (a recorded excerpt) gives its starting point: ``start_round``
    (0 = East 1, 4 = South 1, ...), ``start_honba``, ``start_sticks`` (riichi sticks on the
    table) and ``start_scores`` in seat order (None: the profile's start points).
    """

    ruleset: str
    players: tuple[str, ...] = ("", "", "", "")
    table: str = "t1"
    red_fives: tuple[str, ...] | None = None
    start_round: int = 0
    start_honba: int = 0
    start_sticks: int = 0
    start_scores: tuple[int, ...] | None = None
    first_dealer: str = "seated"

    def _check(self) -> str | None:
        if self.first_dealer not in ("seated", "two_rolls", "one_roll", "east"):
            return f"first_dealer {self.first_dealer!r} is not one of seated, two_rolls, one_roll, east"
        if min(self.start_round, self.start_honba, self.start_sticks) < 0:
            return "start_round, start_honba and start_sticks must be >= 0"
        return None


@register("staff.correction")
@dataclass(frozen=True, kw_only=True)
class Correction(Event):
    """A staff correction of something the camera could not settle, with a ``reason``.

    ``what`` names the field (``discard``, ``remove_discard``, ``hand``, ``indicator``, ``meld``,
    ``dice``, ``scores``, ``dismiss_alert``); ``data`` holds its value as a JSON object
    (e.g. ``{"seat": 2, "tile": "5p"}``).
    """

    what: str
    reason: str
    data: dict = field(default_factory=dict)


@register("staff.confirm_result")
@dataclass(frozen=True, kw_only=True)
class ConfirmResult(Event):
    """Staff (or the table's ok button) confirm the shown result of hand ``hand_index``."""

    hand_index: int


@register("staff.void_hand")
@dataclass(frozen=True, kw_only=True)
class VoidHand(Event):
    """Void the current hand (tile-set error): starting scores and deposits restored."""

    reason: str


@register("staff.reset")
@dataclass(frozen=True, kw_only=True)
class Reset(Event):
    """Operator reset after a fault (the machine cycle's; the game tracker keeps its state:
    a hand is voided with ``VoidHand``, a game restarted with ``StartGame``)."""

    reason: str = ""


@register("staff.declare")
@dataclass(frozen=True, kw_only=True)
class StaffDeclare(Event):
    """A declaration made on the panel for ``seat`` (same actions as a seat button)."""

    seat: int
    action: str
    reason: str = ""

    def _check(self) -> str | None:
        return check_action(self.action)


@register("alert")
@dataclass(frozen=True, kw_only=True)
class Alert(Event):
    """An integrity alert: ``rule`` (ALERT_RULES), ``seat``/``tile`` where they apply,
    ``hand_index``, a one-line ``message``; ``is_public``: may show on the table display now;
    ``suggest``: a staff action offered (``void_hand``) or None."""

    rule: str
    hand_index: int
    seat: int | None = None
    tile: str | None = None
    message: str = ""
    is_public: bool = True
    suggest: str | None = None

    def _check(self) -> str | None:
        return None if self.rule in ALERT_RULES else f"rule {self.rule!r} is not one of {', '.join(ALERT_RULES)}"
