"""Stop and fault reset: never gated by the interlocks (stopping is always allowed)."""

from __future__ import annotations

from firmware_bridge import protocol as p
from firmware_bridge.mcu import Mcu

PART = "stop"


class SerialStop:
    """``stop`` (all motors off, drivers off; running jobs end in ``fault aborted``) and ``reset_fault``."""

    def __init__(self, mcu: Mcu) -> None:
        self.mcu = mcu

    async def stop(self) -> None:
        await self.mcu.run(lambda job: p.Stop(job=job), part=PART, timeout_s=2.0)

    def stop_now(self) -> None:
        """From any thread, without waiting (the e-stop callback)."""
        self.mcu.stop_now()

    async def reset_fault(self) -> None:
        """Clear the MCU's latched fault; ``CommandRejected('fault_active')`` while its cause persists."""
        await self.mcu.run(lambda job: p.ResetFault(job=job), part=PART, timeout_s=2.0)
