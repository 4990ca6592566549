"""Rendered training and held-out crop sets for the tile classifier (numpy/OpenCV only, no torch).

Each sample is one tile as a camera over the table (or a phone photo) would show it
(``hardware/sim/tile_crops.py``), in one of the face designs of ``hardware/sim/tile_designs.py``,
cut out and prepared the way the product does (``vision.decode.prep_one``). Which designs,
fonts, colours, lights and poses each side uses is declared once in ``tile_designs``:
:func:`render_set` draws training sets from ``TRAIN_DESIGNS`` under ``TRAIN_CONDITIONS``,
:func:`heldout_set` from ``HELDOUT_DESIGNS`` under ``HELDOUT_CONDITIONS``, with seeds from
``HELDOUT_SEED`` on. :func:`evaluate_heldout` runs a model on the held-out set and returns the
figures for the model card (per-class accuracy, calibration error).
"""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from controller.rules.tiles import ALL_TILES
from hardware.sim import tile_art
from hardware.sim.tile_crops import Conditions, render_sample, set_backs
from hardware.sim.tile_designs import (
    ARTWORK,
    CHECK_CONDITIONS,
    HELDOUT_CONDITIONS,
    HELDOUT_DESIGNS,
    HELDOUT_SEED,
    STEEP_CONDITIONS,
    TRAIN_CONDITIONS,
    TRAIN_DESIGNS,
    design_style,
    mixed_design,
    render_crops,
)
from vision.decode import CLASSES, INPUT_SIZE, ROTATIONS, prep_one, softmax

HARD_PAIRS: tuple[tuple[str, str], ...] = (
    ("4p", "5p"), ("5p", "6p"), ("4p", "6p"), ("7s", "9s"),
    ("5m", "0m"), ("5p", "0p"), ("5s", "0s"), ("1s", "5f"), ("5z", "back"),
)
P_ARTWORK = 0.3         # share of training sets in the artwork (half of them drawn exactly as the scene renderer does)


def class_weights() -> np.ndarray:
    """Sampling weight per class: ``none`` and ``back`` come up more (they vary most)."""
    w = np.ones(len(CLASSES))
    w[CLASSES.index("none")] = 2.5
    w[CLASSES.index("back")] = 1.5
    return w / w.sum()


def _set_style(rng: np.random.Generator, designs: tuple[str, ...], heldout: bool,
               p_artwork: float = P_ARTWORK, p_mixed: float = 0.0) -> tile_art.TileStyle:
    if not heldout and rng.random() < p_artwork:
        style = design_style(ARTWORK, rng)
        if rng.random() < 0.5:  # exactly the scene renderer's default look
            style = tile_art.with_style(tile_art.DEFAULT_STYLE, stroke_px=style.stroke_px, glyph_scale=style.glyph_scale)
        return style
    if not heldout and p_mixed and rng.random() < p_mixed:
        return design_style(mixed_design(rng), rng)
    pool = [d for d in designs if d != ARTWORK] or list(designs)
    return design_style(pool[int(rng.integers(len(pool)))], rng)


def render_set(n: int, seed: int, *, heldout: bool = False, group: int = 64, p_artwork: float = P_ARTWORK,
               upright: bool = False, p_mixed: float = 0.0, steep: bool = False, design: str | None = None,
               wear: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` crops -> (images uint8 ``(n, S, S, 3)``, class index, rotation index); one tile set per ``group``;
    ``p_artwork``: the share of training sets in the artwork; ``p_mixed``: the share of the other training
    sets drawn in a ``mixed_design`` instead of a named design; ``upright``: training sets under
    ``CHECK_CONDITIONS`` (the near-upright, well-lit subset of the training conditions a table shows most);
    ``steep``: training sets under ``STEEP_CONDITIONS`` (the training poses' corner of strong tilt and squeeze);
    ``design``: every set in this one named training design (no artwork, no mixed sets), for a design the
    shares above leave rare (a named design gets about one set in a hundred); ``wear``: the share of training
    sets drawn as played, engraved sets (``tile_art.worn_style``: shaded grooves, worn paint, outlined strokes)."""
    if heldout != (seed >= HELDOUT_SEED):
        raise ValueError(f"render_set: seed {seed} is on the wrong side of HELDOUT_SEED for heldout={heldout}")
    if heldout and (upright or steep):
        raise ValueError("render_set: upright and steep are subsets of the training conditions, not held-out sets")
    if upright and steep:
        raise ValueError("render_set: upright or steep, not both")
    if heldout and wear:
        raise ValueError("render_set: worn sets are a training draw, not a held-out set")
    if design is not None and design not in TRAIN_DESIGNS:
        raise ValueError(f"render_set: {design!r} is not a training design, one of {list(TRAIN_DESIGNS)}")
    designs, cond = (HELDOUT_DESIGNS, HELDOUT_CONDITIONS) if heldout else (TRAIN_DESIGNS, TRAIN_CONDITIONS)
    if design is not None:
        designs, p_artwork, p_mixed = (design,), float(design == ARTWORK), 0.0
    if upright:
        cond = CHECK_CONDITIONS
    if steep:
        cond = STEEP_CONDITIONS
    rng = np.random.default_rng(seed)
    labels = rng.choice(len(CLASSES), size=n, p=class_weights())
    rots = rng.integers(0, 4, size=n)
    xs = np.zeros((n, INPUT_SIZE, INPUT_SIZE, 3), np.uint8)
    style, backs, glossy = None, (), True
    for i in range(n):
        if i % group == 0:
            style = _set_style(rng, designs, heldout, p_artwork, p_mixed)
            if wear and rng.random() < wear:
                style = tile_art.worn_style(style, rng)
            backs = set_backs(rng, cond)
            glossy = bool(rng.random() < 0.6)
        out_px = 64 if rng.random() < 0.3 else 44
        crop = render_sample(CLASSES[labels[i]], ROTATIONS[rots[i]], rng, style=style, backs=backs, cond=cond,
                             out_px=out_px, glossy=glossy)
        xs[i] = prep_one(crop)
    return xs, labels.astype(np.int64), rots.astype(np.int64)


def render_labels(labels: list[str], rotations: list[int], seed: int, *, design: str = ARTWORK,
                  cond: Conditions = CHECK_CONDITIONS) -> np.ndarray:
    """Crops of exactly these classes at these rotations (degrees), one set of ``design``, ``(n, S, S, 3)``; for tests."""
    rng = np.random.default_rng(seed)
    style = design_style(design, rng)
    backs = set_backs(rng, cond)
    xs = np.zeros((len(labels), INPUT_SIZE, INPUT_SIZE, 3), np.uint8)
    for i, (label, rot) in enumerate(zip(labels, rotations, strict=True)):
        xs[i] = prep_one(render_sample(label, rot, rng, style=style, backs=backs, cond=cond, out_px=44))
    return xs


def symmetric_180(threshold: float = 15.0) -> frozenset[str]:
    """Tiles whose glyph looks (nearly) the same upside down in the artwork, so 0 and 180 are one answer."""
    out = set()
    for tile in ALL_TILES:
        if tile == "5z":
            out.add(tile)
            continue
        g = tile_art._styled_glyph(tile, tile_art.DEFAULT_STYLE)  # noqa: SLF001
        img = g[:, :, :3] * g[:, :, 3:] + (1 - g[:, :, 3:])
        img = cv2.resize(img, (30, 40), interpolation=cv2.INTER_AREA)
        if np.abs(img - img[::-1, ::-1]).mean() * 255 < threshold:
            out.add(tile)
    # bamboo fives and sixes are symmetric in most physical sets; the artwork differs only by ink colour
    out |= {"5s", "0s", "6s"}
    return frozenset(out)


# --------------------------------------------------------------------------- evaluation


def confusion_report(true: np.ndarray, pred: np.ndarray, rot_true: np.ndarray | None = None,
                     rot_pred: list | None = None) -> tuple[float, str]:
    """Top-1 accuracy and a text report: hard pairs, the most common confusions, per-class misses."""
    true = np.asarray(true)
    pred = np.asarray(pred)
    acc = float((true == pred).mean()) if len(true) else 0.0
    lines = [f"samples={len(true)} top1_accuracy={acc:.4f}"]
    confusions = Counter((CLASSES[a], CLASSES[b]) for a, b in zip(true, pred, strict=True) if a != b)
    lines.append("hard pairs (true->predicted counts, both directions):")
    for a, b in HARD_PAIRS:
        n_a = int((true == CLASSES.index(a)).sum())
        n_b = int((true == CLASSES.index(b)).sum())
        lines.append(f"  {a}<->{b}: {a}->{b} {confusions[(a, b)]}/{n_a}, {b}->{a} {confusions[(b, a)]}/{n_b}")
    red = plain = n_red = 0
    for r, p5 in (("0m", "5m"), ("0p", "5p"), ("0s", "5s")):
        red += confusions[(r, p5)] + confusions[(p5, r)]
        n_red += int((true == CLASSES.index(r)).sum() + (true == CLASSES.index(p5)).sum())
        plain += 0
    lines.append(f"  red<->plain fives: {red} confused of {n_red}")
    lines.append("most common confusions: " + (", ".join(f"{a}->{b} x{n}" for (a, b), n in
                                                         confusions.most_common(12)) or "none"))
    if rot_true is not None and rot_pred is not None:
        sym = symmetric_180()
        ok = total = 0
        for t, rt, rp, p in zip(true, rot_true, rot_pred, pred, strict=True):
            name = CLASSES[t]
            if name == "none" or p != t or rp is None:
                continue
            want = ROTATIONS[rt]
            if name in sym or name == "back":
                want %= 180
                rp %= 180
            ok += int(want == rp)
            total += 1
        lines.append(f"rotation accuracy (correct tiles, 0/180 folded for symmetric faces): "
                     f"{ok / max(total, 1):.4f} of {total}")
    return acc, "\n".join(lines)


def heldout_set(n: int, seed: int = HELDOUT_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The held-out rendered set: held-out designs, fonts, colours, lights and poses; seeds from ``HELDOUT_SEED``."""
    return render_set(n, seed, heldout=True, group=32)


def calibration_error(probs: np.ndarray, true: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error: the confidence-weighted gap between confidence and accuracy, in ``bins`` bins."""
    conf = probs.max(1)
    ok = probs.argmax(1) == true
    edges = np.linspace(0, 1, bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs(ok[m].mean() - conf[m].mean())
    return float(ece)


def per_class_accuracy(true: np.ndarray, pred: np.ndarray) -> dict[str, tuple[int, int]]:
    """Class -> (right, samples)."""
    return {c: (int(((true == i) & (pred == i)).sum()), int((true == i).sum())) for i, c in enumerate(CLASSES)}


def evaluate_heldout(n: int = 2000, *, seed: int = HELDOUT_SEED, classifier=None) -> tuple[float, str]:
    """Run the shipped model (or ``classifier``) on ``n`` held-out crops: (top-1 accuracy, report text)."""
    if classifier is None:
        from vision.classifier import OnnxTileClassifier
        classifier = OnnxTileClassifier()
    xs, ys, rs = heldout_set(n, seed)
    tl, rl = [], []
    for i in range(0, n, 256):
        a, b = classifier.logits(list(xs[i:i + 256]))[:2]
        tl.append(a)
        rl.append(b)
    probs = softmax(np.concatenate(tl))
    from vision.decode import decode

    guesses = decode(np.concatenate(tl), np.concatenate(rl), classes=classifier.classes,
                     min_confidence=classifier.min_confidence, symmetric_180=classifier.symmetric_180)
    pred = probs.argmax(1)
    acc, report = confusion_report(ys, pred, rs, [g.rotation for g in guesses])
    answered = np.array([CLASSES.index(g.tile) for g in guesses])
    report += f"\nanswer accuracy (low-confidence answers turned to none): {float((answered == ys).mean()):.4f}"
    report += f"\nexpected calibration error (15 bins): {calibration_error(probs, ys):.4f}"
    wrong_conf = probs.max(1)[pred != ys]
    if len(wrong_conf):
        report += (f"\nwrong answers: median confidence {np.median(wrong_conf):.2f}, "
                   f"{int((wrong_conf >= 0.9).sum())} of {len(wrong_conf)} at 0.9 or more")
    pc = per_class_accuracy(ys, pred)
    report += "\nper class (right/samples): " + " ".join(f"{c}:{a}/{b}" for c, (a, b) in pc.items())
    return acc, report


# the parts of the held-out conditions swapped one group at a time into the training conditions
CONDITION_PARTS = {
    "training": {},
    "held-out (all parts)": None,
    "held-out light and felt/back hues": {"light": HELDOUT_CONDITIONS.light, "felt_hues": HELDOUT_CONDITIONS.felt_hues,
                                          "back_hues": HELDOUT_CONDITIONS.back_hues,
                                          "back_colours": HELDOUT_CONDITIONS.back_colours},
    "held-out tilt and squeeze together": {"tilt_deg": HELDOUT_CONDITIONS.tilt_deg,
                                           "squeeze": HELDOUT_CONDITIONS.squeeze},
    "tilt 40-46 at squeeze 1.22": {"tilt_deg": HELDOUT_CONDITIONS.tilt_deg, "squeeze": (1.22, 1.22)},
    "tilt 38-40, squeeze 1.20-1.22 (training)": {"tilt_deg": (38.0, 40.0), "squeeze": (1.2, 1.22)},
    "tilt 0-20": {"tilt_deg": (0.0, 20.0)},
    "tiles 25-35 px (training)": {"tile_px": (25.0, 35.0)},
    "tiles 55-64 px (training)": {"tile_px": (55.0, 64.0)},
}
CONDITION_DESIGNS = ("mincho-ipa-petal", "gothic-ipa-rings", "brush-aoyagi-rings", "kai-ukai-petal")


def condition_report(classifier, designs: tuple[str, ...] = CONDITION_DESIGNS, sets: int = 4) -> str:
    """Where held-out crops are lost: ``sets`` sets of each design, every kind once (empty places left out),
    read under the training conditions with one group of parts at a time swapped for its held-out range."""
    from dataclasses import replace

    tiles = [c for c in CLASSES if c != "none"]
    lines = [f"designs {', '.join(designs)}; {sets} sets x {len(tiles)} kinds each"]
    for name, parts in CONDITION_PARTS.items():
        cond = HELDOUT_CONDITIONS if parts is None else replace(TRAIN_CONDITIONS, **parts)
        right = []
        for design in designs:
            for k in range(sets):
                pairs = render_crops(design, tiles, per_tile=1, seed=HELDOUT_SEED + 9000 + k, cond=cond)
                guesses = classifier.classify([crop for _, crop in pairs])
                right += [g.best == t for g, (t, _) in zip(guesses, pairs, strict=True)]
        lines.append(f"{name:42s} {np.mean(right):.3f} of {len(right)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m hardware.sim.training.data [N] [--model FILE] [--by-condition]``: the held-out accuracy and
    confusion report, or (``--by-condition``) the accuracy with the held-out conditions' parts swapped in one
    group at a time (:func:`condition_report`)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m hardware.sim.training.data", description=main.__doc__)
    ap.add_argument("n", type=int, nargs="?", default=4000, help="held-out crops to render (default 4000)")
    ap.add_argument("--model", default=None, help="ONNX model (default: the shipped one)")
    ap.add_argument("--by-condition", action="store_true", help="accuracy with one held-out part at a time")
    args = ap.parse_args(argv)
    from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier

    if args.by_condition:
        print(condition_report(OnnxTileClassifier(args.model or DEFAULT_MODEL)))
        return 0
    _acc, report = evaluate_heldout(args.n, classifier=OnnxTileClassifier(args.model or DEFAULT_MODEL))
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --------------------------------------------------------------------------- the scene renderer's own crops


class _Recorder:
    """A classifier that answers as ``teacher`` does and keeps every crop it is given (as the model sees it)."""

    def __init__(self, teacher) -> None:
        self.teacher = teacher
        self.crops: list[np.ndarray] = []
        self.labels: list[int] = []
        self.rotations: list[int] = []

    def classify(self, crops):
        crops = list(crops)
        guesses = self.teacher.classify(crops)
        tl, rl = self.teacher.logits(crops)[:2]
        for crop, t, r in zip(crops, tl, rl, strict=True):
            self.crops.append(prep_one(crop))
            self.labels.append(CLASSES.index(self.teacher.classes[int(np.argmax(t))]))
            self.rotations.append(int(np.argmax(r)))
        return guesses


def _scene_table(layout, rng: np.random.Generator):
    """A table in mid-hand: walls with gaps, an indicator, rivers with riichi tiles, melds, sometimes a revealed hand."""
    from hardware.sim.scene import MeldShape, TableState

    tiles = [t for t in ALL_TILES if not t.endswith("f") for _ in range(4)]
    rng.shuffle(tiles)
    st = TableState.full_walls(layout, back_colour=str(rng.choice(["blue", "yellow"])))
    n = layout.profile.wall.stacks
    for w in layout.wall_positions:
        for i in range(int(rng.integers(0, 10))):
            st.walls[w][(i + int(rng.integers(0, n))) % n] = int(rng.integers(0, 2))
    w, s = int(rng.integers(0, 4)), int(rng.integers(1, n + 1))
    st.indicators[(w, s)] = tiles.pop()
    st.walls[w][s - 1] = 2
    for seat in range(4):
        length = int(rng.integers(0, 19))
        riichi = int(rng.integers(0, max(length, 1))) if rng.random() < 0.5 else -1
        st.rivers[seat] = [(tiles.pop(), i == riichi) for i in range(length)]
        if rng.random() < 0.6:
            t = tiles.pop()
            st.melds[seat] = [MeldShape((t, t, t), sideways=int(rng.integers(0, 3)))]
        st.standing[seat] = 10
    return st


def scene_set(frames: int, seed: int, teacher=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The crops the table reader cuts from ``frames`` frames of the scene renderer in its default look
    (random tables and camera poses like the bench's, varied light and noise), labelled by ``teacher``
    (default: the shipped model, which reads these frames exactly): (images, class index, rotation index).

    Training on them keeps a fine-tuned model reading the simulated table as the shipped one does.
    """
    from hardware.sim.scene import SceneRenderer, pose_camera
    from vision.calibration import calibrate
    from vision.layout import load_profile
    from vision.reader import TableReader

    if seed >= HELDOUT_SEED:
        raise ValueError(f"scene_set: seed {seed} is on the held-out side")
    if teacher is None:
        from vision.classifier import OnnxTileClassifier
        teacher = OnnxTileClassifier()
    profile = load_profile("riichi4")
    rng = np.random.default_rng(seed)
    rec = _Recorder(teacher)
    made = 0
    while made < frames:
        pose = dict(tilt_deg=float(rng.uniform(0, 16)), azimuth_deg=float(rng.uniform(0, 360)),
                    roll_deg=float(rng.uniform(-180, 180)), distance_mm=float(rng.uniform(980, 1220)))
        r = SceneRenderer(profile, pose_camera(pose), light=float(rng.uniform(0.85, 1.15)),
                          noise=float(rng.uniform(2, 5)))
        st = _scene_table(r.layout, rng)
        frame = r.render(st, seed=int(rng.integers(1 << 30)))
        try:
            reader = TableReader(profile, calibrate(frame, profile), rec)
        except Exception:  # noqa: BLE001  a pose whose markers the calibration cannot solve: draw another
            continue
        for _ in range(3):  # the same table a few times: new noise, new light
            reader.read(r.render(st, seed=int(rng.integers(1 << 30))))
            made += 1
    return np.stack(rec.crops), np.array(rec.labels, np.int64), np.array(rec.rotations, np.int64)
