import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import tiles as T
from controller.rules.dora import count_dora, count_red, dora_of


@pytest.mark.parametrize(("ind", "dora"), [("4p", "5p"), ("9m", "1m"), ("4z", "1z"), ("5z", "6z"), ("7z", "5z"),
                                           ("0s", "6s"), ("1z", "2z"), ("6z", "7z")])
def test_rulings_examples(ind, dora):
    assert dora_of(ind) == dora


def test_sanma_man_wraps_1_9():
    assert dora_of("1m", is_sanma=True) == "9m"
    assert dora_of("9m", is_sanma=True) == "1m"
    assert dora_of("9p", is_sanma=True) == "1p"


def test_two_4m_indicators_stack():
    assert count_dora(["5m"], ["4m", "4m"]) == 2
    assert count_dora(["0m"], ["4m", "4m"]) + count_red(["0m"]) == 3


def _group(t):
    t = T.plain(t)
    if t[1] != "z":
        return t[1]
    return "winds" if int(t[0]) <= 4 else "dragons"


@settings(deadline=None)
@given(st.sampled_from(T.KINDS_34 + T.REDS))
def test_dora_wraps_within_its_group(ind):
    d = dora_of(ind)
    assert _group(d) == _group(ind)
    size = 9 if ind[1] != "z" else (4 if _group(ind) == "winds" else 3)
    seen = {T.plain(ind)}
    t = T.plain(ind)
    for _ in range(size - 1):
        t = dora_of(t)
        seen.add(t)
    assert len(seen) == size and dora_of(t) == T.plain(ind)


def test_flower_is_not_an_indicator():
    with pytest.raises(T.TileError):
        dora_of("1f")


def test_s002_l77_dora_stack_is_8_han():
    from controller.rules.dora import dora_han

    got = dora_han(["5p", "0p", "0p"], ["4p"], ["4p"], is_riichi=True)
    assert got["dora"] + got["ura_dora"] + got["aka_dora"] == 8
    assert dora_han(["5p"], ["4p"], ["4p"], is_riichi=False)["ura_dora"] == 0


def test_kan_dora_timing_per_profile():
    from controller.rules.dora import kan_dora_timing

    assert [kan_dora_timing(k) for k in ("ankan", "kan", "kakan")] == ["now", "after_discard", "after_discard"]
    assert {kan_dora_timing(k, "immediate") for k in ("ankan", "kan", "kakan")} == {"now"}
    with pytest.raises(ValueError):
        kan_dora_timing("pon")
