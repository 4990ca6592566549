"""The table's public state, as ``GET /api/state`` returns it (contracts/table-api.md).

Built from the game tracker's state (``controller.game``), the machine status and the
alerts. The contract's fields come first; the panel's extras (players, tenpai, pending
result, machine) follow. When the tracker offers its own ``public_state(state)``, that is
the source of the game fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.rules.dora import dora_of

if TYPE_CHECKING:
    from controller.daemon import Core

WINDS = ("E", "S", "W", "N")


def _get(state: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if isinstance(state, dict) and name in state:
            return state[name]
        if not isinstance(state, dict) and hasattr(state, name):
            return getattr(state, name)
    return default


def _plain(value: Any) -> Any:
    from controller.daemon import _plain as plain
    return plain(value)


def empty_view(table: str, ruleset: str) -> dict[str, Any]:
    return {
        "table": table, "ruleset": ruleset, "round": "E1", "honba": 0, "riichi_sticks": 0,
        "hand_index": 0, "dealer": 0, "finished": False,
        "seats": [{"wind": WINDS[i], "score": 25000, "riichi": False} for i in range(4)],
        "dora_indicators": [], "dora": [], "live_wall": None, "last_result": None, "alerts": [],
    }


def table_view(core: Core) -> dict[str, Any]:
    out = empty_view(core.table, core.ruleset)
    state = core.game_state
    game = core.game
    public = getattr(game, "public_state", None) if game is not None else None
    if state is not None and callable(public):
        game_view = _plain(public(state))
        if not game_view.get("seats"):        # no game yet: keep the table's empty seats
            game_view.pop("seats", None)
            game_view["table"] = core.table
        out.update(game_view)
    elif state is not None:
        out.update(_extract(state, core))
    out["machine"] = machine_view(core)
    out["tracker"] = "ok" if game is not None else "absent"
    out["language"] = getattr(core, "language", "en")
    _display(out, state, core)
    return out


def machine_view(core: Core) -> dict[str, Any]:
    """The machine status: the core's, ``link`` as a yes/no of the MCU link (None: not known),
    ``stopped``: the build stopped and what staff may do about it."""
    m = dict(core.machine)
    link = m.get("link")
    m["link_ok"] = True if link == "ok" else False if link == "lost" else None
    m["actions"] = ["retry", "continue", "reset"] if m.get("state") == "halted" else []
    return m


def _rules(state: Any) -> Any:
    try:
        return getattr(state, "rules", None)
    except (ValueError, KeyError, OSError):
        return None


def _display(out: dict[str, Any], state: Any, core: Any = None) -> None:
    """The table display's extras (controller.panel.display); a failure there never hides the state.
    The result shown to confirm is kept (on the core) so that, once applied, the display still
    has its hands and the abortive draw's name while the next walls are built."""
    from controller.panel import display as D
    try:
        D.seat_extras(out, state)
        rules = _rules(state)
        view = D.result_view(out, state, rules)
        kept = getattr(core, "shown_result", None)
        if view is not None and view["is_pending"]:
            if core is not None:
                core.shown_result = view
        elif view is not None and kept is not None and kept.get("hand") == view.get("hand") \
                and kept.get("round") == view.get("round") and kept.get("honba") == view.get("honba"):
            view = {**kept, "is_pending": False}
        out["result_view"] = view
        out["final"] = D.final_view(out, rules, getattr(state, "first_dealer_chair", 0) and 0)
        out["needs"] = D.needs_view(out, state, rules)
        from controller.staff_actions import holds_result
        out["result_held"] = holds_result(state) if state is not None and hasattr(state, "alerts") else None
        out["paused"] = bool(getattr(state, "paused", False))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
        out["display_error"] = str(err)


def _extract(state: Any, core: Core) -> dict[str, Any]:
    """Read the contract's fields from a tracker state by their usual names."""
    out: dict[str, Any] = {}
    started = _get(state, "is_started", "started", default=None)
    out["game"] = "running" if started or started is None else None
    for key, names in (("ruleset", ("ruleset", "ruleset_name")), ("round", ("round", "round_name")),
                       ("honba", ("honba",)), ("riichi_sticks", ("riichi_sticks", "sticks")),
                       ("hand_index", ("hand_index",)), ("dealer", ("dealer",)),
                       ("finished", ("finished", "is_finished")), ("live_wall", ("live_wall",)),
                       ("last_result", ("last_result",))):
        value = _get(state, *names)
        if value is not None:
            out[key] = _plain(value)
    if isinstance(out.get("ruleset"), dict | list) or (out.get("ruleset") is not None
                                                      and not isinstance(out.get("ruleset"), str)):
        out["ruleset"] = _get(out["ruleset"], "name", default=core.ruleset)
    scores = _get(state, "scores")
    riichi = _get(state, "riichi", "is_riichi", default=[False] * 4)
    dealer = out.get("dealer", 0) or 0
    if scores is not None:
        out["seats"] = [{"wind": WINDS[(i - dealer) % 4], "score": int(scores[i]),
                         "riichi": bool(riichi[i]) if i < len(riichi) else False} for i in range(len(scores))]
    players = _get(state, "players")
    if players:
        out["players"] = list(players)
    indicators = _get(state, "dora_indicators")
    if indicators is not None:
        out["dora_indicators"] = list(indicators)
        out["dora"] = [dora_of(t) for t in indicators]   # controller.rules.dora: the one dora function
    alerts = _get(state, "alerts")
    if alerts is not None:
        out["alerts"] = [_alert(a) for a in _plain(alerts)]
    tenpai = _get(state, "tenpai")
    if tenpai is not None:
        out["tenpai"] = _plain(tenpai)
    return out


def _alert(alert: Any) -> dict[str, Any]:
    if isinstance(alert, dict):
        base = {"rule": alert.get("rule"), "hand_index": alert.get("hand_index"), "seat": alert.get("seat"),
                "tile": alert.get("tile")}
        return {**alert, **base}
    return {"rule": str(alert), "hand_index": None, "seat": None, "tile": None}
