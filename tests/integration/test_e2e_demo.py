"""End to end (issues 7, 16): ``tablectl demo --script FILE`` plays recorded games physically.

The simulated table, a world process outside the daemon (``hardware.sim.world_table``), acts
each hand out: its MCU on a pty raises the walls and rolls the dice when the daemon's own
firmware part asks, the dice buttons are lines on the daemon's gpiozero mock pins, and what lies
on the table is a stream of rendered frames that the daemon's own camera part reads
(``TableReader`` + ``TableTracker``, the shipped model). The daemon is never given the log.
After every hand the state the daemon serves (``GET /api/state``, rebuilt from its own event
log exactly as it is served) holds the recorded scores, and the final scores equal the
recorded ones; one game is followed live in headless Chromium.

The recorded games are the real logs in ``../shared/samples/tenhou/`` (beside the repo).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from controller import events as ev
from controller.rules import tenhou as TH
from controller.storage import EventStore
from tests.integration.daemonproc import free_port

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / ".." / "shared" / "samples" / "tenhou"
WHOLE_GAMES = sorted(p.name for p in SAMPLES.glob("mjlog2json__*.json")) if SAMPLES.is_dir() else []
FINISH_S = 150.0


def _sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.fail(f"recorded game {path} is missing (the shared samples sit beside the repo)")
    return path


def _after(hand: TH.LogHand) -> list[int]:
    """The scores after ``hand`` by the log: its recorded deltas, less the riichi deposits that stood
    (tenhou.net/6 deltas leave them out; a riichi tile that was ronned costs no deposit)."""
    out = [s + sum(d[i] for d in hand.result.deltas) for i, s in enumerate(hand.scores)]
    for k, e in enumerate(hand.events):
        if isinstance(e, TH.Discard) and e.is_riichi:
            ronned = k == len(hand.events) - 1 and hand.result.outcome == "win" and any(
                w.from_seat == e.seat and w.seat != e.seat for w in hand.result.wins)
            if not ronned:
                out[e.seat] -= 1000
    return out


def recorded(path: Path) -> tuple[list[list[int]], list[int]]:
    """The log's own numbers: the scores after each hand (the next hand's starting scores; after
    the last hand the game's final scores where the log has them, else its deltas)."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    game = TH.parse_log(raw, str(path))
    after = [list(h.scores) for h in game.hands[1:]]
    final = _after(game.hands[-1])
    if raw.get("sc"):
        assert final == [int(x) for x in raw["sc"][0::2]], "the log's deltas do not add up to its final scores"
    after.append(final)
    return after, final


class Demo:
    """``tablectl demo`` as a process, with its panel port and data folder."""

    def __init__(self, script: Path, tmp: Path, *, speed: str = "max", injects: tuple[str, ...] = (),
                 camera_errors: float = 0.0) -> None:
        self.port = free_port()
        self.data = tmp / "data"
        self.data.parent.mkdir(parents=True, exist_ok=True)
        args = [sys.executable, "-m", "controller.cli", "demo", "--script", str(script), "--speed", speed,
                "--port", str(self.port), "--data", str(self.data)]
        for inject in injects:
            args += ["--inject", inject]
        env = {**os.environ, "JANTAKU_SIM_CAMERA_ERRORS": str(camera_errors)}
        env.pop("NOTIFY_SOCKET", None)
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env=env)
        self.url = ""
        self.token = ""
        self.terminated = False

    def ready(self) -> Demo:
        """Wait for the panel's address (the demo prints it once it serves)."""
        line = self.proc.stdout.readline().strip()
        if not line.startswith("panel: "):
            self.proc.kill()
            raise AssertionError(f"demo did not start: {line!r} {self.proc.stderr.read()[-3000:]}")
        self.url = line.split(" ", 1)[1]
        self.token = (self.data / "staff_token").read_text().strip()
        return self

    def state(self) -> dict:
        return httpx.get(f"{self.url}api/state", timeout=30).json()

    def table_status(self) -> dict:
        res = httpx.get(f"{self.url}api/staff/status", headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
        return res.json()["parts"]["sim-table"]

    def played(self, staff=None) -> dict | None:
        """The state once the simulated table has acted out the whole script and the daemon has the
        last result confirmed, else None; ``staff(demo, state)`` is called on the way (the staff at
        the table, e.g. releasing a held result)."""
        status = self.table_status()
        assert not status.get("error"), status
        if staff is not None:
            staff(self, self.state())
        if status.get("finished"):
            state = self.state()
            if state["last_result"] is not None and state["last_result"]["hand"] == status["hands"] - 1 \
                    and not state.get("pending_result"):
                return state
        return None

    def wait_played(self, timeout_s: float = FINISH_S, staff=None) -> dict:
        """Wait until :meth:`played`."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = self.played(staff)
            if state is not None:
                return state
            time.sleep(0.1)
        raise AssertionError(f"the table did not play to its end in {timeout_s} s: {self.table_status()} {self.state()}")

    def terminate(self) -> None:
        """SIGTERM once (a second one could land after the daemon let go of its handler)."""
        if self.proc.poll() is None and not self.terminated:
            self.terminated = True
            self.proc.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        self.terminate()
        try:
            status = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        assert status == 0, self.proc.stderr.read()[-3000:]

    def states_after_each_hand(self) -> dict[int, dict]:
        """The served state at each hand's end, rebuilt from the daemon's own event log (the daemon
        rebuilds itself the same way): hand -> the state once that hand's result was applied."""
        from controller.daemon import Core
        store = EventStore.open(self.data, create=False, verify=True)
        try:
            core = Core("t1", "tenhou")
            out: dict[int, dict] = {}
            for stored in store.events():
                core.apply(ev.from_record(stored.payload))
                view = core.view()
                last = view.get("last_result")
                if last is not None and last["hand"] not in out:
                    out[last["hand"]] = view
        finally:
            store.close()
        return out

    def sources(self) -> set[str]:
        store = EventStore.open(self.data, create=False, verify=False)
        try:
            return {s.source for s in store.events()}
        finally:
            store.close()


def check_played(name: str, demo: Demo, state: dict) -> None:
    """The state at the end (live, from GET /api/state) and after every hand (from the daemon's log)."""
    path = _sample(name)
    after, final = recorded(path)
    assert state["last_result"]["scores_after"] == final, (name, state["last_result"])
    assert state["alerts"] == [], (name, state["alerts"])
    if json.loads(path.read_text()).get("sc"):          # a whole game: over and settled
        assert state["finished"], (name, state)
        assert [s["score"] for s in state["seats"]] == final, name
        assert state["hand_index"] == len(after) - 1, name
    hands = demo.states_after_each_hand()
    assert sorted(hands) == list(range(len(after))), (name, sorted(hands))
    for k, scores in enumerate(after):
        assert hands[k]["last_result"]["scores_after"] == scores, (name, k, hands[k]["last_result"])
    # the daemon learnt the game from the firmware link, the seat buttons and the camera only
    assert demo.sources() <= {"staff", "firmware", "gpio", "camera", "integrity"}, (name, demo.sources())


def _not_halted(demo: Demo, state: dict) -> None:
    """A clean game never halts the table: say why at once instead of waiting out the game's time."""
    machine = state.get("machine") or {}
    assert machine.get("state") != "halted", f"the table halted: {machine.get('reason')} {machine.get('faults')}"


def play_batches(scripts: dict[str, Path], tmp_path: Path, *, at_once: int = 2, camera_errors: float = 0.0,
                 shown: Callable[[str, Demo], None] | None = None, finish_s: float = 1200.0) -> dict[str, tuple]:
    """Play the scripts, ``at_once`` demos side by side, each through the daemon's own firmware,
    GPIO and camera parts (the world's rendered frames); ``shown(name, demo)`` is called for each
    game once played, while its demo still serves. Returns name -> (the stopped demo, its state)."""
    out: dict[str, tuple] = {}
    names = list(scripts)
    for start in range(0, len(names), at_once):
        demos = {n: Demo(scripts[n], tmp_path / f"g{start + i}", camera_errors=camera_errors)
                 for i, n in enumerate(names[start:start + at_once])}
        try:
            for demo in demos.values():
                demo.ready()
            for n, demo in demos.items():
                state = demo.wait_played(finish_s, staff=_not_halted)
                status = demo.table_status()
                assert status["frames"] > 0 and status["level"].startswith("physical: the daemon's own"), status
                if camera_errors:       # the camera did err, now and then
                    assert 0 < status["misread_frames"] < status["frames"] * camera_errors * 3, status
                assert demo.proc.poll() is None      # keeps serving after the game
                if shown is not None:
                    shown(n, demo)
                out[n] = (demo, state)
        finally:
            for demo in demos.values():
                demo.terminate()
            for demo in demos.values():
                demo.stop()
    return out


def play_all(names: list[str], tmp_path: Path, *, at_once: int = 2, camera_errors: float = 0.0,
             shown: Callable[[str, Demo], None] | None = None, finish_s: float = 1200.0) -> None:
    """Play the recorded games (:func:`play_batches`) and check each (:func:`check_played`)."""
    played = play_batches({n: _sample(n) for n in names}, tmp_path, at_once=at_once, camera_errors=camera_errors,
                          shown=shown, finish_s=finish_s)
    for n, (demo, state) in played.items():
        check_played(n, demo, state)


SHEET = """() => [...document.querySelectorAll("#sheet tbody tr")].map((row) =>
  [Number(row.dataset.hand), [...row.querySelectorAll("td.sheet-score")].map((td) => Number(td.textContent.replace(/,/g, "")))])"""


def panel_shows(page, demo: Demo, name: str) -> None:
    """The panel in headless Chromium, after the game: every hand's row of the score sheet holds the
    recorded scores after that hand, and the seats hold the recorded final scores."""
    after, final = recorded(_sample(name))
    page.goto(demo.url)
    page.wait_for_selector('#conn[data-connected="true"]', timeout=60_000)
    page.wait_for_function("(n) => document.querySelectorAll('#sheet tbody tr').length === n", arg=len(after),
                           timeout=60_000)
    assert page.evaluate(SHEET) == [[k, scores] for k, scores in enumerate(after)], name
    assert [int(page.text_content(f"#score-{i}").replace(",", "")) for i in range(4)] == final, name
    if json.loads(_sample(name).read_text()).get("sc"):
        assert page.is_visible("#finished"), name


# The whole games the suite plays by default beside every excerpt; JANTAKU_ALL_GAMES=1 plays all of
# them (the other five whole games, 59 hands: on 2 idle cores 177 s for all 23 against 73-78 s for the
# default ones, 2026-12-07, and more on a loaded machine, which ``./dev test`` cannot spend under its
# 20-minute aim; their rules are checked without the camera in tests/controller/test_game.py)
DEFAULT_WHOLE_GAMES = ("mjlog2json__2019103023gm-00a9-0000-f90e0fe9.json",)
ALL_GAMES = os.environ.get("JANTAKU_ALL_GAMES", "") not in ("", "0")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.timeout(2400)   # with JANTAKU_ALL_GAMES=1 23 games, about 30 000 rendered frames
def test_every_recorded_game_played_through_rendered_camera_frames(tmp_path, page, artifacts_dir):
    """Every recorded excerpt of the samples and one whole game (every game with
    ``JANTAKU_ALL_GAMES=1``), played physically through the daemon's own parts (its firmware part
    on the world's MCU, its GPIO part on the dice buttons, and ``CameraPart(TableReader,
    TableTracker)`` with the shipped tile model on the world's stream of rendered frames, hands
    over the table, light and noise): after every hand the panel in Chromium shows the recorded
    scores, and the final scores are the recorded ones; no alert."""
    from vision.classifier import DEFAULT_MODEL
    if not DEFAULT_MODEL.is_file():
        pytest.fail(f"the tile model {DEFAULT_MODEL} is missing")
    names = sorted(p.name for p in SAMPLES.glob("*.json"))
    assert len(names) >= 20 and len(WHOLE_GAMES) >= 6, names
    assert set(DEFAULT_WHOLE_GAMES) <= set(WHOLE_GAMES), DEFAULT_WHOLE_GAMES
    if not ALL_GAMES:
        names = [n for n in names if n not in WHOLE_GAMES or n in DEFAULT_WHOLE_GAMES]
    # the long games first, so that two demos side by side finish close together
    names.sort(key=lambda n: -_sample(n).stat().st_size)

    def shown(name: str, demo: Demo) -> None:
        panel_shows(page, demo, name)
        if name == names[0]:
            page.screenshot(path=str(artifacts_dir / "e2e-score-sheet.png"), full_page=True)

    # two games side by side: one daemon and its world take turns on a frame, so two keep both cores busy
    play_all(names, tmp_path, shown=shown)


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_a_camera_that_errs_in_2_percent_of_frames_changes_no_score(tmp_path):
    """A glare over a random spot in 2 % of the frames (the tile under it misread or lost in that
    frame), drawn into the rendered picture and read by the daemon's own reader and tracker; nothing
    is corrected from the simulator's truth. The frames are voted on, nothing changes, over a whole
    game and two excerpts."""
    play_all(["mjlog2json__2019103023gm-00a9-0000-f90e0fe9.json", "mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json",
              "mjai-reviewer__double_kakan_then_chankan.json"], tmp_path, camera_errors=0.02)
