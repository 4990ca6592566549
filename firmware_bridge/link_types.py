"""What a ``firmware_bridge.link.Link`` hands out (``LinkUp``, ``LinkLost``, ``McuEvent``,
``LinkStats``) and its record of a request in flight; imported from ``link``."""

from __future__ import annotations

import concurrent.futures
from dataclasses import dataclass

from firmware_bridge import protocol as p


@dataclass(frozen=True)
class LinkUp:
    """The MCU answered ``hello`` after the link was down, or its boot id changed (``rebooted``:
    changed since the last LinkUp). The periodic hellos of an up link post nothing else."""
    port: str
    identify: p.Identify
    rebooted: bool


@dataclass(frozen=True)
class LinkLost:
    """The link went down (port error, port gone, MCU silent); it keeps trying to come back."""
    port: str
    reason: str


@dataclass(frozen=True)
class McuEvent:
    """A new (not duplicated) event from the MCU."""
    msg: p.Event
    at: float          # monotonic seconds when it arrived


@dataclass
class _Pending:
    msg: p.Command
    seq: int
    frame: bytes
    future: concurrent.futures.Future
    deadline: float
    first_sent: float = 0.0
    next_due: float = 0.0
    tries: int = 0
    job_index: int | None = None      # order among job commands, set when first sent


@dataclass(frozen=True)
class LinkStats:
    sent_frames: int
    retransmits: int
    rx_frames: int
    rx_errors: int
    duplicate_events: int
    reconnects: int
    rto_ms: float
