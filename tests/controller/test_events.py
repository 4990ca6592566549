"""The event vocabulary: records round-trip exactly, malformed records are refused by name."""

import json

import pytest

from controller import events as ev

SAMPLES = [
    ev.Button(seat=0, action="dice", now=1.5),
    ev.Lid(is_open=True), ev.EStop(is_pressed=False, now=2.0),
    ev.StackReady(counts=(34, 34, 34, 34)), ev.LiftDone(counts=(34, 34, 34, 33), now=9.0),
    ev.DiceResult(seat=2, dice=(3, 5)), ev.McuFault(code="lift_jam", detail="wall 2"),
    ev.LinkLost(reason="timeout"), ev.LinkRestored(), ev.CentreDone(is_open=True), ev.HostRestarted(),
    ev.Discard(seat=3, tile="0s", is_riichi=True, is_tsumogiri=True),
    ev.DiscardRemoved(seat=1, index=4, tile="5m", replaced_by="6m"),
    ev.RiichiStick(seat=1), ev.IndicatorRevealed(wall=2, stack=5, tile="7z", is_ura=True),
    ev.WallStackTaken(wall=0, stack=17, tiles_left=1), ev.WallBack(wall=1, stack=3, colour="blue"),
    ev.Meld(seat=1, meld_kind="chi", tiles=("3m", "4m", "0m"), called="3m", source=0),
    ev.Meld(seat=2, meld_kind="ankan", tiles=("1z",) * 4),
    ev.HandRevealed(seat=0, tiles=tuple("1m 2m 3m".split()), win_tile="3m"), ev.FlowerSetAside(seat=0, tile="3f"),
    ev.HandCount(seat=2, count=12),
    ev.StartGame(ruleset="tenhou", players=("a", "b", "c", "d"), red_fives=("0m", "0p", "0s"),
                  start_round=7, start_honba=1, start_sticks=2, start_scores=(30000, 20000, 25000, 25000),
                  first_dealer="two_rolls"),
    ev.Correction(what="discard", reason="glare", data={"seat": 2, "tile": "5p", "list": [1, 2]}),
    ev.ConfirmResult(hand_index=3), ev.VoidHand(reason="two 5p reds"), ev.Reset(),
    ev.StaffDeclare(seat=2, action="ron", reason="button stuck"),
    ev.Alert(rule="fifth_tile", hand_index=2, seat=1, tile="5p", message="fifth 5p", suggest="void_hand"),
    ev.RollDice(seat=0), ev.Shuffle(), ev.Lift(), ev.LightButton(seat=1, action="ok", is_on=False),
    ev.WatchSlot(wall=1, stack=4, purpose="indicator"), ev.Show(what="result", data={"a": [1]}),
    ev.RaiseAlert(alert=ev.Alert(rule="taken_back", hand_index=0, seat=2, tile="1z")),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).KIND)
def test_round_trip_through_json(event):
    record = ev.to_record(event)
    again = ev.from_record(json.loads(json.dumps(record)))
    assert again == event and type(again) is type(event)
    assert ev.to_record(again) == record


def test_every_registered_kind_has_a_sample():
    assert {type(e).KIND for e in SAMPLES} == set(ev.EVENT_KINDS) | set(ev.COMMAND_KINDS)


def test_integer_now_reads_as_float():
    e = ev.from_record({"kind": "lid", "now": 3, "is_open": False})
    assert e.now == 3.0 and isinstance(e.now, float)


@pytest.mark.parametrize("record,words", [
    ({"kind": "nope"}, "unknown event kind 'nope'"),
    ({"kind": "vision.discard", "seat": 1}, "missing field 'tile'"),
    ({"kind": "vision.discard", "seat": 1, "tile": "5x"}, "'5x'"),
    ({"kind": "vision.discard", "seat": 4, "tile": "5m"}, "seat 0..3"),
    ({"kind": "vision.discard", "seat": "1", "tile": "5m"}, "field 'seat'"),
    ({"kind": "vision.discard", "seat": 1, "tile": "5m", "colour": "red"}, "unknown field 'colour'"),
    ({"kind": "button", "seat": 0, "action": "dance"}, "action 'dance'"),
    ({"kind": "mcu.dice_result", "seat": 0, "dice": [0, 7]}, "dice"),
    ({"kind": "lid", "is_open": 1}, "field 'is_open'"),
    ({"kind": "lid", "is_open": True, "now": float("nan")}, "finite"),
    ({"kind": "vision.meld", "seat": 0, "kind2": 1}, "unknown field"),
    ({"kind": "alert", "rule": "cheating", "hand_index": 0}, "rule 'cheating'"),
    ({"kind": "vision.meld", "seat": 0, "meld_kind": "chi", "tiles": "123m"}, "field 'tiles'"),
    ({"kind": "vision.meld", "seat": 0, "meld_kind": "chow", "tiles": ["1m"]}, "meld_kind 'chow'"),
    ([1, 2], "must be an object"),
    ({"kind": "staff.start_game", "ruleset": "tenhou", "first_dealer": "coin"}, "first_dealer 'coin'"),
])
def test_malformed_records_are_refused_by_name(record, words):
    with pytest.raises(ev.EventError) as err:
        ev.from_record(record)
    assert words in str(err.value)


def test_events_are_frozen():
    e = ev.Discard(seat=0, tile="1m")
    with pytest.raises(AttributeError):
        e.seat = 2  # type: ignore[misc]


def test_stacks_count_from_one():
    with pytest.raises(ev.EventError, match="stack is 0"):
        ev.WallStackTaken(wall=0, stack=0, tiles_left=1)
