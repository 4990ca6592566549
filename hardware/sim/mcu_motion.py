"""The simulated MCU's motors: which job may run now, timed motion, faults striking a running
part, completions and the latched stop. A mixin of :class:`hardware.sim.mcu.SimMcu` (it uses the
firmware's state, timers and event queue)."""

from __future__ import annotations

from firmware_bridge import protocol as p
from hardware.sim.mcu_model import (
    DURATIONS_S,
    FAULT_PART,
    OVERHEAT_C,
    PART_OF,
    SET_HOPPER,
    SET_SHUFFLING,
    SET_STACKED,
    SET_TABLE,
    SHUFFLE_LIMIT_S,
    Motion,
)


class MotionMixin:
    """The motion half of the firmware logic (see the module docstring)."""

    def _refusal(self, msg: p.JobCommand) -> str:
        """The reject name real firmware gives this command now, or ''."""
        st, m = self.state, self.model
        if isinstance(msg, p.ResetFault):
            if st.lid_open or st.temp_c >= OVERHEAT_C:
                return "fault_active"
            return ""
        if not msg.IS_MOTION:
            if isinstance(msg, p.Display) and "display" not in m.caps:
                return "not_supported"
            return ""
        if st.fault:
            return "halted"
        if st.lid_open:
            return "lid_open"
        part = PART_OF[type(msg)]
        if part in self.motions:
            return "busy"
        if isinstance(msg, p.Lift):
            if msg.walls >> m.walls:
                return "out_of_range"
            if st.centre_open:
                return "bad_state"
            if msg.walls and msg.walls != st.walls_up and st.walls_up == 0:
                if SET_STACKED not in st.sets or SET_TABLE in st.sets:
                    return "bad_state"
        elif isinstance(msg, p.Shuffle):
            # absolute: "set s shuffled and stacked"; already stacked completes at once
            if st.centre_open or st.sets[msg.set] not in (SET_HOPPER, SET_STACKED):
                return "bad_state"
        elif isinstance(msg, p.RollDice):
            if msg.count == 3 and "three_dice" not in m.caps:
                return "not_supported"
            if msg.seat >= m.walls:
                return "out_of_range"
        elif isinstance(msg, p.Deal) and "deal" not in m.caps:
            return "not_supported"
        elif isinstance(msg, p.FlipDora) and "dora_flip" not in m.caps:
            return "not_supported"
        return ""

    def _execute(self, msg: p.JobCommand) -> None:
        st = self.state
        if isinstance(msg, p.Stop):
            self._stop_all("aborted", latched=False)
            return
        if isinstance(msg, p.ResetFault):
            self._note("fault_reset", fault=p.FAULT_NAMES.get(st.fault, st.fault))
            st.fault, st.fault_detail = 0, ""
            return
        if isinstance(msg, p.Config):
            st.deadman_ms = msg.deadman_ms
            return
        if isinstance(msg, p.Display):
            for seat in (range(self.model.walls) if msg.seat == 0xFF else (msg.seat,)):
                st.displays[seat] = msg.text
            return
        part = PART_OF[type(msg)]
        duration = DURATIONS_S[msg.NAME if msg.NAME in DURATIONS_S else part]
        # Absolute commands already satisfied complete at once.
        if isinstance(msg, p.Lift) and msg.walls == st.walls_up:
            duration = 0.0
        if isinstance(msg, p.Centre) and bool(msg.open) == st.centre_open:
            duration = 0.0
        if isinstance(msg, p.Shuffle):
            if st.sets[msg.set] == SET_STACKED:
                duration = 0.0
            else:
                st.sets[msg.set] = SET_SHUFFLING
        duration *= self.time_scale
        now = self.clock()
        motion = Motion(msg.job, msg, part, now, 0)
        fault = self._take_fault(part) if duration else None     # nothing moves: nothing can jam
        if fault is not None:
            name, info = fault
            if name == "shuffle_timeout":
                duration = SHUFFLE_LIMIT_S * self.time_scale
                motion.fault_timer = self._after(duration, lambda: self._fault_job(part, name, **info))
                duration += 1.0    # never completes before the fault
            else:
                motion.fault_timer = self._after(duration * 0.4, lambda: self._fault_job(part, name, **info))
        motion.timer = self._after(duration, lambda: self._complete(part))
        self.motions[part] = motion
        st.motor_power = True
        self._note("motion_start", part=part, job=msg.job, duration_s=round(duration, 4))

    def _take_fault(self, part: str) -> tuple[str, dict[str, int]] | None:
        for name, info in list(self.armed_faults.items()):
            target = FAULT_PART[name]
            if target == part or target == "any":
                del self.armed_faults[name]
                return name, info
        return None

    def _complete(self, part: str) -> None:
        motion = self.motions.pop(part, None)
        if motion is None:
            return
        self._cancel(motion.fault_timer)
        st, m, msg = self.state, self.model, motion.msg
        event: p.Event
        if isinstance(msg, p.Lift):
            if msg.walls and st.walls_up == 0:
                lifted = st.sets.index(SET_STACKED)
                st.sets[lifted] = SET_TABLE
            st.walls_up = msg.walls
            on_table = st.sets.index(SET_TABLE) if SET_TABLE in st.sets else 0xFF
            stacks = [m.stacks_per_wall if msg.walls >> w & 1 else 0 for w in range(m.walls)]
            tiles = [2 * s for s in stacks]
            if self.lift_override is not None and msg.walls:
                stacks, tiles = list(self.lift_override[0]), list(self.lift_override[1])
                self.lift_override = None
            stacks += [0] * (4 - len(stacks))
            tiles += [0] * (4 - len(tiles))
            event = p.LiftDone(msg.job, msg.walls, on_table, tuple(stacks[:4]), tuple(tiles[:4]))
        elif isinstance(msg, p.Centre):
            if st.centre_open and not msg.open and SET_TABLE in st.sets:
                st.sets[st.sets.index(SET_TABLE)] = SET_HOPPER   # the pushed-in tiles
                st.walls_up = 0
            st.centre_open = bool(msg.open)
            event = p.Done(msg.job, msg.TYPE)
        elif isinstance(msg, p.Shuffle) and st.sets[msg.set] == SET_STACKED:
            event = p.ShuffleDone(msg.job, msg.set, self.last_lanes.get(msg.set, self._full_lanes()))
        elif isinstance(msg, p.Shuffle):
            per_lane = m.tiles // m.lanes
            lanes = self.lane_override or self._full_lanes()
            self.lane_override = None
            bad = [i for i, n in enumerate(lanes) if n != per_lane]
            if bad:
                st.sets[msg.set] = SET_HOPPER
                self.motions[part] = motion     # let _fault_job finish it
                self._fault_job(part, "lane_count", detail=bad[0], value=lanes[bad[0]])
                return
            st.sets[msg.set] = SET_STACKED
            self.last_lanes[msg.set] = tuple(lanes)
            event = p.ShuffleDone(msg.job, msg.set, tuple(lanes))
        elif isinstance(msg, p.RollDice):
            values = self.dice_queue.pop(0) if self.dice_queue else ()
            if len(values) != msg.count:
                values = tuple(self._dice_rng.randint(1, 6) for _ in range(msg.count))
            event = p.DiceResult(msg.job, msg.seat, values)
        else:
            event = p.Done(msg.job, msg.TYPE)
        self._finish(motion, event)

    def _full_lanes(self) -> tuple[int, ...]:
        return tuple([self.model.tiles // self.model.lanes] * self.model.lanes)

    def _finish(self, motion: Motion, event: p.Event) -> None:
        rec = self.jobs.get(motion.job)
        if rec is not None:
            rec.completion = event
        if not self.motions:
            self.state.motor_power = False
            self.motors_stopped_at = self.clock()
        self._note("motion_end", part=motion.part, job=motion.job, result=event.NAME)
        self._emit(event)

    def _fault_job(self, part: str, name: str, detail: int = p.NO_DETAIL, value: int = 0) -> None:
        """A motion fault: stop everything, latch, report it against the job that hit it."""
        motion = self.motions.get(part)
        job = motion.job if motion else 0
        if name == "overheat":
            self.state.temp_c = max(self.state.temp_c, value or 92)
            value = self.state.temp_c
            self._after(max(0.2, 10.0 * self.time_scale), self._cool_down)   # drivers cool off
        self._latch(name, job=job, detail=detail, value=value)

    def _cool_down(self) -> None:
        self.state.temp_c = 45
        self._note("cooled", temp_c=45)

    def _latch(self, name: str, *, job: int = 0, detail: int = p.NO_DETAIL, value: int = 0) -> None:
        st = self.state
        code = p.FAULT_CODES[name]
        if not st.fault:
            st.fault = code
            st.fault_detail = name
        self._note("fault", fault=name, job=job, detail=detail, value=value)
        hit = p.Fault(job, code, 1, detail, value)
        if job:
            rec = self.jobs.get(job)
            if rec is not None:
                rec.completion = hit
        self._emit(hit)
        self._stop_all(name, latched=True, except_job=job)

    def _stop_all(self, reason: str, *, latched: bool, except_job: int = 0) -> None:
        """Stop every motor, drivers off; each other running job ends in a fault event."""
        motions = list(self.motions.values())
        self.motions.clear()
        code = p.FAULT_CODES[reason]
        for motion in motions:
            self._cancel(motion.timer)
            self._cancel(motion.fault_timer)
            if isinstance(motion.msg, p.Shuffle) and self.state.sets[motion.msg.set] == SET_SHUFFLING:
                self.state.sets[motion.msg.set] = SET_HOPPER
            if motion.job == except_job:
                continue
            ev = p.Fault(motion.job, code, int(latched), p.NO_DETAIL, 0)
            rec = self.jobs.get(motion.job)
            if rec is not None:
                rec.completion = ev
            self._emit(ev)
        if self.state.motor_power or motions:
            self.motors_stopped_at = self.clock()
        self.state.motor_power = False
        self._note("motors_stopped", reason=reason, jobs=[m.job for m in motions])
