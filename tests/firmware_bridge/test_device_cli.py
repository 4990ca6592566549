"""``tablectl device ...`` against the simulator process."""

from __future__ import annotations

import json

from firmware_bridge.cli import main


def test_device_commands(sim_mcu, capsys):
    sim_mcu.control("dice", values=[[1, 6]])
    out = []
    for argv in (["identify"], ["lift"], ["shuffle"], ["dice", "--seat", "2"], ["status"], ["stop"]):
        assert main("device", [*argv, "--port", sim_mcu.port]) == 0, capsys.readouterr().err
        out.append(json.loads(capsys.readouterr().out))
    ident, lift, shuffle, dice, status, stop = out
    assert ident["model"] == "JT-SIM-4" and "centre" in ident["capabilities"]
    assert lift["stacks"] == [17, 17, 17, 17] and lift["tile_set"] == 0
    assert shuffle == {"tile_set": 1, "lanes": [34, 34, 34, 34]}
    assert dice == {"dice": [1, 6]}
    assert status["message"] == "status_report" and status["walls_up"] == 15
    assert stop == {"stopped": True}


def test_device_errors_name_the_problem(sim_mcu, tmp_path, capsys):
    assert main("device", ["status", "--port", str(tmp_path / "ttyGONE"), "--connect-timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "ttyGONE: not up after 0.5 s (cannot open port" in err and "No such file" in err
    sim_mcu.control("lid", open=True)
    assert main("device", ["lift", "--port", sim_mcu.port]) == 1
    err = capsys.readouterr().err
    assert "wall_lift: MCU rejected 'lift'" in err and "lid_open" in err
