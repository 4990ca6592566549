"""Dice: who rolls, and where the wall is broken (開門/破墙).

Seats are table positions ``0..n-1`` in counter-clockwise (playing) order: seat ``s + 1`` sits
on the right of seat ``s`` (its 下家). A total counts seats counter-clockwise from the roller,
the roller being 1 (5/9 self, 2/6/10 right, 3/7/11 across, 4/8/12 left; RULINGS "Dice").

The break methods (``ProcedureRules.break_method``):

- ``one_roll``: the dealer rolls two dice; the total picks the wall and the number of stacks
  left standing (S002:L40).
- ``two_rolls_summed``: the dealer's roll picks the wall; its owner rolls again; the two totals
  summed count the stacks left standing (S000:L24, S004:L33-39).
- ``smaller_die``: one roll by the dealer; the total picks the wall, the smaller die (equal dice:
  half the total) is the stack where taking starts, or the last one left standing when
  ``start_after_smaller_die`` (S004:L40-41).
- ``hk_three_then_two``: the dealer rolls three dice for the wall, that wall's owner rolls two,
  the totals are summed (S003:L33-41).
- ``sanma``: one roll of two dice counted over three seats.

A :class:`BreakPoint` says which wall is broken and how many of its stacks, counted from the
owner's right end (clockwise), stay standing; :mod:`controller.rules.walls` turns it into slots.

>>> break_point("one_roll", 0, [(3, 5)])   # S002:L40: 8 -> left wall, split 8|9
BreakPoint(wall_seat=3, stacks_left=8, rolls=(DiceRoll(seat=0, dice=(3, 5)),))
>>> next_roller("two_rolls_summed", 0, [(1, 3)])   # S000: 4 -> the left seat rolls next
(3, 2)
>>> break_point("two_rolls_summed", 0, [(1, 3), (3, 4)]).stacks_left   # 4 then 7: take the 12th
11
>>> [hk_wall_offset(t) for t in (13, 14, 15, 16, 17, 18)]    # S003: E S W N E S
[0, 1, 2, 3, 0, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

BREAK_METHODS = ("one_roll", "two_rolls_summed", "smaller_die", "hk_three_then_two", "sanma")


class DiceError(ValueError):
    """Dice values or a roll sequence that the break method cannot accept."""


@dataclass(frozen=True)
class DiceRoll:
    """One throw: ``seat`` rolled ``dice`` (each 1..6)."""

    seat: int
    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True)
class BreakPoint:
    """Where the wall is broken: ``stacks_left`` stacks of ``wall_seat``'s wall, counted from its
    owner's right end, stay standing (more than a wall's length continues clockwise onto the next
    wall); taking starts at stack ``stacks_left + 1``. ``rolls`` are the throws that decided it."""

    wall_seat: int
    stacks_left: int
    rolls: tuple[DiceRoll, ...]


def check_dice(dice: Sequence[int], n_dice: int, *, who: str = "roll") -> tuple[int, ...]:
    """Return ``dice`` as a tuple after checking there are ``n_dice`` values of 1..6."""
    values = tuple(dice)
    if len(values) != n_dice:
        raise DiceError(f"{who}: {values!r} has {len(values)} dice, expected {n_dice}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise DiceError(f"{who}: die value {v!r} in {values!r} must be a whole number 1..6")
    return values


def seat_from_count(roller: int, total: int, n_seats: int = 4) -> int:
    """The seat a total points at, counting counter-clockwise from ``roller`` as 1.

    >>> [seat_from_count(0, t) for t in (5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12)]
    [0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> [seat_from_count(0, t, 3) for t in (4, 5, 6)]   # sanma: mod 3, 1 self, 2 right, 0 left
    [0, 1, 2]
    """
    if total < 1:
        raise DiceError(f"dice total {total} must be at least 1")
    return (roller + total - 1) % n_seats


def hk_wall_offset(total: int) -> int:
    """S003:L35: the wall of a three-dice total, as seats counter-clockwise from the dealer
    (0 = 5/9/13/17 East, 1 = 2/6/10/14/18 South, 2 = 3/7/11/15 West, 3 = 4/8/12/16 North)."""
    if not 3 <= total <= 18:
        raise DiceError(f"three-dice total {total} is outside 3..18")
    return (total - 1) % 4


def _plan(method: str) -> tuple[int, ...]:
    """Dice per roll for a method."""
    plans = {"one_roll": (2,), "two_rolls_summed": (2, 2), "smaller_die": (2,),
             "hk_three_then_two": (3, 2), "sanma": (2,)}
    try:
        return plans[method]
    except KeyError:
        raise DiceError(f"unknown break method {method!r}: known are {', '.join(BREAK_METHODS)}") from None


def _seats_for(method: str, n_seats: int) -> int:
    if method == "sanma":
        if n_seats != 3:
            raise DiceError(f"break method 'sanma' needs 3 seats, got {n_seats}")
    elif n_seats != 4:
        raise DiceError(f"break method {method!r} needs 4 seats, got {n_seats}")
    return n_seats


def next_roller(method: str, dealer: int, rolls: Sequence[Sequence[int]] = (), *,
                n_seats: int | None = None) -> tuple[int, int] | None:
    """Who rolls next and with how many dice, given the rolls so far; None when the break is decided.

    The table lights that seat's dice button (the second roll is made by the wall's owner).
    """
    plan = _plan(method)
    n = _seats_for(method, n_seats or (3 if method == "sanma" else 4))
    if not 0 <= dealer < n:
        raise DiceError(f"dealer seat {dealer} is outside 0..{n - 1}")
    done = len(rolls)
    if done > len(plan):
        raise DiceError(f"break method {method!r} takes {len(plan)} roll(s), got {done}")
    if done == len(plan):
        return None
    if done == 0:
        return dealer, plan[0]
    first = check_dice(rolls[0], plan[0], who=f"{method} roll 1")
    if method == "hk_three_then_two":
        return (dealer + hk_wall_offset(sum(first))) % n, plan[1]
    return seat_from_count(dealer, sum(first), n), plan[1]


def break_point(method: str, dealer: int, rolls: Sequence[Sequence[int]], *,
                n_seats: int | None = None, start_after_smaller_die: bool = False) -> BreakPoint:
    """The break point decided by ``rolls`` (each a sequence of die values) under ``method``.

    Raises DiceError for an unknown method, the wrong number of rolls or dice, or a value not 1..6.

    >>> break_point("two_rolls_summed", 0, [(1, 2), (4, 4)])   # S004: 3 then 8 -> 11 left, take 12-13
    BreakPoint(wall_seat=2, stacks_left=11, rolls=(DiceRoll(seat=0, dice=(1, 2)), DiceRoll(seat=2, dice=(4, 4))))
    >>> bp = break_point("smaller_die", 0, [(3, 5)]); (bp.wall_seat, bp.stacks_left + 1)   # left, start 3rd
    (3, 3)
    >>> bp = break_point("smaller_die", 0, [(5, 5)]); (bp.wall_seat, bp.stacks_left + 1)   # right, start 5th
    (1, 5)
    """
    plan = _plan(method)
    n = _seats_for(method, n_seats or (3 if method == "sanma" else 4))
    if len(rolls) != len(plan):
        raise DiceError(f"break method {method!r} takes {len(plan)} roll(s), got {len(rolls)}")
    checked: list[DiceRoll] = []
    for i, raw in enumerate(rolls):
        step = next_roller(method, dealer, rolls[:i], n_seats=n)
        assert step is not None
        checked.append(DiceRoll(step[0], check_dice(raw, plan[i], who=f"{method} roll {i + 1}")))
    first = checked[0]
    if method in ("one_roll", "sanma"):
        return BreakPoint(seat_from_count(dealer, first.total, n), first.total, tuple(checked))
    if method == "smaller_die":
        d1, d2 = first.dice
        smaller = min(d1, d2) if d1 != d2 else first.total // 2
        left = smaller if start_after_smaller_die else smaller - 1
        return BreakPoint(seat_from_count(dealer, first.total, n), left, tuple(checked))
    # two rolls: the second roller owns the wall; the totals are summed
    second = checked[1]
    return BreakPoint(second.seat, first.total + second.total, tuple(checked))
