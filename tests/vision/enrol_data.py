"""Rendered enrolment data for the enrolment tests: one set of a face design, crops of each kind.

Held-out face designs come from ``hardware/sim/tile_designs.py`` (designs the model never saw in
training, rendered at any slant in extreme light); beside them two stand-ins: a ``random_style``
pushed outside the training ranges (one ink for every suit, a strong slant and stroke, a yellowed
face, corner numbers), photographed near quarter turns (``hardware/sim/tile_crops.py``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from hardware.sim import tile_art, tile_designs
from hardware.sim.tile_crops import Conditions, render_sample
from vision.enrol import ENROL_KINDS

MAT_KINDS = tuple(k for k in ENROL_KINDS if k != "none")
BACKS = ((40, 120, 40), (150, 60, 20))

# the stand-ins' enrolment pictures: ordinary light and poses; their test pictures: the held-out
# light levels, steeper tilts, more squeeze, other felts (skew stays small: near quarter turns)
ENROL_CONDITIONS = Conditions(felt_hues=((40.0, 90.0),), back_hues=((100.0, 120.0),), back_colours=("blue",),
                              light=((0.8, 1.2),), tilt_deg=(0.0, 25.0), skew_deg=(0.0, 6.0), squeeze=(1.0, 1.1))
TEST_CONDITIONS = Conditions(felt_hues=((0.0, 30.0), (138.0, 162.0)), back_hues=((100.0, 120.0),),
                             back_colours=("blue",), light=tile_designs.HELDOUT_CONDITIONS.light,
                             tilt_deg=(25.0, 42.0), skew_deg=(0.0, 8.0), squeeze=(1.1, 1.3))


def standin_design(seed: int) -> tile_art.TileStyle:
    """A face design outside the training ranges (see the module doc)."""
    rng = np.random.default_rng(seed)
    style = tile_art.random_style(rng)
    ink = tuple(int(v) for v in rng.integers(0, 200, 3))
    return tile_art.with_style(style, glyph_affine=(0.78, 1.1, 0.14), stroke_px=3, has_corner_numbers=True,
                               face_bgr=(170, 215, 235),
                               ink={s: (ink, (150, 30, 150), (30, 140, 140), (160, 120, 0)) for s in "mpszf"})


def render(style: tile_art.TileStyle, kinds, per_kind: int, seed: int, *, heldout: bool
           ) -> list[tuple[str, np.ndarray]]:
    """``per_kind`` crops of each kind in ``style`` at random quarter turns (the set's backs are
    ``BACKS``); ``heldout``: ``TEST_CONDITIONS`` instead of ``ENROL_CONDITIONS``."""
    rng = np.random.default_rng(seed)
    cond = TEST_CONDITIONS if heldout else ENROL_CONDITIONS
    return [(k, render_sample(k, int(rng.integers(4)) * 90, rng, style=style, backs=BACKS, cond=cond))
            for k in kinds for _ in range(per_kind)]


def designs() -> list[tuple[str, object]]:
    """``(name, renderer)`` per held-out design: ``tile_designs``' (sets at any slant in extreme
    light) and the two stand-ins (near quarter turns, enrolled in ordinary light, tested in the
    held-out light and poses). ``renderer(kinds, per_kind, seed)`` -> (enrolment samples, test
    samples) of ONE set of that design: ``per_kind`` of each kind for enrolment, as many other
    renders of each for the test, every crop at its own angle, pose and light."""
    out = []
    for name in tile_designs.HELDOUT_DESIGNS:
        def r(kinds, per_kind, seed, _d=name):
            both = tile_designs.render_crops(_d, list(kinds), per_tile=2 * per_kind, seed=seed,
                                             heldout_conditions=True)
            return _split(both, per_kind)
        out.append((str(name), r))
    for seed in (11, 12):
        style = standin_design(seed)
        out.append((f"standin{seed}", lambda kinds, per_kind, seed, _s=style:
                    (render(_s, [k for k in kinds if k != "none"], per_kind, seed, heldout=False),
                     render(_s, kinds, per_kind, seed + 1, heldout=True))))
    return out


def set_style(name: str, seed: int) -> tile_art.TileStyle:
    """The style of the set ``designs()``' renderer ``name`` draws with ``seed`` (a stand-in's is
    fixed; ``tile_designs.render_crops`` draws its set's style first from ``default_rng(seed)``)."""
    if name.startswith("standin"):
        return standin_design(int(name.removeprefix("standin")))
    return tile_designs.design_style(name, np.random.default_rng(seed))


def _split(samples, per_kind: int):
    """Each kind's first ``per_kind`` samples for enrolment, the rest for the test."""
    seen: dict[str, int] = {}
    enrol, test = [], []
    for label, crop in samples:
        n = seen.get(label, 0)
        seen[label] = n + 1
        (enrol if n < per_kind and label != "none" else test).append((label, crop))
    return enrol, test


def write_dir(folder: Path, samples, *, ext: str = ".png") -> Path:
    """Write samples as pictures plus ``labels.csv``; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["file", "label"])
        for i, (label, crop) in enumerate(samples):
            name = f"{i:03d}_{label}{ext}"
            cv2.imwrite(str(folder / name), crop)
            w.writerow([name, label])
    return folder

