"""Seat displays (scores, messages), driven by the MCU."""

from __future__ import annotations

from typing import Protocol

from firmware_bridge import protocol as p
from firmware_bridge.mcu import Mcu

PART = "display"
ALL_SEATS = 0xFF


class Display(Protocol):
    async def show(self, seat: int | None, text: str) -> None: ...


class SerialDisplay:
    """``display`` command: up to 16 printable ASCII characters; ``seat=None`` for every seat."""

    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def show(self, seat: int | None, text: str) -> None:
        target = ALL_SEATS if seat is None else seat
        await self.mcu.run(lambda job: p.Display(job=job, seat=target, text=text), part=PART, timeout_s=2.0)
