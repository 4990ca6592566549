"""The table's event vocabulary: every input the controller receives, and every command it returns.

Everything that happens at the table becomes one small frozen dataclass with a registered
``KIND`` string (``"button"``, ``"mcu.lift_done"``, ``"vision.discard"``, ...). The daemon
stores events as records, rebuilds state by replaying them, and feeds them to
``controller.tracker.step``; the game returns ``Command`` objects that the daemon sends to the
parts (MCU, display, camera).

Records are canonical JSON-able dicts: ``{"kind": KIND, "now": 12.5, <fields>...}``, tuples
as lists, tiles in mpsz (``"5m"``, ``"0p"`` red, ``"7z"``). ``from_record(to_record(e)) == e``
for every event and command; a malformed record raises ``EventError`` naming the kind and
the field, and nothing is built.

Conventions
-----------
- ``now``: monotonic seconds of the moment the part saw it (the daemon's clock; the game
  never reads a clock). Defaults to 0.0 for commands and events built in tests.
- ``seat``: the table position 0..3 counted counter-clockwise (turn order) from the
  position the first dealer sat at when the game started, i.e. the game's seat order
  (the log's seat order for scripted games).
- Wall slots, as ``controller.rules.walls.WallSlot``: ``wall`` is the seat (0..3) in front
  of which the wall stands; ``stack`` is 1-based, 1 = the wall owner's right end (stacks are
  taken clockwise around the table). A stack holds 2, 1 or 0 tiles (upper taken first).

>>> e = Discard(seat=1, tile="0p", is_riichi=True, now=3.25)
>>> to_record(e)
{'kind': 'vision.discard', 'now': 3.25, 'seat': 1, 'tile': '0p', 'is_riichi': True, 'is_tsumogiri': False}
>>> from_record(to_record(e)) == e
True

Modules: :mod:`~controller.events.base` (the bases, the kinds' registry, validation),
:mod:`~controller.events.inputs` (seats, table, MCU), :mod:`~controller.events.seen` (the
camera's tracker), :mod:`~controller.events.staff` (panel, alerts),
:mod:`~controller.events.commands`, :mod:`~controller.events.records`. Every name is
importable from ``controller.events``.
"""

from __future__ import annotations

from controller.events import base, commands, inputs, records, seen, staff
from controller.events.base import *  # noqa: F403
from controller.events.commands import *  # noqa: F403
from controller.events.inputs import *  # noqa: F403
from controller.events.records import *  # noqa: F403
from controller.events.seen import *  # noqa: F403
from controller.events.staff import *  # noqa: F403

__all__ = [*base.__all__, *commands.__all__, *inputs.__all__, *records.__all__, *seen.__all__, *staff.__all__]
