"""The daemon's pure core: the game tracker and the machine cycle, driven event by event, and
the table's read model built from them. No I/O; used alike by the live loop, by the rebuild on
start, by ``tablectl export`` and by tests.

Declared interface (what the daemon and the tests use):

- ``Core(table, ruleset)``; ``apply(event) -> [Command]``: the event through the tracker
  (:mod:`controller.tracker`) and the cycle (:mod:`controller.cycle`); a step that fails on
  an event keeps the state as it was and is kept in ``errors``;
- ``view() -> dict``: the table's public state (``GET /api/state``, contracts/table-api.md): the
  tracker's ``public_state`` (the game fields), ``machine`` (state, reason, faults, e-stop,
  lid, link, ``link_ok``, the staff ``actions`` that fit), ``tracker`` ("ok"), ``language``
  and the table display's extras (:mod:`controller.panel.display`: places and gaps, rivers,
  ``result_view``, ``final``, ``needs``, ``result_held``, ``paused``); a fresh dict on each call;
- ``machine``, ``errors``, ``game_state``, ``cycle_state``, ``applied``, ``last_event_kind``,
  ``language`` (the display's, from ``[panel] language``), ``shown_result``, ``games`` (games
  started).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from controller import cycle as CY
from controller import events as ev
from controller import tracker as TR
from controller.panel import display as D
from controller.tracker.riichi.held import holds_result

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
        self.games = 0                      # games started (StartGame events taken)
        self.last_event_kind = ""
        self.machine_from_cycle = False     # set by the daemon when a part runs the cycle's commands
        self.errors: list[str] = []
        self.language = "en"                # the table display's language ([panel] language)
        self.shown_state: Any = None        # the game state that last showed a result to confirm
        self._shown: tuple[Any, dict[str, Any] | None] = (None, None)   # (that state, its result view)

    def apply(self, event: ev.Event) -> list[ev.Command]:
        commands: list[ev.Command] = []
        game_cmds = self._step("game_state", "controller.tracker", TR.step, event)
        if getattr(self.game_state, "result", None) is not None:
            self.shown_state = self.game_state     # kept: the display shows it once applied (see _display)
        commands.extend(game_cmds)
        commands.extend(self._step("cycle_state", "controller.cycle", CY.step, event))
        for cmd in game_cmds:
            if isinstance(cmd, ev.Lift):  # the game asks for the next walls; the cycle decides when
                commands.extend(self._step("cycle_state", "controller.cycle", CY.step, cmd))
        self._machine(event)
        if isinstance(event, ev.StartGame):
            self.games += 1
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
        elif isinstance(event, ev.Reset) or (isinstance(event, ev.Correction) and event.what in ("retry", "continue")):
            if not m["estop"]:     # a reset (or staff's retry / continue) clears the faults it answers
                m["state"], m["reason"], m["faults"] = "idle", "", []
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
        out["machine"] = machine_view(self.machine)
        out["tracker"] = "ok"
        out["language"] = self.language
        self._display(out)
        return out

    def _display(self, out: dict[str, Any]) -> None:
        """The table display's extras (controller.panel.display); a failure there never hides the state.
        The state that last showed a result to confirm is kept (``shown_state``, set by ``apply``, so
        a rebuilt core has the same) so that, once applied, the display still has its hands and the
        abortive draw's name while the next walls are built."""
        state = self.game_state
        try:
            D.seat_extras(out, state)
            rules = _rules(state)
            view = D.result_view(out, state, rules)
            kept = self._shown_view() if view is not None and not view["is_pending"] else None
            if kept is not None and kept.get("hand") == view.get("hand") \
                    and kept.get("round") == view.get("round") and kept.get("honba") == view.get("honba"):
                view = {**kept, "is_pending": False}
            out["result_view"] = view
            out["final"] = D.final_view(out, rules, 0)
            out["needs"] = D.needs_view(out, state, rules)
            out["result_held"] = holds_result(state) if state is not None and hasattr(state, "alerts") else None
            out["paused"] = bool(getattr(state, "paused", False))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            out["display_error"] = str(err)

    def _shown_view(self) -> dict[str, Any] | None:
        """The result view of ``shown_state`` as it was shown to confirm (made once per kept state)."""
        kept = self.shown_state
        if kept is None:
            return None
        if self._shown[0] is not kept:
            out = {**empty_view(self.table, self.ruleset), **plain(TR.public_state(kept))}
            D.seat_extras(out, kept)
            self._shown = (kept, D.result_view(out, kept, _rules(kept)))
        return self._shown[1]


def machine_view(machine: dict[str, Any]) -> dict[str, Any]:
    """The machine status: the core's, ``link_ok`` as a yes/no of the MCU link (None: not known),
    ``actions``: what staff may do about a stopped build."""
    m = dict(machine)
    link = m.get("link")
    m["link_ok"] = True if link == "ok" else False if link == "lost" else None
    m["actions"] = ["retry", "continue", "reset"] if m.get("state") == "halted" else []
    return m


def _rules(state: Any) -> Any:
    try:
        return getattr(state, "rules", None)
    except (ValueError, KeyError, OSError):
        return None


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
