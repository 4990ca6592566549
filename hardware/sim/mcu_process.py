"""Start and steer the simulated MCU process (``tablectl sim-mcu``) from Python.

Used by the test fixtures (``tests/fixtures/sim.py``), the benchmark, and the daemon's
embedded default::

    with SimMcuProcess.start(tmp_dir, time_scale=0.01) as sim:
        link = Link(sim.port)          # a stable symlink to the pty
        sim.control("inject", fault="lift_stall")
        sim.state()["motors_running"]
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


class SimMcuError(RuntimeError):
    """The simulator process did not start or its control socket failed (message names why)."""


class SimMcuProcess:
    """A running simulator: ``port`` (stable symlink), ``control(cmd, **args)``, ``state()``, ``stop()``."""

    def __init__(self, proc: subprocess.Popen, info: dict[str, object], workdir: Path) -> None:
        self.proc = proc
        self.info = info
        self.workdir = workdir
        self.port = str(info["link"] or info["port"])
        self.control_path = str(info["control"])
        self.stats_path = workdir / "sim-stats.json"
        self.log_path = workdir / "sim-mcu.log"
        self._sock: socket.socket | None = None
        self._buf = b""

    @classmethod
    def start(cls, workdir: str | os.PathLike, *, time_scale: float = 0.01, extra: list[str] | None = None,
              timeout_s: float = 15.0) -> SimMcuProcess:
        """Start ``python -m hardware.sim.cli`` with its port link and control socket in ``workdir``."""
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, "-m", "hardware.sim.cli", "--link", str(wd / "ttyTABLE"),
                "--control", str(wd / "sim.sock"), "--time-scale", str(time_scale),
                "--stats-file", str(wd / "sim-stats.json"), "--log", str(wd / "sim-mcu.log"),
                *(extra or [])]
        root = Path(__file__).resolve().parents[2]
        env = dict(os.environ)
        env["PYTHONPATH"] = str(root) + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=root)
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
        line = proc.stdout.readline() if ready else b""
        if not line:
            proc.kill()
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise SimMcuError(f"sim-mcu did not announce its port within {timeout_s} s: {err.strip()}")
        return cls(proc, json.loads(line), wd)

    # ------------------------------------------------------------------ control socket
    def control(self, cmd: str, **args: object) -> dict[str, object]:
        """Send one control request, return the reply; ``SimMcuError`` if it says not ok."""
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
        """Stop the process (SIGTERM); returns the stats it wrote (execution counts per job)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
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

    def __enter__(self) -> SimMcuProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
