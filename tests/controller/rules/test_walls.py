"""Walls: break points to slots, dealing, the dead wall, refills, haitei, layouts from records."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import ruleset
from controller.rules.dice import break_point
from controller.rules.procedures import ProcedureRules
from controller.rules.tilesets import census, full_set
from controller.rules.walls import (
    LOWER,
    UPPER,
    WallError,
    WallSlot,
    WallState,
    layout,
    layout_from_roll,
    plan,
    replace_deal_flowers,
)

PROFILES = ruleset.PROFILE_NAMES
LEFT, ACROSS, RIGHT = 3, 2, 1


def proc(name):
    return ruleset.load(name).procedures


def U(seat, stack):
    return WallSlot(seat, stack, UPPER)


def L(seat, stack):
    return WallSlot(seat, stack, LOWER)


# --- worked examples ----------------------------------------------------------------------------

def test_s002_roll_8_splits_left_wall_between_8_and_9():
    lay = plan(proc("tenhou"), 0, [(2, 6)])
    takes = [slot for _, slot in lay.deal_takes]
    assert takes[:4] == [U(3, 9), L(3, 9), U(3, 10), L(3, 10)]  # the dealer takes 9-10
    assert lay.dead_stacks == tuple((3, k) for k in range(2, 9))  # stacks 2..8, stack 8 at the break
    assert lay.indicator_slots == (U(3, 6), U(3, 5), U(3, 4), U(3, 3), U(3, 2))  # 3rd from the far end
    assert lay.ura_slots[0] == L(3, 6)
    assert lay.replacement_slots == (U(3, 8), L(3, 8), U(3, 7), L(3, 7))  # upper first, break end first


def test_s000_4_then_7_takes_the_12th_and_keeps_10_dead_stacks():
    lay = plan(proc("chinese"), 0, [(1, 3), (3, 4)])
    assert lay.deal_takes[0] == (0, U(3, 12))
    assert lay.dead_stacks == tuple((3, k) for k in range(2, 12))
    assert lay.indicator_slots == ()
    assert lay.replacement_slots[:2] == (U(3, 11), L(3, 11))
    w = WallState(lay)
    w.deal()
    before = w.live_remaining
    assert before == 136 - 20 - 53  # jump deal: the dealer holds 14
    w.draw_replacement("kan")
    assert w.live_remaining == before + 6  # the 3 stacks nearest the live wall became live
    assert w.current_dead_stacks() == tuple((3, k) for k in range(5, 12))
    assert w.dead_wall_remaining == 13
    # the released stacks are drawn last, nearest-the-live-wall first
    rest = [w.draw().slot for _ in range(w.live_remaining)]
    assert rest[-6:] == [U(3, 2), L(3, 2), U(3, 3), L(3, 3), U(3, 4), L(3, 4)]


def test_s004_3_then_8_takes_12_13_of_the_across_wall():
    p = ProcedureRules.from_table({"break_method": "two_rolls_summed"})
    lay = plan(p, 0, [(1, 2), (2, 6)])
    assert [s for _, s in lay.deal_takes[:4]] == [U(2, 12), L(2, 12), U(2, 13), L(2, 13)]
    assert [seat for seat, _ in lay.deal_takes[4:8]] == [1, 1, 1, 1]  # then the dealer's right: 14-15
    assert lay.deal_takes[4][1] == U(2, 14)


def test_smaller_die_starts_at_that_stack():
    p = ProcedureRules.from_table({"break_method": "smaller_die"})
    assert plan(p, 0, [(3, 5)]).deal_takes[0][1] == U(LEFT, 3)
    assert plan(p, 0, [(5, 5)]).deal_takes[0][1] == U(RIGHT, 5)


def test_dealing_pattern_and_jump_tiles():
    lay = plan(proc("hk"), 0, [(1, 1, 3), (1, 1)])  # 5 -> dealer's own wall, 5 + 2 = 7 stay
    takes = lay.deal_takes
    assert takes[0][1] == U(0, 8)
    order = [seat for seat, _ in takes[:48]]
    assert order == ([0] * 4 + [1] * 4 + [2] * 4 + [3] * 4) * 3
    s25, s26, s27 = 8 + 24, 8 + 25, 8 + 26  # the 25th..27th stacks from the break (overflow past 18)
    def pos(k):
        return (0, k) if k <= 18 else (3, k - 18)
    # jump (S002:L41, S003:L53): dealer upper of 1st and 3rd, S lower of 1st, W upper 2nd, N lower 2nd
    assert takes[48:] == (
        (0, U(*pos(s25))), (0, U(*pos(s27))), (1, L(*pos(s25))), (2, U(*pos(s26))), (3, L(*pos(s26))))
    assert len(lay.hand_slots[0]) == 13
    w = WallState(lay)
    hands = w.deal()
    assert [len(h) for h in hands] == [14, 13, 13, 13]
    assert w.live_remaining == 144 - 14 - 53


def test_one_each_dealing_leaves_the_14th_tile_to_the_dealer_draw():
    lay = plan(proc("tenhou"), 2, [(3, 4)])
    w = WallState(lay)
    assert [len(h) for h in w.deal()] == [13, 13, 13, 13]
    assert w.live_remaining == 70
    assert w.next_draw_slot() == lay.draw_slots[0]
    assert lay.deal_takes[-4][0] == 2  # the singles start at the dealer


def test_hk_sum_past_a_wall_overflows_onto_the_next_wall_clockwise():
    # dealer 0 rolls 18 -> South (seat 1); seat 1 rolls 12: 30 stacks stay: 18 of seat 1, 12 of seat 0
    lay = plan(proc("hk"), 0, [(6, 6, 6), (6, 6)])
    assert lay.break_point.wall_seat == 1
    assert lay.deal_takes[0][1] == U(0, 13)
    assert lay.dead_stacks[-1] == (0, 12)
    assert lay.dead_stacks[0] == (0, 6)


def test_kan_refill_moves_the_last_live_tile_and_keeps_indicators_in_place():
    lay = plan(proc("tenhou"), 0, [(2, 6)])
    w = WallState(lay)
    w.deal()
    last = lay.draw_slots[-1]
    assert last.layer == LOWER
    w.draw()
    take = w.draw_replacement("kan")
    assert take.slot == U(3, 8)
    assert w.live_remaining == 68
    assert [t.slot for t in w.refilled()] == [last]
    assert w.dead_wall_remaining == 14  # 14 - 1 replacement + 1 refilled
    heights = w.stack_heights()
    assert heights[last.stack_pos] == 1  # the upper tile dropped down
    assert heights[(3, 8)] == 1
    assert w.flip_kan_indicator().slot == U(3, 5)
    assert w.indicator_slots() == (U(3, 6), U(3, 5))
    with pytest.raises(WallError, match="no kan indicator"):
        w.flip_kan_indicator()


def test_haitei_and_exhaustion():
    w = WallState(plan(proc("tenhou"), 1, [(6, 6)]))
    w.deal()
    n = 0
    while not w.is_haitei_next:
        w.draw()
        n += 1
    assert n == 69
    w.draw()
    assert w.is_exhausted and w.live_remaining == 0
    with pytest.raises(WallError, match="exhausted"):
        w.draw()


def test_errors_change_nothing():
    w = WallState(plan(proc("tenhou"), 0, [(1, 1)]))
    with pytest.raises(WallError, match="before the deal"):
        w.draw()
    w.deal()
    with pytest.raises(WallError, match="already dealt"):
        w.deal()
    for _ in range(4):
        w.draw_replacement("kan")
    remaining = w.live_remaining
    with pytest.raises(WallError, match="no replacement tile"):
        w.draw_replacement("kan")
    with pytest.raises(WallError, match="without flowers"):
        w.draw_replacement("flower")
    with pytest.raises(WallError, match="reason"):
        w.draw_replacement("pei")
    assert w.live_remaining == remaining


def test_sanma_dead_wall_has_8_replacements_and_no_refill():
    lay = plan(proc("sanma"), 0, [(1, 1)])  # 2 -> right wall (seat 1), 2 stay
    assert len(lay.dead_stacks) == 9 and len(lay.replacement_slots) == 8
    assert lay.indicator_slots[0] == WallSlot(*lay.dead_stacks[4], UPPER)  # stack 5 of 9
    w = WallState(lay)
    w.deal()
    live = w.live_remaining
    assert live == 108 - 18 - 39
    for _ in range(8):
        w.draw_replacement("north")
    assert w.live_remaining == live
    assert w.dead_wall_remaining == 10


def test_hk_flowers_refill_the_tail():
    w = WallState(plan(proc("hk"), 0, [(2, 2, 2), (3, 3)]))
    w.deal()
    live = w.live_remaining
    for _ in range(8):
        w.draw_replacement("flower")
    for _ in range(4):
        w.draw_replacement("kan")
    assert w.live_remaining == live - 12
    assert w.dead_wall_remaining == 14


# --- properties -------------------------------------------------------------------------------

def _rolls(method, draw):
    two = st.tuples(st.integers(1, 6), st.integers(1, 6))
    if method == "hk_three_then_two":
        return [draw(st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6))), draw(two)]
    if method == "two_rolls_summed":
        return [draw(two), draw(two)]
    return [draw(two)]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_tile_is_conserved_for_every_roll(data):
    name = data.draw(st.sampled_from(PROFILES))
    p = proc(name)
    dealer = data.draw(st.integers(0, p.walls - 1))
    lay = plan(p, dealer, _rolls(p.break_method, data.draw))
    # every slot has exactly one role at the start
    roles = [s for h in lay.hand_slots for s in h] + list(lay.draw_slots[:len(lay.draw_slots)
                                                                          - len(lay.released_slots)])
    dead = [WallSlot(s, k, layer) for s, k in lay.dead_stacks for layer in (UPPER, LOWER)]
    assert len(set(roles)) == len(roles)
    assert set(roles).isdisjoint(dead)
    assert len(roles) + len(dead) == p.n_tiles == len(lay.all_slots)
    assert set(lay.indicator_slots) <= set(dead) and set(lay.replacement_slots) <= set(dead)
    assert set(lay.indicator_slots).isdisjoint(lay.replacement_slots)

    w = WallState(lay)
    hands = w.deal()
    dealt = sum(len(h) for h in hands)
    assert dealt + w.live_remaining + w.dead_wall_remaining == p.n_tiles
    taken = dealt
    for _ in range(data.draw(st.integers(0, 40))):
        step = data.draw(st.sampled_from(["draw", "kan", "flower", "north"]))
        try:
            if step == "draw":
                w.draw()
            else:
                w.draw_replacement(step)
        except WallError:
            continue
        taken += 1
        assert set(w.indicator_slots()) <= {WallSlot(s, k, x) for s, k in w.current_dead_stacks()
                                            for x in (UPPER, LOWER)}
        assert taken + w.live_remaining + w.dead_wall_remaining == p.n_tiles
        assert sum(w.stack_heights().values()) + len(w.refilled()) + taken == p.n_tiles


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_layout_from_roll_reproduces_a_recorded_hand(data):
    name = data.draw(st.sampled_from(["tenhou", "sanma", "hk", "chinese"]))
    p = proc(name)
    rs = ruleset.load(name)
    expected = census(p.tile_set, rs.red_fives)
    dealer = data.draw(st.integers(0, p.walls - 1))
    lay = plan(p, dealer, _rolls(p.break_method, data.draw))
    tiles = full_set(p.tile_set, rs.red_fives)
    random.Random(data.draw(st.integers(0, 2**32))).shuffle(tiles)
    original = dict(zip(lay.all_slots, tiles, strict=True))
    # play a hand on the original wall and record it as a log would
    w = WallState(lay, original)
    hands = [[t.tile for t in h[:13]] for h in w.deal()]
    # the dealer's jump tile (dealing == "jump") is its first draw in a log
    draws = [original[lay.draw_slots[0]]] if p.dealing == "jump" else []
    replacements = []
    kans = data.draw(st.integers(0, 3))
    for i in range(30):
        draws.append(w.draw().tile)
        if i % 7 == 3 and len(replacements) < kans:
            replacements.append(w.draw_replacement("kan").tile)
            if p.has_dora_indicator:
                w.flip_kan_indicator()
    indicators = list(w.indicators()) if p.has_dora_indicator else []
    placed = layout_from_roll(lay, hands=hands, draws=draws, replacements=replacements,
                              indicators=indicators, census=expected)
    assert Counter(placed.values()) == Counter(expected)
    # replaying on the rebuilt wall gives the same hand
    w2 = WallState(lay, placed)
    assert [[t.tile for t in h[:13]] for h in w2.deal()] == hands
    got = [placed[lay.draw_slots[0]]] if p.dealing == "jump" else []
    got_repl = []
    for i in range(30):
        got.append(w2.draw().tile)
        if i % 7 == 3 and len(got_repl) < kans:
            got_repl.append(w2.draw_replacement("kan").tile)
            if p.has_dora_indicator:
                w2.flip_kan_indicator()
    assert got == draws and got_repl == replacements
    assert list(w2.indicators()) == list(w.indicators())


def test_layout_from_roll_names_a_fifth_copy():
    lay = plan(proc("tenhou"), 0, [(3, 3)])
    hands = [["1m"] * 5 + ["3m"] * 4 + ["4m"] * 4] + [["2p"] * 13 for _ in range(3)]
    with pytest.raises(WallError, match="'1m' appears more often"):
        layout_from_roll(lay, hands=hands, census=census("136", "none"))
    with pytest.raises(WallError, match="seat 1 has 12"):
        layout_from_roll(lay, hands=[["1m"] * 13, ["2m"] * 12, [], []])
    with pytest.raises(WallError, match="more often than the set holds"):
        layout_from_roll(lay, hands=[["1p"] * 13] * 4)


def test_layout_is_independent_of_who_rolled_for_the_same_break():
    p = proc("tenhou")
    a = layout(p, 0, break_point("one_roll", 0, [(3, 4)]))
    b = layout(p, 0, break_point("one_roll", 0, [(5, 2)]))
    assert a.hand_slots == b.hand_slots and a.indicator_slots == b.indicator_slots


def test_deal_flowers_are_replaced_dealer_first_and_again_when_a_flower_comes():
    lay = plan(proc("hk"), 1, [(1, 2, 2), (3, 4)])
    w0 = WallState(lay)
    hand_slots = lay.hand_slots
    # seat 2 holds 1f; seat 1 (the dealer) holds 2f; the first replacement is 3f, then 5m, 6m
    tiles = {s: "1m" for s in lay.all_slots}
    tiles[hand_slots[2][0]] = "1f"
    tiles[hand_slots[1][5]] = "2f"
    repl = lay.replacement_slots
    tiles[repl[0]], tiles[repl[1]], tiles[repl[2]] = "3f", "5m", "6m"
    w = WallState(lay, tiles)
    dealt = w.deal()
    hands, flowers = replace_deal_flowers(w, [[t.tile for t in h] for h in dealt])
    assert flowers == [[], ["2f", "3f"], ["1f"], []]
    assert hands[1][-1] == "5m" and hands[2][-1] == "6m"
    assert w0.live_remaining == 144 - 14 - 53  # counted after the deal it is about to make
    assert w.live_remaining == w0.live_remaining - 3  # each replacement moved a live tile to the tail


def _all_rolls(method):
    """One roll sequence for every distinct outcome of a method (the layout depends on totals,
    and on the smaller die for ``smaller_die``)."""
    pairs = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    if method == "smaller_die":
        return [[p] for p in pairs]
    by_total = {a + b: (a, b) for a, b in pairs}
    if method == "hk_three_then_two":
        threes = {a + b + c: (a, b, c) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)}
        return [[t, p] for t in threes.values() for p in by_total.values()]
    if method == "two_rolls_summed":
        return [[p, q] for p in by_total.values() for q in by_total.values()]
    return [[p] for p in by_total.values()]


@pytest.mark.parametrize("name", PROFILES)
def test_every_roll_and_dealer_conserves_the_set_and_keeps_indicators_dead(name):
    p = proc(name)
    for dealer in range(p.walls):
        for rolls in _all_rolls(p.break_method):
            lay = plan(p, dealer, rolls)
            dead = {WallSlot(s, k, x) for s, k in lay.dead_stacks for x in (UPPER, LOWER)}
            dealt = [s for h in lay.hand_slots for s in h]
            live = lay.draw_slots[:len(lay.draw_slots) - len(lay.released_slots)]
            assert len(dealt) + len(live) + len(dead) == p.n_tiles
            assert len(set(dealt) | set(live) | dead) == p.n_tiles
            assert set(lay.indicator_slots) <= dead and set(lay.replacement_slots) <= dead
            # the indicator is the upper tile of the stack next to the replacement stacks
            if p.has_dora_indicator:
                far = lay.dead_stacks[-(p.replacement_stacks + 1)]
                assert lay.indicator_slots[0] == WallSlot(*far, UPPER)
            w = WallState(lay)
            w.deal()
            n = w.live_remaining
            for _ in range(n):
                w.draw()
            assert w.is_exhausted
            assert len(dealt) + (1 if p.dealing == "jump" else 0) + n + w.dead_wall_remaining == p.n_tiles
