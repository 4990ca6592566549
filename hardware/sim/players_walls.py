"""The walls a seeded player's hand is played on: the dealer's rolls, the wall plan they give,
and the set shuffled into the wall slots (``players_fan``, ``players_sanma``)."""

from __future__ import annotations

import random

from controller.rules import dice as DC
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.ruleset import RuleSet
from controller.rules.tilesets import census_for
from hardware.sim.script_model import ScriptError


def shuffled_walls(rules: RuleSet, dealer: int, rng: random.Random
                   ) -> tuple[list[tuple[int, ...]], WL.WallLayout, dict[WL.WallSlot, str | None]]:
    """Roll the dice as the ruleset's break method asks, plan the walls from the rolls, and lay
    the ruleset's whole set, shuffled by ``rng``, into the wall slots: ``(rolls, layout, walls)``."""
    proc = rules.procedures
    rolls: list[tuple[int, ...]] = []
    while (nxt := DC.next_roller(proc.break_method, dealer, rolls)) is not None:
        rolls.append(tuple(rng.randint(1, 6) for _ in range(nxt[1])))
    lay = WL.plan(proc, dealer, rolls)
    census = census_for(rules)
    bag = [t for t in sorted(census, key=T.sort_key) for _ in range(census[t])]
    rng.shuffle(bag)
    slots = list(lay.all_slots)
    if len(slots) != len(bag):
        raise ScriptError(f"{rules.name}: {len(slots)} wall slots for a set of {len(bag)} tiles")
    return rolls, lay, dict(zip(slots, bag, strict=True))
