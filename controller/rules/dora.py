"""Dora (寶牌/ドラ): the tile after each indicator, counted in a hand; red fives (赤ドラ).

Numbers run 1→…→9→1 within their suit; winds E→S→W→N→E; dragons haku→hatsu→chun→haku
(winds and dragons cycle separately). In sanma (no 2m..8m) man runs 1m→9m→1m.

>>> dora_of("4p"), dora_of("9m"), dora_of("4z"), dora_of("5z"), dora_of("7z"), dora_of("0m")
('5p', '1m', '1z', '6z', '5z', '6m')
>>> dora_of("1m", is_sanma=True), dora_of("9m", is_sanma=True)
('9m', '1m')
>>> count_dora(["5m", "0m", "1z"], ["4m", "4m"])
4
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules import tiles as T


def dora_of(indicator: str, *, is_sanma: bool = False) -> str:
    """The dora (plain tile) shown by ``indicator``. Raises TileError for a flower or unknown tile."""
    tile = T.plain(T.check(indicator))
    if T.is_flower(tile):
        raise T.TileError(f"flower {indicator!r} cannot be a dora indicator")
    n, suit = int(tile[0]), tile[1]
    if suit == "z":
        if n <= 4:
            return f"{n % 4 + 1}z"
        return f"{(n - 5 + 1) % 3 + 5}z"
    if is_sanma and suit == "m":
        if n == 1:
            return "9m"
        if n == 9:
            return "1m"
        raise T.TileError(f"{indicator!r} is not in the sanma set (no 2m..8m)")
    return f"{n % 9 + 1}{suit}"


def count_dora(hand: Iterable[str], indicators: Iterable[str], *, is_sanma: bool = False) -> int:
    """How many han of dora ``hand`` holds for ``indicators`` (indicators stack: two 4m make 5m worth 2)."""
    worth: dict[str, int] = {}
    for ind in indicators:
        d = dora_of(ind, is_sanma=is_sanma)
        worth[d] = worth.get(d, 0) + 1
    return sum(worth.get(T.plain(t), 0) for t in hand)


def count_red(hand: Iterable[str]) -> int:
    """How many red fives (``0m``/``0p``/``0s``) ``hand`` holds: one han each."""
    return sum(1 for t in hand if t in T.REDS)
