"""Optional dealing and dora flip (tables with the ``deal`` / ``dora_flip`` capability)."""

from __future__ import annotations

from firmware_bridge import protocol as p
from firmware_bridge.mcu import Mcu, expect

PART = "dealer"


class SerialDealer:
    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def deal(self, *, timeout_s: float = 30.0) -> None:
        expect(await self.mcu.run(lambda job: p.Deal(job=job), part=PART, timeout_s=timeout_s), p.Done, PART)

    async def flip_dora(self, *, timeout_s: float = 10.0) -> None:
        expect(await self.mcu.run(lambda job: p.FlipDora(job=job), part=PART, timeout_s=timeout_s),
               p.Done, PART)
