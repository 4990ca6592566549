"""Final settlement (點數精算): return points, uma, oka, rounding, ties, leftover sticks.

Result per seat in thousands of points (one decimal): ``(score - return) / 1000 + uma + oka``
where oka (頭名賞) goes to first place. Leftover riichi sticks go to first place before the
formula. After rounding, first place absorbs any difference so the sum is zero.

>>> from controller.rules.ruleset import load
>>> rs = load("seed002")
>>> settle([54300, 29000, 19700, -3000], rules=rs)
[52.3, 3.0, -14.3, -41.0]
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.ruleset import RuleSet


def ranking(scores: Sequence[int], *, first_dealer: int = 0) -> list[int]:
    """Seats from first to last; equal scores rank by seat order from the first dealer.

    >>> ranking([25000, 30000, 25000, 20000], first_dealer=2)
    [1, 2, 0, 3]
    """
    n = len(scores)
    return sorted(range(n), key=lambda s: (-scores[s], (s - first_dealer) % n))


def _round_thousands(tenths: int, mode: str) -> int:
    """Round a value in tenths (of 1000 points) to whole thousands per ``mode``; back in tenths."""
    if mode == "none":
        return tenths
    whole, rest = divmod(tenths, 10)  # rest in 0..9, works for negatives (floor division)
    if mode == "floor":
        return whole * 10
    if mode == "round_half_up":
        return (whole + (1 if rest >= 5 else 0)) * 10
    if mode == "five_six":
        return (whole + (1 if rest >= 6 else 0)) * 10
    raise ValueError(f"unknown rounding {mode!r}")


def settle(scores: Sequence[int], *, rules: RuleSet, sticks: int = 0, first_dealer: int = 0,
           deducted: int = 0) -> list[float]:
    """Final points per seat (thousands, one decimal). Raises ValueError on a bad score list.

    ``deducted``: points taken off during the game and paid to nobody (a chombo by ``[payments]
    chombo = "deduction"``): the results then sum to minus it (first place does not make it up).
    """
    n = rules.players
    if len(scores) != n:
        raise ValueError(f"{len(scores)} scores given, the ruleset has {n} players")
    if any(not isinstance(s, int) or s % 100 for s in scores):
        raise ValueError("scores must be whole multiples of 100 points")
    if len(rules.uma) != n:
        raise ValueError(f"uma {rules.uma} does not fit {n} players")
    order = ranking(scores, first_dealer=first_dealer)
    final = list(scores)
    if sticks and rules.leftover_sticks_to_first:
        final[order[0]] += sticks * rules.riichi_cost
    # bonus per place in tenths: uma, oka to first
    bonus = [u * 10 for u in rules.uma]
    bonus[0] += rules.oka // 100
    place_bonus = [0] * n
    if rules.ties == "split":
        i = 0
        while i < n:
            j = i
            while j + 1 < n and final[order[j + 1]] == final[order[i]]:
                j += 1
            group = order[i:j + 1]
            total = sum(bonus[i:j + 1])
            share, extra = divmod(total, len(group))
            for k, seat in enumerate(group):  # the remainder to the seats nearest the first dealer
                place_bonus[seat] = share + (1 if k < extra else 0)
            i = j + 1
    else:
        for place, seat in enumerate(order):
            place_bonus[seat] = bonus[place]
    tenths = [_round_thousands((final[s] - rules.return_points) // 100, rules.rounding) + place_bonus[s]
              for s in range(n)]
    tenths[order[0]] -= sum(tenths) + deducted // 100
    return [t / 10 for t in tenths]
