"""The world part: a simulated table run by command line, spoken to over its standard streams."""

from __future__ import annotations

import asyncio
import sys

import pytest

from controller import events as ev
from controller.config import ConfigError
from controller.daemon_world import WorldPart

# a tiny world: says it is ready, waits for go, reports the staff's start, echoes one command
ECHO = r"""
import json, sys
print(json.dumps({"ready": {"handles": ["cmd.lift"], "watches": ["cmd.show"]}}), flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("go"):
        print(json.dumps({"event": {"kind": "staff.reset", "reason": "r", "now": 1.0}, "source": "staff"}), flush=True)
        print(json.dumps({"status": {"finished": False, "frames": 3}}), flush=True)
    elif "command" in msg:
        print(json.dumps({"status": {"got": msg["command"]["kind"]}}), flush=True)
"""


def test_a_world_that_ends_before_it_is_ready_is_a_config_error_naming_it():
    part = WorldPart([sys.executable, "-c", "import sys; sys.exit(3)"], ready_timeout_s=30)
    with pytest.raises(ConfigError, match="did not get ready.*status 3"):
        part.spawn()


def test_events_commands_and_status_cross_the_streams():
    part = WorldPart([sys.executable, "-c", ECHO], ready_timeout_s=30)
    posted: list = []

    async def run() -> None:
        await part.start(lambda source, event: posted.append((source, event)))
        for _ in range(200):
            if posted and part.status().get("frames") == 3:
                break
            await asyncio.sleep(0.05)
        assert part.handle(ev.Show(what="result", data={}, now=0.0)) is False   # watched, not carried out
        for _ in range(200):
            if part.status().get("got") == "cmd.show":
                break
            await asyncio.sleep(0.05)
        await part.stop()

    asyncio.run(run())
    assert [(s, type(e)) for s, e in posted] == [("staff", ev.Reset)]
    assert part.status()["got"] == "cmd.show"
    assert part.proc is not None and part.proc.poll() is not None          # ended with its stdin
