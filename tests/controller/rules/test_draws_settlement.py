import dataclasses

import pytest

from controller.rules import tiles as T
from controller.rules.draws import dealer_keeps_after_draw, is_abortive_allowed, is_tenpai, noten_deltas
from controller.rules.melds import parse_meld
from controller.rules.ruleset import load
from controller.rules.settlement import ranking, settle

TENHOU = load("tenhou")


@pytest.mark.parametrize(("tenpai", "deltas"), [
    ([False] * 4, [0, 0, 0, 0]), ([True] * 4, [0, 0, 0, 0]),
    ([True, False, False, False], [3000, -1000, -1000, -1000]),
    ([True, True, False, False], [1500, 1500, -1500, -1500]),
    ([True, True, True, False], [1000, 1000, 1000, -3000]),
])
def test_noten_four_players(tenpai, deltas):
    assert noten_deltas(tenpai, rules=TENHOU) == deltas


@pytest.mark.parametrize(("tenpai", "deltas"), [
    ([False] * 3, [0, 0, 0]), ([True, False, False], [2000, -1000, -1000]),
    ([True, True, False], [1000, 1000, -2000]),
])
def test_noten_three_players(tenpai, deltas):
    assert noten_deltas(tenpai, rules=load("sanma")) == deltas


def test_tenpai_on_own_fourth_tile_is_noten():
    assert not is_tenpai(T.parse("1111m234p567s789s"))
    assert is_tenpai(T.parse("7m123p456s111z"), [parse_meld("ankan:6666m")])


def test_abortive_switches_and_dealer_repeat():
    assert is_abortive_allowed("four_winds", TENHOU)
    assert not is_abortive_allowed("four_winds", dataclasses.replace(TENHOU, abort_four_winds=False))
    with pytest.raises(ValueError):
        is_abortive_allowed("five_winds", TENHOU)
    assert dealer_keeps_after_draw(dealer_tenpai=True, round_index=0, rules=TENHOU)
    assert not dealer_keeps_after_draw(dealer_tenpai=True, round_index=0,
                                       rules=dataclasses.replace(TENHOU, dealer_repeat="always_pass"))
    south = dataclasses.replace(TENHOU, dealer_repeat="east_tenpai_south_stay")
    assert dealer_keeps_after_draw(dealer_tenpai=False, round_index=4, rules=south)
    assert not dealer_keeps_after_draw(dealer_tenpai=False, round_index=1, rules=south)


def test_settlement_worked_example():
    assert settle([54300, 29000, 19700, -3000], rules=load("seed002")) == [52.3, 3.0, -14.3, -41.0]


def test_settlement_leftover_sticks_go_to_first():
    got = settle([53300, 29000, 19700, -3000], rules=load("seed002"), sticks=1)
    assert got == [52.3, 3.0, -14.3, -41.0]


def test_ties_by_seat_order_or_split():
    assert ranking([30000, 30000, 20000, 20000], first_dealer=1) == [1, 0, 2, 3]
    seat = settle([30000, 30000, 20000, 20000], rules=dataclasses.replace(load("seed002"), ties="seat_order"))
    assert seat[0] > seat[1]
    split = settle([30000, 30000, 20000, 20000], rules=load("seed002"))
    assert split[0] == split[1] and split[2] == split[3] and sum(split) == 0


def test_rounding_modes_keep_the_sum_zero():
    for mode in ("none", "round_half_up", "five_six", "floor"):
        rs = dataclasses.replace(load("seed002"), rounding=mode)
        got = settle([45600, 31500, 18500, 4400], rules=rs)
        assert round(sum(got), 6) == 0
    five_six = settle([45600, 31500, 18500, 4400], rules=dataclasses.replace(load("seed002"), rounding="five_six"))
    assert five_six[1] == 5.0  # 31.5 - 30 = +1.5 -> 五捨六入 +1, uma +4


def test_settlement_bad_input():
    with pytest.raises(ValueError):
        settle([25000, 25000, 25000], rules=TENHOU)
