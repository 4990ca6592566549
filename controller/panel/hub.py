"""Fan the table's state out to the panel's WebSocket clients.

The daemon calls ``publish(model)`` in its loop after each applied event with the new
:class:`~controller.panel.facade.ReadModel`; when it changed, every client's writer wakes. A
writer always sends the newest state (intermediate states are coalesced), so a slow screen
never holds the loop back. ``show()`` keeps what the game asked to show (a result, the
settlement), sent with the state.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

from controller.panel.facade import ReadModel

log = logging.getLogger(__name__)


class _Client:
    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.sent_version = -1


class PanelHub:
    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.message = "{}"
        self.version = 0
        self.shown: dict[str, Any] = {}
        self.evidence: dict[int, str] = {}
        self._clients: set[_Client] = set()

    @property
    def n_clients(self) -> int:
        return len(self._clients)

    def show(self, what: str, data: dict[str, Any], seq: int) -> None:
        """A ``Show`` command from the game (``seq``: the event that made it): kept and shown with the state."""
        self.shown[what] = {**data, "seq": seq}

    def publish(self, model: ReadModel) -> None:
        state = dict(model.state)
        state["shown"] = self.shown
        if state == self.state and self.version:
            return
        self.state = state
        self.version += 1
        self.message = json.dumps({"type": "state", "version": self.version, "seq": model.seq,
                                   "t_wall": time.time(), "at": datetime.now(UTC).isoformat(timespec="milliseconds"),
                                   "state": state}, ensure_ascii=False)
        for client in self._clients:
            client.wake.set()

    async def serve(self, send_text) -> None:
        """Send states to one client through ``send_text(str)`` until it fails or is cancelled."""
        client = _Client()
        self._clients.add(client)
        try:
            while True:
                if client.sent_version != self.version:
                    client.sent_version = self.version
                    await send_text(self.message)
                    continue
                client.wake.clear()
                await client.wake.wait()
        finally:
            self._clients.discard(client)
