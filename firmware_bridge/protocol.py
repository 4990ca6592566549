"""The wire protocol to the table MCU: pure frame codec (bytes in, objects out).

Implements ``hardware/PROTOCOL.md`` exactly; read that first. In short, a frame on the wire is
``COBS(type, seq, body..., crc32c LE) 0x00``. CRC-32C (Castagnoli): poly 0x1EDC6F41
(reflected 0x82F63B78), init 0xFFFFFFFF, refin/refout true, xorout 0xFFFFFFFF, check value
of ASCII ``123456789`` = 0xE3069283.

No I/O, no clock, no logging. Everything raised here is a ``ProtocolError`` subclass:

>>> frame = encode(Lift(job=17, walls=0x0F), seq=3)
>>> frame.hex()
'04110311060fa322931b00'
>>> decode_frame(frame[:-1])
Frame(seq=3, msg=Lift(job=17, walls=15))
>>> crc32c(b"123456789") == CHECK_VALUE
True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, fields
from typing import ClassVar

from firmware_bridge.errors import BridgeError

PROTOCOL_VERSION = 1
MAX_FRAME = 96            # bytes of decoded payload (type .. crc); longer input is garbage
CHECK_VALUE = 0xE3069283  # crc32c(b"123456789")


# --------------------------------------------------------------------------- errors

class ProtocolError(BridgeError, ValueError):
    """A frame that cannot be decoded or a message that cannot be encoded."""

    def __init__(self, message: str, *, seq: int | None = None, type_id: int | None = None,
                 job: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq
        self.type_id = type_id
        self.job = job


class FramingError(ProtocolError):
    """Not a COBS frame (bad code byte, empty, too long)."""


class ChecksumError(ProtocolError):
    """The frame's CRC-32C does not match its content."""


class UnknownMessage(ProtocolError):
    """A frame with a valid CRC and a message type this side does not know."""


class LengthError(ProtocolError):
    """A known message with the wrong body length."""


class FieldError(ProtocolError):
    """A field outside its range (names the field, the value and the limit)."""


# --------------------------------------------------------------------------- CRC-32C

def _crc_table() -> tuple[int, ...]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, parameters as in the module docstring."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


# --------------------------------------------------------------------------- COBS

def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no 0x00 byte."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of ``cobs_encode``; raises ``FramingError`` on a malformed block."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FramingError(f"COBS: zero byte at offset {i} inside a frame")
        end = i + code
        if end > n:
            raise FramingError(f"COBS: block at offset {i} claims {code - 1} bytes, only {n - i - 1} left")
        block = data[i + 1:end]
        if 0 in block:
            raise FramingError(f"COBS: zero byte inside the block at offset {i}")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


# --------------------------------------------------------------------------- field kinds

class _Kind:
    """A field's wire form: ``pack(value) -> bytes``, ``unpack(buf, pos) -> (value, pos)``."""

    name = "?"

    def pack(self, value: object) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:  # pragma: no cover
        raise NotImplementedError

    def check(self, owner: str, field: str, value: object) -> None:  # pragma: no cover
        raise NotImplementedError


class _Int(_Kind):
    def __init__(self, fmt: str, lo: int, hi: int) -> None:
        self.fmt = struct.Struct("<" + fmt)
        self.lo, self.hi = lo, hi
        self.name = fmt

    def pack(self, value: object) -> bytes:
        return self.fmt.pack(value)

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        end = pos + self.fmt.size
        if end > len(buf):
            raise LengthError("body too short")
        return self.fmt.unpack_from(buf, pos)[0], end

    def check(self, owner: str, field: str, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be an integer")
        if not self.lo <= value <= self.hi:
            raise FieldError(f"{owner}: field '{field}' is {value}, must be {self.lo}..{self.hi}")


class _Text(_Kind):
    """Length-prefixed printable ASCII (0x20..0x7E), at most ``max_len`` characters."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self.name = f"text{max_len}"

    def pack(self, value: object) -> bytes:
        raw = str(value).encode("ascii")
        return bytes([len(raw)]) + raw

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        if pos >= len(buf):
            raise LengthError("body too short for a text length")
        n = buf[pos]
        end = pos + 1 + n
        if end > len(buf):
            raise LengthError(f"text claims {n} bytes, only {len(buf) - pos - 1} left")
        raw = buf[pos + 1:end]
        if any(b < 0x20 or b > 0x7E for b in raw):
            raise FieldError("text holds a byte outside printable ASCII")
        return raw.decode("ascii"), end

    def check(self, owner: str, field: str, value: object) -> None:
        if not isinstance(value, str):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be a string")
        if len(value) > self.max_len:
            raise FieldError(f"{owner}: field '{field}' has {len(value)} characters, at most {self.max_len}")
        if any(not 0x20 <= ord(c) <= 0x7E for c in value):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be printable ASCII")


class _List(_Kind):
    """Count-prefixed list of u8 within [lo, hi], between ``min_n`` and ``max_n`` items."""

    def __init__(self, min_n: int, max_n: int, lo: int = 0, hi: int = 255) -> None:
        self.min_n, self.max_n, self.lo, self.hi = min_n, max_n, lo, hi
        self.name = "list"

    def pack(self, value: object) -> bytes:
        items = tuple(value)  # type: ignore[arg-type]
        return bytes([len(items)]) + bytes(items)

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        if pos >= len(buf):
            raise LengthError("body too short for a list count")
        n = buf[pos]
        end = pos + 1 + n
        if end > len(buf):
            raise LengthError(f"list claims {n} items, only {len(buf) - pos - 1} bytes left")
        return tuple(buf[pos + 1:end]), end

    def check(self, owner: str, field: str, value: object) -> None:
        if not isinstance(value, tuple) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be a tuple of integers")
        if not self.min_n <= len(value) <= self.max_n:
            raise FieldError(f"{owner}: field '{field}' has {len(value)} items, must be "
                             f"{self.min_n}..{self.max_n}")
        for v in value:
            if not self.lo <= v <= self.hi:
                raise FieldError(f"{owner}: field '{field}' holds {v}, must be {self.lo}..{self.hi}")


class _Fixed(_List):
    """Exactly ``n`` u8 values (no count byte)."""

    def __init__(self, n: int, lo: int = 0, hi: int = 255) -> None:
        super().__init__(n, n, lo, hi)
        self.name = f"u8x{n}"

    def pack(self, value: object) -> bytes:
        return bytes(tuple(value))  # type: ignore[arg-type]

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        end = pos + self.max_n
        if end > len(buf):
            raise LengthError("body too short")
        return tuple(buf[pos:end]), end


U8 = _Int("B", 0, 0xFF)
U16 = _Int("H", 0, 0xFFFF)
U32 = _Int("I", 0, 0xFFFFFFFF)
I8 = _Int("b", -128, 127)
I16 = _Int("h", -32768, 32767)
JOB = _Int("H", 1, 0xFFFF)          # job ids are never 0
BOOL = _Int("B", 0, 1)
SEAT = _Int("B", 0, 3)
SEAT_OR_ALL = _Int("B", 0, 0xFF)     # 0..3, or 0xFF for every seat (checked in Display)
WALL_MASK = _Int("B", 0, 0x0F)
TILE_SET = _Int("B", 0, 1)


# --------------------------------------------------------------------------- messages

_REGISTRY: dict[int, type[Message]] = {}


@dataclass(frozen=True)
class Message:
    """Base of every message. Subclasses set ``TYPE``, ``NAME`` and ``FIELDS`` (name -> kind)."""

    TYPE: ClassVar[int] = -1
    NAME: ClassVar[str] = "?"
    FIELDS: ClassVar[tuple[tuple[str, _Kind], ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.TYPE >= 0:
            if cls.TYPE in _REGISTRY:
                raise RuntimeError(f"message type 0x{cls.TYPE:02x} registered twice")
            _REGISTRY[cls.TYPE] = cls

    def check(self) -> None:
        """Raise ``FieldError`` naming the first field out of range."""
        for name, kind in self.FIELDS:
            kind.check(self.NAME, name, getattr(self, name))

    def pack_body(self) -> bytes:
        return b"".join(kind.pack(getattr(self, name)) for name, kind in self.FIELDS)

    @classmethod
    def unpack_body(cls, body: bytes) -> Message:
        values: dict[str, object] = {}
        pos = 0
        for name, kind in cls.FIELDS:
            values[name], pos = kind.unpack(body, pos)
        if pos != len(body):
            raise LengthError(f"{cls.NAME}: body has {len(body)} bytes, expected {pos}")
        return cls(**values)


class Command(Message):
    """Host -> MCU."""


class JobCommand(Command):
    """A command that carries a job id; the MCU executes a given job id at most once per session."""

    IS_MOTION: ClassVar[bool] = False
    HAS_EVENT: ClassVar[bool] = False   # completes with an event (ack ACCEPTED), else ack DONE


class Reply(Message):
    """MCU -> host, answering the host frame with the same seq; never acked."""


class Event(Message):
    """MCU -> host, unsolicited, with the MCU's own seq; acked by the host with ``EvAck``."""


# host -> MCU ------------------------------------------------------------------

@dataclass(frozen=True)
class Hello(Command):
    """Start or resume a session; answered by ``Identify``. A new ``session`` clears the job table."""
    TYPE: ClassVar[int] = 0x01
    NAME: ClassVar[str] = "hello"
    FIELDS: ClassVar = (("session", U32), ("proto", U8))
    session: int
    proto: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class Ping(Command):
    """Heartbeat; answered by ``Pong``."""
    TYPE: ClassVar[int] = 0x02
    NAME: ClassVar[str] = "ping"


@dataclass(frozen=True)
class GetStatus(Command):
    """Answered by ``Status``."""
    TYPE: ClassVar[int] = 0x03
    NAME: ClassVar[str] = "status"


@dataclass(frozen=True)
class EvAck(Command):
    """Acknowledges the MCU event whose seq is this frame's seq. Not answered."""
    TYPE: ClassVar[int] = 0x04
    NAME: ClassVar[str] = "evack"


@dataclass(frozen=True)
class Bye(Command):
    """The host is leaving: the MCU stops any motion (``aborted``) and disarms the deadman.

    Answered by ``ack`` (done, job 0). A host that dies without it leaves the deadman to act.
    """
    TYPE: ClassVar[int] = 0x07
    NAME: ClassVar[str] = "bye"


@dataclass(frozen=True)
class Config(JobCommand):
    """Set the deadman time (ms, 100..5000)."""
    TYPE: ClassVar[int] = 0x05
    NAME: ClassVar[str] = "config"
    FIELDS: ClassVar = (("job", JOB), ("deadman_ms", _Int("H", 100, 5000)))
    job: int
    deadman_ms: int


@dataclass(frozen=True)
class ResetFault(JobCommand):
    """Clear a latched fault (refused while its cause persists)."""
    TYPE: ClassVar[int] = 0x06
    NAME: ClassVar[str] = "reset_fault"
    FIELDS: ClassVar = (("job", JOB),)
    job: int


@dataclass(frozen=True)
class Stop(JobCommand):
    """Stop every motor and switch the motor drivers off; always accepted."""
    TYPE: ClassVar[int] = 0x10
    NAME: ClassVar[str] = "stop"
    FIELDS: ClassVar = (("job", JOB),)
    job: int


@dataclass(frozen=True)
class Lift(JobCommand):
    """Wall platforms: the walls in ``walls`` (bit n = seat n's wall) up, the others down."""
    TYPE: ClassVar[int] = 0x11
    NAME: ClassVar[str] = "lift"
    FIELDS: ClassVar = (("job", JOB), ("walls", WALL_MASK))
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int
    walls: int


@dataclass(frozen=True)
class Centre(JobCommand):
    """Centre opening: open (1) or closed (0)."""
    TYPE: ClassVar[int] = 0x12
    NAME: ClassVar[str] = "centre"
    FIELDS: ClassVar = (("job", JOB), ("open", BOOL))
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int
    open: int


@dataclass(frozen=True)
class Shuffle(JobCommand):
    """Shuffle and stack tile set ``set`` (0 or 1) from the hopper."""
    TYPE: ClassVar[int] = 0x13
    NAME: ClassVar[str] = "shuffle"
    FIELDS: ClassVar = (("job", JOB), ("set", TILE_SET))
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int
    set: int


@dataclass(frozen=True)
class RollDice(JobCommand):
    """Roll ``count`` dice (2 or 3) for ``seat``."""
    TYPE: ClassVar[int] = 0x14
    NAME: ClassVar[str] = "roll_dice"
    FIELDS: ClassVar = (("job", JOB), ("count", _Int("B", 2, 3)), ("seat", SEAT))
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int
    count: int
    seat: int


@dataclass(frozen=True)
class Display(JobCommand):
    """Show ``text`` (≤ 16 printable ASCII) on seat ``seat``'s display (0xFF: every seat)."""
    TYPE: ClassVar[int] = 0x15
    NAME: ClassVar[str] = "display"
    FIELDS: ClassVar = (("job", JOB), ("seat", SEAT_OR_ALL), ("text", _Text(16)))
    job: int
    seat: int
    text: str

    def check(self) -> None:
        super().check()
        if self.seat > 3 and self.seat != 0xFF:
            raise FieldError(f"display: field 'seat' is {self.seat}, must be 0..3 or 255 (all)")


@dataclass(frozen=True)
class Deal(JobCommand):
    """Deal the starting hands (capability ``deal``)."""
    TYPE: ClassVar[int] = 0x16
    NAME: ClassVar[str] = "deal"
    FIELDS: ClassVar = (("job", JOB),)
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int


@dataclass(frozen=True)
class FlipDora(JobCommand):
    """Turn the dora indicator face up (capability ``dora_flip``)."""
    TYPE: ClassVar[int] = 0x17
    NAME: ClassVar[str] = "flip_dora"
    FIELDS: ClassVar = (("job", JOB),)
    IS_MOTION: ClassVar[bool] = True
    HAS_EVENT: ClassVar[bool] = True
    job: int


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
    FIELDS: ClassVar = (("status", _Int("B", 0, 2)), ("code", U8), ("job", U16))
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
    FIELDS: ClassVar = (("proto", U8), ("fw", _Fixed(3)), ("boot_id", U32), ("tiles", U16),
                        ("walls", _Int("B", 3, 4)), ("stacks_per_wall", U8), ("sets", U8),
                        ("lanes", U8), ("caps", U16), ("deadman_ms", U16), ("fault", U8),
                        ("model", _Text(24)))
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
    FIELDS: ClassVar = (("state", _Int("B", 0, 2)), ("fault", U8))
    state: int
    fault: int


SET_STATE_NAMES = {0: "hopper", 1: "shuffling", 2: "stacked", 3: "table"}


@dataclass(frozen=True)
class Status(Reply):
    """Answer to ``status``: everything the MCU knows, as plain numbers."""
    TYPE: ClassVar[int] = 0x83
    NAME: ClassVar[str] = "status_report"
    FIELDS: ClassVar = (("state", _Int("B", 0, 2)), ("fault", U8), ("motor_power", BOOL),
                        ("lid_open", BOOL), ("centre_open", BOOL), ("walls_up", WALL_MASK),
                        ("sets", _Fixed(2, 0, 3)), ("temp_c", I8), ("rx_errors", U16),
                        ("jobs", _List(0, 8, 0, 255)))
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
    FIELDS: ClassVar = (("boot_id", U32), ("cause", _Int("B", 0, 3)))
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
    FIELDS: ClassVar = (("job", JOB), ("walls", WALL_MASK), ("set", _Int("B", 0, 0xFF)),
                        ("stacks", _Fixed(4)), ("tiles", _Fixed(4)))
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
    FIELDS: ClassVar = (("job", JOB), ("set", TILE_SET), ("lanes", _List(1, 8)))
    job: int
    set: int
    lanes: tuple[int, ...]


@dataclass(frozen=True)
class DiceResult(Event):
    """Dice shown for ``seat``'s roll, each 1..6."""
    TYPE: ClassVar[int] = 0xA4
    NAME: ClassVar[str] = "dice_result"
    FIELDS: ClassVar = (("job", JOB), ("seat", SEAT), ("values", _List(2, 3, 1, 6)))
    job: int
    seat: int
    values: tuple[int, ...]


BUTTON_ACTIONS = ("dice", "tsumo", "ron", "draw", "riichi", "ok")


@dataclass(frozen=True)
class SeatButton(Event):
    """A seat's button on the table rail was pressed (capability ``seat_buttons``)."""
    TYPE: ClassVar[int] = 0xA6
    NAME: ClassVar[str] = "button"
    FIELDS: ClassVar = (("seat", SEAT), ("action", _Int("B", 0, len(BUTTON_ACTIONS) - 1)))
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
    FIELDS: ClassVar = (("job", U16), ("code", _Int("B", 1, 0xFF)), ("latched", BOOL),
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


# --------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    """A decoded frame: its sequence number and its message."""
    seq: int
    msg: Message


def encode_raw(type_id: int, seq: int, body: bytes) -> bytes:
    """Frame arbitrary bytes (with a correct CRC) without checking them: for tests and fault injection."""
    payload = bytes([type_id & 0xFF, seq & 0xFF]) + body
    payload += crc32c(payload).to_bytes(4, "little")
    return cobs_encode(payload) + b"\x00"


def encode(msg: Message, seq: int) -> bytes:
    """The wire bytes of ``msg`` with sequence number ``seq`` (0..255), delimiter included.

    Raises ``FieldError`` if a field is out of range (nothing is sent then).
    """
    if not 0 <= seq <= 0xFF:
        raise FieldError(f"{msg.NAME}: seq is {seq}, must be 0..255")
    msg.check()
    return encode_raw(msg.TYPE, seq, msg.pack_body())


def decode_frame(data: bytes) -> Frame:
    """Decode one frame (the bytes between two 0x00 delimiters, delimiter excluded).

    Raises ``FramingError``, ``ChecksumError``, ``UnknownMessage``, ``LengthError`` or
    ``FieldError`` (each a ``ProtocolError``); the latter three carry ``seq``, ``type_id``
    and, where the body has one, ``job`` so that the MCU can answer ``rejected``.
    """
    if not data:
        raise FramingError("empty frame")
    if len(data) > MAX_FRAME + 2:
        raise FramingError(f"frame of {len(data)} bytes, at most {MAX_FRAME + 2}")
    payload = cobs_decode(data)
    if len(payload) < 6:
        raise FramingError(f"frame of {len(payload)} bytes, shorter than type+seq+crc (6)")
    content, crc = payload[:-4], int.from_bytes(payload[-4:], "little")
    if crc32c(content) != crc:
        raise ChecksumError(f"CRC-32C mismatch: frame says 0x{crc:08x}, content gives 0x{crc32c(content):08x}")
    type_id, seq, body = content[0], content[1], content[2:]
    job = int.from_bytes(body[:2], "little") if len(body) >= 2 else None
    cls = MESSAGE_TYPES.get(type_id)
    if cls is None:
        raise UnknownMessage(f"unknown message type 0x{type_id:02x} (seq {seq})",
                             seq=seq, type_id=type_id, job=job)
    try:
        msg = cls.unpack_body(body)
        msg.check()
    except ProtocolError as err:
        kind = type(err) if isinstance(err, LengthError | FieldError) else FieldError
        raise kind(f"{cls.NAME} (seq {seq}): {err}", seq=seq, type_id=type_id, job=job) from err
    return Frame(seq, msg)


class FrameDecoder:
    """Stream decoder: feed it bytes as they arrive, get frames and errors back in order.

    Resynchronises at every 0x00: garbage costs at most the frame it lands in. Bytes beyond
    ``MAX_FRAME`` without a delimiter are discarded (reported once as a ``FramingError``).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | ProtocolError]:
        out: list[Frame | ProtocolError] = []
        start = 0
        while True:
            idx = data.find(0, start)
            if idx < 0:
                self._append(data[start:], out)
                return out
            self._append(data[start:idx], out)
            chunk, overflow = bytes(self._buf), self._overflow
            self._buf.clear()
            self._overflow = False
            start = idx + 1
            if overflow or not chunk:
                continue        # an empty chunk is a bare delimiter (allowed as a flush)
            try:
                out.append(decode_frame(chunk))
            except ProtocolError as err:
                out.append(err)

    def _append(self, data: bytes, out: list[Frame | ProtocolError]) -> None:
        if self._overflow or not data:
            return
        self._buf += data
        if len(self._buf) > MAX_FRAME + 2:
            self._buf.clear()
            self._overflow = True
            out.append(FramingError(f"no delimiter within {MAX_FRAME + 2} bytes; skipping to the next 0x00"))


def message_fields(msg: Message) -> dict[str, object]:
    """The message's fields as a plain dict (for logs and events)."""
    return {f.name: getattr(msg, f.name) for f in fields(msg)}
