"""The machine cycle of the automatic table, as a pure state machine.

``step(state, event, now) -> (state, [Command])``: no I/O, no clock (``now`` comes in), the
state passed in is never changed. The cycle is the only part of the controller that commands
motors: the game tracker *asks* for the next hand's walls (its ``cmd.lift``, fed back in here
as a request, or ``StartGame``), the cycle decides when each motion may run.

Phases (``CycleState.state``)::

    idle ──(StartGame / next hand)──▶ closing ──▶ [waiting_stack] ──▶ lifting ──▶ ready
      ▲                                  ▲                                          │ Button(dice)
      │ Reset                            │ Button(ok) = tiles pushed in             ▼
    halted ◀── any fault            receiving ◀──(next hand)── playing ◀── DiceResult ── dice

- ``receiving``: the centre opening opens (``Centre(is_open=True)``), the players push the
  tiles in; any seat's ``ok`` button says they are in, then the opening closes. An ``ok`` before
  the firmware reported the opening open (``CentreDone``) is ignored: no tile can be in yet, and a
  close sent while the opening still moves would be refused ``busy`` and halt the table (a second
  press to confirm a hand's result, or one that shows again, comes just then).
- ``closing`` → ``lifting``: once the opening is closed and a set is stacked inside, the walls
  go up (``LiftWalls``); a set still shuffling is waited for (``waiting_stack``).
- after ``lift_done`` the returned set is shuffled in the background (``ShuffleSet``, about 60 s);
  a shuffle running past ``shuffle_limit_s`` (80 s) halts the table, as does an MCU fault.
- ``halted``: latched with a one-line ``reason`` on any MCU fault (but the ``deadman`` of a
  host that fell silent while no motor ran, which stopped nothing: it is cleared with
  ``ResetFault`` and the phase goes on), the e-stop, the lid opened
  during motion, the link lost during a motion or a shuffle, or a shuffle over the limit; motors are stopped
  (``StopMotors``). Only an operator ``Reset`` leaves it, and only with the e-stop released and
  the lid closed; the cycle then returns to ``idle`` (``ResetFault``, ``MotorPower(on)``).
- No motion command is ever returned while the e-stop is pressed or the lid is open, nor while
  the MCU link is down (a link lost while nothing moved does not halt the table): a motion
  due then waits in ``pending`` and goes out when all allow it.

Inputs are the events of ``controller.events`` (``StartGame``, ``LiftDone``, ``StackReady``,
``DiceResult``, ``Button``, ``McuFault``, ``EStop``, ``Lid``, ``LinkLost``, ``LinkRestored``,
``Reset``, ``HostRestarted``: the daemon started again, the motion under way is asked for
again), the game's ``Lift`` command (a request for the next hand's walls), and ``CentreDone``
(the firmware's ``done`` for the centre opening).

>>> s, cmds = step(initial_state(), ev.StartGame(ruleset="tenhou", now=0.0), 0.0)
>>> s.state, [c.KIND for c in cmds]
('closing', ['machine.centre'])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

from controller import events as ev

HALTED, IDLE = "halted", "idle"
MOTION_PHASES = ("receiving", "closing", "lifting")
STILL_PHASES = ("ready", "playing")      # walls up, the game on: no motor of the cycle runs (but a shuffle)


# --------------------------------------------------------------------------- events and commands

CentreDone = ev.CentreDone    # the firmware's ``done`` for the centre opening (controller/events.py)


@dataclass(frozen=True, kw_only=True)
class MachineCommand(ev.Command):
    """A command of the machine cycle (carried out by the firmware part)."""

    is_motion: ClassVar[bool] = False


@dataclass(frozen=True, kw_only=True)
class Centre(MachineCommand):
    """Open or close the centre opening."""

    KIND: ClassVar[str] = "machine.centre"
    is_motion: ClassVar[bool] = True
    is_open: bool


@dataclass(frozen=True, kw_only=True)
class LiftWalls(MachineCommand):
    """Raise every wall of the stacked set."""

    KIND: ClassVar[str] = "machine.lift"
    is_motion: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class ShuffleSet(MachineCommand):
    """Shuffle and stack ``tile_set`` (0 or 1) in the background."""

    KIND: ClassVar[str] = "machine.shuffle"
    is_motion: ClassVar[bool] = True
    tile_set: int


@dataclass(frozen=True, kw_only=True)
class StopMotors(MachineCommand):
    """Stop every motor now (never refused)."""

    KIND: ClassVar[str] = "machine.stop"
    reason: str


@dataclass(frozen=True, kw_only=True)
class MotorPower(MachineCommand):
    """Switch the motor-power relay."""

    KIND: ClassVar[str] = "machine.motor_power"
    is_on: bool


@dataclass(frozen=True, kw_only=True)
class ResetFault(MachineCommand):
    """Clear the MCU's latched fault (operator reset)."""

    KIND: ClassVar[str] = "machine.reset_fault"


# --------------------------------------------------------------------------- state

@dataclass(frozen=True)
class CycleProfile:
    """The numbers the cycle needs (from the table profile): walls, timings."""

    walls: int = 4
    shuffle_expected_s: float = 60.0
    shuffle_limit_s: float = 80.0

    def __post_init__(self) -> None:
        if self.walls not in (3, 4):
            raise ValueError(f"cycle: walls is {self.walls}, must be 3 or 4")
        if not 0 < self.shuffle_expected_s < self.shuffle_limit_s:
            raise ValueError(f"cycle: shuffle_limit_s is {self.shuffle_limit_s}, must exceed "
                             f"shuffle_expected_s {self.shuffle_expected_s}")


@dataclass(frozen=True)
class CycleState:
    """Plain data, safe to show: ``state`` is the phase name the panel reads."""

    state: str = IDLE                       # the phase (the panel reads "state")
    reason: str = ""                        # one line, set when halted
    on_table: int | None = None             # tile set on the table (walls up / being played)
    stacked: int | None = 0                 # set stacked inside, ready to lift (power-on: set 0)
    hopper: int | None = 1                  # set returned, waiting for a shuffle
    shuffling: int | None = None
    shuffle_started_at: float | None = None
    estop: bool = False
    lid_open: bool = False
    link_up: bool = True
    pending: tuple[MachineCommand, ...] = ()
    last_counts: tuple[int, ...] = ()
    profile: CycleProfile = field(default_factory=CycleProfile)
    halted_in: str = ""                     # the phase the table stopped in (what a retry takes up again)
    paused: bool = False                    # staff paused the game: motions wait until resumed
    centre_open: bool = False               # the opening reported open (CentreDone), no centre move asked since

    @property
    def motion_allowed(self) -> bool:
        return (not self.estop and not self.lid_open and self.state != HALTED and not self.paused
                and self.link_up)

    def refusal(self) -> str | None:
        """Why no motor may run now, or None."""
        if self.estop:
            return "e-stop pressed"
        if self.lid_open:
            return "lid open"
        if self.state == HALTED:
            return f"halted: {self.reason}"
        if self.paused:
            return "paused by staff"
        if not self.link_up:
            return "MCU link down"
        return None


def initial_state(profile: CycleProfile | None = None) -> CycleState:
    return CycleState(profile=profile or CycleProfile())


# --------------------------------------------------------------------------- step

def step(state: CycleState, event: ev.Event | ev.Command, now: float) -> tuple[CycleState, list[MachineCommand]]:
    """Feed one event (or the game's ``Lift`` request); return the new state and the commands."""
    if isinstance(event, CentreDone):      # where the opening is, in any phase (halted too)
        state = dataclasses.replace(state, centre_open=event.is_open)
    s, cmds = _step(state, event, now)
    if any(isinstance(c, Centre) for c in cmds):
        s = dataclasses.replace(s, centre_open=False)       # moving (or due to move): not open for tiles
    s, cmds = _watch_shuffle(s, now, cmds)
    return _release(s, cmds)


def _step(s: CycleState, e: object, now: float) -> tuple[CycleState, list[MachineCommand]]:
    if isinstance(e, ev.EStop):
        s = dataclasses.replace(s, estop=e.is_pressed)
        if e.is_pressed:
            return _halt(s, "emergency stop pressed", power_off=True)
        return s, []
    if isinstance(e, ev.Lid):
        moving = s.state in MOTION_PHASES or s.shuffling is not None
        s = dataclasses.replace(s, lid_open=e.is_open)
        if e.is_open and moving and s.state != HALTED:
            return _halt(s, "lid opened during motion")
        return s, []
    if isinstance(e, ev.McuFault):
        if e.code == "aborted":
            return s, []          # our own stop ended a job: already halted or stopping on purpose
        if e.code == "deadman" and s.state in STILL_PHASES and s.shuffling is None:
            # the host was silent past the deadman (a loaded machine) while no motor ran: the MCU
            # stopped nothing; its latch is cleared and the table goes on (the fault stays listed).
            # Also when the MCU reports it latched as the link comes back (the clear sent as the
            # link went down was lost); one found at power-on finds the cycle idle: the operator
            # decides
            return s, [ResetFault()]
        detail = f": {e.detail}" if e.detail else ""
        return _halt(s, f"MCU fault {e.code}{detail}")
    if isinstance(e, ev.LinkLost):
        s = dataclasses.replace(s, link_up=False)
        if s.state in STILL_PHASES and s.shuffling is None:
            # nothing was moving (a loaded host's MCU process ran late, a cable pulled during play):
            # no motion goes out until the link is back (``motion_allowed``); a deadman the MCU
            # latched meanwhile is reported when it comes back and cleared as above
            return s, []
        return _halt(s, f"MCU link lost{': ' + e.reason if e.reason else ''}")
    if isinstance(e, ev.LinkRestored):
        return dataclasses.replace(s, link_up=True), []
    if isinstance(e, ev.Reset):
        return _reset(s)
    if isinstance(e, ev.HostRestarted):
        return _restarted(s, now)
    if isinstance(e, ev.Correction) and e.what in WAYS_ON:
        return _way_on(s, e.what, now)
    if isinstance(e, ev.Correction) and e.what in ("pause", "resume"):
        # staff pause the game: no new motion starts until they resume (a motion under way ends)
        return dataclasses.replace(s, paused=e.what == "pause"), []
    if s.state == HALTED:
        return s, []              # latched: keeps answering status, ignores the rest
    if isinstance(e, ev.StackReady):
        s = dataclasses.replace(s, stacked=s.shuffling, shuffling=None, shuffle_started_at=None)
        if s.state == "waiting_stack":
            return dataclasses.replace(s, state="lifting"), [LiftWalls()]
        return s, []
    if isinstance(e, ev.StartGame | ev.Lift):
        if s.state in (IDLE, "playing", "ready", "dice"):
            return _next_hand(s)
        return s, []
    if isinstance(e, CentreDone):
        if s.state == "closing" and not e.is_open:
            if s.on_table is not None:             # the pushed-in set is now in the hopper
                s = dataclasses.replace(s, hopper=s.on_table, on_table=None)
            if s.stacked is None:
                return dataclasses.replace(s, state="waiting_stack"), []
            return dataclasses.replace(s, state="lifting"), [LiftWalls()]
        return s, []
    if isinstance(e, ev.Button):
        if s.state == "receiving" and e.action == "ok" and s.centre_open:
            return dataclasses.replace(s, state="closing"), [Centre(is_open=False)]
        if s.state == "ready" and e.action == "dice":
            return dataclasses.replace(s, state="dice"), []
        return s, []
    if isinstance(e, ev.LiftDone):
        if s.state != "lifting":
            return s, []
        s = dataclasses.replace(s, state="ready", on_table=s.stacked, stacked=None, last_counts=e.counts)
        if s.hopper is not None and s.shuffling is None:
            return (dataclasses.replace(s, shuffling=s.hopper, hopper=None, shuffle_started_at=now),
                    [ShuffleSet(tile_set=s.hopper)])
        return s, []
    if isinstance(e, ev.DiceResult):
        if s.state in ("ready", "dice"):
            return dataclasses.replace(s, state="playing"), []
        return s, []
    return s, []


def _restarted(s: CycleState, now: float) -> tuple[CycleState, list[MachineCommand]]:
    """The host started again: the MCU's deadman stopped what it was doing when the host went
    silent. The motion of the phase is asked for again (absolute commands: one already done
    completes at once), and a shuffle cut short starts again from now."""
    if s.state == HALTED:
        return s, []
    cmds: list[MachineCommand] = []
    if s.state == "receiving":
        cmds.append(Centre(is_open=True))
    elif s.state == "closing":
        cmds.append(Centre(is_open=False))
    elif s.state == "lifting":
        cmds.append(LiftWalls())
    if s.shuffling is not None:
        s = dataclasses.replace(s, shuffle_started_at=now)
        cmds.append(ShuffleSet(tile_set=s.shuffling))
    return s, cmds


def _next_hand(s: CycleState) -> tuple[CycleState, list[MachineCommand]]:
    if s.on_table is None:           # nothing to push in (first hand after power-on or a reset)
        return dataclasses.replace(s, state="closing"), [Centre(is_open=False)]
    return dataclasses.replace(s, state="receiving"), [Centre(is_open=True)]


def _halt(s: CycleState, reason: str, *, power_off: bool = False) -> tuple[CycleState, list[MachineCommand]]:
    if s.state == HALTED:
        return s, []              # the first reason stays (it is the cause)
    cmds: list[MachineCommand] = [StopMotors(reason=reason)]
    if power_off:
        cmds.append(MotorPower(is_on=False))
    # a shuffle cut short leaves its set in the hopper
    hopper = s.shuffling if s.shuffling is not None else s.hopper
    return dataclasses.replace(s, state=HALTED, reason=reason, pending=(), shuffling=None,
                               shuffle_started_at=None, hopper=hopper, halted_in=s.state), cmds


BUILD_PHASES = ("receiving", "closing", "waiting_stack", "lifting")
WAYS_ON = ("retry", "continue")


def _way_on(s: CycleState, how: str, now: float) -> tuple[CycleState, list[MachineCommand]]:
    if s.state != HALTED:
        return s, []              # nothing stopped: nothing to take up
    s, cmds = _way_on_phase(s, how)
    if s.state != HALTED and s.hopper is not None and s.shuffling is None and s.stacked is None \
            and s.state != "lifting":
        # the shuffle the stop cut short starts again: the next walls need that set
        s = dataclasses.replace(s, shuffling=s.hopper, hopper=None, shuffle_started_at=now)
        cmds = cmds + [ShuffleSet(tile_set=s.shuffling)]
    return s, cmds


def _way_on_phase(s: CycleState, how: str) -> tuple[CycleState, list[MachineCommand]]:
    """Staff's way on after a stop (a ``staff.correction`` ``retry`` or ``continue``): the fault is
    cleared as by a reset, then ``retry`` takes up the build where it stopped (the opening closed
    again, the walls lifted again); ``continue`` takes the walls as up (raised by hand) and waits
    for the dice. A stop outside a build goes back to the phase it stopped in. A shuffle the stop
    cut short is started again."""
    if s.state != HALTED:
        return s, []
    was = s.halted_in
    s, cmds = _reset(s)
    if s.state == HALTED:
        return s, cmds            # the e-stop, the lid or the link still say no
    if was in BUILD_PHASES and how == "continue":
        return dataclasses.replace(s, state="ready", on_table=s.stacked, stacked=None), cmds
    if was in ("receiving", "closing"):
        return dataclasses.replace(s, state="closing"), cmds + [Centre(is_open=False)]
    if was in ("waiting_stack", "lifting"):
        if s.stacked is None:
            return dataclasses.replace(s, state="waiting_stack"), cmds
        return dataclasses.replace(s, state="lifting"), cmds + [LiftWalls()]
    if was in ("ready", "dice", "playing"):
        return dataclasses.replace(s, state=was), cmds
    return s, cmds


def _reset(s: CycleState) -> tuple[CycleState, list[MachineCommand]]:
    if s.state != HALTED:
        return s, []
    if s.estop:
        return dataclasses.replace(s, reason=f"{s.reason} (reset refused: e-stop still pressed)"
                                   if "reset refused" not in s.reason else s.reason), []
    if s.lid_open:
        return dataclasses.replace(s, reason=f"{s.reason} (reset refused: lid open)"
                                   if "reset refused" not in s.reason else s.reason), []
    if not s.link_up:
        return s, []
    return dataclasses.replace(s, state=IDLE, reason=""), [ResetFault(), MotorPower(is_on=True)]


def _watch_shuffle(s: CycleState, now: float, cmds: list[MachineCommand]
                   ) -> tuple[CycleState, list[MachineCommand]]:
    if s.shuffle_started_at is not None and now - s.shuffle_started_at > s.profile.shuffle_limit_s:
        s, more = _halt(s, f"shuffle over {s.profile.shuffle_limit_s:g} s "
                           f"({now - s.shuffle_started_at:.0f} s)")
        return s, cmds + more
    return s, cmds


def _release(s: CycleState, cmds: list[MachineCommand]) -> tuple[CycleState, list[MachineCommand]]:
    """Hold motion while the e-stop or the lid says no; send what waited once both allow it."""
    if s.state == HALTED:
        return s, [c for c in cmds if not c.is_motion]
    queue = list(s.pending) + [c for c in cmds if c.is_motion]
    other = [c for c in cmds if not c.is_motion]
    if not s.motion_allowed:
        return dataclasses.replace(s, pending=tuple(queue)), other
    return dataclasses.replace(s, pending=()), other + queue
