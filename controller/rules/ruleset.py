"""Rulesets: named profiles of house rules, loaded from ``profiles/NAME.toml``.

A :class:`RuleSet` is a frozen value handed to the rules engine (like ``mahjong``'s
``OptionalRules``); there are no module-level switches. Each TOML profile has one table per
topic (``[game]``, ``[riichi]``, ``[payments]``, ``[draws]``, ``[settlement]``, ``[sanma]``)
whose keys are the :class:`RuleSet` fields listed in :data:`SECTIONS`; an unknown table or key
is refused with its name. A profile may start from another with ``extends = "NAME"``.

The ``[procedures]``, ``[hk]`` and ``[chinese]`` tables belong to the procedure, Hong Kong and
Chinese modules; they are kept and parsed by those modules' ``from_table`` when present.

>>> rs = load("tenhou")
>>> rs.has_open_tanyao, rs.has_kiriage, rs.red_fives
(True, False, (1, 1, 1))
>>> load("seed002").kuikae
'both'
"""

from __future__ import annotations

import dataclasses
import importlib
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any


class RuleSetError(ValueError):
    """A profile that cannot be loaded: unknown name, unknown key, or a value out of range."""


_CHOICES: dict[str, tuple[str, ...]] = {
    "game_length": ("east", "hanchan", "full"),
    "dealer_repeat": ("tenpai", "always_pass", "east_tenpai_south_stay"),
    "abortive_dealer": ("keep", "pass"),
    "kazoe": ("yakuman", "sanbaiman", "multiple"),
    "kuikae": ("both", "genbutsu", "allowed"),
    "pao_other_yakuman": ("all", "own"),
    "double_ron": ("all", "head_bump"),
    "triple_ron": ("abort", "all", "head_bump"),
    "kan_dora_timing": ("tenhou", "immediate"),
    "north": ("nukidora", "dora", "yakuhai", "both", "plain"),
    "rounding": ("none", "round_half_up", "five_six", "floor"),
    "ties": ("split", "seat_order"),
    "chombo": ("reverse_mangan", "deduction"),
}


@dataclass(frozen=True)
class RuleSet:
    """House rules of one ruleset (riichi options; raw tables of the other families).

    Points are in table points; ``uma`` is in thousands (``(20, 10, -10, -20)``), first place first.
    """

    name: str = "custom"
    family: str = "riichi"  # riichi | hk | chinese
    # [game]
    players: int = 4
    start_points: int = 25000
    game_length: str = "hanchan"
    has_west_extension: bool = True
    extension_target: int = 30000
    has_tobi: bool = True
    has_agari_yame: bool = True
    has_tenpai_yame: bool = False
    dealer_repeat: str = "tenpai"
    two_han_minimum_honba: int = 0  # 0: never; 5: from the 5th honba on
    # [riichi]
    red_fives: tuple[int, int, int] = (1, 1, 1)  # red 5m, 5p, 5s in the set
    has_open_tanyao: bool = True
    has_kiriage: bool = False
    kazoe: str = "yakuman"
    has_double_yakuman: bool = False
    has_multiple_yakuman: bool = True
    has_big_yakuman_base: bool = False  # 大役満: base 12000 instead of 8000
    has_aotenjou: bool = False
    has_chiitoitsu_50fu: bool = False
    has_pinfu_tsumo_30fu: bool = False
    has_rinshan_tsumo_fu: bool = True
    kuikae: str = "both"
    kan_dora_timing: str = "tenhou"
    has_kan_dora: bool = True
    has_ura_dora: bool = True
    has_nagashi_mangan: bool = True
    riichi_min_live_tiles: int = 4
    # [payments]
    riichi_cost: int = 1000
    honba_ron: int = 300
    honba_tsumo_each: int = 100
    pao_yakuman: tuple[str, ...] = ("daisangen", "daisuushii")
    pao_other_yakuman: str = "all"
    has_rinshan_pao: bool = False   # 大明槓嶺上開花包牌: a rinshan win after an open kan is the kan's discarder's ron
    double_ron: str = "all"
    triple_ron: str = "abort"
    # 錯和 (chombo): reverse_mangan (paid to the others as a mangan tsumo), or deduction
    # (chombo_points taken off the offender alone and paid to nobody: league style)
    chombo: str = "reverse_mangan"
    chombo_points: int = 20000
    # [draws]
    noten_total: int = 3000
    abort_four_winds: bool = True
    abort_four_kans: bool = True
    abort_four_riichi: bool = True
    abort_triple_ron: bool = True
    abort_nine_terminals: bool = True
    abort_closed_kan_riichi: bool = False
    abortive_dealer: str = "keep"
    # [settlement]
    return_points: int = 30000
    uma: tuple[int, ...] = (20, 10, -10, -20)
    rounding: str = "none"
    ties: str = "seat_order"
    leftover_sticks_to_first: bool = True
    # [sanma]
    north: str = "nukidora"
    has_tsumo_loss: bool = True
    # tables owned by the procedure / hk / chinese modules (parsed objects, or the raw dict)
    procedures: Any = field(default=None, compare=False)
    hk: Any = field(default=None, compare=False)
    chinese: Any = field(default=None, compare=False)

    @property
    def is_sanma(self) -> bool:
        return self.players == 3

    @property
    def has_aka_dora(self) -> bool:
        return any(self.red_fives)

    @property
    def oka(self) -> int:
        """The top prize in points: (return - start) from each player."""
        return (self.return_points - self.start_points) * self.players


SECTIONS: dict[str, tuple[str, ...]] = {
    "game": ("players", "start_points", "game_length", "has_west_extension", "extension_target", "has_tobi",
             "has_agari_yame", "has_tenpai_yame", "dealer_repeat", "two_han_minimum_honba"),
    "riichi": ("red_fives", "has_open_tanyao", "has_kiriage", "kazoe", "has_double_yakuman",
               "has_multiple_yakuman", "has_big_yakuman_base", "has_aotenjou", "has_chiitoitsu_50fu",
               "has_pinfu_tsumo_30fu", "has_rinshan_tsumo_fu", "kuikae", "kan_dora_timing", "has_kan_dora",
               "has_ura_dora", "has_nagashi_mangan", "riichi_min_live_tiles"),
    "payments": ("riichi_cost", "honba_ron", "honba_tsumo_each", "pao_yakuman", "pao_other_yakuman",
                 "has_rinshan_pao", "double_ron", "triple_ron", "chombo", "chombo_points"),
    "draws": ("noten_total", "abort_four_winds", "abort_four_kans", "abort_four_riichi", "abort_triple_ron",
              "abort_nine_terminals", "abort_closed_kan_riichi", "abortive_dealer"),
    "settlement": ("return_points", "uma", "rounding", "ties", "leftover_sticks_to_first"),
    "sanma": ("north", "has_tsumo_loss"),
}
_FOREIGN = {  # table -> (module, class) that parses it
    "procedures": ("controller.rules.procedures", "ProcedureRules"),
    "hk": ("controller.rules.hk", "HKRules"),
    "chinese": ("controller.rules.chinese", "ChineseRules"),
}
_FIELDS = {f.name: f for f in dataclasses.fields(RuleSet)}
_PAO_NAMES = ("daisangen", "daisuushii", "suukantsu")


def _check_value(section: str, key: str, value: Any) -> Any:
    where = f"profile [{section}] {key!r}"
    default = _FIELDS[key].default
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise RuleSetError(f"{where} is {value!r}, must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RuleSetError(f"{where} is {value!r}, must be a whole number >= 0")
        if key == "chombo_points" and value % 100:
            raise RuleSetError(f"{where} is {value!r}, must be whole hundreds of points")
        return value
    if isinstance(default, str):
        choices = _CHOICES.get(key)
        if not isinstance(value, str) or (choices and value not in choices):
            raise RuleSetError(f"{where} is {value!r}, must be one of {', '.join(choices or ('text',))}")
        return value
    if key == "red_fives":
        if not (isinstance(value, list) and len(value) == 3 and all(type(v) is int and 0 <= v <= 4 for v in value)):
            raise RuleSetError(f"{where} is {value!r}, must be [man, pin, sou] counts 0..4")
        return tuple(value)
    if key == "uma":
        if not (isinstance(value, list) and len(value) in (3, 4) and all(type(v) is int for v in value)
                and sum(value) == 0):
            raise RuleSetError(f"{where} is {value!r}, must be 3 or 4 whole numbers summing to 0")
        return tuple(value)
    if key == "pao_yakuman":
        if not (isinstance(value, list) and all(v in _PAO_NAMES for v in value)):
            raise RuleSetError(f"{where} is {value!r}, must list names from {', '.join(_PAO_NAMES)}")
        return tuple(value)
    raise RuleSetError(f"{where}: unsupported key")  # pragma: no cover


def _parse_foreign(table: str, raw: dict) -> Any:
    module_name, class_name = _FOREIGN[table]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):
            return raw
        raise
    cls = getattr(module, class_name, None)
    if cls is None or not hasattr(cls, "from_table"):
        return raw
    return cls.from_table(raw)


def from_dict(data: dict[str, Any], name: str = "custom", *, _seen: tuple[str, ...] = ()) -> RuleSet:
    """Build a RuleSet from parsed TOML data. Raises RuleSetError naming any unknown table or key."""
    values: dict[str, Any] = {}
    raw_foreign: dict[str, dict] = {}
    base_name = data.get("extends")
    if base_name is not None:
        if not isinstance(base_name, str) or base_name in _seen:
            raise RuleSetError(f"profile {name!r}: 'extends' = {base_name!r} is not a usable profile name")
        base = load(base_name, _seen=_seen + (name,))
        values = {f.name: getattr(base, f.name) for f in dataclasses.fields(RuleSet)}
        for table in _FOREIGN:
            raw_foreign[table] = dict(getattr(base, "_raw_" + table, None) or {})
    for key, value in data.items():
        if key == "extends":
            continue
        if key == "family":
            if value not in ("riichi", "hk", "chinese"):
                raise RuleSetError(f"profile {name!r}: family is {value!r}, must be riichi, hk or chinese")
            values["family"] = value
            continue
        if key in _FOREIGN:
            if not isinstance(value, dict):
                raise RuleSetError(f"profile {name!r}: [{key}] must be a table")
            raw_foreign.setdefault(key, {}).update(value)
            continue
        if key not in SECTIONS:
            raise RuleSetError(f"profile {name!r}: unknown table or key {key!r}")
        if not isinstance(value, dict):
            raise RuleSetError(f"profile {name!r}: [{key}] must be a table")
        for sub, sub_value in value.items():
            if sub not in SECTIONS[key]:
                raise RuleSetError(f"profile {name!r}: unknown key {sub!r} in [{key}]")
            values[sub] = _check_value(key, sub, sub_value)
    values["name"] = name
    for table in _FOREIGN:
        values[table] = _parse_foreign(table, raw_foreign.get(table, {}))
    rs = RuleSet(**values)
    if len(rs.uma) != rs.players and rs.family == "riichi":
        raise RuleSetError(f"profile {name!r}: uma has {len(rs.uma)} entries for {rs.players} players")
    if rs.players not in (3, 4):
        raise RuleSetError(f"profile {name!r}: players is {rs.players}, must be 3 or 4")
    for table in _FOREIGN:
        object.__setattr__(rs, "_raw_" + table, raw_foreign.get(table, {}))
    return rs


def from_toml(text: str, name: str = "custom") -> RuleSet:
    """Parse a profile from TOML text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RuleSetError(f"profile {name!r}: not valid TOML: {err}") from err
    return from_dict(data, name)


PROFILE_NAMES = ("tenhou", "seed002", "sanma", "hk", "chinese", "competition")
_CACHE: dict[str, RuleSet] = {}


def load(name: str, *, _seen: tuple[str, ...] = ()) -> RuleSet:
    """Load the named profile shipped in ``controller/rules/profiles/``. Raises RuleSetError."""
    if name in _CACHE:
        return _CACHE[name]
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise RuleSetError(f"unknown ruleset {name!r}: known are {', '.join(PROFILE_NAMES)}")
    try:
        text = resources.files("controller.rules").joinpath("profiles", f"{name}.toml").read_text("utf-8")
    except (FileNotFoundError, OSError):
        raise RuleSetError(f"unknown ruleset {name!r}: known are {', '.join(PROFILE_NAMES)}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RuleSetError(f"profile {name!r}: not valid TOML: {err}") from err
    rs = from_dict(data, name, _seen=_seen)
    _CACHE[name] = rs
    return rs


def table_profile_for(name: str) -> str:
    """The table profile (``hardware/profiles``, ``vision.layout.load_profile``) whose walls the
    named rule set's tiles stand in (``ProcedureRules.table_profile``: ``hk144``, ``sanma`` or
    ``riichi4``). A rule set that cannot be loaded reads as the riichi table (the game refuses it
    on its own)."""
    try:
        return load(name).procedures.table_profile
    except RuleSetError:
        return "riichi4"
