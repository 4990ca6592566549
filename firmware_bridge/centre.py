"""Centre opening: where the players push the tiles at the end of a hand."""

from __future__ import annotations

from typing import Protocol

from firmware_bridge import protocol as p
from firmware_bridge.mcu import Mcu, expect

PART = "centre"


class CentreOpening(Protocol):
    async def open(self, *, timeout_s: float = 10.0) -> None: ...

    async def close(self, *, timeout_s: float = 10.0) -> None: ...


class SerialCentreOpening:
    """The centre opening through the MCU (``centre open=0|1``, completes with ``done``)."""

    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def open(self, *, timeout_s: float = 10.0) -> None:
        await self._set(1, timeout_s)

    async def close(self, *, timeout_s: float = 10.0) -> None:
        await self._set(0, timeout_s)

    async def _set(self, is_open: int, timeout_s: float) -> None:
        expect(await self.mcu.run(lambda job: p.Centre(job=job, open=is_open), part=PART,
                                  timeout_s=timeout_s), p.Done, PART)
