"""The messages: the ``Message`` base (its registry of type ids) and the host -> MCU commands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from firmware_bridge.protocol.kinds import (
    BOOL,
    JOB,
    SEAT,
    SEAT_OR_ALL,
    TILE_SET,
    U8,
    U32,
    WALL_MASK,
    Int,
    Kind,
    Text,
)
from firmware_bridge.protocol.wire import PROTOCOL_VERSION, FieldError, LengthError

__all__ = ["Bye", "Centre", "Command", "Config", "Deal", "Display", "EvAck", "Event", "FlipDora", "GetStatus", "Hello", "JobCommand", "Lift", "Message", "Ping", "Reply", "ResetFault", "RollDice", "Shuffle", "Stop"]

# --------------------------------------------------------------------------- messages

_REGISTRY: dict[int, type[Message]] = {}


@dataclass(frozen=True)
class Message:
    """Base of every message. Subclasses set ``TYPE``, ``NAME`` and ``FIELDS`` (name -> kind)."""

    TYPE: ClassVar[int] = -1
    NAME: ClassVar[str] = "?"
    FIELDS: ClassVar[tuple[tuple[str, Kind], ...]] = ()

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
    FIELDS: ClassVar = (("job", JOB), ("deadman_ms", Int("H", 100, 5000)))
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
    FIELDS: ClassVar = (("job", JOB), ("count", Int("B", 2, 3)), ("seat", SEAT))
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
    FIELDS: ClassVar = (("job", JOB), ("seat", SEAT_OR_ALL), ("text", Text(16)))
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
