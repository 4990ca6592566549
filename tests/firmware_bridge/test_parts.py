"""Every command and event, end to end: the async parts over a real Link (pyserial) on a real pty
to the simulator process."""

from __future__ import annotations

import asyncio

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, CommandRejected, TableFault
from firmware_bridge.link import LinkUp, McuEvent
from firmware_bridge.table import SerialTable


def run(coro, timeout_s: float = 30.0):
    async def bounded():
        return await asyncio.wait_for(coro, timeout_s)
    return asyncio.run(bounded())


async def open_table(sim, events: list | None = None, **link_options) -> SerialTable:
    table = SerialTable.over(sim.port, on_event=None if events is None else events.append, **link_options)
    await table.start(timeout_s=10.0)
    return table


def mcu_events(events: list, kind: type) -> list:
    return [ev.msg for ev in events if isinstance(ev, McuEvent) and isinstance(ev.msg, kind)]


def test_identify_reports_firmware_model_tile_set_and_capabilities(sim_mcu):
    async def go():
        events: list = []
        table = await open_table(sim_mcu, events)
        try:
            ident = await table.mcu.identify()
        finally:
            await table.close()
        return ident, events

    ident, events = run(go())
    assert (ident.proto, ident.firmware_version, ident.model) == (1, "1.0.0", "JT-SIM-4")
    assert (ident.tiles, ident.walls, ident.stacks_per_wall, ident.sets, ident.lanes) == (136, 4, 17, 2, 4)
    assert {"centre", "display", "three_dice", "lid_sensor", "lane_sensors"} <= ident.capabilities
    assert ident.deadman_ms == 500 and ident.fault == 0
    ups = [ev for ev in events if isinstance(ev, LinkUp)]
    assert len(ups) == 1 and not ups[0].rebooted and ups[0].identify.boot_id == sim_mcu.state()["boot_id"]


def test_a_hand_cycle_every_command_and_its_event(sim_mcu):
    sim_mcu.control("dice", values=[[3, 5], [6, 6, 1], [2, 4]])

    async def go():
        events: list = []
        t = await open_table(sim_mcu, events)
        try:
            await t.centre.close()
            lifted = await t.wall_lift.lift("all")
            shuffled = await t.shuffler.shuffle(1)
            roll = await t.dice.roll(2, seat=0)
            hk_first = await t.dice.roll(3, seat=0)
            hk_second = await t.dice.roll(2, seat=2)
            await t.display.show(None, "25000")
            await t.display.show(2, "RIICHI")
            status = await t.mcu.status()
            await t.centre.open()
            opened = sim_mcu.state()["centre_open"]
            await t.centre.close()
            second = await t.wall_lift.lift([0, 1, 2, 3])
            lowered = await t.wall_lift.lower()
            await t.stopper.stop()
            sim_mcu.control("press", seat=3, action="ron")          # a seat button on the rail
            while not mcu_events(events, p.SeatButton):
                await asyncio.sleep(0.01)
        finally:
            await t.close()
        return events, lifted, shuffled, roll, hk_first, hk_second, status, opened, second, lowered

    events, lifted, shuffled, roll, hk1, hk2, status, opened, second, lowered = run(go())
    assert lifted.walls == frozenset({0, 1, 2, 3}) and lifted.tile_set == 0
    assert lifted.stacks == (17, 17, 17, 17) and lifted.tiles == (34, 34, 34, 34)
    assert shuffled.tile_set == 1 and shuffled.lanes == (34, 34, 34, 34)
    assert (roll, hk1, hk2) == ((3, 5), (6, 6, 1), (2, 4))
    assert status.walls_up == 0x0F and status.sets == (3, 2) and status.state == 0
    assert opened is True
    # the played set went back through the centre; the shuffled set 1 came up
    assert second.tile_set == 1 and second.stacks == (17, 17, 17, 17)
    assert lowered.walls == frozenset() and lowered.stacks == (0, 0, 0, 0)
    st = sim_mcu.state()
    assert st["displays"] == {"0": "25000", "1": "25000", "2": "RIICHI", "3": "25000"}
    assert st["sets"] == ["hopper", "table"] and not st["motors_running"] and not st["motor_power"]
    # the events the daemon (and a recorded-game demo) sees, each once
    assert [e.values for e in mcu_events(events, p.DiceResult)] == [(3, 5), (6, 6, 1), (2, 4)]
    assert [e.stacks for e in mcu_events(events, p.LiftDone)] == [(17,) * 4, (17,) * 4, (0,) * 4]
    assert [e.lanes for e in mcu_events(events, p.ShuffleDone)] == [(34,) * 4]
    assert len(mcu_events(events, p.Done)) == 3
    assert [(b.seat, b.action_name) for b in mcu_events(events, p.SeatButton)] == [(3, "ron")]
    executed = sim_mcu.control("stats")["executed"]
    assert sorted(executed.values()) == [1] * 13     # 13 jobs, each executed exactly once


@pytest.mark.parametrize("model, walls, stacks, tiles, lanes", [
    ("sanma", 3, (18, 18, 18), (36, 36, 36), (36, 36, 36)),
    ("flowers", 4, (18, 18, 18, 18), (36, 36, 36, 36), (36, 36, 36, 36)),
], ids=["sanma-108", "flowers-144"])
def test_other_tile_sets(sim_mcu_factory, model, walls, stacks, tiles, lanes):
    sim = sim_mcu_factory("--model", model)

    async def go():
        t = await open_table(sim)
        try:
            lifted = await t.wall_lift.lift("all")
            shuffled = await t.shuffler.shuffle(1)
        finally:
            await t.close()
        return t.wall_lift.walls, lifted, shuffled

    n_walls, lifted, shuffled = run(go())
    assert n_walls == walls
    assert lifted.stacks == stacks and lifted.tiles == tiles and shuffled.lanes == lanes


def test_missing_tile_shows_in_lift_counts(sim_mcu):
    sim_mcu.control("lift_counts", stacks=[17, 17, 17, 17], tiles=[34, 33, 34, 34])

    async def go():
        t = await open_table(sim_mcu)
        try:
            return await t.wall_lift.lift("all")
        finally:
            await t.close()

    assert run(go()).tiles == (34, 33, 34, 34)


def test_dealing_and_dora_flip_need_the_capability(sim_mcu_factory):
    plain, full = sim_mcu_factory(), sim_mcu_factory("--model", "full")

    async def go():
        t = await open_table(plain)
        try:
            with pytest.raises(CommandRejected, match="dealer: MCU rejected 'deal'.*not_supported"):
                await t.dealer.deal()
        finally:
            await t.close()
        t = await open_table(full)
        try:
            await t.wall_lift.lift("all")
            await t.dealer.deal()
            await t.dealer.flip_dora()
        finally:
            await t.close()

    run(go())
    assert sorted(full.control("stats")["executed"].values()) == [1, 1, 1]


FAULTS = [
    # fault, which part hits it, detail
    ("head_jam", "shuffle", None),
    ("chain_rod_stuck", "shuffle", None),
    ("lane_count", "shuffle", 2),
    ("overheat", "shuffle", None),
    ("shuffle_timeout", "shuffle", None),
    ("limit_switch_stuck", "lift", None),
    ("lift_stall", "lift", None),
    ("lid_open", "lift", None),
    ("dice_dead", "dice", None),
    ("centre_jam", "centre", None),
]


@pytest.mark.parametrize("fault, part, detail", FAULTS, ids=[f[0] for f in FAULTS])
def test_each_fault_fails_its_job_latches_and_needs_a_reset(sim_mcu, fault, part, detail):
    args = {"detail": detail, "value": 33} if detail is not None else {}
    sim_mcu.control("inject", fault=fault, **args)

    async def go():
        events: list = []
        t = await open_table(sim_mcu, events)
        try:
            action = {"shuffle": lambda: t.shuffler.shuffle(1), "lift": lambda: t.wall_lift.lift("all"),
                      "dice": lambda: t.dice.roll(2, seat=1), "centre": lambda: t.centre.open()}[part]
            with pytest.raises(TableFault) as info:
                await action()
            halted = sim_mcu.state()
            with pytest.raises(CommandRejected, match="halted"):
                await t.wall_lift.lift("all")
            if fault == "overheat":      # refused until the drivers have cooled down
                with pytest.raises(CommandRejected, match="fault_active"):
                    await t.stopper.reset_fault()
                await asyncio.to_thread(sim_mcu.wait_for, lambda st: st["temp_c"] < 80)
            await t.stopper.reset_fault()
            after = (await t.mcu.status()).state
        finally:
            await t.close()
        return info.value, halted, after, events

    err, halted, after, events = run(go())
    assert err.fault == fault and err.latched
    assert fault in str(err)
    if detail is not None:
        assert (err.detail, err.value) == (detail, 33)
    assert halted["fault"] == fault and not halted["motors_running"] and not halted["motor_power"]
    assert after == 0
    assert [e.fault_name for e in mcu_events(events, p.Fault)] == [fault]


def test_stop_aborts_running_motion(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)

    async def go():
        t = await open_table(sim)
        try:
            shuffle = asyncio.ensure_future(t.shuffler.shuffle(1))
            await asyncio.to_thread(sim.wait_for, lambda st: st["motors_running"])
            await t.stopper.stop()
            with pytest.raises(TableFault) as info:
                await shuffle
        finally:
            await t.close()
        return info.value

    err = run(go())
    assert err.fault == "aborted" and not err.latched
    st = sim.state()
    assert not st["motors_running"] and st["fault"] == "" and st["sets"][1] == "hopper"


def test_rejections_name_the_reason(sim_mcu):
    async def go():
        t = await open_table(sim_mcu)
        try:
            stacked = await t.shuffler.shuffle(0)     # absolute: set 0 is stacked already, done at once
            await t.centre.open()
            with pytest.raises(CommandRejected, match="shuffler: MCU rejected 'shuffle'.*bad_state"):
                await t.shuffler.shuffle(1)           # never with the centre open
            with pytest.raises(CommandRejected, match="bad_state"):
                await t.wall_lift.lift("all")         # never with the centre open
            with pytest.raises(BridgeError, match="wall 5 is not a seat 0..3"):
                await t.wall_lift.lift([5])
            with pytest.raises(p.FieldError, match="'text' has 20 characters"):
                await t.display.show(0, "x" * 20)
            sim_mcu.control("lid", open=True)
            with pytest.raises(CommandRejected, match="lid_open"):
                await t.dice.roll(2, seat=0)
            with pytest.raises(CommandRejected, match="fault_active"):
                await t.stopper.reset_fault()
            sim_mcu.control("lid", open=False)
            return stacked, await t.dice.roll(2, seat=0)
        finally:
            await t.close()

    stacked, values = run(go())
    assert stacked.tile_set == 0 and stacked.lanes == (34, 34, 34, 34)
    assert len(values) == 2 and all(1 <= v <= 6 for v in values)


def test_a_reboot_mid_command_fails_the_job_clearly(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)

    async def go():
        events: list = []
        t = await open_table(sim, events)
        try:
            shuffle = asyncio.ensure_future(t.shuffler.shuffle(1))
            await asyncio.to_thread(sim.wait_for, lambda st: st["motors_running"])
            sim.control("reboot")
            with pytest.raises(BridgeError, match="MCU rebooted during job"):
                await shuffle
            lifted = await t.wall_lift.lift("all")      # and the table works on
        finally:
            await t.close()
        return lifted, events

    lifted, events = run(go())
    assert lifted.stacks == (17, 17, 17, 17)
    assert [ev.rebooted for ev in events if isinstance(ev, LinkUp)] == [False, True]
