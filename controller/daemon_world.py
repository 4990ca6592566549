"""The simulated table as a world outside the daemon: a process started by command line.

The daemon never imports the simulator (``hardware.sim``); on the sim backend it starts the
simulated table as a separate process, ``python -m hardware.sim.world ...`` (the command is a
string here, not an import), and talks to it over its standard streams, one JSON object per
line:

- the world → the daemon: ``{"ready": {...}}`` once (what it serves: the MCU's pty, the camera
  stream's socket, the commands it carries out), then ``{"event": RECORD, "source": S}`` (what
  the people at the table do that the daemon learns by other means than its devices: the staff
  starting the game, the staff's reset after putting a tile back) and ``{"status": {...}}`` now
  and then (the staff view's line);
- the daemon → the world: ``{"go": true}`` once its loop takes events, with ``"resume":
  POSITION`` when the daemon started again on a game under way (``controller.daemon_resume``:
  the game, the hand and the step within it; the world lays the table out as it stood and
  answers ``{"resumed": {...}}`` before its players go on); then ``{"command": RECORD}`` for the
  commands the world said it watches (what the table's display shows the players: a result to
  confirm).

A world that ends (or never says it is ready) is a part that failed: the panel says why; the
daemon keeps running.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.config import ConfigError

log = logging.getLogger(__name__)

WORLD_MODULE = "hardware.sim.world"       # run by command line, never imported here
READY_TIMEOUT_S = 180.0
ROOT = Path(__file__).resolve().parents[1]


def world_command(*args: str) -> list[str]:
    """The command line of the simulated table's world process."""
    return [sys.executable, "-m", WORLD_MODULE, *args]


class WorldPart:
    """The world process as a daemon part (``controller.daemon.Part``)."""

    name = "sim-table"

    def __init__(self, argv: list[str], *, ready_timeout_s: float = READY_TIMEOUT_S) -> None:
        self.argv = list(argv)
        self.ready_timeout_s = ready_timeout_s
        self.proc: subprocess.Popen | None = None
        self.info: dict[str, Any] = {}
        self.handles: set[str] = set()
        self.watches: set[str] = set()
        self._status: dict[str, Any] = {}
        self._post: Callable[..., None] | None = None
        self._early: list[tuple[str, ev.Event]] = []        # events before the daemon's loop started
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None
        self._resumed = threading.Event()
        self.position: dict[str, Any] | None = None     # where the table stands (controller.daemon_resume)
        self.error = ""

    # ------------------------------------------------------------------ the process
    def spawn(self) -> dict[str, Any]:
        """Start the world and wait for its ``ready`` line; return what it serves."""
        if self.proc is not None:
            return self.info
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", ""))
                                                             if p)}
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                         bufsize=1, env=env)
        except OSError as err:
            raise ConfigError(f"sim table: cannot start the world {self.argv[:3]}: {err}") from err
        self._reader = threading.Thread(target=self._read, name="sim-world", daemon=True)
        self._reader.start()
        if not self._ready.wait(self.ready_timeout_s) or not self.info:
            self.close()
            raise ConfigError(f"sim table: the world process did not get ready ({self.error or 'no ready line'})")
        self.handles = set(self.info.get("handles", ()))
        self.watches = set(self.info.get("watches", ()))
        return self.info

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                log.warning("sim world: not a message: %.200s", line)
                continue
            if "ready" in msg:
                self.info = dict(msg["ready"])
                self._ready.set()
            elif "resumed" in msg:
                log.info("sim world: the players go on from %s", msg["resumed"])
                self._resumed.set()
            elif "status" in msg:
                self._status = dict(msg["status"])
            elif "event" in msg:
                self._event(msg)
        code = self.proc.wait()
        if not self._ready.is_set():
            self.error = f"the world ended with status {code} before it was ready"
        elif code not in (0, -15):
            self.error = f"the world ended with status {code}"
            log.error("sim world: %s", self.error)
        self._ready.set()

    def _event(self, msg: dict) -> None:
        try:
            event = ev.from_record(msg["event"])
        except ev.EventError as err:
            log.warning("sim world: a bad event record: %s", err)
            return
        if not isinstance(event, ev.Event):
            return
        source = str(msg.get("source") or "sim-table")
        with self._lock:
            post = self._post
            if post is None:
                self._early.append((source, event))
                return
        post(source, event)

    def _send(self, obj: dict) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None or proc.poll() is not None:
            return
        try:
            proc.stdin.write(json.dumps(obj) + "\n")
            proc.stdin.flush()
        except (OSError, ValueError) as err:       # the world has gone: its status says why
            log.debug("sim world: cannot write: %s", err)

    def close(self) -> None:
        """End the world (stdin closed, then SIGTERM, then SIGKILL) and wait for it."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)

    # ------------------------------------------------------------------ Part protocol
    async def start(self, post: Callable[..., None]) -> None:
        import asyncio
        if self.proc is None:
            await asyncio.to_thread(self.spawn)
        with self._lock:
            self._post = post
            early, self._early = self._early, []
        for source, event in early:
            post(source, event)
        if self.position is None:
            self._send({"go": True})
            return
        # the world lays the table out as the game has it before anything of it is seen
        self._send({"go": True, "resume": self.position})
        if not await asyncio.to_thread(self._resumed.wait, self.ready_timeout_s):
            log.warning("sim world: no word that the players took up the game (%s)", self.error or "no answer")

    def resume(self, position: dict[str, Any]) -> None:
        """The daemon started again: the players go on from ``position`` (``controller.daemon_resume``)."""
        self.position = {k: v for k, v in position.items() if k != "seed"}

    async def stop(self) -> None:
        import asyncio
        await asyncio.to_thread(self.close)

    def handle(self, command: ev.Command) -> bool:
        kind = type(command).KIND
        if kind in self.handles or kind in self.watches:
            self._send({"command": ev.to_record(command)})
        return kind in self.handles

    def status(self) -> dict[str, Any]:
        out = dict(self._status)
        out["pid"] = self.proc.pid if self.proc is not None else None
        if self.error:
            out["error"] = out.get("error") or self.error
        return out

