"""Electronic dice: two dice (riichi), or three then two (Hong Kong)."""

from __future__ import annotations

from typing import Protocol

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError
from firmware_bridge.mcu import Mcu, expect

PART = "dice"


class Dice(Protocol):
    async def roll(self, count: int, seat: int, *, timeout_s: float = 10.0) -> tuple[int, ...]: ...


class SerialDice:
    """The dice through the MCU (``roll_dice``, completes with ``dice_result``)."""

    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def roll(self, count: int, seat: int, *, timeout_s: float = 10.0) -> tuple[int, ...]:
        """Roll ``count`` dice (2 or 3) for ``seat``; returns the values shown (each 1..6)."""
        if count not in (2, 3):
            raise BridgeError(f"{PART}: count is {count!r}, must be 2 or 3")
        ev = expect(await self.mcu.run(lambda job: p.RollDice(job=job, count=count, seat=seat), part=PART,
                                       timeout_s=timeout_s), p.DiceResult, PART)
        return ev.values
