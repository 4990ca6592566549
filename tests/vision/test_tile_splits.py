"""The classifier's held-out renders are really held out: designs, fonts, colours, lights, poses.

Both parameter sets are declared in ``hardware/sim/tile_designs.py``; these tests check they share
nothing, that every font they name is installed (no silent skip), and that ``render_crops`` (the
interface the enrolment tests use) gives what it promises.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.sim import tile_art, tile_designs, tile_faces
from hardware.sim.tile_designs import HELDOUT_CONDITIONS as HC
from hardware.sim.tile_designs import TRAIN_CONDITIONS as TC
from hardware.sim.training import data


def _overlap(a: tuple, b: tuple) -> bool:
    """Do two unions of intervals share more than an end point?"""
    return any(min(a1, b1) > max(a0, b0) for a0, a1 in a for b0, b1 in b)


def _hue(name: str) -> float:
    return float(cv2.cvtColor(np.uint8([[tile_art.BACK_COLOURS[name]]]), cv2.COLOR_BGR2HSV)[0, 0, 0])


def test_designs_and_fonts_are_split_without_overlap():
    assert set(tile_designs.TRAIN_DESIGNS).isdisjoint(tile_designs.HELDOUT_DESIGNS)
    assert set(tile_designs.TRAIN_DESIGNS) | set(tile_designs.HELDOUT_DESIGNS) == set(tile_designs.DESIGNS)
    assert len(tile_designs.HELDOUT_DESIGNS) >= 3 and tile_designs.ARTWORK in tile_designs.TRAIN_DESIGNS
    assert tile_designs.TRAIN_FONTS.isdisjoint(tile_designs.HELDOUT_FONTS)
    # the held-out side has a brush face, a Kaiti face, a Gothic face and a Unicode design
    assert {"aoyagi-kouzan", "arphic-ukai", "wqy-zenhei", "symbola"} <= tile_designs.HELDOUT_FONTS


def test_colour_light_and_pose_ranges_do_not_overlap():
    assert not _overlap(TC.felt_hues, HC.felt_hues)
    assert not _overlap(TC.back_hues, HC.back_hues)
    assert set(TC.back_colours).isdisjoint(HC.back_colours)
    # a named colour lies in its own side's hue band
    for name in TC.back_colours:
        s = cv2.cvtColor(np.uint8([[tile_art.BACK_COLOURS[name]]]), cv2.COLOR_BGR2HSV)[0, 0, 1]
        assert s < 80 or any(a <= _hue(name) <= b for a, b in TC.back_hues), name
    for name in HC.back_colours:
        assert any(a <= _hue(name) <= b for a, b in HC.back_hues), name
    assert not _overlap(TC.light, HC.light)
    assert not _overlap((TC.tilt_deg,), (HC.tilt_deg,))
    assert not _overlap((TC.squeeze,), (HC.squeeze,))


def test_render_set_refuses_a_seed_from_the_other_side():
    with pytest.raises(ValueError, match="wrong side"):
        data.render_set(4, tile_designs.HELDOUT_SEED + 3)
    with pytest.raises(ValueError, match="wrong side"):
        data.render_set(4, 12, heldout=True)
    with pytest.raises(ValueError, match="worn sets are a training draw"):
        data.render_set(4, tile_designs.HELDOUT_SEED + 3, heldout=True, wear=0.5)


@pytest.mark.parametrize("font", sorted(tile_faces.FONT_FILES))
def test_every_font_is_installed(font):
    # fails (never skips) when a font package is missing: ./dev setup installs them
    assert tile_faces.font_file(font).is_file()


@pytest.mark.parametrize("design", [d for d in tile_designs.DESIGNS if d != tile_designs.ARTWORK])
def test_every_design_draws_every_tile_distinctly(design):
    style = tile_art.with_style(tile_art.DEFAULT_STYLE, design=tile_designs.DESIGNS[design])
    faces = {t: tile_art.tile_face(t, 45, 60, style=style).astype(int) for t in tile_art.ALL_TILES}
    blank = faces["5z"]
    for t, f in faces.items():
        if t != "5z":
            assert (np.abs(f - blank).sum(axis=2) > 120).sum() > 20, f"{design}: {t} looks blank"
    for a, b in [("4p", "5p"), ("5p", "6p"), ("7s", "9s"), ("5m", "0m"), ("5p", "0p"), ("1f", "5f"), ("2m", "3m")]:
        assert np.abs(faces[a] - faces[b]).mean() > 1.5, (design, a, b)


def test_render_crops_gives_labelled_crops_of_one_set():
    tiles = ["1m", "0p", "7z", "back", "none"]
    out = tile_designs.render_crops("kai-ukai-petal", tiles, per_tile=2, seed=5)
    assert [label for label, _ in out] == [t for t in tiles for _ in range(2)]
    for _, crop in out:
        assert crop.dtype == np.uint8 and crop.ndim == 3 and crop.shape[2] == 3 and max(crop.shape[:2]) == 64
    again = tile_designs.render_crops("kai-ukai-petal", tiles, per_tile=2, seed=5)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(out, again, strict=True))
    train_side = tile_designs.render_crops("kai-ukai-petal", tiles, per_tile=2, seed=5, heldout_conditions=False)
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(out, train_side, strict=True))
    with pytest.raises(ValueError, match="unknown design"):
        tile_designs.render_crops("no-such-design", tiles, per_tile=1, seed=1)


def test_scene_set_keeps_the_readers_crops_with_the_teachers_answers():
    from vision.classifier import OnnxTileClassifier
    from vision.decode import CLASSES, INPUT_SIZE

    with pytest.raises(ValueError, match="held-out side"):
        data.scene_set(1, data.HELDOUT_SEED)
    teacher = OnnxTileClassifier()
    xs, ys, rs = data.scene_set(2, seed=7, teacher=teacher)
    assert xs.dtype == np.uint8 and xs.shape[1:] == (INPUT_SIZE, INPUT_SIZE, 3) and len(xs) == len(ys) == len(rs)
    tile_logits, rot_logits = teacher.logits(list(xs))
    assert list(tile_logits.argmax(1)) == list(ys) and list(rot_logits.argmax(1)) == list(rs)
    faces = {CLASSES[i] for i in ys} - {"back", "none"}
    assert len(faces) >= 10, faces      # river, meld and indicator faces, not only the walls


def test_upright_training_renders_stay_on_the_training_side():
    # the near-upright subset (CHECK_CONDITIONS) is for training sets only, never a held-out set
    with pytest.raises(ValueError, match="upright"):
        data.render_set(4, data.HELDOUT_SEED, heldout=True, upright=True)
    xs, ys, _ = data.render_set(4, 7, upright=True, p_artwork=1.0)
    assert xs.shape[0] == 4 and len(ys) == 4


def _inside(inner: tuple, outer: tuple) -> bool:
    """Is every interval of ``inner`` inside one interval of ``outer``?"""
    return all(any(b0 <= a0 and a1 <= b1 for b0, b1 in outer) for a0, a1 in inner)


@pytest.mark.parametrize("name", ["CHECK_CONDITIONS", "STEEP_CONDITIONS"])
def test_training_subsets_lie_inside_the_training_ranges(name):
    # the near-upright and steep subsets only re-weight the training ranges: none reaches a held-out value
    sub = getattr(tile_designs, name)
    for field in ("felt_hues", "back_hues", "light"):
        assert _inside(getattr(sub, field), getattr(TC, field)), field
    for field in ("tilt_deg", "skew_deg", "squeeze", "tile_px", "fill"):
        assert _inside((getattr(sub, field),), (getattr(TC, field),)), field
    assert set(sub.back_colours) <= set(TC.back_colours)
    assert not _overlap((sub.tilt_deg,), (HC.tilt_deg,)) and not _overlap((sub.squeeze,), (HC.squeeze,))


def test_steep_training_renders_stay_on_the_training_side():
    with pytest.raises(ValueError, match="steep"):
        data.render_set(4, data.HELDOUT_SEED, heldout=True, steep=True)
    with pytest.raises(ValueError, match="not both"):
        data.render_set(4, 7, upright=True, steep=True)
    xs, ys, _ = data.render_set(4, 7, steep=True, p_mixed=1.0)
    assert xs.shape[0] == 4 and len(ys) == 4


def test_one_design_training_renders_stay_on_the_training_side():
    # --design renders sets of one named training design only; a held-out design is refused by name
    with pytest.raises(ValueError, match="unicode-symbola"):
        data.render_set(4, 7, design="unicode-symbola")
    xs, ys, _ = data.render_set(4, 7, design="unicode-noto")
    other, _, _ = data.render_set(4, 7, design="mincho-ipa-petal")
    assert xs.shape[0] == 4 and len(ys) == 4 and not np.array_equal(xs, other)


def test_mixed_designs_stay_on_the_training_side_and_vary():
    rng = np.random.default_rng(3)
    designs = [tile_designs.mixed_design(rng) for _ in range(200)]
    fonts = {d.font for d in designs} | {d.fallback_font for d in designs}
    assert fonts <= tile_designs.TRAIN_FONTS and fonts.isdisjoint(tile_designs.HELDOUT_FONTS)
    assert {d.font for d in designs} == set(tile_designs.MIXED_FONTS)
    assert len({d.name for d in designs}) > 150          # combinations, not a few named designs again
    assert not {d.name for d in designs} & set(tile_designs.DESIGNS)
    # a mixed set renders on the training side only (held-out sets never draw from it)
    xs, ys, _ = data.render_set(8, 11, p_artwork=0.0, p_mixed=1.0)
    assert xs.shape[0] == 8 and len(ys) == 8
    held = data.render_set(8, tile_designs.HELDOUT_SEED + 11, heldout=True)[0]
    again = data.render_set(8, tile_designs.HELDOUT_SEED + 11, heldout=True, p_mixed=1.0)[0]
    assert np.array_equal(held, again)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mixed_designs_draw_every_tile_distinctly(seed):
    design = tile_designs.mixed_design(np.random.default_rng(seed))
    style = tile_art.with_style(tile_art.DEFAULT_STYLE, design=design)
    faces = {t: tile_art.tile_face(t, 45, 60, style=style).astype(int) for t in tile_art.ALL_TILES}
    for a, b in [("4p", "5p"), ("5p", "6p"), ("7s", "9s"), ("5m", "0m"), ("1f", "5f"), ("2m", "3m")]:
        assert np.abs(faces[a] - faces[b]).mean() > 1.5, (design.name, a, b)


def test_one_ink_character_tiles_and_hollow_sticks_draw_distinctly():
    # two ways real sets are drawn (2026-12-07): the whole character tile in one ink, and outlined sticks
    from dataclasses import replace

    plain = tile_designs.DESIGNS["gothic-ipa-rings"]
    design = replace(plain, name="one-ink-hollow", wan_ink="ink", stick="hollow")
    wan_box = (slice(90, 146), slice(12, 108))                      # the lower half of the glyph area: 萬

    def red_share(d, tile):
        layer = tile_faces.glyph(tile, d)[wan_box]
        ink = layer[..., 3] > 128
        bgr = layer[..., :3][ink].astype(int)
        return float(np.mean(bgr[:, 2] > bgr[:, 0] + 60))            # red ink: R well above B

    assert red_share(plain, "7m") > 0.9 and red_share(design, "7m") < 0.1 and red_share(design, "0m") > 0.9
    style = tile_art.with_style(tile_art.DEFAULT_STYLE, design=design)
    faces = {t: tile_art.tile_face(t, 45, 60, style=style).astype(int) for t in tile_art.ALL_TILES}
    for a, b in [("5m", "0m"), ("7s", "9s"), ("5s", "0s"), ("2s", "3s"), ("2m", "3m")]:
        assert np.abs(faces[a] - faces[b]).mean() > 1.5, (a, b)
    solid = tile_art.tile_face("3s", 45, 60, style=tile_art.with_style(tile_art.DEFAULT_STYLE, design=plain))
    assert np.abs(faces["3s"] - solid.astype(int)).mean() > 1.0     # hollow sticks are not the bar's


def test_condition_report_swaps_one_held_out_part_at_a_time():
    # the model card's table of where held-out crops are lost (python -m hardware.sim.training.data --by-condition)
    from vision.classifier import OnnxTileClassifier

    report = data.condition_report(OnnxTileClassifier(), designs=("mincho-ipa-petal",), sets=1).splitlines()
    rows = {line[:42].strip(): float(line[42:].split()[0]) for line in report[1:]}
    assert list(rows) == list(data.CONDITION_PARTS)
    assert all(0.0 <= v <= 1.0 for v in rows.values()) and report[1].endswith("of 46")
    # the training side of a training design reads better than the fully held-out side
    assert rows["training"] > rows["held-out (all parts)"], rows
