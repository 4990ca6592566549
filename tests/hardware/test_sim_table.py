"""The simulated table performing a scripted game (``hardware.sim.table``, ``table_eyes``, ``table_part``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller import events as ev
from hardware.sim import script as sim_script
from hardware.sim.table import VISIBLE_OPS, SimTable, SimTableError
from hardware.sim.table_eyes import ViewTracker, perfect_view
from hardware.sim.table_part import BUTTON_PINS, SimTablePart, frame_breaks

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / ".." / "shared" / "samples" / "tenhou"
RINSHAN = SAMPLES / "mjai-reviewer__rinshan.json"            # a kan, its replacement tile and kan indicator
NAKIS = SAMPLES / "mjai-reviewer__confusing_nakis_6.json"    # chi, pon, kans


def script_of(path: Path, *injects: str) -> sim_script.Script:
    if not path.is_file():
        pytest.fail(f"recorded game {path} is missing (the shared samples sit beside the repo)")
    return sim_script.load_script(str(path), injects=[sim_script.parse_inject(i) for i in injects])


def tiles_on_table(table: SimTable) -> int:
    st = table.scene
    n = sum(sum(c) for c in st.walls.values()) + sum(st.standing.values())
    n += sum(len(r) for r in st.rivers.values()) + sum(len(r) for r in st.revealed.values())
    for melds in st.melds.values():
        n += sum(len(m.tiles) + (m.added is not None) for m in melds)
    return n


def play_alone(table: SimTable, on_op=None) -> None:
    """Act the script out without an MCU: the lift and the dice are reported as the table asks."""
    while not table.finished:
        if table.waiting_for() == "lift_done":
            hand = table.prepare_lift()
            table.on_lift_done(tuple(table.lift_counts(hand)[1]))
        elif table.waiting_for() == "dice_result":
            table.on_dice(table.prepare_roll(0, 2))
        op = table.step()
        if on_op is not None and op is not None:
            on_op(op)


@pytest.mark.parametrize("path", [RINSHAN, NAKIS])
def test_every_tile_stays_on_the_table_while_a_hand_is_played(path):
    script = script_of(path)
    table = SimTable(script)
    refills = []
    counts = []

    def check(op):
        if op["op"] == "refill":
            refills.append(op)        # the moved tile is not drawn at its new place
        if table.scene.walls:
            counts.append(tiles_on_table(table) + len(refills))

    play_alone(table, check)
    assert counts and set(counts) == {136}
    st = table.scene
    assert any(len(r) for r in st.rivers.values())
    assert table.applied == sum(len(h.actions) for h in script.hands)


def test_lift_shows_the_walls_the_mcu_counts_and_a_missing_tile():
    script = script_of(SAMPLES / "mjai-reviewer__ryukyoku.json", "missing_tile@0:3")
    table = SimTable(script)
    assert table.waiting_for() == "lift_done" and table.step() is None     # nothing moves before the MCU
    stacks, tiles = table.lift_counts(table.prepare_lift())
    assert tiles == [34, 34, 34, 33] and stacks == [17, 17, 17, 17]
    table.on_lift_done(tuple(tiles))
    assert table.step()["op"] == "lift"
    assert [sum(table.scene.walls[w]) for w in range(4)] == tiles
    assert 1 in table.scene.walls[3]


def test_melds_lie_with_the_called_tile_sideways_and_closed_kans_face_down():
    table = SimTable(script_of(NAKIS))
    play_alone(table)
    shapes = [m for melds in table.scene.melds.values() for m in melds]
    assert shapes
    for m in shapes:
        if m.sideways is None:
            assert m.tiles[0] == m.tiles[3] == "back"
        else:
            assert 0 <= m.sideways < len(m.tiles) and m.tiles[m.sideways] != "back"


def test_a_take_from_an_empty_stack_is_refused_naming_the_action():
    script = script_of(RINSHAN)
    table = SimTable(script)
    hand = table.prepare_lift()
    table.on_lift_done(tuple(table.lift_counts(hand)[1]))
    table.step()
    take = next(a for a in script.hands[0].actions if a["op"] == "take")
    table.scene.walls[take["wall"]][take["stack"] - 1] = 0
    table.on_dice(table.prepare_roll(0, 2))
    with pytest.raises(SimTableError, match=r"hand 0 action \d+: no tile left at wall"):
        for _ in range(10):
            table.step()


def test_the_tracker_on_perfect_views_reports_what_the_table_did():
    script = script_of(RINSHAN)
    table = SimTable(script)
    tracker = ViewTracker()
    seen: list[ev.Event] = []

    def look(op):
        if op["op"] == "press":
            tracker.on_button(op["seat"], op["action"])
        if op["op"] in VISIBLE_OPS:
            seen.extend(tracker.update(perfect_view(table.snapshot())))

    play_alone(table, look)
    acts = script.hands[0].actions
    discards = [(a["seat"], a["tile"], a["is_riichi"]) for a in acts if a["op"] == "discard"]
    assert [(e.seat, e.tile, e.is_riichi) for e in seen if isinstance(e, ev.Discard)] == discards
    takes = sum(1 for a in acts if a["op"] in ("take", "refill"))
    assert sum(1 for e in seen if isinstance(e, ev.WallStackTaken)) == takes
    melds = [(a["seat"], a["meld_kind"]) for a in acts if a["op"] == "meld"]
    assert [(e.seat, e.meld_kind) for e in seen if isinstance(e, ev.Meld)] == melds
    flips = [(a["wall"], a["stack"], a["tile"], a["is_ura"]) for a in acts if a["op"] == "flip"]
    assert [(e.wall, e.stack, e.tile, e.is_ura) for e in seen if isinstance(e, ev.IndicatorRevealed)] == flips
    reveal = next(a for a in acts if a["op"] == "reveal")
    shown = next(e for e in seen if isinstance(e, ev.HandRevealed))
    assert sorted(shown.tiles) == sorted(reveal["tiles"]) and shown.win_tile == reveal["win_tile"]


def test_frames_group_the_deal_and_a_draw_with_its_discard_only():
    take = {"op": "take", "seat": 1}
    assert not frame_breaks([], {"op": "discard", "seat": 1})
    assert not frame_breaks([take, take], take)
    assert not frame_breaks([take], {"op": "discard", "seat": 1})
    assert frame_breaks([take], {"op": "discard", "seat": 2})
    assert frame_breaks([take], {"op": "press", "seat": 1, "action": "tsumo"})
    assert frame_breaks([{"op": "discard", "seat": 1}], {"op": "meld", "seat": 2})


def test_mcu_raises_the_scripted_walls_and_shows_the_scripted_dice(sim_mcu):
    from firmware_bridge.table import SerialTable

    script = script_of(SAMPLES / "mjai-reviewer__ryukyoku.json", "missing_tile@0:3")
    table = SimTable(script, control=sim_mcu.control)

    async def run():
        serial = SerialTable.over(sim_mcu.port, link_timeout_s=3.0)
        await serial.start(timeout_s=15.0)
        try:
            table.prepare_lift()
            lifted = await serial.wall_lift.lift("all", timeout_s=30)
            dice = table.prepare_roll(script.hands[0].dealer, 2)
            shown = await serial.dice.roll(2, script.hands[0].dealer, timeout_s=30)
            return lifted, dice, shown
        finally:
            await serial.close()

    lifted, dice, shown = asyncio.run(run())
    assert lifted.tiles == (34, 34, 34, 33)
    assert dice == shown == tuple(script.hands[0].dice)


def test_seat_buttons_are_pressed_on_the_mock_pins():
    part = SimTablePart(RINSHAN, camera="perfect")
    posted: list[tuple[str, ev.Event]] = []
    part._post = lambda source, event: posted.append((source, event))
    part._setup_buttons()
    try:
        part._press(2, "ron")
        assert [(s, e.seat, e.action) for s, e in posted] == [("gpio", 2, "ron")]
        pin = part.factory.pin(BUTTON_PINS[(2, "ron")])
        assert pin.state == 1          # released again (active low, pulled up)
    finally:
        for button in part.buttons:
            button.close()


def test_a_tile_the_camera_cannot_name_yet_is_reported_once_it_is_read():
    from hardware.sim.scene import TableState
    from vision.reader import SeenTile, TableView

    state = TableState(walls={w: [2] * 17 for w in range(4)}, rivers={1: [("3p", False), ("7z", True)]})
    tracker = ViewTracker()
    tracker.update(perfect_view(state))
    state.rivers[1].append(("5s", False))
    truth = perfect_view(state)
    blurred = TableView(truth.walls, truth.indicators, {**truth.rivers, 1: truth.rivers[1][:2] + (SeenTile("none", 0.2),)},
                        truth.melds, truth.revealed)
    assert tracker.update(blurred) == [] and not tracker.is_settled
    events = tracker.update(truth)
    assert tracker.is_settled
    assert [(e.seat, e.tile, e.is_riichi) for e in events] == [(1, "5s", False)]


def test_a_wall_tile_of_the_other_set_is_reported_once_per_hand():
    from hardware.sim.scene import TableState

    tracker = ViewTracker()
    walls = {w: [2] * 17 for w in range(4)}
    state = TableState(walls=walls, other_backs={(2, 5): "yellow"})
    events = tracker.update(perfect_view(state))
    assert [(e.wall, e.stack, e.colour) for e in events if isinstance(e, ev.WallBack)] == [(2, 5, "yellow")]
    state.walls[0][0] = 1           # play goes on: the same tile is not news again
    assert not [e for e in tracker.update(perfect_view(state)) if isinstance(e, ev.WallBack)]


def test_the_other_set_s_tile_in_a_fault_script_stands_in_the_scene():
    table = SimTable(script_of(SAMPLES / "mjai-reviewer__ryukyoku.json", "other_back@0:2"))
    table.on_lift_done(tuple(table.lift_counts(table.prepare_lift())[1]))
    table.step()
    assert table.odd_backs and set(table.scene.other_backs) == table.odd_backs


def test_an_indicator_lost_for_a_frame_is_not_turned_again():
    from dataclasses import replace

    from hardware.sim.scene import TableState

    state = TableState(walls={w: [2] * 17 for w in range(4)})
    tracker = ViewTracker()
    tracker.update(perfect_view(state))
    state.indicators[(3, 6)] = "6p"
    first = tracker.update(perfect_view(state))
    assert [(e.wall, e.stack, e.tile) for e in first if isinstance(e, ev.IndicatorRevealed)] == [(3, 6, "6p")]
    assert tracker.update(replace(perfect_view(state), indicators=())) == []
    assert tracker.update(perfect_view(state)) == []
    state.indicators[(3, 6)] = "7p"          # swapped: news
    swapped = tracker.update(perfect_view(state))
    assert [(e.stack, e.tile) for e in swapped if isinstance(e, ev.IndicatorRevealed)] == [(6, "7p")]


def test_a_revealed_hand_is_voted_on_by_every_look_and_reported_again_when_outvoted():
    from dataclasses import replace

    from hardware.sim.scene import TableState
    from vision.reader import SeenTile

    hand = ["1m", "3m", "6m", "6m", "4p", "5p", "6p", "7p", "8p", "9p", "4s", "5s", "6s", "2m"]
    state = TableState(walls={w: [2] * 17 for w in range(4)})
    tracker = ViewTracker()
    tracker.update(perfect_view(state))
    tracker.on_button(0, "ron")
    state.revealed[0] = list(hand)
    truth = perfect_view(state)

    def read(tile: str, confidence: float):
        tiles = list(truth.revealed[0])
        tiles[11] = SeenTile(tile, confidence)
        return replace(truth, revealed={0: tuple(tiles)})

    first = tracker.update(read("7s", 0.48))             # a doubtful 5s, read as 7s by the first look
    assert [(e.seat, e.tiles[11], e.win_tile) for e in first] == [(0, "7s", "2m")]
    again = tracker.update(read("5s", 0.7))              # the next look outvotes it: reported again
    assert [(e.seat, e.tiles, e.win_tile) for e in again] == [(0, tuple(hand), "2m")]
    assert tracker.update(read("7s", 0.2)) == []         # a weaker doubtful look does not turn it back
    assert tracker.update(read("5s", 0.9)) == []         # nor does agreement repeat it
    assert tracker.update(read("7s", 0.9)) == []         # 0.48 + 0.2 + 0.9 against 0.7 + 0.9: still 5s
    short = replace(truth, revealed={0: truth.revealed[0][:-1]})
    assert tracker.update(short) == []                   # a frame cut short is not this hand's reading


def test_a_called_kan_s_unsure_faces_are_mended_from_its_sure_ones_but_a_chi_is_not():
    from hardware.sim.table_eyes import mend_meld
    from vision.reader import SeenMeld, SeenTile

    kan = SeenMeld((SeenTile("5m", 0.5), SeenTile("7p", 0.4), SeenTile("7p", 0.9), SeenTile("7p", 0.95, True)),
                   "daiminkan", 3, None, 0)
    assert [t.tile for t in mend_meld(kan).tiles] == ["7p"] * 4
    pon = SeenMeld((SeenTile("2m", 0.9, True), SeenTile("3m", 0.5), SeenTile("2m", 0.8)), "chi", 0, None, 3)
    mended = mend_meld(pon)
    assert mended.kind == "pon" and [t.tile for t in mended.tiles] == ["2m"] * 3
    chi = SeenMeld((SeenTile("2m", 0.9, True), SeenTile("3m", 0.5), SeenTile("4m", 0.8)), "chi", 0, None, 3)
    assert mend_meld(chi) == chi
    alone = SeenMeld((SeenTile("2m", 0.9, True), SeenTile("5p", 0.5), SeenTile("2m", 0.6)), "chi", 0, None, 3)
    assert mend_meld(alone) == alone        # one sure face is not enough


def test_the_rendered_camera_follows_a_short_recorded_hand(capsys):
    """The check tool: frames rendered from the performing table, read with the shipped model, give
    the same events as the error-free reader."""
    from hardware.sim import table_check
    from vision.classifier import DEFAULT_MODEL

    if not DEFAULT_MODEL.is_file():
        pytest.fail(f"the tile model {DEFAULT_MODEL} is missing")
    status = table_check.main([str(SAMPLES / "mjai-reviewer__kyushukyuhai.json")])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert status == 0 and last.startswith("games=1 clean=1 "), last
