"""A rendered hand, frame by frame through the reader (real ONNX model) and the tracker: the
events must match the script exactly, with a player's hand passing over the table each turn."""

from __future__ import annotations

import pytest

from controller.events import (
    Discard,
    HandCount,
    HandRevealed,
    IndicatorRevealed,
    Meld,
    RiichiStick,
    WallStackTaken,
)
from hardware.sim.scene import MeldShape, TableState
from tests.fixtures.frames import renderer_for
from vision.calibration import calibrate
from vision.reader import TableReader
from vision.tracker import TableTracker

WIN = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2p", "3p", "4p"]


def script(layout):
    """[(state, acting position or None, expected events)]: one table state per step."""
    st = TableState.full_walls(layout)
    for i in range(17):
        st.walls[0][i] = 0
    for i in range(8, 17):
        st.walls[1][i] = 0
    st.walls[3][0] = 1
    st.indicators[(1, 4)] = "3p"
    st.standing = {0: 14, 1: 13, 2: 13, 3: 13}
    steps = [(st.copy(), None, [("indicator", 1, 4, "3p", False)])]
    live = [(3, 1), (3, 2), (3, 2), (3, 3), (3, 3), (3, 4), (3, 4)]

    def turn(pos, tile, *, draw=True, riichi=False, expect=None, stick=False):
        nonlocal st
        st = st.copy()
        ev = []
        if draw:
            w, s = live.pop(0)
            st.walls[w][s - 1] -= 1
            ev.append(("taken", w, s, st.walls[w][s - 1]))
        st.rivers.setdefault(pos, []).append((tile, riichi))
        ev.append(("discard", pos, tile, riichi))
        if stick:     # the riichi stick goes down with the riichi discard
            st.sticks.add(pos)
            ev.append(("stick", pos))
        steps.append((st, pos, (expect or []) + ev))

    turn(0, "9m", draw=False)
    turn(1, "1z")
    turn(2, "5p", riichi=True, stick=True)
    turn(3, "2s")
    turn(0, "7z")
    turn(1, "6s")
    # position 3 calls pon on position 1's 6s (across: the middle tile sideways), then discards
    st = st.copy()
    st.rivers[1] = st.rivers[1][:-1]
    st.melds[3] = [MeldShape(("6s", "6s", "6s"), sideways=1)]
    st.standing[3] = 11
    st.rivers[3].append(("4m", False))
    steps.append((st, 3, [("meld", 3, "pon", ("6s", "6s", "6s"), "6s", 1), ("discard", 3, "4m", False)]))
    turn(0, "0p")
    # position 1 draws and wins: the hand is laid face up
    st = st.copy()
    w, s = live.pop(0)
    st.walls[w][s - 1] -= 1
    st.standing[1] = 0
    st.revealed[1] = list(WIN)
    st.win_apart = {1}      # the drawn 4p set apart at the right end: a tsumo on 4p
    steps.append((st, 1, [("taken", w, s, st.walls[w][s - 1]), ("revealed", 1, tuple(WIN), "4p")]))
    # the ura indicator: the dora indicator is lifted aside and the tile under it turned
    st = st.copy()
    st.walls[1][3] = 1
    st.indicators[(1, 4)] = "7m"
    steps.append((st, None, [("taken", 1, 4, 1), ("indicator", 1, 4, "7m", True)]))
    return steps


def as_tuple(e):
    if isinstance(e, IndicatorRevealed):
        return ("indicator", e.wall, e.stack, e.tile, e.is_ura)
    if isinstance(e, WallStackTaken):
        return ("taken", e.wall, e.stack, e.tiles_left)
    if isinstance(e, Discard):
        return ("discard", e.seat, e.tile, e.is_riichi)
    if isinstance(e, Meld):
        return ("meld", e.seat, e.meld_kind, e.tiles, e.called, e.source)
    if isinstance(e, RiichiStick):
        return ("stick", e.seat)
    if isinstance(e, HandRevealed):
        return ("revealed", e.seat, e.tiles, e.win_tile)
    return (type(e).__name__, *(vars(e).values()))


@pytest.mark.parametrize("pose", ["top", "tilt15"])
def test_rendered_hand_gives_the_scripted_events(tile_model, pose):
    renderer = renderer_for("riichi4", pose)
    steps = script(renderer.layout)
    first = renderer.render(steps[0][0], seed=100)
    cal = calibrate(first, renderer.profile)
    reader = TableReader(renderer.profile, cal, tile_model)
    tracker = TableTracker(k=5)
    got, want = [], []
    t, seed = 0.0, 100
    for state, actor, expected in steps:
        want += expected
        frames = [state] * 4
        if actor is not None:   # the acting player's hand passes over its river in the first frame
            over = state.copy()
            over.hands_over = (renderer.layout.to_table(actor, 0.0, 170.0),)
            frames = [over] + frames[1:]
        for s in frames:
            seed += 1
            t += 0.1
            got += [as_tuple(e) for e in tracker.update(reader.read(renderer.render(s, seed=seed), now=t), now=t)]
    assert got == want


def test_a_hand_resting_over_a_river_makes_no_discard(tile_model):
    renderer = renderer_for("riichi4", "top")
    st = TableState.full_walls(renderer.layout, rivers={0: [("3m", False), ("4m", False)], 1: [("9p", False)]})
    reader = TableReader(renderer.profile, calibrate(renderer.render(st, seed=1), renderer.profile), tile_model)
    tracker = TableTracker(k=5)
    got = []
    for i in range(5):
        got += tracker.update(reader.read(renderer.render(st, seed=10 + i)), now=i * 0.1)
    assert [as_tuple(e) for e in got] == [("discard", 0, "3m", False), ("discard", 0, "4m", False),
                                          ("discard", 1, "9p", False)]
    over = st.copy()
    # the hand rests just past the last tile of position 0's river, and over position 1's river
    over.hands_over = (renderer.layout.to_table(0, -10.0, 110.0), renderer.layout.to_table(1, -60.0, 100.0))
    for i in range(8):
        assert tracker.update(reader.read(renderer.render(over, seed=30 + i)), now=1 + i * 0.1) == []


def test_a_standing_hand_a_tile_short_is_counted_from_above(tile_model):
    """A seat that never lays its hand down drops a tile: 12 stand where 13 belong. The tracker
    reports the count once it has stayed so for ``hold`` views (never for 13, nor for 11 beside
    a pon), and again only after the count changed."""
    renderer = renderer_for("riichi4", "top")
    st = TableState.full_walls(renderer.layout, standing={0: 13, 1: 13, 2: 13, 3: 11})
    st.melds[3] = [MeldShape(("6s", "6s", "6s"), sideways=1)]
    reader = TableReader(renderer.profile, calibrate(renderer.render(st, seed=1), renderer.profile), tile_model)
    tracker = TableTracker(k=5, first_dealer_position=1)
    seed, t = 40, 0.0

    def counts(state, frames):
        nonlocal seed, t
        out = []
        for _ in range(frames):
            seed, t = seed + 1, t + 0.1
            out += [(e.seat, e.count) for e in tracker.update(reader.read(renderer.render(state, seed=seed)), now=t)
                    if isinstance(e, HandCount)]
        return out

    assert counts(st, 3 * tracker.hold) == []
    short = st.copy()
    short.standing[2] = 12
    assert counts(short, tracker.hold - 1) == []        # not yet: a hand may be sorting its tiles
    assert counts(short, 2 * tracker.hold) == [(1, 12)]  # position 2 is seat 1 (the first dealer sits at 1)
    assert counts(st, 2 * tracker.hold) == []           # whole again
    assert counts(short, 2 * tracker.hold) == [(1, 12)]
