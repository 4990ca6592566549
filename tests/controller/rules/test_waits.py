import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import tiles as T
from controller.rules.melds import parse_meld
from controller.rules.waits import Furiten, furiten, is_complete, shanten, waits


@pytest.mark.parametrize(("text", "melds", "expected"), [
    ("1112345678999m", (), "123456789m"),
    ("6667m123p456s111z", (), "578m"),
    ("7m123p456s111z", ("ankan:6666m",), "7m"),    # 暗槓詐立: 6667 waits 5, 7, 8; after the kan only 7
    ("19m19p19s1234567z", (), "19m19p19s1234567z"),  # kokushi 13-sided
    ("19m19p19s1234566z", (), "7z"),
    ("1133557799m112p", (), "2p"),      # chiitoitsu
    ("113355779m1122p", (), "9m"),
    ("113355779m1124p", (), ""),
    ("1m", ("pon:222z", "pon:333z", "pon:444z", "chi:123p"), "1m"),
    ("1111m234p567s789s", (), ""),  # waits only on a 5th 1m: noten
    ("11112345678999m", (), None),
])
def test_waits_examples(text, melds, expected):
    ms = [parse_meld(m) for m in melds]
    if expected is None:
        with pytest.raises(ValueError):
            waits(T.parse(text), ms)
        return
    got = waits(T.parse(text), ms)
    assert got == T.parse(expected) if expected else got == []


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="15 tiles"):
        waits(T.parse("111222333444555m"))
    with pytest.raises(ValueError, match="5 copies of 1m"):
        waits(T.parse("11111m23456789p"))
    with pytest.raises(T.TileError):
        waits(T.parse("8z"))


def test_shanten():
    assert shanten(T.parse("1112345678999m")) == 0
    assert shanten(T.parse("11123456789999m")) == -1
    assert shanten(T.parse("19m19p19s1234567z")) == 0


def test_furiten_kinds():
    assert furiten(["5m", "8m"], ["8m"]) is Furiten.DISCARD
    assert furiten(["5m", "8m"], ["1z"], passed_since_discard=["0m"]) is Furiten.TEMPORARY
    assert furiten(["5m", "8m"], ["1z"], passed_since_riichi=["5m"]) is Furiten.RIICHI
    assert furiten(["5m"], ["6m"], passed_since_discard=["6m"]) is None


_tile_pool = [k for k in T.KINDS_34 for _ in range(4)]


@st.composite
def hands13(draw):
    idx = draw(st.lists(st.integers(0, len(_tile_pool) - 1), min_size=13, max_size=13, unique=True))
    # bias towards near-complete hands: sample from few suits
    return [_tile_pool[i] for i in idx]


@st.composite
def suit_hands13(draw):
    suit = draw(st.sampled_from("mps"))
    counts = draw(st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda c: sum(c) >= 13))
    tiles = [f"{i + 1}{suit}" for i, c in enumerate(counts) for _ in range(c)]
    order = draw(st.permutations(tiles))
    return list(order[:13])


@settings(max_examples=150, deadline=None)
@given(st.one_of(hands13(), suit_hands13()))
def test_every_wait_completes_and_no_other_tile_does(h):
    got = set(waits(h))
    counts = T.counts_34(h)
    for k in T.KINDS_34:
        if counts[T.to_34(k)] >= 4:
            continue
        assert is_complete(h + [k]) == (k in got), (T.fmt(h), k)


@settings(max_examples=60, deadline=None)
@given(suit_hands13(), st.randoms())
def test_tile_order_does_not_matter(h, rnd):
    shuffled = list(h)
    rnd.shuffle(shuffled)
    assert waits(h) == waits(shuffled)


@st.composite
def hands_with_a_meld(draw):
    suit = draw(st.sampled_from("mps"))
    counts = draw(st.lists(st.integers(0, 3), min_size=9, max_size=9).filter(lambda c: sum(c) >= 10))
    tiles = [f"{i + 1}{suit}" for i, c in enumerate(counts) for _ in range(c)]
    order = draw(st.permutations(tiles))
    meld = draw(st.sampled_from(["pon:777z", "chi:312p", "ankan:1111z"]))
    return list(order[:10]), [parse_meld(meld)]


@settings(max_examples=80, deadline=None)
@given(hands_with_a_meld())
def test_waits_with_melds_complete_the_hand(case):
    h, melds = case
    got = set(waits(h, melds))
    for k in T.KINDS_34:
        held = T.counts_34(h)[T.to_34(k)] + sum(1 for m in melds for t in m.tiles if T.plain(t) == k)
        if held >= 4:
            assert k not in got
            continue
        assert is_complete(h + [k], melds) == (k in got), (T.fmt(h), k)
