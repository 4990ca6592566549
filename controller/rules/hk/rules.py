"""The ``[hk]`` table of a profile: Hong Kong house values (seed 003, RULINGS "Hong Kong")."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.rules.hk.patterns import UNVALUED
from controller.rules.ruleset import RuleSetError

DISCARD_PAYMENTS = ("discarder_all", "discarder_share")


class HKRulesError(RuleSetError):
    """An ``[hk]`` table with an unknown key or a value out of range (named in the message)."""


@dataclass(frozen=True)
class HKRules:
    """Hong Kong values.

    - ``min_fan``: the least fan a win needs (the seed's 鸡胡 is 0 fan, so 0).
    - ``discard_payment``: "discarder_all" (the discarder pays the shares of all three) or
      "discarder_share" (the discarder pays one share); on a self-draw each of the three pays one
      share. A share is the hand's points, 2^fan (S003's 分值 column).
    - ``dealer_repeats``: the dealer keeps the deal after winning; the seed rotates after every
      hand, draws included (S003:L127-135), so false.
    - ``own_flower_fan``: fan per flower of one's own seat (0: the seed gives none).
    - ``all_flowers_wins``: holding all eight flowers wins at once (S003:L119 variant).
    - ``extra_fan``: values for the patterns the seed lists without one
      (``quan_qiu_ren``, ``li_zhi``, ``san_shu``, ``qing_si_peng``); absent = shown, no value.
    """

    min_fan: int = 0
    discard_payment: str = "discarder_all"
    dealer_repeats: bool = False
    own_flower_fan: int = 0
    all_flowers_wins: bool = False
    extra_fan: Any = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_table(cls, table: dict[str, Any] | None) -> HKRules:
        """Build from a profile's ``[hk]`` table. Raises HKRulesError naming the key at fault."""
        table = dict(table or {})
        names = [f.name for f in dataclasses.fields(cls)]
        for key in table:
            if key not in names:
                raise HKRulesError(f"[hk] unknown key {key!r}; known keys: {', '.join(names)}")
        values: dict[str, Any] = {}
        for key in ("min_fan", "own_flower_fan"):
            if key in table:
                v = table[key]
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 20:
                    raise HKRulesError(f"[hk] {key!r} is {v!r}, must be a whole number 0..20")
                values[key] = v
        for key in ("dealer_repeats", "all_flowers_wins"):
            if key in table:
                if not isinstance(table[key], bool):
                    raise HKRulesError(f"[hk] {key!r} is {table[key]!r}, must be true or false")
                values[key] = table[key]
        if "discard_payment" in table:
            if table["discard_payment"] not in DISCARD_PAYMENTS:
                raise HKRulesError(f"[hk] 'discard_payment' is {table['discard_payment']!r}, "
                                   f"must be one of {', '.join(DISCARD_PAYMENTS)}")
            values["discard_payment"] = table["discard_payment"]
        if "extra_fan" in table:
            extra = table["extra_fan"]
            if not isinstance(extra, dict):
                raise HKRulesError("[hk] 'extra_fan' must be a table of pattern = fan")
            for name, v in extra.items():
                if name not in UNVALUED:
                    raise HKRulesError(f"[hk] extra_fan names {name!r}; only the unvalued patterns "
                                       f"{', '.join(UNVALUED)} take a profile value")
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 20:
                    raise HKRulesError(f"[hk] extra_fan {name!r} is {v!r}, must be a whole number 0..20")
            values["extra_fan"] = MappingProxyType(dict(extra))
        return cls(**values)
