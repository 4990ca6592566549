"""Hong Kong (seed 003): one example per row of the fan table, lookup not sum, payments, rotation."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import ruleset
from controller.rules.hk import (
    PATTERNS,
    HandShapeError,
    HKError,
    HKRules,
    HKRulesError,
    Meld,
    advance_round,
    is_all_flowers,
    next_dealer,
    own_flowers,
    payments,
    score,
)
from controller.rules.tiles import parse

# (hand with the winning tile, winning tile, best pattern, fan) - S003:L137 table, 分值 = 2^fan
TABLE = [
    ("123m456p789s111z55s", "5s", "ji_hu", 0),
    ("123m456m789p234s55z", "5z", "ping_hu", 1),
    ("111m222p333s777z55s", "5s", "peng_peng_hu", 2),
    ("123m456m789m111z22z", "2z", "hun_yi_se", 2),
    ("123m456m789m234m55m", "5m", "qing_yi_se", 4),
    ("111m333m555m777z22z", "2z", "hun_peng", 4),
    ("111m333m555m777m99m", "9m", "qing_peng", 5),
    ("111m999p111s555z22z", "2z", "hun_yao_jiu", 5),
    ("555z666z77z123m456m", "4m", "xiao_san_yuan", 5),
    ("111z222z333z44z123m", "1m", "xiao_si_xi", 5),
    ("111z222z333z555z66z", "6z", "zi_yi_se", 6),
    ("111m999m111p999s11s", "1s", "qing_yao_jiu", 6),
    ("555z666z777z123m99p", "9p", "da_san_yuan", 6),
    ("111z222z333z444z55m", "5m", "da_si_xi", 6),
    ("1112345678999m5m", "5m", "jiu_lian_bao_deng", 6),
    ("19m19p19s1234567z1m", "1m", "shi_san_yao", 6),
]


@pytest.mark.parametrize(("hand", "win", "pattern", "fan"), TABLE, ids=[row[2] for row in TABLE])
def test_fan_table_rows(hand, win, pattern, fan):
    result = score(hand, win_tile=win)
    assert result.error is None
    assert (result.pattern, result.fan, result.points) == (pattern, fan, 2 ** fan)


def test_every_valued_row_is_covered():
    assert {row[2] for row in TABLE} == {p.name for p in PATTERNS if p.fan is not None}


def test_lookup_takes_the_single_best_not_a_sum():
    hun_peng = score("111m333m555m777z22z", win_tile="2z")
    names = {h.name for h in hun_peng.hits}
    assert {"hun_yi_se", "peng_peng_hu", "hun_peng"} <= names
    assert hun_peng.fan == 4  # not 2 + 2 + 4
    nine = score("1112345678999p9p", win_tile="9p")
    assert nine.pattern == "jiu_lian_bao_deng" and nine.fan == 6  # 清一色 is not added
    assert "qing_yi_se" in {h.name for h in nine.hits}


def test_best_arrangement_is_chosen():
    # 111222333m: three pungs (碰碰胡 with 999m pung -> 清碰) or three chows
    assert score("111222333m999m55m", win_tile="5m").pattern == "qing_peng"


def test_nine_gates_needs_a_concealed_hand():
    melded = score("2345678999m5m", win_tile="5m", melds=[Meld.of("pon", "111m")])
    assert melded.pattern == "qing_yi_se"


def test_unvalued_patterns_are_shown_without_value_unless_the_profile_gives_one():
    melds = [Meld.of("chi", "123m"), Meld.of("pon", "555p"), Meld.of("chi", "789s"), Meld.of("pon", "222z")]
    plain = score("66p", win_tile="6p", melds=melds)
    assert plain.pattern == "ji_hu" and plain.fan == 0
    hit = {h.name: h.fan for h in plain.hits}
    assert "quan_qiu_ren" in hit and hit["quan_qiu_ren"] is None
    valued = score("66p", win_tile="6p", melds=melds, rules=HKRules.from_table({"extra_fan": {"quan_qiu_ren": 3}}))
    assert (valued.pattern, valued.fan, valued.points) == ("quan_qiu_ren", 3, 8)
    # self-drawn, it is not 全求人
    assert "quan_qiu_ren" not in {h.name for h in score("66p", win_tile="6p", melds=melds, is_self_draw=True).hits}


def test_qing_si_peng_san_shu_li_zhi_are_recognised():
    melds = [Meld.of("pon", "111m"), Meld.of("pon", "333m"), Meld.of("pon", "555m"), Meld.of("kan", "7777m")]
    r = score("99m", win_tile="9m", melds=melds)
    assert r.pattern == "qing_peng" and "qing_si_peng" in {h.name for h in r.hits}
    r = score("111m111p111s222m11z", win_tile="1z", is_ready_declared=True)
    names = {h.name for h in r.hits}
    assert {"san_shu", "li_zhi"} <= names and r.pattern == "peng_peng_hu"


def test_not_a_win_and_min_fan():
    assert score("123m456p789s11z245s", win_tile="5s").error == HKError.NOT_A_WIN
    assert score("1133557799m1133p", win_tile="3p").error == HKError.NOT_A_WIN  # no seven pairs in S003
    low = score("123m456p789s111z55s", win_tile="5s", rules=HKRules(min_fan=3))
    assert low.error == HKError.BELOW_MIN_FAN and low.points == 0


@pytest.mark.parametrize(
    ("hand", "win", "fragment"),
    [("123m456p789s111z555s", "5s", "15 tiles"), ("11111m456p789s111z", "1z", "5 copies"),
     ("123m456p789s111z55s", "9m", "not in the hand"), ("123m456p789s111z5s1f", "5s", "flower")],
)
def test_impossible_input_raises(hand, win, fragment):
    with pytest.raises(HandShapeError, match=fragment):
        score(hand, win_tile=win)


def test_flowers():
    assert own_flowers(["2f", "6f", "1f"], seat_wind=1) == 2
    r = score("123m456p789s111z55s", win_tile="5s", flowers=["1f", "5f"], seat_wind=0,
              rules=HKRules(own_flower_fan=1))
    assert (r.own_flowers, r.flower_fan, r.fan, r.points) == (2, 2, 2, 4)
    assert score("123m456p789s111z55s", win_tile="5s", flowers=["1f"]).fan == 0  # no invented flower fan
    assert is_all_flowers([f"{n}f" for n in range(8, 0, -1)]) and not is_all_flowers(["1f"] * 8)


def test_payer_rule():
    assert payments(16, winner=1, discarder=3) == (0, 48, 0, -48)  # the discarder pays all
    assert payments(16, winner=1, discarder=None) == (-16, 48, -16, -16)  # all three pay
    share = HKRules(discard_payment="discarder_share")
    assert payments(16, winner=1, discarder=3, rules=share) == (0, 16, 0, -16)
    with pytest.raises(ValueError, match="own discard"):
        payments(4, winner=2, discarder=2)


def test_rotation_after_every_hand_including_draws():
    assert next_dealer(0, winner=0) == 1
    assert next_dealer(3, winner=None) == 0
    assert next_dealer(2, winner=2, rules=HKRules(dealer_repeats=True)) == 2
    assert next_dealer(2, winner=1, rules=HKRules(dealer_repeats=True)) == 3
    # a round ends when the deal comes back to the first dealer; four rounds make the game
    assert advance_round(0, 3, next_dealer(3, None), first_dealer=0) == (1, False)
    assert advance_round(0, 1, next_dealer(1, None), first_dealer=0) == (0, False)
    assert advance_round(3, 3, 0, first_dealer=0) == (4, True)
    assert advance_round(3, 0, 0, first_dealer=0) == (3, False)  # a repeat deal does not advance


def test_hk_profile_and_bad_tables():
    rules = ruleset.load("hk").hk
    assert isinstance(rules, HKRules) and rules.discard_payment == "discarder_all"
    with pytest.raises(HKRulesError, match="unknown key 'fan_limit'"):
        HKRules.from_table({"fan_limit": 13})
    with pytest.raises(HKRulesError, match="only the unvalued patterns"):
        HKRules.from_table({"extra_fan": {"qing_yi_se": 7}})
    with pytest.raises(HKRulesError, match="'min_fan' is 'three'"):
        HKRules.from_table({"min_fan": "three"})


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(TABLE), st.integers(0, 2**32), st.integers(0, 3), st.sampled_from([None, 0, 1, 2, 3]))
def test_order_does_not_matter_and_payments_balance(row, seed, winner, discarder):
    hand, win, pattern, fan = row
    tiles = parse(hand)
    random.Random(seed).shuffle(tiles)
    result = score(tiles, win_tile=win)
    assert (result.pattern, result.fan) == (pattern, fan)
    if discarder == winner:
        return
    delta = payments(result.points, winner, discarder)
    assert sum(delta) == 0 and delta[winner] > 0
