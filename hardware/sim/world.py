"""The simulated table as its own process: ``python -m hardware.sim.world``.

The daemon starts this by command line (``controller.daemon_world``) and never imports it. It
speaks to the daemon only through what a table has (the MCU's serial link on a pty, the camera,
the lines the daemon reads through gpiozero) and, over its standard streams, through what the
people at the table do by other means (one JSON object per line; see ``controller.daemon_world``).

The world (``hardware.sim.world_table``): the MCU on a pty that the daemon's own firmware part
drives, a camera stream of frames rendered continuously that the daemon's own camera part reads
(``vision.reader`` + ``vision.tracker``), the dice buttons, lid and e-stop on the daemon's mock
pins driven over its line socket. (``hardware.sim.table_part.SimTablePart``, a table with its own
view tracker, is kept only as the tests' oracle; the daemon never meets it.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import threading
from typing import Any

from controller import events as ev

log = logging.getLogger("hardware.sim.world")


class Stdout:
    """One JSON object per line on stdout, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def send(self, obj: dict) -> None:
        line = json.dumps(obj, separators=(",", ":"))
        with self._lock:
            try:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            except (OSError, ValueError):
                pass

    def post(self, source: str, event: ev.Event, *_: Any) -> None:
        self.send({"event": ev.to_record(event), "source": source})


def _stdin_lines(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> None:
    for line in sys.stdin:
        line = line.strip()
        if line:
            loop.call_soon_threadsafe(queue.put_nowait, line)
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def _messages(queue: asyncio.Queue):
    while True:
        line = await queue.get()
        if line is None:
            return
        try:
            yield json.loads(line)
        except ValueError:
            log.warning("world: not a message: %.200s", line)


async def relay_commands(messages, handle) -> None:
    """Hand each command record the daemon sends (``{"command": record}`` lines) to ``handle``
    until the daemon's stream ends; a bad record is logged and skipped."""
    async for msg in messages:
        if "command" in msg:
            try:
                command = ev.from_record(msg["command"])
            except ev.EventError as err:
                log.warning("world: a bad command record: %s", err)
                continue
            if isinstance(command, ev.Command):
                handle(command)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware.sim.world", description=__doc__.split("\n\n")[0])
    p.add_argument("--script", required=True, help="a tenhou.net/6 JSON log the simulated players act out")
    p.add_argument("--speed", type=float, default=1.0, help="time scale of the players (0: as fast as they can)")
    p.add_argument("--ruleset", default="tenhou")
    p.add_argument("--injects", default="[]", help='faults, JSON: [{"rule": R, "hand": H, "seat": S}]')
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", default="", help="where the world keeps its sockets and the MCU's files")
    p.add_argument("--loop", action="store_true", help="play the script again after its end")
    p.add_argument("--fps", type=float, default=10.0, help="the camera's frame rate")
    p.add_argument("--lines", default="", help="the daemon's GPIO line socket")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="world %(levelname)s %(name)s: %(message)s")
    out = Stdout()
    try:
        from hardware.sim.world_table import run_world
        return asyncio.run(run_world(args, out))
    except (ValueError, OSError, RuntimeError) as err:
        print(f"world: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
