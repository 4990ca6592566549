"""``tablectl``: the one command line for the table.

Each command lives in the module of the part it belongs to; this file only maps names to
modules (as python-can maps interface names to classes), so that a slow import (OpenCV,
onnxruntime) is paid only by the commands that need it. A command module provides
``main(command: str, argv: list[str]) -> int``.
"""

from __future__ import annotations

import importlib
import sys

# command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("controller.daemon_cli", "run the table daemon (default: the simulated table)"),
    "demo": ("controller.daemon_cli", "run the daemon with the simulated table playing a recorded game"),
    "verify-log": ("controller.daemon_cli", "check the event log's hash chain, say where it breaks"),
    "export": ("controller.daemon_cli", "export finished games as tenhou.net/6 JSON"),
    "parlour": ("controller.parlour.service", "the parlour's counter service: tables over MQTT, the board, fees"),
    "score": ("controller.rules.cli", "score one riichi hand given in mpsz"),
    "waits": ("controller.rules.cli", "list the waits of a hand given in mpsz"),
    "settle": ("controller.rules.cli", "final settlement (return points, uma, oka) of end scores"),
    "replay": ("controller.rules.cli", "replay tenhou.net/6 logs hand by hand (see contracts/replay.md)"),
    "classify": ("vision.classify_cli", "classify tile pictures with the shipped ONNX model"),
    "enrol": ("vision.enrol_cli", "teach the classifier this table's tile set (a folder, the mat, confirmed crops)"),
    "calibrate": ("vision.calibration_cli", "calibrate the camera from the ArUco markers at the table corners"),
    "markers": ("vision.calibration_cli", "print the ArUco marker sheet for the table corners"),
    "read": ("vision.reader_cli", "read one table picture as JSON (--annotate)"),
    "sim-mcu": ("hardware.sim.cli", "run the simulated table MCU on a pseudo-terminal"),
    "device": ("firmware_bridge.cli", "send one command to the table MCU (identify, lift, dice, stop ...)"),
}


def _usage() -> str:
    lines = ["usage: tablectl COMMAND [ARGS...]", "", "commands:"]
    width = max(len(name) for name in COMMANDS)
    for name, (_module, help_text) in COMMANDS.items():
        lines.append(f"  {name.ljust(width)}  {help_text}")
    lines.append("")
    lines.append("'tablectl COMMAND --help' shows a command's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    entry = COMMANDS.get(command)
    if entry is None:
        print(f"tablectl: unknown command {command!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name = entry[0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and (err.name == module_name or module_name.startswith(err.name + ".")):
            print(f"tablectl: command {command!r} is not available in this build ({module_name})",
                  file=sys.stderr)
            return 2
        raise
    return int(module.main(command, rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
