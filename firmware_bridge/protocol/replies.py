"""The MCU -> host messages: replies (ack, identify, pong, status) and events (boot, done,
lift done, shuffle done, dice result, seat button, fault), and the tables of names they use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from firmware_bridge.protocol.commands import _REGISTRY, Command, Event, Message, Reply
from firmware_bridge.protocol.kinds import (
    BOOL,
    I8,
    I16,
    JOB,
    SEAT,
    TILE_SET,
    U8,
    U16,
    U32,
    WALL_MASK,
    Fixed,
    Int,
    List,
    Text,
)

__all__ = ["ACK_ACCEPTED", "ACK_DONE", "ACK_DUPLICATE", "ACK_REJECTED", "ACK_STATUS_NAMES", "BUTTON_ACTIONS", "CAPABILITIES", "COMMAND_TYPES", "FAULT_CODES", "FAULT_NAMES", "FAULT_TEXT", "MESSAGE_TYPES", "NO_DETAIL", "REJECT_CODES", "REJECT_NAMES", "SET_STATE_NAMES", "STATE_NAMES", "Ack", "Boot", "DiceResult", "Done", "Fault", "Identify", "LiftDone", "Pong", "SeatButton", "ShuffleDone", "Status"]

# MCU -> host: replies -----------------------------------------------------------

ACK_DONE, ACK_ACCEPTED, ACK_REJECTED = 0, 1, 2
ACK_STATUS_NAMES = {ACK_DONE: "done", ACK_ACCEPTED: "accepted", ACK_REJECTED: "rejected"}

REJECT_NAMES: dict[int, str] = {
    0: "none", 1: "unknown_command", 2: "bad_length", 3: "out_of_range", 4: "halted", 5: "busy",
    6: "not_supported", 7: "bad_state", 8: "job_conflict", 9: "lid_open", 10: "fault_active",
}
REJECT_CODES = {v: k for k, v in REJECT_NAMES.items()}
ACK_DUPLICATE = 0x80   # 'code' of a done/accepted ack: this job id was seen before, not re-executed


@dataclass(frozen=True)
class Ack(Reply):
    """Answer to a job command: ``status`` done/accepted/rejected, ``code`` reject reason or flags."""
    TYPE: ClassVar[int] = 0x80
    NAME: ClassVar[str] = "ack"
    FIELDS: ClassVar = (("status", Int("B", 0, 2)), ("code", U8), ("job", U16))
    status: int
    code: int
    job: int


CAPABILITIES = {"centre": 1 << 0, "deal": 1 << 1, "dora_flip": 1 << 2, "three_dice": 1 << 3,
                "display": 1 << 4, "lid_sensor": 1 << 5, "lane_sensors": 1 << 6, "seat_buttons": 1 << 7}


@dataclass(frozen=True)
class Identify(Reply):
    """Answer to ``hello``: firmware, table model, tile set, capabilities, latched fault."""
    TYPE: ClassVar[int] = 0x81
    NAME: ClassVar[str] = "identify"
    FIELDS: ClassVar = (("proto", U8), ("fw", Fixed(3)), ("boot_id", U32), ("tiles", U16),
                        ("walls", Int("B", 3, 4)), ("stacks_per_wall", U8), ("sets", U8),
                        ("lanes", U8), ("caps", U16), ("deadman_ms", U16), ("fault", U8),
                        ("model", Text(24)))
    proto: int
    fw: tuple[int, int, int]
    boot_id: int
    tiles: int
    walls: int
    stacks_per_wall: int
    sets: int
    lanes: int
    caps: int
    deadman_ms: int
    fault: int
    model: str

    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset(name for name, bit in CAPABILITIES.items() if self.caps & bit)

    @property
    def firmware_version(self) -> str:
        return ".".join(str(v) for v in self.fw)


STATE_NAMES = {0: "idle", 1: "busy", 2: "halted"}


@dataclass(frozen=True)
class Pong(Reply):
    """Answer to ``ping``: machine state (idle/busy/halted) and latched fault code."""
    TYPE: ClassVar[int] = 0x82
    NAME: ClassVar[str] = "pong"
    FIELDS: ClassVar = (("state", Int("B", 0, 2)), ("fault", U8))
    state: int
    fault: int


SET_STATE_NAMES = {0: "hopper", 1: "shuffling", 2: "stacked", 3: "table"}


@dataclass(frozen=True)
class Status(Reply):
    """Answer to ``status``: everything the MCU knows, as plain numbers."""
    TYPE: ClassVar[int] = 0x83
    NAME: ClassVar[str] = "status_report"
    FIELDS: ClassVar = (("state", Int("B", 0, 2)), ("fault", U8), ("motor_power", BOOL),
                        ("lid_open", BOOL), ("centre_open", BOOL), ("walls_up", WALL_MASK),
                        ("sets", Fixed(2, 0, 3)), ("temp_c", I8), ("rx_errors", U16),
                        ("jobs", List(0, 8, 0, 255)))
    state: int
    fault: int
    motor_power: int
    lid_open: int
    centre_open: int
    walls_up: int
    sets: tuple[int, int]
    temp_c: int
    rx_errors: int
    jobs: tuple[int, ...]    # running job command types (e.g. 0x13 while shuffling)


# MCU -> host: events --------------------------------------------------------------

@dataclass(frozen=True)
class Boot(Event):
    """Sent once after every MCU start; ``cause`` 0 power-on, 1 watchdog, 2 brown-out, 3 software."""
    TYPE: ClassVar[int] = 0xA0
    NAME: ClassVar[str] = "boot"
    FIELDS: ClassVar = (("boot_id", U32), ("cause", Int("B", 0, 3)))
    boot_id: int
    cause: int


@dataclass(frozen=True)
class Done(Event):
    """Completion of a job without data (centre, deal, flip_dora)."""
    TYPE: ClassVar[int] = 0xA1
    NAME: ClassVar[str] = "done"
    FIELDS: ClassVar = (("job", JOB), ("cmd", U8))
    job: int
    cmd: int


@dataclass(frozen=True)
class LiftDone(Event):
    """Walls in position: per-wall stack and tile counts (index = seat; 0 where down/absent)."""
    TYPE: ClassVar[int] = 0xA2
    NAME: ClassVar[str] = "lift_done"
    FIELDS: ClassVar = (("job", JOB), ("walls", WALL_MASK), ("set", Int("B", 0, 0xFF)),
                        ("stacks", Fixed(4)), ("tiles", Fixed(4)))
    job: int
    walls: int
    set: int               # the set now on the table, 0xFF if none
    stacks: tuple[int, int, int, int]
    tiles: tuple[int, int, int, int]


@dataclass(frozen=True)
class ShuffleDone(Event):
    """Set ``set`` shuffled and stacked; ``lanes`` = tiles counted in each lane."""
    TYPE: ClassVar[int] = 0xA3
    NAME: ClassVar[str] = "shuffle_done"
    FIELDS: ClassVar = (("job", JOB), ("set", TILE_SET), ("lanes", List(1, 8)))
    job: int
    set: int
    lanes: tuple[int, ...]


@dataclass(frozen=True)
class DiceResult(Event):
    """Dice shown for ``seat``'s roll, each 1..6."""
    TYPE: ClassVar[int] = 0xA4
    NAME: ClassVar[str] = "dice_result"
    FIELDS: ClassVar = (("job", JOB), ("seat", SEAT), ("values", List(2, 3, 1, 6)))
    job: int
    seat: int
    values: tuple[int, ...]


BUTTON_ACTIONS = ("dice", "tsumo", "ron", "draw", "riichi", "ok")


@dataclass(frozen=True)
class SeatButton(Event):
    """A seat's button on the table rail was pressed (capability ``seat_buttons``)."""
    TYPE: ClassVar[int] = 0xA6
    NAME: ClassVar[str] = "button"
    FIELDS: ClassVar = (("seat", SEAT), ("action", Int("B", 0, len(BUTTON_ACTIONS) - 1)))
    seat: int
    action: int

    @property
    def action_name(self) -> str:
        return BUTTON_ACTIONS[self.action]


FAULT_NAMES: dict[int, str] = {
    1: "head_jam", 2: "chain_rod_stuck", 3: "limit_switch_stuck", 4: "lift_stall",
    5: "lane_count", 6: "dice_dead", 7: "overheat", 8: "lid_open", 9: "shuffle_timeout",
    10: "deadman", 11: "aborted", 12: "centre_jam",
}
FAULT_CODES = {v: k for k, v in FAULT_NAMES.items()}
FAULT_TEXT: dict[str, str] = {
    "head_jam": "shuffler head jammed",
    "chain_rod_stuck": "stacking chain rod stuck",
    "limit_switch_stuck": "limit switch stuck",
    "lift_stall": "wall lift stalled",
    "lane_count": "wrong tile count in a lane",
    "dice_dead": "dice do not respond",
    "overheat": "motor driver overheated",
    "lid_open": "lid opened during motion",
    "shuffle_timeout": "shuffle took over 80 s",
    "deadman": "no host frame within the deadman time",
    "aborted": "stopped by the host",
    "centre_jam": "centre opening jammed",
}
NO_DETAIL = 0xFF


@dataclass(frozen=True)
class Fault(Event):
    """A job ended in a fault (``job`` 0: none running). ``latched``: the MCU is halted until reset."""
    TYPE: ClassVar[int] = 0xA5
    NAME: ClassVar[str] = "fault"
    FIELDS: ClassVar = (("job", U16), ("code", Int("B", 1, 0xFF)), ("latched", BOOL),
                        ("detail", U8), ("value", I16))
    job: int
    code: int
    latched: int
    detail: int = NO_DETAIL
    value: int = 0

    @property
    def fault_name(self) -> str:
        return FAULT_NAMES.get(self.code, f"fault_{self.code}")

    def describe(self) -> str:
        """One line: ``lane_count (wrong tile count in a lane): detail 2, value 33``."""
        name = self.fault_name
        text = f"{name} ({FAULT_TEXT.get(name, 'unknown fault')})"
        extra = []
        if self.detail != NO_DETAIL:
            extra.append(f"detail {self.detail}")
        if self.value:
            extra.append(f"value {self.value}")
        return text + (": " + ", ".join(extra) if extra else "")


COMMAND_TYPES = {cls.TYPE: cls for cls in _REGISTRY.values() if issubclass(cls, Command)}
MESSAGE_TYPES: dict[int, type[Message]] = dict(_REGISTRY)

