"""Payments for riichi wins: ron 6a/4a, tsumo 2a each or a/2a, rounded up to 100; honba, riichi
sticks, double ron and head bump, pao (責任払い), nagashi mangan; sanma with or without tsumo loss.

``a`` is the base points of :func:`controller.rules.scoring.base_points`. Deltas are lists of
point changes, one per seat, summing to the sticks collected (each stick is 1000 points lying
on the table, already paid by whoever declared riichi).

>>> from controller.rules.ruleset import load
>>> rs = load("tenhou")
>>> tsumo_payments(1120, winner=1, dealer=0, rules=rs)          # 70 fu 2 han: 1200 / 2300
[-2300, 4700, -1200, -1200]
>>> ron_deltas(2000 * 4 // 4 * 1, winner=1, discarder=2, dealer=1, honba=0, rules=rs)[1]  # dealer mangan
12000
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.rules.ruleset import RuleSet


def round_up_100(points: float) -> int:
    """Round a payment up to the next 100.

    >>> round_up_100(1120), round_up_100(2240), round_up_100(2000), round_up_100(1600 * 1.5)
    (1200, 2300, 2000, 2400)
    """
    return int(math.ceil(points / 100 - 1e-9)) * 100


def ron_amount(base: int, *, is_dealer: bool) -> int:
    """What the discarder pays (without honba): 6a for the dealer, 4a otherwise, up to 100."""
    return round_up_100(base * (6 if is_dealer else 4))


def tsumo_amounts(base: int, *, is_dealer: bool, rules: RuleSet) -> tuple[int, int]:
    """(dealer's share, each non-dealer's share) of a tsumo, without honba.

    For a dealer's tsumo both are what each other player pays. Sanma without tsumo loss
    splits the missing north share: a + a/2 and 2a + a/2 (dealer: 3a each).
    """
    if rules.is_sanma and not rules.has_tsumo_loss:
        if is_dealer:
            each = round_up_100(base * 3)
            return each, each
        return round_up_100(base * 2.5), round_up_100(base * 1.5)
    if is_dealer:
        each = round_up_100(base * 2)
        return each, each
    return round_up_100(base * 2), round_up_100(base)


def tsumo_payments(base: int, *, winner: int, dealer: int, rules: RuleSet, honba: int = 0) -> list[int]:
    """Deltas of a tsumo (no sticks)."""
    n = rules.players
    from_dealer, from_other = tsumo_amounts(base, is_dealer=winner == dealer, rules=rules)
    out = [0] * n
    for seat in range(n):
        if seat == winner:
            continue
        pay = (from_dealer if seat == dealer else from_other) + honba * rules.honba_tsumo_each
        out[seat] -= pay
        out[winner] += pay
    return out


def ron_deltas(base: int, *, winner: int, discarder: int, dealer: int, rules: RuleSet, honba: int = 0) -> list[int]:
    """Deltas of a ron (no sticks)."""
    out = [0] * rules.players
    pay = ron_amount(base, is_dealer=winner == dealer) + honba * rules.honba_ron
    out[discarder] -= pay
    out[winner] += pay
    return out


@dataclass(frozen=True)
class WinPayment:
    """One winner's part of a hand result: who, from whom (None: tsumo), base ``a`` and pao."""

    winner: int
    base: int
    discarder: int | None = None
    pao_seat: int | None = None
    pao_base: int = 0  # the part of ``base`` the liable player answers for (0: no pao)


def _one_win(w: WinPayment, *, dealer: int, rules: RuleSet, honba: int) -> list[int]:
    n = rules.players
    out = [0] * n
    is_dealer = w.winner == dealer
    plain_base = w.base - (w.pao_base if w.pao_seat is not None else 0)
    pao = w.pao_seat is not None and w.pao_base > 0 and w.pao_seat != w.winner
    honba_here = 0 if pao else honba
    if plain_base > 0:
        if w.discarder is None:
            part = tsumo_payments(plain_base, winner=w.winner, dealer=dealer, rules=rules, honba=honba_here)
        else:
            part = ron_deltas(plain_base, winner=w.winner, discarder=w.discarder, dealer=dealer, rules=rules,
                              honba=honba_here)
        out = [a + b for a, b in zip(out, part, strict=True)]
    if pao:
        full = ron_amount(w.pao_base, is_dealer=is_dealer)
        honba_pts = honba * rules.honba_ron
        if w.discarder is None or w.discarder == w.pao_seat:
            out[w.pao_seat] -= full + honba_pts
            out[w.winner] += full + honba_pts
        else:
            half = round_up_100(full / 2)
            out[w.pao_seat] -= half + honba_pts
            out[w.discarder] -= full - half
            out[w.winner] += full + honba_pts
    elif plain_base <= 0:
        pass
    return out


def order_from(discarder: int, winners: Sequence[int], players: int) -> list[int]:
    """Winners in turn order from the discarder (the first one takes honba and sticks)."""
    return sorted(winners, key=lambda s: (s - discarder) % players)


def win_deltas(wins: Sequence[WinPayment], *, dealer: int, rules: RuleSet, honba: int = 0,
               sticks: int = 0) -> list[int]:
    """Deltas of a whole win result: one tsumo, or one or more rons on the same discard.

    ``sticks`` is the number of riichi sticks on the table (from earlier hands and this one);
    they and the honba go to the first winner counter-clockwise from the discarder. Under
    ``double_ron = "head_bump"`` only that first winner is paid.

    >>> from controller.rules.ruleset import load
    >>> rs = load("tenhou")
    >>> win_deltas([WinPayment(0, 2000, 3), WinPayment(2, 640, 3)], dealer=1, rules=rs, honba=1, sticks=2)
    [10300, 0, 2600, -10900]
    """
    if not wins:
        return [0] * rules.players
    discarders = {w.discarder for w in wins}
    if len(discarders) != 1:
        raise ValueError("all winners of one result must win on the same discard (or one tsumo)")
    discarder = wins[0].discarder
    if discarder is None:
        if len(wins) != 1:
            raise ValueError("only one player can win by tsumo")
        ordered = list(wins)
    else:
        by_seat = {w.winner: w for w in wins}
        if len(by_seat) != len(wins) or discarder in by_seat:
            raise ValueError("winners must be distinct and not the discarder")
        ordered = [by_seat[s] for s in order_from(discarder, list(by_seat), rules.players)]
        if len(ordered) > 1 and rules.double_ron == "head_bump":
            ordered = ordered[:1]
    out = [0] * rules.players
    for i, w in enumerate(ordered):
        part = _one_win(w, dealer=dealer, rules=rules, honba=honba if i == 0 else 0)
        out = [a + b for a, b in zip(out, part, strict=True)]
    out[ordered[0].winner] += sticks * rules.riichi_cost
    return out


def nagashi_deltas(seats: Sequence[int], *, dealer: int, rules: RuleSet) -> list[int]:
    """Nagashi mangan (流し満貫): each such seat is paid a mangan tsumo, without honba.

    >>> from controller.rules.ruleset import load
    >>> nagashi_deltas([2], dealer=0, rules=load("tenhou"))
    [-4000, -2000, 8000, -2000]
    """
    out = [0] * rules.players
    for s in seats:
        part = tsumo_payments(2000, winner=s, dealer=dealer, rules=rules, honba=0)
        out = [a + b for a, b in zip(out, part, strict=True)]
    return out


def settle_hand(outcome: str, *, dealer: int, rules: RuleSet, honba: int = 0, sticks: int = 0,
                wins: Sequence[WinPayment] = (), tenpai: Sequence[bool] | None = None,
                nagashi: Sequence[int] = ()) -> list[int]:
    """Deltas of any hand result, the one entry point for a game tracker.

    ``outcome``: ``win`` (``wins`` from one discard or one tsumo; ``sticks`` = riichi sticks on the
    table, this hand's deposits included), ``exhaustive_draw`` (noten payments from ``tenpai``, or
    nagashi mangan for the ``nagashi`` seats when the profile has it), ``abortive_draw`` (nothing).
    Triple ron under ``triple_ron = "abort"`` is an abortive draw: pass it as such.

    >>> from controller.rules.ruleset import load
    >>> rs = load("tenhou")
    >>> settle_hand("exhaustive_draw", dealer=0, rules=rs, tenpai=[True, False, False, True])
    [1500, -1500, -1500, 1500]
    >>> settle_hand("win", dealer=0, rules=rs, honba=1, sticks=1, wins=[WinPayment(2, 2000)])
    [-4100, -2100, 9300, -2100]
    """
    if outcome == "win":
        return win_deltas(wins, dealer=dealer, rules=rules, honba=honba, sticks=sticks)
    if outcome == "exhaustive_draw":
        if nagashi and rules.has_nagashi_mangan:
            return nagashi_deltas(nagashi, dealer=dealer, rules=rules)
        from controller.rules.draws import noten_deltas

        return noten_deltas(tenpai if tenpai is not None else [False] * rules.players, rules=rules)
    if outcome == "abortive_draw":
        return [0] * rules.players
    raise ValueError(f"unknown outcome {outcome!r}: expected win, exhaustive_draw or abortive_draw")
