"""Whether a riichi hand's result is held for staff: a set error or a cheating alert of the
hand (:data:`HOLDING`), not dismissed, holds it; neither the ok button nor staff confirm it
until staff dismiss the alert or void the hand (:mod:`controller.tracker.riichi.actions`)."""

from __future__ import annotations

from typing import Any

from controller import integrity as IG
from controller.tracker.hand import census_of

# the tile-set errors seen in play and the cheating alerts; a wall short or long (stack_count,
# set_mismatch: counted by the machine, no tile to show) is staff's to void and does not hold
HOLDING = frozenset((IG.SET_ERRORS - {"stack_count", "set_mismatch"})
                    | {"taken_back", "extra_draw", "out_of_turn", "moved_indicator", "wrong_hand_size"})


def _still_so(s: Any, a: dict) -> bool:
    """A tile-count alert (a fifth copy, a red five too many) holds only while the tiles face up
    still say so: staff correcting the misread tile settle it."""
    if a.get("rule") not in ("fifth_tile", "wrong_red") or not a.get("tile") or not hasattr(s, "face_up_counts"):
        return True
    try:
        problems = IG.census_problems(s.face_up_counts, census_of(s), [a["tile"]])
    except (ValueError, KeyError):
        return True
    return any(rule == a["rule"] for rule, _tile, _msg in problems)


def holds_result(s: Any) -> str | None:
    """Why the hand's result is held for staff (a set error or cheating alert not dismissed), else None."""
    for a in getattr(s, "alerts", ()):
        if a.get("hand_index") == s.hand_index and a.get("rule") in HOLDING and not a.get("dismissed") \
                and a.get("holds", True) and _still_so(s, a):
            who = f" by seat {a['seat'] + 1}" if isinstance(a.get("seat"), int) else ""
            tile = f" ({a['tile']})" if a.get("tile") else ""
            return f"{a['rule'].replace('_', ' ')}{who}{tile}: staff to dismiss the alert or void the hand"
    return None
