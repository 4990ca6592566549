"""The wire forms of message fields: integers of a width and range, short ASCII text, counted
lists and fixed-length lists; each packs, unpacks and checks its value (a ``FieldError`` names
the message, the field, the value and the limit)."""

from __future__ import annotations

import struct

from firmware_bridge.protocol.wire import FieldError, LengthError

__all__ = ["BOOL", "I8", "I16", "JOB", "SEAT", "SEAT_OR_ALL", "TILE_SET", "U8", "U16", "U32", "WALL_MASK", "Fixed", "Int", "Kind", "List", "Text"]

# --------------------------------------------------------------------------- field kinds

class Kind:
    """A field's wire form: ``pack(value) -> bytes``, ``unpack(buf, pos) -> (value, pos)``."""

    name = "?"

    def pack(self, value: object) -> bytes:  # pragma: no cover - interface
        raise NotImplementedError

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:  # pragma: no cover
        raise NotImplementedError

    def check(self, owner: str, field: str, value: object) -> None:  # pragma: no cover
        raise NotImplementedError


class Int(Kind):
    def __init__(self, fmt: str, lo: int, hi: int) -> None:
        self.fmt = struct.Struct("<" + fmt)
        self.lo, self.hi = lo, hi
        self.name = fmt

    def pack(self, value: object) -> bytes:
        return self.fmt.pack(value)

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        end = pos + self.fmt.size
        if end > len(buf):
            raise LengthError("body too short")
        return self.fmt.unpack_from(buf, pos)[0], end

    def check(self, owner: str, field: str, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be an integer")
        if not self.lo <= value <= self.hi:
            raise FieldError(f"{owner}: field '{field}' is {value}, must be {self.lo}..{self.hi}")


class Text(Kind):
    """Length-prefixed printable ASCII (0x20..0x7E), at most ``max_len`` characters."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len
        self.name = f"text{max_len}"

    def pack(self, value: object) -> bytes:
        raw = str(value).encode("ascii")
        return bytes([len(raw)]) + raw

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        if pos >= len(buf):
            raise LengthError("body too short for a text length")
        n = buf[pos]
        end = pos + 1 + n
        if end > len(buf):
            raise LengthError(f"text claims {n} bytes, only {len(buf) - pos - 1} left")
        raw = buf[pos + 1:end]
        if any(b < 0x20 or b > 0x7E for b in raw):
            raise FieldError("text holds a byte outside printable ASCII")
        return raw.decode("ascii"), end

    def check(self, owner: str, field: str, value: object) -> None:
        if not isinstance(value, str):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be a string")
        if len(value) > self.max_len:
            raise FieldError(f"{owner}: field '{field}' has {len(value)} characters, at most {self.max_len}")
        if any(not 0x20 <= ord(c) <= 0x7E for c in value):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be printable ASCII")


class List(Kind):
    """Count-prefixed list of u8 within [lo, hi], between ``min_n`` and ``max_n`` items."""

    def __init__(self, min_n: int, max_n: int, lo: int = 0, hi: int = 255) -> None:
        self.min_n, self.max_n, self.lo, self.hi = min_n, max_n, lo, hi
        self.name = "list"

    def pack(self, value: object) -> bytes:
        items = tuple(value)  # type: ignore[arg-type]
        return bytes([len(items)]) + bytes(items)

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        if pos >= len(buf):
            raise LengthError("body too short for a list count")
        n = buf[pos]
        end = pos + 1 + n
        if end > len(buf):
            raise LengthError(f"list claims {n} items, only {len(buf) - pos - 1} bytes left")
        return tuple(buf[pos + 1:end]), end

    def check(self, owner: str, field: str, value: object) -> None:
        if not isinstance(value, tuple) or any(isinstance(v, bool) or not isinstance(v, int) for v in value):
            raise FieldError(f"{owner}: field '{field}' is {value!r}, must be a tuple of integers")
        if not self.min_n <= len(value) <= self.max_n:
            raise FieldError(f"{owner}: field '{field}' has {len(value)} items, must be "
                             f"{self.min_n}..{self.max_n}")
        for v in value:
            if not self.lo <= v <= self.hi:
                raise FieldError(f"{owner}: field '{field}' holds {v}, must be {self.lo}..{self.hi}")


class Fixed(List):
    """Exactly ``n`` u8 values (no count byte)."""

    def __init__(self, n: int, lo: int = 0, hi: int = 255) -> None:
        super().__init__(n, n, lo, hi)
        self.name = f"u8x{n}"

    def pack(self, value: object) -> bytes:
        return bytes(tuple(value))  # type: ignore[arg-type]

    def unpack(self, buf: bytes, pos: int) -> tuple[object, int]:
        end = pos + self.max_n
        if end > len(buf):
            raise LengthError("body too short")
        return tuple(buf[pos:end]), end


U8 = Int("B", 0, 0xFF)
U16 = Int("H", 0, 0xFFFF)
U32 = Int("I", 0, 0xFFFFFFFF)
I8 = Int("b", -128, 127)
I16 = Int("h", -32768, 32767)
JOB = Int("H", 1, 0xFFFF)          # job ids are never 0
BOOL = Int("B", 0, 1)
SEAT = Int("B", 0, 3)
SEAT_OR_ALL = Int("B", 0, 0xFF)     # 0..3, or 0xFF for every seat (checked in Display)
WALL_MASK = Int("B", 0, 0x0F)
TILE_SET = Int("B", 0, 1)

