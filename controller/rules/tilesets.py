"""Tile sets (牌組) and red-five sets (赤牌), as data, with the census integrity checks use.

A tile set names the kinds a table plays with, four of each: ``"136"`` (the 34 kinds),
``"144"`` (plus one each of the eight flowers and seasons ``1f``..``8f``), ``"108"`` (sanma:
no 2m..8m, S002:L9). A red-five set says how many of the fives are painted red (``0m``/``0p``/
``0s`` in mpsz); some sets paint a 3s or 7s, which mpsz cannot name, so they stay counted as
their plain kind and are listed in :attr:`RedSet.painted` for the camera and the rules.

:func:`census` gives the expected count of every tile (reds apart from their plain five):

>>> c = census("136", "aka1")
>>> c["5m"], c["0m"], c["1z"], sum(c.values())
(3, 1, 4, 136)
>>> c = census("108", "2赤")
>>> c.get("2m", 0), c["0p"], c["5p"], sum(c.values())
(0, 1, 3, 108)
>>> sum(census("144", "none").values()), census("144", "none")["3f"]
(144, 1)
>>> census("136", (0, 2, 1))["0p"]
2
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from controller.rules import tiles as T


class TileSetError(ValueError):
    """An unknown tile-set or red-five-set name, or a red set the tile set cannot hold."""


@dataclass(frozen=True)
class TileSet:
    """A set of tiles: ``copies`` of each kind in ``kinds``, plus one of each tile in ``singles``."""

    name: str
    description: str
    kinds: tuple[str, ...]
    copies: int = 4
    singles: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.kinds) * self.copies + len(self.singles)

    @property
    def has_flowers(self) -> bool:
        return bool(self.singles)


@dataclass(frozen=True)
class RedSet:
    """Red fives of a set: ``reds`` maps ``0m``/``0p``/``0s`` to how many of that five are red.

    ``painted`` lists non-five tiles painted red (``{"3s": 1}``); mpsz has no name for them, so
    they are counted as their plain kind.
    """

    name: str
    description: str
    reds: Mapping[str, int] = field(default_factory=dict)
    painted: Mapping[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> tuple[int, int, int]:
        """Red 5m, 5p, 5s, as ``RuleSet.red_fives`` writes them."""
        return (self.reds.get("0m", 0), self.reds.get("0p", 0), self.reds.get("0s", 0))

    @property
    def total(self) -> int:
        return sum(self.reds.values()) + sum(self.painted.values())


_NUMBERS = tuple(f"{n}{s}" for s in "mps" for n in range(1, 10))
_HONORS = tuple(f"{n}z" for n in range(1, 8))

TILE_SETS: Mapping[str, TileSet] = MappingProxyType({
    "136": TileSet("136", "34 kinds x 4 (riichi, plain Chinese)", _NUMBERS + _HONORS),
    "144": TileSet("144", "34 kinds x 4 + flowers and seasons 1f..8f (Hong Kong, 四绘四听, competition)",
                   _NUMBERS + _HONORS, singles=T.FLOWERS),
    "108": TileSet("108", "sanma: 1m, 9m, pinzu, souzu, honors x 4 (no 2m..8m)",
                   ("1m", "9m") + _NUMBERS[9:] + _HONORS),
})


def _red(name: str, description: str, m: int = 0, p: int = 0, s: int = 0, **painted: int) -> RedSet:
    reds = {k: v for k, v in (("0m", m), ("0p", p), ("0s", s)) if v}
    return RedSet(name, description, MappingProxyType(reds),
                  MappingProxyType({k.replace("_", ""): v for k, v in painted.items()}))


RED_SETS: Mapping[str, RedSet] = MappingProxyType({r.name: r for r in (
    _red("none", "no red tiles"),
    _red("aka2", "2赤: one red 5p, one red 5s (sanma sets)", p=1, s=1),
    _red("aka1", "赤一 / 3赤: one red five of each suit (Tenhou)", m=1, p=1, s=1),
    _red("aka4", "4赤: two red 5p, one red 5m, one red 5s", m=1, p=2, s=1),
    _red("aka_two", "赤二: two red fives of each suit", m=2, p=2, s=2),
    _red("aka_three", "赤三: three red fives of each suit", m=3, p=3, s=3),
    _red("aka_four", "赤四: every five red", m=4, p=4, s=4),
    _red("aka8", "8赤: four red 5p, two red 5m, two red 5s", m=2, p=4, s=2),
    _red("aka_37s", "red 5m and 5p, with a painted 3s and 7s instead of a red 5s", m=1, p=1, _3s=1, _7s=1),
)})

RED_SET_ALIASES: Mapping[str, str] = MappingProxyType({
    "2赤": "aka2", "赤一": "aka1", "3赤": "aka1", "4赤": "aka4", "赤二": "aka_two", "赤三": "aka_three",
    "赤四": "aka_four", "8赤": "aka8",
})


def tile_set(name: str) -> TileSet:
    """The tile set called ``name`` ("136", "144", "108"). Raises TileSetError naming the known ones."""
    try:
        return TILE_SETS[str(name)]
    except KeyError:
        raise TileSetError(f"unknown tile set {name!r}: known are {', '.join(TILE_SETS)}") from None


def red_set(spec: str | Iterable[int] | RedSet) -> RedSet:
    """A red set by name or alias ("aka1", "3赤"), or from ``(man, pin, sou)`` counts as in a RuleSet."""
    if isinstance(spec, RedSet):
        return spec
    if isinstance(spec, str):
        key = RED_SET_ALIASES.get(spec, spec)
        try:
            return RED_SETS[key]
        except KeyError:
            known = ", ".join(list(RED_SETS) + list(RED_SET_ALIASES))
            raise TileSetError(f"unknown red-five set {spec!r}: known are {known}") from None
    counts = tuple(spec)
    if len(counts) != 3 or not all(isinstance(c, int) and 0 <= c <= 4 for c in counts):
        raise TileSetError(f"red fives {counts!r} must be three counts 0..4 (man, pin, sou)")
    for rs in RED_SETS.values():
        if rs.counts == counts and not rs.painted:
            return rs
    return _red("custom", f"red fives m/p/s = {counts}", *counts)


def census(set_name: str | TileSet = "136", reds: str | Iterable[int] | RedSet = "none") -> dict[str, int]:
    """Expected count of every tile in the set, red fives (``0m``..) apart from plain fives.

    Raises TileSetError for unknown names or a red five the set has no plain five for (sanma 0m).
    """
    ts = set_name if isinstance(set_name, TileSet) else tile_set(set_name)
    rs = red_set(reds)
    counts: dict[str, int] = {k: ts.copies for k in ts.kinds}
    for t in ts.singles:
        counts[t] = counts.get(t, 0) + 1
    for red, n in list(rs.reds.items()) + list(rs.painted.items()):
        five = T.plain(red)
        have = counts.get(five, 0)
        if n > have:
            raise TileSetError(f"red set {rs.name!r} paints {n} x {five} but tile set {ts.name!r} has {have}")
        counts[five] = have - n
        if T.is_red(red):
            counts[red] = n
        else:  # a painted 3s/7s has no mpsz name: it stays counted as its plain kind
            counts[five] += n
    return {k: v for k, v in counts.items() if v}


def census_for(ruleset: Any) -> dict[str, int]:
    """Census of a loaded RuleSet: its ``procedures.tile_set`` and its red set.

    The red set is ``procedures.red_set`` when that names one, else the ruleset's ``red_fives``.
    """
    proc = getattr(ruleset, "procedures", None)
    set_name = getattr(proc, "tile_set", "136")
    reds = getattr(proc, "red_set", "") or getattr(ruleset, "red_fives", (0, 0, 0))
    return census(set_name, reds)


def full_set(set_name: str | TileSet = "136", reds: str | Iterable[int] | RedSet = "none") -> list[str]:
    """Every tile of the set as a list (in census order), e.g. to shuffle for a simulated wall."""
    return [t for t, n in census(set_name, reds).items() for _ in range(n)]


def excess(tiles: Iterable[str], expected: Mapping[str, int]) -> dict[str, int]:
    """Tiles seen more often than the census allows: ``{tile: seen}`` (a fifth copy, a wrong red).

    ``tiles`` may be any subset of the set (face-up tiles, a revealed hand); only overflow is reported.
    """
    seen: dict[str, int] = {}
    for t in tiles:
        T.check(t)
        seen[t] = seen.get(t, 0) + 1
    return {t: n for t, n in seen.items() if n > expected.get(t, 0)}
