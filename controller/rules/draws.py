"""Draws: exhaustive draw (荒牌流局) tenpai and noten payments, nagashi mangan, abortive draws.

A seat is tenpai at an exhaustive draw exactly when its revealed hand waits on a tile it does
not already hold all four of (see :func:`controller.rules.waits.waits`).

>>> from controller.rules.ruleset import load
>>> rs = load("tenhou")
>>> noten_deltas([True, False, False, False], rules=rs), noten_deltas([True, True, True, False], rules=rs)
([3000, -1000, -1000, -1000], [1000, 1000, 1000, -3000])
>>> noten_deltas([True, False, True], rules=load("sanma"))
[1000, -2000, 1000]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.rules import tiles as T
from controller.rules.melds import Meld
from controller.rules.ruleset import RuleSet
from controller.rules.waits import waits

# the six abortive draws of seed 002 -> the profile flag switching each
ABORTIVE_KINDS: dict[str, str] = {
    "four_winds": "abort_four_winds",          # 四風連打
    "four_kans": "abort_four_kans",            # 四槓散了
    "four_riichi": "abort_four_riichi",        # 四家立直
    "triple_ron": "abort_triple_ron",          # 三家和了
    "nine_terminals": "abort_nine_terminals",  # 九種九牌
    "closed_kan_riichi": "abort_closed_kan_riichi",  # 暗槓詐立
}


def is_abortive_allowed(kind: str, rules: RuleSet) -> bool:
    """Is this abortive draw switched on in ``rules``? Raises ValueError for an unknown kind."""
    if kind not in ABORTIVE_KINDS:
        raise ValueError(f"unknown abortive draw {kind!r}: expected one of {', '.join(ABORTIVE_KINDS)}")
    return bool(getattr(rules, ABORTIVE_KINDS[kind]))


def noten_deltas(tenpai: Sequence[bool], *, rules: RuleSet) -> list[int]:
    """Noten payments (不聴罰符): the noten seats share ``noten_total``, the tenpai seats split it."""
    if len(tenpai) != rules.players:
        raise ValueError(f"{len(tenpai)} tenpai flags for {rules.players} players")
    n_ten = sum(1 for t in tenpai if t)
    if n_ten in (0, len(tenpai)):
        return [0] * len(tenpai)
    total = rules.noten_total
    gain, loss = total // n_ten, total // (len(tenpai) - n_ten)
    return [gain if t else -loss for t in tenpai]


def is_tenpai(concealed: Sequence[str], melds: Sequence[Meld] = ()) -> bool:
    """Tenpai as revealed at an exhaustive draw."""
    return bool(waits(concealed, melds))


def is_nagashi(discards: Iterable[str], called_away: int) -> bool:
    """Nagashi mangan: every discard a terminal or honour and none of them called away.

    >>> is_nagashi(["1m", "9p", "7z"], 0), is_nagashi(["1m", "5p"], 0), is_nagashi(["1m"], 1)
    (True, False, False)
    """
    tiles = list(discards)
    return bool(tiles) and called_away == 0 and all(T.is_honor(t) or T.is_terminal(t) for t in tiles)


def is_nine_terminals(hand14: Sequence[str]) -> bool:
    """Nine different terminals and honours on one's first draw (九種九牌).

    >>> is_nine_terminals(T.parse("19m19p1s1234z5678m"))
    True
    """
    kinds = {T.plain(t) for t in hand14 if T.is_honor(t) or T.is_terminal(t)}
    return len(kinds) >= 9


def dealer_keeps_after_draw(*, dealer_tenpai: bool, round_index: int, rules: RuleSet) -> bool:
    """Does the dealer stay after an exhaustive draw? (profile ``dealer_repeat``)."""
    if rules.dealer_repeat == "always_pass":
        return False
    if rules.dealer_repeat == "east_tenpai_south_stay" and round_index >= rules.players:
        return True  # S002:L209: in the South round the dealer stays, tenpai or not
    return dealer_tenpai


def is_four_winds(first_discards: Sequence[str], *, any_call: bool) -> bool:
    """四風連打: the four first discards are the same wind, with no call (closed kans included) before.

    >>> is_four_winds(["1z", "1z", "1z", "1z"], any_call=False), is_four_winds(["1z"] * 4, any_call=True)
    (True, False)
    """
    return (len(first_discards) == 4 and not any_call and len({T.plain(t) for t in first_discards}) == 1
            and first_discards[0] in ("1z", "2z", "3z", "4z"))


def is_four_kans_abort(kan_owners: Sequence[int]) -> bool:
    """四槓散了: four kans on the table not all made by one player (check after the fourth kan's
    discard passes without a ron).

    >>> is_four_kans_abort([0, 0, 2, 1]), is_four_kans_abort([3, 3, 3, 3]), is_four_kans_abort([1, 2, 3])
    (True, False, False)
    """
    return len(kan_owners) >= 4 and len(set(kan_owners)) > 1


def is_four_riichi(riichi_seats: Iterable[int], players: int = 4) -> bool:
    """四家立直: every player has declared riichi (four players only).

    >>> is_four_riichi([0, 1, 2, 3]), is_four_riichi([0, 1, 2])
    (True, False)
    """
    return players == 4 and len(set(riichi_seats)) == 4
