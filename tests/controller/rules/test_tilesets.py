"""Tile sets and red-five sets: sizes, census, and what integrity checks get from them."""

import pytest

from controller.rules import ruleset
from controller.rules.tilesets import (
    RED_SETS,
    TileSetError,
    census,
    census_for,
    excess,
    full_set,
    red_set,
)


@pytest.mark.parametrize(("name", "size"), [("136", 136), ("144", 144), ("108", 108)])
def test_sizes(name, size):
    assert sum(census(name).values()) == size
    assert len(full_set(name)) == size


def test_sanma_has_no_2m_to_8m():
    c = census("108")
    assert [c.get(f"{n}m", 0) for n in range(1, 10)] == [4, 0, 0, 0, 0, 0, 0, 0, 4]


def test_flowers_are_single():
    c = census("144")
    assert [c[f"{n}f"] for n in range(1, 9)] == [1] * 8
    assert "1f" not in census("136")


@pytest.mark.parametrize(
    ("spec", "m", "p", "s"),
    [("none", 0, 0, 0), ("2赤", 0, 1, 1), ("赤一", 1, 1, 1), ("3赤", 1, 1, 1), ("4赤", 1, 2, 1),
     ("赤二", 2, 2, 2), ("赤三", 3, 3, 3), ("赤四", 4, 4, 4), ("8赤", 2, 4, 2)],
)
def test_every_red_set_of_the_rulings(spec, m, p, s):
    c = census("136", spec)
    assert (c.get("0m", 0), c.get("0p", 0), c.get("0s", 0)) == (m, p, s)
    assert (c.get("5m", 0), c.get("5p", 0), c.get("5s", 0)) == (4 - m, 4 - p, 4 - s)
    assert sum(c.values()) == 136


def test_painted_3s_7s_stay_counted_as_plain_kinds():
    rs = RED_SETS["aka_37s"]
    assert rs.painted == {"3s": 1, "7s": 1}
    c = census("136", rs)
    assert c["3s"] == 4 and c["7s"] == 4 and c["0m"] == 1 and "0s" not in c


def test_counts_from_a_ruleset_and_census_for():
    assert red_set((1, 1, 1)).name == "aka1"
    assert red_set((0, 3, 1)).counts == (0, 3, 1)
    assert census_for(ruleset.load("tenhou"))["0p"] == 1
    assert census_for(ruleset.load("sanma"))["0s"] == 1
    assert sum(census_for(ruleset.load("hk")).values()) == 144


def test_errors_name_the_problem():
    with pytest.raises(TileSetError, match="unknown tile set '135'"):
        census("135")
    with pytest.raises(TileSetError, match="unknown red-five set 'aka9'"):
        census("136", "aka9")
    with pytest.raises(TileSetError, match="tile set '108' has 0"):
        census("108", "aka1")  # sanma has no 5m to paint
    with pytest.raises(TileSetError, match="counts 0..4"):
        red_set((5, 0, 0))


def test_excess_finds_a_fifth_copy_and_a_wrong_red():
    c = census("136", "2赤")
    assert excess(["1m"] * 4 + ["0p"], c) == {}
    assert excess(["1m"] * 5, c) == {"1m": 5}
    assert excess(["0m"], c) == {"0m": 1}
