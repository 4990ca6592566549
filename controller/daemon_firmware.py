"""The firmware part as the daemon builds it from its configuration.

The part itself is ``firmware_bridge.daemon_part.TablePart`` (MCU link + table parts
+ GPIO, translating ``controller.events`` and the machine cycle's commands both ways). Here:

- ``[firmware] port``: a device path (``/dev/ttyAMA0``), or ``sim`` to start the simulated MCU
  process on a pty (``tablectl sim-mcu``) and drive it over the same serial link;
- ``[gpio] pin_factory`` / ``pinmap``: the Pi's lines (``firmware_bridge.gpio.TableGpio``). On
  the simulated table the mock pins are set where a healthy table's switches rest (e-stop
  released, lid shut, buttons up);
- at start the switches' state is posted (``EStop``, ``Lid``) so the cycle knows it before the
  first change. The motor-power relay is ``TablePart``'s: on at start only with the e-stop
  released, the lid shut and the MCU identified without a latched fault (``power_refusal``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from controller import events as ev
from controller.config import Config, ConfigError
from firmware_bridge.daemon_part import TablePart
from firmware_bridge.errors import BridgeError

log = logging.getLogger(__name__)


class FirmwarePart(TablePart):
    """``TablePart`` plus the switches' state at start."""

    async def start(self, post: Callable[..., None]) -> None:
        await super().start(post)
        if self.gpio is not None:
            now = time.monotonic()
            post("gpio", ev.EStop(is_pressed=self.gpio.estop_pressed, now=now))
            post("gpio", ev.Lid(is_open=self.gpio.lid_open, now=now))

    def status(self) -> dict[str, Any]:
        out = super().status()
        out["simulated_mcu"] = self.sim is not None
        out["sim_pid"] = self.sim.proc.pid if self.sim is not None else None
        return out


def make_gpio(pin_factory: str, pinmap: str = "", *, lines: str = "") -> Any:
    """The Pi's lines on the configured pin factory; mock pins rest in the safe state.

    ``lines``: mock pins only, a unix socket through which the simulated table drives them
    (``firmware_bridge.gpio_lines.LineServer``, closed with the GPIO)."""
    from firmware_bridge.gpio import TableGpio, make_pin_factory
    from firmware_bridge.pinmap import load_pinmap
    if lines and pin_factory != "mock":
        raise ConfigError(f"[gpio] lines driven from a socket need the mock pin factory, not {pin_factory!r}")
    try:
        pins = load_pinmap(pinmap or None)
        factory = make_pin_factory(pin_factory)
        gpio = TableGpio(pins, pin_factory=factory)
    except (BridgeError, OSError, ValueError) as err:
        raise ConfigError(f"[gpio] {err}") from err
    if type(factory).__name__ == "MockFactory":
        # mock pins start low, which reads as e-stop pressed and lid open on this board
        for line in (pins.estop, pins.lid, *pins.dice_buttons):
            pin = factory.pin(line.pin)
            pin.drive_low() if line.active == "high" else pin.drive_high()
        if lines:
            from firmware_bridge.gpio_lines import LineServer
            server = LineServer(lines, pins, factory)
            close = gpio.close

            def close_both() -> None:
                server.close()
                close()
            gpio.close = close_both
            gpio.line_server = server
    return gpio


def build_firmware(cfg: Config) -> FirmwarePart | None:
    """The firmware part for ``[firmware] port`` (None when ``off``)."""
    if cfg.firmware.port == "off":
        return None
    gpio = make_gpio(cfg.gpio.pin_factory, cfg.gpio.pinmap)
    options: dict[str, Any] = {"reply_timeout_s": cfg.firmware.timeout_s, "baudrate": cfg.firmware.baudrate}
    try:
        if cfg.firmware.port == "sim":
            scale = 0.01 if cfg.game.speed <= 0 else max(0.001, min(1.0, 0.05 / cfg.game.speed))
            return FirmwarePart.with_simulator(time_scale=scale, gpio=gpio, **options)
        return FirmwarePart(cfg.firmware.port, gpio=gpio, **options)
    except (BridgeError, OSError, RuntimeError, ValueError) as err:
        gpio.close()
        raise ConfigError(f"[firmware] port {cfg.firmware.port!r}: {err}") from err
