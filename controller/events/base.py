"""The events' common ground: the ``Event`` and ``Command`` bases, the registry of kinds, the
vocabularies (button actions, meld kinds, alert rules) and the validation every event and
command runs when it is built (a wrong value raises ``EventError`` naming the kind and field).

An event class with a rule of its own beyond its fields' types, seats and tiles says it in
``_check()``: the problem as text, or None.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from controller.errors import EventError
from controller.rules.tiles import is_tile

# Seat buttons (and the same declarations from the staff panel).
#   dice: roll the dice (the seat whose dice button is lit); tsumo / ron: declare a win;
#   draw: declare an abortive draw (nine terminals, 九種九牌); riichi: announce riichi;
#   ok: acknowledge (confirm the shown result at the table, ready for the next hand).
BUTTON_ACTIONS = ("dice", "tsumo", "ron", "draw", "riichi", "ok")

# chi (吃), pon (碰), daiminkan (open kan on a discard), ankan (closed kan), kakan (added kan),
# nuki (north set aside in sanma).
MELD_KINDS = ("chi", "pon", "daiminkan", "ankan", "kakan", "nuki")

# Integrity rules (table-api.md names first, then the others the tracker raises).
ALERT_RULES = (
    "missing_tile", "fifth_tile", "wrong_red", "other_back", "taken_back", "extra_draw",
    "out_of_turn", "wrong_hand_size", "moved_indicator",
    "stack_count", "set_mismatch", "kuikae", "last_discard_call", "furiten_ron", "unknown_tile",
    "inconsistent", "no_yaku", "not_tenpai", "wrong_indicator",
)

__all__ = ["ALERT_RULES", "BUTTON_ACTIONS", "COMMAND_KINDS", "EVENT_KINDS", "MELD_KINDS", "SEATS", "Command", "Event", "EventError"]

SEATS = range(4)



@dataclass(frozen=True, kw_only=True)
class _Record:
    """What events and commands share: a registered ``KIND``, ``now``, validation when built."""

    KIND: ClassVar[str] = ""
    now: float = 0.0

    def __post_init__(self) -> None:
        validate(self)

    def _check(self) -> str | None:
        """A rule of this kind beyond its fields' types (None: nothing wrong)."""
        return None


@dataclass(frozen=True, kw_only=True)
class Event(_Record):
    """Base of every input event. ``now``: monotonic seconds when the part saw it."""


@dataclass(frozen=True, kw_only=True)
class Command(_Record):
    """Base of every command the game returns for the daemon to carry out."""


EVENT_KINDS: dict[str, type[Event]] = {}
COMMAND_KINDS: dict[str, type[Command]] = {}


def register(kind: str):
    """Class decorator: give the class its ``KIND`` and list it (a kind registered twice is a bug)."""
    def wrap(cls):
        cls.KIND = kind
        table = COMMAND_KINDS if issubclass(cls, Command) else EVENT_KINDS
        if kind in EVENT_KINDS or kind in COMMAND_KINDS:
            raise RuntimeError(f"event kind {kind!r} registered twice")
        table[kind] = cls
        return cls
    return wrap


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value))
    if hint is str:
        return isinstance(value, str)
    if hint is dict or origin is dict:
        return isinstance(value, dict)
    if origin is tuple:
        args = typing.get_args(hint)
        return isinstance(value, tuple) and all(_type_ok(v, args[0]) for v in value)
    if isinstance(hint, type) and issubclass(hint, (Event, Command)):
        return isinstance(value, hint)
    return False


_HINTS: dict[type, dict[str, Any]] = {}


def hints_of(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]




def validate(obj: Event | Command) -> None:
    """Check every field of ``obj``; raises EventError naming the kind and the field at fault."""
    kind = type(obj).KIND or type(obj).__name__
    hints = hints_of(type(obj))
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, float) and hints[f.name] is float and not math.isfinite(value):
            raise EventError(f"{kind}: field {f.name!r} is {value!r}, must be a finite number")
        if not _type_ok(value, hints[f.name]):
            raise EventError(f"{kind}: field {f.name!r} is {value!r}, expected {_hint_name(hints[f.name])}")
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    for name in ("seat", "source", "wall"):
        if values.get(name) is not None and values[name] not in SEATS:
            raise EventError(f"{kind}: field {name!r} is {values[name]!r}, must be a seat 0..3")
    for name in ("tile", "called", "replaced_by", "win_tile"):
        if values.get(name) is not None and not is_tile(values[name]):
            raise EventError(f"{kind}: field {name!r} is {values[name]!r}, not a tile in mpsz ('5m', '0p', '7z')")
    for name in ("tiles", "red_fives"):
        for t in values.get(name) or ():
            if not is_tile(t):
                raise EventError(f"{kind}: field {name!r} holds {t!r}, not a tile in mpsz")
    problem = obj._check()
    if problem:
        raise EventError(f"{kind}: {problem}")
    if "stack" in values and values["stack"] < 1:
        raise EventError(f"{kind}: stack is {values['stack']!r}, must be >= 1 (1 = the owner's right end)")


def _hint_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def check_action(action: str) -> str | None:
    """A button's (or the panel's declaration's) action: one of BUTTON_ACTIONS."""
    if action not in BUTTON_ACTIONS:
        return f"action {action!r} is not one of {', '.join(BUTTON_ACTIONS)}"
    return None
