"""Run an MCU process by command line and steer it through its control socket.

An MCU that is a process on this machine (the simulated table's, ``tablectl sim-mcu``, or any
program that speaks hardware/PROTOCOL.md on a pty and its "Simulator control" socket) is started
by command line, never imported: ``McuProcess.start(workdir, command=[...])``, where the command
takes ``--link PATH --control PATH --time-scale X --stats-file PATH --log PATH --parent-pid PID``
and prints ``{"port", "link", "control"}`` as its first line on stdout. The default command is the
simulated MCU's (``SIM_MCU_COMMAND``)::

    with McuProcess.start(tmp_dir, time_scale=0.01) as sim:
        link = Link(sim.port)          # a stable symlink to the pty
        sim.control("inject", fault="lift_stall")
        sim.state()["motors_running"]

The simulator ends by itself when the process that started it dies (``--parent-pid``, checked
every 100 ms), so a daemon killed with ``kill -9`` leaves no simulator behind. The other way
round, a simulator that ends while it is still wanted (killed by someone, crashed) is started
again on the same port link within about half a second (``respawn``, at most
``RESPAWN_MAX`` times a minute); to the host that is a replugged, rebooted MCU, which the link
rides out by reconnecting and identifying again. ``restart()`` does the same on demand.
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from firmware_bridge.errors import BridgeError

log = logging.getLogger(__name__)
RESPAWN_MAX = 5          # restarts per minute before the watchdog gives up (a simulator that cannot run)


# the simulated table's MCU (hardware/sim/cli.py), run as a program
SIM_MCU_COMMAND = ("-m", "hardware.sim.cli")


class SimMcuError(BridgeError, RuntimeError):
    """The MCU process did not start or its control socket failed (message names why)."""


class McuProcess:
    """A running simulator: ``port`` (stable symlink), ``control(cmd, **args)``, ``state()``, ``stop()``."""

    def __init__(self, proc: subprocess.Popen, info: dict[str, object], workdir: Path,
                 args: tuple[float, list[str], float] = (0.01, [], 15.0), *, respawn: bool = False,
                 command: tuple[str, ...] = SIM_MCU_COMMAND) -> None:
        self.proc = proc
        self.info = info
        self.workdir = workdir
        self.port = str(info["link"] or info["port"])
        self.control_path = str(info["control"])
        self.stats_path = workdir / "sim-stats.json"
        self.log_path = workdir / "sim-mcu.log"
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()        # control() from several threads: one request at a time
        self._args = args
        self.command = tuple(command)
        self.restarts = 0
        self._life = threading.Lock()        # restart and stop, one at a time
        self._stopping = threading.Event()
        self._respawns: list[float] = []
        if respawn:
            threading.Thread(target=self._watchdog, name=f"sim-mcu-watchdog-{proc.pid}", daemon=True).start()

    @classmethod
    def start(cls, workdir: str | os.PathLike, *, time_scale: float = 0.01, extra: list[str] | None = None,
              timeout_s: float = 15.0, respawn: bool = True, command: tuple[str, ...] = SIM_MCU_COMMAND
              ) -> McuProcess:
        """Start ``python COMMAND`` (default: the simulated MCU) with its port link and control socket
        in ``workdir``. ``respawn``: start it again should it end before ``stop()``."""
        wd = Path(workdir)
        proc, info = cls._spawn(wd, time_scale, list(extra or []), timeout_s, tuple(command))
        return cls(proc, info, wd, (time_scale, list(extra or []), timeout_s), respawn=respawn, command=command)

    @staticmethod
    def _spawn(wd: Path, time_scale: float, extra: list[str], timeout_s: float,
               command: tuple[str, ...] = SIM_MCU_COMMAND) -> tuple[subprocess.Popen, dict[str, object]]:
        wd.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, *command, "--link", str(wd / "ttyTABLE"),
                "--control", str(wd / "sim.sock"), "--time-scale", str(time_scale),
                "--stats-file", str(wd / "sim-stats.json"), "--log", str(wd / "sim-mcu.log"),
                "--parent-pid", str(os.getpid()), *extra]
        root = Path(__file__).resolve().parents[1]
        env = dict(os.environ)
        env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
        # stderr to a file: a pipe nobody reads would block the simulator once it filled up
        with open(wd / "sim-stderr.log", "ab") as err_file:
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err_file, env=env, cwd=root)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
        line = proc.stdout.readline() if ready else b""
        if not line:
            proc.kill()
            proc.wait()
            proc.stdout.close()
            err = (wd / "sim-stderr.log").read_text(errors="replace").strip().splitlines()[-5:]
            raise SimMcuError(f"sim-mcu did not announce its port within {timeout_s} s: {' | '.join(err)}")
        return proc, json.loads(line)

    @property
    def is_alive(self) -> bool:
        return self.proc.poll() is None

    def restart(self) -> None:
        """Start a fresh simulator on the same link path (after it died: a replugged, rebooted MCU)."""
        with self._life:
            self._restart()

    def _restart(self) -> None:
        self._end_process()
        # a killed simulator leaves its link pointing at a freed /dev/pts/N, which the kernel may hand
        # to somebody else's terminal: take it away before the host reopens it
        link = self.workdir / "ttyTABLE"
        if link.is_symlink():
            link.unlink()
        time_scale, extra, timeout_s = self._args
        self.proc, self.info = self._spawn(self.workdir, time_scale, extra, timeout_s, self.command)
        self.port = str(self.info["link"] or self.info["port"])
        self.control_path = str(self.info["control"])
        self.restarts += 1

    def _watchdog(self) -> None:
        while not self._stopping.wait(0.25):
            with self._life:
                if self._stopping.is_set() or self.proc.poll() is None:
                    continue
                if self.proc.returncode == 0:
                    # it ended on its own, cleanly: asked to (SIGTERM, e.g. systemd stopping the whole
                    # service), or its parent went away. Not a crash: it is not started again
                    log.info("sim-mcu: pid %d ended cleanly; not starting it again", self.proc.pid)
                    return
                now = time.monotonic()
                self._respawns = [t for t in self._respawns if now - t < 60.0]
                if len(self._respawns) >= RESPAWN_MAX:
                    log.error("sim-mcu: ended %d times within a minute; not starting it again", RESPAWN_MAX)
                    return
                self._respawns.append(now)
                log.error("sim-mcu: pid %d ended (status %s) while in use; starting it again",
                          self.proc.pid, self.proc.returncode)
                try:
                    self._restart()
                except (SimMcuError, OSError) as err:
                    log.error("sim-mcu: cannot start it again: %s", err)

    # ------------------------------------------------------------------ control socket
    def control(self, cmd: str, **args: object) -> dict[str, object]:
        """Send one control request, return the reply; ``SimMcuError`` if it says not ok. Thread-safe."""
        if cmd == "quit":
            self._stopping.set()             # asked to end: the watchdog lets it
        with self._lock:
            try:
                return self._control(cmd, **args)
            except OSError as err:        # timed out or the simulator went away: start clean next time
                if self._sock is not None:
                    self._sock.close()
                self._sock, self._buf = None, b""
                raise SimMcuError(f"sim-mcu control {cmd!r}: {err}") from err

    def _control(self, cmd: str, **args: object) -> dict[str, object]:
        if self._sock is None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(10.0)
            self._sock.connect(self.control_path)
        self._sock.sendall(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise SimMcuError("sim-mcu control socket closed")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise SimMcuError(f"sim-mcu control {cmd!r}: {reply.get('error')}")
        return reply

    def state(self) -> dict[str, object]:
        return self.control("state")

    def wait_for(self, predicate, *, timeout_s: float = 10.0, interval_s: float = 0.01) -> dict[str, object]:
        """Poll ``state()`` until ``predicate(state)`` holds; ``SimMcuError`` with the last state otherwise."""
        deadline = time.monotonic() + timeout_s
        while True:
            st = self.state()
            if predicate(st):
                return st
            if time.monotonic() > deadline:
                raise SimMcuError(f"sim-mcu: condition not met within {timeout_s} s; state {st}")
            time.sleep(interval_s)

    def stop(self) -> dict[str, object]:
        """Stop the process (SIGTERM) for good; returns the stats it wrote (execution counts per job)."""
        self._stopping.set()
        with self._life:
            return self._end_process()

    def _end_process(self) -> dict[str, object]:
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None
            self._buf = b""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()
        try:
            return json.loads(self.stats_path.read_text())
        except (OSError, ValueError):
            return {}

    def __enter__(self) -> McuProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
