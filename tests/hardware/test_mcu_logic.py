"""The simulated firmware's logic in-process with a fake clock: exact timings, no process, no pty."""

from __future__ import annotations

import pytest

from firmware_bridge import protocol as p
from hardware.sim.mcu import EVENT_RTO_S, JOB_TABLE_SIZE, SimMcu, TableModel


class Bench:
    """A SimMcu wired to a fake clock and a list of decoded output frames."""

    def __init__(self, time_scale: float = 0.01, **kwargs) -> None:
        self.t = 0.0
        self.out: list[tuple[float, p.Frame]] = []
        self._dec = p.FrameDecoder()
        self.mcu = SimMcu(TableModel(), time_scale=time_scale, send=self._sent, clock=lambda: self.t, **kwargs)
        self.seq = 0

    def _sent(self, data: bytes) -> None:
        self.out += [(self.t, f) for f in self._dec.feed(data) if isinstance(f, p.Frame)]

    def send(self, msg: p.Message) -> p.Message | None:
        self.seq = (self.seq + 1) & 0xFF
        n = len(self.out)
        self.mcu.on_frame_bytes(p.encode(msg, self.seq)[:-1])
        replies = [f.msg for _, f in self.out[n:] if not isinstance(f.msg, p.Event)]
        return replies[0] if replies else None

    def run_until(self, t_end: float, dt: float = 0.001) -> None:
        while self.t < t_end:
            self.t = round(self.t + dt, 6)
            self.mcu.poll()

    def ack_all(self) -> None:
        for _t, f in self.out:
            if isinstance(f.msg, p.Event):
                self.mcu.on_frame_bytes(p.encode(p.EvAck(), f.seq)[:-1])

    def events(self, kind: type) -> list[tuple[float, p.Event]]:
        return [(t, f.msg) for t, f in self.out if isinstance(f.msg, kind)]


def test_event_retransmission_schedule_is_bounded():
    b = Bench()
    b.send(p.Hello(session=1))
    b.send(p.Centre(job=3, open=1))
    b.run_until(6.0)
    times = [t for t, _ in b.events(p.Done)]
    expected, t = [0.02], 0.02
    for rto in EVENT_RTO_S[:-1]:
        t = round(t + rto, 3)
        expected += [t, t]                    # each retransmission sent twice
    assert times == pytest.approx(expected, abs=0.0015)
    assert len(times) == 1 + 2 * (len(EVENT_RTO_S) - 1)


def test_evack_stops_retransmission():
    b = Bench()
    b.send(p.Hello(session=1))
    b.send(p.Centre(job=3, open=1))
    b.run_until(0.03)
    (seq,) = {f.seq for _, f in b.out if isinstance(f.msg, p.Done)}
    b.mcu.on_frame_bytes(p.encode(p.EvAck(), seq)[:-1])
    b.run_until(3.0)
    assert len(b.events(p.Done)) == 1


def test_deadman_trips_exactly_after_the_configured_time():
    b = Bench(time_scale=1.0, deadman_ms=500)     # a real 60 s shuffle
    b.send(p.Hello(session=1))
    b.send(p.Shuffle(job=4, set=1))
    b.run_until(0.3)
    b.send(p.Ping())                          # any valid frame feeds it
    b.run_until(0.799)
    assert b.mcu.motions and b.mcu.state.fault == 0
    b.run_until(0.801)
    assert not b.mcu.motions and not b.mcu.state.motor_power
    assert b.mcu.deadman_at == pytest.approx(0.8, abs=0.0015)
    faults = [(e.job, e.fault_name, e.latched) for _, e in b.events(p.Fault)]
    assert (0, "deadman", 1) in faults and (4, "deadman", 1) in faults


def test_deadman_not_armed_before_the_host_speaks():
    b = Bench()
    b.run_until(2.0)
    assert b.mcu.state.fault == 0


def test_job_table_forgets_only_beyond_its_size():
    b = Bench()
    b.send(p.Hello(session=1))
    for job in range(1, JOB_TABLE_SIZE + 2):
        b.send(p.Display(job=job, seat=0, text=str(job)))
    # the last JOB_TABLE_SIZE jobs are remembered: a retransmission is not executed again
    assert b.send(p.Display(job=2, seat=0, text="2")).code == p.ACK_DUPLICATE
    assert b.send(p.Display(job=1, seat=0, text="1")).code == 0        # evicted: runs again
    assert b.mcu.executed[2] == 1 and b.mcu.executed[1] == 2


def test_motion_is_time_scaled_and_absolute():
    b = Bench()
    b.send(p.Hello(session=1))
    assert b.send(p.Lift(job=5, walls=0x0F)).status == p.ACK_ACCEPTED
    b.run_until(0.059)
    assert not b.events(p.LiftDone)
    b.run_until(0.061)                         # 6 s x 0.01
    assert [e.walls for _, e in b.events(p.LiftDone)] == [0x0F]
    n = len(b.out)
    b.send(p.Lift(job=6, walls=0x0F))          # already there: done at once
    b.run_until(0.062)
    assert [f.msg.job for _, f in b.out[n:] if isinstance(f.msg, p.LiftDone)] == [6]


def _rolls(seed, n: int = 20) -> list[tuple[int, ...]]:
    b = Bench(seed=seed)
    b.send(p.Hello(session=1))
    for job in range(1, n + 1):
        b.send(p.RollDice(job=job, count=2, seat=0))
        b.run_until(b.t + 0.05)
        for seq in {f.seq for _, f in b.out if isinstance(f.msg, p.DiceResult) and f.msg.job == job}:
            b.mcu.on_frame_bytes(p.encode(p.EvAck(), seq)[:-1])       # the host acknowledges each event
    by_job = {e.job: e.values for _, e in b.events(p.DiceResult)}     # an event may be sent more than once
    return [by_job[job] for job in sorted(by_job)]


def test_dice_come_from_the_os_csprng_unless_seeded_for_a_test():
    seeded = _rolls(5)
    assert len(seeded) == 20 and seeded == _rolls(5)                    # a test's seed: the same rolls
    assert all(len(v) == 2 and all(1 <= x <= 6 for x in v) for v in seeded)
    # unseeded (the simulator's default, as the firmware): two tables never roll alike (6^-40)
    assert _rolls(None) != _rolls(None)


def test_a_kept_event_keeps_its_seq_when_the_seqs_wrap():
    """An event parked unacked while 300 newer ones pass: no newer one takes its seq (the host
    would take it for a copy of the old one, or the MCU would drop the old one), and the next
    hello still re-sends it."""
    b = Bench()
    b.send(p.Hello(session=1))
    b.ack_all()                                   # the boot event
    b.mcu.press(0, "dice")                        # its evacks are lost: it is parked
    b.run_until(0.001)
    (first,) = [f for _t, f in b.out if isinstance(f.msg, p.SeatButton)]
    while not b.mcu.outbox[first.seq].parked:
        b.run_until(b.t + 0.1)
        b.send(p.Ping())                          # the host is alive: no deadman
    for i in range(300):
        n = len(b.out)
        b.mcu.press(1 + i % 3, "dice")
        (frame,) = [f for _t, f in b.out[n:] if isinstance(f.msg, p.Event)]
        assert frame.seq != first.seq, i
        b.mcu.on_frame_bytes(p.encode(p.EvAck(), frame.seq)[:-1])
    assert list(b.mcu.outbox) == [first.seq]
    n = len(b.out)
    b.send(p.Hello(session=1))
    b.run_until(b.t + 0.01)
    again = [f for _t, f in b.out[n:] if isinstance(f.msg, p.Event)]
    assert [(f.seq, f.msg) for f in again] == [(first.seq, first.msg)]


def test_events_wait_in_order_while_all_seqs_are_kept():
    b = Bench()
    b.send(p.Hello(session=1))
    b.ack_all()
    actions = p.BUTTON_ACTIONS
    for i in range(260):                          # none acked
        b.mcu.press(i % 4, actions[i % len(actions)])
    assert len(b.mcu.outbox) == 256 and len(b.mcu.held_back) == 4
    oldest = next(iter(b.mcu.outbox))
    b.mcu.on_frame_bytes(p.encode(p.EvAck(), oldest)[:-1])
    assert len(b.mcu.outbox) == 256 and len(b.mcu.held_back) == 3
    newest = b.mcu.outbox[next(reversed(b.mcu.outbox))]
    assert newest.seq == oldest and newest.msg == p.SeatButton(256 % 4, actions.index(actions[256 % len(actions)]))
