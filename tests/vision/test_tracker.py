"""The tracker: votes over views, emits the game's events. Unit tests on views; the rendered
hand (real frames, the real ONNX model) is in test_tracker_rendered.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

from controller.events import (
    Discard,
    DiscardRemoved,
    FlowerSetAside,
    HandRevealed,
    IndicatorRevealed,
    Meld,
    WallBack,
    WallStackTaken,
)
from vision.reader import Indicator, SeenMeld, SeenTile, TableView
from vision.tracker import TableTracker


def view(rivers=None, walls=None, indicators=(), melds=None, revealed=None, flowers=None) -> TableView:
    def tiles(spec):
        return tuple(SeenTile(t.rstrip("*"), 0.99, t.endswith("*")) for t in spec)
    return TableView(
        walls={w: tuple(c) for w, c in (walls or {0: [2] * 17}).items()},
        indicators=tuple(Indicator(w, s, SeenTile(t, 0.99)) for w, s, t in indicators),
        rivers={s: tiles(r) for s, r in (rivers or {}).items()},
        melds={s: tuple(m) for s, m in (melds or {}).items()},
        revealed={s: tiles(r) for s, r in (revealed or {}).items()},
        flowers={s: tiles(r) for s, r in (flowers or {}).items()},
    )


def feed(tracker, views, t0=0.0):
    events = []
    for i, v in enumerate(views):
        events += tracker.update(v, now=t0 + i * 0.1)
    return events


def test_a_discard_is_reported_once_after_three_of_five_views():
    tr = TableTracker(k=5)
    evs = feed(tr, [view({0: []})] * 3 + [view({0: ["5p"]})] * 2)
    assert evs == []
    evs = feed(tr, [view({0: ["5p"]})] * 4, t0=1.0)
    assert evs == [Discard(seat=0, tile="5p", now=1.0)]


def test_riichi_sideways_and_game_seat_mapping():
    tr = TableTracker(k=3, first_dealer_position=2)
    assert [tr.seat(p) for p in range(4)] == [2, 3, 0, 1] and tr.position(tr.seat(3)) == 3
    evs = feed(tr, [view({2: ["1m", "7z*"], 3: ["9s"]})] * 3)
    assert [(e.seat, e.tile, e.is_riichi) for e in evs] == [(0, "1m", False), (0, "7z", True), (1, "9s", False)]


def test_a_single_misread_or_lost_frame_does_not_reach_the_game():
    tr = TableTracker(k=5)
    good = view({0: ["1m", "2m"]})
    evs = feed(tr, [good] * 5)
    assert len(evs) == 2
    evs = feed(tr, [view({0: ["1m", "3m"]}), good, None, view({0: ["1m"]}), good, good])
    assert evs == []


def test_two_percent_misreads_over_a_long_hand_give_exactly_the_script():
    rng = random.Random(4)
    kinds = ["1m", "2p", "3s", "4z", "5m", "0p", "6z", "7s", "8m", "9p"]
    script = [(s, kinds[(3 * i + s) % len(kinds)]) for i in range(12) for s in range(4)]
    tr = TableTracker(k=5)
    rivers = {s: [] for s in range(4)}
    events = []
    t = 0.0
    for seat, tile in script:
        rivers[seat].append(tile)
        for _ in range(6):            # six frames per discard
            t += 0.1
            if rng.random() < 0.02:
                events += tr.update(None, now=t)
                continue
            shown = {s: list(r) for s, r in rivers.items()}
            for s in shown:
                for i in range(len(shown[s])):
                    if rng.random() < 0.02:
                        shown[s][i] = "1s" if shown[s][i] != "1s" else "2s"
                if shown[s] and rng.random() < 0.02:
                    shown[s].pop()    # lost under a hand
            events += tr.update(view(shown), now=t)
    assert [(e.seat, e.tile) for e in events] == script
    assert all(isinstance(e, Discard) for e in events)


def test_wall_stacks_taken_one_tile_at_a_time_and_a_new_hand_resets():
    tr = TableTracker(k=3)
    full = [2] * 17
    feed(tr, [view(walls={1: full})] * 3)
    taken = list(full)
    taken[0], taken[1] = 0, 1
    evs = feed(tr, [view(walls={1: taken})] * 3, t0=1.0)
    assert [(e.wall, e.stack, e.tiles_left) for e in evs] == [(1, 1, 1), (1, 1, 0), (1, 2, 1)]
    assert all(isinstance(e, WallStackTaken) for e in evs)
    # walls raised again for the next hand: nothing to report
    assert feed(tr, [view(walls={1: full})] * 4, t0=2.0) == []
    taken = list(full)
    taken[5] = 1
    assert [(e.stack, e.tiles_left) for e in feed(tr, [view(walls={1: taken})] * 3, t0=3.0)] == [(6, 1)]


def test_indicator_melds_reveal_and_flowers():
    tr = TableTracker(k=3)
    pon = SeenMeld(tuple(SeenTile("5m", 0.9, i == 0) for i in range(3)), "pon", 0, None, 3)
    kakan = SeenMeld(pon.tiles, "kakan", 0, SeenTile("0m", 0.9, True), 3)
    ankan = SeenMeld((SeenTile("back", 0.9), SeenTile("9s", 0.9), SeenTile("9s", 0.9), SeenTile("back", 0.9)),
                     "ankan")
    evs = feed(tr, [view(indicators=[(1, 11, "3p")], melds={0: [pon], 2: [ankan]},
                         flowers={3: ["1f", "6f"]})] * 3)
    assert IndicatorRevealed(wall=1, stack=11, tile="3p", now=0.1) in evs
    assert Meld(seat=0, meld_kind="pon", tiles=("5m", "5m", "5m"), called="5m", source=3, now=0.1) in evs
    assert Meld(seat=2, meld_kind="ankan", tiles=("9s", "9s", "9s", "9s"), now=0.1) in evs
    assert [e.tile for e in evs if isinstance(e, FlowerSetAside)] == ["1f", "6f"]
    evs = feed(tr, [view(indicators=[(1, 11, "3p")], melds={0: [kakan], 2: [ankan]},
                         revealed={1: ["1p", "2p", "3p", "5z", "5z"] + ["2s", "3s", "4s", "6m", "7m", "8m", "1z", "1z"],
                                   0: ["1m", "2m"]}, flowers={3: ["1f", "6f"]})] * 3, t0=1.0)
    assert Meld(seat=0, meld_kind="kakan", tiles=("5m", "5m", "5m", "0m"), called="0m", source=3, now=1.1) in evs
    assert HandRevealed(seat=1, tiles=("1p", "2p", "3p", "5z", "5z", "2s", "3s", "4s", "6m", "7m", "8m", "1z", "1z"),
                        now=1.1) in evs
    assert len(evs) == 2   # seat 0 shows 2 tiles next to 1 meld: not a whole hand (it waits)


def test_a_called_discard_leaves_the_river_without_a_removal_event():
    tr = TableTracker(k=3)
    feed(tr, [view({1: ["2m", "6p"]})] * 3)
    chi = SeenMeld((SeenTile("6p", 0.9, True), SeenTile("7p", 0.9), SeenTile("8p", 0.9)), "chi", 0, None, 1)
    evs = feed(tr, [view({1: ["2m"]}, melds={2: [chi]})] * 3, t0=1.0)
    assert evs == [Meld(seat=2, meld_kind="chi", tiles=("6p", "7p", "8p"), called="6p", source=1, now=1.1)]
    # a tile that vanishes with no meld is taken back, once it stays gone for the hold's views
    evs = feed(tr, [view({1: []}, melds={2: [chi]})] * 3, t0=2.0)
    assert evs == []
    evs = feed(tr, [view({1: []}, melds={2: [chi]})] * tr.hold, t0=3.0)
    assert [(type(e), e.tile) for e in evs] == [(DiscardRemoved, "2m")]


def test_a_meld_read_frames_after_its_tile_left_the_river_is_a_call_not_a_take_back():
    """Continuous video: the caller's arm hides the meld while the river already shows the tile gone."""
    tr = TableTracker(k=3)
    feed(tr, [view({1: ["2m", "6p"]})] * 3)
    evs = feed(tr, [view({1: ["2m"]})] * (tr.hold - 1), t0=1.0)     # the meld not readable yet
    assert evs == []
    chi = SeenMeld((SeenTile("6p", 0.9, True), SeenTile("7p", 0.9), SeenTile("8p", 0.9)), "chi", 0, None, 1)
    evs = feed(tr, [view({1: ["2m"]}, melds={2: [chi]})] * 3, t0=5.0)
    assert [type(e) for e in evs] == [Meld]
    evs = feed(tr, [view({1: ["2m", "3s"]}, melds={2: [chi]})] * 3, t0=6.0)
    assert [(type(e), e.tile) for e in evs] == [(Discard, "3s")]


def test_a_discard_called_before_it_could_be_read_is_reported_before_its_meld():
    """A daiminkan at once: the 7p lay in two views only (under the caller's arm in the others),
    too few to vote it in; the meld that took it from seat 0 proves it was laid. It reaches the
    game before the meld, in its place in discard order, and is not taken back later."""
    tr = TableTracker(k=5)
    feed(tr, [view({0: ["2m"]})] * 5)
    assert feed(tr, [view({0: ["2m", "7p"]})] * 2, t0=1.0) == []
    kan = SeenMeld(tuple(SeenTile("7p", 0.9, i == 3) for i in range(4)), "daiminkan", 3, None, 0)
    evs = feed(tr, [view({0: ["2m"]}, melds={3: [kan]})] * 4, t0=2.0)
    assert [(type(e), e.seat, getattr(e, "tile", None)) for e in evs] == [(Discard, 0, "7p"), (Meld, 3, None)]
    assert evs[1].called == "7p" and evs[1].source == 0
    # the seat's next discard takes the place after it, and a re-read of it names that place
    evs = feed(tr, [view({0: ["2m", "9s"]}, melds={3: [kan]})] * 5 + [view({0: ["2m", "8s"]}, melds={3: [kan]})] * 5,
               t0=3.0)
    assert [(type(e), getattr(e, "index", None)) for e in evs] == [(Discard, None), (DiscardRemoved, 2)]
    assert feed(tr, [view({0: ["2m", "8s"]}, melds={3: [kan]})] * 3 * tr.hold, t0=5.0) == []


def test_the_callers_discard_waits_for_its_call_to_be_read():
    """A pon read late (the caller's arm over the meld): the caller's discard, already in its
    river, reaches the game after the meld, so the call takes the right discard."""
    tr = TableTracker(k=3)
    feed(tr, [view({3: ["7p"]})] * 3)
    evs = feed(tr, [view({3: [], 0: ["5p"]})] * 4, t0=1.0)      # the meld not readable yet
    assert evs == []
    pon = SeenMeld((SeenTile("7p", 0.9), SeenTile("7p", 0.9), SeenTile("7p", 0.9, True)), "pon", 2, None, 3)
    evs = feed(tr, [view({3: [], 0: ["5p"]}, melds={0: [pon]})] * 3, t0=2.0)
    assert [(type(e), getattr(e, "tile", None) or e.called) for e in evs] == [(Meld, "7p"), (Discard, "5p")]


def test_a_discard_held_for_a_call_goes_out_before_the_next_wall_take():
    """No meld comes (yet) for the tile that left the river, and the next player draws: the discard
    held meanwhile is reported before that take (the game went on)."""
    tr = TableTracker(k=3)
    walls = {0: [2] * 17}
    feed(tr, [view({3: ["7p"]}, walls=walls)] * 3)
    evs = feed(tr, [view({3: [], 0: ["5p"]}, walls=walls)] * 3, t0=1.0)
    assert evs == []
    evs = feed(tr, [view({3: [], 0: ["5p"]}, walls={0: [1] + [2] * 16})] * 3, t0=2.0)
    assert [type(e) for e in evs] == [Discard, WallStackTaken]
    # the tile that left is still counted as taken back once the hold's views agree
    evs = feed(tr, [view({3: [], 0: ["5p"]}, walls={0: [1] + [2] * 16})] * tr.hold, t0=3.0)
    assert [(type(e), e.tile) for e in evs] == [(DiscardRemoved, "7p")]


def test_a_tile_taken_back_whose_place_fills_again_keeps_the_order_of_play():
    """A seat discards out of turn (7p) and takes the tile back; the seat on turn discards (5p,
    held while the 7p's place stood empty), the first seat draws and lays its own discard (3s)
    in the 7p's place, all within one update: the 5p comes before the draw and the place read as
    another tile, so the game sees the turns in the order they were played."""
    tr = TableTracker(k=3)
    feed(tr, [view({3: ["1m", "7p"]}, walls={0: [2] * 17})] * 3)
    assert feed(tr, [view({3: ["1m"], 0: ["5p"]}, walls={0: [2] * 17})] * 3, t0=1.0) == []
    evs = feed(tr, [view({3: ["1m", "3s"], 0: ["5p"]}, walls={0: [1] + [2] * 16})] * 3, t0=2.0)
    assert [(type(e).__name__, getattr(e, "tile", None)) for e in evs] == [
        ("Discard", "5p"), ("WallStackTaken", None), ("DiscardRemoved", "7p")]
    assert evs[2].replaced_by == "3s"


def test_a_tile_re_read_as_another_is_a_replacement():
    tr = TableTracker(k=3)
    feed(tr, [view({0: ["4p"]})] * 3)
    evs = feed(tr, [view({0: ["5p"]})] * 3, t0=1.0)
    assert evs == [DiscardRemoved(seat=0, index=0, tile="4p", replaced_by="5p", now=1.1)]


def test_unsure_tiles_wait_and_bad_settings_are_refused():
    tr = TableTracker(k=3)
    unsure = TableView(rivers={0: (SeenTile("7s", 0.2),)}, walls={})
    assert feed(tr, [unsure] * 3) == []
    with pytest.raises(ValueError, match="k is 0"):
        TableTracker(k=0)
    with pytest.raises(ValueError, match="need is 9"):
        TableTracker(k=5, need=9)


def test_the_watcher_survives_a_lost_camera_and_bad_frames():
    from hardware.sim.scene import TableState
    from tests.fixtures.frames import renderer_for
    from vision.camera import CameraStatus, RenderedCamera
    from vision.classifier import ScriptedClassifier
    from vision.reader import TableReader
    from vision.tracker import TableWatcher

    r = renderer_for("riichi4", "top")
    full = TableState.full_walls(r.layout)
    taken = full.copy()
    taken.walls[2][0] = 1
    cam = RenderedCamera(r, lambda now: full if now < 1.0 else taken, drop_frames=[(0.5, 0.8)])
    watcher = TableWatcher(cam, TableTracker(k=3), lambda cal: TableReader(r.profile, cal, ScriptedClassifier([])),
                           profile=r.profile)
    events = []
    for i in range(16):
        events += watcher.poll(now=i * 0.1)
        if 5 <= i < 8:
            assert watcher.status().camera == "camera lost"
    assert watcher.status().is_calibrated and watcher.status().camera == "ok"
    assert [(e.wall, e.stack, e.tiles_left) for e in events] == [(2, 1, 1)]

    class WrongSize:   # a camera that switched mode: frames of another size
        def read(self, now):
            return np.zeros((480, 640, 3), np.uint8)

        def status(self):
            return CameraStatus("ok", "fake", 1)

    watcher.camera = WrongSize()
    assert watcher.poll(now=5.0) == []
    assert "frame is 640x480, the calibration was made for 1280x720" in watcher.status().error


def test_a_tile_of_the_other_set_in_the_walls_is_reported_once():
    tr = TableTracker(k=3, first_dealer_position=1)
    odd = TableView(walls={2: (2,) * 17}, other_backs={2: ("",) * 4 + ("yellow",) + ("",) * 12})
    plain_view = TableView(walls={2: (2,) * 17}, other_backs={2: ("",) * 17})
    assert feed(tr, [plain_view, odd]) == []
    evs = feed(tr, [odd] * (tr.hold + 2), t0=1.0)
    assert evs == [WallBack(wall=1, stack=5, colour="yellow", now=1.0 + (tr.hold - 2) * 0.1)]


def test_the_winning_tile_set_apart_is_voted_with_the_revealed_hand():
    import dataclasses

    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2p", "3p", "4p"]
    apart = dataclasses.replace(view(revealed={2: hand}), win_tiles={2: SeenTile("4p", 0.97)})
    together = view(revealed={2: hand})
    tr = TableTracker(k=5, first_dealer_position=1)
    # one frame caught the tile before it was set apart: the majority (set apart) decides
    evs = feed(tr, [together, apart, apart, apart])
    assert [(e.seat, e.tiles, e.win_tile) for e in evs if isinstance(e, HandRevealed)] == [(1, tuple(hand), "4p")]
    assert len(evs) == 1
    tr = TableTracker(k=3)
    assert feed(tr, [together] * 3) == [HandRevealed(seat=2, tiles=tuple(hand), now=0.1)]


def test_a_revealed_hand_read_otherwise_by_most_later_views_is_reported_again():
    hand = ["1m", "3m", "6m", "6m", "4p", "5p", "6p", "7p", "8p", "9p", "4s", "5s", "6s"]
    misread = hand[:11] + ["7s"] + hand[12:]
    tr = TableTracker(k=5)
    evs = feed(tr, [view(revealed={0: misread})] * 3)         # a doubtful 5s read alike in three frames
    assert [e.tiles for e in evs] == [tuple(misread)]
    evs = feed(tr, [view(revealed={0: hand})] * 2, t0=1.0)    # two of five: not yet
    assert evs == []
    evs = feed(tr, [view(revealed={0: hand})] * 3, t0=2.0)    # most views now read 5s
    assert [(e.seat, e.tiles) for e in evs] == [(0, tuple(hand))]
    assert feed(tr, [view(revealed={0: hand})] * 5, t0=3.0) == []            # no news after that
    assert feed(tr, [view(revealed={0: hand[:12]})] * 5, t0=4.0) == []       # nor from a row cut short


def test_an_indicator_that_changes_during_play_is_reported_again_not_as_ura():
    tr = TableTracker(k=3)
    evs = feed(tr, [view(indicators=[(1, 11, "3p")])] * 3)
    assert [(e.tile, e.is_ura) for e in evs if isinstance(e, IndicatorRevealed)] == [("3p", False)]
    evs = feed(tr, [view(indicators=[(1, 11, "3p")])] + [view(indicators=[(1, 11, "4p")])] * 3, t0=1.0)
    assert [(e.wall, e.stack, e.tile, e.is_ura) for e in evs if isinstance(e, IndicatorRevealed)] == [(1, 11, "4p", False)]


def test_an_ura_turned_before_the_revealed_hand_settles_waits_for_the_hand_and_is_the_ura():
    """Recorded game 2023053016gm-0029 hand 9 with candidate 13: the winner's hand lay face up with a
    doubtful tile, the ura under the dora indicator settled first and went out as a moved indicator
    (``is_ura`` False), which the game ignores after a win: the result waited for the ura for ever."""
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2z", "2z", "5s", "5s", "5s"]
    doubtful = hand[:5] + ["none"] + hand[6:]
    ind = [(1, 7, "3m")]
    tr = TableTracker(k=5)
    assert [(e.tile, e.is_ura) for e in feed(tr, [view(indicators=ind)] * 5)] == [("3m", False)]
    ura = [(1, 7, "9m")]
    evs = feed(tr, [view(indicators=ura, revealed={2: doubtful})] * 8, t0=1.0)
    assert evs == []                                   # neither the hand nor the ura is reported yet
    evs = feed(tr, [view(indicators=ura, revealed={2: hand})] * 3, t0=2.0)
    assert [type(e).__name__ for e in evs] == ["HandRevealed", "IndicatorRevealed"]
    assert (evs[1].wall, evs[1].stack, evs[1].tile, evs[1].is_ura) == (1, 7, "9m", True)
    assert feed(tr, [view(indicators=ura, revealed={2: hand})] * 5, t0=3.0) == []


def test_a_stray_row_read_as_a_revealed_hand_in_one_view_does_not_hold_a_moved_indicator():
    tr = TableTracker(k=5)
    feed(tr, [view(indicators=[(1, 11, "3p")])] * 5)
    stray = view(indicators=[(1, 11, "4p")], revealed={1: ["2m", "3m", "4m"]})
    evs = feed(tr, [stray] + [view(indicators=[(1, 11, "4p")])] * 2, t0=1.0)
    assert [(e.tile, e.is_ura) for e in evs if isinstance(e, IndicatorRevealed)] == [("4p", False)]


def test_an_ura_beside_a_hand_that_never_settles_goes_out_as_the_ura_after_three_holds():
    hand = ["1m", "2m", "3m", "4p", "5p", "none", "7s", "8s", "9s", "2z", "2z", "5s", "5s", "5s"]
    tr = TableTracker(k=3)                             # hold = 6 views
    feed(tr, [view(indicators=[(0, 5, "7z")])] * 3)
    views = [view(indicators=[(0, 5, "1z")], revealed={0: hand})] * (3 * tr.hold + 1)
    evs = [(i, e) for i, v in enumerate(views) for e in tr.update(v, now=float(i))]
    assert [(e.tile, e.is_ura) for _, e in evs] == [("1z", True)]
    assert evs[0][0] >= 3 * tr.hold - 1                # it waited for the hand that long


def test_a_riichi_stick_is_reported_once_when_most_views_see_it():
    import dataclasses

    from controller.events import RiichiStick

    tr = TableTracker(k=5, first_dealer_position=2)
    plain_view = view()
    stick = dataclasses.replace(plain_view, sticks=frozenset({3}))
    assert feed(tr, [plain_view, stick, plain_view, stick, plain_view]) == []     # 2 of 5: not yet
    evs = feed(tr, [stick, stick], t0=1.0)
    assert [(type(e), e.seat) for e in evs] == [(RiichiStick, 1)]
    assert feed(tr, [stick, plain_view, stick, stick], t0=2.0) == []             # once a hand


def test_a_revealed_hand_of_the_wrong_size_is_reported_once_it_lies_unchanged():
    tr = TableTracker(k=3)
    twelve = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "2z"]
    evs = feed(tr, [view({}, revealed={0: twelve[:8]})] * 3 + [view({}, revealed={0: twelve})] * (tr.hold - 1))
    assert evs == []                                    # still being laid down, or not yet long enough
    evs = feed(tr, [view({}, revealed={0: twelve})] * 2, t0=5.0)
    assert [(type(e), len(e.tiles)) for e in evs] == [(HandRevealed, 12)]


def test_an_arm_over_a_wall_now_and_then_is_not_a_tile_of_the_other_set():
    """Seen in default runs: an arm reaching over the middle of a wall, two frames at a time, four
    frames apart, was voted 3 of 5 as "the other set's back (orange)" and held the hand's result."""
    tr = TableTracker(k=5)
    arm = TableView(walls={1: (2,) * 17}, other_backs={1: ("",) * 8 + ("orange",) + ("",) * 8})
    plain_view = TableView(walls={1: (2,) * 17}, other_backs={1: ("",) * 17})
    assert feed(tr, [arm, arm, plain_view, plain_view] * 6) == []
    # a camera running slow sees the arm of a seat dealing itself four tiles in every frame a while
    assert feed(tr, ([arm] * 8 + [plain_view]) * 3, t0=3.0) == []
    # a tile that stands there is reported once ``hold`` views in a row all see it
    odd = TableView(walls={1: (2,) * 17}, other_backs={1: ("",) * 8 + ("yellow",) + ("",) * 8})
    evs = feed(tr, [odd] * tr.hold, t0=6.0)
    assert evs == [WallBack(wall=1, stack=9, colour="yellow", now=6.0 + (tr.hold - 1) * 0.1)]


def test_resumed_mid_hand_what_the_game_knows_is_not_reported_again():
    """The daemon started again mid-hand: the tracker starts from the game's rivers, melds and
    sticks (by game seat); only what changes after that is reported."""
    tr = TableTracker(k=3, first_dealer_position=1)
    pon = SeenMeld((SeenTile("5z", 0.9), SeenTile("5z", 0.9, True), SeenTile("5z", 0.9)), "pon", 1, None, 0)
    tr.resume(rivers={3: [("1m", False), ("9p", True)], 0: [("2s", False)]}, melds={0: ["pon"]}, sticks={3})
    table = view({0: ["1m", "9p*"], 1: ["2s"]}, melds={1: [pon]})
    table = TableView(**{**table.__dict__, "sticks": frozenset({0})})
    assert feed(tr, [table] * 4) == []
    later = view({0: ["1m", "9p*"], 1: ["2s", "3s"]}, melds={1: [pon]})
    assert feed(tr, [later] * 3, t0=1.0) == [Discard(seat=0, tile="3s", now=1.1)]


def test_a_discard_re_read_after_a_call_names_its_place_in_discard_order():
    """``DiscardRemoved.index`` counts the tiles called away (the game's river keeps them): seen in
    a default run, a 2m first read as 3m after a chi was corrected at the called tile's place, the
    correction was dropped, and the false 3m made a "fifth tile" that held the result."""
    tr = TableTracker(k=3)
    feed(tr, [view({1: ["2m", "6p"]})] * 3)
    chi = SeenMeld((SeenTile("6p", 0.9, True), SeenTile("7p", 0.9), SeenTile("8p", 0.9)), "chi", 0, None, 1)
    feed(tr, [view({1: ["2m"]}, melds={2: [chi]})] * 3, t0=1.0)
    feed(tr, [view({1: ["2m", "3m"]}, melds={2: [chi]})] * 3, t0=2.0)
    evs = feed(tr, [view({1: ["2m", "2m"]}, melds={2: [chi]})] * 3, t0=3.0)
    assert evs == [DiscardRemoved(seat=1, index=2, tile="3m", replaced_by="2m", now=3.1)]
    # started again mid-hand with the called place known, the same
    tr2 = TableTracker(k=3)
    tr2.resume(rivers={1: [("2m", False), ("3m", False)]}, melds={2: ["chi"]}, called={1: [1]})
    assert feed(tr2, [view({1: ["2m", "3m"]}, melds={2: [chi]})] * 3) == []
    evs = feed(tr2, [view({1: ["2m", "2m"]}, melds={2: [chi]})] * 3, t0=1.0)
    assert evs == [DiscardRemoved(seat=1, index=2, tile="3m", replaced_by="2m", now=1.1)]
