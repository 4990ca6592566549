"""The root of the table's errors, and the hardware side's branch.

``TableError`` is the root of every error the table software raises on purpose; each layer
has one branch, with builtin mixins where they fit (as gpiozero's ``exc.py``): ``BridgeError``
here, ``VisionError`` (``vision.layout``), ``GameError`` (``controller.errors``), ``ConfigError``
(``controller.config``), ``StorageError`` (``controller.storage``)::

    TableError
    └── BridgeError                     firmware_bridge: link, parts, GPIO
        ├── ProtocolError (ValueError)  a frame that cannot be decoded (see protocol.py)
        ├── LinkError (OSError)         the port cannot be opened / vanished
        ├── LinkTimeout (TimeoutError)  no reply / no completion in time
        ├── CommandRejected             the MCU refused a command (reason code)
        ├── TableFault                  the MCU reported a fault (fault code)
        ├── InterlockError              refused on the host: e-stop pressed or lid open
        └── PinMapError (ValueError)    a pin map file is invalid
"""

from __future__ import annotations


class TableError(Exception):
    """Root of the table software's own errors."""


class BridgeError(TableError):
    """An error of the firmware bridge (serial link, MCU, GPIO)."""


class LinkError(BridgeError, OSError):
    """The serial port cannot be opened, or failed while in use."""


class LinkTimeout(BridgeError, TimeoutError):
    """The MCU did not answer (or a job did not complete) within its time limit."""


class LinkDown(BridgeError):
    """The link is down (port gone or MCU silent) and the request cannot be sent now."""


class CommandRejected(BridgeError):
    """The MCU refused a command; ``reason`` is the reject name from PROTOCOL.md."""

    def __init__(self, message: str, *, reason: str, job: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.job = job


class TableFault(BridgeError):
    """The MCU reported a fault for a job (or latched one); ``fault`` is its name."""

    def __init__(self, message: str, *, fault: str, job: int = 0, detail: int | None = None,
                 value: int | None = None, latched: bool = True) -> None:
        super().__init__(message)
        self.fault = fault
        self.job = job
        self.detail = detail
        self.value = value
        self.latched = latched


class InterlockError(BridgeError):
    """A motion command was refused on the host: the e-stop is pressed or the lid is open."""


class PinMapError(BridgeError, ValueError):
    """A pin map file is missing, malformed, or names a pin twice."""
