import dataclasses

import pytest

from controller.rules import tiles as T
from controller.rules.calls import (
    can_add_to_pon,
    can_call_discard,
    can_declare_kan,
    kuikae_banned,
    riichi_kan_changes_waits,
    riichi_refusal,
)
from controller.rules.melds import parse_meld
from controller.rules.ruleset import load


@pytest.mark.parametrize(("meld", "discard", "mode", "banned"), [
    ("chi:423p", "4p", "both", True),      # 234p, chi 4p, discard 4p
    ("chi:123p", "4p", "both", True),      # 234p, chi 1p (123p), discard 4p
    ("chi:456p", "1p", "both", False),     # 123456p, chi 4p with 56p, discard 1p
    ("chi:756p", "1p", "both", False),     # 123456p, chi 7p with 56p, discard 1p
    ("chi:456p", "7p", "both", True),
    ("chi:123p", "4p", "genbutsu", False),
    ("chi:423p", "4p", "allowed", False),
    ("pon:555m", "0m", "genbutsu", True),
])
def test_kuikae(meld, discard, mode, banned):
    assert kuikae_banned(parse_meld(meld), discard, mode=mode) is banned


def test_last_discard_and_kan_timing():
    assert not can_call_discard(0) and can_call_discard(1)
    assert not can_declare_kan("ankan", live_tiles_left=0, just_drew=True)
    assert can_declare_kan("ankan", live_tiles_left=5, just_drew=True)
    assert not can_declare_kan("kakan", live_tiles_left=5, just_drew=False)  # not right after a pon
    assert can_declare_kan("kan", live_tiles_left=5, just_drew=False, is_discard_call=True)
    assert can_add_to_pon(parse_meld("pon:777z"), T.parse("7z123m"), just_drew=True)
    assert not can_add_to_pon(parse_meld("pon:777z"), T.parse("7z123m"), just_drew=False)


def test_riichi_conditions():
    rs = load("tenhou")
    hand = T.parse("1112345678999m1z")
    assert riichi_refusal(hand, [], points=25000, live_tiles_left=10, rules=rs) is None
    assert "live tiles" in riichi_refusal(hand, [], points=25000, live_tiles_left=3, rules=rs)
    assert "points" in riichi_refusal(hand, [], points=900, live_tiles_left=10, rules=rs)
    assert riichi_refusal(hand, [], points=900, live_tiles_left=10,
                          rules=dataclasses.replace(rs, has_tobi=False)) is None
    assert riichi_refusal(T.parse("1112345678999m"), [parse_meld("pon:111z")], points=25000,
                          live_tiles_left=10, rules=rs) == "open hand"
    assert "tenpai" in riichi_refusal(T.parse("1358m1358p1358s12z"), [], points=25000, live_tiles_left=10,
                                      rules=rs)


def test_closed_kan_after_riichi_6667():
    assert riichi_kan_changes_waits(T.parse("6667m123p456s111z"), "6m")
    assert not riichi_kan_changes_waits(T.parse("666m789p123s456s1z"), "6m")
