"""The service unit: hardened enough for systemd's own analyzer, and consistent with the daemon."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "jantaku.service"
PARLOUR_UNIT = UNIT.with_name("jantaku-parlour.service")


def unit_options(unit: Path = UNIT) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


# ./dev test installs systemd-analyze; under CI a missing one is a failure, not a skip
@pytest.mark.skipif(shutil.which("systemd-analyze") is None and not os.environ.get("CI"),
                    reason="systemd-analyze not installed")
@pytest.mark.parametrize("unit", [UNIT, PARLOUR_UNIT], ids=lambda u: u.name)
def test_exposure_is_at_most_2(unit):
    proc = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(unit)], capture_output=True,
                          text=True, timeout=120)
    match = re.search(rf"Overall exposure level for {re.escape(unit.name)}: (\d+\.\d+)", proc.stdout + proc.stderr)
    assert match, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert float(match.group(1)) <= 2.0


def test_unit_has_the_required_settings():
    o = unit_options()
    assert o["Type"] == ["notify"] and o["Restart"] == ["on-failure"] and o["DynamicUser"] == ["yes"]
    assert int(o["WatchdogSec"][0]) > 0
    assert set(o["SupplementaryGroups"][0].split()) == {"dialout", "gpio", "video"}
    assert o["ProtectSystem"] == ["strict"] and o["DevicePolicy"] == ["closed"]
    allowed = " ".join(o["DeviceAllow"])
    for device in ("/dev/ttyAMA0", "char-gpiochip", "char-video4linux"):
        assert device in allowed
    assert o["StateDirectory"] == ["jantaku"]
    assert "tablectl run" in o["ExecStart"][0]


def test_parlour_unit_runs_the_parlour_service_on_its_own_state_folder():
    from controller.parlour.service import _options, config_of

    o = unit_options(PARLOUR_UNIT)
    assert o["DynamicUser"] == ["yes"] and o["Restart"] == ["on-failure"]
    assert o["StateDirectory"] == ["jantaku-parlour"] and o["ProtectSystem"] == ["strict"]
    assert "SupplementaryGroups" not in o and o["PrivateDevices"] == ["yes"]   # it reads no hardware
    argv = o["ExecStart"][0].split()
    assert argv[1:3] == ["parlour", "--config"] and argv[0].endswith("/tablectl")
    # the command line parses with the service's own parser; its data folder is the unit's state folder
    args = _options(argv[2:])
    args.config = None    # /etc/jantaku-parlour/parlour.toml is not on this machine
    assert config_of(args).data_dir == "%S/jantaku-parlour"
