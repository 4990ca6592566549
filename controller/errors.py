"""The game layer's branch of the table's errors (the root, ``TableError``, lives with the
hardware side in :mod:`firmware_bridge.errors`, which lists the whole tree)::

    TableError
    ├── BridgeError      firmware_bridge: link, protocol, parts, GPIO
    ├── VisionError      vision: camera, calibration, profiles, classifier, reader
    ├── GameError        controller: events and the game tracker (this module)
    │   └── EventError   a malformed event record or value
    ├── ConfigError      controller.config: table.toml
    └── StorageError     controller.storage: the event log, evidence, export

The rules engine (``controller.rules``) imports nothing from the project: it raises
``ValueError`` subclasses for impossible input and returns coded errors for hands that
cannot score.
"""

from __future__ import annotations

from firmware_bridge.errors import TableError

__all__ = ["EventError", "GameError", "TableError"]


class GameError(TableError, ValueError):
    """The game layer refuses its input: a state ``step`` cannot work on, a malformed event."""


class EventError(GameError):
    """A malformed event record or event value (names the kind and field at fault)."""
