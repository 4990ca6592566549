"""Run the panel (uvicorn) inside the daemon's own asyncio loop.

The socket is bound here, before uvicorn starts, so that a busy port can fall back to a
free one (``[panel] port_fallback``) and the address is known at once. uvicorn's own
signal handling is turned off: the daemon owns SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from typing import TYPE_CHECKING

import uvicorn

from controller.config import ConfigError

if TYPE_CHECKING:
    from controller.panel.facade import Table

log = logging.getLogger(__name__)


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self):  # the daemon handles SIGTERM/SIGINT itself
        yield


def bind(host: str, port: int, *, fallback: bool) -> socket.socket:
    """A listening TCP socket on host:port, or on a free port when that is busy and ``fallback``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        if err.errno != errno.EADDRINUSE or not fallback:
            sock.close()
            raise ConfigError(f"panel: cannot listen on {host}:{port}: {err.strerror}") from err
        log.warning("panel: port %d is in use, taking a free one", port)
        sock.bind((host, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def start_panel(table: Table) -> tuple[asyncio.Task, str]:
    """Serve the panel for ``table`` (the daemon's narrow door) in this loop; returns the server's
    task and the panel's address."""
    from controller.panel.app import create_app
    cfg = table.panel
    sock = bind(cfg.host, cfg.port, fallback=cfg.port_fallback)
    host, port = sock.getsockname()[:2]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{port}/"
    config = uvicorn.Config(create_app(table), log_level="warning", lifespan="off", access_log=False,
                            timeout_graceful_shutdown=2, ws_ping_interval=10, ws_ping_timeout=10,
                            ws_max_size=64 * 1024, h11_max_incomplete_event_size=64 * 1024)
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            task.result()
            raise ConfigError(f"panel: server on {url} did not start")
        await asyncio.sleep(0.01)
    task.server = server  # type: ignore[attr-defined]
    log.info("panel listening", extra={"url": url})
    return task, url


async def stop_panel(task: asyncio.Task) -> None:
    server: _Server = task.server  # type: ignore[attr-defined]
    server.should_exit = True
    try:
        await asyncio.wait_for(task, timeout=5)
    except (TimeoutError, asyncio.CancelledError):
        task.cancel()
