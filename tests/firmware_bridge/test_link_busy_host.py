"""A busy host does not trip the MCU's deadman; a dead one still does within 500 ms (issue 16.5).

The load is real: a thread that holds the GIL for most of a second at a time (one C-level sort
of a long list, as a big camera frame or a garbage-collector pass would), an asyncio loop whose
callbacks block for 400 ms, and CPU hogs in other processes, all against the simulated MCU
process on a pty running a real 60 s shuffle (time scale 1: only the deadman stops it).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.link import Link, LinkLost
from tests.firmware_bridge.test_link import Recorder

ROOT = Path(__file__).resolve().parents[2]


def gil_block(min_s: float = 0.8) -> list[float]:
    """A list whose sort holds the GIL for at least ``min_s`` on this machine."""
    n = 1_000_000
    while True:
        data = [random.random() for _ in range(n)]
        t0 = time.monotonic()
        sorted(data)
        if time.monotonic() - t0 >= min_s or n >= 16_000_000:
            return data
        n *= 2


def cpu_hogs(n: int = 2) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def busy_for(seconds: float, data: list[float]) -> None:
    """The host's own loop under load: callbacks that block 400 ms, and GIL-holding sorts."""
    async def main():
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        k = 0
        while loop.time() < end:
            if k % 2:
                loop.call_soon(time.sleep, 0.4)          # a slow callback (GIL released)
            else:
                loop.call_soon(sorted, data)            # a long C call (GIL held throughout)
            k += 1
            await asyncio.sleep(0.01)
    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("keeper", [True, False], ids=["with-keeper", "without-keeper"])
def test_a_busy_host_keeps_the_motors_running(sim_mcu_factory, keeper):
    data = gil_block()
    sim = sim_mcu_factory(time_scale=1.0)
    rec = Recorder()
    link = Link(sim.port, sink=rec, keeper=keeper)
    link.start()
    hogs: list[subprocess.Popen] = []
    try:
        link.wait_up(10)
        assert link.request(p.Shuffle(job=link.next_job(), set=1)).result(10).status == p.ACK_ACCEPTED
        hogs = cpu_hogs()
        busy_for(4.0, data)
        st = sim.state()
        trips = [line for line in sim.control("log", n=500)["lines"] if line["event"] == "deadman"]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        link.close()
    if keeper:
        assert st["fault"] == "" and st["motors_running"] and st["deadman_at"] is None, (trips, st)
        assert not rec.of(LinkLost)
    else:      # the same load without the keeper: the heartbeat starves (the test can fail)
        assert st["fault"] == "deadman" and not st["motors_running"]


HOST = """
import random, sys, time
from firmware_bridge.link import Link
from firmware_bridge import protocol as p
data = [random.random() for _ in range(int(sys.argv[2]))]
link = Link(sys.argv[1]); link.start(); link.wait_up(10)
ack = link.request(p.Shuffle(job=link.next_job(), set=1)).result()
print("moving", ack.status, flush=True)
while True:
    sorted(data)             # busy: the GIL held for most of a second at a time
"""


def _host(sim, data) -> subprocess.Popen:
    host = subprocess.Popen([sys.executable, "-c", HOST, sim.port, str(len(data))], stdout=subprocess.PIPE,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert host.stdout.readline().split() == [b"moving", b"1"]
    return host


@pytest.mark.slow
def test_a_busy_host_killed_still_stops_the_motors_within_500_ms(sim_mcu_factory):
    data = gil_block()
    sim = sim_mcu_factory(time_scale=1.0)
    host = _host(sim, data)
    try:
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:             # busy, alive: the table keeps running
            assert sim.state()["fault"] == ""
            time.sleep(0.1)
        t_kill = time.monotonic()
        host.send_signal(signal.SIGKILL)
        st = sim.wait_for(lambda s: s["fault"] == "deadman", timeout_s=10)
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
    assert not st["motors_running"] and not st["motor_power"]
    assert st["motors_stopped_at"] - t_kill <= 0.5 + 0.05, st["motors_stopped_at"] - t_kill


@pytest.mark.slow
def test_a_hung_host_trips_the_deadman_once_the_keepers_grace_is_over(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)
    host = _host(sim, [0.0] * 10)
    try:
        t_stop = time.monotonic()
        host.send_signal(signal.SIGSTOP)               # hung, not gone: covered for 3 s only
        st = sim.wait_for(lambda s: s["fault"] == "deadman", timeout_s=20)
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
    assert st["deadman_at"] - t_stop >= 3.0 and not st["motors_running"]
