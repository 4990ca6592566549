"""The tracker's side of issue #11's rules fixes: a ron declared after a north's (or an added
kan's) replacement tile was seen taken robs the north (the kan), not the last discard."""

from __future__ import annotations

from controller.rules import tenhou as TH
from controller.rules.replay import replay_hand
from tests.controller.test_game_sanma import RULES, Table, play, start, won


def test_a_ron_after_the_norths_replacement_was_taken_robs_the_north():
    # as test_a_north_set_aside_may_be_robbed_as_a_plain_ron, but the camera saw the replacement
    # tile taken before seat 1 pressed ron: the ron still takes the north (1600 from the dealer)
    s, _ = start()
    t = Table(0, (3, 3), ("123456789s1m9m4z1p", "1122p3344s55664z", "112233z77z55567p"), draws=("9p",),
              replacements=("2s",), seed=9)
    t.start()
    t.deal()
    t.draw(0)
    t.nuki(0)                         # the north set aside, and its replacement seen taken
    t.log.pop()                       # ... which goes back: the north is robbed
    t.button(1, "ron")
    t.reveal(1, win_tile="4z", extra="4z")
    s, _ = play(t.events, s)
    assert s.alerts == [] and s.result_error is None
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, won(1, 0)), RULES)
    assert s.result == want and want["deltas"][:3] == [-1600, 1600, 0]
    assert isinstance(t.log[-1], TH.Nuki)
