"""Plain-word checks of a staff action's fields (seats, places, tiles) for
:mod:`controller.tracker.riichi.actions`, and the checks of the Hong Kong and Chinese family's
corrections (the engine's :data:`controller.tracker.staff.CORRECTIONS` applies those). Seats and hands are numbered in the
messages as the table display numbers them (from 1)."""

from __future__ import annotations

from typing import Any

from controller import events as ev
from controller.rules import tiles as T
from firmware_bridge.errors import TableError


class Refused(TableError, ValueError):
    """A staff action that cannot apply (the game layer's branch of TableError); the message says
    why in plain words."""


# --------------------------------------------------------------------------- helpers

def _seat(s: Any, data: dict, key: str = "seat") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < s.n_seats:
        raise Refused(f"{key} must be a seat from 1 to {s.n_seats}, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    return str(value + 1) if isinstance(value, int) and not isinstance(value, bool) else repr(value)


def _who(s: Any, seat: int) -> str:
    name = s.players[seat] if seat < len(s.players) else ""
    return f"seat {seat + 1}" + (f" ({name})" if name else "")


def _index(data: dict, key: str, size: int, what: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < size:
        raise Refused(f"{what} {_shown(value)} does not exist ({size} there)" if size else f"there is no {what} yet")
    return value


def _tile(value: Any, what: str = "tile") -> str:
    if not isinstance(value, str):
        raise Refused(f"{what} must be a tile such as 5p, got {value!r}")
    try:
        return T.check(value)
    except ValueError:
        raise Refused(f"{what} {value!r} is not a tile (write 1m..9m, 1p..9p, 1s..9s, 1z..7z, 0m/0p/0s)") from None


def _tiles(value: Any, what: str = "tiles") -> list[str]:
    if isinstance(value, str):
        try:
            value = T.parse(value)
        except ValueError:
            raise Refused(f"{what} {value!r} are not tiles (write e.g. 123m456p)") from None
    if not isinstance(value, list) or not value:
        raise Refused(f"{what} must be a list of tiles")
    return [_tile(t, what) for t in value]


def check_fan(s: Any, e: ev.Event) -> None:
    """The Hong Kong and Chinese family takes corrections through the engine's table: check
    their meaning here (seats, places, tiles, sums), so that none reaches it that cannot apply."""
    if getattr(s, "phase", "idle") == "idle":
        raise Refused("no game is being played")
    if isinstance(e, ev.ConfirmResult):
        if e.hand_index != s.hand_index:
            raise Refused(f"hand {_shown(e.hand_index)} is not the hand at the table (hand {s.hand_index + 1})")
        if s.result is None:
            raise Refused(f"hand {s.hand_index + 1} has no result to confirm")
        return
    if isinstance(e, ev.VoidHand):
        if s.phase in ("seating", "ended"):
            raise Refused("there is no hand to void")
        return
    d = dict(e.data)
    n = len(s.seats)
    if e.what not in ("hand", "discard", "scores", "winner"):
        raise Refused(f"correction {e.what!r} is not offered in these rules: hand, discard, scores, winner")
    if e.what != "scores":
        seat = d.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise Refused(f"seat must be a seat from 1 to {n}, got {_shown(seat)}")
    if e.what == "discard":
        _index(d, "index", len(s.seats[d["seat"]].river), "river place")
        _tile(d.get("tile"))
    elif e.what == "hand":
        _tiles(d.get("tiles"))
    elif e.what == "scores":
        scores = d.get("scores")
        if not isinstance(scores, list) or len(scores) != n or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in scores):
            raise Refused(f"scores must be {n} whole numbers, one per seat")
        if sum(scores) != sum(x.score for x in s.seats):
            raise Refused(f"the points do not add up: {sum(scores):,} where the table holds "
                          f"{sum(x.score for x in s.seats):,}")
    elif "from" in d:
        src = d["from"]
        if isinstance(src, bool) or not isinstance(src, int) or not 0 <= src < n:
            raise Refused(f"from must be a seat from 1 to {n}, got {_shown(src)}")
