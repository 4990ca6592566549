"""Run ``tablectl run`` as a real process for the tests (the daemon as systemd would start it)."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(path: Path, *, data: Path, port: int = 0, token: str = "test-token", feed: str = "",
                 speed: float = 1.0, max_failures: int = 5, panel: bool = True, script: str = "off",
                 extra: str = "") -> Path:
    path.write_text(f"""
[storage]
data_dir = "{data}"
synchronous = "normal"
[firmware]
port = "off"
[camera]
source = "off"
[game]
feed = "{feed}"
script = "{script}"
speed = {speed}
[panel]
enabled = {"true" if panel else "false"}
port = {port}
port_fallback = false
token = "{token}"
max_failures = {max_failures}
failure_window_s = 600
{extra}
""")
    return path


class DaemonProc:
    """One daemon process; ``url`` is known once it printed its panel address."""

    def __init__(self, config: Path, *, env: dict[str, str] | None = None, args: tuple[str, ...] = ()) -> None:
        self.env = {**os.environ, **(env or {})}
        self.env.pop("NOTIFY_SOCKET", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(config),
                                      *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=self.env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append), daemon=True).start()
        self.url: str | None = None

    @staticmethod
    def _pump(stream, sink) -> None:
        for line in stream:
            sink(line)

    def wait_ready(self, timeout_s: float = 60.0) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                if self.proc.poll() is not None:
                    raise AssertionError(f"daemon exited {self.proc.returncode}: {''.join(self.stderr)[-2000:]}") from None
                continue
            if line.startswith("panel: "):
                self.url = line.split(" ", 1)[1].strip()
                return self.url
        raise AssertionError(f"daemon not ready after {timeout_s} s: {''.join(self.stderr)[-2000:]}")

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self, timeout_s: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise
        return self.proc.returncode
