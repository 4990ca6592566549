"""The daemon's loop and its edges: systemd notify, watchdog, SIGTERM, commit before apply."""

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from controller import config, events
from controller.daemon import Core, Daemon
from controller.daemon_sys import SystemdNotifier
from controller.storage import EventStore


def _spawn(args, env):
    return subprocess.Popen([sys.executable, "-m", "controller.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _recv_until(sock, predicate, timeout_s=30.0):
    got = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            msg = sock.recv(4096).decode()
        except TimeoutError:
            break
        got.append(msg)
        if predicate(got):
            return got
    raise AssertionError(f"notify messages never matched; got {got}")


@pytest.fixture
def notify_socket():
    folder = tempfile.mkdtemp(prefix="jt-notify-", dir="/tmp")  # AF_UNIX paths are short (108 bytes)
    path = os.path.join(folder, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    yield path, sock
    sock.close()
    shutil.rmtree(folder, ignore_errors=True)


def test_systemd_ready_status_watchdog_and_clean_sigterm(tmp_path, notify_socket):
    path, sock = notify_socket
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"}
    env.pop("WATCHDOG_PID", None)
    proc = _spawn(["run", "--data", str(tmp_path / "data"), "--port", "0"], env)
    try:
        try:
            got = _recv_until(sock, lambda m: any("READY=1" in x for x in m))
        except AssertionError:
            proc.kill()
            raise AssertionError(f"no READY=1; daemon stderr: {proc.communicate()[1][-3000:]}") from None
        assert any("STATUS=" in x for x in got)
        t0 = time.monotonic()
        # WATCHDOG=1 keeps coming at about half of WATCHDOG_USEC (0.2 s) while the loop is healthy
        got = _recv_until(sock, lambda m: sum(x == "WATCHDOG=1" for x in m) >= 5)
        assert time.monotonic() - t0 >= 0.15 * 4
        assert proc.stdout.readline().startswith("panel: http://127.0.0.1:")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        _recv_until(sock, lambda m: any("STOPPING=1" in x for x in m))
    finally:
        proc.kill()
        proc.wait()
    err = proc.stderr.read()
    assert "level=INFO logger=controller.daemon msg=ready" in err and "msg=stopped" in err


def test_notifier_is_silent_without_systemd():
    n = SystemdNotifier(env={})
    assert not n.is_enabled and n.watchdog_interval_s is None and n.notify(READY=1) is False


def test_watchdog_for_another_pid_is_not_ours():
    assert SystemdNotifier(env={"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}).watchdog_interval_s is None
    assert SystemdNotifier(env={"WATCHDOG_USEC": "1000000"}).watchdog_interval_s == 0.5


def run_in_thread(coro_fn):
    """asyncio.run in a thread of its own (the Playwright fixture may own this thread's loop)."""
    out = {}

    def target():
        try:
            out["value"] = asyncio.run(coro_fn())
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            out["error"] = err

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=120)
    if "error" in out:
        raise out["error"]
    return out["value"]


class Spy:
    """A part that records, at each command, what the store already holds."""

    name = "spy"

    def __init__(self, store):
        self.store, self.seen = store, []

    async def start(self, post):
        pass

    async def stop(self):
        pass

    def handle(self, command):
        self.seen.append((command.KIND, self.store.last_seq))
        return True

    def status(self):
        return {}


def test_each_event_is_committed_before_it_is_applied(tmp_path, monkeypatch):
    cfg = config.replace(config.load(env={}), panel={"enabled": False})
    store = EventStore.open(tmp_path)
    daemon = Daemon(cfg, store, notifier=SystemdNotifier(env={}))
    applied = []
    real_apply = Core.apply

    def apply(self, event):
        # the event must already be a row when the state machines see it
        row = list(store.events(after=store.last_seq - 1))[-1]
        applied.append((event.KIND, row.kind, row.payload == events.to_record(event)))
        return real_apply(self, event)

    monkeypatch.setattr(Core, "apply", apply)

    async def scenario():
        task = asyncio.create_task(daemon.run())
        while daemon._queue is None:
            await asyncio.sleep(0.01)
        seq = await daemon.submit("panel", events.Reset(reason="test", now=1.0))
        daemon.post("gpio", events.Lid(is_open=True, now=2.0), src_seq=1)
        daemon.post("gpio", events.Lid(is_open=True, now=2.0), src_seq=1)  # re-sent: stored once
        seq2 = await daemon.submit("gpio", events.EStop(is_pressed=True, now=3.0))
        daemon.request_stop()
        assert await task == 0
        return seq, seq2

    seq, seq2 = run_in_thread(scenario)
    assert (seq, seq2) == (1, 3)
    assert applied == [("staff.reset", "staff.reset", True), ("lid", "lid", True), ("estop", "estop", True)]
    assert daemon.core.machine["state"] == "halted" and daemon.core.machine["lid_open"]
    assert [e.kind for e in store.events()] == ["staff.reset", "lid", "estop"]


def test_state_is_rebuilt_from_the_log(tmp_path):
    cfg = config.replace(config.load(env={}), panel={"enabled": False})
    store = EventStore.open(tmp_path)
    for e in (events.McuFault(code="lift_jam", detail="wall 2", now=1.0), events.Lid(is_open=True, now=2.0)):
        store.append("mcu", e.KIND, events.to_record(e))
    daemon = Daemon(cfg, store, notifier=SystemdNotifier(env={}))
    assert daemon.rebuild() == 2
    assert daemon.core.machine["state"] == "halted" and daemon.core.machine["reason"] == "lift_jam: wall 2"


class Eye:
    """A camera-like part that can give its current frame as a JPEG (real bytes)."""

    name = "eye"

    async def start(self, post):
        pass

    async def stop(self):
        pass

    def handle(self, command):
        return False

    def status(self):
        return {}

    def latest_jpeg(self):
        import cv2
        import numpy as np
        frame = np.full((48, 64, 3), (40, 120, 40), np.uint8)
        return cv2.imencode(".jpg", frame)[1].tobytes()


def test_an_alert_is_logged_after_its_cause_with_the_frame_as_evidence(tmp_path):
    cfg = config.replace(config.load(env={}), panel={"enabled": False})
    store = EventStore.open(tmp_path)
    daemon = Daemon(cfg, store, parts=[Eye()], notifier=SystemdNotifier(env={}))

    async def scenario():
        task = asyncio.create_task(daemon.run())
        while daemon._queue is None:
            await asyncio.sleep(0.01)
        # the game tracker cannot follow this ruleset: it raises an integrity alert
        await daemon.submit("panel", events.StartGame(ruleset="no-such-rules", now=1.0))
        daemon.request_stop()
        return await task

    assert run_in_thread(scenario) == 0
    rows = list(store.events())
    assert [r.kind for r in rows] == ["staff.start_game", "alert"]
    assert rows[1].source == "integrity" and rows[1].payload["rule"] == "inconsistent"
    name = daemon.hub.evidence[rows[1].seq]
    path = store.evidence_path(name)
    assert path is not None and path.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    assert [a["rule"] for a in daemon.snapshot()["alerts"]] == ["inconsistent"]


class Stall:
    """A part that blocks the daemon's loop once for ``stall_s`` (a hung loop)."""

    name = "stall"

    def __init__(self, stall_s):
        self.stall_s = stall_s

    async def start(self, post):
        asyncio.get_running_loop().call_later(0.5, time.sleep, self.stall_s)

    async def stop(self):
        pass

    def handle(self, command):
        return False

    def status(self):
        return {}


def test_watchdog_pings_come_from_the_loop_and_stop_while_it_hangs(notify_socket, tmp_path):
    path, sock = notify_socket
    cfg = config.replace(config.load(env={}), panel={"enabled": False})
    store = EventStore.open(tmp_path)
    notifier = SystemdNotifier(env={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    daemon = Daemon(cfg, store, parts=[Stall(1.2)], notifier=notifier)
    pings: list[float] = []

    def listen():
        sock.settimeout(0.1)
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            try:
                if sock.recv(4096) == b"WATCHDOG=1":
                    pings.append(time.monotonic())
            except TimeoutError:
                pass

    listener = threading.Thread(target=listen)
    listener.start()

    async def scenario():
        task = asyncio.create_task(daemon.run())
        await asyncio.sleep(2.5)
        daemon.request_stop()
        return await task

    assert run_in_thread(scenario) == 0
    listener.join()
    gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
    assert len(pings) >= 6                       # every ~0.1 s while the loop runs
    assert max(gaps) >= 1.0                      # none while the loop hung for 1.2 s
    assert sorted(gaps)[len(gaps) // 2] < 0.3    # otherwise at half of WATCHDOG_USEC
