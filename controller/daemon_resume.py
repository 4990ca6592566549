"""Where the table stands after the daemon started again: the game, the hand and the step within
it, as the replayed event log knows them (pure; no I/O).

A real table keeps its tiles where they lie while the host restarts; the daemon, having replayed
its log, knows the game, the hand and how far into it the table is. It tells its parts (the
optional part hook ``resume(position)``, called after the rebuild and before the parts start):

- the camera's tracker starts from the rivers, melds, sticks and revealed hands the game
  already has (``tracker_seed``), so that what lies on the table is not reported a second time;
- the simulated table (``controller.daemon_world``) is told where its players are: the world
  process is started anew with the daemon and knows nothing of the game, so it lays the table
  out again up to that point and plays on from there.

The position (plain JSON, :func:`table_position`)::

    {"games": 2, "hand": 3, "finished": false, "phase": "play", "result_shown": false,
     "done": {"lift": 1, "dice": 1, "take": 61, "discard": 9, "meld": 1, "flip": 1, "stick": 0,
              "reveal": 0, "declare": 0},
     "machine": {"sets": ["table", "stacked"], "walls_up": true, "centre_open": false}}

``games``: games started in the log (the last one is the current one); ``hand``: the hand index
(0-based) of the current game; ``done``: what the game has seen done in this hand, counted the
way a table's actions are (walls lifted, dice rolls, tiles taken from the walls, discards
made, melds laid out (a pon made a kan counts twice), indicators turned (ura included), riichi
sticks put out, hands laid face up, wins or draws declared on the buttons); ``machine``: what
the machine holds by the cycle's account (each tile set ``table``, ``stacked`` or ``hopper``;
a set the cycle had shuffling is in the hopper: the shuffle stopped with the host).
"""

from __future__ import annotations

from typing import Any

BEFORE_WALLS = ("idle", "seating", "walls")
WALLS_UP = ("ready", "dice", "playing", "receiving", "closing")


def table_position(state: Any, cycle: Any, games: int) -> dict[str, Any] | None:
    """The position of the table for its parts, or None before any game."""
    if games <= 0 or not getattr(state, "seats", None):
        return None
    seats = state.seats
    done = {
        "lift": int(state.phase not in BEFORE_WALLS),
        "dice": len(state.rolls),
        "take": max(0, len(state.accounted) - len(state.unreported)),
        "discard": sum(s.discards_made for s in seats),
        "meld": sum(2 if m.get("kind") == "kakan" else 1 for s in seats for m in s.melds),
        "flip": len(getattr(state, "indicators", ())) + sum(1 for u in getattr(state, "ura", ()) if u),
        "stick": sum(1 for s in seats if getattr(s, "riichi_index", None) == -1),
        "reveal": sum(1 for s in seats if s.revealed is not None),
        "declare": len(state.winners) + int(getattr(state, "nine_terminals_seat", None) is not None),
    }
    return {"games": games, "hand": state.hand_index, "finished": bool(state.finished or state.phase == "ended"),
            "phase": state.phase, "result_shown": state.result is not None, "done": done,
            "machine": machine_position(cycle)}


def machine_position(cycle: Any) -> dict[str, Any]:
    """The tile sets and the walls as the machine cycle has them (``controller.cycle.CycleState``)."""
    sets = ["hopper", "hopper"]         # a set neither stacked nor on the table (shuffling or not)
    for name, index in (("stacked", cycle.stacked), ("table", cycle.on_table)):
        if index in (0, 1):
            sets[index] = name
    phase = cycle.halted_in if cycle.state == "halted" else cycle.state
    return {"sets": sets, "walls_up": phase in WALLS_UP, "centre_open": phase in ("receiving", "closing")}


def tracker_seed(state: Any) -> dict[str, Any]:
    """What the camera's tracker starts from (``vision.tracker.TableTracker.resume``), by game seat:
    the tiles still lying in each river (a called tile left it), each seat's meld kinds, the hands
    lying face up, the seats whose riichi stick is out, the places of tiles called away."""
    seats = getattr(state, "seats", None) or []
    return {
        "rivers": {i: [(r["tile"], bool(r.get("is_sideways"))) for r in s.river if r.get("taken_by") is None]
                   for i, s in enumerate(seats)},
        "melds": {i: [str(m.get("kind")) for m in s.melds] for i, s in enumerate(seats)},
        "revealed": {i: tuple(s.revealed) for i, s in enumerate(seats) if s.revealed is not None},
        "sticks": {i for i, s in enumerate(seats) if getattr(s, "riichi_index", None) == -1},
        "called": {i: [k for k, r in enumerate(s.river) if r.get("taken_by") is not None] for i, s in enumerate(seats)},
    }
