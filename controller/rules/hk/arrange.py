"""Arrangements of a complete hand into sets and a pair, for the Hong Kong and Chinese tables.

A winning hand is four sets (chow 顺子, pung 刻子, kong 杠) and a pair (将), or thirteen orphans
(十三幺). The exposed melds are fixed; the concealed tiles may split in several ways, and each
way is one :class:`Arrangement`. Scoring looks at all of them and keeps the best.

>>> [a.describe() for a in arrangements(T.parse("111222333m789p55s"), [])]
['111m 222m 333m 789p 55s', '123m 123m 123m 789p 55s']
>>> arrangements(T.parse("19m19p19s1234567z1m"), [])[0].is_thirteen_orphans
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.rules import tiles as T

MELD_KINDS = ("chi", "pon", "kan", "ankan")
ORPHANS_34 = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


class HandShapeError(ValueError):
    """Impossible input: a tile count that cannot be a hand, a fifth copy, a flower in the hand."""


@dataclass(frozen=True)
class Meld:
    """An exposed (or declared concealed) set: ``kind`` "chi", "pon", "kan" (open kong) or "ankan"."""

    kind: str
    tiles: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in MELD_KINDS:
            raise HandShapeError(f"meld kind {self.kind!r} must be one of {', '.join(MELD_KINDS)}")
        tiles = tuple(T.check(t) for t in self.tiles)
        object.__setattr__(self, "tiles", tiles)
        kinds = sorted(T.to_34(t) for t in tiles)
        if self.kind == "chi":
            ok = len(kinds) == 3 and kinds[0] < 27 and kinds[0] // 9 == kinds[2] // 9 \
                and kinds == list(range(kinds[0], kinds[0] + 3))
        elif self.kind == "pon":
            ok = len(kinds) == 3 and len(set(kinds)) == 1
        else:
            ok = len(kinds) == 4 and len(set(kinds)) == 1
        if not ok:
            raise HandShapeError(f"meld {self.kind} {T.fmt(tiles)!r} is not a valid {self.kind}")

    @classmethod
    def of(cls, kind: str, text: str) -> Meld:
        return cls(kind, tuple(T.parse(text)))

    @property
    def is_open(self) -> bool:
        return self.kind != "ankan"


@dataclass(frozen=True)
class Group:
    """One set or the pair of an arrangement: ``kind`` "chow", "pung", "kong" or "pair";
    ``first`` is the 34-kind index of its lowest tile; ``is_open`` when it was called."""

    kind: str
    first: int
    is_open: bool = False

    @property
    def kinds_34(self) -> tuple[int, ...]:
        if self.kind == "chow":
            return (self.first, self.first + 1, self.first + 2)
        return (self.first,)

    @property
    def is_triplet(self) -> bool:
        return self.kind in ("pung", "kong")

    def describe(self) -> str:
        size = {"chow": 3, "pung": 3, "kong": 4, "pair": 2}[self.kind]
        if self.kind == "chow":
            return T.fmt(T.from_34(k) for k in self.kinds_34)
        return T.fmt([T.from_34(self.first)] * size)


@dataclass(frozen=True)
class Arrangement:
    """A complete hand read one way: ``groups`` (sets then the pair), or thirteen orphans.

    ``tiles_34`` counts every tile of the hand (melds included, a kong as 4)."""

    groups: tuple[Group, ...]
    tiles_34: tuple[int, ...]
    is_thirteen_orphans: bool = False

    @property
    def sets(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.kind != "pair")

    @property
    def pair(self) -> Group | None:
        return next((g for g in self.groups if g.kind == "pair"), None)

    @property
    def kinds_present(self) -> tuple[int, ...]:
        return tuple(k for k, n in enumerate(self.tiles_34) if n)

    def describe(self) -> str:
        if self.is_thirteen_orphans:
            return "thirteen orphans"
        return " ".join(g.describe() for g in self.groups)


def _split(counts: list[int], start: int = 0) -> list[list[Group]]:
    """All ways to split ``counts`` (a multiple of 3 tiles) into chows and pungs."""
    i = start
    while i < 34 and counts[i] == 0:
        i += 1
    if i == 34:
        return [[]]
    out: list[list[Group]] = []
    if counts[i] >= 3:
        counts[i] -= 3
        out += [[Group("pung", i)] + rest for rest in _split(counts, i)]
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        out += [[Group("chow", i)] + rest for rest in _split(counts, i)]
        for k in (i, i + 1, i + 2):
            counts[k] += 1
    return out


def check_hand(concealed: Sequence[str], melds: Sequence[Meld]) -> list[int]:
    """Check a 14-tile hand (a kong counting 3) and return the concealed counts by 34-kind.

    Raises HandShapeError naming the problem (flower in hand, wrong size, fifth copy).
    """
    for t in concealed:
        T.check(t)
        if T.is_flower(t):
            raise HandShapeError(f"flower {t!r} in the hand: flowers are set aside, not held")
    size = len(concealed) + 3 * len(melds)
    if size != 14:
        raise HandShapeError(f"hand has {size} tiles (kongs counted as 3), a win needs 14")
    over = T.over_four([*concealed, *(t for m in melds for t in m.tiles)])
    if over:
        raise HandShapeError(f"{over[1]} copies of {over[0]!r}: a set holds 4")
    return T.counts_34(concealed)


def arrangements(concealed: Sequence[str], melds: Sequence[Meld]) -> list[Arrangement]:
    """Every way to read ``concealed`` + ``melds`` as a complete hand (empty when it is not one).

    ``concealed`` includes the winning tile. Raises HandShapeError for impossible input.
    """
    counts = check_hand(concealed, melds)
    fixed = [Group({"chi": "chow", "pon": "pung", "kan": "kong", "ankan": "kong"}[m.kind],
                   min(T.to_34(t) for t in m.tiles), m.is_open) for m in melds]
    total = list(counts)
    for m in melds:
        for t in m.tiles:
            total[T.to_34(t)] += 1
    out: list[Arrangement] = []
    if not melds and all(counts[k] >= 1 for k in ORPHANS_34) and sum(counts[k] for k in ORPHANS_34) == 14:
        out.append(Arrangement((), tuple(total), is_thirteen_orphans=True))
    seen: set[tuple[Group, ...]] = set()
    for p in range(34):
        if counts[p] < 2:
            continue
        counts[p] -= 2
        for sets in _split(counts):
            groups = tuple(fixed + sets + [Group("pair", p)])
            key = tuple(sorted(groups, key=lambda g: (g.kind, g.first, g.is_open)))
            if key not in seen:
                seen.add(key)
                out.append(Arrangement(groups, tuple(total)))
        counts[p] += 2
    return out
