import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import tiles as T
from controller.rules.ruleset import load
from controller.rules.scoring import HandError, base_points, round_fu
from tests.controller.rules.helpers import hand

TENHOU = load("tenhou")


@pytest.mark.parametrize(("raw", "rounded"), [(32, 40), (64, 70), (30, 30), (25, 25)])
def test_fu_rounding(raw, rounded):
    assert round_fu(raw) == rounded


def test_kiriage_60_3_and_30_4():
    kiri = dataclasses.replace(TENHOU, has_kiriage=True)
    assert base_points(3, 60, kiri) == (2000, "mangan")
    assert base_points(4, 30, kiri) == (2000, "mangan")
    assert base_points(3, 60, TENHOU) == (1920, "")
    assert base_points(4, 30, TENHOU) == (1920, "")


def test_limits_and_counted_yakuman_modes():
    assert base_points(5, 30, TENHOU)[0] == 2000
    assert base_points(7, 30, TENHOU)[0] == 3000
    assert base_points(9, 30, TENHOU)[0] == 4000
    assert base_points(12, 30, TENHOU)[0] == 6000
    assert base_points(26, 30, TENHOU)[0] == 8000  # counted yakuman capped at one
    assert base_points(26, 30, dataclasses.replace(TENHOU, kazoe="multiple"))[0] == 16000
    assert base_points(14, 30, dataclasses.replace(TENHOU, kazoe="sanbaiman"))[0] == 6000
    assert base_points(0, 0, dataclasses.replace(TENHOU, has_big_yakuman_base=True), 1)[0] == 12000
    assert base_points(15, 40, dataclasses.replace(TENHOU, has_aotenjou=True))[0] == 40 * 2 ** 17


def test_highest_reading_one_suit_tsumo_is_12_han():
    s = hand("1123777888999m", win="1m", is_tsumo=True, seat_wind="2z")
    assert s.han == 12
    assert dict(s.yaku)["chinitsu"] == 6


def test_highest_reading_open_triplets_40_fu_2_han():
    s = hand("111222333m9p", win="9p", melds=("chi:789s",), is_tsumo=True, seat_wind="2z")
    assert (s.han, s.fu) == (2, 40)
    assert dict(s.yaku) == {"sanankou": 2}


def test_s002_l77_stacked_dora_is_8_han():
    # indicator 4p and ura 4p; riichi winner holds three 5p, two of them red (a 4赤 set)
    rules = dataclasses.replace(load("seed002"), red_fives=(1, 2, 1))
    s = hand("123789m0p0p5p678s9s", win="9s", is_riichi=True, seat_wind="2z",
             dora_indicators=["4p"], ura_indicators=["4p"], rules=rules)
    y = dict(s.yaku)
    assert y["dora"] + y["ura_dora"] + y["aka_dora"] == 8


def test_no_yaku_and_not_winning_are_answers():
    assert hand("234m456p55p23s", win="4s", melds=("chi:978s",), seat_wind="2z").error == HandError.NO_YAKU
    assert hand("234m456p55p23s", win="9s", melds=("chi:978s",), seat_wind="2z").error == HandError.NOT_WINNING


def test_open_tanyao_switch():
    args = dict(win="4s", melds=("chi:678s",), seat_wind="2z")
    assert hand("234m456p55p23s", **args).han == 1
    assert hand("234m456p55p23s", rules=dataclasses.replace(TENHOU, has_open_tanyao=False), **args).error \
        == HandError.NO_YAKU


def test_double_yakuman_switch():
    # kokushi on a 13-sided wait
    single = hand("19m19p19s1234567z", win="1m")
    assert single.yakuman == 1
    double = hand("19m19p19s1234567z", win="1m", rules=dataclasses.replace(TENHOU, has_double_yakuman=True))
    assert double.yakuman == 2
    assert single.yaku == (("kokushi_13_wait", 13),) or single.yaku[0][1] == 13


def test_chiitoitsu_50fu_option():
    rules = dataclasses.replace(TENHOU, has_chiitoitsu_50fu=True)
    s = hand("1133557799m1122p", win="2p", rules=rules, seat_wind="2z")
    assert (s.han, s.fu) == (1, 50)
    assert (hand("1133557799m1122p", win="2p", seat_wind="2z").fu) == 25


def test_two_han_minimum_from_five_honba():
    rules = dataclasses.replace(TENHOU, two_han_minimum_honba=5)
    args = dict(win="4s", melds=("chi:678s",), seat_wind="2z", dora_indicators=["1m"], rules=rules)
    assert hand("234m456p55p23s", honba=4, **args).ok
    assert hand("234m456p55p23s", honba=5, **args).error == HandError.TWO_HAN_MINIMUM


def test_impossible_input_raises():
    with pytest.raises(ValueError, match="copies"):
        hand("11111m2345678p9p", win="9p")
    with pytest.raises(ValueError, match="tiles"):
        hand("1112345678999m12p", win="2p")


def test_contradictory_situations_are_impossible_input():
    with pytest.raises(ValueError, match="ippatsu"):
        hand("123m456p789s22233z", win="3z", is_ippatsu=True)
    with pytest.raises(ValueError, match="rinshan"):
        hand("123m456p789s22233z", win="3z", is_rinshan=True)


@settings(max_examples=40, deadline=None)
@given(st.randoms())
def test_tile_order_does_not_change_the_score(rnd):
    tiles = T.parse("22334455m0p5p678s")
    rnd.shuffle(tiles)
    a = hand("".join(tiles), win="8s", is_riichi=True, seat_wind="3z", dora_indicators=["1m"])
    b = hand("22334455m0p5p678s", win="8s", is_riichi=True, seat_wind="3z", dora_indicators=["1m"])
    assert (a.han, a.fu, sorted(a.yaku), a.base) == (b.han, b.fu, sorted(b.yaku), b.base)


def test_every_red_five_counts_in_hand_and_in_melds():
    rules = dataclasses.replace(TENHOU, red_fives=(2, 2, 2))
    s = hand("0m0m5m11s", win="1s", melds=("pon:0p0p5p", "chi:0s46s", "pon:555z"), seat_wind="2z", rules=rules,
             is_tsumo=True)
    assert dict(s.yaku) == {"haku": 1, "aka_dora": 5}


@pytest.mark.parametrize(("north", "expected"), [
    ("plain", None),                          # a north set is worth nothing: no yaku
    ("yakuhai", {"north": 1}),
    ("dora", None),                           # dora are not yaku
    ("both", {"north": 1, "dora": 3}),
])
def test_sanma_north_options(north, expected):
    rules = dataclasses.replace(load("sanma"), north=north)
    s = hand("11m123p456p789s", win="1m", melds=("pon:444z",), seat_wind="2z", rules=rules)
    if expected is None:
        assert s.error == HandError.NO_YAKU
    else:
        assert dict(s.yaku) == expected


def test_sanma_nukidora_counts_extracted_norths():
    rules = load("sanma")
    s = hand("11m123p456p789s55z", win="5z", is_riichi=True, seat_wind="2z", rules=rules, north_count=2,
             dora_indicators=["3z"])
    assert dict(s.yaku)["dora"] == 4  # two norths set aside, each doubled by the west indicator


def test_four_plain_fives_without_red_fives():
    # regression: the fourth plain 5p once spilled into 6p's 136-index
    rules = dataclasses.replace(TENHOU, red_fives=(0, 0, 0))
    s = hand("555567p123m456s11z", win="7p", is_riichi=True, seat_wind="2z", rules=rules)
    assert s.ok and "aka_dora" not in dict(s.yaku)
