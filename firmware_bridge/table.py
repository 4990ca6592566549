"""All table parts over one MCU link, as the daemon uses them.

Inside the daemon's loop::

    table = SerialTable.over(port, interlock=gpio, on_event=post)
    ident = await table.start()
    result = await table.wall_lift.lift("all")
"""

from __future__ import annotations

from collections.abc import Callable

from firmware_bridge import protocol as p
from firmware_bridge.centre import SerialCentreOpening
from firmware_bridge.dealer import SerialDealer
from firmware_bridge.dice import SerialDice
from firmware_bridge.display import SerialDisplay
from firmware_bridge.link import Link
from firmware_bridge.mcu import Interlock, Mcu
from firmware_bridge.shuffler import SerialShuffler
from firmware_bridge.stop import SerialStop
from firmware_bridge.wall_lift import SerialWallLift


class SerialTable:
    """The MCU and one object per part. ``walls`` is corrected from ``identify`` on start."""

    def __init__(self, mcu: Mcu, *, walls: int = 4) -> None:
        self.mcu = mcu
        self.wall_lift = SerialWallLift(mcu, walls=walls)
        self.shuffler = SerialShuffler(mcu)
        self.centre = SerialCentreOpening(mcu)
        self.dice = SerialDice(mcu)
        self.display = SerialDisplay(mcu)
        self.stopper = SerialStop(mcu)
        self.dealer = SerialDealer(mcu)

    @classmethod
    def over(cls, port: str, *, interlock: Interlock | None = None,
             on_event: Callable[[object], None] | None = None, **link_options: object) -> SerialTable:
        link = Link(port, **link_options)  # type: ignore[arg-type]
        # a command's ack is waited for as long as the link's reply timeout ([firmware] timeout_s)
        return cls(Mcu(link, interlock=interlock, on_event=on_event, ack_timeout_s=link.reply_timeout_s))

    async def start(self, *, timeout_s: float = 3.0) -> p.Identify:
        ident = await self.mcu.start(timeout_s=timeout_s)
        self.wall_lift.walls = ident.walls
        return ident

    async def close(self) -> None:
        await self.mcu.close()
