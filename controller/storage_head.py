"""The chain's head, anchored outside the log: ``events.head`` beside ``events.sqlite``.

After each commit the store writes ``(seq, hash)`` of the newest row here, so that a log that
lost its tail (SQLite drops every WAL frame after a damaged one, silently) is told apart from
a log that is simply short: a log whose last row is older than the anchor lost its tail.

The file holds two fixed 128-byte slots, written in place by turns (``seq % 2``), each with a
magic, the seq, the hash and a CRC-32; a torn write spoils one slot only and the other still
holds the head before it. The anchor is written *after* the row is committed (with
``synchronous = "full"`` the commit is on disk by then), so at a power cut it is never ahead
of what the log durably holds; it is not synced itself (only with ``synchronous = "extra"``),
which would double the syncs per event: after a power cut it may lag by the last few events,
which a log longer than its anchor tolerates (the anchored row must still match). With
"normal" neither is synced, and a tail lost then is a real loss, reported as such.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

HEAD_NAME = "events.head"
_MAGIC = b"JTKHEAD1"
_SLOT = 128
_BODY = struct.Struct(">8sQ64s")


@dataclass(frozen=True)
class Head:
    """The newest row of a log: its ``seq`` (0: empty) and ``hash``."""

    seq: int
    hash: str


def _pack(head: Head) -> bytes:
    body = _BODY.pack(_MAGIC, head.seq, head.hash.encode("ascii"))
    return (body + struct.pack(">I", zlib.crc32(body))).ljust(_SLOT, b"\0")


def _unpack(slot: bytes) -> Head | None:
    if len(slot) < _BODY.size + 4:
        return None
    body, (crc,) = slot[:_BODY.size], struct.unpack(">I", slot[_BODY.size:_BODY.size + 4])
    if zlib.crc32(body) != crc:
        return None
    magic, seq, digest = _BODY.unpack(body)
    if magic != _MAGIC:
        return None
    try:
        return Head(seq, digest.decode("ascii"))
    except UnicodeDecodeError:
        return None


def read_head(path: Path) -> Head | None:
    """The anchored head in ``path``; None when the file is absent or neither slot is whole."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    heads = [h for h in (_unpack(data[:_SLOT]), _unpack(data[_SLOT:2 * _SLOT])) if h is not None]
    return max(heads, key=lambda h: h.seq) if heads else None


class HeadAnchor:
    """Writes the head after each commit (``write``); ``durable`` syncs each write to disk."""

    def __init__(self, path: Path, *, durable: bool) -> None:
        self.path = path
        self.durable = durable
        self.failed = ""              # the last write error ("" when the anchor is current)
        self._fd: int | None = None

    def open(self, head: Head) -> None:
        """Open (or make) the file and write ``head`` into both slots."""
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        os.pwrite(self._fd, _pack(head) * 2, 0)
        os.fsync(self._fd)

    def write(self, head: Head) -> None:
        """Anchor ``head``; an I/O error is logged and kept in ``failed``, never raised (the row is stored)."""
        if self._fd is None:
            return
        try:
            os.pwrite(self._fd, _pack(head), _SLOT * (head.seq % 2))
            if self.durable:
                os.fdatasync(self._fd)
        except OSError as err:
            if not self.failed:
                log.error("head anchor %s not written: %s", self.path, err)
            self.failed = f"{self.path}: {err.strerror or err}"
            return
        self.failed = ""

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
