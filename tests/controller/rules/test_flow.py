import dataclasses

import pytest

from controller.rules.flow import GameScore, round_name
from controller.rules.ruleset import load

TENHOU = load("tenhou")


def test_round_names():
    assert [round_name(i) for i in (0, 3, 4, 7, 8)] == ["E1", "E4", "S1", "S4", "W1"]
    assert round_name(3, players=3) == "S1"


def test_dealer_repeat_on_win_and_tenpai_draw_and_rotation():
    g = GameScore.start(TENHOU)
    g = g.finish_hand("win", [12000, -4000, -4000, -4000], TENHOU, winners=(0,))
    assert (g.round_name, g.honba, g.dealer) == ("E1", 1, 0)
    g = g.finish_hand("exhaustive_draw", [-1000, 3000, -1000, -1000], TENHOU, dealer_tenpai=False)
    assert (g.round_name, g.honba, g.dealer) == ("E2", 2, 1)
    g = g.finish_hand("abortive_draw", [0, 0, 0, 0], TENHOU)
    assert (g.round_name, g.honba) == ("E2", 3)
    assert g.seat_wind(1) == "1z" and g.seat_wind(0) == "4z" and g.round_wind == "1z"


def test_sticks_stay_on_draws_and_go_with_a_win():
    g = GameScore.start(TENHOU).riichi(2, TENHOU)
    g = g.finish_hand("exhaustive_draw", [-1000, -1000, 3000, -1000], TENHOU)
    assert g.sticks == 1 and sum(g.scores) == 99000
    g = g.finish_hand("win", [0, 0, 1000 + 1000 + 300, -1300], TENHOU, winners=(2,))
    assert g.sticks == 0 and sum(g.scores) == 100000


def test_tobi_ends_the_game():
    g = GameScore((25000, 25000, 1000, 49000))
    g = g.finish_hand("win", [0, 0, -2000, 2000], TENHOU, winners=(3,))
    assert g.is_over and g.end_reason == "tobi"
    neg = dataclasses.replace(TENHOU, has_tobi=False)
    assert not GameScore((25000, 25000, 1000, 49000)).finish_hand("win", [0, 0, -2000, 2000], neg,
                                                                    winners=(3,)).is_over


def test_riichi_needs_1000_points_where_negatives_end():
    with pytest.raises(ValueError, match="riichi"):
        GameScore((900, 25000, 25000, 49100)).riichi(0, TENHOU)


def test_hanchan_end_west_extension_and_agari_yame():
    last = GameScore((31000, 29000, 20000, 20000), round=7)
    over = last.finish_hand("win", [-1000, 1000, 0, 0], TENHOU, winners=(1,))
    assert over.is_over and over.end_reason == "last_round"
    nobody = GameScore((26000, 25000, 25000, 24000), round=7)
    west = nobody.finish_hand("win", [-1000, 1000, 0, 0], TENHOU, winners=(1,))
    assert not west.is_over and west.round_name == "W1"
    done = west.finish_hand("win", [-6000, 6000, 0, 0], TENHOU, winners=(1,))
    assert done.is_over and done.end_reason == "extension_target"
    yame = GameScore((20000, 20000, 20000, 40000), round=7).finish_hand(
        "win", [-1000, 0, 0, 1000], TENHOU, winners=(3,))
    assert yame.is_over and yame.end_reason == "agari_yame"


def test_void_hand_restores_the_start():
    start = GameScore((25000, 25000, 25000, 25000), round=2, honba=1, sticks=1)
    later = start.riichi(0, TENHOU)
    assert later.void_hand(start) == start


def test_tenpai_yame_in_the_last_round():
    last = GameScore((20000, 20000, 20000, 40000), round=7)
    stop = last.finish_hand("exhaustive_draw", [-1000, -1000, -1000, 3000], TENHOU, dealer_tenpai=True)
    assert stop.is_over and stop.end_reason == "agari_yame"
    no_yame = dataclasses.replace(TENHOU, has_tenpai_yame=False)
    go_on = last.finish_hand("exhaustive_draw", [-1000, -1000, -1000, 3000], no_yame, dealer_tenpai=True)
    assert not go_on.is_over and go_on.honba == 1
