"""The whole machine path as the daemon runs it: simulator process → link → TablePart →
controller.events → machine cycle → commands → TablePart → simulator. Each fault the MCU
reports ends as ``halted`` with its reason."""

from __future__ import annotations

import asyncio

import pytest

from controller import cycle as C
from controller import events as ev
from firmware_bridge.daemon_part import TablePart
from firmware_bridge.gpio import TableGpio
from firmware_bridge.pinmap import load_pinmap


class MiniDaemon:
    """The daemon's loop in miniature: events in, cycle.step, commands out to the part."""

    def __init__(self, part: TablePart) -> None:
        self.part = part
        self.state = C.initial_state()
        self.events: list[ev.Event] = []
        self.commands: list[ev.Command] = []
        self.changed = asyncio.Event()

    def post(self, source: str, event: ev.Event, src_seq: int | None = None) -> None:
        loop = self.loop
        loop.call_soon_threadsafe(self.accept, event)

    def accept(self, event: ev.Event | ev.Command) -> None:
        if isinstance(event, ev.Event):
            self.events.append(event)
        self.state, cmds = C.step(self.state, event, 0.0)
        for cmd in cmds:
            self.commands.append(cmd)
            self.part.handle(cmd)
        self.changed.set()

    async def until(self, predicate, timeout_s: float = 15.0) -> None:
        async def wait():
            while not predicate():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(wait(), timeout_s)

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.part.start(self.post)


def run(coro, timeout_s: float = 40.0):
    async def bounded():
        return await asyncio.wait_for(coro, timeout_s)
    return asyncio.run(bounded())


def test_two_hands_through_the_cycle(sim_mcu):
    sim_mcu.control("dice", values=[[2, 6], [4, 4]])

    async def go():
        d = MiniDaemon(TablePart(sim_mcu.port))
        await d.start()
        try:
            d.accept(ev.StartGame(ruleset="tenhou"))
            await d.until(lambda: d.state.state == "ready")
            d.part.handle(ev.RollDice(seat=0, count=2))              # the game's command
            await d.until(lambda: d.state.state == "playing")
            await d.until(lambda: any(isinstance(e, ev.StackReady) for e in d.events))
            d.accept(ev.Lift())                                       # the game asks for the next hand
            await d.until(lambda: d.state.state == "receiving" and sim_mcu.state()["centre_open"], 10)
            d.accept(ev.Button(seat=1, action="ok"))                  # tiles pushed in
            await d.until(lambda: d.state.state == "ready")
            first_counts = [e.counts for e in d.events if isinstance(e, ev.LiftDone)]
            dice = [e.dice for e in d.events if isinstance(e, ev.DiceResult)]
            sets = sim_mcu.state()["sets"]
            return d.state, first_counts, dice, [c.KIND for c in d.commands], sets
        finally:
            await d.part.stop()

    state, counts, dice, kinds, sets = run(go())
    assert counts == [(34, 34, 34, 34), (34, 34, 34, 34)] and dice == [(2, 6)]
    assert kinds == ["machine.centre", "machine.lift", "machine.shuffle", "machine.centre", "machine.centre",
                     "machine.lift", "machine.shuffle"]
    assert (state.on_table, state.shuffling) == (1, 0)
    assert sets == ["shuffling", "table"]
    assert sim_mcu.state()["sets"] == ["hopper", "table"]       # the part's stop said bye: shuffle aborted


FAULTS = [("head_jam", "shuffle"), ("chain_rod_stuck", "shuffle"), ("lane_count", "shuffle"),
          ("overheat", "shuffle"), ("shuffle_timeout", "shuffle"), ("limit_switch_stuck", "lift"),
          ("lift_stall", "lift"), ("lid_open", "lift"), ("centre_jam", "centre")]


@pytest.mark.parametrize("fault, part", FAULTS, ids=[f for f, _ in FAULTS])
def test_each_mcu_fault_surfaces_as_halted_with_its_reason(sim_mcu, fault, part):
    sim_mcu.control("inject", fault=fault)

    async def go():
        d = MiniDaemon(TablePart(sim_mcu.port))
        await d.start()
        try:
            d.accept(ev.StartGame(ruleset="tenhou"))     # centre already closed: it does not move
            if part == "centre":
                await d.until(lambda: d.state.state == "ready")
                d.accept(ev.Lift())                       # next hand: the opening opens, and jams
            await d.until(lambda: d.state.state == "halted")
            return d.state
        finally:
            await d.part.stop()

    state = run(go())
    assert state.reason.startswith(f"MCU fault {fault}: {fault} (")
    st = sim_mcu.state()
    assert st["fault"] == fault and not st["motors_running"]


def test_dice_dead_halts(sim_mcu):
    sim_mcu.control("inject", fault="dice_dead")

    async def go():
        d = MiniDaemon(TablePart(sim_mcu.port))
        await d.start()
        try:
            d.accept(ev.StartGame(ruleset="tenhou"))
            await d.until(lambda: d.state.state == "ready")
            d.part.handle(ev.RollDice(seat=0, count=2))
            await d.until(lambda: d.state.state == "halted")
            return d.state
        finally:
            await d.part.stop()

    assert run(go()).reason.startswith("MCU fault dice_dead")


def test_link_lost_and_operator_reset(sim_mcu):
    async def go():
        d = MiniDaemon(TablePart(sim_mcu.port, reopen_s=0.05))
        await d.start()
        try:
            sim_mcu.control("replug", down_s=0.3)
            await d.until(lambda: d.state.state == "halted")
            reason = d.state.reason
            await d.until(lambda: d.state.link_up)
            d.accept(ev.Reset(reason="operator"))
            return reason, d.state.state
        finally:
            await d.part.stop()

    reason, after = run(go())
    assert reason.startswith("MCU link lost: ") and after == "idle"   # read or write failed: either end first


def test_gpio_inputs_reach_the_cycle(mock_factory, sim_mcu):
    async def go():
        gpio = TableGpio(load_pinmap())
        d = MiniDaemon(TablePart(sim_mcu.port, gpio=gpio))
        await d.start()
        try:
            d.accept(ev.StartGame(ruleset="tenhou"))
            await d.until(lambda: d.state.state == "ready")
            gpio.power_on()
            mock_factory.pin(5).drive_low()                 # seat 0's dice button (GPIO)
            await d.until(lambda: d.state.state == "dice")
            sim_mcu.control("press", seat=2, action="tsumo")  # a rail button (MCU)
            await d.until(lambda: any(isinstance(e, ev.Button) and e.action == "tsumo" for e in d.events))
            mock_factory.pin(17).drive_high()               # e-stop
            await d.until(lambda: d.state.state == "halted")
            return d.state, mock_factory.pin(23).state
        finally:
            await d.part.stop()

    state, relay = run(go())
    assert state.reason == "emergency stop pressed" and relay == 0
    assert not sim_mcu.state()["motors_running"]


def test_lamps_and_displays(mock_factory, sim_mcu):
    async def go():
        gpio = TableGpio(load_pinmap())
        d = MiniDaemon(TablePart(sim_mcu.port, gpio=gpio))
        await d.start()
        try:
            assert d.part.handle(ev.LightButton(seat=2, action="dice"))
            lamp = mock_factory.pin(20).state
            assert d.part.handle(ev.Show(what="scores", data={"scores": [25000, 24000, 26000, 25000]}))
            assert d.part.handle(ev.Show(what="message", data={"text": "RIICHI \u7acb\u76f4", "seat": 1}))
            assert not d.part.handle(ev.Show(what="result", data={"han": 3}))
            await asyncio.to_thread(sim_mcu.wait_for, lambda st: st["displays"].get("1") == "RIICHI ??")
            status = d.part.status()
            return lamp, status
        finally:
            await d.part.stop()

    lamp, status = run(go())
    assert lamp == 1
    assert status["link"] == "up" and status["model"] == "JT-SIM-4" and status["gpio"]["lamps"][2]
    assert sim_mcu.state()["displays"] == {"0": "25000", "1": "RIICHI ??", "2": "26000", "3": "25000"}
