"""Shuffler: shuffles and stacks the returned tile set in the background (about 60 s)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError
from firmware_bridge.mcu import Mcu, expect

PART = "shuffler"


@dataclass(frozen=True)
class ShuffleResult:
    """The set now stacked and ready, and the tiles counted in each lane (magnetic sensors)."""
    tile_set: int
    lanes: tuple[int, ...]


class Shuffler(Protocol):
    async def shuffle(self, tile_set: int, *, timeout_s: float = 90.0) -> ShuffleResult: ...


class SerialShuffler:
    """The shuffler through the MCU (``shuffle`` command, ``shuffle_done`` or ``fault``)."""

    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def shuffle(self, tile_set: int, *, timeout_s: float = 90.0) -> ShuffleResult:
        if tile_set not in (0, 1):
            raise BridgeError(f"{PART}: tile set is {tile_set!r}, must be 0 or 1")
        ev = expect(await self.mcu.run(lambda job: p.Shuffle(job=job, set=tile_set), part=PART,
                                       timeout_s=timeout_s), p.ShuffleDone, PART)
        return ShuffleResult(ev.set, ev.lanes)
