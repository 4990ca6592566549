"""Learning from play: revealed crops kept on confirmation, the set refreshed from them, the
``[camera] tile_set`` key and the camera part built with a set."""

from __future__ import annotations

import asyncio
import math
import time
import types

import cv2
import numpy as np
import pytest

from controller import config as config_mod
from controller.cli import main as tablectl
from controller.daemon_camera import CameraPart, build_pipeline
from controller.daemon_parts import camera_pipeline
from controller.learned import Learner, confirmed_hands
from hardware.sim.scene import SceneRenderer, TableState, pose_camera
from tests.vision.enrol_data import render, standin_design
from vision.calibration import calibrate
from vision.camera import FileCamera
from vision.classifier import OnnxTileClassifier
from vision.confirmed import ConfirmedStore
from vision.decode import CLASSES
from vision.enrol import EnrolledClassifier, TileSet, build
from vision.layout import load_profile
from vision.reader import TableReader
from vision.tracker import TableTracker

HAND = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "5z", "5z"]


@pytest.fixture(scope="module")
def revealed_frames(tmp_path_factory):
    profile = load_profile("riichi4")
    renderer = SceneRenderer(profile, pose_camera(dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0)))
    state = TableState.full_walls(renderer.layout)
    state.revealed = {2: list(HAND)}
    folder = tmp_path_factory.mktemp("frames")
    paths = []
    for k in range(3):
        paths.append(folder / f"reveal{k}.png")
        cv2.imwrite(str(paths[-1]), renderer.render(state, seed=40 + k))
    return profile, paths


def _run(part: CameraPart, n: int) -> None:
    async def go():
        await part.start(lambda *a, **k: None)
        deadline = time.monotonic() + 120
        while part.frames < n and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await part.stop()
    asyncio.run(go())


def test_confirmed_revealed_crops_are_kept_and_refresh_the_set(revealed_frames, tile_model, tmp_path, capsys):
    profile, paths = revealed_frames
    calibration = calibrate(cv2.imread(str(paths[0])), profile)
    part = CameraPart(FileCamera(paths), TableReader(profile, calibration, tile_model), TableTracker(), fps=0)
    store = ConfirmedStore(tmp_path / "data" / "confirmed")
    part.learner = Learner(store)
    _run(part, len(paths))
    # the staff corrected one tile the camera could not be trusted with: the hand as confirmed
    kept = part.learner.confirmed([tuple(HAND)], now=86400 * 3)
    assert kept >= 12, kept
    counts = store.counts()
    assert counts.get("1z", 0) == 3 and counts.get("5z", 0) == 2, counts
    assert set(counts) <= set(HAND)
    history = store.history()
    assert history["1z"][0]["n"] == 3 and 0 < history["1z"][0]["mean_confidence"] <= 1
    assert part.learner.confirmed([tuple(HAND)]) == 0       # nothing seen since: nothing kept twice
    # the set refreshed from them: a new set file with these kinds, or added to an existing one
    out = tmp_path / "data" / "tile_set.json"
    assert tablectl(["enrol", "--add-confirmed", "--data", str(tmp_path / "data")]) == 0
    ts = TileSet.load(out)
    assert set(ts.kinds) == set(counts) and ts.count == sum(counts.values())
    assert tablectl(["enrol", "--add-confirmed", "--data", str(tmp_path / "data")]) == 0
    assert TileSet.load(out).count == 2 * ts.count
    capsys.readouterr()


def test_add_confirmed_with_nothing_kept(tmp_path, capsys):
    assert tablectl(["enrol", "--add-confirmed", "--data", str(tmp_path)]) == 2
    assert "no confirmed crops kept yet" in capsys.readouterr().err


def test_on_confirm_takes_the_hands_from_the_game_state(tmp_path):
    learner = Learner(ConfirmedStore(tmp_path))
    crops = [np.full((40, 40, 3), 50 * i, np.uint8) for i in range(3)]
    learner._seen = {1: [(crops[0], "1m", 0.9), (crops[1], "none", 0.0), (crops[2], "3m", 0.7)]}
    part = CameraPart(None, None, None)
    part.learner = learner
    state = types.SimpleNamespace(seats=[types.SimpleNamespace(revealed=None),
                                         types.SimpleNamespace(revealed=("1m", "2m", "3m"))])
    assert confirmed_hands(state) == [("1m", "2m", "3m")]
    part.on_confirm(state)
    deadline = time.monotonic() + 30
    while learner.kept < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ConfirmedStore(tmp_path).counts() == {"1m": 1, "2m": 1, "3m": 1}
    right = {r["kind"]: r["right"] for r in
             [dict(kind=k, **v[0]) for k, v in ConfirmedStore(tmp_path).history().items()]}
    assert right == {"1m": 1.0, "2m": 0.0, "3m": 1.0}


def test_the_store_keeps_within_its_budget(tmp_path):
    store = ConfirmedStore(tmp_path, budget_mb=0.02)
    rng = np.random.default_rng(0)
    for t in range(12):
        store.keep([("7p", rng.integers(0, 255, (40, 40, 3), dtype=np.uint8), "7p", 0.9),
                    ("1s", rng.integers(0, 255, (40, 40, 3), dtype=np.uint8), "1s", 0.8)], now=1000.0 + t)
    assert store.size_bytes() <= 20_000
    names = sorted(p.name for p in (tmp_path / "7p").glob("*.png"))
    assert names and names[-1].startswith(f"{1011000:015d}")      # the newest stay
    assert abs(store.counts()["7p"] - store.counts()["1s"]) <= 1
    assert sum(v[0]["n"] for v in store.history(bucket_s=1e9).values()) == 24   # the readings log keeps all


def test_tile_set_key_and_the_camera_built_with_a_set(revealed_frames, tmp_path):
    cfg = config_mod.parse({"camera": {"tile_set": "tile_set.json"}}, origin="t")
    assert cfg.camera.tile_set == "tile_set.json"
    with pytest.raises(config_mod.ConfigError, match="tile_sets"):
        config_mod.parse({"camera": {"tile_sets": "x"}}, origin="t")
    profile, paths = revealed_frames
    clf = OnnxTileClassifier()
    good = build(clf, render(standin_design(5), ["1m", "2m"], 2, seed=1, heldout=False)).save(tmp_path / "s.json")
    part = build_pipeline(FileCamera(paths), calibration_file="", tile_set_file=str(good),
                          learn_dir=str(tmp_path / "confirmed"))
    assert isinstance(part.reader.classifier, EnrolledClassifier)
    assert part.status()["tile_set"].startswith(str(good)) and part.learner is not None
    (tmp_path / "bad.json").write_text("{ not json")
    part = build_pipeline(FileCamera(paths), tile_set_file=str(tmp_path / "bad.json"))
    assert isinstance(part.reader.classifier, OnnxTileClassifier)
    assert part.status()["tile_set"].startswith("refused") and "damaged" in part.status()["tile_set"]
    assert part.learner is None


class _Watcher:
    """A part that records the game states it is shown on confirmation."""

    name = "watcher"

    def __init__(self):
        self.states = []

    async def start(self, post):
        pass

    async def stop(self):
        pass

    def handle(self, command):
        return False

    def status(self):
        return {}

    def on_confirm(self, game_state):
        self.states.append(game_state)


def test_the_daemon_hands_a_confirmation_to_the_parts_and_a_rebuild_does_not(tmp_path):
    from controller import events
    from controller.daemon import Daemon
    from controller.daemon_sys import SystemdNotifier
    from controller.storage import EventStore

    cfg = config_mod.replace(config_mod.load(env={}), panel={"enabled": False})
    store = EventStore.open(tmp_path)
    watcher = _Watcher()
    daemon = Daemon(cfg, store, parts=[watcher], notifier=SystemdNotifier(env={}))
    daemon.accept("panel", events.Reset(reason="test", now=1.0))
    assert watcher.states == []
    before = daemon.core.game_state     # the hands as the staff confirm them: the state before the confirmation
    daemon.accept("panel", events.ConfirmResult(hand_index=0, now=2.0))
    assert len(watcher.states) == 1 and watcher.states[0] is before
    replay = Daemon(cfg, store, parts=[watcher], notifier=SystemdNotifier(env={}))
    assert replay.rebuild() == 2 and len(watcher.states) == 1


def test_the_daemon_builds_its_camera_with_the_rule_sets_tiles_its_set_and_its_learning(revealed_frames, tmp_path):
    # camera_pipeline is the one builder for a real table's camera and the simulated table's stream
    _profile, paths = revealed_frames
    data = tmp_path / "data"
    data.mkdir()
    build(OnnxTileClassifier(), render(standin_design(5), ["1m", "2m"], 2, seed=1, heldout=False)).save(data / "s.json")
    cfg = config_mod.parse({"storage": {"data_dir": str(data)}, "camera": {"tile_set": "s.json"},
                            "game": {"ruleset": "tenhou"}}, origin="t")
    part = camera_pipeline(cfg, FileCamera(paths), fps=0)
    assert part.reader.profile.name == "riichi4"
    assert isinstance(part.reader.classifier, EnrolledClassifier) and part.learner is not None
    assert part.learner.store.root == data / "confirmed"
    prior = dict(zip(CLASSES, part.reader.classifier.base.log_prior, strict=True))
    # tenhou: 136 tiles, one red five a suit; no flowers
    assert prior["1z"] == pytest.approx(0.0) and prior["back"] == 0.0 and prior["none"] == 0.0
    assert prior["5m"] == pytest.approx(math.log(3 / 4)) and prior["0p"] == pytest.approx(math.log(1 / 4))
    assert prior["3f"] == pytest.approx(math.log(0.1 / 4))
