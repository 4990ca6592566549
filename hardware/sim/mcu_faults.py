"""Line faults for the simulated MCU: drop, corrupt, duplicate and delay bytes, with a seed.

One ``ByteFaults`` per direction sits between the pty and the simulated firmware, so the
firmware logic sees exactly what a real MCU would see on a noisy UART, and the host sees
what a real host would. Pure apart from its own seeded ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class LineFaultRates:
    """Per-byte probabilities (0..1) and the delay (ms) given to a delayed chunk."""

    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay_rate: float = 0.0
    delay_ms: float = 0.0

    def check(self) -> None:
        for name in ("drop", "corrupt", "duplicate", "delay_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"sim-mcu: line fault '{name}' is {value}, must be 0..1")
        if not 0.0 <= self.delay_ms <= 10_000:
            raise ValueError(f"sim-mcu: line fault 'delay_ms' is {self.delay_ms}, must be 0..10000")

    @property
    def is_clean(self) -> bool:
        return not (self.drop or self.corrupt or self.duplicate or self.delay_rate)


class ByteFaults:
    """Applies ``LineFaultRates`` to a byte stream; counts what it did."""

    def __init__(self, rates: LineFaultRates, seed: int) -> None:
        rates.check()
        self.rates = rates
        self._rng = random.Random(seed)
        self.dropped = 0
        self.corrupted = 0
        self.duplicated = 0
        self.delayed = 0

    def apply(self, data: bytes) -> tuple[bytes, float]:
        """Return the bytes that get through and a delay in seconds (0: deliver now)."""
        r = self.rates
        if r.is_clean or not data:
            return data, 0.0
        rng = self._rng
        out = bytearray()
        for b in data:
            if r.drop and rng.random() < r.drop:
                self.dropped += 1
                continue
            if r.corrupt and rng.random() < r.corrupt:
                b ^= 1 << rng.randrange(8)
                self.corrupted += 1
            out.append(b)
            if r.duplicate and rng.random() < r.duplicate:
                out.append(b)
                self.duplicated += 1
        delay = 0.0
        if r.delay_rate and rng.random() < r.delay_rate:
            delay = r.delay_ms / 1000.0
            self.delayed += 1
        return bytes(out), delay

    def counts(self) -> dict[str, int]:
        return {"dropped": self.dropped, "corrupted": self.corrupted,
                "duplicated": self.duplicated, "delayed": self.delayed}
