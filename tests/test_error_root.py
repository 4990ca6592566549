"""One error root: every layer's branch derives from ``TableError`` (STYLE.md section 4)."""

from __future__ import annotations

import pytest

from controller.config import ConfigError
from controller.daemon_export import ExportError
from controller.errors import EventError, GameError
from controller.storage import StorageError
from firmware_bridge.errors import BridgeError, LinkTimeout, TableError
from firmware_bridge.protocol import ProtocolError
from vision.calibration import CalibrationError
from vision.camera import CameraError
from vision.classifier import ClassifierError
from vision.layout import ProfileError, VisionError


@pytest.mark.parametrize("error, branch, mixin", [
    (LinkTimeout, BridgeError, TimeoutError),
    (ProtocolError, BridgeError, ValueError),
    (CameraError, VisionError, OSError),
    (CalibrationError, VisionError, ValueError),
    (ProfileError, VisionError, ValueError),
    (ClassifierError, VisionError, RuntimeError),
    (EventError, GameError, ValueError),
    (ConfigError, TableError, ValueError),
    (StorageError, TableError, OSError),
    (ExportError, StorageError, ValueError),
], ids=lambda x: x.__name__)
def test_each_error_sits_on_its_layers_branch(error: type, branch: type, mixin: type) -> None:
    assert issubclass(error, branch) and issubclass(error, TableError) and issubclass(error, mixin)


def test_the_branches_are_distinct() -> None:
    branches = [BridgeError, VisionError, GameError, ConfigError, StorageError]
    for a in branches:
        assert a.__mro__[1] is TableError or TableError in a.__bases__
        assert all(not issubclass(a, b) for b in branches if b is not a)


def test_a_bad_event_is_caught_as_a_table_error() -> None:
    from controller import events as ev
    with pytest.raises(TableError, match="vision.discard: field 'seat'"):
        ev.Discard(seat=7, tile="1m")
