"""The simulated table at event level as a feed: ``python -m hardware.sim.events_feed``.

Prints the events a perfect firmware link and camera would report while the scripted players
act out a recorded game (``script.events_of``), one ``{"delay_s", "event"}`` per line (the
daemon's ``[game] feed`` format); the first line is ``{"hands": N}``. The daemon runs this by
command line for ``[game] simulation = "events"`` and plays the feed; it never imports it.
A script that cannot be played: exit status 2, the reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller import events as ev
from hardware.sim import script as sim_script


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware.sim.events_feed")
    p.add_argument("--script", required=True)
    p.add_argument("--ruleset", default="tenhou")
    p.add_argument("--injects", default="[]", help='JSON: [{"rule": R, "hand": H, "seat": S}]')
    p.add_argument("--step", type=float, default=0.5, help="seconds between two events at speed 1")
    args = p.parse_args(argv)
    try:
        faults = [sim_script.Fault(f["rule"], f["hand"], f.get("seat")) for f in json.loads(args.injects)]
        script = sim_script.load_script(args.script, injects=faults)
        events = sim_script.events_of(script, step_s=args.step, ruleset=args.ruleset)
    except (ValueError, OSError, KeyError, TypeError) as err:
        print(f"{args.script}: {err}", file=sys.stderr)
        return 2
    out = sys.stdout
    out.write(json.dumps({"hands": len(script.hands)}) + "\n")
    for i, event in enumerate(events):
        out.write(json.dumps({"delay_s": 0.0 if i == 0 else args.step, "event": ev.to_record(event)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
