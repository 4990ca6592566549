"""The table's event vocabulary: every input the controller receives, and every command it returns.

Everything that happens at the table becomes one small frozen dataclass with a registered
``KIND`` string (``"button"``, ``"mcu.lift_done"``, ``"vision.discard"``, ...). The daemon
stores events as records, rebuilds state by replaying them, and feeds them to
``controller.game.step``; the game returns ``Command`` objects that the daemon sends to the
parts (MCU, display, camera).

Records are canonical JSON-able dicts: ``{"kind": KIND, "now": 12.5, <fields>...}``, tuples
as lists, tiles in mpsz (``"5m"``, ``"0p"`` red, ``"7z"``). ``from_record(to_record(e)) == e``
for every event and command; a malformed record raises ``EventError`` naming the kind and
the field, and nothing is built.

Conventions
-----------
- ``now``: monotonic seconds of the moment the part saw it (the daemon's clock; the game
  never reads a clock). Defaults to 0.0 for commands and events built in tests.
- ``seat``: the table position 0..3 counted counter-clockwise (turn order) from the
  position the first dealer sat at when the game started, i.e. the game's seat order
  (the log's seat order for scripted games).
- Wall slots, as ``controller.rules.walls.WallSlot``: ``wall`` is the seat (0..3) in front
  of which the wall stands; ``stack`` is 1-based, 1 = the wall owner's right end (stacks are
  taken clockwise around the table). A stack holds 2, 1 or 0 tiles (upper taken first).

>>> e = Discard(seat=1, tile="0p", is_riichi=True, now=3.25)
>>> to_record(e)
{'kind': 'vision.discard', 'now': 3.25, 'seat': 1, 'tile': '0p', 'is_riichi': True, 'is_tsumogiri': False}
>>> from_record(to_record(e)) == e
True
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from controller.rules.tiles import is_tile

__all__ = [
    "EventError", "Event", "Command", "EVENT_KINDS", "COMMAND_KINDS", "to_record", "from_record",
    "BUTTON_ACTIONS", "MELD_KINDS", "ALERT_RULES",
    "Button", "Lid", "EStop", "StackReady", "LiftDone", "DiceResult", "McuFault", "LinkLost",
    "LinkRestored", "Discard", "DiscardRemoved", "RiichiStick", "IndicatorRevealed", "WallStackTaken",
    "WallBack", "Meld", "HandRevealed", "FlowerSetAside", "HandCount", "StartGame", "Correction", "ConfirmResult",
    "VoidHand", "Reset", "StaffDeclare", "Alert",
    "RollDice", "Lift", "Shuffle", "LightButton", "WatchSlot", "Show", "RaiseAlert",
]

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

SEATS = range(4)


class EventError(ValueError):
    """A malformed event record or event value (names the kind and field at fault)."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every input event. ``now``: monotonic seconds when the part saw it."""

    KIND: ClassVar[str] = ""
    now: float = 0.0

    def __post_init__(self) -> None:
        _validate(self)


@dataclass(frozen=True, kw_only=True)
class Command:
    """Base of every command the game returns for the daemon to carry out."""

    KIND: ClassVar[str] = ""
    now: float = 0.0

    def __post_init__(self) -> None:
        _validate(self)


EVENT_KINDS: dict[str, type[Event]] = {}
COMMAND_KINDS: dict[str, type[Command]] = {}


def _register(kind: str):
    def wrap(cls):
        cls.KIND = kind
        table = COMMAND_KINDS if issubclass(cls, Command) else EVENT_KINDS
        if kind in EVENT_KINDS or kind in COMMAND_KINDS:
            raise RuntimeError(f"event kind {kind!r} registered twice")
        table[kind] = cls
        return cls
    return wrap


# --------------------------------------------------------------------------- seat and table inputs

@_register("button")
@dataclass(frozen=True, kw_only=True)
class Button(Event):
    """A seat button pressed: ``action`` from BUTTON_ACTIONS (dice, tsumo, ron, draw, riichi, ok)."""

    seat: int
    action: str


@_register("lid")
@dataclass(frozen=True, kw_only=True)
class Lid(Event):
    """The table lid (shuffler hatch) switch: ``is_open`` True when open (no motor may run)."""

    is_open: bool


@_register("estop")
@dataclass(frozen=True, kw_only=True)
class EStop(Event):
    """The emergency stop: ``is_pressed`` True while latched (no motor may run)."""

    is_pressed: bool


# --------------------------------------------------------------------------- MCU (firmware names)

@_register("mcu.stack_ready")
@dataclass(frozen=True, kw_only=True)
class StackReady(Event):
    """Shuffled walls are built below the table; ``counts``: tiles per wall (seat 0..3 walls)."""

    counts: tuple[int, ...]


@_register("mcu.lift_done")
@dataclass(frozen=True, kw_only=True)
class LiftDone(Event):
    """The walls are raised onto the table; ``counts``: tiles counted per wall (seat 0..3)."""

    counts: tuple[int, ...]


@_register("mcu.dice_result")
@dataclass(frozen=True, kw_only=True)
class DiceResult(Event):
    """The dice shown by the table after a roll (values 1..6), rolled for ``seat``."""

    seat: int
    dice: tuple[int, ...]


@_register("mcu.fault")
@dataclass(frozen=True, kw_only=True)
class McuFault(Event):
    """A firmware fault: ``code`` as the firmware names it (e.g. ``lift_jam``), ``detail`` free text."""

    code: str
    detail: str = ""


@_register("mcu.link_lost")
@dataclass(frozen=True, kw_only=True)
class LinkLost(Event):
    """The serial link to the MCU stopped answering."""

    reason: str = ""


@_register("mcu.link_restored")
@dataclass(frozen=True, kw_only=True)
class LinkRestored(Event):
    """The serial link to the MCU answers again."""


@_register("mcu.centre_done")
@dataclass(frozen=True, kw_only=True)
class CentreDone(Event):
    """The centre opening reached its position (the firmware's ``done`` for ``centre``)."""

    is_open: bool


# --------------------------------------------------------------------------- vision (tracker output)

@_register("vision.discard")
@dataclass(frozen=True, kw_only=True)
class Discard(Event):
    """A new tile in ``seat``'s river. ``is_riichi``: placed sideways; ``is_tsumogiri``: if known."""

    seat: int
    tile: str
    is_riichi: bool = False
    is_tsumogiri: bool = False


@_register("vision.discard_removed")
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


@_register("vision.riichi_stick")
@dataclass(frozen=True, kw_only=True)
class RiichiStick(Event):
    """A 1000-point stick put out in front of ``seat``."""

    seat: int


@_register("vision.indicator")
@dataclass(frozen=True, kw_only=True)
class IndicatorRevealed(Event):
    """A face-up indicator read at a dead-wall slot; ``is_ura`` for an ura indicator (under it)."""

    wall: int
    stack: int
    tile: str
    is_ura: bool = False


@_register("vision.wall_stack_taken")
@dataclass(frozen=True, kw_only=True)
class WallStackTaken(Event):
    """A wall slot lost a tile; ``tiles_left``: tiles the slot now holds (1 or 0)."""

    wall: int
    stack: int
    tiles_left: int


@_register("vision.wall_back")
@dataclass(frozen=True, kw_only=True)
class WallBack(Event):
    """The back colour seen at a wall slot (the two sets of an automatic table differ)."""

    wall: int
    stack: int
    colour: str


@_register("vision.meld")
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


@_register("vision.hand_revealed")
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


@_register("vision.flower")
@dataclass(frozen=True, kw_only=True)
class FlowerSetAside(Event):
    """A flower or season tile set aside by ``seat`` (HK/Chinese)."""

    seat: int
    tile: str


@_register("vision.hand_count")
@dataclass(frozen=True, kw_only=True)
class HandCount(Event):
    """The camera counted ``count`` concealed tiles standing in front of ``seat`` (seen from above),
    reported when the count does not fit the seat's melds (13 or 14 with them, a meld counted as 3)."""

    seat: int
    count: int


# --------------------------------------------------------------------------- staff (panel, token)

@_register("staff.start_game")
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


@_register("staff.correction")
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


@_register("staff.confirm_result")
@dataclass(frozen=True, kw_only=True)
class ConfirmResult(Event):
    """Staff (or the table's ok button) confirm the shown result of hand ``hand_index``."""

    hand_index: int


@_register("staff.void_hand")
@dataclass(frozen=True, kw_only=True)
class VoidHand(Event):
    """Void the current hand (tile-set error): starting scores and deposits restored."""

    reason: str


@_register("staff.reset")
@dataclass(frozen=True, kw_only=True)
class Reset(Event):
    """Operator reset after a fault (the machine cycle's; the game tracker keeps its state:
    a hand is voided with ``VoidHand``, a game restarted with ``StartGame``)."""

    reason: str = ""


@_register("staff.declare")
@dataclass(frozen=True, kw_only=True)
class StaffDeclare(Event):
    """A declaration made on the panel for ``seat`` (same actions as a seat button)."""

    seat: int
    action: str
    reason: str = ""


@_register("alert")
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


# --------------------------------------------------------------------------- commands

@_register("cmd.roll_dice")
@dataclass(frozen=True, kw_only=True)
class RollDice(Command):
    """Light ``seat``'s dice button; when pressed the table rolls ``count`` dice."""

    seat: int
    count: int = 2


@_register("cmd.shuffle")
@dataclass(frozen=True, kw_only=True)
class Shuffle(Command):
    """Shuffle and build the next walls below the table."""


@_register("cmd.lift")
@dataclass(frozen=True, kw_only=True)
class Lift(Command):
    """Raise the built walls onto the table."""


@_register("cmd.light_button")
@dataclass(frozen=True, kw_only=True)
class LightButton(Command):
    """Light (or darken) ``seat``'s button for ``action``."""

    seat: int
    action: str
    is_on: bool = True


@_register("cmd.watch_slot")
@dataclass(frozen=True, kw_only=True)
class WatchSlot(Command):
    """Tell the camera where to look: ``purpose`` ``indicator``/``ura``/``replacement``/``haitei``."""

    wall: int
    stack: int
    purpose: str


@_register("cmd.show")
@dataclass(frozen=True, kw_only=True)
class Show(Command):
    """Show something on the table display / panel: ``what`` (``result``, ``message``, ...)."""

    what: str
    data: dict = field(default_factory=dict)


@_register("cmd.alert")
@dataclass(frozen=True, kw_only=True)
class RaiseAlert(Command):
    """Log the alert, keep the current frame as evidence, show it to staff (and the table
    when ``alert.is_public``)."""

    alert: Alert


# --------------------------------------------------------------------------- validation and records

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


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _validate(obj: Event | Command) -> None:
    kind = type(obj).KIND or type(obj).__name__
    hints = _hints(type(obj))
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
    if "action" in values and values["action"] not in BUTTON_ACTIONS and isinstance(obj, (Button, StaffDeclare)):
        raise EventError(f"{kind}: action {values['action']!r} is not one of {', '.join(BUTTON_ACTIONS)}")
    if isinstance(obj, Meld) and obj.meld_kind not in MELD_KINDS:
        raise EventError(f"{kind}: meld_kind {obj.meld_kind!r} is not one of {', '.join(MELD_KINDS)}")
    if isinstance(obj, Alert) and obj.rule not in ALERT_RULES:
        raise EventError(f"{kind}: rule {obj.rule!r} is not one of {', '.join(ALERT_RULES)}")
    if isinstance(obj, DiceResult) and not (obj.dice and all(1 <= d <= 6 for d in obj.dice)):
        raise EventError(f"{kind}: dice {obj.dice!r} must be one or more values 1..6")
    if isinstance(obj, WallStackTaken) and obj.tiles_left not in (0, 1):
        raise EventError(f"{kind}: tiles_left is {obj.tiles_left!r}, must be 0 or 1")
    if isinstance(obj, StartGame) and obj.first_dealer not in ("seated", "two_rolls", "one_roll", "east"):
        raise EventError(f"{kind}: first_dealer {obj.first_dealer!r} is not one of seated, two_rolls, one_roll, east")
    if isinstance(obj, StartGame) and min(obj.start_round, obj.start_honba, obj.start_sticks) < 0:
        raise EventError(f"{kind}: start_round, start_honba and start_sticks must be >= 0")
    if "stack" in values and values["stack"] < 1:
        raise EventError(f"{kind}: stack is {values['stack']!r}, must be >= 1 (1 = the owner's right end)")
    if isinstance(obj, (StackReady, LiftDone)) and any(c < 0 for c in obj.counts):
        raise EventError(f"{kind}: counts {obj.counts!r} must not be negative")


def _hint_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _to_json(value: Any) -> Any:
    if isinstance(value, (Event, Command)):
        return to_record(value)
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value


def to_record(obj: Event | Command) -> dict:
    """The canonical JSON-able record of an event or command: ``{"kind", "now", fields...}``."""
    if not isinstance(obj, (Event, Command)) or not type(obj).KIND:
        raise EventError(f"not a registered event or command: {obj!r}")
    record: dict[str, Any] = {"kind": type(obj).KIND}
    for f in dataclasses.fields(obj):
        record[f.name] = _to_json(getattr(obj, f.name))
    return record


def _from_json(value: Any, hint: Any, kind: str, name: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for h in typing.get_args(hint):
            if h is type(None):
                if value is None:
                    return None
                continue
            return _from_json(value, h, kind, name)
    if origin is tuple and isinstance(value, list):
        (inner,) = typing.get_args(hint)[:1]
        return tuple(_from_json(v, inner, kind, name) for v in value)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(hint, type) and issubclass(hint, (Event, Command)) and isinstance(value, dict):
        return from_record(value)
    return value


def from_record(record: dict) -> Event | Command:
    """Build the event or command of a record made by ``to_record``.

    Raises EventError naming the kind and field for an unknown kind, a missing or unknown
    field, or a value of the wrong type or range.
    """
    if not isinstance(record, dict):
        raise EventError(f"event record must be an object, got {type(record).__name__}")
    kind = record.get("kind")
    cls = EVENT_KINDS.get(kind) or COMMAND_KINDS.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise EventError(f"unknown event kind {kind!r}")
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(record) - set(fields) - {"kind"})
    if unknown:
        raise EventError(f"{kind}: unknown field {unknown[0]!r}")
    args: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in record:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise EventError(f"{kind}: missing field {name!r}")
            continue
        try:
            args[name] = _from_json(record[name], hints[name], kind, name)
        except EventError:
            raise
        except (TypeError, ValueError) as err:
            raise EventError(f"{kind}: field {name!r}: {err}") from err
    try:
        return cls(**args)
    except TypeError as err:
        raise EventError(f"{kind}: {err}") from err
