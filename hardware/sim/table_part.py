"""The simulated table as one daemon part: ``tablectl demo --script FILE`` played physically.

:class:`SimTablePart` (``controller.daemon.Part``) puts together what a real table has:

- **firmware**: the simulated MCU process (``hardware.sim.mcu_process.SimMcuProcess``) on a
  pty, driven over the real serial link (``firmware_bridge.table.SerialTable``). The game's
  ``Shuffle``/``Lift``/``RollDice`` commands become MCU jobs (lower, centre open/close to take
  the old set in, shuffle when no set is stacked, lift; roll the dice) and their completions
  come back as ``LiftDone`` / ``DiceResult`` events with the counts and values the MCU
  reported. Just before each job the :class:`~hardware.sim.table.SimTable` sets, through the
  simulator-only control hooks, what the machine physically produces (the walls' counts,
  the dice of the script's roll).
- **seat buttons**: gpiozero input devices (active low, pulled up) on a ``MockFactory``; the simulated players press
  them by driving the mock pins low and high; each press becomes a ``Button`` event.
- **camera**: ``rendered`` (the default): the table state is drawn by
  ``hardware.sim.scene.SceneRenderer``, calibrated from its own markers and read by
  ``vision.reader.TableReader`` with the shipped tile model; ``perfect``: the table state read
  without error (``table_eyes.perfect_view``), only when asked for (fast tests;
  ``$JANTAKU_SIM_CAMERA`` = rendered | perfect | auto, where ``auto`` takes ``rendered`` when
  ``vision/models/tiles.onnx`` is in the build). Either way ``table_eyes.ViewTracker`` turns
  the views into events.
- **staff**: the game is started as staff would start it (ruleset, players, and for an
  excerpt the round, honba, sticks and scores it starts from).

The daemon never sees the script.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import events as ev
from hardware.sim import script as sim_script
from hardware.sim.table import VISIBLE_OPS, SimTable, SimTableError, frame_breaks  # noqa: F401
from hardware.sim.table_eyes import ViewTracker, look_until_agreed, misread, perfect_view
from vision.reader import TableView

log = logging.getLogger(__name__)

BUTTON_ACTIONS = ev.BUTTON_ACTIONS
# Simulated seat buttons: BCM pin per (seat, action), active low with pull-ups. Provisional
# until hardware/pinmaps/ names them; only the mock pins use it.
BUTTON_PINS: dict[tuple[int, str], int] = {
    (seat, action): 2 + 6 * seat + k for seat in range(4) for k, action in enumerate(BUTTON_ACTIONS)}
STEP_S = 0.5          # seconds between two actions at speed 1
LIFT_TIMEOUT_S = 60.0
LOOKS = 6             # frames of one table state at most, until two in a row agree
LOOK_AGAIN_S = 0.5    # while the table waits on the daemon, the camera looks again this often
RESULT_WAIT_S = 60.0  # the dealer waits this long for a result on the display before pressing OK anyway


class SimTablePart:
    """The physically simulated table (MCU process + link, mock seat buttons, camera)."""

    name = "sim-table"

    def __init__(self, path: str | Path, *, speed: float = 1.0, ruleset: str = "tenhou",
                 injects: list[dict] | None = None, camera: str | None = None, workdir: str | Path | None = None,
                 time_scale: float | None = None, seed: int = 0) -> None:
        faults = [sim_script.Fault(f["rule"], f["hand"], f.get("seat")) for f in injects or []]
        try:
            self.script = sim_script.load_script(str(path), injects=faults, seed=seed)
        except (ValueError, OSError) as err:
            raise SimTableError(f"[game] script {path}: {err}") from err
        self.path = Path(path)
        self.speed = float(speed)
        self.ruleset = ruleset
        self.camera_mode = self._camera_mode(camera)
        self._own_workdir = workdir is None      # made at start, short: a control socket's path has a length limit
        self.workdir = Path(workdir) if workdir else None
        self.time_scale = time_scale if time_scale is not None else (
            0.001 if self.speed <= 0 else max(0.001, min(1.0, 1.0 / self.speed)))
        self.sim: Any = None
        self.serial: Any = None
        self.factory: Any = None
        self.buttons: list[Any] = []
        self.table: SimTable | None = None
        self.tracker = ViewTracker()
        self.reader: Any = None
        self.renderer: Any = None
        self._post: Callable[..., None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._tasks: set[asyncio.Task] = set()
        self.error: str = ""
        self.frames = 0
        self.events_posted = 0
        self.lamps: dict[int, str] = {}
        self._last_frame: Any = None
        self._jpeg_failed = False
        # the camera's error knob: per frame, the chance that one face-up tile is misread or lost
        self.misread_rate = float(os.environ.get("JANTAKU_SIM_CAMERA_ERRORS", "0") or 0)
        if not 0.0 <= self.misread_rate <= 0.5:
            raise SimTableError(f"sim table: JANTAKU_SIM_CAMERA_ERRORS is {self.misread_rate}, must be 0..0.5")
        self._rng = random.Random(seed)
        self.misread_frames = 0
        # the table display shows a result to confirm (a Show "result" since the last OK pressed):
        # what the players look at before pressing OK
        self._result_shown = threading.Event()
        self._ok_seat: int | None = None    # the dealer who pressed OK for the hand now ending

    # ------------------------------------------------------------------ camera choice
    @staticmethod
    def _camera_mode(camera: str | None) -> str:
        if camera is None:
            camera = os.environ.get("JANTAKU_SIM_CAMERA", "") or "rendered"
        if camera not in ("auto", "rendered", "perfect"):
            raise SimTableError(f"sim table: camera {camera!r} is not auto, rendered or perfect")
        if camera != "auto":
            return camera
        from vision.classifier import DEFAULT_MODEL
        return "rendered" if DEFAULT_MODEL.is_file() else "perfect"

    def _profile_name(self) -> str:
        """The table profile of the rules played (``controller.rules.ruleset.table_profile_for``)."""
        from controller.rules.ruleset import table_profile_for
        return table_profile_for(self.script.ruleset)

    def _setup_camera(self) -> None:
        from hardware.sim.scene import SceneRenderer, TableState
        from vision.layout import load_profile
        self.renderer = SceneRenderer(load_profile(self._profile_name()))
        if self.camera_mode != "rendered":
            return
        from vision.calibration import calibrate
        from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier
        from vision.reader import TableReader
        if not DEFAULT_MODEL.is_file():
            raise SimTableError(f"sim table: camera 'rendered' needs the tile model {DEFAULT_MODEL} (not built yet)")
        empty = self.renderer.render(TableState(), seed=0)
        calibration = calibrate(empty, self.renderer.profile)
        self.reader = TableReader(self.renderer.profile, calibration, OnnxTileClassifier(threads=1))

    # ------------------------------------------------------------------ Part protocol
    async def start(self, post: Callable[..., None]) -> None:
        self._post = post
        self._loop = asyncio.get_running_loop()
        try:
            await self._start_parts()
        except BaseException:
            await self.stop()          # no simulator process left behind
            raise
        h0 = self.script.hands[0]
        self._emit("staff", ev.StartGame(ruleset=self.ruleset, players=tuple(self.script.players),
                                         start_round=h0.round, start_honba=h0.honba, start_sticks=h0.sticks,
                                         start_scores=tuple(h0.scores), now=time.monotonic()))
        self._thread = threading.Thread(target=self._drive, name="sim-table", daemon=True)
        self._thread.start()

    async def _start_parts(self) -> None:
        from firmware_bridge.table import SerialTable
        from hardware.sim.mcu_process import SimMcuProcess
        if self.workdir is None:
            from firmware_bridge.scratch import make_scratch  # earlier runs' leftovers removed first
            self.workdir = make_scratch("simtable")
        # a three-wall table for three-player scripts (its lift reports three walls)
        model = ["--model", "sanma"] if self._profile_name() == "sanma" else []
        self.sim = await asyncio.to_thread(SimMcuProcess.start, self.workdir / "mcu", time_scale=self.time_scale,
                                           extra=model)
        self.serial = SerialTable.over(self.sim.port, on_event=self._on_link_event, link_timeout_s=3.0,
                                       reply_timeout_s=1.0)
        self.serial.mcu.ack_timeout_s = 5.0      # a loaded machine may answer slowly; the link retransmits
        await self.serial.start(timeout_s=15.0)
        self.table = SimTable(self.script, control=self.sim.control, press=self._press)
        self._setup_buttons()
        await asyncio.to_thread(self._setup_camera)

    async def stop(self) -> None:
        self._stop.set()
        if self.table is not None:
            with self.table._cond:
                self.table._cond.notify_all()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10.0)
        for task in list(self._tasks):
            task.cancel()
        if self.serial is not None:
            await self.serial.close()
        for button in self.buttons:
            button.close()
        if self.sim is not None:
            await asyncio.to_thread(self.sim.stop)
        if self._own_workdir and self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def handle(self, command: ev.Command) -> bool:
        if isinstance(command, ev.Lift):
            self._spawn(self._lift())
            return True
        if isinstance(command, ev.RollDice):
            self._spawn(self._roll(command.seat, command.count))
            return True
        if isinstance(command, ev.Shuffle):
            return True          # the lift cycle shuffles whatever set is not stacked
        if isinstance(command, ev.LightButton):
            self.lamps[command.seat] = command.action
            return True
        if isinstance(command, ev.Show) and command.what == "result":
            self._result_shown.set()
        return False

    def status(self) -> dict[str, Any]:
        t = self.table
        return {"plays": self.path.name, "level": f"physical (MCU on a pty, mock buttons, camera {self.camera_mode})",
                "hands": len(self.script.hands), "hand": t.hand_index if t else 0,
                "actions": t.applied if t else 0, "finished": bool(t and t.finished), "frames": self.frames,
                "misread_frames": self.misread_frames,
                "events": self.events_posted, "error": self.error}

    def latest_jpeg(self) -> bytes | None:
        """The last frame as JPEG (the perfect camera draws the table now); None when there is none.
        A table the scene cannot draw is logged once and gives None: the picture is for people, and
        the status beside it must go on."""
        if self.renderer is None or self.table is None:
            return None
        import cv2
        try:
            frame = self._last_frame if self._last_frame is not None else self.renderer.render(self.table.snapshot())
        except ValueError as err:
            if not self._jpeg_failed:
                self._jpeg_failed = True
                log.warning("sim table: cannot draw the table for the staff view: %s", err)
            return None
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return buf.tobytes() if ok else None

    # ------------------------------------------------------------------ posting
    def _emit(self, source: str, event: ev.Event) -> None:
        assert self._post is not None
        self._post(source, event)
        self.events_posted += 1

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_link_event(self, item: object) -> None:
        from firmware_bridge import protocol as p
        from firmware_bridge.link import LinkLost, LinkUp, McuEvent
        now = time.monotonic()
        if isinstance(item, LinkLost):
            self._emit("firmware", ev.LinkLost(reason=item.reason, now=now))
        elif isinstance(item, LinkUp) and item.rebooted:
            self._emit("firmware", ev.LinkRestored(now=now))
        elif isinstance(item, McuEvent) and isinstance(item.msg, p.Fault):
            self._emit("firmware", ev.McuFault(code=item.msg.fault_name, detail=item.msg.describe(), now=now))

    # ------------------------------------------------------------------ firmware (in the loop)
    async def _lift(self) -> None:
        from firmware_bridge.errors import BridgeError
        from hardware.sim.mcu import SET_HOPPER, SET_STACKED, SET_TABLE
        assert self.table is not None and self.serial is not None
        try:
            status = await self.serial.mcu.status()
            if status.walls_up or SET_TABLE in status.sets:
                await self.serial.wall_lift.lower()
                await self.serial.centre.open()
                await self.serial.centre.close()
                status = await self.serial.mcu.status()
            if SET_STACKED not in status.sets and SET_HOPPER in status.sets:
                await self.serial.shuffler.shuffle(list(status.sets).index(SET_HOPPER), timeout_s=LIFT_TIMEOUT_S)
            hand = await asyncio.to_thread(self.table.prepare_lift)
            if hand is None:
                return
            result = await self.serial.wall_lift.lift("all", timeout_s=LIFT_TIMEOUT_S)
        except (BridgeError, OSError) as err:
            self._fail(f"lift: {err}")
            return
        self._emit("firmware", ev.LiftDone(counts=tuple(result.tiles), now=time.monotonic()))
        self.table.on_lift_done(tuple(result.tiles))

    async def _roll(self, seat: int, count: int) -> None:
        from firmware_bridge.errors import BridgeError
        assert self.table is not None and self.serial is not None
        try:
            await asyncio.to_thread(self.table.prepare_roll, seat, count)
            dice = await self.serial.dice.roll(count, seat)
        except (BridgeError, OSError) as err:
            self._fail(f"dice: {err}")
            return
        self._emit("firmware", ev.DiceResult(seat=seat, dice=tuple(dice), now=time.monotonic()))
        self.table.on_dice(tuple(dice))

    def _fail(self, message: str) -> None:
        self.error = message
        log.error("sim table: %s", message)

    # ------------------------------------------------------------------ seat buttons
    def _setup_buttons(self) -> None:
        from gpiozero import DigitalInputDevice
        from gpiozero.pins.mock import MockFactory
        self.factory = MockFactory()
        for (seat, action), pin in BUTTON_PINS.items():
            # a push button to ground with the pull-up on (gpiozero's Button without its hold timer)
            button = DigitalInputDevice(pin, pull_up=True, pin_factory=self.factory)
            button.when_activated = self._on_press(seat, action)
            self.buttons.append(button)

    def _on_press(self, seat: int, action: str) -> Callable[[], None]:
        def pressed() -> None:
            self.tracker.on_button(seat, action)
            self._emit("gpio", ev.Button(seat=seat, action=action, now=time.monotonic()))
        return pressed

    def _press(self, seat: int, action: str) -> None:
        pin = self.factory.pin(BUTTON_PINS[(seat, action)])
        pin.drive_low()
        pin.drive_high()

    # ------------------------------------------------------------------ the table's own thread
    def _drive(self) -> None:
        table = self.table
        assert table is not None
        pending: list[dict] = []
        try:
            while not self._stop.is_set():
                nxt = table.next_op()
                if nxt is None or frame_breaks(pending, nxt):
                    if pending:
                        self._look()
                        pending = []
                if nxt is None:
                    break
                if table.waiting_for() is not None:
                    if not table.wait_ready(LOOK_AGAIN_S) and self._ok_seat is not None:
                        self._watch()       # the hand just ended still lies on the table
                    continue
                if nxt["op"] == "press" and nxt["action"] == "ok":
                    self._await_result()
                op = table.step()
                if op is None:
                    continue
                if op["op"] == "press" and op["action"] == "ok":
                    self._ok_seat = op["seat"]
                    self._result_shown.clear()
                if op["op"] in VISIBLE_OPS:
                    pending.append(op)
                if op["op"] == "lift":
                    self._ok_seat = None
                    self._look()
                    pending = []
                if op["op"] == "stacked":
                    self._build_again(tuple(op["counts"]))
                if self.speed > 0:
                    self._stop.wait(STEP_S / self.speed)
        except (SimTableError, ValueError, OSError) as err:
            self._fail(f"stopped at hand {table.hand_index} action {table.op_index}: {err}")
            return
        if table.finished:
            log.info("sim table: %s played to its end (%d hands)", self.path.name, len(self.script.hands))

    def _build_again(self, counts: tuple[int, ...]) -> None:
        """The set pushed in after the last hand is built again while this hand is played. One that
        does not add up (a tile kept back) makes the shuffler count a lane short: the simulated MCU
        is told the lanes' counts, shuffles the set in the hopper and reports its fault
        ``lane_count`` over the link, as the firmware does. Then, as the staff would, the tile is put
        back and the machine reset (the set is shuffled again at the next lift)."""
        from hardware.sim.mcu import TableModel
        model = TableModel()
        if list(counts) == [model.tiles // model.lanes] * model.lanes or self._loop is None:
            return          # a whole set: the machine builds it at the next lift, as ever
        done = asyncio.run_coroutine_threadsafe(self._shuffle_short(counts), self._loop)
        done.result(timeout=LIFT_TIMEOUT_S + 10)

    async def _shuffle_short(self, counts: tuple[int, ...]) -> None:
        from firmware_bridge.errors import BridgeError
        from hardware.sim.mcu import SET_HOPPER
        from hardware.sim.mcu_process import SimMcuError
        assert self.serial is not None and self.sim is not None
        try:
            await asyncio.to_thread(self.sim.control, "lane_counts", counts=list(counts))
            status = await self.serial.mcu.status()
            if SET_HOPPER not in status.sets:
                self._fail(f"a set to build again ({sum(counts)} tiles) but none lies in the hopper")
                return
            try:
                await self.serial.shuffler.shuffle(list(status.sets).index(SET_HOPPER), timeout_s=LIFT_TIMEOUT_S)
                log.warning("sim table: the shuffler built a set of %d tiles without a fault", sum(counts))
            except BridgeError as err:
                log.info("sim table: the shuffler counts the set short: %s", err)
            # the staff find the tile kept back, put it in and reset the machine
            await self.serial.stopper.reset_fault()
        except (BridgeError, SimMcuError, OSError) as err:
            self._fail(f"building the set again: {err}")
            return
        self._emit("staff", ev.Reset(reason="a tile kept back was found and put in again", now=time.monotonic()))

    def _await_result(self) -> None:
        """The dealer presses OK once the display shows the result to confirm; until then the camera
        keeps looking at the hands laid down (another look may read a doubtful tile right). After
        ``RESULT_WAIT_S`` the dealer presses anyway (the result then waits for the staff)."""
        deadline = time.monotonic() + RESULT_WAIT_S
        while not self._stop.is_set() and time.monotonic() < deadline:
            if self._result_shown.wait(LOOK_AGAIN_S):
                return
            self._look()
        if not self._stop.is_set():
            log.warning("sim table: no result to confirm on the display after %.0f s; OK pressed anyway",
                        RESULT_WAIT_S)

    def _watch(self) -> None:
        """After OK, while the table waits for the next walls, the camera looks on at the hands laid
        down; a result that shows again (a hand read again) is confirmed again."""
        self._look()
        if self._ok_seat is not None and self._result_shown.is_set():
            self._result_shown.clear()
            self._press(self._ok_seat, "ok")

    def _read(self, state) -> TableView:
        now = time.monotonic()
        if self.camera_mode == "rendered":
            frame = self.renderer.render(state, seed=self.frames)
            self._last_frame = frame
            view = self.reader.read(frame, now=now)
        else:
            view = perfect_view(state, now=now)
        self.frames += 1
        seen = misread(view, self._rng, self.misread_rate)
        self.misread_frames += seen is not view
        return seen

    def _look(self) -> None:
        """Frames of the table as it stands now, until two in a row say the same and leave nothing
        unread (a tile misread or lost in one frame is outvoted), at most LOOKS; then post what
        changed since the last time."""
        assert self.table is not None
        state = self.table.snapshot()
        view = look_until_agreed(lambda: self._read(state), LOOKS)
        for event in self.tracker.update(view, view.now):
            self._emit("camera", event)
