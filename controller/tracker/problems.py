"""Why a declared hand has no result (yet): a coded answer, as the rules engine returns coded
errors (STYLE.md section 4), with a readable message beside it.

``state.result_problem`` is ``{"kind": KIND, "message": str}`` or None; ``GET /api/state``
shows the message as ``result_problem`` and the kind as ``result_problem_kind``.

Kinds:

================== =========================================================================
``waiting``        something is still awaited: a winner, a winner's revealed hand, the ura
                   indicators; the result follows by itself when it is seen
``unscorable``     the hands as seen cannot be scored (the replay or the scorer refuses them):
                   the camera may still read them right; OK raises an alert for staff
``wrong_hand_size`` the win is refused: the winner's hand has too many or too few tiles
                   (now, or during the hand: 相公); staff correct the hand or void it
``no_win``         the revealed hand does not win (no yaku, no fan, not a complete hand) and
                   the rules have no false-win penalty; staff correct the hand or void it
================== =========================================================================
"""

from __future__ import annotations

WAITING = "waiting"
UNSCORABLE = "unscorable"
WRONG_HAND_SIZE = "wrong_hand_size"
NO_WIN = "no_win"
KINDS = (WAITING, UNSCORABLE, WRONG_HAND_SIZE, NO_WIN)


def problem(kind: str, message: str) -> dict:
    """The ``result_problem`` record. Raises ValueError for a kind not in KINDS."""
    if kind not in KINDS:
        raise ValueError(f"result problem kind {kind!r} is not one of {', '.join(KINDS)}")
    return {"kind": kind, "message": message}


def is_waiting(p: dict | None) -> bool:
    return p is not None and p["kind"] == WAITING
