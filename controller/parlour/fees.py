"""Parlour fee rules as data (``fees.toml``) and what one game or one stay costs. Pure.

Two kinds of rule:

- ``per_game`` (free play): every player pays ``game_fee`` per game; the game's winner (first
  in the settlement) pays ``top_prize`` as well; each player's settlement (the table's
  ruleset's uma/oka, in thousands of points, ``settlement`` of the finished state) is worth
  ``rate`` per thousand points, won or lost.
- ``per_hour`` (a private table): each player pays ``hour_fee`` per hour seated, counted in
  started blocks of ``block_minutes``; the settlement at ``rate`` as above (often 0).

A player's balance for the visit is the sum of its lines: positive the counter pays out,
negative the player owes.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config import ConfigError, _Section

DEFAULT_PATH = Path(__file__).resolve().parent / "fees.toml"
KINDS = ("per_game", "per_hour")


@dataclass(frozen=True)
class FeeRule:
    name: str
    kind: str = "per_game"
    game_fee: int = 0
    top_prize: int = 0
    hour_fee: int = 0
    block_minutes: int = 60
    rate: int = 0


@dataclass(frozen=True)
class Fees:
    rules: dict[str, FeeRule]
    default: str
    tables: dict[str, str]

    def rule_of(self, table: str) -> FeeRule:
        return self.rules[self.tables.get(table, self.default)]


def parse(raw: dict[str, Any], origin: str = "<fees>") -> Fees:
    for key in raw:
        if key not in ("tables", "rules"):
            raise ConfigError(f"{origin}: unknown section [{key}] (known: tables, rules)")
    rules: dict[str, FeeRule] = {}
    for name, body in (raw.get("rules") or {}).items():
        if not isinstance(body, dict):
            raise ConfigError(f"{origin}: rules.{name} must be a section [rules.{name}]")
        s = _Section(f"rules.{name}", body, origin)
        rules[name] = FeeRule(name=name, kind=s.str("kind", "per_game", choices=KINDS),
                              game_fee=s.int("game_fee", 0, minval=0), top_prize=s.int("top_prize", 0, minval=0),
                              hour_fee=s.int("hour_fee", 0, minval=0),
                              block_minutes=s.int("block_minutes", 60, minval=1, maxval=1440),
                              rate=s.int("rate", 0, minval=0))
        s.check_unused()
    if not rules:
        raise ConfigError(f"{origin}: no [rules.NAME] section")
    tables = dict(raw.get("tables") or {})
    default = tables.pop("default", next(iter(rules)))
    for table, rule in {**tables, "default": default}.items():
        if rule not in rules:
            raise ConfigError(f"{origin}: [tables] {table} = {rule!r}, no such rule (known: {', '.join(rules)})")
    return Fees(rules=rules, default=default, tables=tables)


def load(path: str | Path | None = None) -> Fees:
    file = Path(path) if path else DEFAULT_PATH
    try:
        with open(file, "rb") as fh:
            return parse(tomllib.load(fh), str(file))
    except FileNotFoundError as err:
        raise ConfigError(f"fees file {file} does not exist") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"fees file {file}: not valid TOML: {err}") from err


def game_lines(rule: FeeRule, settlement: list[float] | None, scores: list[int | None]) -> list[list[tuple[str, int]]]:
    """Per seat (the game's seat order) the lines one finished game adds: (what, amount)."""
    n = len(settlement) if settlement else len(scores)
    lines: list[list[tuple[str, int]]] = [[] for _ in range(n)]
    if settlement:
        winner = max(range(n), key=lambda i: (settlement[i], -i))
    else:
        winner = max(range(n), key=lambda i: (scores[i] or 0, -i))
    for seat in range(n):
        if rule.kind == "per_game":
            lines[seat].append(("game_fee", -rule.game_fee))
            if seat == winner and rule.top_prize:
                lines[seat].append(("top_prize", -rule.top_prize))
        if settlement and rule.rate:
            lines[seat].append(("settlement", round(settlement[seat] * rule.rate)))
    return lines


def hour_charge(rule: FeeRule, seated_s: float) -> int:
    """What ``seated_s`` seconds at a per-hour table cost (started blocks count)."""
    if rule.kind != "per_hour" or seated_s <= 0:
        return 0
    blocks = math.ceil(seated_s / 60.0 / rule.block_minutes - 1e-9)
    return -round(blocks * rule.hour_fee * rule.block_minutes / 60.0)
