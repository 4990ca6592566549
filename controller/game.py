"""The game tracker's former name: everything lives in :mod:`controller.tracker` now; this
module only keeps ``from controller import game`` working for code written against it."""

from __future__ import annotations

from controller.tracker import (
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
