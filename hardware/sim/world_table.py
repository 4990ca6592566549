"""The simulated table that the daemon sees only through its own devices.

What runs here, and how the daemon meets it:

- the MCU (``hardware.sim.mcu_process``) on a pty: the daemon's firmware part opens the port,
  its machine cycle lowers, shuffles and lifts and rolls the dice. Before the host's lift
  reaches the MCU the table has set the walls' counts of the next hand on it, and the dice of
  the next roll (the simulator-only control hooks), and it learns that the walls went up or
  the dice fell from the MCU's own record (``log``), as the players see it happen;
- the camera: :class:`hardware.sim.world_camera.FrameServer` on a unix socket, each frame drawn
  when the daemon's camera asks for it (:class:`~hardware.sim.world_camera.LiveScene`: hands over
  the table, light, noise). The table's clock is the camera's: after each change on the table
  the players wait until the camera has taken ``FRAMES_PER_CHANGE`` frames of it (at speed 1
  also ``STEP_S`` of real time), so a loaded machine slows the game down but never hides a
  move from the camera;
- the seat buttons on the table's rail (tsumo, ron, riichi, draw, ok) through the MCU, which
  reports them over the link; the dice buttons on the daemon's GPIO lines through its mock
  pins' control socket (``firmware_bridge.gpio_lines``, reached by ``--lines``);
- the staff (start of the game, the reset after a tile kept back was found) and what the
  players read on the table's display (a result to confirm) over the world's standard streams;
- after a restart of the daemon, the game under way taken up where the daemon's log has it
  (the ``go`` line's ``resume``; ``hardware.sim.table_resume``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller import events as ev
from hardware.sim import script as sim_script
from hardware.sim.mcu_process import SimMcuError, SimMcuProcess
from hardware.sim.table import VISIBLE_OPS, SimTable, SimTableError, frame_breaks

log = logging.getLogger(__name__)

STEP_S = 0.5
FRAMES_PER_CHANGE = 4          # frames the camera takes of each change before the next one
# more frames before a button that declares on what lies on the table (tsumo, ron, a draw): the
# daemon's tracker commits a change once 3 of 5 frames show it and the hand over the table hides
# it in the first 2, and its camera asks for a frame only once it has read the last one; so after
# 4 + 4 frames served, the change's events are posted before the button's (a player reacts later)
REACT_FRAMES = 4
# the players' pauses the camera sees, longer than the daemon tracker's holds (a changed back in
# the walls is named once seen in 10 frames in a row, a river place counted empty for 10 views):
# the walls looked at once risen, before the dice; the table's pause while a tile goes back
LOOK_FRAMES = 16
TAKE_BACK_FRAMES = 16
RESULT_WAIT_S = 120.0
SETTLE_FRAMES = 6              # frames of the hands laid down before the dealer looks at the display
RESULT_FRAMES = 30             # frames to wait for a result made after the last hand was shown
MCU_POLL_S = 0.1
FRAME_WAIT_S = 120.0           # no frame asked for this long: the daemon's camera is gone
# the MCU's deadman: the firmware's 500 ms is met by the daemon's link and its heartbeat keeper on
# the table's own Pi; here they share a test host's cores with the renderer, the reader and other
# runs, where a loaded host (seen: load 23 on 2 cores) starves both past 500 ms and the table halts
DEADMAN_MS = 2000
LAMP_WAIT_S = 60.0             # a player waits this long for the dice lamp before pressing anyway


class Lines:
    """The client end of the daemon's GPIO line socket (``firmware_bridge.gpio_lines``)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fh: Any = None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    def request(self, req: dict) -> dict:
        with self._lock:
            if self._fh is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.settimeout(10.0)
                self._sock.connect(self.path)
                self._fh = self._sock.makefile("rwb")
            self._fh.write(json.dumps(req).encode() + b"\n")
            self._fh.flush()
            line = self._fh.readline()
        if not line:
            raise OSError(f"gpio lines {self.path}: closed")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise ValueError(f"gpio lines: {reply.get('error')}")
        return reply

    def press_dice(self, seat: int) -> None:
        self.request({"line": "dice_button", "seat": seat, "active": True})
        time.sleep(0.06)            # longer than the line's debounce
        self.request({"line": "dice_button", "seat": seat, "active": False})


class World:
    """The table, its MCU, camera and players; ``run()`` on a thread performs the script."""

    def __init__(self, args: argparse.Namespace, out: Any) -> None:
        self.args = args
        self.out = out
        faults = [sim_script.Fault(f["rule"], f["hand"], f.get("seat")) for f in json.loads(args.injects)]
        self.script = sim_script.load_script(args.script, injects=faults, seed=args.seed)
        self.speed = float(args.speed)
        self.workdir = Path(args.workdir or tempfile.mkdtemp(prefix="jt-world-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.time_scale = 0.01 if self.speed <= 0 else max(0.001, min(1.0, 0.05 / self.speed))
        self.mcu: SimMcuProcess | None = None
        self.table: SimTable | None = None
        self.camera: Any = None
        self.scene: Any = None
        self.lines = Lines(args.lines) if args.lines else None
        self._stop = threading.Event()
        self._frames = threading.Condition()
        self.frames = 0
        self._version = 0
        self._result_shown = threading.Event()
        self._lamps = threading.Condition()
        self._dice_lit: set[int] = set()   # seats whose dice lamp the daemon lit and who have not pressed since
        self._rolling: int | None = None   # the seat that pressed its dice button last
        self._mcu_seen: set[tuple] = set()
        self._pushed: tuple[int, int] = (-1, -1)   # (game, hand) before which the old set was pushed in
        self._ok_seat: int | None = None
        self._changes = 0               # visible changes so far
        self._shown_at = -1             # the change after which the display last showed a result
        self.games = 0
        self.error = ""
        self._resumed = False           # the table was laid out again where a game stands
        self._after_game = False        # ... where a game had ended

    # ------------------------------------------------------------------ set-up
    def start(self) -> dict:
        from hardware.sim.scene import SceneRenderer
        from hardware.sim.world_camera import FrameServer, LiveScene
        from vision.layout import load_profile
        profile = self._profile_name()
        # the machine the set fits: 144 tiles with flowers, three walls for three players (its
        # shuffler counts the set it builds again, its lift reports the walls)
        model = ["--model", {"hk144": "flowers", "sanma": "sanma"}[profile]] if profile != "riichi4" else []
        self.mcu = SimMcuProcess.start(self.workdir / "mcu", time_scale=self.time_scale,
                                       extra=[*model, "--deadman-ms", str(DEADMAN_MS)])
        self._new_table()
        from hardware.sim.scene_delta import DeltaRenderer
        # drawn on the table the rules' set stands on: the daemon's camera reads it with the same
        # profile (controller.rules.ruleset.table_profile_for)
        renderer = DeltaRenderer(SceneRenderer(load_profile(profile)), seed=self.args.seed)   # draws what changed
        glare = float(os.environ.get("JANTAKU_SIM_CAMERA_ERRORS", "0") or 0)
        self.scene = LiveScene(renderer, self._state_now, seed=self.args.seed, glare=glare)
        self.camera = FrameServer(self.workdir / "camera.sock", self.scene.frame, on_frame=self._on_frame)
        return {"port": self.mcu.port, "camera": str(self.camera.path), "mcu_control": self.mcu.control_path,
                "handles": [], "watches": ["cmd.show", "cmd.light_button"], "pid": os.getpid()}

    def _profile_name(self) -> str:
        """The table profile of the rules played (``controller.rules.ruleset.table_profile_for``)."""
        from controller.rules.ruleset import table_profile_for
        return table_profile_for(self.args.ruleset)

    def _new_table(self) -> None:
        self.table = SimTable(self.script, control=self.mcu.control if self.mcu else None, press=self._press)

    def _state_now(self) -> tuple[int, object]:
        assert self.table is not None
        return self._version, self.table.snapshot()

    def _on_frame(self, n: int) -> None:
        with self._frames:
            self.frames = n
            self._frames.notify_all()

    def close(self) -> None:
        self._stop.set()
        with self._frames:
            self._frames.notify_all()
        if self.camera is not None:
            self.camera.close()
        if self.mcu is not None:
            self.mcu.stop()

    # ------------------------------------------------------------------ the people
    def _press(self, seat: int, action: str) -> None:
        if action == "dice" and self.lines is not None:
            self.lines.press_dice(seat)
        else:
            assert self.mcu is not None
            self.mcu.control("press", seat=seat, action=action)

    def on_command(self, command: ev.Command) -> None:
        if isinstance(command, ev.Show) and command.what == "result":
            self._shown_at = self._changes
            self._result_shown.set()
        elif isinstance(command, ev.LightButton) and command.action == "dice":
            with self._lamps:
                if command.is_on:
                    self._dice_lit.add(command.seat)
                else:
                    self._dice_lit.discard(command.seat)
                self._lamps.notify_all()

    def _await_dice_lamp(self, seat: int) -> None:
        """A player rolls when the daemon lights the seat's dice lamp (after the walls are up, and
        after the roll before, once the daemon has its result: the second roll of a fan hand is not
        pressed before the daemon has read the first, whatever the MCU already shows). Pressing
        clears the lamp; one that stays dark is pressed after ``LAMP_WAIT_S`` all the same."""
        deadline = time.monotonic() + LAMP_WAIT_S
        with self._lamps:
            while seat not in self._dice_lit and not self._stop.is_set():
                if time.monotonic() > deadline:
                    log.warning("world: seat %d's dice lamp not lit after %.0f s; pressed anyway", seat, LAMP_WAIT_S)
                    break
                self._lamps.wait(0.2)
            self._dice_lit.discard(seat)
            self._rolling = seat

    def _start_game(self) -> None:
        h0 = self.script.hands[0]
        self.out.post("staff", ev.StartGame(ruleset=self.args.ruleset, players=tuple(self.script.players),
                                            start_round=h0.round, start_honba=h0.honba, start_sticks=h0.sticks,
                                            start_scores=tuple(h0.scores), now=time.monotonic()))

    # ------------------------------------------------------------------ the camera's clock
    def _wait_frames(self, n: int) -> bool:
        """Until the camera has taken ``n`` more frames (False: stopped, or no camera asks)."""
        with self._frames:
            target = self.frames + n
            deadline = time.monotonic() + FRAME_WAIT_S
            while self.frames < target and not self._stop.is_set():
                if time.monotonic() > deadline:
                    raise SimTableError(f"the camera took no frame for {FRAME_WAIT_S:.0f} s")
                self._frames.wait(0.5)
        return not self._stop.is_set()

    def _changed(self, op: dict) -> None:
        self._version += 1
        self._changes += 1
        seat = op.get("seat")
        if isinstance(seat, int) and op["op"] in ("take", "discard", "meld", "reveal", "take_back", "flip"):
            w, h = self.scene.renderer.size
            cx, cy = w // 2, h // 2
            dx, dy = {0: (0, 1), 1: (1, 0), 2: (0, -1), 3: (-1, 0)}[seat % 4]
            self.scene.reach(seat, (cx + int(dx * w * 0.22), cy + int(dy * h * 0.28)))

    def _kept_back(self) -> None:
        """A tile kept back after the hand (an injected ``set_mismatch``): the set pushed into the
        centre is a tile short, so the shuffler counts one lane short when it next builds a set
        from the hopper (the simulated MCU is told the lanes' counts; it reports its fault
        ``lane_count`` over the link as the firmware does, and the daemon's staff put the tile
        back and retry). The counts are those of the script's ``stacked`` op of the next hand."""
        assert self.table is not None
        kept_in = self.table.kept[-1][0]          # the hand after which the tile was kept back
        later = self.script.hands[kept_in + 1:kept_in + 2]
        counts = next((a["counts"] for h in later for a in h.actions if a["op"] == "stacked"), None)
        if counts is not None and self.mcu is not None:
            self.mcu.control("lane_counts", counts=list(counts))

    # ------------------------------------------------------------------ the MCU, seen by the players
    def _mcu_done(self) -> list[str]:
        """The MCU's motions that ended since the last look (``lift_done``, ``dice_result``, ...)."""
        assert self.mcu is not None
        try:
            lines = self.mcu.control("log", n=100)["lines"]
        except SimMcuError as err:
            log.warning("world: MCU log: %s", err)
            return []
        done = []
        for entry in lines:
            if entry.get("event") != "motion_end":
                continue
            key = (entry.get("t"), entry.get("job"), entry.get("result"))
            if key in self._mcu_seen:
                continue
            self._mcu_seen.add(key)
            done.append(str(entry.get("result")))
        return done

    def _await_mcu(self, what: str) -> None:
        table = self.table
        assert table is not None and self.mcu is not None
        if what == "lift_done" and table.lifts_prepared <= table.hand_index:
            table.prepare_lift()
        if what == "lift_done" and (table.hand_index > 0 or self.games > 0):
            self._push_in((self.games, table.hand_index))
        with self._lamps:       # looked at before the MCU's record: a lamp lit after a roll ended finds it there
            relit = self._rolling if self._rolling in self._dice_lit else None
        done = self._mcu_done()
        if what == "dice_result" and relit is not None and "dice_result" not in done:
            # the machine refused the roll (it was stopped: a fault latched) and the daemon lit the
            # lamp again once staff took it up: the player presses again
            log.info("world: seat %d's dice lamp lit again with no roll; pressed again", relit)
            with self._lamps:
                self._dice_lit.discard(relit)
            self._press(relit, "dice")
        for result in done:
            if result == "lift_done" and what == "lift_done":
                self._queue_dice(table.hand_index)      # before the dealer's press makes the host roll
                table.on_lift_done(tuple(table.lift_counts(table.hand_index)[1]))
            elif result == "dice_result" and what == "dice_result":
                dice = self._next_roll()
                table.on_dice(tuple(dice) if dice else ())
                # fan rules roll more than once a hand (hk: three dice, then two): the next roll's
                # dice set on the MCU before the player presses the dice button again
                if any(a["op"] == "dice" for a in table.hand.actions[table.op_index + 1:]):
                    self._queue_dice(table.hand_index)
        self._wait_frames(1)
        self._stop.wait(MCU_POLL_S)

    def _push_in(self, hand: tuple[int, int]) -> None:
        """Between two hands: the machine opens the centre for the old set, the players push the
        tiles in and press ok (the cycle's ``receiving``). A result that shows again meanwhile
        (a hand read again) is confirmed again."""
        assert self.mcu is not None
        seat = self._ok_seat if self._ok_seat is not None else 0
        if self._result_shown.is_set():
            self._result_shown.clear()
            self._press(seat, "ok")
        if self._pushed == hand:
            return
        try:
            centre_open = bool(self.mcu.state().get("centre_open"))
        except SimMcuError as err:
            log.warning("world: MCU state: %s", err)
            return
        if centre_open:
            self._pushed = hand
            self._press(seat, "ok")

    def _queue_dice(self, hand: int) -> None:
        """The dice the script's roll shows, set on the MCU for its next roll."""
        assert self.table is not None and self.mcu is not None
        if hand < len(self.script.hands):
            dice = self._next_roll()
            if dice:
                self.mcu.control("dice", values=[list(dice)])

    def _next_roll(self) -> tuple[int, ...] | None:
        """The script's next dice roll (the table counts the rolls it has seen), or None."""
        table = self.table
        assert table is not None
        rolls = table._rolls
        return tuple(rolls[table.rolls_done]) if table.rolls_done < len(rolls) and rolls[table.rolls_done] else None

    # ------------------------------------------------------------------ a game under way
    def resume(self, position: dict) -> dict:
        """The daemon started again over a game under way (``controller.daemon_resume``): the
        table laid out as the game has it, the MCU holding the sets as the machine left them.
        Returns where the players go on from."""
        from hardware.sim.table_resume import lay_out, position_of, resume_index
        assert self.table is not None and self.mcu is not None
        games = int(position.get("games", 0))
        if games <= 0:
            return {"new_game": True}
        machine = position.get("machine") or {}
        if machine.get("sets"):
            self.mcu.control("restore", sets=list(machine["sets"]), walls_up=bool(machine.get("walls_up")),
                             centre_open=bool(machine.get("centre_open")))
        if position.get("finished"):
            self.games = games                  # the next game starts after the usual pause
            self._after_game = True
            return {"games": self.games, "new_game": True}
        self.games = games - 1
        hand = int(position.get("hand", 0))
        if hand >= len(self.script.hands):
            raise SimTableError(f"resume: the game is at hand {hand}, the script has {len(self.script.hands)}")
        index = resume_index(self.script.hands[hand].actions, dict(position.get("done") or {}))
        lay_out(self.table, hand, index)
        self._version += 1
        if position.get("result_shown"):
            self._result_shown.set()
            self._shown_at = self._changes
        self._resumed = True
        log.info("world: resumed at game %d hand %d action %d", self.games + 1, hand, index)
        return {"games": self.games, **position_of(self.table)}

    # ------------------------------------------------------------------ the game
    def run(self) -> None:
        try:
            if self._after_game:                # the game had ended: the next one after the pause
                if not self.args.loop:
                    return
                self._pause_between_games()
            while not self._stop.is_set():
                self._play_once()
                self.games += 1
                if not self.args.loop or self._stop.is_set():
                    break
                self._pause_between_games()
                self._new_table()
        except (SimTableError, SimMcuError, ValueError, OSError) as err:
            t = self.table
            self.error = f"stopped at hand {t.hand_index if t else 0} action {t.op_index if t else 0}: {err}"
            log.error("world: %s", self.error)

    def _pause_between_games(self) -> None:
        self._stop.wait(5.0 / self.speed if self.speed > 0 else 1.0)

    def _play_once(self) -> None:
        table = self.table
        assert table is not None
        if self._resumed:
            self._resumed = False
            # the camera takes in the table as it was laid out again before anything moves
            self._wait_frames(2 * FRAMES_PER_CHANGE)
        else:
            table.prepare_lift()           # the first hand's walls, before the staff start the game
            self._wait_frames(2)           # the camera is there
            self._start_game()
        pending: list[dict] = []
        while not self._stop.is_set():
            nxt = table.next_op()
            if nxt is None or frame_breaks(pending, nxt):
                if pending:
                    self._wait_frames(FRAMES_PER_CHANGE)
                    pending = []
            if nxt is None:
                break
            waiting = table.waiting_for()
            if waiting is not None:
                self._await_mcu(waiting)
                continue
            if nxt["op"] == "press" and nxt["action"] == "ok":
                self._await_result()
            elif nxt["op"] == "press" and nxt["action"] in ("tsumo", "ron", "draw"):
                self._wait_frames(REACT_FRAMES)
            elif nxt["op"] == "press" and nxt["action"] == "dice":
                self._await_dice_lamp(nxt["seat"])
            op = table.step()
            if op is None:
                continue
            if op["op"] == "press" and op["action"] == "ok":
                self._result_shown.clear()
                self._ok_seat = op["seat"]
            if op["op"] in VISIBLE_OPS:
                self._changed(op)
                pending.append(op)
            if op["op"] == "keep":
                self._kept_back()
            if op["op"] == "take_back":
                self._wait_frames(TAKE_BACK_FRAMES)
                pending = []
            if op["op"] == "lift":
                self._wait_frames(LOOK_FRAMES)
                pending = []
                if table.lifts_prepared <= table.hand_index and table.hand_index < len(self.script.hands):
                    table.prepare_lift()          # the next hand's walls, set on the MCU for its lift
            if self.speed > 0:
                self._stop.wait(STEP_S / self.speed)
        log.info("world: %s played to its end (%d hands)", Path(self.args.script).name, len(self.script.hands))

    def _await_result(self) -> None:
        """The dealer presses OK once the display shows a result made after the last hand was laid
        down, and the camera has looked at the hands a while (``SETTLE_FRAMES``); a display that
        shows nothing new (a noten hand shown changes no result) is waited on ``RESULT_FRAMES``."""
        self._wait_frames(SETTLE_FRAMES)
        deadline = time.monotonic() + RESULT_WAIT_S
        start = self.frames
        while not self._stop.is_set() and time.monotonic() < deadline:
            if self._result_shown.is_set() and (self._shown_at >= self._changes
                                                or self.frames - start >= RESULT_FRAMES):
                return
            self._wait_frames(1)
        log.warning("world: no result to confirm on the display after %.0f s; OK pressed anyway", RESULT_WAIT_S)

    def status(self) -> dict:
        t = self.table
        return {"plays": Path(self.args.script).name, "level": "physical: the daemon's own firmware, GPIO and camera",
                "hands": len(self.script.hands), "hand": t.hand_index if t else 0,
                "actions": t.applied if t else 0, "finished": bool(t and t.finished and not self.args.loop),
                "games": self.games, "frames": self.frames,
                "hand_frames": self.scene.hand_frames_drawn if self.scene else 0,
                "misread_frames": self.scene.glare_frames if self.scene else 0, "error": self.error}


async def run_world(args: argparse.Namespace, out: Any) -> int:
    from hardware.sim.world import _messages, _stdin_lines, relay_commands
    world = World(args, out)
    info = await asyncio.to_thread(world.start)
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue = asyncio.Queue()
    threading.Thread(target=_stdin_lines, args=(loop, queue), daemon=True).start()
    out.send({"ready": info})
    messages = _messages(queue)
    go = False
    async for msg in messages:
        if msg.get("go"):
            go = True
            break
    if not go:
        world.close()
        return 0
    if msg.get("resume"):
        try:
            where = await asyncio.to_thread(world.resume, dict(msg["resume"]))
        except (SimTableError, SimMcuError, ValueError, KeyError, TypeError) as err:
            world.error = f"could not take up the game: {err}"
            log.error("world: %s", world.error)
            where = {"error": world.error}
        out.send({"resumed": where})
        if "error" in where:            # the table is not what the game says: no one plays on
            out.send({"status": world.status()})
            await relay_commands(messages, world.on_command)
            world.close()
            return 0
    driver = threading.Thread(target=world.run, name="world", daemon=True)
    driver.start()
    stop = asyncio.Event()

    async def status_ticks() -> None:
        while not stop.is_set():
            out.send({"status": world.status()})
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except TimeoutError:
                pass

    ticker = asyncio.create_task(status_ticks())
    await relay_commands(messages, world.on_command)
    stop.set()
    await asyncio.to_thread(world.close)
    driver.join(timeout=5)
    ticker.cancel()
    return 0
