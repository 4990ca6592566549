"""Table procedures of a ruleset: the ``[procedures]`` table of a profile TOML.

What the table and its players physically do before and around play: the tile set, the walls
(stacks per side, how many walls), the dead wall (王牌/牌尾) and its refill, how the wall is
broken, how tiles are dealt, how flowers are replaced, how seats and the first dealer are
chosen, and how a closed kan is shown. Walls and dice read these values
(:mod:`controller.rules.walls`, :mod:`controller.rules.dice`, :mod:`controller.rules.seating`).

>>> p = ProcedureRules.from_table({"break_method": "two_rolls_summed", "stacks_per_side": 17})
>>> p.break_method, p.dead_wall_stacks, p.n_tiles
('two_rolls_summed', 7, 136)
>>> ProcedureRules.from_table({"stack_per_side": 18})
Traceback (most recent call last):
...
controller.rules.procedures.ProcedureError: [procedures] unknown key 'stack_per_side'; known keys: ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from controller.rules.dice import BREAK_METHODS
from controller.rules.ruleset import RuleSetError
from controller.rules.tilesets import TILE_SETS, TileSetError, red_set, tile_set

DEALINGS = ("one_each", "jump")
SEATINGS = ("draw_winds", "dice_count", "dice_point", "hk_temp_dealer", "customary", "assigned")
FIRST_DEALERS = ("two_rolls", "one_roll", "east")
FLOWER_REPLACEMENTS = ("none", "immediate")
CLOSED_KAN_DISPLAYS = ("ends_down", "two_down", "all_down")
KAN_INDICATOR_DIRECTIONS = ("toward_live",)
REFILL_REASONS = ("kan", "flower", "north")


class ProcedureError(RuleSetError):
    """A ``[procedures]`` table with an unknown key or a value out of range (named in the message).

    A RuleSetError (so a ValueError): loading a profile raises it through ``ruleset.load``."""


@dataclass(frozen=True)
class ProcedureRules:
    """Procedure values of a ruleset. Defaults are the Tenhou riichi table.

    - ``tile_set``: "136", "144" (flowers ``1f``..``8f``) or "108" (sanma).
    - ``red_set``: a red-five set name from :data:`controller.rules.tilesets.RED_SETS` when the
      table's set differs from the ruleset's ``red_fives``; "" uses ``red_fives``.
    - ``walls`` (4, or 3 for sanma) x ``stacks_per_side`` (17 or 18) x 2 must equal the set size.
    - ``dead_wall_stacks``: stacks of the dead wall after the break; ``dead_wall_stacks_after_kan``:
      its size from the first kan on (chinese 10 → 7: the stacks nearest the live wall become live),
      0 keeps it. ``replacement_stacks``: the far stacks (next to the break) that hold the
      replacement tiles, taken upper first from the break end.
    - ``has_dora_indicator``: the upper tile of the stack next to the replacement stacks is
      flipped (riichi: 3rd from the far end); kan indicators follow ``kan_indicator_direction``.
    - ``refill_after``: after which replacement draws the last live tile moves to the dead wall
      ("kan", "flower", "north").
    - ``break_method`` (see :mod:`controller.rules.dice`) and ``start_after_smaller_die``.
    - ``dealing``: "one_each" (three rounds of two stacks, then one tile each, the dealer then
      draws) or "jump" (the dealer takes the upper tiles of the 1st and 3rd next stacks: same
      slots, the dealer holds 14 after the deal).
    - ``flower_replacement``: "immediate" replaces flowers at once from the dead wall (also in
      the deal, dealer first) or "none" (no flowers in play).
    - ``seating`` and ``first_dealer``: see :mod:`controller.rules.seating`.
    - ``closed_kan_display``: what the camera should expect: "ends_down" (riichi), "two_down"
      (hk: two up, two down), "all_down" (chinese).
    - ``hands_stay_standing``: the other hands stay standing until a win is confirmed (S004:L45).
    """

    tile_set: str = "136"
    red_set: str = ""
    walls: int = 4
    stacks_per_side: int = 17
    dead_wall_stacks: int = 7
    dead_wall_stacks_after_kan: int = 0
    replacement_stacks: int = 2
    has_dora_indicator: bool = True
    kan_indicator_direction: str = "toward_live"
    refill_after: tuple[str, ...] = ("kan",)
    break_method: str = "one_roll"
    start_after_smaller_die: bool = False
    dealing: str = "one_each"
    flower_replacement: str = "none"
    seating: str = "draw_winds"
    first_dealer: str = "two_rolls"
    closed_kan_display: str = "ends_down"
    hands_stay_standing: bool = False

    @property
    def n_tiles(self) -> int:
        return self.walls * self.stacks_per_side * 2

    @property
    def n_players(self) -> int:
        return self.walls

    @property
    def table_profile(self) -> str:
        """The physical table profile whose walls stand this set (``hardware/profiles``, read with
        ``vision.layout.load_profile``): 18 stacks a wall are the 144-tile table (``hk144``) or, with
        three walls, the three-player one (``sanma``); else the riichi table's 17 stacks."""
        if self.stacks_per_side != 18:
            return "riichi4"
        return "sanma" if self.walls == 3 else "hk144"

    @classmethod
    def from_table(cls, table: dict[str, Any] | None) -> ProcedureRules:
        """Build from a profile's ``[procedures]`` table; missing keys keep their defaults.

        Raises ProcedureError naming an unknown key, a value of the wrong type or out of range,
        or values that do not fit together (walls x stacks x 2 != the set size).
        """
        table = dict(table or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(k for k in table if k not in fields)
        if unknown:
            raise ProcedureError(f"[procedures] unknown key {unknown[0]!r}; known keys: {', '.join(fields)}")
        values: dict[str, Any] = {}
        for key, value in table.items():
            values[key] = _check(key, value, fields[key].default)
        rules = cls(**values)
        rules.validate()
        return rules

    def validate(self) -> None:
        """Check the values fit together. Raises ProcedureError."""
        choices = {"break_method": BREAK_METHODS, "dealing": DEALINGS, "seating": SEATINGS,
                   "first_dealer": FIRST_DEALERS, "flower_replacement": FLOWER_REPLACEMENTS,
                   "closed_kan_display": CLOSED_KAN_DISPLAYS,
                   "kan_indicator_direction": KAN_INDICATOR_DIRECTIONS, "tile_set": tuple(TILE_SETS)}
        for key, allowed in choices.items():
            value = getattr(self, key)
            if value not in allowed:
                raise ProcedureError(f"[procedures] {key!r} is {value!r}, must be one of {', '.join(allowed)}")
        for reason in self.refill_after:
            if reason not in REFILL_REASONS:
                raise ProcedureError(f"[procedures] 'refill_after' has {reason!r}, "
                                     f"must list items of {', '.join(REFILL_REASONS)}")
        try:
            ts = tile_set(self.tile_set)
            if self.red_set:
                red_set(self.red_set)
        except TileSetError as err:
            raise ProcedureError(f"[procedures] {err}") from err
        if self.walls not in (3, 4):
            raise ProcedureError(f"[procedures] 'walls' is {self.walls}, must be 3 or 4")
        if not 12 <= self.stacks_per_side <= 20:
            raise ProcedureError(f"[procedures] 'stacks_per_side' is {self.stacks_per_side}, must be 12..20")
        if self.n_tiles != ts.size:
            raise ProcedureError(f"[procedures] {self.walls} walls x {self.stacks_per_side} stacks x 2 = "
                                 f"{self.n_tiles} tiles, but tile set {self.tile_set!r} has {ts.size}")
        if (self.break_method == "sanma") != (self.walls == 3):
            raise ProcedureError(f"[procedures] break_method {self.break_method!r} does not fit {self.walls} walls")
        if ts.has_flowers and self.flower_replacement == "none":
            raise ProcedureError(f"[procedures] tile set {self.tile_set!r} has flowers: "
                                 "'flower_replacement' must be 'immediate'")
        if not 1 <= self.dead_wall_stacks <= 12:
            raise ProcedureError(f"[procedures] 'dead_wall_stacks' is {self.dead_wall_stacks}, must be 1..12")
        after = self.dead_wall_stacks_after_kan
        if after and not 1 <= after <= self.dead_wall_stacks:
            raise ProcedureError(f"[procedures] 'dead_wall_stacks_after_kan' is {after}, "
                                 f"must be 0 (unchanged) or 1..{self.dead_wall_stacks}")
        smallest = after or self.dead_wall_stacks
        if not 1 <= self.replacement_stacks <= smallest:
            raise ProcedureError(f"[procedures] 'replacement_stacks' is {self.replacement_stacks}, "
                                 f"must be 1..{smallest} (the dead wall's stacks)")
        if self.has_dora_indicator and after:
            raise ProcedureError("[procedures] a dead wall that shrinks at the first kan "
                                 "('dead_wall_stacks_after_kan') cannot hold dora indicators")
        if self.has_dora_indicator and self.replacement_stacks >= smallest:
            raise ProcedureError("[procedures] no dead-wall stack is left for the dora indicator: "
                                 f"{self.replacement_stacks} replacement stacks of {smallest}")


def _check(key: str, value: Any, default: Any) -> Any:
    where = f"[procedures] {key!r}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ProcedureError(f"{where} is {value!r}, must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProcedureError(f"{where} is {value!r}, must be a whole number")
        return value
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ProcedureError(f"{where} is {value!r}, must be text")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ProcedureError(f"{where} is {value!r}, must be a list of names")
        return tuple(value)
    raise ProcedureError(f"{where}: unsupported key")  # pragma: no cover
