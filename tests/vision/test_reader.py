"""The table reader on rendered frames from several camera poses, with the shipped ONNX model.

Each frame is calibrated from its own markers (the whole chain), then read: every river tile
(in order, with the riichi tile sideways), the dora indicator, the stack count of every wall
slot, each meld with its source, the revealed hand; and bad input gives clear errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.fixtures.frames import TEST_POSES, rendered
from vision.calibration import Calibration, calibrate
from vision.decode import TileGuess
from vision.layout import load_profile
from vision.reader import ReaderError, TableReader


@pytest.fixture(scope="module")
def views(tile_model):
    out = {}
    for pose in TEST_POSES:
        rt = rendered(pose)
        out[pose] = (rt, TableReader(rt.profile, rt.calibration, tile_model).read(rt.frame))
    return out


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_every_river_tile_is_read_in_order_with_the_riichi_tile(views, pose):
    rt, view = views[pose]
    for seat, river in rt.state.rivers.items():
        got = [(t.tile, t.is_sideways) for t in view.rivers[seat]]
        assert got == river, f"seat {seat}"
        assert all(t.confidence > 0.5 for t in view.rivers[seat])


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_dora_indicator_and_every_stack_count(views, pose):
    rt, view = views[pose]
    assert [(i.wall, i.stack, i.tile.tile) for i in view.indicators] == [(1, 12, "3p")]
    assert view.walls == {w: tuple(c) for w, c in rt.state.walls.items()}
    assert view.sticks == {0, 2}


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_melds_with_their_source_and_closed_kan_backs(views, pose):
    _, view = views[pose]
    melds = {s: [(m.kind, tuple(t.tile for t in m.tiles), m.sideways, m.added.tile if m.added else None, m.source)
                 for m in ms] for s, ms in view.melds.items()}
    assert melds == {
        0: [("pon", ("5m", "5m", "5m"), 0, None, 3)],
        1: [("chi", ("3p", "4p", "5p"), 0, None, 0), ("ankan", ("back", "9s", "9s", "back"), None, None, None)],
        2: [("daiminkan", ("7p", "7p", "7p", "7p"), 3, None, 3)],
        3: [("kakan", ("6s", "6s", "6s"), 1, "6s", 1)],
    }


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_the_revealed_hand_and_no_standing_hand(views, pose):
    rt, view = views[pose]
    assert {s: [t.tile for t in r] for s, r in view.revealed.items()} == {2: rt.state.revealed[2]}
    assert {s: t.tile for s, t in view.win_tiles.items()} == {2: "6z"}     # set apart at the right end
    assert view.flowers == {}


def test_a_revealed_row_without_a_tile_set_apart_has_no_winning_tile(tile_model):
    rt = rendered("top")
    st = rt.state.copy()
    st.win_apart = set()
    view = TableReader(rt.profile, rt.calibration, tile_model).read(rt.renderer.render(st, seed=21))
    assert [t.tile for t in view.revealed[2]] == st.revealed[2]
    assert view.win_tiles == {}


def test_view_as_json_names_everything(views):
    _, view = views["top"]
    data = view.to_json()
    assert data["indicators"][0]["tile"] == "3p" and data["indicators"][0]["stack"] == 12
    assert data["rivers"]["0"][7] == {"tile": "2s", "confidence": pytest.approx(data["rivers"]["0"][7]["confidence"]),
                                      "sideways": True}
    assert data["melds"]["3"][0]["added"]["tile"] == "6s"
    assert data["win_tiles"]["2"]["tile"] == "6z"
    assert data["sticks"] == [0, 2]


def test_bad_frames_are_clear_errors(tile_model):
    rt = rendered("top")
    reader = TableReader(rt.profile, rt.calibration, tile_model)
    with pytest.raises(ReaderError, match=r"frame is 640x360, the calibration was made for 1280x720"):
        reader.read(np.zeros((360, 640, 3), np.uint8))
    with pytest.raises(ReaderError, match="expected a BGR uint8 frame"):
        reader.read(np.zeros((720, 1280), np.uint8))
    with pytest.raises(ReaderError, match="expected a BGR uint8 frame"):
        reader.read(None)
    # a frame of something else entirely reads as an empty table, not a crash
    view = reader.read(np.full((720, 1280, 3), 200, np.uint8))
    assert all(len(r) == 0 for r in view.rivers.values())


def test_a_calibration_for_another_table_is_refused(tile_model):
    rt = rendered("top")
    other = Calibration("hk144", rt.calibration.camera, rt.calibration.marker_ids, 0.1)
    with pytest.raises(Exception, match="made for table profile 'hk144', the table uses 'riichi4'"):
        TableReader(load_profile("riichi4"), other, tile_model)


@pytest.mark.parametrize(("profile_name", "pose"), [("hk144", "top"), ("sanma", "top"), ("hk144", "tilt15"),
                                                     ("sanma", "tilt12_turned")])
def test_other_tables_walls_rivers_and_flowers(tile_model, profile_name, pose):
    from hardware.sim.scene import TableState
    from tests.fixtures.frames import renderer_for

    r = renderer_for(profile_name, pose)
    st = TableState.full_walls(r.layout)
    st.walls[0][:5] = [0, 0, 1, 2, 2]
    st.rivers = {0: [("2z", False), ("8p", False)], 2: [("1s", False)]}
    if profile_name == "hk144":
        st.flowers = {1: ["1f", "6f", "8f"]}
    st.standing = {0: 13, 1: 13, 2: 13}
    frame = r.render(st, seed=9)
    view = TableReader(r.profile, calibrate(frame, r.profile), tile_model).read(frame)
    assert view.walls == {w: tuple(c) for w, c in st.walls.items()}
    assert {s: [t.tile for t in rv] for s, rv in view.rivers.items() if rv} == {0: ["2z", "8p"], 2: ["1s"]}
    assert {s: [t.tile for t in f] for s, f in view.flowers.items()} == {k: list(v) for k, v in st.flowers.items()}


class Counting:
    """A classifier that answers 1m to every crop and counts the crops it is given."""

    def __init__(self):
        self.seen = 0

    def classify(self, crops):
        self.seen += len(crops)
        return [TileGuess("1m", 0.9, 0) for _ in crops]


def test_reuse_crops_classifies_only_what_changed():
    """The daemon's loop mode: a tile that looks as before keeps its answer (classifier calls counted)."""
    rt = rendered("top")
    clf = Counting()
    reader = TableReader(rt.profile, rt.calibration, clf, reuse_crops=True)
    first = reader.read(rt.frame).tiles_classified
    # every place once (this table's revealed hand is parsed as a meld row too: 71 tiles at 62 places)
    assert clf.seen == first > 40
    again = rt.renderer.render(rt.state, seed=77)          # other noise and light, same table
    reader.read(again)
    assert clf.seen == first
    moved = rt.state.copy()
    moved.rivers[2] = moved.rivers[2] + [("9p", False)]
    reader.read(rt.renderer.render(moved, seed=78))
    assert first + 1 <= clf.seen <= first + 3     # the new tile (and a neighbour whose crop it enters)


@pytest.mark.parametrize("shift_mm, classified_anew", [(1.0, False), (13.0, True)])
def test_reuse_crops_keeps_the_answers_of_a_row_found_a_step_further_on(shift_mm, classified_anew):
    """The scan of a meld or hand row may start a step (1 mm) further on in one frame than in the next:
    its tiles, each at a place 1 mm off, keep their answers (they look the same); places further off
    are other places, classified anew."""
    from vision.layout import TileRect

    rt = rendered("top")
    clf = Counting()
    reader = TableReader(rt.profile, rt.calibration, clf, reuse_crops=True)
    reader.read(rt.frame)
    places = [place for _thumb, _answer, place in reader._crop_cache.values()]
    seen = clf.seen
    moved = [TileRect(tuple((x + shift_mm, y) for x, y in r.corners), r.z_mm) for r in places]
    reader._classify(moved)
    assert clf.seen - seen == (len(moved) if classified_anew else 0)
    assert len(reader._crop_cache) == len(moved)      # kept at the places they now lie


def test_reuse_crops_forgets_a_place_left_empty():
    """A river tile taken by a call leaves its place empty; the discarder's next tile lands there and
    must be classified anew, even one that looks alike in a thumbnail (the daemon's rendered games
    read a 6m put where a called 7m lay as the 7m: a fifth 7m)."""
    from vision.decode import TileGuess

    class Answering:
        face = "7m"

        def classify(self, crops):
            return [TileGuess(self.face, 0.9, 0) for _ in crops]

    rt = rendered("top")
    clf = Answering()
    reader = TableReader(rt.profile, rt.calibration, clf, reuse_crops=True)
    placed = rt.state.copy()
    placed.rivers[2] = placed.rivers[2] + [("9p", False)]
    assert reader.read(rt.renderer.render(placed, seed=1)).rivers[2][-1].tile == "7m"
    clf.face = "6m"                                          # what the classifier says of a new crop now
    taken = reader.read(rt.renderer.render(rt.state, seed=2))        # the place is empty
    assert len(taken.rivers[2]) == len(placed.rivers[2]) - 1
    again = reader.read(rt.renderer.render(placed, seed=3))          # a tile put there again
    assert again.rivers[2][-1].tile == "6m"                  # read anew, not the answer of the tile before


@pytest.mark.parametrize("pose", ["tilted", "tilt15_askew"])
def test_a_tile_of_the_other_set_is_seen_in_the_walls(tile_model, pose):
    rt = rendered(pose)
    st = rt.state.copy()
    st.other_backs = {(2, 5): "yellow", (0, 3): "orange"}
    frame = rt.renderer.render(st, seed=12)
    view = TableReader(rt.profile, rt.calibration, tile_model).read(frame)
    seen = {(w, i, c) for w, row in view.other_backs.items() for i, c in enumerate(row, start=1) if c}
    assert seen == {(2, 5, "yellow"), (0, 3, "orange")}
    assert view.walls == {w: tuple(c) for w, c in st.walls.items()}
