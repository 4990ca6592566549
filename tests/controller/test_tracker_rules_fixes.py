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


def test_why_a_hand_has_no_result_is_a_coded_kind():
    """``result_problem`` is ``{"kind", "message"}``; /api/state shows both (the message as before)."""
    from controller import events as ev
    from controller import tracker as G
    from controller.rules import tiles as T
    from controller.tracker import problems as PB
    from tests.controller.test_game import misread_first_reveal
    from tests.controller.test_game_fan import hk_hand
    from tests.controller.test_game_fan import play as fan_play
    from tests.controller.test_game_fan import start as fan_start

    _want, events, _true, _wrong, misread, end = misread_first_reveal()
    assert misread.result_problem["kind"] == PB.UNSCORABLE
    pub = G.public_state(misread)
    assert pub["result_problem_kind"] == "unscorable" and pub["result_problem"] == misread.result_error
    s, _ = fan_start("hk")
    t = hk_hand()
    s, _ = fan_play(t.events[:-1] + [ev.HandRevealed(seat=2, tiles=tuple(T.parse("111m222m99m56z")), now=t.now)], s)
    assert s.result_problem["kind"] == PB.NO_WIN and G.public_state(s)["result_problem_kind"] == "no_win"


def test_problem_kinds_are_checked():
    import pytest

    from controller.tracker import problems as PB
    with pytest.raises(ValueError, match="not one of"):
        PB.problem("bad_luck", "no")


def test_one_dora_function_in_the_product():
    import re

    from tests.paths import REPO
    found = [p for pkg in ("controller", "firmware_bridge", "vision", "hardware") for p in (REPO / pkg).rglob("*.py")
             if re.search(r"^\s*def dora_of\b|_DORA_NEXT\s*=", p.read_text(encoding="utf-8"), re.M)]
    assert [p.relative_to(REPO).as_posix() for p in found] == ["controller/rules/dora.py"]


def test_the_tracker_follows_a_robbed_added_kan_with_ippatsu():
    """The chankan-ippatsu hand of tests/controller/rules/test_replay_rules_fixes.py, as the table
    reports it (a perfect firmware link and camera): the tracker's result is the replay's, ippatsu
    included (riichi, ippatsu, chankan, pinfu, ittsu: haneman)."""
    from controller import tracker as G
    from controller.rules.replay import replay_game
    from hardware.sim import script as S
    from tests.controller.rules.test_replay_rules_fixes import _HAIPAI, _KAKAN, _hand, _to_riichi_then

    hand = _hand(_HAIPAI, _to_riichi_then([TH.Draw(2, "5p"), TH.Kan(2, _KAKAN, "5p")]), 1, 2)
    game = TH.LogGame([hand], rule={"disp": "chankan ippatsu", "aka": 0}, names=["A", "B", "C", "D"])
    (want,) = replay_game(game)
    s, _ = G.replay_events(S.events_of(S.build_script(game)))
    assert s.alerts == [] and s.last_result == want
    assert ["ippatsu", 1] in s.last_result["wins"][0]["yaku"] and s.last_result["deltas"] == [0, 13000, -12000, 0]
