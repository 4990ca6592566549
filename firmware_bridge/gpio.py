"""The Pi's own GPIO lines through gpiozero: dice buttons, e-stop, lid switch, lamps, LED, buzzer, relay.

``TableGpio`` builds gpiozero devices from a ``PinMap`` on a pin factory chosen once from
configuration (``make_pin_factory``: ``lgpio`` on a Pi 5, ``rpigpio`` or ``lgpio`` on older
boards, ``mock`` in tests and on the simulated table). It is also the host interlock
(``motion_refusal``): no motion command is sent while the e-stop is pressed or the lid is open.

Pressing the e-stop drops the motor-power relay at once, in gpiozero's callback thread (a
safety action on the line itself), calls ``on_estop`` (which sends ``stop`` to the MCU without
waiting), and posts ``EStopChanged``. Otherwise the callbacks only post events through
``sink`` (the daemon passes one that hands them to its asyncio loop); they touch no state.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gpiozero import LED, Buzzer, DigitalInputDevice, DigitalOutputDevice
from gpiozero.exc import GPIOZeroError
from gpiozero.pins.mock import MockFactory

from firmware_bridge.errors import BridgeError, InterlockError
from firmware_bridge.pinmap import InputLine, PinMap

log = logging.getLogger(__name__)
PART = "gpio"
FACTORIES = ("mock", "lgpio", "rpigpio", "native", "auto")


@dataclass(frozen=True)
class DiceButton:
    """A seat's dice button was pressed."""
    seat: int
    at: float


@dataclass(frozen=True)
class EStopChanged:
    is_pressed: bool
    at: float


@dataclass(frozen=True)
class LidChanged:
    is_open: bool
    at: float


def is_pi5(model_path: str = "/proc/device-tree/model") -> bool:
    try:
        return "Raspberry Pi 5" in Path(model_path).read_text(errors="replace")
    except OSError:
        return False


def make_pin_factory(name: str):
    """The gpiozero pin factory for ``name`` (``mock``, ``lgpio``, ``rpigpio``, ``native``, ``auto``).

    ``auto``: lgpio on a Pi 5 (RPi.GPIO cannot drive its RP1 chip), else RPi.GPIO, else lgpio.
    Raises ``BridgeError`` naming the factory and why it cannot be used here.
    """
    if name not in FACTORIES:
        raise BridgeError(f"{PART}: pin_factory is {name!r}, must be one of {', '.join(FACTORIES)}")
    if name == "auto":
        order = ["lgpio"] if is_pi5() else ["rpigpio", "lgpio"]
        errors = []
        for candidate in order:
            try:
                return make_pin_factory(candidate)
            except BridgeError as err:
                errors.append(str(err))
        raise BridgeError(f"{PART}: no pin factory works here: {'; '.join(errors)}")
    try:
        if name == "mock":
            from gpiozero.pins.mock import MockFactory, MockPWMPin
            return MockFactory(pin_class=MockPWMPin)
        if name == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory
            return LGPIOFactory()
        if name == "rpigpio":
            if is_pi5():
                raise BridgeError(f"{PART}: pin_factory 'rpigpio' cannot drive a Raspberry Pi 5; use 'lgpio'")
            from gpiozero.pins.rpigpio import RPiGPIOFactory
            return RPiGPIOFactory()
        from gpiozero.pins.native import NativeFactory
        return NativeFactory()
    except (ImportError, GPIOZeroError, OSError, RuntimeError) as err:
        raise BridgeError(f"{PART}: pin factory {name!r} unavailable: {err}") from err


class _Input:
    """One input line with our meaning of 'active' (pressed / open) on top of gpiozero's."""

    def __init__(self, line: InputLine, factory) -> None:
        if line.pull == "none":
            self.dev = DigitalInputDevice(line.pin, pull_up=None, active_state=line.active == "high",
                                          bounce_time=line.bounce_s, pin_factory=factory)
            self.inverted = False
        else:
            self.dev = DigitalInputDevice(line.pin, pull_up=line.pull == "up", bounce_time=line.bounce_s,
                                          pin_factory=factory)
            # gpiozero: a pulled-up line is active when low, a pulled-down one when high
            gpiozero_active = "low" if line.pull == "up" else "high"
            self.inverted = gpiozero_active != line.active

    @property
    def is_active(self) -> bool:
        return bool(self.dev.is_active) != self.inverted

    def rest(self, line: InputLine) -> None:
        """Mock pins only: put the line at its inactive level, as the wired circuit holds it."""
        pin = self.dev.pin
        pin.drive_low() if line.active == "high" else pin.drive_high()

    def on_change(self, activated: Callable[[], None], deactivated: Callable[[], None]) -> None:
        if self.inverted:
            activated, deactivated = deactivated, activated
        self.dev.when_activated = activated
        self.dev.when_deactivated = deactivated

    def close(self) -> None:
        self.dev.close()


class TableGpio:
    """Every GPIO device of the table. ``sink`` receives ``DiceButton``, ``EStopChanged``, ``LidChanged``.

    ``pin_factory``: a gpiozero factory (``make_pin_factory``), or None for gpiozero's default.
    """

    def __init__(self, pinmap: PinMap, *, sink: Callable[[object], None] | None = None, pin_factory=None,
                 on_estop: Callable[[], None] | None = None, clock: Callable[[], float] = time.monotonic,
                 rest_inputs: bool | None = None) -> None:
        self.pinmap = pinmap
        self.sink = sink or (lambda ev: None)
        self.on_estop = on_estop
        self.clock = clock
        self._devices: list = []
        try:
            # relay first, and off: nothing may power the motors before we know the e-stop state
            self.relay = DigitalOutputDevice(pinmap.relay.pin, active_high=pinmap.relay.is_active_high,
                                             initial_value=False, pin_factory=pin_factory)
            self._devices.append(self.relay)
            self._estop = _Input(pinmap.estop, pin_factory)
            self._lid = _Input(pinmap.lid, pin_factory)
            self._buttons = [_Input(line, pin_factory) for line in pinmap.dice_buttons]
            self._devices += [self._estop, self._lid, *self._buttons]
            self.lamps = [LED(line.pin, active_high=line.is_active_high, pin_factory=pin_factory)
                          for line in pinmap.lamps]
            self.status_led = LED(pinmap.status_led.pin, active_high=pinmap.status_led.is_active_high,
                                  pin_factory=pin_factory)
            self.buzzer = Buzzer(pinmap.buzzer.pin, active_high=pinmap.buzzer.is_active_high,
                                 pin_factory=pin_factory)
            self._devices += [*self.lamps, self.status_led, self.buzzer]
        except (GPIOZeroError, OSError) as err:
            self.close()
            raise BridgeError(f"{PART}: cannot set up the pins of {pinmap.source or pinmap.board}: {err}") from err
        # Mock pins have no circuit behind them: a pulled-up NC e-stop line would read "pressed"
        # for ever. On the mock factory (the simulated table) the inputs start where the wiring
        # holds them at rest: e-stop released, lid shut, buttons up. Tests then drive them.
        if rest_inputs is None:
            rest_inputs = isinstance(self._estop.dev.pin_factory, MockFactory)
        if rest_inputs:
            for device, line in ((self._estop, pinmap.estop), (self._lid, pinmap.lid),
                                 *zip(self._buttons, pinmap.dice_buttons, strict=True)):
                device.rest(line)
        self._estop.on_change(self._estop_pressed, lambda: self._post(EStopChanged(False, self.clock())))
        self._lid.on_change(lambda: self._post(LidChanged(True, self.clock())),
                            lambda: self._post(LidChanged(False, self.clock())))
        for seat, button in enumerate(self._buttons):
            button.on_change(lambda seat=seat: self._post(DiceButton(seat, self.clock())), lambda: None)
        self._lock = threading.Lock()
        log.info("%s: %s on %s, e-stop %s, lid %s", PART, pinmap.board,
                 type(pin_factory).__name__ if pin_factory else "default factory",
                 "pressed" if self.estop_pressed else "released", "open" if self.lid_open else "closed")

    # ------------------------------------------------------------------ inputs
    @property
    def estop_pressed(self) -> bool:
        return self._estop.is_active

    @property
    def lid_open(self) -> bool:
        return self._lid.is_active

    def motion_refusal(self) -> str | None:
        """The interlock: None when motion is allowed, else why not."""
        if self.estop_pressed:
            return "e-stop pressed"
        if self.lid_open:
            return "lid open"
        return None

    def _estop_pressed(self) -> None:
        self.relay.off()                   # first, before anything that could fail or wait
        log.error("%s: e-stop pressed: motor power dropped", PART)
        if self.on_estop is not None:
            try:
                self.on_estop()
            except Exception:              # the relay is off already; report and go on
                log.exception("%s: sending stop after the e-stop failed", PART)
        self._post(EStopChanged(True, self.clock()))

    def _post(self, event: object) -> None:
        try:
            self.sink(event)
        except Exception:
            log.exception("%s: event sink failed on %r", PART, event)

    # ------------------------------------------------------------------ outputs
    @property
    def is_powered(self) -> bool:
        return bool(self.relay.value)

    def power_on(self) -> None:
        """Motor power on; ``InterlockError`` while the e-stop is pressed or the lid is open."""
        reason = self.motion_refusal()
        if reason:
            raise InterlockError(f"{PART}: motor power refused: {reason}")
        self.relay.on()

    def power_off(self) -> None:
        self.relay.off()

    def set_lamp(self, seat: int, is_on: bool, *, blink: bool = False) -> None:
        if not 0 <= seat < len(self.lamps):
            raise BridgeError(f"{PART}: lamp seat is {seat!r}, must be 0..{len(self.lamps) - 1}")
        lamp = self.lamps[seat]
        if is_on and blink:
            lamp.blink(on_time=0.3, off_time=0.3)
        elif is_on:
            lamp.on()
        else:
            lamp.off()

    def beep(self, seconds: float = 0.2) -> None:
        self.buzzer.blink(on_time=seconds, off_time=0.01, n=1)

    def status(self) -> dict[str, object]:
        return {"estop": self.estop_pressed, "lid_open": self.lid_open, "motor_power": self.is_powered,
                "lamps": [bool(lamp.value) for lamp in self.lamps], "board": self.pinmap.board}

    def close(self) -> None:
        for dev in reversed(self._devices):
            try:
                dev.close()
            except (GPIOZeroError, OSError):
                pass
        self._devices.clear()


def pin_factory_from_env(default: str) -> str:
    """Development override only, like ``GPIOZERO_PIN_FACTORY``: ``TABLE_PIN_FACTORY=mock``."""
    return os.environ.get("TABLE_PIN_FACTORY", default)
