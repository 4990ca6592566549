"""The simulated MCU process as firmware: raw frames over real pyserial on its pty.

These tests speak bytes, not the host library, so they pin what the firmware must do:
duplicate suppression, rejections with reasons, silence on bad CRCs, bounded event
retransmission, and the deadman stopping the motors when the host dies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from firmware_bridge import protocol as p
from hardware.sim.cli import main as sim_main

ROOT = Path(__file__).resolve().parents[2]


class Raw:
    """A bare host: pyserial + the codec, no retransmission, no acks unless asked."""

    def __init__(self, port: str) -> None:
        self.ser = serial.Serial(port, timeout=0.05)
        self.dec = p.FrameDecoder()
        self.events: list[p.Frame] = []
        self.replies: dict[int, p.Message] = {}

    def send(self, data: bytes) -> None:
        self.ser.write(b"\x00" + data)

    def ask(self, msg: p.Message, seq: int, timeout_s: float = 5.0) -> p.Message | None:
        self.send(p.encode(msg, seq))
        return self.reply(seq, timeout_s)

    def reply(self, seq: int, timeout_s: float = 5.0) -> p.Message | None:
        deadline = time.monotonic() + timeout_s
        while seq not in self.replies and time.monotonic() < deadline:
            for item in self.dec.feed(self.ser.read(256)):
                if isinstance(item, p.Frame):
                    if isinstance(item.msg, p.Event):
                        self.events.append(item)
                    else:
                        self.replies[item.seq] = item.msg
        return self.replies.pop(seq, None)

    def wait_event(self, kind: type, timeout_s: float = 5.0) -> list[p.Frame]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            got = [f for f in self.events if isinstance(f.msg, kind)]
            if got:
                return got
            self.reply(-1, 0.05)
        return []

    def close(self) -> None:
        self.ser.close()


@pytest.fixture
def raw(sim_mcu):
    host = Raw(sim_mcu.port)
    assert isinstance(host.ask(p.Hello(session=11), 1), p.Identify)
    yield host
    host.close()


def test_retransmitted_command_is_executed_once_and_answered_again(sim_mcu, raw):
    first = raw.ask(p.Lift(job=7, walls=0x0F), 2)
    again = raw.ask(p.Lift(job=7, walls=0x0F), 3)           # the host missed the ack, sends again
    same_seq = raw.ask(p.Lift(job=7, walls=0x0F), 2)
    assert first == p.Ack(p.ACK_ACCEPTED, 0, 7)
    assert again == same_seq == p.Ack(p.ACK_ACCEPTED, p.ACK_DUPLICATE, 7)
    conflict = raw.ask(p.Lift(job=7, walls=0x01), 4)        # same job id, other content
    assert conflict == p.Ack(p.ACK_REJECTED, p.REJECT_CODES["job_conflict"], 7)
    done = raw.wait_event(p.LiftDone)
    assert done and done[0].msg.job == 7
    assert sim_mcu.control("stats")["executed"] == {"7": 1}
    # after completion a duplicate is answered and its completion re-sent, still not re-executed
    raw.events.clear()
    assert raw.ask(p.Lift(job=7, walls=0x0F), 5) == p.Ack(p.ACK_ACCEPTED, p.ACK_DUPLICATE, 7)
    assert raw.wait_event(p.LiftDone)[0].msg.job == 7
    assert sim_mcu.control("stats")["executed"] == {"7": 1}


def test_a_new_session_starts_a_new_job_table(sim_mcu, raw):
    assert raw.ask(p.Display(job=5, seat=0, text="a"), 2).status == p.ACK_DONE
    assert isinstance(raw.ask(p.Hello(session=12), 3), p.Identify)
    assert raw.ask(p.Display(job=5, seat=0, text="a"), 4) == p.Ack(p.ACK_DONE, 0, 5)
    assert sim_mcu.control("stats")["executed"] == {"5": 2}


@pytest.mark.parametrize("type_id, body, reason", [
    (0x3F, b"\x09\x00", "unknown_command"),
    (p.RollDice.TYPE, b"\x09\x00\x07\x00", "out_of_range"),
    (p.Lift.TYPE, b"\x09\x00\x0f\x00\x00", "bad_length"),
    (p.Lift.TYPE, b"\x09\x00\x10", "out_of_range"),
    (p.Display.TYPE, b"\x09\x00\x00\x01\x07", "out_of_range"),
], ids=["unknown-id", "dice-count", "long-body", "wall-mask", "control-char"])
def test_malformed_commands_are_rejected_with_a_reason(sim_mcu, raw, type_id, body, reason):
    raw.send(p.encode_raw(type_id, 9, body))
    assert raw.reply(9) == p.Ack(p.ACK_REJECTED, p.REJECT_CODES[reason], 9)
    assert sim_mcu.control("stats")["executed"] == {}
    assert isinstance(raw.ask(p.Ping(), 10), p.Pong)           # and the firmware carries on


def test_bad_crc_and_garbage_get_no_answer_then_it_resynchronises(sim_mcu, raw):
    bad = bytearray(p.encode(p.Lift(job=3, walls=1), 6))
    bad[3] ^= 0x04
    raw.send(bytes(bad))
    assert raw.reply(6, timeout_s=0.3) is None
    raw.send(bytes(range(1, 200)) * 3)                          # no delimiter for 600 bytes
    assert isinstance(raw.ask(p.GetStatus(), 7), p.Status)
    st = sim_mcu.state()
    assert st["rx_errors"] >= 2 and st["executed_jobs"] == 0


def test_events_are_retransmitted_bounded_then_parked_until_hello(sim_mcu, raw):
    raw.ask(p.Display(job=2, seat=0, text=""), 2)
    raw.ask(p.Centre(job=3, open=1), 3)
    # never acked: the MCU repeats the completion a bounded number of times (about 3.3 s), then parks it
    def parked(_st):
        return any(line["event"] == "event_parked" and line["name"] == "done"
                   for line in sim_mcu.control("log", n=500)["lines"])
    sim_mcu.wait_for(parked, timeout_s=15, interval_s=0.2)
    raw.reply(-1, 0.3)
    copies = [f for f in raw.events if isinstance(f.msg, p.Done)]
    assert len(copies) == 15, len(copies)                 # 8 tries, each after the first sent twice
    time_after = sim_mcu.state()["now"]
    raw.reply(-1, 0.5)                                    # and then nothing more
    assert [f for f in raw.events if isinstance(f.msg, p.Done)] == copies and time_after
    raw.events.clear()
    raw.ask(p.Hello(session=11), 4)                               # resume: parked events re-delivered
    again = raw.wait_event(p.Done)
    assert again and again[0].msg.job == 3
    raw.send(p.encode(p.EvAck(), again[0].seq))
    for f in raw.events:
        raw.send(p.encode(p.EvAck(), f.seq))
    assert sim_mcu.wait_for(lambda st: st["outbox"] == 0, timeout_s=5)


def test_deadman_configurable(sim_mcu, raw):
    assert raw.ask(p.Config(job=4, deadman_ms=200), 2) == p.Ack(p.ACK_DONE, 0, 4)
    t0 = time.monotonic()
    st = sim_mcu.wait_for(lambda s: s["fault"] == "deadman", timeout_s=5)
    silent = [line["silent_s"] for line in sim_mcu.control("log")["lines"] if line["event"] == "deadman"]
    assert len(silent) == 1 and 0.2 <= silent[0] < 0.3
    assert st["deadman_at"] - t0 < 0.2 + 0.3


def test_bye_stops_motion_and_disarms_the_deadman(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)
    raw = Raw(sim.port)
    try:
        assert isinstance(raw.ask(p.Hello(session=5), 1), p.Identify)
        assert raw.ask(p.Shuffle(job=9, set=1), 2).status == p.ACK_ACCEPTED
        assert raw.ask(p.Bye(), 3) == p.Ack(p.ACK_DONE, 0, 0)
        aborted = raw.wait_event(p.Fault)
        time.sleep(0.8)                            # longer than the deadman: it is disarmed
        st = sim.state()
    finally:
        raw.close()
    assert [(f.msg.job, f.msg.fault_name, f.msg.latched) for f in aborted][0] == (9, "aborted", 0)
    assert st["fault"] == "" and not st["motors_running"] and st["deadman_at"] is None


HOST = """
import sys, time
from firmware_bridge.link import Link
from firmware_bridge import protocol as p
link = Link(sys.argv[1]); link.start(); link.wait_up(10)
ack = link.request(p.Shuffle(job=link.next_job(), set=1)).result()
print("moving", ack.status, flush=True)
time.sleep(60)
"""


def test_deadman_stops_the_motors_within_500_ms_of_the_host_dying(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)          # a real 60 s shuffle: only the deadman stops it
    host = subprocess.Popen([sys.executable, "-c", HOST, sim.port], stdout=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert host.stdout.readline().split() == [b"moving", b"1"]
        assert sim.state()["motors_running"]
        time.sleep(0.7)                            # longer than the deadman: the heartbeats keep it fed
        assert sim.state()["fault"] == ""
        t_kill = time.monotonic()
        host.send_signal(signal.SIGKILL)
        st = sim.wait_for(lambda s: s["fault"] == "deadman", timeout_s=5)
    finally:
        host.kill()
        host.wait()
        host.stdout.close()
    assert not st["motors_running"] and not st["motor_power"]
    # the sim's own clock (CLOCK_MONOTONIC, shared with this process): motors off within the deadman
    # time of the last valid host frame, which came before the kill. (+50 ms for a loaded CI box.)
    assert st["motors_stopped_at"] - t_kill <= 0.5 + 0.05, st["motors_stopped_at"] - t_kill
    log = sim.control("log", n=500)["lines"]
    assert [line["moving"] for line in log if line["event"] == "deadman"] == [True]


def test_sim_cli_refuses_bad_options(capsys):
    assert sim_main("sim-mcu", ["--model", "octagon"]) == 2
    assert "table model 'octagon' unknown" in capsys.readouterr().err
    assert sim_main("sim-mcu", ["--drop", "1.5"]) == 2
    assert "'drop' is 1.5, must be 0..1" in capsys.readouterr().err
