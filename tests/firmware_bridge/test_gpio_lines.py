"""The mock pins driven from outside over the line socket, read by the daemon's TableGpio."""

from __future__ import annotations

import json
import socket
import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.daemon_firmware import make_gpio
from firmware_bridge.gpio import DiceButton, EStopChanged, LidChanged


def _ask(path, *reqs):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(path))
        fh = s.makefile("rwb")
        out = []
        for req in reqs:
            fh.write((req if isinstance(req, bytes) else json.dumps(req).encode()) + b"\n")
            fh.flush()
            out.append(json.loads(fh.readline()))
        return out


def _wait(pred, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


@pytest.fixture
def gpio(tmp_path):
    g = make_gpio("mock", lines=str(tmp_path / "lines.sock"))
    got = []
    g.sink = got.append
    g.got = got
    yield g
    g.close()


def test_the_world_presses_a_dice_button_and_lifts_the_lid(gpio, tmp_path):
    assert isinstance(gpio.line_server.factory, MockFactory)
    path = tmp_path / "lines.sock"
    replies = _ask(path, {"line": "dice_button", "seat": 2, "active": True})
    assert replies == [{"ok": True}]
    time.sleep(0.06)
    _ask(path, {"line": "dice_button", "seat": 2, "active": False})
    assert _wait(lambda: any(isinstance(e, DiceButton) and e.seat == 2 for e in gpio.got)), gpio.got
    _ask(path, {"line": "lid", "active": True})
    assert _wait(lambda: gpio.lid_open)
    assert _wait(lambda: any(isinstance(e, LidChanged) and e.is_open for e in gpio.got))
    assert gpio.motion_refusal() is not None
    _ask(path, {"line": "lid", "active": False}, {"line": "estop", "active": True})
    assert _wait(lambda: gpio.estop_pressed and not gpio.lid_open)
    assert _wait(lambda: any(isinstance(e, EStopChanged) and e.is_pressed for e in gpio.got))
    outputs = _ask(path, {"get": "outputs"})[0]
    assert outputs["ok"] and len(outputs["lamps"]) == 4 and outputs["relay"] is False


def test_bad_requests_are_named_and_touch_no_pin(gpio, tmp_path):
    path = tmp_path / "lines.sock"
    replies = _ask(path, {"line": "trapdoor", "active": True}, {"line": "dice_button", "seat": 9, "active": True},
                   {"line": "lid", "active": "yes"}, b"not json", [1, 2])
    assert [r["ok"] for r in replies] == [False] * 5
    assert "unknown line 'trapdoor'" in replies[0]["error"]
    assert "seat 9" in replies[1]["error"]
    assert "active must be true or false" in replies[2]["error"]
    assert "JSON object" in replies[4]["error"]
    assert not gpio.lid_open and not gpio.estop_pressed and gpio.got == []


def test_lines_from_a_socket_need_the_mock_pins(tmp_path):
    from controller.config import ConfigError
    with pytest.raises(ConfigError, match="mock pin factory"):
        make_gpio("native", lines=str(tmp_path / "x.sock"))
