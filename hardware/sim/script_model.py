"""The script's data: faults to inject, a hand's script, a whole game's, and their JSON form.

See :mod:`hardware.sim.script` for what the actions mean. :class:`HandBuilder` is the state kept
while one hand is built (every seat's standing tiles before each action), which the fault
injectors (:mod:`hardware.sim.script_faults`, :mod:`hardware.sim.script_rules`) read.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from controller.rules import tenhou as TH
from controller.rules import walls as WL
from controller.rules.ruleset import RuleSet
from hardware.sim.players import Player, seat_players

FAULT_RULES = ("missing_tile", "fifth_tile", "wrong_red", "other_back", "taken_back", "extra_draw",
               "out_of_turn", "wrong_hand_size", "moved_indicator")          # contracts/table-api.md
EXTRA_FAULT_RULES = ("stack_count", "set_mismatch", "kuikae", "last_discard_call", "furiten_ron")
INJECTABLE_RULES = FAULT_RULES + EXTRA_FAULT_RULES
_INJECT = re.compile(r"^([a-z_]+)@(\d+)(?::(\d))?$")


class ScriptError(ValueError):
    """A log that cannot be acted out, or a fault that cannot be injected where asked."""


@dataclass(frozen=True)
class Fault:
    """One fault to inject: ``rule`` in hand ``hand`` (0-based) by ``seat`` (None: the script picks)."""

    rule: str
    hand: int
    seat: int | None = None


def parse_inject(text: str) -> Fault:
    """Parse ``RULE@HAND[:SEAT]``. Raises ScriptError naming what is wrong."""
    m = _INJECT.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ScriptError(f"--inject {text!r}: expected RULE@HAND[:SEAT], e.g. taken_back@2:1")
    rule, hand, seat = m.group(1), int(m.group(2)), m.group(3)
    if rule not in INJECTABLE_RULES:
        raise ScriptError(f"--inject {text!r}: unknown rule {rule!r}; known: {', '.join(INJECTABLE_RULES)}")
    if seat is not None and int(seat) > 3:
        raise ScriptError(f"--inject {text!r}: seat {seat} is not 0..3")
    return Fault(rule, hand, None if seat is None else int(seat))


@dataclass
class HandScript:
    index: int
    round: int
    honba: int
    sticks: int
    scores: tuple[int, ...]
    dealer: int
    dice: tuple[int, int]
    walls: dict[WL.WallSlot, str | None]
    actions: list[dict]
    faults: list[dict] = field(default_factory=list)


@dataclass
class Script:
    """A whole scripted game. ``red_fives``: the red fives of the set played (mpsz), as the
    log's ``"rule"`` says; the staff would start the game with them."""

    ruleset: str
    players: tuple[str, ...]
    hands: list[HandScript]
    source: str = "<log>"
    red_fives: tuple[str, ...] = ("0m", "0p", "0s")

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "players": list(self.players), "source": self.source,
                "red_fives": list(self.red_fives), "hands": [_hand_json(h) for h in self.hands]}


def _hand_json(h: HandScript) -> dict:
    walls: list[list[list[str | None]]] = []
    for seat in range(4):
        stacks = []
        last = max([17] + [slot.stack for slot, tile in h.walls.items() if slot.seat == seat and tile is not None])
        for k in range(1, last + 1):
            stacks.append([h.walls.get(WL.WallSlot(seat, k, WL.UPPER)), h.walls.get(WL.WallSlot(seat, k, WL.LOWER))])
        walls.append(stacks)
    return {"index": h.index, "round": h.round, "honba": h.honba, "sticks": h.sticks, "scores": list(h.scores),
            "dealer": h.dealer, "dice": list(h.dice), "walls": walls, "actions": h.actions, "faults": h.faults}


def script_from_json(data: dict) -> Script:
    """Rebuild a Script from :meth:`Script.to_json` output. Raises ScriptError when malformed."""
    try:
        hands = []
        for h in data["hands"]:
            walls: dict[WL.WallSlot, str | None] = {}
            for seat, stacks in enumerate(h["walls"]):
                for k, (up, low) in enumerate(stacks, start=1):
                    walls[WL.WallSlot(seat, k, WL.UPPER)] = up
                    walls[WL.WallSlot(seat, k, WL.LOWER)] = low
            hands.append(HandScript(h["index"], h["round"], h["honba"], h["sticks"], tuple(h["scores"]),
                                    h["dealer"], tuple(h["dice"]), walls, list(h["actions"]), list(h["faults"])))
        return Script(data["ruleset"], tuple(data["players"]), hands, data.get("source", "<script>"),
                      tuple(data.get("red_fives", ("0m", "0p", "0s"))))
    except (KeyError, TypeError, ValueError) as err:
        raise ScriptError(f"script is malformed: {err!r}") from None



def slot_of(action: dict) -> WL.WallSlot:
    return WL.WallSlot(action["wall"], action["stack"], action.get("layer", WL.UPPER))


class HandBuilder:
    """Builder state for one hand."""

    def __init__(self, lh: TH.LogHand, rules: RuleSet, rng: random.Random, where: str) -> None:
        self.lh, self.rules, self.rng, self.where = lh, rules, rng, where
        self.actions: list[dict] = []
        self.snaps: list[tuple[tuple[str, ...], ...]] = []   # every seat's hand before each action
        self.players: list[Player] = seat_players(lh.haipai)
        self._snap_of: dict[int, int] = {}

    def add(self, action: dict) -> None:
        self.snaps.append(tuple(tuple(p.hand) for p in self.players))
        self.actions.append(action)

    def seal(self) -> None:
        """The hand is built: remember each action's snapshot by the action itself (faults insert
        actions, which shifts the indices)."""
        self._snap_of = {id(a): k for k, a in enumerate(self.actions)}

    def knows(self, action: dict) -> bool:
        """Is ``action`` one of the hand as built (not one a fault inserted)?"""
        return id(action) in self._snap_of

    def held_before(self, action: dict, seat: int) -> tuple[str, ...]:
        """``seat``'s standing tiles just before ``action`` (an action of the hand as built)."""
        return self.snaps[self._snap_of[id(action)]][seat]
