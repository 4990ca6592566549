"""Benchmark of the daemon: camera frame -> panel latency, memory, start time.

    python bench/daemon.py [--quick] [--model PATH]

- ``event_to_panel_ms_median``: from the moment the camera delivers the first frame that
  holds a new discard, through the table reader (calibration + the shipped ONNX classifier),
  the voting tracker, the event store (committed), the game tracker, to the WebSocket
  message that shows the discard at a client. The frames are rendered by the simulated
  table's scene beforehand and served as a camera delivers them (no render time in the
  figure); the game is set up by the events of a recorded hand, and the discards of that
  hand appear on the table one by one. Target <= 100.
- ``rss_mb``: resident memory of ``tablectl demo --eyes daemon`` on the physically simulated
  table (the daemon's own firmware part on the world's MCU pty, mock pins, the camera part
  reading the world's frame stream with the ONNX model; the world is another process, not
  counted) after 5 s of play. Target <= 250.
- ``start_s``: from starting that daemon until it is ready (all parts started, the panel
  address printed). Target <= 3.

The last line is ``daemon event_to_panel_ms_median=X rss_mb=Y start_s=Z``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure_start_and_rss(runs: int) -> tuple[float, float]:
    """Start ``tablectl demo`` on the physically simulated table (MCU process, buttons, rendered camera
    with the ONNX model when shipped): seconds until it is ready (prints its panel address, all parts
    started); its resident memory after it has played for 5 s."""
    from controller.daemon_parts import SAMPLE_GAME
    starts, rss = [], []
    for _ in range(runs):
        port = free_port()
        data = tempfile.mkdtemp(prefix="jt-bench-")
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--script", str(SAMPLE_GAME),
                                 "--data", data, "--port", str(port), "--simulation", "physical", "--eyes", "daemon"],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = proc.stdout.readline()
            if not line.startswith("panel: "):
                raise SystemExit(f"bench: tablectl demo did not start (exit {proc.poll()})")
            starts.append(time.monotonic() - t0)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as res:
                assert res.status == 200
            time.sleep(5.0)
            with open(f"/proc/{proc.pid}/status") as fh:
                kb = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
            rss.append(kb / 1024)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    return statistics.median(starts), max(rss)


class SceneCamera:
    """Serves pre-rendered frames of the current scene step, as a camera delivers them.

    ``show(step)`` switches the table to step ``step``; the first frame of a new step that is
    read marks ``t_first[step]`` (the moment the camera delivered a frame holding it).
    """

    def __init__(self, frames_by_step: list[list], fps: float) -> None:
        self.frames_by_step = frames_by_step
        self.step = 0
        self.n = 0
        self.t_first: dict[int, float] = {}
        self.period = 1.0 / fps if fps > 0 else 0.0
        self._last = 0.0

    def show(self, step: int) -> None:
        self.step = step

    def read(self, now: float | None = None):
        if self.period:
            wait = self._last + self.period - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self._last = time.monotonic()
        step = self.step
        frames = self.frames_by_step[step]
        frame = frames[self.n % len(frames)]
        self.n += 1
        if step not in self.t_first:
            self.t_first[step] = time.monotonic()
        return frame

    def status(self):
        from vision.camera import CameraStatus
        return CameraStatus("ok", "bench scene", self.n)

    def close(self) -> None:
        pass


def measure_event_to_panel(n_discards: int, model: str | None, fps: float) -> list[float]:
    from controller import config as config_mod
    from controller import events as ev
    from controller.daemon import Daemon
    from controller.daemon_camera import CameraPart
    from controller.daemon_parts import SAMPLE_GAME
    from controller.daemon_sys import SystemdNotifier, setup_logging
    from controller.storage import EventStore
    from hardware.sim import script as sim_script
    from hardware.sim.scene import SceneRenderer, TableState, pose_camera
    from vision.calibration import calibrate
    from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier
    from vision.layout import load_profile
    from vision.reader import TableReader
    from vision.tracker import TableTracker

    setup_logging("WARNING")
    # the packaged game up to the hand with the longest run of discards before any call or
    # riichi: its discards appear on the camera one by one, everything before is set-up
    script = sim_script.load_script(str(SAMPLE_GAME))
    events = sim_script.events_of(script)
    runs: list[list[int]] = []
    for i, e in enumerate(events):
        if isinstance(e, ev.LiftDone):
            runs.append([])
            open_run = True
        elif isinstance(e, ev.Meld | ev.RiichiStick):
            open_run = False
        elif isinstance(e, ev.Discard) and runs and open_run:
            runs[-1].append(i)
    discard_at = max(runs, key=len)[:n_discards]
    events = events[:discard_at[-1] + 1]
    setup = events[:discard_at[0]]

    profile = load_profile("riichi4")
    renderer = SceneRenderer(profile, pose_camera(dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0)))
    base = TableState.full_walls(renderer.layout)
    frames_by_step: list[list] = []
    rivers: dict[int, list] = {}
    for step in range(len(discard_at) + 1):
        if step:
            d = events[discard_at[step - 1]]
            rivers.setdefault(d.seat, []).append((d.tile, d.is_riichi))
        st = base.copy()
        st.rivers = {k: list(v) for k, v in rivers.items()}
        frames_by_step.append([renderer.render(st, seed=100 * step + k) for k in range(5)])
    calibration = calibrate(frames_by_step[0][0], profile)
    classifier = OnnxTileClassifier(model or DEFAULT_MODEL, threads=1)
    camera = SceneCamera(frames_by_step, fps)
    part = CameraPart(camera, TableReader(profile, calibration, classifier), TableTracker(), fps=0)

    data = tempfile.mkdtemp(prefix="jt-bench-e2p-")
    port = free_port()
    cfg = config_mod.replace(config_mod.load(env={}), storage={"data_dir": data, "synchronous": "full"},
                             panel={"port": port, "port_fallback": False, "token": "bench"},
                             game={"script": "off"})
    store = EventStore.open(data)
    daemon = Daemon(cfg, store, parts=[part], notifier=SystemdNotifier(env={}))
    ready = threading.Event()
    loop_box: dict = {}

    def run_daemon() -> None:
        async def main() -> None:
            loop_box["loop"] = asyncio.get_running_loop()
            await daemon.run(on_ready=lambda d: ready.set())
        asyncio.run(main())

    thread = threading.Thread(target=run_daemon, daemon=True)
    thread.start()
    if not ready.wait(60):
        raise SystemExit("bench: daemon did not start")
    for i, e in enumerate(setup):
        daemon.post("bench-setup", e, i + 1)

    from websockets.sync.client import connect
    latencies: list[float] = []
    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=30) as ws:
        def river_len(seat: int, timeout_s: float) -> tuple[int, float]:
            deadline = time.monotonic() + timeout_s
            state = None
            while time.monotonic() < deadline:
                try:
                    msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
                except TimeoutError:
                    break
                state = msg["state"]
                yield len(state["seats"][seat].get("river", [])), time.monotonic()
            return

        # wait until the set-up is applied (the game is in play) and the tracker has its baseline
        deadline = time.monotonic() + 60
        while daemon.store.last_seq < len(setup) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(1.0)
        expected: dict[int, int] = {}
        for step, at in enumerate(discard_at, start=1):
            d = events[at]
            # the draws between two discards arrive from the firmware/wall side first
            prev = discard_at[step - 2] + 1 if step > 1 else discard_at[0]
            for j in range(prev, at):
                daemon.post("bench-setup", events[j], j + 1)
            time.sleep(0.2)
            expected[d.seat] = expected.get(d.seat, 0) + 1
            camera.show(step)
            for n, t1 in river_len(d.seat, 10.0):
                if n >= expected[d.seat]:
                    latencies.append((t1 - camera.t_first[step]) * 1000)
                    break
            else:
                print(f"bench: discard {step} ({d.tile} by seat {d.seat}) never reached the panel", file=sys.stderr)
    loop = loop_box["loop"]
    loop.call_soon_threadsafe(daemon.request_stop)
    thread.join(timeout=30)
    store.close()
    return latencies


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples (a minute or less)")
    ap.add_argument("--model", help="ONNX tile model (default: the shipped one)")
    ap.add_argument("--camera-fps", type=float, default=30.0, help="frame rate the camera delivers")
    args = ap.parse_args()
    os.chdir(ROOT)
    from vision.classifier import DEFAULT_MODEL
    if args.model is None and not DEFAULT_MODEL.is_file():
        print(f"bench: the tile model {DEFAULT_MODEL} is not built yet (python -m hardware.sim.training.train)", file=sys.stderr)
        return 2
    n = 8 if args.quick else 20
    latencies = measure_event_to_panel(n, args.model, args.camera_fps)
    start_s, rss_mb = measure_start_and_rss(1 if args.quick else 3)
    if not latencies:
        print("bench: no discard reached the panel", file=sys.stderr)
        return 1
    print(f"discards measured: {len(latencies)}/{n}; ms: {', '.join(f'{x:.0f}' for x in latencies)}")
    print(f"daemon event_to_panel_ms_median={statistics.median(latencies):.1f} rss_mb={rss_mb:.1f} "
          f"start_s={start_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
