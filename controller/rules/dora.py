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


def kan_dora_timing(kan_kind: str, kan_dora_timing_rule: str = "tenhou") -> str:
    """When a kan's new indicator is turned: ``"now"`` or ``"after_discard"`` (at the kan player's
    next discard, or at the next kan, whichever comes first). A robbed added kan turns none.

    Profile ``kan_dora_timing``: ``tenhou`` turns at once after a closed kan, after the discard
    for an open or added kan; ``immediate`` turns at once for every kan.

    >>> kan_dora_timing("ankan"), kan_dora_timing("kan"), kan_dora_timing("kakan", "immediate")
    ('now', 'after_discard', 'now')
    """
    if kan_kind not in ("ankan", "kan", "kakan"):
        raise ValueError(f"{kan_kind!r} is not a kan kind (ankan, kan, kakan)")
    if kan_dora_timing_rule == "immediate" or kan_kind == "ankan":
        return "now"
    if kan_dora_timing_rule != "tenhou":
        raise ValueError(f"unknown kan dora timing {kan_dora_timing_rule!r}")
    return "after_discard"


def dora_han(hand: Iterable[str], indicators: Iterable[str], ura_indicators: Iterable[str] = (), *,
             is_riichi: bool = False, north_count: int = 0, is_sanma: bool = False) -> dict[str, int]:
    """Dora han of a hand by kind: ``dora``, ``aka_dora``, ``ura_dora`` (riichi only) and ``kita``
    (sanma norths set aside; each is a dora, and more if the indicators point at north).

    >>> dora_han(["5p", "0p", "0p"], ["4p"], ["4p"], is_riichi=True)
    {'dora': 3, 'aka_dora': 2, 'ura_dora': 3, 'kita': 0}
    """
    tiles = list(hand)
    inds = list(indicators)
    kita = 0
    if north_count:
        kita = north_count * (1 + sum(1 for t in inds if dora_of(t, is_sanma=is_sanma) == "4z"))
    return {"dora": count_dora(tiles, inds, is_sanma=is_sanma), "aka_dora": count_red(tiles),
            "ura_dora": count_dora(tiles, ura_indicators, is_sanma=is_sanma) if is_riichi else 0, "kita": kita}
