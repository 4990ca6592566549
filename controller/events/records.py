"""Events and commands as records: canonical JSON-able dicts ``{"kind", "now", fields...}``
(``from_record(to_record(e)) == e``), as the event store keeps them."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from controller.events.base import COMMAND_KINDS, EVENT_KINDS, Command, Event, EventError, hints_of

__all__ = ["from_record", "to_record"]


def _to_json(value: Any) -> Any:
    if isinstance(value, (Event, Command)):
        return to_record(value)
    if isinstance(value, tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value


def to_record(obj: Event | Command) -> dict:
    """The canonical JSON-able record of an event or command: ``{"kind", "now", fields...}``."""
    if not isinstance(obj, (Event, Command)) or not type(obj).KIND:
        raise EventError(f"not a registered event or command: {obj!r}")
    record: dict[str, Any] = {"kind": type(obj).KIND}
    for f in dataclasses.fields(obj):
        record[f.name] = _to_json(getattr(obj, f.name))
    return record


def _from_json(value: Any, hint: Any, kind: str, name: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for h in typing.get_args(hint):
            if h is type(None):
                if value is None:
                    return None
                continue
            return _from_json(value, h, kind, name)
    if origin is tuple and isinstance(value, list):
        (inner,) = typing.get_args(hint)[:1]
        return tuple(_from_json(v, inner, kind, name) for v in value)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(hint, type) and issubclass(hint, (Event, Command)) and isinstance(value, dict):
        return from_record(value)
    return value


def from_record(record: dict) -> Event | Command:
    """Build the event or command of a record made by ``to_record``.

    Raises EventError naming the kind and field for an unknown kind, a missing or unknown
    field, or a value of the wrong type or range.
    """
    if not isinstance(record, dict):
        raise EventError(f"event record must be an object, got {type(record).__name__}")
    kind = record.get("kind")
    cls = EVENT_KINDS.get(kind) or COMMAND_KINDS.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise EventError(f"unknown event kind {kind!r}")
    hints = hints_of(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(record) - set(fields) - {"kind"})
    if unknown:
        raise EventError(f"{kind}: unknown field {unknown[0]!r}")
    args: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in record:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise EventError(f"{kind}: missing field {name!r}")
            continue
        try:
            args[name] = _from_json(record[name], hints[name], kind, name)
        except EventError:
            raise
        except (TypeError, ValueError) as err:
            raise EventError(f"{kind}: field {name!r}: {err}") from err
    try:
        return cls(**args)
    except TypeError as err:
        raise EventError(f"{kind}: {err}") from err
