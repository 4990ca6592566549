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
            # the game's own Lift and Shuffle are requests for the cycle: the part moves nothing for them
            assert d.part.handle(ev.Lift()) is False and d.part.handle(ev.Shuffle()) is False
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


def test_a_second_dice_press_while_the_dice_roll_rolls_nothing_and_halts_nothing(sim_mcu_factory):
    """An impatient dealer presses the dice button again while the dice still roll: the game asks
    for a roll again (a press is a roll while one is owed); sent, the MCU would refuse it busy and
    the table would halt. The roll under way answers both presses. A roll asked for the moment the
    result is in (a Hong Kong break's second roll) is rolled, though the first roll's task has not
    yet wound up."""
    sim = sim_mcu_factory(time_scale=0.2)          # a roll takes 0.3 s
    sim.control("dice", values=[[3, 4], [5, 6]])

    class Hurried(MiniDaemon):
        def accept(self, event):
            super().accept(event)
            if isinstance(event, ev.DiceResult) and event.seat == 0:
                self.part.handle(ev.RollDice(seat=1, count=2))      # the next seat, at once

    async def go():
        d = Hurried(TablePart(sim.port))
        await d.start()
        try:
            d.accept(ev.StartGame(ruleset="tenhou"))
            await d.until(lambda: d.state.state == "ready")
            d.part.handle(ev.RollDice(seat=0, count=2))
            d.part.handle(ev.RollDice(seat=0, count=2))     # before the first can have ended
            await d.until(lambda: len([e for e in d.events if isinstance(e, ev.DiceResult)]) == 2)
            return d.state, d.events, sim.control("log", n=500)["lines"]
        finally:
            await d.part.stop()

    state, events, lines = run(go())
    assert state.state == "playing" and not [e for e in events if isinstance(e, ev.McuFault)]
    assert [(e.seat, e.dice) for e in events if isinstance(e, ev.DiceResult)] == [(0, (3, 4)), (1, (5, 6))]
    rolls = [e for e in lines if e.get("cmd") == "roll_dice"]
    assert [e["event"] for e in rolls] == ["execute", "execute"], rolls


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


# --------------------------------------------------------------------------- motor-power relay

ESTOP, LID, RELAY = 17, 27, 23


async def _poll(predicate, timeout_s: float = 15.0) -> None:
    """For what posts no event (the relay pin): look again every 10 ms."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not met"
        await asyncio.sleep(0.01)


def _latch_deadman(sim) -> None:
    """A host says hello and dies: the MCU's deadman latches (the state a crashed daemon leaves)."""
    import serial

    from firmware_bridge import protocol as p
    with serial.Serial(sim.port, timeout=0.1) as ser:
        ser.write(b"\x00" + p.encode(p.Hello(session=99), 1))
        ser.read(64)
    sim.wait_for(lambda st: st["fault"] == "deadman", timeout_s=10)


def test_boot_switches_motor_power_on_only_when_everything_allows(mock_factory, sim_mcu):
    async def boot(lid_open: bool = False, estop: bool = False):
        gpio = TableGpio(load_pinmap())
        if lid_open:
            mock_factory.pin(LID).drive_high()
        if estop:
            mock_factory.pin(ESTOP).drive_high()
        part = TablePart(sim_mcu.port, gpio=gpio)
        d = MiniDaemon(part)
        await d.start()
        try:
            return mock_factory.pin(RELAY).state, part.status()
        finally:
            await part.stop()

    relay, status = run(boot())
    assert relay == 1 and status["motor_power_refusal"] is None and status["gpio"]["motor_power"]
    relay, status = run(boot(lid_open=True))
    assert relay == 0 and status["motor_power_refusal"] == "lid open"
    assert status["last_error"] == "motor power stays off (boot): lid open"
    relay, status = run(boot(estop=True))
    assert relay == 0 and status["motor_power_refusal"] == "e-stop pressed"


def test_a_latched_fault_at_boot_keeps_the_power_off_until_the_operator_reset(mock_factory, sim_mcu):
    _latch_deadman(sim_mcu)

    async def go():
        gpio = TableGpio(load_pinmap())
        d = MiniDaemon(TablePart(sim_mcu.port, gpio=gpio))
        await d.start()
        try:
            # the identify says "deadman latched"; then the MCU re-sends its fault event, parked while
            # no host listened (PROTOCOL.md §4): both reach the cycle before the operator acts
            await d.until(lambda: len([e for e in d.events if isinstance(e, ev.McuFault)]) == 2)
            at_boot = mock_factory.pin(RELAY).state, d.part.power_refusal(), d.state.reason
            d.accept(ev.Reset(reason="operator"))
            await _poll(lambda: mock_factory.pin(RELAY).state == 1)
            return at_boot, d.state.state, [type(e).__name__ for e in d.events]
        finally:
            await d.part.stop()

    (relay, refusal, reason), after, kinds = run(go())
    assert relay == 0 and refusal == "MCU fault deadman latched"
    assert reason == "MCU fault deadman: latched when the link came up"
    assert kinds == ["LinkRestored", "McuFault", "McuFault", "Reset"] and after == "idle"
    assert sim_mcu.state()["fault"] == ""           # the reset went to the MCU before the power came on


def test_estop_drops_the_power_and_it_stays_off_until_the_reset(mock_factory, sim_mcu):
    async def go():
        gpio = TableGpio(load_pinmap())
        d = MiniDaemon(TablePart(sim_mcu.port, gpio=gpio))
        await d.start()
        try:
            on_at_boot = mock_factory.pin(RELAY).state
            mock_factory.pin(ESTOP).drive_high()
            dropped = mock_factory.pin(RELAY).state          # at once, in the pin's own callback
            await d.until(lambda: d.state.state == "halted")
            mock_factory.pin(ESTOP).drive_low()              # released: the power stays off
            await asyncio.sleep(0.3)
            still_off = mock_factory.pin(RELAY).state
            d.accept(ev.Reset(reason="operator"))
            await _poll(lambda: mock_factory.pin(RELAY).state == 1)
            return on_at_boot, dropped, still_off
        finally:
            await d.part.stop()

    assert run(go()) == (1, 0, 0)


def test_a_latched_fault_is_posted_once_though_it_ends_every_running_job(sim_mcu):
    """PROTOCOL.md section 6: a latched fault ends every other running job with a fault event of its
    code. The lift stalls while a shuffle runs: both jobs end in ``lift_stall``, and the cycle and
    the game get one fault (not a second, detail-less one from the shuffle cut short)."""
    async def go():
        d = MiniDaemon(TablePart(sim_mcu.port))
        await d.start()
        try:
            part = d.part
            part.handle(C.ShuffleSet(tile_set=1))               # 0.6 s at this time scale
            await _poll(lambda: any(e.get("event") == "motion_start"
                                    for e in sim_mcu.control("log", n=50)["lines"]))
            sim_mcu.control("inject", fault="lift_stall", detail=2)
            part.handle(C.LiftWalls())                            # stalls 40 % of the way up
            await d.until(lambda: any(isinstance(e, ev.McuFault) for e in d.events))
            await _poll(lambda: not part._tasks)                 # both jobs ended (their faults came)
            return [e for e in d.events if isinstance(e, ev.McuFault)], sim_mcu.control("log", n=50)["lines"]
        finally:
            await d.part.stop()

    faults, lines = run(go())
    (stopped,) = [e for e in lines if e.get("event") == "motors_stopped" and e["reason"] == "lift_stall"]
    assert len(stopped["jobs"]) == 2                                # the shuffle and the lift, both ended
    assert [f.code for f in faults] == ["lift_stall"] and "detail 2" in faults[0].detail


def test_rejected_and_timed_out_commands_and_rail_buttons_are_posted(sim_mcu):
    async def go():
        part = TablePart(sim_mcu.port, timeouts_s={"shuffle": 0.05})
        d = MiniDaemon(part)
        await d.start()
        try:
            sim_mcu.control("lid", open=True)                # the MCU's own lid sensor refuses motion
            part.handle(C.LiftWalls())
            await d.until(lambda: any(isinstance(e, ev.McuFault) for e in d.events))
            sim_mcu.control("lid", open=False)
            part.handle(C.ShuffleSet(tile_set=1))             # 0.6 s at this time scale: over 0.05 s
            await d.until(lambda: len([e for e in d.events if isinstance(e, ev.McuFault)]) == 2)
            sim_mcu.control("press", seat=3, action="ron")
            await d.until(lambda: any(isinstance(e, ev.Button) for e in d.events))
            return [e for e in d.events if isinstance(e, ev.McuFault | ev.Button)]
        finally:
            await part.stop()

    rejected, timeout, button = run(go())
    assert rejected.code == "rejected" and "lid" in rejected.detail
    assert timeout.code == "timeout" and "not finished after 0.05 s" in timeout.detail
    assert (button.seat, button.action) == (3, "ron")


def test_a_dead_embedded_simulator_is_restarted_and_the_link_comes_back(tmp_path):
    import os
    import signal

    async def go():
        part = TablePart.with_simulator(workdir=str(tmp_path / "sim"), time_scale=0.01, reopen_s=0.05)
        d = MiniDaemon(part)
        await d.start()
        try:
            first = part.sim.proc.pid
            os.kill(first, signal.SIGKILL)
            await d.until(lambda: any(isinstance(e, ev.LinkLost) for e in d.events))
            await d.until(lambda: len([e for e in d.events if isinstance(e, ev.LinkRestored)]) == 2)
            await part.table.display.show(0, "again")
            return first, part.sim.proc.pid, part.sim.restarts, part.sim.state()["displays"]
        finally:
            await part.stop()

    first, now, restarts, displays = run(go())
    assert now != first and restarts == 1 and displays == {"0": "again"}
