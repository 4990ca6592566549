import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import tiles


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("123m", ["1m", "2m", "3m"]),
        ("0m5p0s", ["0m", "5p", "0s"]),
        ("1234567z", ["1z", "2z", "3z", "4z", "5z", "6z", "7z"]),
        ("18f", ["1f", "8f"]),
        ("1 2m", ["1m", "2m"]),
        ("", []),
    ],
)
def test_parse(text, expected):
    assert tiles.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("8z", "'8z'"), ("0z", "'0z'"), ("9f", "'9f'"), ("12", "'12'"), ("1x2m", "'1x'"), ("m", "'m'")],
)
def test_parse_rejects_with_named_problem(text, fragment):
    with pytest.raises(tiles.TileError, match=fragment):
        tiles.parse(text)


@settings(deadline=None)
@given(st.lists(st.sampled_from(tiles.ALL_TILES), max_size=20))
def test_format_parse_roundtrip(ts):
    assert tiles.parse(tiles.fmt(ts)) == ts


def test_34_index_maps_reds_to_fives():
    assert [tiles.to_34(t) for t in ("0m", "0p", "0s")] == [4, 13, 22]
    assert tiles.from_34(33) == "7z"
    with pytest.raises(tiles.TileError):
        tiles.to_34("1f")
    with pytest.raises(tiles.TileError):
        tiles.from_34(34)


def test_sorted_puts_red_after_plain_five():
    assert tiles.sorted_tiles(["1z", "0p", "5p", "4p", "9m"]) == ["9m", "4p", "5p", "0p", "1z"]


def test_counts_ignore_flowers():
    counts = tiles.counts_34(["1m", "1m", "0m", "3f"])
    assert counts[0] == 2 and counts[4] == 1 and sum(counts) == 3
