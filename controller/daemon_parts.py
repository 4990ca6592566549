"""The daemon's parts, chosen by configuration (one table of backends, as python-can maps
interface names to classes).

A part posts events to the loop and carries out commands (see ``controller.daemon.Part``).
``build_parts(cfg, store)`` picks them from ``[table] backend`` and each part's section:

| part       | sim backend                                    | serial backend (a Pi)               |
|------------|------------------------------------------------|-------------------------------------|
| firmware   | the world's MCU pty (``simulation =            | pyserial link on ``[firmware] port`` |
|            | "physical"``), or ``port = "sim"`` with        |                                     |
| + gpio     | ``script = "off"``; mock pins, driven by the   | + gpiozero on lgpio / RPi.GPIO      |
|            | world over a line socket                       |                                     |
| camera     | ``CameraPart(TableReader, TableTracker)`` on    | V4L2, file or stream                |
|            | the world's frame stream (``StreamCamera``)     | (``daemon_camera``)                 |
| sim table  | the world process (``controller.daemon_world``, | (none: people play)                 |
|            | ``python -m hardware.sim.world``) playing       |                                     |
|            | ``[game] script``;                              |                                     |
|            | ``simulation = "events"``: ``ScriptedTablePart``|                                     |
|            | (a feed made by ``hardware.sim.events_feed``)   |                                     |
| feed       | ``[game] feed``: events from a JSONL file      | (none)                              |

The simulator is never imported here: its processes are started by command line.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.config import Config, ConfigError
from controller.storage import EventStore

log = logging.getLogger(__name__)

# The packaged game the simulated table plays by default: a real recorded game
# (tenhou.net/6, a copy of the shared folder's samples/tenhou/mjlog2json__2019021004gm-00a9-0000-e2f6516d.json).
SAMPLE_GAME = Path(__file__).resolve().parent / "daemon_sample_game.json"
SIM_LINK_TIMEOUT_S = 3.0      # the simulated MCU on a pty: a frame at least this often (SimTablePart's too)


class EventPlayer:
    """Plays a list of events into the loop, in order, at a time scale.

    Every event carries its position as ``src_seq`` (per ``source``), so after a restart the
    player resumes after the last event the store holds and an event is never stored twice.
    ``speed`` 0 = no delay. With ``loop`` the list starts again after its end (positions go on
    counting), so a demo table plays game after game.
    """

    name = "player"

    def __init__(self, items: list[tuple[float, ev.Event]], store: EventStore, *, source: str,
                 speed: float = 1.0, loop: bool = False, label: str = "") -> None:
        if not items:
            raise ConfigError(f"{source}: nothing to play ({label or 'empty list'})")
        self.items, self.source, self.speed, self.loop, self.label = items, source, speed, loop, label
        self.resume_after = store.last_src_seq(source) or 0
        self.posted = self.resume_after
        self.finished = False
        self._task: asyncio.Task | None = None

    async def start(self, post: Callable[..., None]) -> None:
        self._task = asyncio.create_task(self._run(post))

    async def _run(self, post: Callable[..., None]) -> None:
        n = len(self.items)
        position = self.resume_after
        while self.loop or position < n:
            delay_s, event = self.items[position % n]
            if self.speed > 0 and delay_s > 0:
                await asyncio.sleep(delay_s / self.speed)
            position += 1
            post(self.source, event, position)
            self.posted = position
            if position % n == 0:
                log.info("%s: played %s to its end (%d events)", self.source, self.label, n)
                if self.loop and self.speed > 0:
                    await asyncio.sleep(5.0 / self.speed)  # a pause between two games
        self.finished = True

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def handle(self, command: ev.Command) -> bool:
        return False

    def status(self) -> dict[str, Any]:
        return {"plays": self.label, "events": len(self.items), "posted": self.posted, "loop": self.loop,
                "finished": self.finished}


class FeedPart(EventPlayer):
    """``[game] feed``: a JSONL file of events, one ``{"delay_s", "event"}`` per line (tests, bench)."""

    name = "feed"

    def __init__(self, path: str | Path, store: EventStore, *, speed: float = 1.0) -> None:
        self.path = Path(path)
        super().__init__(load_feed(self.path), store, source="feed", speed=speed, label=self.path.name)


class ScriptedTablePart(EventPlayer):
    """The simulated table at event level: scripted players act out a recorded game and the
    events a perfect firmware link and camera tracker would report are played into the loop.

    The events come from the simulator's own process, run by command line
    (``python -m hardware.sim.events_feed``, see ``controller.daemon_world``): the daemon never
    imports the simulator. The panel's staff status says which level runs.
    """

    name = "sim-table"
    STEP_S = 0.5

    def __init__(self, path: str | Path, store: EventStore, *, speed: float, loop: bool, ruleset: str,
                 injects: list[dict] | None = None) -> None:
        import subprocess
        import sys

        from controller.daemon_world import ROOT
        argv = [sys.executable, "-m", "hardware.sim.events_feed", "--script", str(path), "--ruleset", ruleset,
                "--injects", json.dumps(injects or []), "--step", str(self.STEP_S)]
        try:
            res = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise ConfigError(f"[game] script {path}: the simulator did not run: {err}") from err
        if res.returncode != 0:
            raise ConfigError(f"[game] script {path}: {res.stderr.strip().splitlines()[-1:] or res.returncode}")
        lines = res.stdout.splitlines()
        head = json.loads(lines[0]) if lines else {}
        items = [_feed_item(line, f"{path} (event {i})") for i, line in enumerate(lines[1:], start=1) if line]
        super().__init__(items, store, source="sim-table", speed=speed, loop=loop, label=Path(path).name)
        self.hands = int(head.get("hands", 0))

    def status(self) -> dict[str, Any]:
        return {**super().status(), "level": "events (perfect camera)", "hands": self.hands}


def _feed_item(line: str, where: str) -> tuple[float, ev.Event]:
    try:
        row = json.loads(line)
        event = ev.from_record(row["event"])
        delay = float(row.get("delay_s", 0.0))
    except (ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"[game] feed {where}: {err}") from err
    if not isinstance(event, ev.Event):
        raise ConfigError(f"[game] feed {where}: {event.KIND} is a command, not an event")
    return delay, event


def load_feed(path: Path) -> list[tuple[float, ev.Event]]:
    """Read a feed file; raise ConfigError naming the line that is wrong."""
    items: list[tuple[float, ev.Event]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ConfigError(f"[game] feed {path}: cannot read: {err.strerror}") from err
    for lineno, line in enumerate(lines, start=1):
        if line.strip():
            items.append(_feed_item(line, f"{path}:{lineno}"))
    return items


def write_feed(path: Path, items: list[tuple[float, ev.Event]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for delay, event in items:
            fh.write(json.dumps({"delay_s": delay, "event": ev.to_record(event)}) + "\n")


def build_parts(cfg: Config, store: EventStore, *, injects: list[dict] | None = None) -> list[Any]:
    """The parts for this configuration, not yet started. ``injects``: demo faults for the sim table."""
    parts: list[Any] = []
    if cfg.firmware.port != "off" and not _sim_table_runs_firmware(cfg):
        from controller.daemon_firmware import build_firmware
        firmware = build_firmware(cfg)
        if firmware is not None:
            parts.append(firmware)
    if cfg.camera.source in ("v4l2", "file", "stream"):
        parts.append(_real_camera(cfg))
    if cfg.table.backend == "sim":
        if cfg.game.feed:
            parts.append(FeedPart(cfg.game.feed, store, speed=cfg.game.speed))
        elif cfg.game.script == "off":
            log.info("sim: no simulated players ([game] script = 'off')")
        elif cfg.game.simulation == "physical":
            parts += _world_and_real_parts(cfg, injects)
        else:
            script = cfg.game.script or str(SAMPLE_GAME)
            parts.append(ScriptedTablePart(script, store, speed=cfg.game.speed, loop=cfg.game.loop,
                                           ruleset=cfg.game.ruleset, injects=injects))
    elif cfg.game.feed:
        raise ConfigError(f"{cfg.source}: [game] feed is for the sim backend only")
    return parts


def _world_and_real_parts(cfg: Config, injects: list[dict] | None) -> list[Any]:
    """The simulated table as a world outside the daemon, met by the daemon's own parts: the
    firmware part on the world's MCU pty, the GPIO part on mock pins the world drives over a line
    socket, the camera part (``TableReader`` + ``TableTracker``) on the world's frame stream. The
    world is started here (its MCU and camera must be there before the parts open them)."""
    import tempfile

    from controller.daemon_firmware import FirmwarePart, make_gpio
    from controller.daemon_world import WorldPart, world_command
    from firmware_bridge.errors import BridgeError
    from vision.camera import StreamCamera
    workdir = Path(tempfile.mkdtemp(prefix="jt-"))      # short: a socket's path has a length limit
    lines = workdir / "lines.sock"
    gpio = make_gpio(cfg.gpio.pin_factory, cfg.gpio.pinmap, lines=str(lines))
    argv = world_command("--script", cfg.game.script or str(SAMPLE_GAME), "--speed", str(cfg.game.speed),
                         "--ruleset", cfg.game.ruleset, "--injects", json.dumps(injects or []),
                         "--lines", str(lines), "--workdir", str(workdir / "world"), "--fps", str(cfg.camera.fps),
                         *(["--loop"] if cfg.game.loop else []))
    world = WorldPart(argv)
    try:
        info = world.spawn()
        # the MCU on a pty shares the host's cores with the world's renderer and the daemon's reader:
        # a loaded host may leave it 1 s without a frame, so the link is declared lost after 3 s
        firmware = FirmwarePart(str(info["port"]), gpio=gpio, reply_timeout_s=cfg.firmware.timeout_s,
                                baudrate=cfg.firmware.baudrate, link_timeout_s=SIM_LINK_TIMEOUT_S)
        camera = camera_pipeline(cfg, StreamCamera(str(info["camera"])),
                                 fps=cfg.camera.fps if cfg.game.speed > 0 else 0.0)
    except (ConfigError, BridgeError, OSError) as err:
        world.close()
        gpio.close()
        raise ConfigError(f"sim table: {err}") from err
    # the world first: on a restart it lays the table out again before the camera looks at it
    return [world, firmware, camera]


def _sim_table_runs_firmware(cfg: Config) -> bool:
    """Simulated players bring their own firmware: the physical sim table its MCU process, link and
    buttons; the event-level player and the feed report what the firmware would."""
    return cfg.table.backend == "sim" and (bool(cfg.game.feed) or cfg.game.script != "off")


def _real_camera(cfg: Config) -> Any:
    from vision.camera import CameraError, FileCamera, OpenCVCamera, StreamCamera
    try:
        if cfg.camera.source == "stream":
            camera: Any = StreamCamera(cfg.camera.device)
        elif cfg.camera.source == "v4l2":
            camera = OpenCVCamera(cfg.camera.device, fps=cfg.camera.fps)
        else:
            camera = FileCamera(cfg.camera.device, loop=True)
    except CameraError as err:
        raise ConfigError(f"[camera] {err}") from err
    return camera_pipeline(cfg, camera, fps=cfg.camera.fps)


def camera_pipeline(cfg: Config, camera: Any, *, fps: float) -> Any:
    """The camera part on ``camera``, the same for a real table and the simulated one: the rule
    set's table profile and tile set (the classifier weighs each kind by its copies in the set),
    the calibration, the enrolled tile set and the confirmed crops in the data folder."""
    from controller.config import data_dir
    from controller.daemon_camera import build_pipeline
    from controller.rules.ruleset import RuleSetError, load, table_profile_for
    from controller.rules.tilesets import TileSetError, census_for
    try:
        census: dict[str, int] | None = census_for(load(cfg.game.ruleset))
    except (RuleSetError, TileSetError):
        census = None     # the game refuses the rule set on its own; read every kind alike
    folder = data_dir(cfg)
    return build_pipeline(camera, profile=table_profile_for(cfg.game.ruleset), census=census,
                          calibration_file=cfg.camera.calibration, fps=fps,
                          tile_set_file=str(folder / cfg.camera.tile_set) if cfg.camera.tile_set else "",
                          learn_dir=str(folder / "confirmed"))
