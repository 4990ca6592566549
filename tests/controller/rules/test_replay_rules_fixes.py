"""Rules that were off and are now right (issue #11, item 4), each as a hand built event by event.

- ippatsu survives a robbed added kan: the kan breaks ippatsu only once it stands (一発 + 搶槓);
- the pao-on-rinshan option (大明槓嶺上開花包牌, S002:L274-278): a rinshan win after an open kan
  is paid as a ron by the discarder of the kan's tile, until the winner discards;
- three-player north as yakuhai: a pair of norths is a valued pair (2 fu, and no pinfu).
"""

from __future__ import annotations

import dataclasses

from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules.melds import Meld
from controller.rules.replay import replay_hand
from controller.rules.ruleset import load
from controller.rules.scoring import score_win

TENHOU = load("tenhou")


def _hand(haipai: list[str], events: list, winner: int, src: int, *, ura=("7z",)) -> TH.LogHand:
    return TH.LogHand(0, 0, 0, 0, (25000,) * 4, ["7z"], list(ura), [T.parse(h) for h in haipai], events,
                      TH.Result("和了", "win", "win", (TH.WinRecord(winner, src, winner, (), ()),)))


_HAIPAI = ["5p1234567z99s8s7s2p", "123456789m34p11s", "55p22m3344s66s99p7p", "11p22s33p88p11z22z3z"]
_KAKAN = Meld("kakan", ("5p",) * 4, "5p", 0)


def _to_riichi_then(last: list) -> list:
    """Seat 0 throws 5p, seat 2 pons it; seat 1 declares riichi (waiting on 25p); then ``last``."""
    return [TH.Draw(0, "9m"), TH.Discard(0, "5p"), TH.Call(2, Meld("pon", ("5p",) * 3, "5p", 0)),
            TH.Discard(2, "7p"), TH.Draw(3, "4z"), TH.Discard(3, "4z", True), TH.Draw(0, "8m"),
            TH.Discard(0, "8m", True), TH.Draw(1, "9p"), TH.Discard(1, "9p", True, True)] + last


def test_ippatsu_survives_a_robbed_added_kan():
    # seat 2 draws the fourth 5p at once and adds it to its pon; seat 1 robs it in its ippatsu turn
    out = replay_hand(_hand(_HAIPAI, _to_riichi_then([TH.Draw(2, "5p"), TH.Kan(2, _KAKAN, "5p")]), 1, 2), TENHOU)
    yaku = dict(map(tuple, out["wins"][0]["yaku"]))
    assert yaku == {"riichi": 1, "ippatsu": 1, "chankan": 1, "pinfu": 1, "ittsu": 2}
    assert out["deltas"] == [0, 13000, -12000, 0]   # haneman, and the riichi stick


def test_a_kan_that_stands_still_breaks_ippatsu():
    # the same kan not robbed: its replacement 2p is drawn and thrown; seat 1 rons that tile
    events = _to_riichi_then([TH.Draw(2, "5p"), TH.Kan(2, _KAKAN, "5p"), TH.Draw(2, "2p", True),
                              TH.Discard(2, "2p", True)])
    out = replay_hand(_hand(_HAIPAI, events, 1, 2), TENHOU)
    assert dict(map(tuple, out["wins"][0]["yaku"])) == {"riichi": 1, "pinfu": 1, "ittsu": 2}


def _open_kan_rinshan(rules) -> dict:
    # seat 0 throws 7z, seat 2 calls an open kan and wins on its replacement tile
    haipai = ["7z123456789m11s2p", "123456789p1z2z3z4z", "777z123m456m789s5p", "11p22s33p88p11z22z3z"]
    events = [TH.Draw(0, "9s"), TH.Discard(0, "7z"), TH.Call(2, Meld("kan", ("7z",) * 4, "7z", 0)),
              TH.Draw(2, "5p", True)]
    return replay_hand(_hand(haipai, events, 2, 2), rules)


def test_a_rinshan_win_after_an_open_kan_is_a_tsumo_without_the_option():
    out = _open_kan_rinshan(TENHOU)
    assert dict(map(tuple, out["wins"][0]["yaku"]))["rinshan"] == 1
    assert out["deltas"][0] < 0 and out["deltas"][1] < 0 and out["deltas"][3] < 0   # everyone pays


def test_pao_on_rinshan_makes_the_kans_discarder_pay_it_all():
    rules = dataclasses.replace(TENHOU, has_rinshan_pao=True)
    out = _open_kan_rinshan(rules)
    win = out["wins"][0]
    assert win["pao"] == 0 and out["deltas"][1] == 0 and out["deltas"][3] == 0
    assert out["deltas"][0] == -out["deltas"][2] == -win["points"]


def test_sanma_north_pair_as_yakuhai_is_a_valued_pair():
    sanma = load("sanma")
    # riichi, 234567p 234s 678s and a pair of norths: not pinfu, 30 + 2 = 32 -> 40 fu
    hand = T.parse("234567p234s678s44z")
    plain = score_win(hand, "2p", seat_wind="2z", round_wind="1z", is_riichi=True,
                      rules=dataclasses.replace(sanma, north="plain"))
    valued = score_win(hand, "2p", seat_wind="2z", round_wind="1z", is_riichi=True,
                       rules=dataclasses.replace(sanma, north="yakuhai"))
    assert dict(plain.yaku) == {"riichi": 1, "pinfu": 1} and plain.fu == 30
    assert dict(valued.yaku) == {"riichi": 1} and valued.fu == 40
