"""The simulated table laid out again where a game stands (the world started anew over a game
under way).

The world process is started with the daemon and ends with it, so after a host restart it
knows nothing of the game; a real table would have kept its tiles where they lay. The daemon,
having replayed its event log, tells the world where the game is (its ``go`` line: the game,
the hand and what it has seen done in the hand, ``controller.daemon_resume``). Here the table
performs the script silently up to that point (no button pressed, no motion asked of the
MCU), so that the camera's first frame shows the table as the game has it, and the players
go on from the next action.

The step within the hand: every action up to the game's last discard is done; after it, an
action counts as done while the game has seen as many of its kind (``take``: tiles taken from
the walls; ``meld``, ``flip``, ``stick``, ``reveal``; ``declare``: a win or draw declared on the
buttons); a button press or a roll with nothing seen after it is done again (a second press of
the dice button or of ok changes nothing the game has).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hardware.sim.table import SimTable

_KIND = {"lift": "lift", "dice": "dice", "take": "take", "refill": "take", "discard": "discard", "meld": "meld",
         "flip": "flip", "stick": "stick", "reveal": "reveal"}


def op_kind(op: dict) -> str | None:
    """What the game counts ``op`` as (None: nothing it counts, done again if nothing after it is)."""
    if op["op"] == "press":
        return "declare" if op["action"] in ("tsumo", "ron", "draw") else None
    return _KIND.get(op["op"])


def resume_index(actions: list[dict], done: dict[str, int]) -> int:
    """The index of the first action of ``actions`` (one hand's) that the game has not seen done."""
    counts: Counter[str] = Counter()
    pos = 0
    discards = int(done.get("discard", 0))
    if discards > 0:
        seen = 0
        for i, op in enumerate(actions):
            kind = op_kind(op)
            if kind is not None:
                counts[kind] += 1
            if op["op"] == "discard":
                seen += 1
                pos = i + 1
                if seen >= discards:
                    break
        counts = Counter(k for op in actions[:pos] if (k := op_kind(op)) is not None)
    i = pos
    while i < len(actions):
        kind = op_kind(actions[i])
        i += 1
        if kind is None:
            continue              # done only if something after it is
        if counts[kind] + 1 > int(done.get(kind, 0)):
            break
        counts[kind] += 1
        pos = i
    return pos


def lay_out(table: SimTable, hand: int, index: int) -> int:
    """Perform, silently, the script up to action ``index`` of ``hand`` on a fresh ``table``: the
    earlier hands only in the table's counts (their tiles are back in the machine), this hand's
    actions on the table. Returns the number of actions laid out."""
    hands = table.script.hands
    if not 0 <= hand < len(hands):
        raise ValueError(f"resume: hand {hand} is not in the script ({len(hands)} hands)")
    actions = hands[hand].actions
    index = max(0, min(index, len(actions)))
    press, control = table.press, table.control
    table.press, table.control = None, None     # no button pressed, nothing asked of the MCU
    try:
        rolls = sum(1 for h in hands[:hand] for op in h.actions if op["op"] == "dice")
        with table._cond:
            table.hand_index, table.op_index = hand, 0
            table.lifts_prepared = table.lifts_done = hand
            table.rolls_done = table.dice_stepped = rolls
        for op in actions[:index]:
            if op["op"] == "lift":
                with table._cond:
                    table.lifts_prepared = table.lifts_done = hand + 1
            elif op["op"] == "dice":
                with table._cond:
                    table.rolls_done += 1
                    table.last_dice = tuple(op["dice"])
            table.step()
    finally:
        table.press, table.control = press, control
    return index


def position_of(table: SimTable) -> dict[str, Any]:
    """Where the table's players are: hand and action (for the world's answer and its log)."""
    return {"hand": table.hand_index, "action": table.op_index, "applied": table.applied}
