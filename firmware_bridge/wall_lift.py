"""Wall lift: raises the prepared walls (one per seat) from inside the table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError
from firmware_bridge.mcu import Mcu, expect

PART = "wall_lift"


@dataclass(frozen=True)
class LiftResult:
    """Walls now up (seats), the tile set on the table (None if none), per-wall stack and tile counts."""
    walls: frozenset[int]
    tile_set: int | None
    stacks: tuple[int, ...]
    tiles: tuple[int, ...]


class WallLift(Protocol):
    """Implementations must provide ``lift`` and ``lower``; both are absolute and idempotent."""

    async def lift(self, walls: Iterable[int] | Literal["all"] = "all", *, timeout_s: float = 30.0
                   ) -> LiftResult: ...

    async def lower(self, *, timeout_s: float = 30.0) -> LiftResult: ...


def walls_mask(walls: Iterable[int] | Literal["all"], n_walls: int) -> int:
    """``"all"`` or seat numbers -> the protocol's wall bitmask; ``BridgeError`` for a bad seat."""
    if walls == "all":
        return (1 << n_walls) - 1
    mask = 0
    for seat in walls:
        if not isinstance(seat, int) or not 0 <= seat < n_walls:
            raise BridgeError(f"{PART}: wall {seat!r} is not a seat 0..{n_walls - 1}")
        mask |= 1 << seat
    return mask


class SerialWallLift:
    """The wall lift through the MCU (``lift`` command, ``lift_done`` completion)."""

    def __init__(self, mcu: Mcu, *, walls: int = 4) -> None:
        if walls not in (3, 4):
            raise BridgeError(f"{PART}: option 'walls' is {walls}, must be 3 or 4")
        self.mcu = mcu
        self.walls = walls

    async def lift(self, walls: Iterable[int] | Literal["all"] = "all", *, timeout_s: float = 30.0
                   ) -> LiftResult:
        mask = walls_mask(walls, self.walls)
        return await self._move(mask, timeout_s)

    async def lower(self, *, timeout_s: float = 30.0) -> LiftResult:
        return await self._move(0, timeout_s)

    async def _move(self, mask: int, timeout_s: float) -> LiftResult:
        ev = expect(await self.mcu.run(lambda job: p.Lift(job=job, walls=mask), part=PART,
                                       timeout_s=timeout_s), p.LiftDone, PART)
        return LiftResult(frozenset(w for w in range(4) if ev.walls >> w & 1),
                          None if ev.set == 0xFF else ev.set, ev.stacks[:self.walls], ev.tiles[:self.walls])
