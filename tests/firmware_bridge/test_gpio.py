"""GPIO through gpiozero's MockFactory: pin maps, buttons, the e-stop and lid interlocks,
and the interlock in front of the real link to the simulator process."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from firmware_bridge.errors import BridgeError, InterlockError, PinMapError, TableFault
from firmware_bridge.gpio import DiceButton, EStopChanged, LidChanged, TableGpio, is_pi5, make_pin_factory
from firmware_bridge.pinmap import PINMAP_DIR, load_pinmap, parse_pinmap
from firmware_bridge.table import SerialTable

ESTOP, LID, RELAY = 17, 27, 23
BUTTONS, LAMPS = (5, 6, 13, 19), (12, 16, 20, 21)


@pytest.fixture
def gpio(mock_factory):
    events: list[object] = []
    stops: list[str] = []
    g = TableGpio(load_pinmap(), sink=events.append, on_estop=lambda: stops.append("stop"))
    # on mock pins the inputs start at rest: e-stop released (NC contact closed to GND), lid shut
    assert not g.estop_pressed and not g.lid_open and events == []
    assert mock_factory.pin(ESTOP).state == 0 and mock_factory.pin(BUTTONS[0]).state == 1
    g.events, g.stops = events, stops
    yield g
    g.close()


def test_default_pinmaps_load():
    pm = load_pinmap()
    assert (pm.board, pm.seats, pm.estop.pin, pm.relay.pin) == ("jantaku-hat-rev1", 4, ESTOP, RELAY)
    assert [b.pin for b in pm.dice_buttons] == list(BUTTONS)
    assert load_pinmap(PINMAP_DIR / "jantaku-hat-sanma.toml").seats == 3


def _pinmap_data():
    import tomllib
    return tomllib.loads((PINMAP_DIR / "jantaku-hat-rev1.toml").read_text())


@pytest.mark.parametrize("edit, match", [
    (lambda d: d["relay"].update(pin=17), "GPIO17 is used twice: estop and relay"),
    (lambda d: d["lid"].update(colour="red"), r"\[lid\] unknown key 'colour'"),
    (lambda d: d["estop"].update(pull="sideways"), r"\[estop\] pull is 'sideways'"),
    (lambda d: d["buzzer"].update(pin=40), r"\[buzzer\] pin is 40, must be a BCM GPIO number 2..27"),
    (lambda d: d["lamps"].update(pins=[12, 16]), r"\[lamps\] pins is \[12, 16\], must list 4 pins"),
    (lambda d: d.update(seats=5), "seats is 5, must be 3 or 4"),
    (lambda d: d.pop("relay"), "missing key 'relay'"),
], ids=["duplicate", "unknown-key", "pull", "pin-range", "lamp-count", "seats", "missing"])
def test_bad_pinmaps_are_refused_naming_the_problem(edit, match):
    data = _pinmap_data()
    edit(data)
    with pytest.raises(PinMapError, match=match):
        parse_pinmap(data, "test.toml")


def test_unreadable_pinmap(tmp_path):
    with pytest.raises(PinMapError, match="cannot read"):
        load_pinmap(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("seats = [")
    with pytest.raises(PinMapError, match="not valid TOML"):
        load_pinmap(bad)


def test_pin_factories():
    assert type(make_pin_factory("mock")).__name__ == "MockFactory"
    with pytest.raises(BridgeError, match="pin_factory is 'wiringpi', must be one of"):
        make_pin_factory("wiringpi")


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="a board with real GPIO")
def test_auto_pin_factory_off_a_pi_names_what_failed():
    with pytest.raises(BridgeError, match="no pin factory works here: .*'rpigpio' unavailable.*'lgpio' unavailable"):
        make_pin_factory("auto")


def test_pi5_is_told_apart(tmp_path):
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    assert is_pi5(str(model))
    model.write_text("Raspberry Pi 4 Model B Rev 1.4\x00")
    assert not is_pi5(str(model)) and not is_pi5(str(tmp_path / "none"))


def test_dice_buttons_post_their_seat(gpio, mock_factory):
    for pin in BUTTONS:
        mock_factory.pin(pin).drive_low()
        mock_factory.pin(pin).drive_high()
    assert [(e.seat) for e in gpio.events if isinstance(e, DiceButton)] == [0, 1, 2, 3]


def test_lamps_buzzer_and_relay(gpio, mock_factory):
    gpio.set_lamp(2, True)
    assert [mock_factory.pin(p).state for p in LAMPS] == [0, 0, 1, 0]
    gpio.power_on()
    assert mock_factory.pin(RELAY).state == 1 and gpio.is_powered
    with pytest.raises(BridgeError, match="lamp seat is 4, must be 0..3"):
        gpio.set_lamp(4, True)


def test_lid_open_refuses_power_and_motion(gpio, mock_factory):
    mock_factory.pin(LID).drive_high()
    assert gpio.lid_open and gpio.motion_refusal() == "lid open"
    assert [e.is_open for e in gpio.events if isinstance(e, LidChanged)] == [True]
    with pytest.raises(InterlockError, match="motor power refused: lid open"):
        gpio.power_on()
    assert mock_factory.pin(RELAY).state == 0


def test_estop_drops_the_relay_at_once_and_sends_stop(gpio, mock_factory):
    gpio.power_on()
    mock_factory.pin(ESTOP).drive_high()                 # pressed
    assert mock_factory.pin(RELAY).state == 0
    assert gpio.stops == ["stop"]
    assert [e.is_pressed for e in gpio.events if isinstance(e, EStopChanged)] == [True]
    assert gpio.motion_refusal() == "e-stop pressed"
    with pytest.raises(InterlockError, match="e-stop pressed"):
        gpio.power_on()
    mock_factory.pin(ESTOP).drive_low()
    assert gpio.motion_refusal() is None and mock_factory.pin(RELAY).state == 0   # stays off until asked


def test_relay_starts_off_and_an_unwired_estop_reads_pressed(mock_factory):
    g = TableGpio(load_pinmap(), rest_inputs=False)     # as on a board with nothing connected
    try:
        # pulled up with nothing wired: a broken e-stop loop reads as pressed, an absent lid as open
        assert g.estop_pressed and g.lid_open and g.motion_refusal() == "e-stop pressed"
        assert mock_factory.pin(RELAY).state == 0
        with pytest.raises(InterlockError):
            g.power_on()
    finally:
        g.close()


def run(coro, timeout_s: float = 30.0):
    async def bounded():
        return await asyncio.wait_for(coro, timeout_s)
    return asyncio.run(bounded())


def test_motion_refused_on_the_host_with_lid_open_or_estop(gpio, mock_factory, sim_mcu):
    async def go():
        table = SerialTable.over(sim_mcu.port, interlock=gpio)
        await table.start(timeout_s=10)
        try:
            mock_factory.pin(LID).drive_high()
            with pytest.raises(InterlockError, match="wall_lift: 'lift' refused: lid open"):
                await table.wall_lift.lift("all")
            mock_factory.pin(LID).drive_low()
            mock_factory.pin(ESTOP).drive_high()
            with pytest.raises(InterlockError, match="shuffler: 'shuffle' refused: e-stop pressed"):
                await table.shuffler.shuffle(1)
            await table.display.show(0, "OK")             # not motion: allowed
            await table.stopper.stop()                    # stopping is always allowed
        finally:
            await table.close()

    run(go())
    executed = sim_mcu.control("stats")["executed"]
    assert len(executed) == 2                              # only display and stop reached the MCU


def test_estop_during_a_shuffle_stops_the_mcu_and_drops_the_relay(mock_factory, sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)

    async def go():
        table = SerialTable.over(sim.port)
        gpio = TableGpio(load_pinmap(), on_estop=table.stopper.stop_now)
        table.mcu.interlock = gpio
        await table.start(timeout_s=10)
        try:
            gpio.power_on()
            shuffle = asyncio.ensure_future(table.shuffler.shuffle(1))
            await asyncio.to_thread(sim.wait_for, lambda st: st["motors_running"])
            # the button is pressed on another thread, as gpiozero's callbacks run
            presser = threading.Thread(target=mock_factory.pin(ESTOP).drive_high)
            presser.start()
            presser.join()
            relay = mock_factory.pin(RELAY).state
            with pytest.raises(TableFault) as info:
                await shuffle
        finally:
            await table.close()
            gpio.close()
        return relay, info.value

    relay, err = run(go())
    assert relay == 0
    assert err.fault == "aborted"
    st = sim.state()
    assert not st["motors_running"] and not st["motor_power"]
