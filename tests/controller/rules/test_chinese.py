"""General Chinese rules (seed 000) and the competition profile (seed 004)."""

import pytest

from controller.rules import ruleset
from controller.rules.chinese import (
    ChineseError,
    ChineseRules,
    ChineseRulesError,
    exhaustive_draw,
    false_win_penalty,
    four_kans_aborts,
    four_winds,
    hand_size_error,
    is_four_winds,
    is_winning_hand,
    next_dealer,
    score,
    three_claims,
)
from controller.rules.hk import HandShapeError, Meld
from controller.rules.tiles import parse

STRICT = ChineseRules(pair_rule="258")


@pytest.mark.parametrize(
    ("hand", "any_pair", "pair_258"),
    [("123m456p789s111z55s", True, True), ("123m456p789s111z44s", True, False),
     ("123m456p789s111z22z", True, False), ("123m456p789s111z88p", True, True),
     ("123m456p789s11z245s", False, False), ("19m19p19s1234567z1m", False, False)],
)
def test_pair_rule(hand, any_pair, pair_258):
    assert is_winning_hand(parse(hand)) is any_pair
    assert is_winning_hand(parse(hand), rules=STRICT) is pair_258


def test_258_pair_reads_the_hand_the_way_that_fits():
    # 22m can be the pair, or 234m a chow with 55m the pair: the 2-5-8 rule accepts either reading
    assert is_winning_hand(parse("22234m678p111z999s"), rules=STRICT)
    assert score("123m456p789s111z44s", win_tile="4s", rules=STRICT).error == ChineseError.WRONG_PAIR


@pytest.mark.parametrize(
    ("hand", "seat", "round_", "is_dealer", "fan", "reasons"),
    [
        ("222z123m456p789s55s", 1, 0, False, 1, ("seat_wind_pung",)),      # South's own wind
        ("222z123m456p789s55s", 1, 1, False, 2, ("double_wind",)),         # 双南 in the South round
        ("111z123m456p789s55s", 0, 0, True, 2, ("double_wind",)),          # 双东
        ("333z123m456p789s11z", 0, 1, True, 1, ("dealer_wind_pair",)),     # dealer's own wind as pair
        ("333z123m456p789s11z", 1, 1, False, 0, ()),                       # not the dealer: nothing
        ("444z123m456p789s55s", 0, 0, True, 0, ()),                        # another seat's wind
    ],
)
def test_wind_fan(hand, seat, round_, is_dealer, fan, reasons):
    r = score(hand, win_tile="5s" if "55s" in hand else "1z", seat_wind=seat, round_wind=round_,
              winner=seat, discarder=(seat + 1) % 4, dealer=seat if is_dealer else (seat + 1) % 4)
    assert (r.fan, r.reasons, r.points) == (fan, reasons, 2 ** fan)


def test_discarder_pays_and_self_draw_all_pay():
    r = score("111z123m456p789s55s", win_tile="5s", winner=0, discarder=3)
    assert r.payments == (4, 0, 0, -4)
    r = score("111z123m456p789s55s", win_tile="5s", winner=0)
    assert r.payments == (12, -4, -4, -4)


def test_robbing_a_kong_is_paid_by_the_kong_player():
    r = score("123m456p789s55s", win_tile="3m", melds=[Meld.of("pon", "777z")], winner=2, robbed_kong_by=1,
              seat_wind=2, round_wind=0)
    assert r.payments == (0, -1, 1, 0)
    assert ruleset.load("competition").chinese.robbing_kong_pays


@pytest.mark.parametrize(("mode", "extra", "paid_each"), [
    ("intended_value", {}, 4), ("double", {}, 8), ("limit", {"limit_points": 64}, 64)])
def test_false_win_penalty_modes(mode, extra, paid_each):
    rules = ChineseRules.from_table({"false_win_penalty": mode, **extra})
    assert false_win_penalty(1, intended_fan=2, rules=rules) == (paid_each, -3 * paid_each, paid_each, paid_each)


def test_draws_winds_kans_claims():
    assert exhaustive_draw(2) == (2, (0, 0, 0, 0))
    rules = ChineseRules(exhaustive_draw="dealer_passes_pays", draw_penalty=5)
    assert exhaustive_draw(2, rules) == (3, (5, 5, -15, 5))
    assert is_four_winds(["3z"] * 4) and not is_four_winds(["5z"] * 4) and not is_four_winds(["1z", "1z", "1z"])
    assert four_winds(1) == ("draw", 2, (0, 0, 0, 0))
    assert four_winds(1, ChineseRules(four_winds="fine", four_winds_fine=10)) == ("fine", 1, (10, -30, 10, 10))
    assert four_kans_aborts([0, 3, 0, 1]) and not four_kans_aborts([0, 4, 0, 0])
    assert not four_kans_aborts([1, 1, 1, 1]) and not four_kans_aborts([2, 2, 0, 0])
    assert not four_kans_aborts([3, 1, 0, 0], ChineseRules(four_kans_abort=False))
    assert three_claims(0, [1, 2, 3]) is None
    assert three_claims(2, [1, 3, 0], ChineseRules(three_claims="first_claimant")) == 3  # first counter-clockwise
    assert three_claims(2, [1, 0]) == 0


def test_wrong_size_hand_may_not_win_and_is_reported():
    assert hand_size_error(13, 0, has_drawn=False) is None
    assert hand_size_error(11, 1, has_drawn=True) is None
    assert hand_size_error(14, 0, has_drawn=False) == "big"
    assert hand_size_error(9, 1, has_drawn=True) == "small"
    with pytest.raises(HandShapeError, match="15 tiles"):
        score("123m456p789s111z555s", win_tile="5s")


def test_dealer_keeps_the_deal_on_a_win():
    assert next_dealer(1, winner=1) == 1
    assert next_dealer(1, winner=3) == 2
    with pytest.raises(ValueError, match="exhaustive_draw"):
        next_dealer(1, winner=None)


def test_profile_and_bad_tables():
    assert ruleset.load("chinese").chinese == ChineseRules()
    with pytest.raises(ChineseRulesError, match="unknown key 'pairs'"):
        ChineseRules.from_table({"pairs": "258"})
    with pytest.raises(ChineseRulesError, match="'pair_rule' is '369'"):
        ChineseRules.from_table({"pair_rule": "369"})
    with pytest.raises(ChineseRulesError, match="needs 'limit_points'"):
        ChineseRules.from_table({"false_win_penalty": "limit"})
