"""The daemon's pure core: the game tracker and the machine cycle, driven event by event, and
the table's read model built from them. No I/O; used alike by the live loop, by the rebuild on
start, by ``tablectl export`` and by tests.

Declared interface (what the daemon and the tests use):

- ``Core(table, ruleset)``; ``apply(event) -> [Command]``: the event through the tracker
  (:mod:`controller.tracker`) and the cycle (:mod:`controller.cycle`); a step that fails on
  an event keeps the state as it was and is kept in ``errors``;
- ``view() -> dict``: the table's public state (``GET /api/state``, contracts/table-api.md): the
  tracker's ``public_state`` (the game fields), ``machine`` (state, reason, faults, e-stop,
  lid, link) and ``tracker`` ("ok"); a fresh dict on each call;
- ``machine``, ``errors``, ``game_state``, ``cycle_state``, ``applied``, ``last_event_kind``.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from controller import cycle as CY
from controller import events as ev
from controller import tracker as TR

log = logging.getLogger(__name__)

WINDS = ("E", "S", "W", "N")


class Core:
    """The pure side the loop drives: game tracker + machine cycle, and the table view."""

    def __init__(self, table: str, ruleset: str) -> None:
        self.table, self.ruleset = table, ruleset
        self.game_state: Any = TR.new_state()
        self.cycle_state: Any = CY.initial_state()
        self.machine: dict[str, Any] = {"state": "idle", "reason": "", "faults": [], "lid_open": False,
                                        "estop": False, "link": "unknown"}
        self.applied = 0
        self.last_event_kind = ""
        self.machine_from_cycle = False     # set by the daemon when a part runs the cycle's commands
        self.errors: list[str] = []

    def apply(self, event: ev.Event) -> list[ev.Command]:
        commands: list[ev.Command] = []
        game_cmds = self._step("game_state", "controller.tracker", TR.step, event)
        commands.extend(game_cmds)
        commands.extend(self._step("cycle_state", "controller.cycle", CY.step, event))
        for cmd in game_cmds:
            if isinstance(cmd, ev.Lift):  # the game asks for the next walls; the cycle decides when
                commands.extend(self._step("cycle_state", "controller.cycle", CY.step, cmd))
        self._machine(event)
        self.applied += 1
        self.last_event_kind = event.KIND
        return commands

    def _step(self, attr: str, name: str, step: Any, event: Any) -> list[ev.Command]:
        try:
            new_state, cmds = step(getattr(self, attr), event, event.now)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            # A tracker bug or an event it cannot take must not stop the table: keep the
            # state as it was and say so (the event itself is safely stored).
            msg = f"{name}.step could not take {event.KIND}: {err}"
            log.warning(msg)
            self.errors = (self.errors + [msg])[-20:]
            return []
        setattr(self, attr, new_state)
        return list(cmds or ())

    def _machine(self, event: ev.Event) -> None:
        """Machine status for the panel (faults, e-stop, lid, link); the cycle owns the motors."""
        m = self.machine
        if isinstance(event, ev.McuFault):
            m["state"], m["reason"] = "halted", f"{event.code}: {event.detail}".rstrip(": ")
            m["faults"] = (m["faults"] + [{"code": event.code, "detail": event.detail, "now": event.now}])[-20:]
        elif isinstance(event, ev.EStop):
            m["estop"] = event.is_pressed
            if event.is_pressed:
                m["state"], m["reason"] = "halted", "emergency stop pressed"
        elif isinstance(event, ev.Lid):
            m["lid_open"] = event.is_open
        elif isinstance(event, ev.LinkLost):
            m["link"] = "lost"
            m["state"], m["reason"] = "halted", f"MCU link lost {event.reason}".strip()
        elif isinstance(event, ev.LinkRestored):
            m["link"] = "ok"
        elif isinstance(event, ev.Reset):
            if not m["estop"]:
                m["state"], m["reason"] = "idle", ""
        elif isinstance(event, (ev.StackReady, ev.LiftDone, ev.DiceResult)) and m["state"] != "halted":
            m["state"] = {"mcu.stack_ready": "walls built", "mcu.lift_done": "walls lifted",
                          "mcu.dice_result": "playing"}[event.KIND]
        if self.machine_from_cycle and self.cycle_state is not None:
            # a firmware part carries out the cycle's commands: the cycle is the machine's truth
            m["state"] = getattr(self.cycle_state, "state", m["state"])
            m["reason"] = getattr(self.cycle_state, "reason", m["reason"])

    def view(self) -> dict[str, Any]:
        """The state for ``GET /api/state`` and the panel (see contracts/table-api.md)."""
        out = empty_view(self.table, self.ruleset)
        game_view = plain(TR.public_state(self.game_state))
        if not game_view.get("seats"):        # no game yet: keep the table's empty seats
            game_view.pop("seats", None)
            game_view["table"] = self.table
        out.update(game_view)
        out["machine"] = dict(self.machine)
        out["tracker"] = "ok"
        return out


def empty_view(table: str, ruleset: str) -> dict[str, Any]:
    """The view before any game: the table's name and rule set, four empty seats."""
    return {
        "table": table, "ruleset": ruleset, "round": "E1", "honba": 0, "riichi_sticks": 0,
        "hand_index": 0, "dealer": 0, "finished": False,
        "seats": [{"wind": WINDS[i], "score": 25000, "riichi": False} for i in range(4)],
        "dora_indicators": [], "dora": [], "live_wall": None, "last_result": None, "alerts": [],
    }


def plain(obj: Any) -> Any:
    """A state as plain JSON-able data: dataclasses as dicts, tuples as lists, enums as values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if hasattr(obj, "value") and hasattr(obj, "name") and type(obj).__module__ != "builtins":
        return obj.value
    return obj
