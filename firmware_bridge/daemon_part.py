"""The table hardware as one daemon part: MCU link + parts + GPIO, speaking ``controller.events``.

This is the one module of ``firmware_bridge`` that knows the controller's event vocabulary
(``controller.events``) and the machine cycle's commands (``controller.cycle``); it translates
both ways and holds no game state:

- MCU events → ``LiftDone(counts)`` (tiles per wall), ``StackReady(counts)`` (tiles per lane),
  ``DiceResult(seat, dice)``, ``CentreDone(is_open)``, ``McuFault(code, detail)``,
  ``Button(seat, action)`` (the seat buttons on the rail);
  link → ``LinkLost(reason)`` / ``LinkRestored``;
- GPIO → ``Button(seat, "dice")``, ``EStop(is_pressed)``, ``Lid(is_open)``;
- commands ← the cycle's ``Centre``, ``LiftWalls``, ``ShuffleSet``, ``StopMotors``,
  ``MotorPower``, ``ResetFault``, and the game's ``RollDice``, ``LightButton``, ``Show``
  (``data["text"]`` on seat ``data["seat"]`` or all, ``data["scores"]`` one per seat display). The game's own ``Lift``/``Shuffle`` are
  requests for the cycle and are never carried out here: every motion goes through the cycle,
  which asks for one motion of a part at a time (the MCU refuses a second one ``busy``).

A command that fails is reported as ``McuFault`` (``rejected``, ``timeout``, ``interlock``)
so the cycle halts with its reason; the part never raises into the loop.

Motor-power relay (on the Pi's GPIO; ``power_refusal`` is the one rule):

- it is switched **on** only here, and only while the e-stop is released, the lid is shut, the
  MCU has identified itself and it reports no latched fault: once at ``start`` (boot) if all
  of that holds, and afterwards only on the cycle's ``MotorPower(on)`` (sent with the operator's
  ``Reset``), which first waits for the ``ResetFault`` sent with it;
- it is dropped **at once** by the e-stop (``TableGpio``, in gpiozero's callback thread, before
  anything else), and by ``StopMotors``/``MotorPower(off)`` (every halt of the cycle);
- it is never switched on again by itself: after an e-stop, a fault, or the link lost, the
  cycle is halted and only the operator's reset brings the power back.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import time
from collections.abc import Callable
from typing import Any

from controller import cycle as cy
from controller import events as ev
from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, CommandRejected, InterlockError, LinkTimeout, TableFault
from firmware_bridge.gpio import DiceButton, EStopChanged, LidChanged, TableGpio
from firmware_bridge.link import LinkLost, LinkUp, McuEvent
from firmware_bridge.table import SerialTable

log = logging.getLogger(__name__)
SOURCE = "firmware"


class TablePart:
    """``start(post)``, ``stop()``, ``handle(command) -> bool``, ``status()`` as the daemon expects."""

    name = "firmware"
    runs_machine_cycle = True      # it carries out controller.cycle's commands (the daemon shows the cycle)

    def __init__(self, port: str, *, gpio: TableGpio | None = None,
                 timeouts_s: dict[str, float] | None = None, sim: Any = None, **link_options: Any) -> None:
        self.port = port
        self.gpio = gpio
        self.timeouts_s = {"lift": 30.0, "centre": 10.0, "shuffle": 90.0, "dice": 10.0, **(timeouts_s or {})}
        self.table = SerialTable.over(port, interlock=gpio, on_event=self._on_mcu, **link_options)
        self.sim = sim
        self._scratch: str | None = None
        self._post: Callable[..., None] | None = None
        self._tasks: set[asyncio.Task] = set()
        self._centre_target: dict[int, bool] = {}     # centre job id -> the position asked for
        self._display_lock = asyncio.Lock()            # display texts land in the order given
        self.identify: p.Identify | None = None
        self.last_error = ""
        self.latched_fault = ""                        # the MCU's latched fault, "" when none
        self._reset_task: asyncio.Task | None = None
        self._rolling: asyncio.Task | None = None       # the dice roll under way, until its result comes

    @classmethod
    def with_simulator(cls, *, workdir: str | None = None, time_scale: float = 1.0, sim_args: list[str] | None = None,
                       gpio: TableGpio | None = None, **options: Any) -> TablePart:
        """The embedded default: start the simulated MCU process on a pty (by command line) and drive it."""
        from firmware_bridge.mcu_process import McuProcess
        from firmware_bridge.scratch import make_scratch  # earlier runs' leftovers removed first
        scratch = None if workdir else str(make_scratch("sim"))
        sim = McuProcess.start(workdir or scratch, time_scale=time_scale, extra=sim_args)
        part = cls(sim.port, gpio=gpio, sim=sim, **options)
        part._scratch = scratch     # our own folder: removed again at stop
        return part

    # ------------------------------------------------------------------ lifecycle
    async def start(self, post: Callable[..., None]) -> None:
        self._post = post
        if self.gpio is not None:
            self.gpio.sink = self._on_gpio
            self.gpio.on_estop = self.table.stopper.stop_now
        try:
            self.identify = await self.table.start(timeout_s=self.timeouts_s.get("start", 5.0))
            self.latched_fault = self._fault_name(self.identify.fault)
        except BridgeError as err:
            # the link keeps trying in the background; the daemon runs and shows it
            self.last_error = str(err)
            log.error("%s: %s", self.name, err)
        if self.gpio is not None:
            self._power_on("boot")

    # ------------------------------------------------------------------ motor power
    def power_refusal(self) -> str | None:
        """Why the motor-power relay may not be switched on now, or None when it may."""
        if self.gpio is None:
            return "no GPIO configured"
        reason = self.gpio.motion_refusal()          # e-stop pressed / lid open
        if reason:
            return reason
        if self.identify is None or not self.table.mcu.link.is_up:
            return "MCU not identified"
        if self.latched_fault:
            return f"MCU fault {self.latched_fault} latched"
        return None

    def _power_on(self, why: str) -> bool:
        """Relay on if ``power_refusal`` allows; else leave it off and say why (logged, in status)."""
        assert self.gpio is not None
        reason = self.power_refusal()
        if reason is None:
            try:
                self.gpio.power_on()        # checks e-stop and lid itself, at the last moment
            except BridgeError as err:
                reason = str(err)
        if reason is not None:
            self.gpio.power_off()
            self.last_error = f"motor power stays off ({why}): {reason}"
            log.warning("%s: %s", self.name, self.last_error)
            return False
        log.info("%s: motor power on (%s)", self.name, why)
        return True

    async def _power_on_after_reset(self) -> None:
        task = self._reset_task
        if task is not None:
            await asyncio.wait({task})        # its outcome is reported by _run; here only the order
        if self.gpio is not None:
            self._power_on("operator reset")

    async def _reset_fault(self) -> None:
        await self.table.stopper.reset_fault()
        self.latched_fault = ""

    @staticmethod
    def _fault_name(code: int) -> str:
        return p.FAULT_NAMES.get(code, str(code)) if code else ""

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self.table.close()
        if self.gpio is not None:
            self.gpio.close()
        if self.sim is not None:
            self.sim.stop()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    def status(self) -> dict[str, Any]:
        ident = self.identify
        out: dict[str, Any] = {"port": self.port, "link": "up" if self.table.mcu.link.is_up else "down",
                               "last_error": self.last_error}
        if ident is not None:
            out.update(model=ident.model, firmware=ident.firmware_version, tiles=ident.tiles, walls=ident.walls,
                       capabilities=sorted(ident.capabilities))
        if self.gpio is not None:
            out["gpio"] = self.gpio.status()
            out["motor_power_refusal"] = self.power_refusal()
        out["latched_fault"] = self.latched_fault
        return out

    # ------------------------------------------------------------------ inputs → events
    def _emit(self, event: ev.Event) -> None:
        if self._post is not None:
            self._post(SOURCE, event)

    def _on_mcu(self, item: object) -> None:
        """Runs in the daemon's loop (Mcu hands events over with call_soon_threadsafe)."""
        now = time.monotonic()
        if isinstance(item, LinkUp):
            self.identify = item.identify
            self.latched_fault = self._fault_name(item.identify.fault)
            self._emit(ev.LinkRestored(now=now))
            if item.identify.fault:
                self._emit(ev.McuFault(code=self.latched_fault, detail="latched when the link came up", now=now))
        elif isinstance(item, LinkLost):
            self._emit(ev.LinkLost(reason=item.reason, now=now))
        elif isinstance(item, McuEvent):
            msg = item.msg
            walls = self.identify.walls if self.identify else 4
            if isinstance(msg, p.LiftDone):
                self._emit(ev.LiftDone(counts=tuple(msg.tiles[:walls]), now=now))
            elif isinstance(msg, p.ShuffleDone):
                self._emit(ev.StackReady(counts=tuple(msg.lanes), now=now))
            elif isinstance(msg, p.DiceResult):
                # the MCU's dice are free again: a press the game answers with the next roll (a Hong
                # Kong break rolls twice) may come before the roll's own task has wound up
                self._rolling = None
                self._emit(ev.DiceResult(seat=msg.seat, dice=tuple(msg.values), now=now))
            elif isinstance(msg, p.Done) and msg.cmd == p.Centre.TYPE:
                status = self._centre_target.pop(msg.job, None)
                if status is not None:
                    self._emit(cy.CentreDone(is_open=status, now=now))
            elif isinstance(msg, p.SeatButton):
                self._emit(ev.Button(seat=msg.seat, action=msg.action_name, now=now))
            elif isinstance(msg, p.Fault):
                # a latched fault ends every other running job with a fault event of its own code
                # (PROTOCOL.md section 6): those are the same fault, already reported once
                again = bool(msg.latched and msg.job and msg.fault_name == self.latched_fault)
                if msg.latched:
                    self.latched_fault = msg.fault_name
                if (msg.fault_name != "aborted" or not msg.job) and not again:
                    self._emit(ev.McuFault(code=msg.fault_name, detail=msg.describe(), now=now))
            elif isinstance(msg, p.Boot):
                log.warning("%s: MCU started (boot id %08x, cause %d)", self.name, msg.boot_id, msg.cause)

    def _on_gpio(self, item: object) -> None:
        """Runs in gpiozero's thread: only posts (the daemon's post is thread-safe)."""
        if isinstance(item, DiceButton):
            self._emit(ev.Button(seat=item.seat, action="dice", now=item.at))
        elif isinstance(item, EStopChanged):
            self._emit(ev.EStop(is_pressed=item.is_pressed, now=item.at))
        elif isinstance(item, LidChanged):
            self._emit(ev.Lid(is_open=item.is_open, now=item.at))

    # ------------------------------------------------------------------ commands
    def handle(self, command: ev.Command) -> bool:
        t = self.table
        job: Callable[[], Any] | None = None
        if isinstance(command, cy.StopMotors):
            t.stopper.stop_now()
            if self.gpio is not None:
                self.gpio.power_off()
            return True
        if isinstance(command, cy.MotorPower):
            if self.gpio is None:
                return True
            if not command.is_on:
                self.gpio.power_off()
                return True
            job = self._power_on_after_reset
        elif isinstance(command, cy.ResetFault):
            job = self._reset_fault
        elif isinstance(command, cy.Centre):
            job = lambda: self._centre(command.is_open)  # noqa: E731
        elif isinstance(command, cy.LiftWalls):
            job = lambda: t.wall_lift.lift("all", timeout_s=self.timeouts_s["lift"])  # noqa: E731
        elif isinstance(command, cy.ShuffleSet):
            job = lambda: t.shuffler.shuffle(command.tile_set, timeout_s=self.timeouts_s["shuffle"])  # noqa: E731
        elif isinstance(command, ev.RollDice):
            if self._rolling is not None and not self._rolling.done():
                # a second press while the dice still roll (about 1.5 s): the MCU would refuse the
                # roll busy and the table would halt on it; the roll under way answers both presses
                log.info("%s: the dice are rolling; the press of seat %d adds nothing", self.name, command.seat)
                return True
            job = lambda: t.dice.roll(command.count, command.seat, timeout_s=self.timeouts_s["dice"])  # noqa: E731
        elif isinstance(command, ev.LightButton):
            if self.gpio is not None and command.action == "dice":
                self.gpio.set_lamp(command.seat, command.is_on, blink=command.is_on)
                return True
            return False
        elif isinstance(command, ev.Show) and (isinstance(command.data.get("text"), str)
                                               or isinstance(command.data.get("scores"), list)):
            job = lambda: self._show(command)  # noqa: E731
        if job is None:
            return False
        task = asyncio.get_running_loop().create_task(self._run(command, job))
        if isinstance(command, cy.ResetFault):
            self._reset_task = task
        elif isinstance(command, ev.RollDice):
            self._rolling = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _centre(self, is_open: bool) -> None:
        # the completion is reported as CentreDone by _on_mcu (remembered by job id)
        mcu = self.table.mcu

        def make(job: int) -> p.Centre:
            self._centre_target[job] = is_open
            return p.Centre(job=job, open=int(is_open))
        await mcu.run(make, part="centre", timeout_s=self.timeouts_s["centre"])

    async def _show(self, command: ev.Show) -> None:
        async with self._display_lock:
            await self._show_now(command.data)

    async def _show_now(self, data: dict) -> None:
        if isinstance(data.get("scores"), list):
            for seat, score in enumerate(data["scores"][:4]):
                await self.table.display.show(seat, _printable(str(score)))
        else:
            seat = data.get("seat")
            await self.table.display.show(seat if isinstance(seat, int) else None, _printable(data["text"]))

    async def _run(self, command: ev.Command, job: Callable[[], Any]) -> None:
        now = time.monotonic
        try:
            await job()
        except TableFault as err:
            log.warning("%s: %s", self.name, err)       # the fault event itself reaches the cycle
        except InterlockError as err:
            log.warning("%s: %s", self.name, err)
            self._emit(ev.McuFault(code="interlock", detail=str(err), now=now()))
        except CommandRejected as err:
            log.warning("%s: %s", self.name, err)
            if err.reason != "halted":
                self._emit(ev.McuFault(code="rejected", detail=str(err), now=now()))
        except LinkTimeout as err:
            log.warning("%s: %s", self.name, err)
            self._emit(ev.McuFault(code="timeout", detail=str(err), now=now()))
        except BridgeError as err:
            log.warning("%s: %s failed: %s", self.name, command.KIND, err)
            self._emit(ev.McuFault(code="bridge", detail=str(err), now=now()))


def _printable(text: str) -> str:
    """What a seat display can show: 16 printable ASCII characters."""
    return "".join(c if 0x20 <= ord(c) <= 0x7E else "?" for c in text)[:16]
