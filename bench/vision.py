"""Vision benchmark: full-table reads of rendered 1280x720 frames, ours against a peer.

    python bench/vision.py [--quick]

Renders tables in mid-hand (random rivers with riichi tiles, melds, an indicator, taken
stacks; seeds fixed) from several camera poses, calibrates each pose from its markers, and
reads every frame with ``vision.reader.TableReader`` and the shipped ONNX model, told the tile set the
table plays as the daemon tells it (``--ruleset``, the daemon's default ``tenhou``: 136 tiles, one red
five of each suit, the set the bench's tables are drawn from; ``none``: every kind alike). The tiles are
drawn in held-out styles: each pose's set is one of ``hardware/sim/tile_designs.HELDOUT_DESIGNS``
(face designs and fonts the classifier never trained on) with its own random inks and stroke.

frame_ms: the median time of one full-table read in the daemon's loop (remap, colour measures,
parsing, crops, classifier), where each new frame shows the table one discard further on and
the reader classifies only the slots whose crop changed (``TableReader(reuse_crops=True)``):
OpenCV and onnxruntime are held to one thread and the read is timed as that thread's CPU time,
so that other work on a shared machine does not count; the cold read (every slot classified),
the wall clock and the load are printed beside it. Accuracy: the share of face-up tiles (every
river tile and every indicator) read as the right tile at the right place, over the cold read
and every loop read, a tile read where there is none counting as wrong; wall slot counts are
reported beside it, and (held-out styles) the accuracy of each design on a line ``ours by design``.

``--enrol N``: each frame is also read as a table that enrolled its own set reads it
(``vision.enrol.build`` from N pictures of each kind of that frame's set, near-upright on a well-lit
table, ``tile_designs.CHECK_CONDITIONS``, any quarter turn; the daemon's ``EnrolledClassifier``), cold
and over the same kind of loop; its accuracy is printed on a line of its own before the last one.
``--enrol-from mat`` enrols as staff do at the table instead: N pictures of the enrolment mat with
one tile of each kind laid on it (``hardware/sim/mat_photo.py``, each at its own tilt, lit unevenly), found
and cut by ``vision.enrol_mat`` (``tablectl enrol --frame``'s path).
One enrolment is a small sample (the figure moves by a point or two with the pictures drawn), so
it is done ``--enrol-draws`` times (default 3), each with other pictures: the line gives the total
and each draw's share.

Peer: the PyPI package ``mahjong-detector`` (a YOLOv8 ONNX tile detector, 640x640 input,
benchmark-only) on the same frames, one thread; a face-up tile counts as right when a
detection box of its kind holds the tile's centre (red fives as plain fives; it has no
flowers). The last line is::

    vision accuracy=X frame_ms_median=Y tiles_per_frame=N peer_frame_ms_median=Z
"""

from __future__ import annotations

import argparse
import collections
import copy
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules.ruleset import load as load_ruleset  # noqa: E402
from controller.rules.tiles import KINDS_34, REDS, plain  # noqa: E402
from controller.rules.tilesets import census_for  # noqa: E402
from hardware.sim import tile_art  # noqa: E402
from hardware.sim.scene import MeldShape, SceneRenderer, TableState, pose_camera  # noqa: E402
from hardware.sim.tile_crops import render_sample  # noqa: E402
from hardware.sim.tile_designs import CHECK_CONDITIONS, HELDOUT_DESIGNS, HELDOUT_SEED, design_style  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier  # noqa: E402
from vision.layout import Layout, load_profile  # noqa: E402
from vision.reader import TableReader  # noqa: E402

POSES = [
    dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0),
    dict(tilt_deg=3.0, azimuth_deg=45.0, roll_deg=2.0, distance_mm=1060.0),
    # a ceiling camera off to one side: tilted 12-15 degrees, turned
    dict(tilt_deg=12.0, azimuth_deg=30.0, roll_deg=-90.0, distance_mm=1120.0),
    dict(tilt_deg=15.0, azimuth_deg=200.0, roll_deg=-170.0, distance_mm=1200.0, target_mm=(122.0, 44.5)),
]
PEER_NAMES = {"chun": "7z", "haku": "5z", "hatsu": "6z", "nan": "2z", "pe": "4z", "sha": "3z", "tou": "1z"}


def random_table(layout: Layout, rng: np.random.Generator) -> TableState:
    """A table in mid-hand drawn from a shuffled 136-tile set (the tiles left over in ``st.spare``)."""
    tiles = [t for t in KINDS_34 for _ in range(4)]
    for red in REDS:
        tiles[tiles.index("5" + red[1])] = red
    rng.shuffle(tiles)
    st = TableState.full_walls(layout, back_colour=str(rng.choice(["blue", "yellow"])))
    n = layout.profile.wall.stacks
    for w in layout.wall_positions:
        k = int(rng.integers(0, 8))
        for i in range(k):
            st.walls[w][(i + int(rng.integers(0, n))) % n] = int(rng.integers(0, 2))
    st.indicators[(int(rng.integers(0, 4)), int(rng.integers(1, n + 1)))] = tiles.pop()
    for (w, s) in st.indicators:
        st.walls[w][s - 1] = 2
    for seat in range(4):
        length = int(rng.integers(3, 19))
        riichi = int(rng.integers(0, length)) if rng.random() < 0.5 else -1
        st.rivers[seat] = [(tiles.pop(), i == riichi) for i in range(length)]
        if rng.random() < 0.6:
            t = tiles.pop()
            side = int(rng.integers(0, 3))
            st.melds[seat] = [MeldShape((t, t, t), sideways=side)]
        st.standing[seat] = 10
    st.spare = tiles  # type: ignore[attr-defined]  # the bench's own: tiles still to discard
    return st


def discard_one(layout: Layout, st: TableState, rng: np.random.Generator) -> bool:
    """One more discard on a river that has room; False when none has."""
    room = [s for s, river in st.rivers.items() if len(river) < 2 * layout.profile.river.per_row and st.spare]
    if not room:
        return False
    seat = room[int(rng.integers(len(room)))]
    st.rivers[seat] = st.rivers[seat] + [(st.spare.pop(), False)]
    return True


class CountingClassifier:
    """The shipped classifier, counting the crops it is given (to show how few the loop reclassifies)."""

    def __init__(self, clf: OnnxTileClassifier) -> None:
        self.clf, self.crops = clf, 0

    def classify(self, crops):
        self.crops += len(crops)
        return self.clf.classify(crops)


def score(r: SceneRenderer, st: TableState, view, misses: list[str]) -> tuple[int, int]:
    """(right, counted) face-up tiles of one read; misreads appended to ``misses``."""
    got = our_answers(view)
    truth = truth_tiles(r, st)
    ok = 0
    for key, _xy, tile in truth:
        ok += got.get(key) == tile
        if got.get(key) != tile:
            misses.append(f"{key}:{tile}->{got.get(key)}")
    extra = set(got) - {k for k, _, _ in truth}  # a tile read where there is none counts against us
    return ok, len(truth) + len(extra)


def truth_tiles(r: SceneRenderer, st: TableState) -> list[tuple[str, np.ndarray, str]]:
    """(where, table xy of the face centre, tile) for every face-up tile the reader must name."""
    lay, out = r.layout, []
    for (w, s), t in st.indicators.items():
        out.append((f"ind{w}.{s}", np.array(lay.wall_slot(w, s).centre), t))
    for seat, river in st.rivers.items():
        per = lay.profile.river.per_row
        for row in range(0, len(river), per):
            chunk = river[row:row + per]
            rects = lay.lay_row(lay.river_strip(seat, row // per), [s for _, s in chunk])
            out += [(f"river{seat}.{row + i}", np.array(rc.centre), t) for i, (rc, (t, _)) in enumerate(zip(rects, chunk,
                                                                                                             strict=True))]
    return out


def our_answers(view) -> dict[str, str]:
    got = {f"ind{i.wall}.{i.stack}": i.tile.tile for i in view.indicators}
    for seat, river in view.rivers.items():
        got.update({f"river{seat}.{i}": t.tile for i, t in enumerate(river)})
    return got


def enrolled_accuracy(frames: list[tuple[SceneRenderer, TableState, np.ndarray]], clf: OnnxTileClassifier,
                      per_kind: int, reps: int, draw: int = 0, source: str = "pictures"
                      ) -> tuple[int, int, list[str]]:
    """(right, counted, misreads) of every frame read with a tile set of its own design enrolled
    from ``per_kind`` pictures of each kind: the cold read and ``reps`` loop reads (one discard more
    each, as in ``main``). The pictures are of the frame's set (its style), upright or at any
    quarter turn, taken at the table's back colour and another (``source`` "mat": ``per_kind`` pictures
    of the enrolment mat, cut as ``tablectl enrol --frame`` cuts them); ``draw`` picks other pictures."""
    from hardware.sim.mat_photo import mat_photo
    from vision.enrol import EnrolledClassifier, build
    from vision.enrol_mat import MAT_KINDS, cut_places, find_mat

    backs = (tile_art.BACK_COLOURS["blue"], tile_art.BACK_COLOURS["green"])
    sets: dict[int, EnrolledClassifier] = {}
    ok = n = 0
    misses: list[str] = []
    for i, (r, st, frame) in enumerate(frames):
        if id(r.style) not in sets:
            seed = HELDOUT_SEED + 500 + i + 1000 * draw
            if source == "mat":
                photos = [mat_photo(r.style, seed=seed + 100 * j, back_colour=backs[0]) for j in range(per_kind)]
                pictures = [s for photo in photos for s in cut_places(photo, find_mat(photo))]
            else:
                rng = np.random.default_rng(seed)
                pictures = [(k, render_sample(k, int(rng.integers(4)) * 90, rng, style=r.style, backs=backs,
                                              cond=CHECK_CONDITIONS))
                            for k in MAT_KINDS for _ in range(per_kind)]
            sets[id(r.style)] = EnrolledClassifier(clf, build(clf, pictures))
        reader = TableReader(r.profile, calibrate(frame, r.profile), sets[id(r.style)], reuse_crops=True)
        got, counted = score(r, st, reader.read(frame), misses)
        ok, n = ok + got, n + counted
        loop_st, rng = copy.deepcopy(st), np.random.default_rng(HELDOUT_SEED + 700 + i)
        for k in range(reps):
            discard_one(r.layout, loop_st, rng)
            got, counted = score(r, loop_st, reader.read(r.render(loop_st, seed=7000 + 100 * i + k)), misses)
            ok, n = ok + got, n + counted
    return ok, n, misses


def peer_session():
    import importlib

    import onnxruntime as ort

    peer_predict = importlib.import_module("mahjong_detector.predict")

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    peer_predict.threadlocal.session = ort.InferenceSession(str(peer_predict.model_path), opts,
                                                            providers=["CPUExecutionProvider"])
    return peer_predict


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 frames (one per pose), 5 timed reads each")
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--style", choices=("heldout", "default"), default="heldout",
                    help="tiles in held-out designs (default) or in the scene renderer's default artwork")
    ap.add_argument("--ruleset", default="tenhou",
                    help="the rule set whose tile set the classifier is told, as the daemon does ('none': no set)")
    ap.add_argument("--clock", choices=("thread", "wall"), default="thread",
                    help="frame_ms as the reading thread's CPU time (default) or wall-clock time")
    ap.add_argument("--enrol", type=int, default=0, metavar="N",
                    help="also read each frame with its set enrolled from N pictures per kind (0: not)")
    ap.add_argument("--enrol-draws", type=int, default=3, metavar="K",
                    help="with --enrol: enrol K times, each from other pictures (default 3)")
    ap.add_argument("--enrol-from", choices=("pictures", "mat"), default="pictures",
                    help="with --enrol: single pictures of each kind (default) or pictures of the enrolment mat")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    frames_per_pose, reps = (1, 5) if args.quick else (4, 10)
    profile = load_profile("riichi4")
    clf = OnnxTileClassifier(args.model, threads=1)
    if args.ruleset != "none":
        clf.play_set(census_for(load_ruleset(args.ruleset)))
    rng = np.random.default_rng(2026)
    wall_ok = wall_n = 0
    times: list[float] = []
    warm: list[float] = []
    wall: list[float] = []
    misses: list[str] = []
    false_backs = 0
    tiles_per_frame: list[int] = []
    loop_tiles: list[int] = []
    by_design: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])   # design -> [right, counted]
    frames: list[tuple[SceneRenderer, TableState, np.ndarray]] = []
    for p, pose in enumerate(POSES):
        design = HELDOUT_DESIGNS[p % len(HELDOUT_DESIGNS)]
        style = design_style(design, np.random.default_rng(HELDOUT_SEED + p)) if args.style == "heldout" else None
        r = SceneRenderer(profile, pose_camera(pose), style=style)
        for f in range(frames_per_pose):
            st = random_table(r.layout, rng)
            frame = r.render(st, seed=1000 * p + f)
            frames.append((r, st, frame))
            cal = calibrate(frame, profile)
            reader = TableReader(profile, cal, clf)
            view = reader.read(frame)
            for _ in range(reps):
                w0, c0 = time.perf_counter(), time.thread_time()
                view = reader.read(frame)
                times.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
            tiles_per_frame.append(view.tiles_classified)
            cold_ok, cold_n = score(r, st, view, misses)
            by_design[design][0] += cold_ok
            by_design[design][1] += cold_n
            loop_st = copy.deepcopy(st)
            counting = CountingClassifier(clf)
            warm_reader = TableReader(profile, cal, counting, reuse_crops=True)
            warm_reader.read(frame)
            for k in range(reps):   # the daemon's loop: one more discard, a new frame (noise, light)
                discard_one(r.layout, loop_st, rng)
                again = r.render(loop_st, seed=1000 * p + f + 100 * (k + 1))
                counting.crops = 0
                c0 = time.thread_time()
                loop_view = warm_reader.read(again)
                warm.append((time.thread_time() - c0) * 1000)
                loop_tiles.append(counting.crops)
                ok, n = score(r, loop_st, loop_view, misses)
                by_design[design][0] += ok
                by_design[design][1] += n
            false_backs += sum(1 for row in view.other_backs.values() for c in row if c)
            for w, counts in st.walls.items():
                wall_n += len(counts)
                wall_ok += sum(int(a == b) for a, b in zip(counts, view.walls.get(w, ()), strict=False))
    ours_ok, ours_n = (sum(tally[i] for tally in by_design.values()) for i in (0, 1))
    accuracy = ours_ok / max(ours_n, 1)
    if misses:
        print(f"ours: misread {', '.join(misses[:12])}{' ...' if len(misses) > 12 else ''}")
    print(f"ours: {len(frames)} frames, {ours_ok}/{ours_n} face-up tiles right ({accuracy:.4f}), "
          f"wall slots {wall_ok}/{wall_n} (other-set backs flagged wrongly: {false_backs}); loop read "
          f"{statistics.median(warm):.2f} ms median on the thread (p90 {np.percentile(warm, 90):.2f} ms), "
          f"{statistics.mean(loop_tiles):.1f} crops classified/frame; cold read {statistics.median(times):.2f} ms "
          f"(wall clock {statistics.median(wall):.2f} ms, machine load {os.getloadavg()[0]:.1f}), "
          f"{statistics.mean(tiles_per_frame):.1f} crops/frame")
    if args.style == "heldout":
        print("ours by design: " + ", ".join(f"{d} {ok}/{n} ({ok / max(n, 1):.4f})" for d, (ok, n) in by_design.items()))

    if args.enrol > 0:
        draws = [enrolled_accuracy(frames, clf, args.enrol, reps, draw=d, source=args.enrol_from)
                 for d in range(max(args.enrol_draws, 1))]
        e_ok, e_n = sum(d[0] for d in draws), sum(d[1] for d in draws)
        e_misses = [m for d in draws for m in d[2]]
        if e_misses:
            common = collections.Counter(e_misses).most_common()
            print(f"enrolled: misread {', '.join(f'{m} x{c}' for m, c in common[:12])}{' ...' if len(common) > 12 else ''}")
        shares = " ".join(f"{ok / max(n, 1):.4f}" for ok, n, _m in draws)
        what = "mat pictures" if args.enrol_from == "mat" else "pictures per kind"
        print(f"enrolled ({args.enrol} {what}, {len(draws)} draws): {e_ok}/{e_n} face-up tiles right "
              f"({e_ok / max(e_n, 1):.4f}; each draw {shares})")

    peer_ms = float("nan")
    try:
        peer_predict = peer_session()
        from mahjong_detector.preprocess import preprocess_image
        from PIL import Image
    except Exception as err:   # a benchmark-only dependency: report, do not fail the bench
        print(f"peer: mahjong-detector unavailable ({type(err).__name__}: {err}); peer_frame_ms_median=nan")
    else:
        peer_times, peer_ok, peer_n = [], 0, 0
        for r, st, frame in frames:
            img = Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            dets = []
            for _ in range(max(1, reps // 2)):
                c0, w0 = time.thread_time(), time.perf_counter()
                pre, pad = preprocess_image(img)
                dets = peer_predict.predict(pre, pad)
                peer_times.append(((time.thread_time() - c0) if args.clock == "thread"
                                   else (time.perf_counter() - w0)) * 1000)
            boxes = [(d, peer_predict.CLASS_NAMES[d.class_id]) for d in dets]
            for _key, xy, tile in truth_tiles(r, st):
                peer_n += 1
                u, v = r.camera.project_xy(xy, profile.tile.thickness_mm)
                hits = [PEER_NAMES.get(name, name) for d, name in boxes if d.x1 <= u <= d.x2 and d.y1 <= v <= d.y2]
                peer_ok += plain(tile) in hits[:1]
        peer_ms = statistics.median(peer_times)
        print(f"peer mahjong-detector 0.0.6: {peer_ok}/{peer_n} face-up tiles right ({peer_ok / max(peer_n, 1):.4f}), "
              f"{sum(1 for _ in peer_times)} timed runs, {peer_ms:.2f} ms median (one 640x640 YOLOv8 pass per frame)")
    frame_ms = statistics.median(warm if args.clock == "thread" else wall)
    print(f"vision accuracy={accuracy:.4f} frame_ms_median={frame_ms:.2f} "
          f"tiles_per_frame={round(statistics.mean(tiles_per_frame))} peer_frame_ms_median={peer_ms:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
