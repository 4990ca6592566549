"""Rendered enrolment data for the enrolment tests: one face design, crops of each kind.

Held-out face designs come from ``hardware/sim/tile_designs.py`` where it exists (designs the
model never saw in training); until then a stand-in: a ``random_style`` pushed outside the
training ranges (one ink for every suit, a strong slant and stroke, a yellowed face, corner
numbers), with fixed seeds.
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from hardware.sim import tile_art
from vision import train_data
from vision.enrol import ENROL_KINDS

MAT_KINDS = tuple(k for k in ENROL_KINDS if k != "none")
BACKS = ((40, 120, 40), (150, 60, 20))

try:  # the vision engineer's held-out designs, once committed
    from hardware.sim import tile_designs  # type: ignore[attr-defined]
except ImportError:
    tile_designs = None


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
    """``per_kind`` crops of each kind in ``style`` at random quarter turns; ``heldout``: the
    held-out render parameters (other tilt, light, noise) instead of the training ones."""
    rng = np.random.default_rng(seed)
    params = train_data.HELDOUT if heldout else train_data.TRAIN
    return [(k, train_data.render_sample(k, int(rng.integers(4)) * 90, rng, style=style, backs=BACKS, params=params))
            for k in kinds for _ in range(per_kind)]


def designs() -> list[tuple[str, object]]:
    """``(name, renderer)`` per held-out design; ``renderer(kinds, per_kind, seed, heldout)`` -> samples."""
    if tile_designs is not None:
        out = []
        for name in list(tile_designs.HELDOUT_DESIGNS)[:2]:
            def r(kinds, per_kind, seed, heldout, _d=name):
                return tile_designs.render_crops(_d, list(kinds), per_tile=per_kind, seed=seed,
                                                 heldout_conditions=heldout)
            out.append((str(name), r))
        return out
    out = []
    for seed in (11, 12):
        style = standin_design(seed)
        out.append((f"standin{seed}", lambda kinds, per_kind, seed, heldout, _s=style:
                    render(_s, kinds, per_kind, seed, heldout=heldout)))
    return out


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
