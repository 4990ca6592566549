"""Break points and dice counting: every worked example of RULINGS "Break"."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.dice import (
    DiceError,
    break_point,
    hk_wall_offset,
    next_roller,
    seat_from_count,
)

# seat numbering: 0 dealer, 1 right (下家), 2 across, 3 left (上家)
RIGHT, ACROSS, LEFT = 1, 2, 3


@pytest.mark.parametrize(
    ("method", "rolls", "wall", "first_stack"),
    [
        # S000:L23-24: 4 -> left (北门), its owner rolls 7: 11 stay, the dealer takes from the 12th
        ("two_rolls_summed", [(1, 3), (3, 4)], LEFT, 12),
        # S002:L40: 8 -> left wall, split between 8 and 9, take 9-10
        ("one_roll", [(2, 6)], LEFT, 9),
        # S004:L34: 3 -> across, across rolls 8: 11, take 12-13
        ("two_rolls_summed", [(1, 2), (2, 6)], ACROSS, 12),
        # S004:L37: one roll of 7 -> across, 7 stay, start at the 8th
        ("one_roll", [(3, 4)], ACROSS, 8),
        # S004:L39: 8 -> left, left rolls 6: 14 stay, take the 15th
        ("two_rolls_summed", [(4, 4), (1, 5)], LEFT, 15),
        # S004:L41: smaller die: 3+5 -> left wall, start at the 3rd; 5+5 -> right wall, the 5th
        ("smaller_die", [(3, 5)], LEFT, 3),
        ("smaller_die", [(5, 3)], LEFT, 3),
        ("smaller_die", [(5, 5)], RIGHT, 5),
    ],
    ids=["S000-4then7", "S002-8", "S004-3then8", "S004-one7", "S004-8then6", "S004-small35", "S004-small53",
         "S004-small55"],
)
def test_worked_break_examples(method, rolls, wall, first_stack):
    bp = break_point(method, 0, rolls)
    assert bp.wall_seat == wall
    assert bp.stacks_left + 1 == first_stack


def test_smaller_die_start_after_flag():
    bp = break_point("smaller_die", 0, [(3, 5)], start_after_smaller_die=True)
    assert (bp.wall_seat, bp.stacks_left + 1) == (LEFT, 4)


@pytest.mark.parametrize(("total", "offset"), [(13, 0), (14, 1), (15, 2), (16, 3), (17, 0), (18, 1),
                                               (5, 0), (9, 0), (3, 2), (6, 1), (4, 3), (12, 3)])
def test_hk_three_dice_mapping(total, offset):
    # S003:L35: 5/9/13/17 E, 2/6/10/14/18 S, 3/7/11/15 W, 4/8/12/16 N, counted from the dealer
    assert hk_wall_offset(total) == offset


def test_hk_three_then_two_sums_and_second_roller():
    # dealer at seat 2 rolls 14 (South of the dealer = seat 3); seat 3 rolls 9: 23 stacks
    assert next_roller("hk_three_then_two", 2, [(4, 5, 5)]) == (3, 2)
    bp = break_point("hk_three_then_two", 2, [(4, 5, 5), (4, 5)])
    assert (bp.wall_seat, bp.stacks_left) == (3, 23)
    assert [r.seat for r in bp.rolls] == [2, 3]


def test_second_roll_is_made_by_the_wall_owner():
    assert next_roller("two_rolls_summed", 1, []) == (1, 2)
    assert next_roller("two_rolls_summed", 1, [(1, 2)]) == (3, 2)  # 3 from seat 1 -> across = seat 3
    assert next_roller("two_rolls_summed", 1, [(1, 2), (3, 3)]) is None
    assert next_roller("one_roll", 0, [(1, 1)]) is None


def test_sanma_counts_over_three_seats():
    # sum mod 3: 1 -> self, 2 -> right, 0 -> left
    assert [seat_from_count(0, t, 3) for t in (4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12)] == \
        [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    bp = break_point("sanma", 1, [(4, 5)], n_seats=3)
    assert (bp.wall_seat, bp.stacks_left) == (0, 9)  # 9 from seat 1: 9 mod 3 = 0 -> its left, seat 0


@pytest.mark.parametrize(
    ("method", "rolls", "fragment"),
    [
        ("one_roll", [(0, 3)], "1..6"),
        ("one_roll", [(1, 7)], "1..6"),
        ("one_roll", [(1, 2, 3)], "expected 2"),
        ("one_roll", [], "takes 1 roll"),
        ("two_rolls_summed", [(1, 2)], "takes 2 roll"),
        ("hk_three_then_two", [(1, 2), (1, 1)], "expected 3"),
        ("three_dice", [(1, 2)], "unknown break method"),
        ("sanma", [(1, 2)], "needs 3 seats"),
    ],
)
def test_bad_rolls_are_refused_with_a_reason(method, rolls, fragment):
    with pytest.raises(DiceError, match=fragment):
        break_point(method, 0, rolls, n_seats=4)


@settings(deadline=None)
@given(st.integers(0, 3), st.integers(1, 6), st.integers(1, 6))
def test_counting_direction_is_counter_clockwise(roller, a, b):
    total = a + b
    # 5/9 self, 2/6/10 right, 3/7/11 across, 4/8/12 left
    expected = {0: 0, 1: 1, 2: 2, 3: 3}[(total - 1) % 4]
    assert seat_from_count(roller, total) == (roller + expected) % 4
