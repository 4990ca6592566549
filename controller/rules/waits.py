"""Tenpai, waits and shanten for any hand with or without melds; the three kinds of furiten.

Standard hands (4 sets + pair), chiitoitsu (七対子, closed only) and kokushi (国士無双, closed
only) are all recognised. ``concealed`` is the list of tiles standing in the hand (mpsz); melds
are :class:`~controller.rules.melds.Meld`. A waiting hand holds ``13 - 3 * len(melds)`` tiles.

A wait is a tile kind that completes the hand and of which the player does not already hold
all four (in hand and melds): such a "wait" can never come, and counts as noten.

>>> waits(T.parse("1112345678999m"))
['1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']
>>> waits(T.parse("6667m123p456s111z"))
['5m', '7m', '8m']
>>> from controller.rules.melds import parse_meld
>>> waits(T.parse("7m123p456s111z"), [parse_meld("ankan:6666m")])
['7m']
>>> waits(T.parse("19m19p19s1234567z"))[:3]
['1m', '9m', '1p']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum

from mahjong.shanten import Shanten

from controller.rules import tiles as T
from controller.rules.melds import Meld

_POW5 = tuple(5 ** i for i in range(9))
_SUIT_CACHE: dict[int, int] = {}  # base-5 key of one suit's counts -> flags: 1 all sets, 2 sets + one pair
_TERMINALS_34 = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _sets_only(c: list[int], i: int) -> bool:
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _sets_only(c, i)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _sets_only(c, i)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def _suit_flags(key: int) -> int:
    flags = _SUIT_CACHE.get(key)
    if flags is not None:
        return flags
    c = [(key // _POW5[i]) % 5 for i in range(9)]
    total = sum(c)
    flags = 0
    if total % 3 == 0 and _sets_only(c, 0):
        flags |= 1
    if total % 3 == 2:
        for i in range(9):
            if c[i] >= 2:
                c[i] -= 2
                ok = _sets_only(c, 0)
                c[i] += 2
                if ok:
                    flags |= 2
                    break
    _SUIT_CACHE[key] = flags
    return flags


def _honor_flags(c: Sequence[int]) -> int:
    pairs = 0
    for n in c:
        if n == 2:
            pairs += 1
        elif n not in (0, 3):
            return 0
    return 1 if pairs == 0 else 2 if pairs == 1 else 0


def _group_flags(counts: Sequence[int]) -> list[int]:
    flags = []
    for s in range(3):
        key = 0
        base = 9 * s
        for i in range(9):
            key += counts[base + i] * _POW5[i]
        flags.append(_suit_flags(key))
    flags.append(_honor_flags(counts[27:34]))
    return flags


def _complete_from_flags(flags: Sequence[int]) -> bool:
    pair_groups = 0
    for f in flags:
        if f & 1:
            continue
        if f & 2:
            pair_groups += 1
        else:
            return False
    return pair_groups == 1


def is_complete_34(counts: Sequence[int], n_melds: int = 0) -> bool:
    """Is this 34-kind count array (3n+2 tiles, ``n_melds`` melds beside it) a complete hand?"""
    if _complete_from_flags(_group_flags(counts)):
        return True
    if n_melds == 0 and sum(counts) == 14:
        if all(n in (0, 2) for n in counts) and sum(1 for n in counts if n == 2) == 7:
            return True
        if all(counts[i] for i in _TERMINALS_34) and sum(counts[i] for i in _TERMINALS_34) == 14:
            return True
    return False


def waits_34(counts: Sequence[int], n_melds: int = 0, held: Sequence[int] | None = None) -> list[int]:
    """Tile kinds (0..33) completing a 3n+1 count array; kinds held four times (``held``) are left out."""
    held = held if held is not None else counts
    out: list[int] = []
    keys = []
    for s in range(3):
        key = 0
        base = 9 * s
        for i in range(9):
            key += counts[base + i] * _POW5[i]
        keys.append(key)
    flags = [_suit_flags(keys[0]), _suit_flags(keys[1]), _suit_flags(keys[2]), _honor_flags(counts[27:34])]
    # For a tile added to group g the other groups must all be sets, or sets with the one pair.
    for g in range(4):
        need = -1  # -1: impossible; 2: group g must give the pair; 1: group g must be sets only
        bad = 0
        pairs = 0
        for o in range(4):
            if o == g:
                continue
            f = flags[o]
            if f & 1:
                continue
            if f & 2:
                pairs += 1
            else:
                bad = 1
                break
        if bad or pairs > 1:
            continue
        need = 2 if pairs == 0 else 1
        if g < 3:
            base = 9 * g
            key = keys[g]
            for i in range(9):
                k = base + i
                if held[k] >= 4:
                    continue
                if counts[k] == 0 and not (
                    (i > 0 and counts[k - 1]) or (i < 8 and counts[k + 1])
                    or (i > 1 and counts[k - 2]) or (i < 7 and counts[k + 2])
                ):
                    continue
                if _suit_flags(key + _POW5[i]) & need:
                    out.append(k)
        else:
            c = list(counts[27:34])
            for i in range(7):
                if c[i] == 0 or held[27 + i] >= 4:
                    continue
                c[i] += 1
                if _honor_flags(c) & need:
                    out.append(27 + i)
                c[i] -= 1
    if n_melds == 0 and sum(counts) == 13:
        pairs = sum(1 for n in counts if n == 2)
        singles = [i for i in range(34) if counts[i] == 1]
        if pairs == 6 and len(singles) == 1 and singles[0] not in out and held[singles[0]] < 4:
            out.append(singles[0])
        if sum(counts[i] for i in _TERMINALS_34) == 13:
            missing = [i for i in _TERMINALS_34 if counts[i] == 0]
            if not missing:
                out.extend(i for i in _TERMINALS_34 if i not in out and held[i] < 4)
            elif len(missing) == 1 and missing[0] not in out and held[missing[0]] < 4:
                out.append(missing[0])
    out.sort()
    return out


def check_hand(concealed: Sequence[str], melds: Sequence[Meld] = (), *, extra: int = 0) -> list[int]:
    """Validate a hand's size and copies; return its 34-kind counts of concealed tiles.

    ``extra`` is 0 for a waiting hand (13 - 3m tiles) or 1 for a complete one (14 - 3m).
    Raises ValueError naming the problem (tile count, a fifth copy, a flower).
    """
    want = 13 - 3 * len(melds) + extra
    if len(melds) > 4:
        raise ValueError(f"a hand has at most 4 melds, got {len(melds)}")
    if len(concealed) != want:
        raise ValueError(f"hand has {len(concealed)} tiles, expected {want} with {len(melds)} meld(s)")
    counts = [0] * 34
    for t in concealed:
        if T.is_flower(T.check(t)):
            raise ValueError(f"flower {t!r} cannot stand in a riichi hand")
        counts[T.to_34(t)] += 1
    over = T.over_four([*concealed, *(t for m in melds for t in m.tiles)])
    if over:
        raise ValueError(f"hand holds {over[1]} copies of {over[0]}: at most 4 exist")
    return counts


def _held(counts: Sequence[int], melds: Iterable[Meld]) -> list[int]:
    held = list(counts)
    for m in melds:
        for t in m.tiles:
            held[T.to_34(t)] += 1
    return held


def waits(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> list[str]:
    """The waits (plain mpsz kinds, sorted) of a hand of 13 - 3m tiles. Raises ValueError on bad input."""
    counts = check_hand(concealed, melds)
    return [T.KINDS_34[k] for k in waits_34(counts, len(melds), _held(counts, melds))]


def is_tenpai(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> bool:
    return bool(waits(concealed, melds))


def is_complete(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> bool:
    """Is a hand of 14 - 3m concealed tiles (winning tile included) complete?"""
    counts = check_hand(concealed, melds, extra=1)
    return is_complete_34(counts, len(melds))


def shanten(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> int:
    """Shanten number (-1 complete, 0 tenpai) over standard, chiitoitsu and kokushi forms."""
    if len(concealed) % 3 == 0:
        raise ValueError(f"hand has {len(concealed)} tiles: shanten needs 3n+1 or 3n+2 tiles")
    counts = check_hand(concealed, melds, extra=(len(concealed) + 3 * len(melds)) - 13)
    if melds:
        return Shanten.calculate_shanten_for_regular_hand(counts)
    return Shanten.calculate_shanten(counts)


class Furiten(Enum):
    """The three kinds of furiten (振聴): each bars ron, never tsumo."""

    DISCARD = "discard"      # 舍牌振聴: a wait is among one's own discards (called ones included)
    TEMPORARY = "temporary"  # 同巡振聴: passed a winning tile since one's last discard
    RIICHI = "riichi"        # 立直振聴: passed a winning tile after declaring riichi


def furiten(wait_tiles: Iterable[str], own_discards: Iterable[str], *,
            passed_since_discard: Iterable[str] = (), passed_since_riichi: Iterable[str] = ()
            ) -> Furiten | None:
    """Which furiten (if any) bars a ron. ``passed_*`` are winning tiles the player let go by.

    >>> furiten(["5m", "8m"], ["0m", "1z"])
    <Furiten.DISCARD: 'discard'>
    >>> furiten(["5m", "8m"], ["1z"], passed_since_riichi=["8m"])
    <Furiten.RIICHI: 'riichi'>
    >>> furiten(["5m", "8m"], ["1z"]) is None
    True
    """
    kinds = {T.plain(t) for t in wait_tiles}
    if any(T.plain(t) in kinds for t in own_discards):
        return Furiten.DISCARD
    if any(T.plain(t) in kinds for t in passed_since_riichi):
        return Furiten.RIICHI
    if any(T.plain(t) in kinds for t in passed_since_discard):
        return Furiten.TEMPORARY
    return None


def tenpai_discards(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> dict[str, list[str]]:
    """For a hand of 14 - 3m tiles: each discard that leaves it tenpai, with the waits then.

    >>> tenpai_discards(T.parse("6667m123p456s111z9s"))
    {'7m': ['9s'], '9s': ['5m', '7m', '8m']}
    """
    check_hand(concealed, melds, extra=1)
    out: dict[str, list[str]] = {}
    for t in dict.fromkeys(concealed):
        rest = list(concealed)
        rest.remove(t)
        w = waits(rest, melds)
        if w:
            out[t] = w
    return out
