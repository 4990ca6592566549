"""The serial link against the simulator process: port errors, replug, reboot, silence, noise."""

from __future__ import annotations

import os
import threading
import time
import tty

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, LinkError, LinkTimeout
from firmware_bridge.link import Link, LinkLost, LinkUp, McuEvent


class Recorder:
    """A sink that records what the link posts (as the daemon's loop would receive it)."""

    def __init__(self) -> None:
        self.items: list[object] = []
        self.cond = threading.Condition()

    def __call__(self, ev: object) -> None:
        with self.cond:
            self.items.append(ev)
            self.cond.notify_all()

    def wait(self, predicate, timeout_s: float = 10.0) -> list[object]:
        with self.cond:
            assert self.cond.wait_for(lambda: predicate(self.items), timeout_s), self.items
            return list(self.items)

    def of(self, kind: type) -> list:
        with self.cond:
            return [ev for ev in self.items if isinstance(ev, kind)]


def display(link: Link, text: str = "x", timeout_s: float | None = None) -> p.Ack:
    return link.request(p.Display(job=link.next_job(), seat=0, text=text), timeout_s=timeout_s).result(30)


def test_a_port_that_cannot_be_opened_names_the_port_and_the_problem(tmp_path):
    missing = str(tmp_path / "ttyNOPE")
    with pytest.raises(LinkError, match=r"link .*ttyNOPE: not up after 0.5 s \(cannot open port: .*No such file"):
        Link.open(missing, timeout_s=0.5)
    rec = Recorder()
    link = Link(missing, sink=rec, reopen_s=0.05)
    link.start()
    try:
        rec.wait(lambda items: items)
        time.sleep(0.3)                       # keeps retrying, but reports the episode once
        lost = rec.of(LinkLost)
        assert len(lost) == 1 and "No such file" in lost[0].reason and link._threads[0].is_alive()
        with pytest.raises(LinkTimeout, match=r"no reply to 'display' job .* \(link down: cannot open port"):
            display(link, timeout_s=0.2)
    finally:
        link.close()


def test_link_options_are_bounds_checked():
    with pytest.raises(BridgeError, match="option 'heartbeat_s' is 0.0, must be 0.01..10.0"):
        Link("/dev/null", heartbeat_s=0.0)


def test_replug_reconnects_and_reidentifies_without_losing_a_command(sim_mcu):
    rec = Recorder()
    link = Link(sim_mcu.port, sink=rec, reopen_s=0.05)
    link.start()
    try:
        link.wait_up(10)
        assert display(link).status == p.ACK_DONE
        sim_mcu.control("replug", down_s=0.6)
        rec.wait(lambda items: any(isinstance(ev, LinkLost) for ev in items))
        # sent while the adapter is out: waits, then goes through once the port is back
        ack = display(link, "late", timeout_s=10.0)
        assert ack.status == p.ACK_DONE
        ups = rec.wait(lambda items: len([ev for ev in items if isinstance(ev, LinkUp)]) == 2)
    finally:
        link.close()
    lost = rec.of(LinkLost)
    assert len(lost) == 1 and "failed" in lost[0].reason
    assert [up.rebooted for up in ups if isinstance(up, LinkUp)] == [False, False]
    st = sim_mcu.state()
    assert st["displays"]["0"] == "late" and st["executed_jobs"] == 2 and st["duplicated_jobs"] == 0


def test_mcu_reboot_mid_command_is_reported(sim_mcu_factory):
    sim = sim_mcu_factory(time_scale=1.0)
    rec = Recorder()
    link = Link(sim.port, sink=rec)
    link.start()
    try:
        link.wait_up(10)
        ack = link.request(p.Shuffle(job=link.next_job(), set=1)).result(10)
        assert ack.status == p.ACK_ACCEPTED
        sim.control("reboot")
        ups = rec.wait(lambda items: any(isinstance(ev, LinkUp) and ev.rebooted for ev in items))
        boots = [ev.msg for ev in rec.of(McuEvent) if isinstance(ev.msg, p.Boot)]
    finally:
        link.close()
    assert boots and boots[-1].cause == 1
    assert [ev.identify.boot_id for ev in ups if isinstance(ev, LinkUp)][-1] == boots[-1].boot_id
    st = sim.state()
    assert not st["motors_running"] and st["sets"] == ["stacked", "hopper"]


def test_silence_is_link_lost_then_back(sim_mcu):
    rec = Recorder()
    link = Link(sim_mcu.port, sink=rec, link_timeout_s=0.3, heartbeat_s=0.05)
    link.start()
    try:
        link.wait_up(10)
        sim_mcu.control("silence", s=1.0)
        rec.wait(lambda items: any(isinstance(ev, LinkLost) for ev in items))
        assert not link.is_up
        rec.wait(lambda items: len([ev for ev in items if isinstance(ev, LinkUp)]) == 2)
        assert display(link).status == p.ACK_DONE
    finally:
        link.close()
    assert "no valid frame from the MCU for 0.3 s" in rec.of(LinkLost)[0].reason
    # the host kept talking (hello) while the MCU was mute, so its deadman never fired
    assert sim_mcu.state()["fault"] == ""


def test_garbage_from_the_mcu_is_skipped(sim_mcu):
    link = Link(sim_mcu.port)
    link.start()
    try:
        link.wait_up(10)
        sim_mcu.control("garbage", n=500)
        assert display(link).status == p.ACK_DONE
        assert link.is_up
    finally:
        link.close()


def test_noisy_line_every_command_exactly_once(sim_mcu_factory):
    sim = sim_mcu_factory("--drop", "0.02", "--corrupt", "0.02", "--duplicate", "0.01", "--delay-rate", "0.05",
                          "--delay-ms", "3", "--seed", "7")
    rec = Recorder()
    link = Link(sim.port, sink=rec, reply_timeout_s=5.0)
    link.start()
    try:
        link.wait_up(10)
        jobs = [link.next_job() for _ in range(150)]
        futures = [link.request(p.Display(job=j, seat=j % 4, text=str(j))) for j in jobs[:100]]
        acks = [f.result(30) for f in futures]              # 100 queued at once, 16 jobs in the window
        lifts = []
        for i, j in enumerate(jobs[100:110]):       # all up, two up, ...: each waits for its lift_done
            lifts.append(link.request(p.Lift(job=j, walls=0x0F if i % 2 == 0 else 0x03)).result(30))
            rec.wait(lambda items, j=j: any(isinstance(ev, McuEvent) and isinstance(ev.msg, p.LiftDone)
                                            and ev.msg.job == j for ev in items))
        stats = link.stats()
    finally:
        link.close()
    assert all(a.status == p.ACK_DONE for a in acks) and all(a.status == p.ACK_ACCEPTED for a in lifts)
    assert stats.retransmits > 0 and stats.rx_errors > 0
    executed = sim.control("stats")["executed"]
    assert {int(j) for j in executed} == set(jobs[:110]) and set(executed.values()) == {1}
    done = [ev.msg.job for ev in rec.of(McuEvent) if isinstance(ev.msg, p.LiftDone)]
    # every completion arrived; a completion may come twice at this level (the MCU re-sends it
    # when a retransmitted command turns out to be finished); Mcu keeps one per job (test_parts)
    assert set(done) == set(jobs[100:110])


def test_requests_refuse_out_of_range_fields_before_sending(sim_mcu):
    link = Link(sim_mcu.port)
    link.start()
    try:
        link.wait_up(10)
        with pytest.raises(p.FieldError, match="lift: field 'walls' is 99"):
            link.request(p.Lift(job=1, walls=99))
        assert display(link).status == p.ACK_DONE
    finally:
        link.close()
    assert sim_mcu.state()["rx_errors"] == 0


def test_a_clean_close_says_bye_so_the_deadman_stays_quiet(sim_mcu):
    for _ in range(2):                            # e.g. two ``tablectl device`` commands in a row
        link = Link(sim_mcu.port)
        link.start()
        link.wait_up(10)
        assert display(link).status == p.ACK_DONE
        link.close()
    time.sleep(0.7)                               # longer than the deadman
    st = sim_mcu.state()
    assert st["fault"] == "" and st["deadman_at"] is None
    assert [line["event"] for line in sim_mcu.control("log")["lines"]].count("bye") >= 2   # (resent: idempotent)


def lost_for_s(sim, name: str) -> float:
    """Seconds since the line first lost a copy of an event ``name`` (0.0 if it lost none)."""
    times = [line["t"] for line in sim.control("log", n=2000)["lines"]
             if line["event"] == "event_lost" and line["name"] == name]
    return sim.state()["now"] - times[0] if times else 0.0


def test_a_completion_lost_past_the_mcu_retries_still_arrives_exactly_once(sim_mcu_factory):
    # A noisy line now and then loses all 15 copies of an event while pongs get through (about one
    # lift_done in 800 at the noisy-line test's rates). The MCU then parks it until a hello; the
    # link stays up, so only the host's periodic hello brings it back.
    sim = sim_mcu_factory(time_scale=0.5)        # a 3 s lift: its ack is in long before it ends
    rec = Recorder()
    link = Link(sim.port, sink=rec, min_rto_s=0.5, max_rto_s=0.5)   # no lift resent after its lift_done
    link.start()
    try:
        link.wait_up(10)
        sim.control("lose_events", on=True)
        job = link.next_job()
        assert link.request(p.Lift(job=job, walls=0x0F), timeout_s=5.0).result(30).status == p.ACK_ACCEPTED
        # lost for longer than the MCU's whole retransmission schedule (8 tries, 3.26 s): parked
        # by then unless a hello came
        sim.wait_for(lambda _st: lost_for_s(sim, "lift_done") >= 3.5, timeout_s=30, interval_s=0.2)
        sim.control("lose_events", on=False)
        rec.wait(lambda items: any(isinstance(ev, McuEvent) and isinstance(ev.msg, p.LiftDone)
                                   for ev in items), timeout_s=20)
        sim.wait_for(lambda st: st["outbox"] == 0, timeout_s=20, interval_s=0.05)   # every copy acked
        display(link)                            # one more round trip: no copy still on its way
    finally:
        link.close()
    assert [ev.msg.job for ev in rec.of(McuEvent) if isinstance(ev.msg, p.LiftDone)] == [job]
    assert sim.control("stats")["executed"][str(job)] == 1
    # the periodic hellos are invisible to the daemon: one LinkUp, never a LinkLost
    assert [up.rebooted for up in rec.of(LinkUp)] == [False] and not rec.of(LinkLost)


def test_a_reboot_whose_boot_event_is_lost_is_still_reported_once(sim_mcu):
    rec = Recorder()
    link = Link(sim_mcu.port, sink=rec)
    link.start()
    try:
        link.wait_up(10)
        sim_mcu.control("lose_events", on=True)
        sim_mcu.control("reboot")
        # the boot event never arrives; the identify of the next periodic hello shows the new boot id
        rec.wait(lambda items: any(isinstance(ev, LinkUp) and ev.rebooted for ev in items), timeout_s=20)
        sim_mcu.control("lose_events", on=False)
        boot_id = sim_mcu.state()["boot_id"]
        rec.wait(lambda items: any(isinstance(ev, McuEvent) and isinstance(ev.msg, p.Boot)
                                   and ev.msg.boot_id == boot_id for ev in items), timeout_s=20)
        assert display(link).status == p.ACK_DONE
    finally:
        link.close()
    assert [up.rebooted for up in rec.of(LinkUp)] == [False, True] and not rec.of(LinkLost)
    assert rec.of(LinkUp)[-1].identify.boot_id == boot_id
    assert [ev.msg.boot_id for ev in rec.of(McuEvent) if isinstance(ev.msg, p.Boot)][-1:] == [boot_id]


class ScriptedMcu:
    """The MCU's side of a pty pair, played by the test: it answers hello and ping as the
    firmware does and sends the events it is told to, with the sequence numbers it is told to,
    so that one exact interleaving of the line can be made."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.port = os.ttyname(slave)
        self._slave = slave
        self.boot_id = 0x1111
        self.identify_held = threading.Event()     # set: hellos go unanswered until released
        self.held_hellos: list[int] = []
        self.evacks: list[int] = []
        self._lock = threading.Lock()
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def identify(self) -> p.Identify:
        return p.Identify(proto=p.PROTOCOL_VERSION, fw=(1, 0, 0), boot_id=self.boot_id, tiles=136, walls=4,
                          stacks_per_wall=17, sets=2, lanes=1, caps=0, deadman_ms=1000, fault=0, model="scripted")

    def send(self, msg: p.Message, seq: int) -> None:
        with self._lock:
            os.write(self.master, b"\x00" + p.encode(msg, seq))

    def release_hellos(self) -> None:
        self.identify_held.clear()
        for seq in self.held_hellos:
            self.send(self.identify(), seq)
        self.held_hellos.clear()

    def _serve(self) -> None:
        decoder = p.FrameDecoder()
        while not self._stop:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            for frame in decoder.feed(data):
                if isinstance(frame, Exception):
                    continue
                if isinstance(frame.msg, p.Hello):
                    if self.identify_held.is_set():
                        self.held_hellos.append(frame.seq)
                    else:
                        self.send(self.identify(), frame.seq)
                elif isinstance(frame.msg, p.Ping):
                    self.send(p.Pong(state=0, fault=0), frame.seq)
                elif isinstance(frame.msg, p.EvAck):
                    self.evacks.append(frame.seq)
                elif isinstance(frame.msg, p.Command):
                    self.send(p.Ack(job=getattr(frame.msg, "job", 0), status=p.ACK_DONE, code=0), frame.seq)

    def close(self) -> None:
        self._stop = True
        os.close(self._slave)
        os.close(self.master)


def test_an_event_after_a_reboot_resent_once_its_identify_came_is_delivered_once():
    # The MCU reboots; its boot event and then a button press reach the host before the identify
    # of the hello the boot event started; the press's evack is lost on the line, so the MCU sends
    # the press again after the identify. The identify must not forget the events of the boot
    # already seen (before: it cleared them, and the press came to the daemon twice).
    mcu = ScriptedMcu()
    rec = Recorder()
    link = Link(mcu.port, sink=rec, keeper=False)
    link.start()
    try:
        link.wait_up(10)
        mcu.identify_held.set()
        mcu.boot_id = 0x2222
        mcu.send(p.Boot(boot_id=0x2222, cause=1), 0)
        press = p.SeatButton(seat=2, action=p.BUTTON_ACTIONS.index("ron"))
        mcu.send(press, 1)
        rec.wait(lambda items: any(isinstance(ev, McuEvent) and ev.msg == press for ev in items))
        wait_for(lambda: mcu.held_hellos, 10)          # the hello the boot event started
        mcu.release_hellos()
        rec.wait(lambda items: any(isinstance(ev, LinkUp) and ev.rebooted for ev in items))
        mcu.send(press, 1)                             # its evack was lost: the same copy again
        assert display(link).status == p.ACK_DONE      # a round trip after the copy
        wait_for(lambda: mcu.evacks.count(1) >= 2, 10)
    finally:
        link.close()
        mcu.close()
    assert [ev.msg for ev in rec.of(McuEvent)] == [p.Boot(boot_id=0x2222, cause=1), press]
    assert [up.rebooted for up in rec.of(LinkUp)] == [False, True]


def wait_for(predicate, timeout_s: float) -> None:
    end = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)
