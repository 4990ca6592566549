"""``tablectl device ACTION --port PORT``: talk to the table MCU by hand (operators, bring-up).

    tablectl device identify --port /dev/ttyACM0
    tablectl device status   --port PORT
    tablectl device lift     --port PORT [--walls all|0,1,2,3|none]
    tablectl device shuffle  --port PORT --set 1
    tablectl device dice     --port PORT [--count 2] [--seat 0]
    tablectl device centre   --port PORT --open|--close
    tablectl device stop     --port PORT
    tablectl device reset    --port PORT          (clear a latched fault)

Prints one JSON object per result; exit status 0 on success, 1 on a table error (rejected,
fault, timeout), 2 on bad usage or a port that cannot be opened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, LinkError, LinkTimeout
from firmware_bridge.table import SerialTable

ACTIONS = ("identify", "status", "lift", "shuffle", "dice", "centre", "stop", "reset")


def build_parser(prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="Talk to the table MCU over its serial port.")
    ap.add_argument("action", choices=ACTIONS)
    ap.add_argument("--port", required=True, help="serial port (/dev/ttyACM0, a pty, or the sim's link)")
    ap.add_argument("--walls", default="all", help="lift: all, none, or seats like 0,1,2,3")
    ap.add_argument("--set", type=int, default=None, help="shuffle: tile set 0 or 1 (default: the one in the hopper)")
    ap.add_argument("--count", type=int, default=2, help="dice: 2 or 3")
    ap.add_argument("--seat", type=int, default=0, help="dice: the rolling seat")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--open", dest="centre_open", action="store_true", default=None)
    group.add_argument("--close", dest="centre_open", action="store_false")
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for the job")
    ap.add_argument("--connect-timeout", type=float, default=3.0, help="seconds to wait for the MCU")
    return ap


def _plain(obj: object) -> object:
    if isinstance(obj, p.Message):
        return {"message": obj.NAME, **p.message_fields(obj)}
    if hasattr(obj, "__dataclass_fields__"):
        out = asdict(obj)  # type: ignore[arg-type]
        return {k: sorted(v) if isinstance(v, frozenset) else v for k, v in out.items()}
    return obj


async def _run(args: argparse.Namespace) -> object:
    table = SerialTable.over(args.port)
    try:
        try:
            ident = await table.start(timeout_s=args.connect_timeout)
        except LinkTimeout as err:
            raise LinkError(str(err)) from err
        t = args.timeout
        if args.action == "identify":
            return {**p.message_fields(ident), "capabilities": sorted(ident.capabilities),
                    "firmware_version": ident.firmware_version}
        if args.action == "status":
            return await table.mcu.status()
        if args.action == "lift":
            if args.walls == "none":
                return await table.wall_lift.lower(timeout_s=t)
            walls = "all" if args.walls == "all" else [int(w) for w in args.walls.split(",") if w.strip()]
            return await table.wall_lift.lift(walls, timeout_s=t)
        if args.action == "shuffle":
            tile_set = args.set
            if tile_set is None:
                status = await table.mcu.status()
                if 0 not in status.sets:
                    raise BridgeError("shuffler: no tile set is in the hopper; give --set")
                tile_set = status.sets.index(0)
            return await table.shuffler.shuffle(tile_set, timeout_s=t)
        if args.action == "dice":
            return {"dice": list(await table.dice.roll(args.count, args.seat, timeout_s=t))}
        if args.action == "centre":
            if args.centre_open is None:
                raise BridgeError("centre: give --open or --close")
            await (table.centre.open(timeout_s=t) if args.centre_open else table.centre.close(timeout_s=t))
            return {"centre": "open" if args.centre_open else "closed"}
        if args.action == "stop":
            await table.stopper.stop()
            return {"stopped": True}
        await table.stopper.reset_fault()
        return {"fault": "cleared"}
    finally:
        await table.close()


def main(command: str = "device", argv: list[str] | None = None) -> int:
    args = build_parser(f"tablectl {command}").parse_args(argv)
    try:
        result = asyncio.run(_run(args))
    except LinkError as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 2
    except (BridgeError, ValueError) as err:
        print(f"tablectl {command} {args.action}: {err}", file=sys.stderr)
        return 1
    print(json.dumps(_plain(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main("device", sys.argv[1:]))
