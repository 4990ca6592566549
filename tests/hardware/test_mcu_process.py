"""The simulator process's own life: it ends with its parent, it survives a loaded machine and rude
control clients, and it can be restarted on the same port link."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from firmware_bridge import protocol as p
from firmware_bridge.link import Link, LinkUp

ROOT = Path(__file__).resolve().parents[2]

# Starts the simulator from a worker thread that then ends (as asyncio.to_thread does in the
# daemon): the simulator must outlive that thread, and die with the process.
HOST = """
import sys, threading, time
from hardware.sim.mcu_process import SimMcuProcess
box = []
t = threading.Thread(target=lambda: box.append(SimMcuProcess.start(sys.argv[1])))
t.start(); t.join()
print(box[0].proc.pid, flush=True)
time.sleep(60)
"""


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for init to reap it)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def _wait(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_the_simulator_ends_when_its_parent_is_killed(tmp_path):
    host = subprocess.Popen([sys.executable, "-c", HOST, str(tmp_path / "sim")], stdout=subprocess.PIPE,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    sim_pid = 0
    try:
        sim_pid = int(host.stdout.readline())
        time.sleep(0.3)                       # the starting thread has ended: the simulator runs on
        assert _running(sim_pid)
        host.send_signal(signal.SIGKILL)
        host.wait()
        t_kill = time.monotonic()
        assert _wait(lambda: not _running(sim_pid), 5.0), "simulator outlived its parent"
        gone_after = time.monotonic() - t_kill
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
        if sim_pid and _running(sim_pid):
            os.kill(sim_pid, signal.SIGKILL)
    assert gone_after < 2.0, gone_after
    # it ended through its own shutdown: stats written, port link and control socket removed
    assert (tmp_path / "sim" / "sim-stats.json").exists()
    assert not (tmp_path / "sim" / "ttyTABLE").exists() and not (tmp_path / "sim" / "sim.sock").exists()


def test_a_starved_simulator_reads_the_waiting_heartbeats_before_judging_the_deadman(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)          # a real 60 s shuffle keeps the motors running
    link = Link(sim.port, link_timeout_s=5.0)
    link.start()
    try:
        link.wait_up(10)
        assert link.request(p.Shuffle(job=link.next_job(), set=1)).result(10).status == p.ACK_ACCEPTED
        os.kill(sim.proc.pid, signal.SIGSTOP)       # not scheduled for 1 s; the host keeps sending pings
        time.sleep(1.0)
        os.kill(sim.proc.pid, signal.SIGCONT)
        time.sleep(0.3)
        st = sim.state()
    finally:
        os.kill(sim.proc.pid, signal.SIGCONT)
        link.close()
    assert st["fault"] == "" and st["motors_running"] and st["deadman_at"] is None


def test_a_control_client_that_hangs_up_does_not_stop_the_simulator(sim_mcu):
    for _ in range(3):
        rude = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        rude.connect(sim_mcu.control_path)
        rude.sendall(b'{"cmd": "log", "n": 500}\n{"cmd": "state"}\n')
        rude.close()                                # gone before the answers
    bad = sim_mcu.control_path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(bad)
        s.sendall(b'{"cmd": "press", "seat": 9, "action": "ok"}\n')
        reply = s.makefile().readline()
    assert '"ok": false' in reply and "seat" in reply
    assert sim_mcu.state()["ok"] and sim_mcu.is_alive


def test_a_killed_simulator_comes_back_on_the_same_link_as_a_rebooted_mcu(sim_mcu):
    ups: list[LinkUp] = []
    link = Link(sim_mcu.port, sink=lambda ev: ups.append(ev) if isinstance(ev, LinkUp) else None,
                reopen_s=0.05)
    link.start()
    try:
        link.wait_up(10)
        first = sim_mcu.proc.pid
        os.kill(first, signal.SIGKILL)             # killed while in use (a crash, a careless pkill)
        assert _wait(lambda: len(ups) == 2, 15.0), ups     # its watchdog started it again
        ack = link.request(p.Display(job=link.next_job(), seat=0, text="back")).result(10)
    finally:
        link.close()
    assert sim_mcu.proc.pid != first and sim_mcu.restarts == 1
    assert ups[1].rebooted and ack.status == p.ACK_DONE
    assert sim_mcu.state()["displays"]["0"] == "back"


def test_control_from_many_threads_at_once_gets_each_its_own_answer(sim_mcu_factory):
    import threading

    sim = sim_mcu_factory()          # fresh: the threads race for the first connection too
    wrong: list[str] = []
    start = threading.Barrier(6)

    def worker(i: int) -> None:
        start.wait()
        for k in range(30):
            # three requests whose answers cannot be mistaken for one another
            for cmd, key in (("state", "motors_running"), ("stats", "executed"), ("log", "lines")):
                reply = sim.control(cmd)
                if key not in reply:
                    wrong.append(f"thread {i} turn {k}: {cmd} answered {sorted(reply)}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert wrong == [] and sim.is_alive and sim.restarts == 0


def test_a_simulator_asked_to_end_is_not_started_again(sim_mcu):
    """SIGTERM (systemd stopping the whole service, Ctrl-C in the terminal) ends it cleanly: that is
    no crash, and the watchdog leaves it ended."""
    first = sim_mcu.proc.pid
    os.kill(first, signal.SIGTERM)
    assert _wait(lambda: sim_mcu.proc.poll() is not None, 10.0)
    assert sim_mcu.proc.returncode == 0
    time.sleep(1.0)                                   # four watchdog rounds
    assert sim_mcu.proc.pid == first and sim_mcu.restarts == 0 and not sim_mcu.is_alive
