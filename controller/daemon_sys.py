"""The daemon's edges to the operating system: structured logs on stderr and systemd notify.

``SystemdNotifier`` speaks the sd_notify datagram protocol itself (a ``AF_UNIX``/``SOCK_DGRAM``
send to ``$NOTIFY_SOCKET``; a leading ``@`` is the abstract namespace), so no extra
dependency is needed. Without ``$NOTIFY_SOCKET`` (not under systemd) every call does nothing.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import time

TRAFFIC = 5  # below DEBUG: per-frame traffic (as python-can logs frames at level 9)
logging.addLevelName(TRAFFIC, "TRAFFIC")

_STD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


def _quote(value: object) -> str:
    text = str(value)
    if text == "" or any(c in text for c in ' ="\\\n'):
        return json.dumps(text, ensure_ascii=False)
    return text


class LogfmtFormatter(logging.Formatter):
    """``ts=... level=INFO logger=controller.daemon msg="..." key=value`` (extra= fields appended)."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        parts = [f"ts={ts}", f"level={record.levelname}", f"logger={record.name}",
                 f"msg={_quote(record.getMessage())}"]
        for key, value in record.__dict__.items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                parts.append(f"{key}={_quote(value)}")
        if record.exc_info:
            parts.append(f"exc={_quote(self.formatException(record.exc_info))}")
        return " ".join(parts)


class JsonFormatter(logging.Formatter):
    """One JSON object per line (for log shippers)."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": record.created, "level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        for key, value in record.__dict__.items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                out[key] = value if isinstance(value, int | float | str | bool | type(None)) else str(value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "logfmt") -> None:
    """Send all logs to stderr in the chosen structure (journald keeps stderr)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else LogfmtFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("uvicorn.access", "uvicorn.error", "websockets"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class SystemdNotifier:
    """sd_notify over ``$NOTIFY_SOCKET``; the watchdog interval is half of ``$WATCHDOG_USEC``."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ) if env is None else env
        self.address = env.get("NOTIFY_SOCKET") or None
        self.watchdog_interval_s: float | None = None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        if usec and usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid())):
            self.watchdog_interval_s = int(usec) / 1e6 / 2
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._sock.setblocking(False)

    @property
    def is_enabled(self) -> bool:
        return self._sock is not None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (``notify(READY=1, STATUS="...")``); True when sent."""
        if self._sock is None or self.address is None:
            return False
        message = "\n".join(f"{k}={v}" for k, v in fields.items()).encode("utf-8")
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            self._sock.sendto(message, target)
        except OSError as err:
            logging.getLogger(__name__).warning("systemd notify to %s failed: %s", self.address, err)
            return False
        return True

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
