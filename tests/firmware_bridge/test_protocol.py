"""The frame codec: round trips, CRC parameters, and what garbage does (Hypothesis)."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p

# ----------------------------------------------------------------------------- strategies

jobs = st.integers(1, 0xFFFF)
u8 = st.integers(0, 255)
text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=16)

MESSAGE_STRATEGIES = {
    p.Hello: st.builds(p.Hello, session=st.integers(0, 2**32 - 1), proto=u8),
    p.Ping: st.just(p.Ping()),
    p.GetStatus: st.just(p.GetStatus()),
    p.EvAck: st.just(p.EvAck()),
    p.Bye: st.just(p.Bye()),
    p.Config: st.builds(p.Config, job=jobs, deadman_ms=st.integers(100, 5000)),
    p.ResetFault: st.builds(p.ResetFault, job=jobs),
    p.Stop: st.builds(p.Stop, job=jobs),
    p.Lift: st.builds(p.Lift, job=jobs, walls=st.integers(0, 15)),
    p.Centre: st.builds(p.Centre, job=jobs, open=st.integers(0, 1)),
    p.Shuffle: st.builds(p.Shuffle, job=jobs, set=st.integers(0, 1)),
    p.RollDice: st.builds(p.RollDice, job=jobs, count=st.integers(2, 3), seat=st.integers(0, 3)),
    p.Display: st.builds(p.Display, job=jobs, seat=st.sampled_from([0, 1, 2, 3, 255]), text=text),
    p.Deal: st.builds(p.Deal, job=jobs),
    p.FlipDora: st.builds(p.FlipDora, job=jobs),
    p.Ack: st.builds(p.Ack, status=st.integers(0, 2), code=u8, job=st.integers(0, 0xFFFF)),
    p.Identify: st.builds(p.Identify, proto=u8, fw=st.tuples(u8, u8, u8), boot_id=st.integers(0, 2**32 - 1),
              tiles=st.sampled_from([108, 136, 144]), walls=st.integers(3, 4), stacks_per_wall=u8,
              sets=u8, lanes=u8, caps=st.integers(0, 0xFFFF), deadman_ms=st.integers(0, 0xFFFF),
              fault=u8, model=st.text(alphabet="ABCXYZ-019 ", max_size=24)),
    p.Pong: st.builds(p.Pong, state=st.integers(0, 2), fault=u8),
    p.Status: st.builds(p.Status, state=st.integers(0, 2), fault=u8, motor_power=st.integers(0, 1),
              lid_open=st.integers(0, 1), centre_open=st.integers(0, 1), walls_up=st.integers(0, 15),
              sets=st.tuples(st.integers(0, 3), st.integers(0, 3)), temp_c=st.integers(-128, 127),
              rx_errors=st.integers(0, 0xFFFF), jobs=st.lists(u8, max_size=8).map(tuple)),
    p.Boot: st.builds(p.Boot, boot_id=st.integers(0, 2**32 - 1), cause=st.integers(0, 3)),
    p.Done: st.builds(p.Done, job=jobs, cmd=u8),
    p.LiftDone: st.builds(p.LiftDone, job=jobs, walls=st.integers(0, 15), set=u8,
              stacks=st.tuples(u8, u8, u8, u8), tiles=st.tuples(u8, u8, u8, u8)),
    p.ShuffleDone: st.builds(p.ShuffleDone, job=jobs, set=st.integers(0, 1), lanes=st.lists(u8, min_size=1, max_size=8).map(tuple)),
    p.DiceResult: st.builds(p.DiceResult, job=jobs, seat=st.integers(0, 3),
              values=st.lists(st.integers(1, 6), min_size=2, max_size=3).map(tuple)),
    p.SeatButton: st.builds(p.SeatButton, seat=st.integers(0, 3), action=st.integers(0, 5)),
    p.Fault: st.builds(p.Fault, job=st.integers(0, 0xFFFF), code=st.integers(1, 255), latched=st.integers(0, 1),
              detail=u8, value=st.integers(-32768, 32767)),
}
MESSAGES = st.one_of(*MESSAGE_STRATEGIES.values())


def test_every_message_type_has_a_strategy():
    assert set(MESSAGE_STRATEGIES) == set(p.MESSAGE_TYPES.values())


def test_doctests():
    assert doctest.testmod(p).failed == 0


# ----------------------------------------------------------------------------- CRC and COBS

def test_crc32c_check_value_and_parameters():
    assert p.crc32c(b"123456789") == 0xE3069283 == p.CHECK_VALUE
    assert p.crc32c(b"") == 0x00000000
    # CRC-16/CCITT-FALSE-like variants would give other values: this pins the variant.
    assert p.crc32c(b"\x00" * 32) == 0x8A9136AA


@pytest.mark.parametrize("data, wire", [
    (b"", b"\x01"),
    (b"\x00", b"\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
], ids=["empty", "zero", "wikipedia-3", "trailing-zeros", "254-run"])
def test_cobs_known_vectors(data, wire):
    assert p.cobs_encode(data) == wire
    assert p.cobs_decode(wire) == data


@settings(deadline=None)
@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data):
    wire = p.cobs_encode(data)
    assert 0 not in wire
    assert p.cobs_decode(wire) == data


# ----------------------------------------------------------------------------- frames

@settings(deadline=None)
@given(MESSAGES, st.integers(0, 255))
def test_decode_encode_round_trip(msg, seq):
    wire = p.encode(msg, seq)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert p.decode_frame(wire[:-1]) == p.Frame(seq, msg)


@settings(deadline=None)
@given(st.lists(st.tuples(MESSAGES, st.integers(0, 255)), max_size=6), st.data())
def test_stream_decoder_any_chunking(items, data):
    wire = b"".join(b"\x00" + p.encode(m, s) for m, s in items)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=8)))
    dec = p.FrameDecoder()
    out = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True):
        out += dec.feed(wire[a:b])
    assert out == [p.Frame(s, m) for m, s in items]


@settings(deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_protocol_errors(data):
    for item in p.FrameDecoder().feed(data + b"\x00"):
        assert isinstance(item, p.Frame | p.ProtocolError)
    try:
        p.decode_frame(data)
    except p.ProtocolError:
        pass


@settings(deadline=None)
@given(st.binary(max_size=200), MESSAGES, st.integers(0, 255))
def test_resynchronises_after_garbage(garbage, msg, seq):
    out = p.FrameDecoder().feed(garbage + b"\x00" + p.encode(msg, seq))
    assert out[-1] == p.Frame(seq, msg)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(MESSAGES, st.integers(0, 255))
def test_every_single_bit_error_is_detected(msg, seq):
    wire = p.encode(msg, seq)
    for bit in range(len(wire) * 8):
        bad = bytearray(wire)
        bad[bit // 8] ^= 1 << (bit % 8)
        # what a receiver sees: the damaged bytes, then the next frame's delimiter
        out = p.FrameDecoder().feed(bytes(bad) + b"\x00")
        assert not any(isinstance(item, p.Frame) for item in out), (bit, out)


# ----------------------------------------------------------------------------- bad input

def test_unknown_message_type_names_it_and_keeps_seq():
    with pytest.raises(p.UnknownMessage, match="unknown message type 0x3f") as info:
        p.decode_frame(p.encode_raw(0x3F, 9, b"\x07\x00")[:-1])
    assert (info.value.seq, info.value.type_id, info.value.job) == (9, 0x3F, 7)


def test_out_of_range_field_on_the_wire():
    with pytest.raises(p.FieldError, match="roll_dice.*'count' is 5, must be 2..3") as info:
        p.decode_frame(p.encode_raw(p.RollDice.TYPE, 4, b"\x2a\x00\x05\x00")[:-1])
    assert info.value.job == 42


def test_wrong_length_is_a_length_error():
    with pytest.raises(p.LengthError, match="lift"):
        p.decode_frame(p.encode_raw(p.Lift.TYPE, 1, b"\x01\x00\x0f\x00")[:-1])


def test_bad_crc():
    wire = bytearray(p.encode(p.Ping(), 1)[:-1])
    wire[-1] ^= 0x10
    with pytest.raises(p.ChecksumError, match="CRC-32C mismatch"):
        p.decode_frame(bytes(wire))


@pytest.mark.parametrize("msg, match", [
    (p.Lift(job=1, walls=16), "'walls' is 16, must be 0..15"),
    (p.Lift(job=0, walls=1), "'job' is 0, must be 1..65535"),
    (p.Display(job=1, seat=7, text="x"), "'seat' is 7"),
    (p.Display(job=1, seat=0, text="é"), "printable ASCII"),
    (p.Display(job=1, seat=0, text="x" * 17), "17 characters, at most 16"),
    (p.Config(job=1, deadman_ms=50), "'deadman_ms' is 50, must be 100..5000"),
], ids=["walls", "job0", "seat", "ascii", "long-text", "deadman"])
def test_encode_refuses_out_of_range(msg, match):
    with pytest.raises(p.FieldError, match=match):
        p.encode(msg, 0)


def test_overlong_garbage_is_reported_once_and_skipped():
    dec = p.FrameDecoder()
    out = dec.feed(b"\x01" * 500)
    assert len(out) == 1 and isinstance(out[0], p.FramingError)
    assert dec.feed(b"\x00" + p.encode(p.Ping(), 3)) == [p.Frame(3, p.Ping())]


def test_fault_describe_names_the_fault():
    assert p.Fault(3, p.FAULT_CODES["lane_count"], 1, 2, 33).describe() == \
        "lane_count (wrong tile count in a lane): detail 2, value 33"
