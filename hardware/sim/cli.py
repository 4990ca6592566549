"""``tablectl sim-mcu``: run the simulated table MCU on a pseudo-terminal.

Prints one JSON line on stdout once the port is ready::

    {"port": "/dev/pts/7", "link": "/tmp/jt/ttyTABLE", "control": "/tmp/jt/sim.sock", "pid": 4242, ...}

then runs until SIGTERM/SIGINT or a control ``{"cmd": "quit"}``. Use ``--link`` for a stable
path (a symlink re-created on a simulated replug), ``--control`` for the test-hook socket,
``--parent-pid`` to end together with the process that started it (``SimMcuProcess`` passes it).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from hardware.sim.mcu import TableModel
from hardware.sim.mcu_faults import LineFaultRates
from hardware.sim.mcu_shell import SimProcess, setup_logging


def build_parser(prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="Simulated table MCU on a pseudo-terminal.")
    ap.add_argument("--link", help="stable symlink to the pty slave (re-created after a replug)")
    ap.add_argument("--control", help="Unix socket for simulator-only test hooks (JSON lines)")
    ap.add_argument("--model", default="riichi", help="riichi (136), flowers (144), sanma (108), full")
    ap.add_argument("--time-scale", type=float, default=1.0,
                    help="multiply every motion duration (0.01: a 60 s shuffle takes 0.6 s)")
    ap.add_argument("--deadman-ms", type=int, default=500, help="deadman time at boot (100..5000)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed for dice and line faults (default: dice from the OS's CSPRNG, as the firmware's)")
    ap.add_argument("--drop", type=float, default=0.0, help="fraction of bytes dropped, each direction")
    ap.add_argument("--corrupt", type=float, default=0.0, help="fraction of bytes with a bit flipped, each direction")
    ap.add_argument("--duplicate", type=float, default=0.0, help="fraction of bytes sent twice, each direction")
    ap.add_argument("--delay-rate", type=float, default=0.0, help="fraction of chunks delayed")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="delay of a delayed chunk")
    ap.add_argument("--fault", action="append", default=[],
                    help="arm a fault for the next matching motion (repeatable), e.g. lift_stall")
    ap.add_argument("--stats-file", help="write execution counts (job -> times executed) here on exit")
    ap.add_argument("--log", help="log file (JSON lines); default stderr with -v")
    ap.add_argument("--parent-pid", type=int, default=None,
                    help="end when this process (the one that started the simulator) dies")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap


def _before_the_host() -> None:
    """The simulated MCU stands in for a microcontroller, which never waits for the host's CPU: on a
    loaded machine (other work beside the daemon, its camera reading every frame) a Python process
    can go unscheduled for over a second, and the host then judges the link lost ("no valid frame
    from the MCU for 1.0 s"), which a real MCU never causes. Ask for a higher priority where the OS
    allows it (as root), else run as is."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, min(os.getpriority(os.PRIO_PROCESS, 0), -10))
    except (OSError, AttributeError):
        pass


def main(command: str = "sim-mcu", argv: list[str] | None = None) -> int:
    args = build_parser(f"tablectl {command}").parse_args(argv)
    try:
        model = TableModel.named(args.model)
        rates = LineFaultRates(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate,
                               delay_rate=args.delay_rate, delay_ms=args.delay_ms)
        rates.check()
        if not 100 <= args.deadman_ms <= 5000:
            raise ValueError(f"sim-mcu: --deadman-ms is {args.deadman_ms}, must be 100..5000")
        setup_logging(args.log, args.verbose)
        sim = SimProcess({"model": model, "time_scale": args.time_scale, "seed": args.seed,
                          "deadman_ms": args.deadman_ms},
                         link=args.link, control=args.control, rx_rates=rates,
                         tx_rates=LineFaultRates(**vars(rates)), seed=args.seed or 0,
                         stats_path=args.stats_file, parent_pid=args.parent_pid)
        for name in args.fault:
            sim.mcu.arm_fault(name)
    except (ValueError, OSError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 2

    def _stop(signum: int, frame: object) -> None:
        sim.running = False

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    _before_the_host()
    sim.announce()
    try:
        sim.run()
    finally:
        sim.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main("sim-mcu", sys.argv[1:]))
