"""What the staff view reads beyond the table's state (``GET /api/staff/status``): the staff
history (controller.staff_actions), every alert with its evidence frame beside it, the machine
status in words with the actions that fit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller import staff_actions as STAFF

if TYPE_CHECKING:
    from controller.daemon import Daemon

MACHINE_WORDS = {
    "idle": "Ready.",
    "halted": "Stopped: {reason}. Clear the cause, then retry the lift or reset.",
    "playing": "Playing: the walls are up and the hand is on.",
    "walls built": "The walls are built; waiting to lift them.",
    "walls lifted": "The walls are up; waiting for the dice.",
}


def _alert_key(a: dict) -> tuple:
    return (a.get("rule"), a.get("hand_index"), a.get("seat"), a.get("tile"), a.get("now"))


def evidence_of(daemon: Daemon) -> dict[tuple, str]:
    """(rule, hand, seat, tile, time) of each kept alert -> its evidence frame's name."""
    out: dict[tuple, str] = {}
    for seq, name in list(daemon.hub.evidence.items()):
        for stored in daemon.store.events(after=int(seq) - 1):
            if stored.seq == int(seq):
                out[_alert_key(stored.payload)] = name
            break
    return out


def staff_extras(daemon: Daemon) -> dict[str, Any]:
    state = daemon.core.game_state
    frames = evidence_of(daemon)
    alerts = []
    for k, a in enumerate(getattr(state, "alerts", ()) or ()):
        alerts.append({**{key: v for key, v in a.items() if not key.startswith("_")}, "index": k,
                       "evidence": frames.get(_alert_key(a))})
    m = daemon.core.machine
    words = MACHINE_WORDS.get(m.get("state", "idle"), "{state}").format(reason=m.get("reason") or "a fault",
                                                                        state=m.get("state"))
    actions = ["retry", "continue", "reset"] if m.get("state") == "halted" else []
    return {"history": STAFF.history(state), "staff_alerts": alerts, "held": STAFF.holds_result(state),
            "machine_words": words, "machine_actions": actions}
