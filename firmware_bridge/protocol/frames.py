"""Frames: a message with its sequence number encoded to wire bytes, and decoded back (one
frame, or a stream resynchronised at every delimiter)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from firmware_bridge.protocol.commands import Message
from firmware_bridge.protocol.replies import MESSAGE_TYPES
from firmware_bridge.protocol.wire import (
    MAX_FRAME,
    ChecksumError,
    FieldError,
    FramingError,
    LengthError,
    ProtocolError,
    UnknownMessage,
    cobs_decode,
    cobs_encode,
    crc32c,
)

__all__ = ["Frame", "FrameDecoder", "decode_frame", "encode", "encode_raw", "message_fields"]

# --------------------------------------------------------------------------- frames

@dataclass(frozen=True)
class Frame:
    """A decoded frame: its sequence number and its message."""
    seq: int
    msg: Message


def encode_raw(type_id: int, seq: int, body: bytes) -> bytes:
    """Frame arbitrary bytes (with a correct CRC) without checking them: for tests and fault injection."""
    payload = bytes([type_id & 0xFF, seq & 0xFF]) + body
    payload += crc32c(payload).to_bytes(4, "little")
    return cobs_encode(payload) + b"\x00"


def encode(msg: Message, seq: int) -> bytes:
    """The wire bytes of ``msg`` with sequence number ``seq`` (0..255), delimiter included.

    Raises ``FieldError`` if a field is out of range (nothing is sent then).
    """
    if not 0 <= seq <= 0xFF:
        raise FieldError(f"{msg.NAME}: seq is {seq}, must be 0..255")
    msg.check()
    return encode_raw(msg.TYPE, seq, msg.pack_body())


def decode_frame(data: bytes) -> Frame:
    """Decode one frame (the bytes between two 0x00 delimiters, delimiter excluded).

    Raises ``FramingError``, ``ChecksumError``, ``UnknownMessage``, ``LengthError`` or
    ``FieldError`` (each a ``ProtocolError``); the latter three carry ``seq``, ``type_id``
    and, where the body has one, ``job`` so that the MCU can answer ``rejected``.
    """
    if not data:
        raise FramingError("empty frame")
    if len(data) > MAX_FRAME + 2:
        raise FramingError(f"frame of {len(data)} bytes, at most {MAX_FRAME + 2}")
    payload = cobs_decode(data)
    if len(payload) < 6:
        raise FramingError(f"frame of {len(payload)} bytes, shorter than type+seq+crc (6)")
    content, crc = payload[:-4], int.from_bytes(payload[-4:], "little")
    if crc32c(content) != crc:
        raise ChecksumError(f"CRC-32C mismatch: frame says 0x{crc:08x}, content gives 0x{crc32c(content):08x}")
    type_id, seq, body = content[0], content[1], content[2:]
    job = int.from_bytes(body[:2], "little") if len(body) >= 2 else None
    cls = MESSAGE_TYPES.get(type_id)
    if cls is None:
        raise UnknownMessage(f"unknown message type 0x{type_id:02x} (seq {seq})",
                             seq=seq, type_id=type_id, job=job)
    try:
        msg = cls.unpack_body(body)
        msg.check()
    except ProtocolError as err:
        kind = type(err) if isinstance(err, LengthError | FieldError) else FieldError
        raise kind(f"{cls.NAME} (seq {seq}): {err}", seq=seq, type_id=type_id, job=job) from err
    return Frame(seq, msg)


class FrameDecoder:
    """Stream decoder: feed it bytes as they arrive, get frames and errors back in order.

    Resynchronises at every 0x00: garbage costs at most the frame it lands in. Bytes beyond
    ``MAX_FRAME`` without a delimiter are discarded (reported once as a ``FramingError``).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame | ProtocolError]:
        out: list[Frame | ProtocolError] = []
        start = 0
        while True:
            idx = data.find(0, start)
            if idx < 0:
                self._append(data[start:], out)
                return out
            self._append(data[start:idx], out)
            chunk, overflow = bytes(self._buf), self._overflow
            self._buf.clear()
            self._overflow = False
            start = idx + 1
            if overflow or not chunk:
                continue        # an empty chunk is a bare delimiter (allowed as a flush)
            try:
                out.append(decode_frame(chunk))
            except ProtocolError as err:
                out.append(err)

    def _append(self, data: bytes, out: list[Frame | ProtocolError]) -> None:
        if self._overflow or not data:
            return
        self._buf += data
        if len(self._buf) > MAX_FRAME + 2:
            self._buf.clear()
            self._overflow = True
            out.append(FramingError(f"no delimiter within {MAX_FRAME + 2} bytes; skipping to the next 0x00"))


def message_fields(msg: Message) -> dict[str, object]:
    """The message's fields as a plain dict (for logs and events)."""
    return {f.name: getattr(msg, f.name) for f in fields(msg)}
