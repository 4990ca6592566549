"""The firmware part: the table MCU over the serial link and the Pi's GPIO lines.

``FirmwarePart`` carries out the machine cycle's commands (``controller.cycle``: centre
opening, lift, shuffle, stop, motor power, fault reset) and the game's dice roll as MCU jobs
through ``firmware_bridge.table.SerialTable``, and posts what came of them as events
(``CentreDone``, ``LiftDone``, ``StackReady``, ``DiceResult``); MCU faults and link changes
are posted as ``McuFault`` / ``LinkLost`` / ``LinkRestored``. With ``gpio`` it also owns the
Pi's lines (``firmware_bridge.gpio.TableGpio``: dice buttons, e-stop, lid, lamps, relay),
which are the host interlock for every motion.

``[firmware] port`` is a device path (``/dev/ttyAMA0``) or, on the simulated table, the pty
of ``tablectl sim-mcu`` (``port = "sim"`` starts one). Jobs run as tasks in the daemon's
loop; a job that fails is logged and, when the MCU reports a fault, the fault event halts the
cycle.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.config import Config, ConfigError
from firmware_bridge.errors import BridgeError

log = logging.getLogger(__name__)


class FirmwarePart:
    name = "firmware"
    runs_machine_cycle = True

    def __init__(self, port: str, *, gpio_factory: str | None = "mock", pinmap: str = "",
                 start_sim: bool = False, sim_time_scale: float = 0.01, timeout_s: float = 2.0) -> None:
        self.port = port
        self.gpio_factory = gpio_factory
        self.pinmap = pinmap
        self.start_sim = start_sim
        self.sim_time_scale = sim_time_scale
        self.timeout_s = timeout_s
        self.sim: Any = None
        self.table: Any = None
        self.gpio: Any = None
        self._post: Callable[..., None] | None = None
        self._tasks: set[asyncio.Task] = set()
        self.last_error = ""
        self.jobs_done = 0

    # ------------------------------------------------------------------ start / stop
    async def start(self, post: Callable[..., None]) -> None:
        from firmware_bridge.table import SerialTable
        self._post = post
        loop = asyncio.get_running_loop()
        if self.start_sim:
            from hardware.sim.mcu_process import SimMcuProcess
            workdir = Path(tempfile.mkdtemp(prefix="jt-mcu-"))
            self.sim = await asyncio.to_thread(SimMcuProcess.start, workdir, time_scale=self.sim_time_scale)
            self.port = self.sim.port
        if self.gpio_factory:
            self.gpio = self._make_gpio(lambda item: loop.call_soon_threadsafe(self._on_gpio, item))
        self.table = SerialTable.over(self.port, interlock=self.gpio, on_event=self._on_link_event)
        await self.table.start(timeout_s=max(3.0, self.timeout_s))
        if self.gpio is not None:
            # the cycle learns the switches' state now; later changes arrive from the callbacks
            now = time.monotonic()
            self._post("gpio", ev.EStop(is_pressed=self.gpio.estop_pressed, now=now))
            self._post("gpio", ev.Lid(is_open=self.gpio.lid_open, now=now))
            if not self.gpio.estop_pressed:
                self.gpio.power_on()
        self._emit(ev.LinkRestored(now=time.monotonic()))

    def _make_gpio(self, sink: Callable[[object], None]) -> Any:
        from firmware_bridge.gpio import TableGpio, make_pin_factory
        from firmware_bridge.pinmap import load_pinmap
        try:
            pinmap = load_pinmap(self.pinmap or None)
            factory = make_pin_factory(self.gpio_factory)
        except (BridgeError, OSError, ValueError) as err:
            raise ConfigError(f"[gpio] {err}") from err
        gpio = TableGpio(pinmap, sink=sink, pin_factory=factory, on_estop=self._stop_now)
        if type(factory).__name__ == "MockFactory":
            # the simulated table's switches rest where a healthy table's do: e-stop released,
            # lid shut, buttons up (mock pins start low, which reads as pressed / open)
            for line in (pinmap.estop, pinmap.lid, *pinmap.dice_buttons):
                pin = factory.pin(line.pin)
                pin.drive_low() if line.active == "high" else pin.drive_high()
        return gpio

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.table is not None:
            try:
                await self.table.close()
            except (BridgeError, OSError) as err:
                log.warning("firmware: close: %s", err)
        if self.gpio is not None:
            self.gpio.close()
        if self.sim is not None:
            await asyncio.to_thread(self.sim.stop)

    # ------------------------------------------------------------------ events in
    def _emit(self, event: ev.Event) -> None:
        assert self._post is not None
        self._post(self.name, event)

    def _on_gpio(self, item: object) -> None:
        from firmware_bridge.gpio import DiceButton, EStopChanged, LidChanged
        if isinstance(item, DiceButton):
            self._post("gpio", ev.Button(seat=item.seat, action="dice", now=item.at))
        elif isinstance(item, EStopChanged):
            self._post("gpio", ev.EStop(is_pressed=item.is_pressed, now=item.at))
        elif isinstance(item, LidChanged):
            self._post("gpio", ev.Lid(is_open=item.is_open, now=item.at))

    def _on_link_event(self, item: object) -> None:
        from firmware_bridge import protocol as p
        from firmware_bridge.link import LinkLost, LinkUp, McuEvent
        now = time.monotonic()
        if isinstance(item, LinkLost):
            self._emit(ev.LinkLost(reason=item.reason, now=now))
        elif isinstance(item, LinkUp) and item.rebooted:
            self._emit(ev.LinkRestored(now=now))
        elif isinstance(item, McuEvent) and isinstance(item.msg, p.Fault):
            self._emit(ev.McuFault(code=item.msg.fault_name, detail=item.msg.describe(), now=now))

    def _stop_now(self) -> None:
        """The e-stop line's callback (any thread): stop the MCU without waiting."""
        if self.table is not None:
            self.table.stopper.stop_now()

    # ------------------------------------------------------------------ commands out
    def handle(self, command: ev.Command) -> bool:
        from controller import cycle as C
        if isinstance(command, C.Centre):
            self._spawn(self._centre(command.is_open))
        elif isinstance(command, C.LiftWalls):
            self._spawn(self._lift())
        elif isinstance(command, C.ShuffleSet):
            self._spawn(self._shuffle(command.tile_set))
        elif isinstance(command, C.StopMotors):
            self._stop_now()
        elif isinstance(command, C.MotorPower):
            if self.gpio is not None:
                self.gpio.power_on() if command.is_on else self.gpio.power_off()
        elif isinstance(command, C.ResetFault):
            self._spawn(self._job("reset_fault", self.table.stopper.reset_fault()))
        elif isinstance(command, ev.RollDice):
            self._spawn(self._roll(command.seat, command.count))
        elif isinstance(command, ev.LightButton):
            if self.gpio is not None and command.action == "dice":
                self.gpio.set_lamp(command.seat, command.is_on)
        else:
            return False
        return True

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _job(self, what: str, coro) -> tuple[bool, Any]:
        try:
            result = await coro
        except (BridgeError, OSError) as err:
            # an MCU fault arrives as its own event (McuFault) and halts the cycle
            self.last_error = f"{what}: {err}"
            log.warning("firmware: %s failed: %s", what, err)
            return False, None
        self.jobs_done += 1
        return True, result

    async def _centre(self, is_open: bool) -> None:
        from controller.cycle import CentreDone
        part = self.table.centre
        ok, _ = await self._job("centre", part.open() if is_open else part.close())
        if ok:
            self._emit(CentreDone(is_open=is_open, now=time.monotonic()))

    async def _lift(self) -> None:
        ok, result = await self._job("lift", self.table.wall_lift.lift("all"))
        if ok:
            self._emit(ev.LiftDone(counts=tuple(result.tiles), now=time.monotonic()))

    async def _shuffle(self, tile_set: int) -> None:
        ok, result = await self._job("shuffle", self.table.shuffler.shuffle(tile_set))
        if ok:
            self._emit(ev.StackReady(counts=tuple(result.lanes), now=time.monotonic()))

    async def _roll(self, seat: int, count: int) -> None:
        ok, dice = await self._job("dice", self.table.dice.roll(count, seat))
        if ok:
            self._emit(ev.DiceResult(seat=seat, dice=tuple(dice), now=time.monotonic()))

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"port": self.port, "jobs_done": self.jobs_done, "last_error": self.last_error,
                               "simulated_mcu": self.sim is not None,
                               "sim_pid": self.sim.proc.pid if self.sim is not None else None}
        if self.table is not None:
            out["link_up"] = self.table.mcu.link.is_up
        if self.gpio is not None:
            out["gpio"] = self.gpio.status()
        return out


def build_firmware(cfg: Config) -> FirmwarePart | None:
    """The firmware part for ``[firmware] port`` (None when ``off``)."""
    if cfg.firmware.port == "off":
        return None
    start_sim = cfg.firmware.port == "sim"
    scale = 0.01 if cfg.game.speed <= 0 else max(0.001, min(1.0, 0.05 / cfg.game.speed))
    return FirmwarePart("" if start_sim else cfg.firmware.port, gpio_factory=cfg.gpio.pin_factory,
                        pinmap=cfg.gpio.pinmap, start_sim=start_sim, sim_time_scale=scale,
                        timeout_s=cfg.firmware.timeout_s)
