"""What the staff view reads beyond the table's state (``GET /api/staff/status``): the staff
history (controller.tracker.riichi.actions), every alert with its evidence frame beside it, the
machine status in words with the actions that fit. The daemon adds it to the panel's
``status()`` (``controller.daemon.PanelDoor``) from its tracker state, store and hub."""

from __future__ import annotations

from typing import Any

from controller.tracker.riichi.actions import history
from controller.tracker.riichi.held import holds_result

MACHINE_WORDS = {
    "idle": "Ready.",
    "halted": "Stopped: {reason}. Clear the cause, then retry the lift or reset.",
    "playing": "Playing: the walls are up and the hand is on.",
    "walls built": "The walls are built; waiting to lift them.",
    "walls lifted": "The walls are up; waiting for the dice.",
}


def _alert_key(a: dict) -> tuple:
    return (a.get("rule"), a.get("hand_index"), a.get("seat"), a.get("tile"), a.get("now"))


def evidence_of(evidence: dict[int, str], store: Any) -> dict[tuple, str]:
    """(rule, hand, seat, tile, time) of each kept alert -> its evidence frame's name (``evidence``:
    the hub's alert seq -> frame name; ``store``: the event store, to read the alert back)."""
    out: dict[tuple, str] = {}
    for seq, name in list(evidence.items()):
        for stored in store.events(after=int(seq) - 1):
            if stored.seq == int(seq):
                out[_alert_key(stored.payload)] = name
            break
    return out


def staff_extras(state: Any, machine: dict[str, Any], frames: dict[tuple, str]) -> dict[str, Any]:
    """The staff view's history, alerts (with ``frames``: :func:`evidence_of`) and the machine in words."""
    alerts = []
    for k, a in enumerate(getattr(state, "alerts", ()) or ()):
        alerts.append({**{key: v for key, v in a.items() if not key.startswith("_")}, "index": k,
                       "evidence": frames.get(_alert_key(a))})
    m = machine
    words = MACHINE_WORDS.get(m.get("state", "idle"), "{state}").format(reason=m.get("reason") or "a fault",
                                                                        state=m.get("state"))
    actions = ["retry", "continue", "reset"] if m.get("state") == "halted" else []
    return {"history": history(state), "staff_alerts": alerts, "held": holds_result(state),
            "machine_words": words, "machine_actions": actions, "chombo_rule": chombo_words(state)}


def chombo_words(state: Any) -> str:
    """What a chombo costs by the game's ruleset (``[payments] chombo``), for the staff's penalty form."""
    try:
        rules = getattr(state, "rules", None)
    except (ValueError, KeyError, OSError):
        rules = None
    if rules is not None and getattr(rules, "chombo", "") == "deduction":
        return f"chombo: {rules.chombo_points:,} points off the player, paid to nobody"
    return "chombo: a reverse mangan (dealer pays 4000 all; else 4000 to the dealer, 2000 to the others)"
