"""The game tracker: follows a game at the table from events alone (see :mod:`controller.tracker.engine`).

``step(state, event, now) -> (state, [Command])`` is pure; ``public_state(state)`` is the
``GET /api/state`` read model; ``new_state()`` the tracker before any game.
"""

from __future__ import annotations

from controller.tracker.engine import (
    GameError,
    GameState,
    SeatState,
    new_state,
    public_state,
    replay_events,
    staff_alerts,
    step,
)

__all__ = ["GameError", "GameState", "SeatState", "new_state", "public_state", "replay_events", "staff_alerts", "step"]
