"""The protocol's errors and its byte-level layers: CRC-32C (Castagnoli) and COBS framing
(``hardware/PROTOCOL.md``). Pure: no I/O."""

from __future__ import annotations

from firmware_bridge.errors import BridgeError

__all__ = ["CHECK_VALUE", "MAX_FRAME", "PROTOCOL_VERSION", "ChecksumError", "FieldError", "FramingError", "LengthError", "ProtocolError", "UnknownMessage", "cobs_decode", "cobs_encode", "crc32c"]

PROTOCOL_VERSION = 1
MAX_FRAME = 96            # bytes of decoded payload (type .. crc); longer input is garbage
CHECK_VALUE = 0xE3069283  # crc32c(b"123456789")


# --------------------------------------------------------------------------- errors

class ProtocolError(BridgeError, ValueError):
    """A frame that cannot be decoded or a message that cannot be encoded."""

    def __init__(self, message: str, *, seq: int | None = None, type_id: int | None = None,
                 job: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq
        self.type_id = type_id
        self.job = job


class FramingError(ProtocolError):
    """Not a COBS frame (bad code byte, empty, too long)."""


class ChecksumError(ProtocolError):
    """The frame's CRC-32C does not match its content."""


class UnknownMessage(ProtocolError):
    """A frame with a valid CRC and a message type this side does not know."""


class LengthError(ProtocolError):
    """A known message with the wrong body length."""


class FieldError(ProtocolError):
    """A field outside its range (names the field, the value and the limit)."""


# --------------------------------------------------------------------------- CRC-32C

def _crc_table() -> tuple[int, ...]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, parameters as in the module docstring."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc ^ 0xFFFFFFFF


# --------------------------------------------------------------------------- COBS

def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no 0x00 byte."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of ``cobs_encode``; raises ``FramingError`` on a malformed block."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FramingError(f"COBS: zero byte at offset {i} inside a frame")
        end = i + code
        if end > n:
            raise FramingError(f"COBS: block at offset {i} claims {code - 1} bytes, only {n - i - 1} left")
        block = data[i + 1:end]
        if 0 in block:
            raise FramingError(f"COBS: zero byte inside the block at offset {i}")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


