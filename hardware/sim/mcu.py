"""The simulated table MCU's firmware logic, speaking hardware/PROTOCOL.md.

``SimMcu`` is what firmware would be: bytes between delimiters in -> frames -> commands ->
timed motion -> events out, with the deadman, the job table (duplicate suppression) and
bounded event retransmission of the spec. It is single-threaded and takes its time from a
``clock`` (monotonic seconds), so tests can run it in-process with a fake clock.

``hardware/sim/mcu_shell.py`` runs it as its own process on a pseudo-terminal (the host opens
the slave path with pyserial exactly as it would open ``/dev/ttyACM0``), with line faults and
the control socket. Test hooks never travel on the serial line: a test or the scripted game
talks to the simulator through that socket (PROTOCOL.md §9), so the wire stays exactly what
real firmware accepts.
"""

from __future__ import annotations

import heapq
import json
import logging
import random
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from firmware_bridge import protocol as p
from hardware.sim.mcu_model import (
    DURATIONS_S,
    EVENT_RTO_S,
    EVENT_WINDOW,
    FAULT_PART,
    FIRMWARE_VERSION,
    JOB_TABLE_SIZE,
    OUT_BUFFER_MAX,
    OVERHEAT_C,
    PART_OF,
    SET_HOPPER,
    SET_SHUFFLING,
    SET_STACKED,
    SET_TABLE,
    SHUFFLE_LIMIT_S,
    JobRecord,
    Motion,
    OutEvent,
    SimState,
    TableModel,
)
from hardware.sim.mcu_motion import MotionMixin

log = logging.getLogger(__name__)

__all__ = ["DURATIONS_S", "EVENT_RTO_S", "EVENT_WINDOW", "FAULT_PART", "FIRMWARE_VERSION", "JOB_TABLE_SIZE",
           "OUT_BUFFER_MAX", "OVERHEAT_C", "PART_OF", "SET_HOPPER", "SET_SHUFFLING", "SET_STACKED", "SET_TABLE",
           "SHUFFLE_LIMIT_S", "JobRecord", "Motion", "OutEvent", "SimMcu", "SimState", "TableModel", "log"]



class SimMcu(MotionMixin):
    """The firmware logic. ``now`` comes from ``clock`` (monotonic seconds)."""

    def __init__(self, model: TableModel, *, time_scale: float = 1.0, seed: int | None = 0,
                 deadman_ms: int = 500, send: Callable[[bytes], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not 0.0001 <= time_scale <= 100:
            raise ValueError(f"sim-mcu: time_scale is {time_scale}, must be 0.0001..100")
        self.model = model
        self.time_scale = time_scale
        self.clock = clock
        self._rng = random.Random(seed)
        # the dice, as the firmware's: from a CSPRNG (the OS's here) unless seeded for a test
        self._dice_rng = random.SystemRandom() if seed is None else random.Random(seed)
        self._send_bytes = send or (lambda data: None)
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._timer_ids = 0
        self._cancelled: set[int] = set()
        self.executed: dict[int, int] = {}          # job id -> times executed (never > 1 if correct)
        self.log_lines: list[dict[str, object]] = []
        self.dice_queue: list[tuple[int, ...]] = []
        self.lift_override: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.lane_override: tuple[int, ...] | None = None
        self.armed_faults: dict[str, dict[str, int]] = {}
        self.lose_events = False      # every event copy is lost on the line (control ``lose_events``)
        self._initial_deadman_ms = deadman_ms
        self.boot(cause=0)

    # ---------------------------------------------------------------- lifecycle
    def boot(self, cause: int) -> None:
        """(Re)start the firmware: everything volatile is lost, a ``boot`` event goes out."""
        # random per start even with a fixed --seed: a restarted MCU must look restarted
        boot_id = random.SystemRandom().getrandbits(32)
        self.state = SimState(boot_id=boot_id, deadman_ms=self._initial_deadman_ms)
        self.session: int | None = None
        self.jobs: OrderedDict[int, JobRecord] = OrderedDict()
        self.motions: dict[str, Motion] = {}
        self.outbox: OrderedDict[int, OutEvent] = OrderedDict()
        self.held_back: deque[p.Event] = deque()   # events waiting for a free seq (all 256 kept)
        self.last_lanes: dict[int, tuple[int, ...]] = {}
        self.event_seq = 0
        self.last_rx: float | None = None     # deadman armed once a valid host frame arrived
        self.deadman_at: float | None = None
        self.motors_stopped_at: float | None = None
        self.rx_errors = 0
        self.rx_frames = 0
        self._cancelled.update(t[1] for t in self._timers)
        self._timers.clear()
        self._note("boot", boot_id=self.state.boot_id, cause=cause)
        self._emit(p.Boot(boot_id=self.state.boot_id, cause=cause))

    def _note(self, what: str, **fields: object) -> None:
        entry = {"t": round(self.clock(), 4), "event": what, **fields}
        self.log_lines.append(entry)
        if len(self.log_lines) > 2000:
            del self.log_lines[:1000]
        log.info("%s", json.dumps(entry))

    # ---------------------------------------------------------------- timers
    def _after(self, delay_s: float, fn: Callable[[], None]) -> int:
        self._timer_ids += 1
        heapq.heappush(self._timers, (self.clock() + delay_s, self._timer_ids, fn))
        return self._timer_ids

    def _cancel(self, timer_id: int | None) -> None:
        if timer_id is not None:
            self._cancelled.add(timer_id)

    def next_deadline(self) -> float | None:
        """The earliest time ``poll`` has something to do (timers, retransmits, deadman)."""
        times = [t for t, tid, _ in self._timers[:1] if tid not in self._cancelled]
        if self._timers and not times:
            times = [self._timers[0][0]]
        pending = [e.due for e in self.outbox.values() if not e.parked and e.tries]
        times += pending
        if self.last_rx is not None and self.deadman_at is None:
            times.append(self.last_rx + self.state.deadman_ms / 1000.0)
        return min(times) if times else None

    def poll(self) -> None:
        """Run what is due now: timers, deadman, event (re)transmission."""
        now = self.clock()
        while self._timers and self._timers[0][0] <= now:
            _, tid, fn = heapq.heappop(self._timers)
            if tid in self._cancelled:
                self._cancelled.discard(tid)
                continue
            fn()
        if (self.last_rx is not None and self.deadman_at is None
                and now - self.last_rx >= self.state.deadman_ms / 1000.0):
            self._deadman(now)
        self._pump_events(now)

    # ---------------------------------------------------------------- receive
    def on_frame_bytes(self, chunk: bytes) -> None:
        """One chunk between delimiters from the line (already through the line faults)."""
        try:
            frame = p.decode_frame(chunk)
        except (p.FramingError, p.ChecksumError):
            self.rx_errors += 1     # not ours to answer: the host retransmits
            return
        except p.ProtocolError as err:
            self.rx_errors += 1
            self._rx_valid()
            if err.seq is not None and err.type_id is not None and err.type_id < 0x80:
                code = {p.UnknownMessage: "unknown_command", p.LengthError: "bad_length"}.get(
                    type(err), "out_of_range")
                self._note("rejected", type=err.type_id, reason=code, error=str(err))
                self._reply(err.seq, p.Ack(p.ACK_REJECTED, p.REJECT_CODES[code], (err.job or 0) & 0xFFFF))
            return
        self.rx_frames += 1
        self._rx_valid()
        msg = frame.msg
        if isinstance(msg, p.Command):
            self._handle(frame.seq, msg)
        else:
            self._reply(frame.seq, p.Ack(p.ACK_REJECTED, p.REJECT_CODES["unknown_command"], 0))

    def _rx_valid(self) -> None:
        self.last_rx = self.clock()

    def _handle(self, seq: int, msg: p.Command) -> None:
        st = self.state
        if isinstance(msg, p.Hello):
            if msg.session != self.session:
                self.jobs.clear()       # job ids are per session
                self.session = msg.session
            for ev in self.outbox.values():   # re-deliver what the host may have missed
                ev.parked, ev.tries, ev.due = False, 0, 0.0
            m = self.model
            self._reply(seq, p.Identify(
                proto=p.PROTOCOL_VERSION, fw=FIRMWARE_VERSION, boot_id=st.boot_id, tiles=m.tiles,
                walls=m.walls, stacks_per_wall=m.stacks_per_wall, sets=2, lanes=m.lanes,
                caps=m.caps_mask, deadman_ms=st.deadman_ms, fault=st.fault, model=m.model))
        elif isinstance(msg, p.Ping):
            self._reply(seq, p.Pong(self._machine_state(), st.fault))
        elif isinstance(msg, p.GetStatus):
            self._reply(seq, p.Status(
                state=self._machine_state(), fault=st.fault, motor_power=int(st.motor_power),
                lid_open=int(st.lid_open), centre_open=int(st.centre_open), walls_up=st.walls_up,
                sets=(st.sets[0], st.sets[1]), temp_c=max(-128, min(127, st.temp_c)),
                rx_errors=min(self.rx_errors, 0xFFFF),
                jobs=tuple(m.msg.TYPE for m in self.motions.values())[:8]))
        elif isinstance(msg, p.EvAck):
            if self.outbox.pop(seq, None) is not None:
                self._admit()
        elif isinstance(msg, p.Bye):
            if self.motions:
                self._stop_all("aborted", latched=False)
            self.last_rx = None        # disarmed until the host speaks again
            self._note("bye")
            self._reply(seq, p.Ack(p.ACK_DONE, 0, 0))
        elif isinstance(msg, p.JobCommand):
            self._job(seq, msg)

    def _machine_state(self) -> int:
        return 2 if self.state.fault else (1 if self.motions else 0)

    # ---------------------------------------------------------------- jobs
    def _job(self, seq: int, msg: p.JobCommand) -> None:
        rec = self.jobs.get(msg.job)
        if rec is not None:
            if rec.msg != msg:
                self._reply(seq, p.Ack(p.ACK_REJECTED, p.REJECT_CODES["job_conflict"], msg.job))
                return
            # A retransmission: never execute twice; answer as before (flagged duplicate).
            is_rejected = rec.ack.status == p.ACK_REJECTED
            code = rec.ack.code if is_rejected else rec.ack.code | p.ACK_DUPLICATE
            self._reply(seq, p.Ack(rec.ack.status, code, msg.job))
            if rec.completion is not None:
                self._emit(rec.completion)
            return
        reason = self._refusal(msg)
        if reason:
            ack = p.Ack(p.ACK_REJECTED, p.REJECT_CODES[reason], msg.job)
            self._note("rejected", job=msg.job, cmd=msg.NAME, reason=reason)
        else:
            self.executed[msg.job] = self.executed.get(msg.job, 0) + 1
            self._note("execute", job=msg.job, cmd=msg.NAME)
            ack = p.Ack(p.ACK_ACCEPTED if msg.HAS_EVENT else p.ACK_DONE, 0, msg.job)
        self.jobs[msg.job] = JobRecord(msg, ack)
        while len(self.jobs) > JOB_TABLE_SIZE:
            self.jobs.popitem(last=False)
        self._reply(seq, ack)
        if not reason:
            self._execute(msg)

    def _deadman(self, now: float) -> None:
        self.deadman_at = now
        self._note("deadman", silent_s=round(now - (self.last_rx or now), 4), moving=bool(self.motions))
        self._latch("deadman")
        self.last_rx = None          # disarmed until the host speaks again

    # ---------------------------------------------------------------- sim inputs
    def set_lid(self, is_open: bool) -> None:
        self.state.lid_open = is_open
        self._note("lid", open=is_open)
        if is_open and self.motions:
            self._latch("lid_open", job=next(iter(self.motions.values())).job)

    def press(self, seat: int, action: str) -> None:
        """A seat button on the rail (simulated players press them through the control socket)."""
        if action not in p.BUTTON_ACTIONS or not 0 <= seat < self.model.walls:
            raise ValueError(f"press: seat {seat} / action {action!r}: seat must be 0..{self.model.walls - 1}, "
                             f"action one of {', '.join(p.BUTTON_ACTIONS)}")
        self._note("button", seat=seat, action=action)
        self._emit(p.SeatButton(seat, p.BUTTON_ACTIONS.index(action)))

    def set_temperature(self, temp_c: int) -> None:
        self.state.temp_c = temp_c
        if temp_c >= OVERHEAT_C and self.motions:
            self._latch("overheat", job=next(iter(self.motions.values())).job, value=temp_c)

    def arm_fault(self, name: str, detail: int = p.NO_DETAIL, value: int = 0) -> None:
        if name not in FAULT_PART:
            raise ValueError(f"sim-mcu: fault {name!r} unknown, one of {sorted(FAULT_PART)}")
        info = {"detail": detail, "value": value}
        if name == "lane_count":
            per_lane = self.model.tiles // self.model.lanes
            lane = 0 if detail == p.NO_DETAIL else detail
            counts = [per_lane] * self.model.lanes
            counts[lane] = value or per_lane - 1
            self.lane_override = tuple(counts)
            return
        self.armed_faults[name] = info

    # ---------------------------------------------------------------- send
    def _reply(self, seq: int, msg: p.Reply) -> None:
        self._send_bytes(b"\x00" + p.encode(msg, seq))

    def _emit(self, msg: p.Event) -> None:
        self.held_back.append(msg)
        self._admit()
        self._pump_events(self.clock())

    def _admit(self) -> None:
        """Give waiting events their seqs: the next seq not held by an event still kept (a seq is
        never reused while its event waits for an evack, say parked across 255 newer ones); while
        all 256 are kept, new events wait, in order."""
        while self.held_back and len(self.outbox) < 256:
            seq = self.event_seq
            while seq in self.outbox:
                seq = (seq + 1) & 0xFF
            self.event_seq = (seq + 1) & 0xFF
            self.outbox[seq] = OutEvent(seq, self.held_back.popleft())

    def _pump_events(self, now: float) -> None:
        in_flight = 0
        for ev in list(self.outbox.values()):
            if ev.parked:
                continue
            if in_flight >= EVENT_WINDOW:
                break
            in_flight += 1
            if ev.tries and ev.due > now:
                continue
            if ev.tries >= len(EVENT_RTO_S):
                ev.parked = True    # bounded: re-sent after the next hello
                self._note("event_parked", seq=ev.seq, name=ev.msg.NAME)
                continue
            if self.lose_events:        # the line loses the copy: no evack comes
                self._note("event_lost", seq=ev.seq, name=ev.msg.NAME)
            else:
                self._send_bytes(b"\x00" + p.encode(ev.msg, ev.seq) * (2 if ev.tries else 1))
            ev.due = now + EVENT_RTO_S[ev.tries]
            ev.tries += 1

    # ---------------------------------------------------------------- observation
    def snapshot(self) -> dict[str, object]:
        st = self.state
        return {
            "boot_id": st.boot_id, "fault": p.FAULT_NAMES.get(st.fault, "") if st.fault else "",
            "motor_power": st.motor_power, "motors_running": bool(self.motions),
            "motions": {part: m.job for part, m in self.motions.items()},
            "lid_open": st.lid_open, "centre_open": st.centre_open, "walls_up": st.walls_up,
            "sets": [p.SET_STATE_NAMES[s] for s in st.sets],
            "temp_c": st.temp_c, "deadman_ms": st.deadman_ms, "displays": dict(st.displays),
            "deadman_at": self.deadman_at, "motors_stopped_at": self.motors_stopped_at,
            "last_rx": self.last_rx, "rx_errors": self.rx_errors, "rx_frames": self.rx_frames,
            "session": self.session, "outbox": len(self.outbox), "held_back": len(self.held_back),
            "executed_jobs": len(self.executed),
            "duplicated_jobs": sum(1 for n in self.executed.values() if n > 1),
        }
