"""Strict parsing of request bodies (panel staff actions, WebSocket messages, scripts).

Every body a client sends goes through :func:`parse_body` before anything is built from it:

- at most ``max_bytes`` bytes (413 past it), UTF-8, one JSON object (400 otherwise);
- nesting at most ``max_depth`` arrays/objects deep, checked by a scan of the text *before*
  the JSON parser runs (so a deeply nested body is refused without recursion);
- numbers finite: ``NaN``, ``Infinity`` and literals that overflow a float (``1e999``) are
  refused, as are duplicate keys in one object.

The field validators (:func:`fields`, :func:`text`, :func:`integer`, :func:`choice`,
:func:`plain_data`) raise :class:`BodyError` naming the field and what is wrong. A refused
body changes nothing: callers build the event only from a body that passed.

>>> parse_body(b'{"hand_index": 2}')
{'hand_index': 2}
>>> parse_body(b'{"x": NaN}')
Traceback (most recent call last):
...
controller.bodies.BodyError: request body: number NaN is not allowed (finite numbers only)
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from controller.config import TableError

MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 8
_OPEN, _CLOSE, _QUOTE, _BACKSLASH = frozenset(b"[{"), frozenset(b"]}"), 0x22, 0x5C


class BodyError(TableError, ValueError):
    """A request body that cannot apply; ``status`` is the HTTP status to answer with (4xx)."""

    def __init__(self, message: str, status: int = 400, *, detail: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.detail = dict(detail or {})     # extra fields for the answer (e.g. what to name)


def nesting_depth(raw: bytes) -> int:
    """The deepest nesting of arrays/objects in a JSON text (brackets inside strings ignored)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif byte in _CLOSE:
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise BodyError(f"request body: number {name} is not allowed (finite numbers only)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyError(f"request body: number {text[:40]} is out of range (finite numbers only)")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BodyError(f"request body: key {key[:40]!r} appears twice in one object")
        out[key] = value
    return out


def parse_json(raw: bytes | str, *, max_bytes: int = MAX_BODY_BYTES, max_depth: int = MAX_DEPTH,
               what: str = "request body") -> Any:
    """Any JSON value from ``raw`` under the rules above; raises BodyError."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else bytes(raw)
    if len(data) > max_bytes:
        raise BodyError(f"{what} is {len(data)} bytes, at most {max_bytes}", 413)
    depth = nesting_depth(data)
    if depth > max_depth:
        raise BodyError(f"{what} nests {depth} levels deep, at most {max_depth}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BodyError(f"{what} is not UTF-8 text ({err.reason} at byte {err.start})") from err
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                          object_pairs_hook=_no_duplicates)
    except BodyError as err:
        raise BodyError(str(err).replace("request body", what, 1), err.status) from None
    except (ValueError, RecursionError) as err:
        raise BodyError(f"{what} is not JSON: {err}") from None


def parse_body(raw: bytes | str, *, max_bytes: int = MAX_BODY_BYTES, max_depth: int = MAX_DEPTH,
               empty_ok: bool = True, what: str = "request body") -> dict[str, Any]:
    """One JSON object from ``raw`` (an empty body is ``{}`` when ``empty_ok``); raises BodyError."""
    if empty_ok and not raw.strip():
        return {}
    body = parse_json(raw, max_bytes=max_bytes, max_depth=max_depth, what=what)
    if not isinstance(body, dict):
        raise BodyError(f"{what} must be a JSON object, not {type(body).__name__}")
    return body


# -- field validators -------------------------------------------------------------------------

def fields(body: dict[str, Any], required: Sequence[str], optional: Iterable[str] = ()) -> None:
    """Refuse unknown fields and missing required ones."""
    allowed = set(required) | set(optional)
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BodyError(f"unknown field {unknown[0][:40]!r} (this action takes "
                        f"{', '.join(sorted(allowed)) or 'no fields'})")
    for name in required:
        if name not in body:
            raise BodyError(f"missing field {name!r}")


def text(body: dict[str, Any], name: str, *, max_len: int = 500, empty_ok: bool = False,
         default: str | None = None) -> str:
    """Field ``name`` as text (stripped), at most ``max_len`` characters."""
    value = body.get(name, default)
    if not isinstance(value, str):
        raise BodyError(f"field {name!r} must be text")
    value = value.strip()
    if not value and not empty_ok:
        raise BodyError(f"field {name!r} must not be empty")
    if len(value) > max_len:
        raise BodyError(f"field {name!r} is longer than {max_len} characters")
    return value


def integer(body: dict[str, Any], name: str, *, lo: int, hi: int, default: int | None = None) -> int:
    """Field ``name`` as a whole number in ``lo..hi`` (true/false and 2.0 are refused)."""
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BodyError(f"field {name!r} must be a whole number")
    if not lo <= value <= hi:
        raise BodyError(f"field {name!r} is {value}, must be {lo}..{hi}")
    return value


def choice(body: dict[str, Any], name: str, options: Iterable[str], *, default: str | None = None) -> str:
    """Field ``name`` as one of ``options``."""
    opts = tuple(options)
    value = body.get(name, default)
    if not isinstance(value, str) or value not in opts:
        shown = value[:40] if isinstance(value, str) else value
        raise BodyError(f"field {name!r} is {shown!r}, not one of {', '.join(opts)}")
    return value


def plain_data(value: Any, name: str, *, max_depth: int = 4, max_items: int = 200) -> Any:
    """Check that ``value`` is plain JSON data: finite numbers, text keys, bounded depth and size."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > max_items:
            raise BodyError(f"field {name!r} holds more than {max_items} values")
        if depth > max_depth:
            raise BodyError(f"field {name!r} nests deeper than {max_depth} levels")
        if isinstance(item, float) and not math.isfinite(item):
            raise BodyError(f"field {name!r} holds a number that is not finite")
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise BodyError(f"field {name!r} has a key that is not text")
                stack.append((sub, depth + 1))
        elif isinstance(item, list | tuple):
            stack.extend((sub, depth + 1) for sub in item)
        elif not (item is None or isinstance(item, str | int | float | bool)):
            raise BodyError(f"field {name!r} holds a {type(item).__name__}, not JSON data")
    return value


async def read_body(request: Any) -> dict[str, Any]:
    """A starlette request's body as one strict JSON object, read no further than the size limit
    (:func:`parse_body`); raises :class:`BodyError` (413 when too big)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BodyError(f"request body is {declared} bytes, at most {MAX_BODY_BYTES}", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BodyError(f"request body is over {MAX_BODY_BYTES} bytes", 413)
        chunks.append(chunk)
    return parse_body(b"".join(chunks))
