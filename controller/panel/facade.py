"""The narrow door between the daemon and the panel.

The panel never imports the daemon. The daemon hands it a :class:`Table` (its implementation
is ``controller.daemon.PanelDoor``) and, after each applied event, a :class:`ReadModel` through
the hub (:meth:`controller.panel.hub.PanelHub.publish`). Everything the panel reads or does
goes through these two:

- ``snapshot()``: the table's public state as last published (``GET /api/state``);
- ``submit(event)``: a staff action, committed and applied by the daemon's loop; returns its seq;
- ``status()``: the staff view's status (machine, parts, errors, event log, evidence, uptime);
- ``refusal()``: why no staff action can be taken now (a full disk), or None;
- ``camera()``: the camera part (its reader and pictures) for the enrolment page, or None;
  ``data_dir()``: the table's data folder; ``tile_set_name``: the ``[camera] tile_set`` setting;
- ``why_not(event)``: why this staff action cannot apply to the game as it is (checked on a
  copy, :func:`controller.tracker.engine.check_staff`), or None;
- ``evidence_cut(path, alert)``: an evidence frame cut to alert ``alert``'s river place, or None;
- ``picture()``: the camera's current picture (the staff's check), ``evidence_path(name)``:
  an alert's kept frame; ``now()``: the daemon's clock; ``panel``: the ``[panel]`` config;
  ``table_name``; ``hub``: the WebSocket fan-out the daemon publishes to.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from controller import events as ev
from controller.config import PanelConfig

if TYPE_CHECKING:
    from controller.panel.hub import PanelHub


@dataclass(frozen=True)
class ReadModel:
    """The table's public state after an applied event (``seq``: the event's), read-only: a deep
    copy behind a read-only mapping, shared by every client and never changed."""

    state: Mapping[str, Any]
    seq: int

    @classmethod
    def of(cls, state: dict[str, Any], seq: int) -> ReadModel:
        return cls(MappingProxyType(copy.deepcopy(state)), seq)


class Table(Protocol):
    """What the panel may ask of the table (implemented by the daemon)."""

    panel: PanelConfig
    table_name: str
    hub: PanelHub

    def snapshot(self) -> dict[str, Any]: ...
    async def submit(self, event: ev.Event) -> int: ...
    def status(self) -> dict[str, Any]: ...
    def refusal(self) -> str | None: ...
    def camera(self) -> Any | None: ...
    def data_dir(self) -> Path: ...
    @property
    def tile_set_name(self) -> str: ...
    def why_not(self, event: ev.Event) -> str | None: ...
    def evidence_cut(self, path: Path, alert: str | None) -> bytes | None: ...
    def now(self) -> float: ...
    def picture(self) -> bytes | None: ...
    def evidence_path(self, name: str) -> Path | None: ...
