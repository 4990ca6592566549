"""Start and steer the simulated MCU process (``tablectl sim-mcu``) from Python.

The process runner is the firmware bridge's (``firmware_bridge.mcu_process.McuProcess``: the
daemon starts an MCU process by command line the same way); this is it with the simulated MCU's
command, for the test fixtures (``tests/fixtures/sim.py``), the benchmarks and the simulated
table::

    with SimMcuProcess.start(tmp_dir, time_scale=0.01) as sim:
        link = Link(sim.port)          # a stable symlink to the pty
        sim.control("inject", fault="lift_stall")
        sim.state()["motors_running"]

The simulator ends by itself when the process that started it dies (``--parent-pid``), and one
that ends while still wanted is started again on the same port link (``RESPAWN_MAX`` a minute).
"""

from __future__ import annotations

from firmware_bridge.mcu_process import RESPAWN_MAX, SimMcuError
from firmware_bridge.mcu_process import McuProcess as SimMcuProcess

__all__ = ["RESPAWN_MAX", "SimMcuError", "SimMcuProcess"]
