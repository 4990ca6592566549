"""Reader cases met while the simulated table played the recorded games through rendered frames
(issue 7): busy faces (many dots or bamboos show little ivory), a fourth kan far along the meld
strip, an indicator whose ink hides its ivory. Straight camera (the simulated table's), the
shipped tile model.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from hardware.sim.scene import MeldShape, SceneRenderer, TableState
from hardware.sim.table_eyes import SURE, mend_meld
from vision.calibration import calibrate
from vision.layout import load_profile
from vision.reader import TableReader


@functools.lru_cache(maxsize=1)
def _renderer() -> tuple[SceneRenderer, object]:
    renderer = SceneRenderer(load_profile("riichi4"))
    return renderer, calibrate(renderer.render(TableState(), seed=0), renderer.profile)


@pytest.fixture(scope="module")
def camera(tile_model):
    renderer, calibration = _renderer()
    return renderer, TableReader(renderer.profile, calibration, tile_model)


def _walls() -> dict[int, list[int]]:
    return {w: [2] * 17 for w in range(4)}


def test_a_busy_red_five_in_a_revealed_hand_is_read_not_dropped(camera):
    renderer, reader = camera
    hand = ["4m", "0m", "6m", "7m", "7m", "9m", "9m", "3p", "4p", "0p", "7s", "8s", "9s", "7m"]
    state = TableState(walls=_walls(), revealed={0: hand}, win_apart={0},
                       melds={2: [MeldShape(("2m", "2m", "2m"), 2)]}, standing={1: 13, 2: 10, 3: 13})
    view = reader.read(renderer.render(state, seed=3))
    assert [t.tile for t in view.revealed[0]] == hand
    assert view.win_tiles[0].tile == "7m"


def test_a_tile_left_unread_in_a_revealed_hand_keeps_its_place_as_none(camera):
    """The hand's size counts (a wrong-size hand may not win): an unreadable tile is kept as "none"."""
    renderer, reader = camera
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "2z", "2z"]
    state = TableState(walls=_walls(), revealed={0: hand})
    frame = renderer.render(state, seed=5)
    # a finger over the fifth tile: paint its face felt-dark so that no face can be read there
    rect = reader.layout.lay_row(reader.layout.reveal_strip(0), [False] * len(hand))[4]
    pts = reader.camera.project_xy(rect.array()[:, :2], reader.profile.tile.thickness_mm)
    cv2.fillConvexPoly(frame, np.round(np.asarray(pts)[:, :2]).astype(np.int32), (40, 35, 30))
    view = reader.read(frame)
    got = [t.tile for t in view.revealed[0]]
    assert len(got) == len(hand), got
    assert got[4] == "none" and got[:4] == hand[:4] and got[5:] == hand[5:], got


def test_an_open_kan_of_a_busy_face_called_from_the_left_is_found(camera):
    """Seat 3's open kan of 7p called from seat 0 (its sideways tile last): no ivory on the mid lines."""
    renderer, reader = camera
    state = TableState(walls=_walls(), melds={3: [MeldShape(("7p", "7p", "7p", "7p"), 3)]}, standing={3: 10, 0: 13})
    view = reader.read(renderer.render(state, seed=1))
    (m,) = view.melds[3]
    assert (m.kind, len(m.tiles), m.sideways, m.source) == ("daiminkan", 4, 3, 0)
    # the model reads some upright 7p faces at this slant unsure (or as another tile); the sure ones
    # are 7p, and the simulated table's tracker mends the rest from them
    assert {t.tile for t in m.tiles if t.confidence >= SURE} == {"7p"}
    assert [t.tile for t in mend_meld(m).tiles] == ["7p"] * 4


def test_four_kans_fit_the_meld_strip_beside_the_last_two_tiles(camera):
    renderer, reader = camera
    melds = [MeldShape(("3s", "3s", "3s", "3s"), 0), MeldShape(("6z", "6z", "6z", "6z"), 3),
             MeldShape(("8m", "8m", "8m", "8m"), 1), MeldShape(("back", "2m", "2m", "back"))]
    state = TableState(walls=_walls(), melds={2: melds}, standing={2: 2})
    view = reader.read(renderer.render(state, seed=2))
    got = [(m.kind, [t.tile for t in m.tiles], m.sideways) for m in view.melds[2]]
    assert got == [("daiminkan", ["3s"] * 4, 0), ("daiminkan", ["6z"] * 4, 3), ("daiminkan", ["8m"] * 4, 1),
                   ("ankan", ["back", "2m", "2m", "back"], None)]
    assert 2 not in view.revealed


def test_a_green_indicator_is_an_indicator_not_another_back(camera):
    """An 8s shows more green ink than ivory: it is still a face, read by the model."""
    renderer, reader = camera
    walls = _walls()
    walls[0][3] = 1
    state = TableState(walls=walls, indicators={(0, 5): "8s", (0, 6): "3z"})
    view = reader.read(renderer.render(state, seed=4))
    assert sorted((i.wall, i.stack, i.tile.tile) for i in view.indicators) == [(0, 5, "8s"), (0, 6, "3z")]
    assert not any(c for row in view.other_backs.values() for c in row)


def test_a_busy_nine_of_circles_in_a_revealed_hand_is_classified(camera):
    """Nine terminals declared (a recorded game's hand 5): the 9p shows almost no ivory, yet lies flat."""
    renderer, reader = camera
    hand = ["1p", "3p", "5p", "7p", "9p", "1s", "4s", "6s", "9s", "1z", "2z", "3z", "4z", "5z"]
    state = TableState(walls=_walls(), revealed={0: hand}, standing={1: 13, 2: 13, 3: 13})
    view = reader.read(renderer.render(state, seed=0))
    got = [t.tile for t in view.revealed[0]]
    assert len(got) == 14 and got[4] == "9p" and got[5:] == hand[5:], got
