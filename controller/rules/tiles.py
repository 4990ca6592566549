"""Tiles in mpsz notation.

A tile is a short string: ``1m``..``9m``, ``1p``..``9p``, ``1s``..``9s`` (manzu, pinzu, souzu),
``1z``..``7z`` (東 南 西 北 白 發 中: east, south, west, north, haku, hatsu, chun), ``0m``/``0p``/``0s``
for the red fives, and ``1f``..``8f`` for the flowers and seasons of the 144-tile set
(plum, orchid, chrysanthemum, bamboo, spring, summer, autumn, winter).

``tile_34`` is the kind index 0..33 used by the ``mahjong`` package (a red five maps to its
plain five); flowers have no ``tile_34``.

>>> parse("123m0p77z")
['1m', '2m', '3m', '0p', '7z', '7z']
>>> fmt(["1m", "2m", "0p", "5p", "7z"])
'12m05p7z'
>>> to_34("0p"), from_34(13)
(13, '5p')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUITS = "mpsz"
KINDS_34: tuple[str, ...] = tuple(
    [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
)
REDS: tuple[str, ...] = ("0m", "0p", "0s")
FLOWERS: tuple[str, ...] = tuple(f"{n}f" for n in range(1, 9))
ALL_TILES: tuple[str, ...] = KINDS_34 + REDS + FLOWERS

_INDEX_34 = {t: i for i, t in enumerate(KINDS_34)}
_INDEX_34.update({"0m": 4, "0p": 13, "0s": 22})
_TOKEN = re.compile(r"([0-9]+)([mpszf])")

HONOR_NAMES = {"1z": "east", "2z": "south", "3z": "west", "4z": "north",
               "5z": "haku", "6z": "hatsu", "7z": "chun"}


class TileError(ValueError):
    """A tile or tile string that is not valid mpsz notation."""


def is_tile(tile: str) -> bool:
    return tile in _INDEX_34 or tile in FLOWERS


def check(tile: str) -> str:
    """Return ``tile`` if it is a valid tile, else raise TileError naming it."""
    if not isinstance(tile, str) or not is_tile(tile):
        raise TileError(f"unknown tile {tile!r}: expected mpsz like '5m', '0p' (red five), '7z' or '3f'")
    return tile


def parse(text: str) -> list[str]:
    """Parse mpsz notation (``123m456p789s1234567z``, ``0m`` red, ``1f``..``8f``) into tiles.

    Raises TileError for anything else, naming the offending part.
    """
    if not isinstance(text, str):
        raise TileError(f"tile string must be text, got {type(text).__name__}")
    compact = text.replace(" ", "")
    pos = 0
    out: list[str] = []
    for match in _TOKEN.finditer(compact):
        if match.start() != pos:
            raise TileError(f"cannot read {compact[pos:match.start()]!r} in {text!r}")
        digits, suit = match.groups()
        for d in digits:
            out.append(check(d + suit))
        pos = match.end()
    if pos != len(compact):
        bad = compact[pos:]
        raise TileError(f"cannot read {bad!r} in {text!r}: digits must be followed by m, p, s, z or f")
    return out


def fmt(tiles: Iterable[str]) -> str:
    """Format tiles as compact mpsz, grouped by suit in order of first appearance of runs."""
    parts: list[str] = []
    digits = ""
    suit = ""
    for t in tiles:
        check(t)
        if t[1] != suit and digits:
            parts.append(digits + suit)
            digits = ""
        suit = t[1]
        digits += t[0]
    if digits:
        parts.append(digits + suit)
    return "".join(parts)


def to_34(tile: str) -> int:
    """Kind index 0..33 (red fives map to their plain five). Flowers raise TileError."""
    try:
        return _INDEX_34[tile]
    except KeyError:
        raise TileError(f"tile {tile!r} has no 34-kind index") from None


def from_34(index: int) -> str:
    if not 0 <= index < 34:
        raise TileError(f"34-kind index {index} is out of range 0..33")
    return KINDS_34[index]


def plain(tile: str) -> str:
    """The plain kind of a tile: ``0p`` → ``5p``; others unchanged."""
    return f"5{tile[1]}" if tile in REDS else tile


def is_red(tile: str) -> bool:
    return tile in REDS


def is_flower(tile: str) -> bool:
    return tile in FLOWERS


def is_honor(tile: str) -> bool:
    return tile[1] == "z"


def is_terminal(tile: str) -> bool:
    return tile[1] in "mps" and tile[0] in "19"


def sort_key(tile: str) -> tuple[int, float]:
    """Sort by suit (m, p, s, z, f) then number, a red five just after its plain five."""
    number = 5.5 if tile in REDS else int(tile[0])
    return ("mpszf".index(tile[1]), number)


def sorted_tiles(tiles: Iterable[str]) -> list[str]:
    return sorted(tiles, key=sort_key)


def counts_34(tiles: Iterable[str]) -> list[int]:
    """Count tiles per kind (34 entries); flowers are ignored."""
    counts = [0] * 34
    for t in tiles:
        if t not in FLOWERS:
            counts[to_34(t)] += 1
    return counts


def over_four(tiles: Iterable[str]) -> tuple[str, int] | None:
    """The first kind found more than four times among ``tiles`` (with its count), else None.

    >>> over_four(["1m"] * 5 + ["0p"])
    ('1m', 5)
    """
    for index, n in enumerate(counts_34(tiles)):
        if n > 4:
            return KINDS_34[index], n
    return None
