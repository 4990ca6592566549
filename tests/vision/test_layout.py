"""Table profiles (validated data) and the table-plane geometry computed from them."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from vision.layout import (
    PROFILE_DIR,
    Layout,
    ProfileError,
    load_profile,
    parse_profile,
    sideways_index_for,
    source_from_position,
)


def raw(name: str = "riichi4") -> dict:
    return tomllib.loads((PROFILE_DIR / f"{name}.toml").read_text())


@pytest.mark.parametrize("name, walls, stacks", [("riichi4", 4, 17), ("hk144", 4, 18), ("sanma", 3, 18)],
                         ids=["riichi4", "hk144", "sanma"])
def test_profiles_load_with_their_walls(name, walls, stacks):
    p = load_profile(name)
    lay = Layout(p)
    assert len(lay.wall_positions) == walls
    assert p.wall.stacks == stacks
    assert len(lay.wall_slots()) == walls * stacks
    assert 2 * stacks * walls == {"riichi4": 136, "hk144": 144, "sanma": 108}[name]


def test_unknown_key_is_refused_by_name():
    r = raw()
    r["wall"]["stack_count"] = 17
    with pytest.raises(ProfileError, match=r"unknown key 'stack_count' in \[wall\]"):
        parse_profile(r)


def test_unknown_section_and_missing_key_are_named():
    r = raw()
    r["lights"] = {"on": True}
    with pytest.raises(ProfileError, match=r"unknown section \[lights\]"):
        parse_profile(r)
    r = raw()
    del r["tile"]["thickness_mm"]
    with pytest.raises(ProfileError, match=r"\[tile\] 'thickness_mm' is missing"):
        parse_profile(r)


@pytest.mark.parametrize("section, key, value, message", [
    ("wall", "stacks", 40, r"'stacks' is 40, must be an integer within 8..24"),
    ("tile", "width_mm", "wide", r"'width_mm' is 'wide', must be a number"),
    ("wall", "inner_mm", 150.0, r"need inner_mm >= .* the walls would overlap"),
    ("river", "rows", 6, r"rows reach .* past the wall"),
    ("river", "sideways", "up", r"'sideways' is 'up', must be one of center, near"),
], ids=["stacks-range", "not-number", "walls-overlap", "river-into-wall", "bad-choice"])
def test_bad_values_are_refused(section, key, value, message):
    r = raw()
    r[section][key] = value
    with pytest.raises(ProfileError, match=message):
        parse_profile(r)


def test_unknown_profile_name_lists_the_known_ones():
    with pytest.raises(ProfileError, match=r"unknown table profile 'mahjong9'.*riichi4"):
        load_profile("mahjong9")


def test_stack_one_is_at_the_wall_owners_right_end():
    lay = Layout(load_profile("riichi4"))
    for seat in range(4):
        right, forward = lay.seat_axes(seat)
        u = [float(np.asarray(lay.wall_slot(seat, i).centre) @ right) for i in range(1, 18)]
        assert u == sorted(u, reverse=True), "stacks run from the owner's right to left"
        d = -float(np.asarray(lay.wall_slot(seat, 1).centre) @ forward)
        assert 242 < d < 276
    # seat 0 sits at the bottom: its wall's right end is at +x, below the centre
    x, y = lay.wall_slot(0, 1).centre
    with pytest.raises(ValueError, match="stack 0 out of range 1..17"):
        lay.wall_slot(0, 0)
    assert x > 200 and y < -240


def test_no_two_things_overlap_on_the_table():
    """Walls, river cells (with a sideways tile), melds and hands of all seats are disjoint."""
    lay = Layout(load_profile("riichi4"))
    boxes = [s.rect.array() for s in lay.wall_slots()]
    for seat in range(4):
        for strip in lay.river_strips(seat):
            boxes += [r.array() for r in lay.lay_row(strip, [False] * 5 + [True])]
        boxes += [r.array() for r in lay.lay_row(lay.reveal_strip(seat), [False] * 8)]
        boxes += [r.array() for r in lay.lay_row(lay.flower_strip(seat), [False] * 8)]
    lo = np.array([b.min(axis=0) for b in boxes]) + 0.3
    hi = np.array([b.max(axis=0) for b in boxes]) - 0.3
    overlap = (lo[:, None, 0] < hi[None, :, 0]) & (lo[None, :, 0] < hi[:, None, 0]) & \
              (lo[:, None, 1] < hi[None, :, 1]) & (lo[None, :, 1] < hi[:, None, 1])
    np.fill_diagonal(overlap, False)
    assert not overlap.any()


def test_sideways_tile_reads_with_its_top_to_the_left():
    lay = Layout(load_profile("riichi4"))
    strip = lay.river_strip(0, 0)
    upright = lay.strip_tile(strip, 0.0).array()
    side = lay.strip_tile(strip, 0.0, is_sideways=True).array()
    # upright for seat 0: top edge (TL->TR) runs along +x and lies further from the player (+y)
    assert np.allclose(upright[1] - upright[0], [26, 0]) and upright[0][1] > upright[3][1]
    # sideways: the face's top edge (TL->TR) now runs along +y, on the left (-x) side
    assert np.allclose(side[1] - side[0], [0, 26]) and side[0][0] < side[2][0]
    # centred on the row: 4 mm free at both long edges
    assert side[:, 1].max() == pytest.approx(upright[:, 1].max() - 4.0)


@pytest.mark.parametrize("seat, index, n, source", [
    (0, 0, 3, 3), (0, 1, 3, 2), (0, 2, 3, 1), (2, 3, 4, 3), (1, 2, 4, 3), (3, 0, 3, 2)],
    ids=["left-kamicha", "middle-toimen", "right-shimocha", "kan-right", "kan-across", "seat3-left"])
def test_the_sideways_tile_names_the_source(seat, index, n, source):
    assert source_from_position(seat, index, n) == source
    if not (n == 4 and index == 2):
        assert sideways_index_for(seat, source, n) == index


def test_sanma_has_no_one_across():
    assert source_from_position(2, 2, 3, players=3) == 0      # the right of position 2 is position 0
    assert source_from_position(0, 0, 3, players=3) == 2      # the left of position 0 is position 2
    # and the sideways tile of a three-player call lies left or right, never in the middle
    for seat in range(3):
        for source, index in (((seat - 1) % 3, 0), ((seat + 1) % 3, 2)):
            assert sideways_index_for(seat, source, 3, players=3) == index
            assert source_from_position(seat, index, 3, players=3) == source
