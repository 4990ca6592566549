"""The mock pins' other side: a control socket through which a simulated table drives the lines.

On the simulated table the daemon's GPIO part runs on gpiozero's ``MockFactory`` exactly as on a
Pi (``firmware_bridge.gpio.TableGpio``); what a wired circuit would do to the pins (a player
pressing a dice button, the lid lifted, the e-stop struck) comes from the simulated table's own
process over this unix socket. One JSON object per line each way:

- ``{"line": "estop" | "lid", "active": true}``: the e-stop pressed / the lid open (false: back);
- ``{"line": "dice_button", "seat": 2, "active": true}``: the seat's dice button held down;
- ``{"get": "outputs"}``: ``{"lamps": [...], "relay": bool, "status_led": bool}``, what the
  daemon drives (the players see the lamps).

Each request gets ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}`` (an unknown line,
a seat out of range, a malformed line); a bad request never touches a pin.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
from pathlib import Path
from typing import Any

from firmware_bridge.pinmap import InputLine, PinMap

log = logging.getLogger(__name__)


class LineServer:
    """Serves ``path`` on a thread; drives ``factory``'s mock pins of ``pinmap``'s input lines."""

    def __init__(self, path: str | Path, pinmap: PinMap, factory: Any) -> None:
        self.path = Path(path)
        self.pinmap = pinmap
        self.factory = factory
        self._stop = threading.Event()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self._sock.listen(4)
        self._sock.settimeout(0.2)
        self.requests = 0
        self._thread = threading.Thread(target=self._serve, name="gpio-lines", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), name="gpio-lines-client", daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rwb") as fh:
            for raw in fh:
                if self._stop.is_set():
                    return
                try:
                    reply = {"ok": True, **self.execute(json.loads(raw))}
                except (ValueError, TypeError, KeyError) as err:
                    reply = {"ok": False, "error": str(err)}
                try:
                    fh.write(json.dumps(reply).encode() + b"\n")
                    fh.flush()
                except OSError:
                    return

    def execute(self, req: dict) -> dict:
        """One request (see the module docstring); raises ValueError naming what is wrong."""
        if not isinstance(req, dict):
            raise ValueError("a request must be a JSON object")
        self.requests += 1
        if req.get("get") == "outputs":
            return self.outputs()
        name = req.get("line")
        if name in ("estop", "lid"):
            line = self.pinmap.estop if name == "estop" else self.pinmap.lid
        elif name == "dice_button":
            seat = req.get("seat")
            if not isinstance(seat, int) or not 0 <= seat < len(self.pinmap.dice_buttons):
                raise ValueError(f"dice_button: seat {seat!r} is not 0..{len(self.pinmap.dice_buttons) - 1}")
            line = self.pinmap.dice_buttons[seat]
        else:
            raise ValueError(f"unknown line {name!r} (estop, lid, dice_button)")
        active = req.get("active")
        if not isinstance(active, bool):
            raise ValueError(f"{name}: active must be true or false, got {active!r}")
        self._drive(line, active)
        return {}

    def _drive(self, line: InputLine, active: bool) -> None:
        pin = self.factory.pin(line.pin)
        high = (line.active == "high") == active
        pin.drive_high() if high else pin.drive_low()

    def outputs(self) -> dict:
        def level(pin: int) -> bool:
            return bool(self.factory.pin(pin).state)
        pm = self.pinmap
        return {"lamps": [level(lamp.pin) == lamp.is_active_high for lamp in pm.lamps],
                "relay": level(pm.relay.pin) == pm.relay.is_active_high,
                "status_led": level(pm.status_led.pin) == pm.status_led.is_active_high}

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.close()
        self._thread.join(timeout=2)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

