"""Benchmark of the daemon: camera frame -> panel latency, memory, start time.

    python bench/daemon.py [--quick] [--model PATH]

- ``event_to_panel_ms_median``: from the moment the camera delivers the first frame that
  holds a new discard to the next frame headless Chromium draws of the panel's display page
  with that discard in the river: through the frame-stream socket and the daemon's own camera
  part (``StreamCamera``, ``TableReader`` with calibration and the shipped ONNX classifier,
  the voting ``TableTracker``), the event store (committed), the game tracker, the panel's
  WebSocket and the page's own rendering. A hand of the packaged game with calls and a riichi
  is acted out by the simulated table (``hardware.sim.table.SimTable``) in front of the
  camera, every change rendered by the scene (no render time in the figure); the lift, the
  dice and the seat buttons are posted to the daemon under the sources its firmware and GPIO
  parts use (not through the MCU pty and the mock pins: no camera frame waits on them). The
  discards timed are those made once a call and a riichi stick lie on the table. Target <= 100.
- ``rss_mb``: resident memory of ``tablectl demo`` on the physically simulated
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
import os
import shutil
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
                                 "--data", data, "--port", str(port), "--simulation", "physical"],
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
    """The frames of the table as it stands, delivered at ``fps`` to the frame-stream server (the
    simulated table's ``hardware.sim.world_camera.FrameServer``) that the daemon's
    ``StreamCamera`` reads, as on the simulated table.

    ``show(frames)`` puts the table's next state in front of the camera and returns its step; the
    first frame of a step that is sent marks ``t_first[step]`` (wall-clock seconds, comparable with
    the browser's ``Date.now()``: the moment the camera delivered a frame holding it).
    """

    def __init__(self, frames: list, fps: float) -> None:
        self.frames = frames
        self.step = 0
        self.n = 0
        self.t_first: dict[int, float] = {}
        self.period = 1.0 / fps if fps > 0 else 0.0
        self._last = 0.0
        self._lock = threading.Lock()

    def show(self, frames: list) -> int:
        with self._lock:
            self.frames = frames
            self.step += 1
            return self.step

    def frame(self):
        if self.period:
            wait = self._last + self.period - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        self._last = time.monotonic()
        with self._lock:
            step, frames = self.step, self.frames
        frame = frames[self.n % len(frames)]
        self.n += 1
        if step not in self.t_first:
            self.t_first[step] = time.time()
        return frame


# The display page records, for each change of a river's tile count, when the next animation
# frame after it was drawn (the page showing it): window.__rivers = [[seat, count, ms], ...].
WATCH_RIVERS = """() => {
  window.__rivers = [];
  const last = {};
  const look = () => {
    const now = Date.now();
    document.querySelectorAll('.seat[data-seat]').forEach((box) => {
      const seat = Number(box.dataset.seat);
      const n = box.querySelectorAll('.river .tile').length;
      if (last[seat] !== n) {
        last[seat] = n;
        requestAnimationFrame(() => window.__rivers.push([seat, n, Date.now(), now]));
      }
    });
  };
  new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
  look();
}"""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
FRAMES_PER_CHANGE = 4        # frames the camera part takes of each change before the table moves on
HAND = 3                     # of the packaged game: a pon after 6 discards, a chi, a riichi, a win
SHOW_TIMEOUT_S = 10.0


def measure_event_to_panel(n_discards: int, model: str | None, fps: float) -> list[float]:
    """One hand of the packaged game (calls and a riichi in it) acted out by the simulated table
    (``hardware.sim.table.SimTable``) in front of the daemon's own camera part (its StreamCamera on
    a frame-stream socket, TableReader with the ONNX model, TableTracker) inside a daemon with its
    event store and panel; the lift, dice
    and seat buttons reach it as the firmware and GPIO parts post them. Headless Chromium shows
    the panel's display page. For each discard: ms from the first camera frame holding it to the
    page's next drawn frame after its river grew."""
    from playwright.sync_api import sync_playwright

    from controller import config as config_mod
    from controller import events as ev
    from controller.daemon import Daemon
    from controller.daemon_camera import CameraPart
    from controller.daemon_parts import SAMPLE_GAME
    from controller.daemon_sys import SystemdNotifier, setup_logging
    from controller.storage import EventStore
    from hardware.sim import script as sim_script
    from hardware.sim.scene import SceneRenderer, TableState, pose_camera
    from hardware.sim.table import VISIBLE_OPS, SimTable, frame_breaks
    from hardware.sim.world_camera import FrameServer
    from vision.calibration import calibrate
    from vision.camera import StreamCamera
    from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier
    from vision.layout import load_profile
    from vision.reader import TableReader
    from vision.tracker import TableTracker

    setup_logging("WARNING")
    script = sim_script.load_script(str(SAMPLE_GAME))
    script.hands = [script.hands[HAND]]
    hand = script.hands[0]
    assert any(a["op"] == "meld" for a in hand.actions) and any(a.get("is_riichi") for a in hand.actions)
    table = SimTable(script)
    profile = load_profile("riichi4")
    renderer = SceneRenderer(profile, pose_camera(dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0)))
    calibration = calibrate(renderer.render(TableState(), seed=0), profile)
    seeds = iter(range(10**6))

    def frames_of(state: TableState) -> list:
        return [renderer.render(state, seed=next(seeds)) for _ in range(3)]

    camera = SceneCamera(frames_of(table.snapshot()), fps)
    server = FrameServer(Path(tempfile.mkdtemp(prefix="jt-cam-")) / "frames.sock", camera.frame)
    classifier = OnnxTileClassifier(model or DEFAULT_MODEL, threads=1)
    part = CameraPart(StreamCamera(server.path), TableReader(profile, calibration, classifier), TableTracker(),
                      fps=0)

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
    path = os.environ.get("JANTAKU_CHROMIUM") or shutil.which("chromium")
    if not path:
        raise SystemExit("bench: no Chromium (set JANTAKU_CHROMIUM or install Debian's chromium)")
    latencies: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector('.seat[data-seat="0"]', timeout=30_000)
        page.evaluate(WATCH_RIVERS)
        daemon.post("staff", ev.StartGame(ruleset="tenhou", players=tuple(script.players), start_round=hand.round,
                                          start_honba=hand.honba, start_sticks=hand.sticks,
                                          start_scores=tuple(hand.scores), now=time.monotonic()))

        def look(pending: list[dict]) -> None:
            """The camera part sees the table as it stands now for a few frames; a discard among
            the changes is timed to the page."""
            state = table.snapshot()
            discard = next((op for op in pending if op["op"] == "discard"), None)
            seen = len(page.evaluate("() => window.__rivers")) if discard else 0
            n0 = camera.n
            step = camera.show(frames_of(state))
            if discard is not None:
                want = len(state.rivers.get(discard["seat"], []))
                deadline = time.monotonic() + SHOW_TIMEOUT_S
                while time.monotonic() < deadline:
                    hit = next((r for r in page.evaluate("() => window.__rivers")[seen:]
                                if r[0] == discard["seat"] and r[1] >= want), None)
                    if hit is not None:
                        if state.melds and state.sticks:     # timed once calls and a riichi lie on the table
                            latencies.append(hit[2] - camera.t_first[step] * 1000)
                        break
                    time.sleep(0.005)
                else:
                    print(f"bench: a discard ({discard['tile']} by seat {discard['seat']}) never reached the page",
                          file=sys.stderr)
            while camera.n < n0 + FRAMES_PER_CHANGE:
                time.sleep(0.005)

        pending: list[dict] = []
        while len(latencies) < n_discards:
            waiting = table.waiting_for()
            if waiting == "lift_done":
                table.prepare_lift()
                table.on_lift_done(tuple(table.lift_counts(table.hand_index)[1]))
                continue
            if waiting == "dice_result":
                table.on_dice(tuple(table.next_op()["dice"]))
                continue
            nxt = table.next_op()
            if nxt is None or nxt["op"] == "press" and nxt["action"] in ("tsumo", "ron", "ok"):
                break                          # the hand's end: nothing more to discard
            if pending and frame_breaks(pending, nxt):
                look(pending)
                pending = []
            op = table.step()
            now = time.monotonic()
            if op["op"] == "lift":
                daemon.post("firmware", ev.LiftDone(counts=tuple(table.last_lift), now=now))
            elif op["op"] == "press":
                daemon.post("gpio", ev.Button(seat=op["seat"], action=op["action"], now=now))
            elif op["op"] == "dice":
                daemon.post("firmware", ev.DiceResult(seat=op["seat"], dice=tuple(table.last_dice), now=now))
            if op["op"] in VISIBLE_OPS:
                pending.append(op)
        if pending:
            look(pending)
        browser.close()
    view = daemon.core.view()
    if view.get("alerts"):
        print(f"bench: the daemon raised alerts while following the hand: {view['alerts']}", file=sys.stderr)
    shown = [len(s.get("river", [])) for s in view["seats"]]
    if shown != [len(table.snapshot().rivers.get(k, [])) for k in range(4)]:
        print(f"bench: the daemon's rivers {shown} are not the table's", file=sys.stderr)
    loop = loop_box["loop"]
    loop.call_soon_threadsafe(daemon.request_stop)
    thread.join(timeout=30)
    server.close()
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
