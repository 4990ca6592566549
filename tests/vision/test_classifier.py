"""The shipped ONNX tile model, run by onnxruntime on freshly rendered held-out crops."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from controller.rules.tilesets import census, full_set
from hardware.sim import tile_art
from hardware.sim.training import data as train_data
from vision.classifier import (
    DEFAULT_MODEL,
    ClassifierError,
    OnnxTileClassifier,
    ScriptedClassifier,
    cut_crop,
    cut_quad,
)
from vision.decode import CLASSES, INPUT_SIZE, TileGuess, decode, set_log_prior, softmax

CANDIDATES = Path(__file__).resolve().parents[2] / "hardware" / "sim" / "training" / "candidates"


@pytest.fixture(scope="module")
def clf() -> OnnxTileClassifier:
    return OnnxTileClassifier()


def test_shipped_model_is_small_and_describes_itself(clf):
    assert DEFAULT_MODEL.stat().st_size < 5 * 1024 * 1024
    assert clf.classes == CLASSES
    assert clf.input_size == INPUT_SIZE
    assert "5z" in clf.symmetric_180 and "1m" not in clf.symmetric_180


def test_model_card_tells_the_held_out_truth(clf):
    # 400 fresh crops of the held-out designs and conditions (seeds the card's figures did not use):
    # top-1 accuracy and calibration error as the model card states them, within sampling error
    card = (DEFAULT_MODEL.parent / "MODEL_CARD.md").read_text()
    stated_acc = float(re.search(r"top1_accuracy=([0-9.]+)", card).group(1))
    stated_ece = float(re.search(r"expected calibration error \(15 bins\): ([0-9.]+)", card).group(1))
    xs, ys, _ = train_data.heldout_set(400, seed=train_data.HELDOUT_SEED + 17)
    probs = softmax(clf.logits(list(xs))[0])
    acc = float((probs.argmax(1) == ys).mean())
    assert abs(acc - stated_acc) < 0.07, (acc, stated_acc)
    assert abs(train_data.calibration_error(probs, ys) - stated_ece) < 0.07


SETS = 6   # artwork sets (styles) the look-alike checks read: one set alone measures the luck of its seed


def _artwork_misses(clf, labels: list[str], rot_seed: int, seed: int) -> list[tuple[str, str]]:
    """Crops of ``labels`` in ``SETS`` sets of the scene renderer's artwork (each its own style: inks,
    stroke, colours), near upright, unseen seeds -> the (true, read) pairs read wrong."""
    wrong = []
    for k in range(SETS):
        rng = np.random.default_rng(rot_seed + k)
        rots = [int(r) for r in rng.choice([0, 90, 180, 270], size=len(labels))]
        crops = train_data.render_labels(labels, rots, seed=seed + 1000 * k)
        guesses = clf.classify(list(crops))
        wrong += [(t, g.best) for t, g in zip(labels, guesses, strict=True) if g.best != t]
    return wrong


def test_shipped_model_reads_the_training_artwork(clf):
    # what the simulated pipeline reads: at most 3 misses per 141 crops (2.1 %), over six sets. On one
    # set the bound measured its seed's luck: the artwork model of 2026-11-29 missed it on 9 of 24 other
    # sets. Measured on these six sets: that model 13 of 846, the shipped model 16.
    labels = [t for t in CLASSES for _ in range(3)]
    wrong = _artwork_misses(clf, labels, 3, train_data.HELDOUT_SEED + 19)
    assert len(wrong) <= 3 * SETS, wrong


HARD = ["4p", "5p", "6p", "7s", "9s", "5m", "0m", "0p", "0s", "5s"]


def test_hard_pairs_are_not_confused(clf):
    # at most one miss per 100 crops of the hard classes (1 %), over six sets. The one set this test
    # read before held two crops both models read at confidence 0.5-0.6 (a 4p half out of its crop
    # beside a neighbour, a blurred 5m on its side). Measured here: the 2026-11-29 model 3 of 600,
    # the shipped model 4.
    labels = [t for t in HARD for _ in range(10)]
    wrong = _artwork_misses(clf, labels, 5, train_data.HELDOUT_SEED + 29)
    assert len(wrong) <= 1 * SETS, wrong


@pytest.mark.parametrize("tile", ["1m", "7z", "3s", "2f"])
def test_rotation_is_detected(clf, tile):
    rots = [0, 90, 180, 270] * 3
    crops = train_data.render_labels([tile] * len(rots), rots, seed=train_data.HELDOUT_SEED + 41)
    guesses = clf.classify(list(crops))
    assert sum(g.tile == tile for g in guesses) >= len(rots) - 1, [g.tile for g in guesses]
    hits = sum(g.rotation == r for g, r in zip(guesses, rots, strict=True) if g.tile == tile)
    assert hits >= len(rots) - 2, [g.rotation for g in guesses]


def test_symmetric_face_reports_upright_or_sideways(clf):
    crops = train_data.render_labels(["8p"] * 4, [0, 90, 180, 270], seed=train_data.HELDOUT_SEED + 43)
    guesses = clf.classify(list(crops))
    assert [g.tile for g in guesses] == ["8p"] * 4
    assert [g.rotation for g in guesses] == [0, 90, 0, 90]


def test_backs_and_empty_slots(clf):
    crops = train_data.render_labels(["back"] * 6 + ["none"] * 6, [0, 90, 180, 270, 0, 90] * 2,
                                     seed=train_data.HELDOUT_SEED + 47)
    guesses = clf.classify(list(crops))
    assert [g.tile for g in guesses] == ["back"] * 6 + ["none"] * 6
    assert all(g.rotation is None for g in guesses[6:])


def test_batching_gives_the_same_answers_as_one_by_one(clf):
    crops = list(train_data.render_labels(["2m", "6z", "9p", "back"], [0, 90, 180, 270], seed=3))
    batch = clf.classify(crops)
    single = [clf.classify([c])[0] for c in crops]
    assert [g.tile for g in batch] == [g.tile for g in single]
    assert np.allclose([g.confidence for g in batch], [g.confidence for g in single], atol=1e-4)
    assert clf.classify([]) == []


def test_one_run_gives_the_answers_and_the_embedding_of_two(clf):
    """A tile set's classifier takes the logits and the embedding from one run of the model: the
    same numbers as the two runs it replaces."""
    crops = list(train_data.render_labels(["5p", "7z", "back"], [0, 90, 180], seed=4))
    tile_logits, rotation_logits, emb = clf.logits_and_embedding(crops)
    want_tile, want_rotation = clf.logits(crops)
    np.testing.assert_array_equal(tile_logits, want_tile)
    np.testing.assert_array_equal(rotation_logits, want_rotation)
    np.testing.assert_allclose(emb, clf.embed(crops, turns=1), atol=1e-6)
    # the features output (the lead member's last layer: 384 channels since 2026-12-07), not the 47 logits
    assert clf.embedding_output == "features" and emb.shape == (3, 384)


def test_voted_classification_agrees_on_clear_crops(clf):
    crops = list(train_data.render_labels(["3m", "1z", "0s"], [0, 270, 90], seed=11))
    voted = clf.classify_voted(crops)
    assert [g.tile for g in voted] == ["3m", "1z", "0s"]
    assert [g.rotation for g in voted] == [0, 270, 90]


def _table_with_tile(tile: str, centre: tuple[float, float], angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """A felt picture with one 26x34 px tile at ``centre`` turned ``angle_deg`` clockwise; its face quad."""
    canvas = np.full((200, 260, 3), (40, 110, 30), np.uint8)
    face = tile_art.tile_face(tile, 26, 34, alpha=True)
    corners = np.float32([[-13, -17], [13, -17], [13, 17], [-13, 17]])
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    quad = corners @ rot.T + np.float32(centre)
    tile_art.blit(canvas, face, quad)
    return canvas, quad


@pytest.mark.parametrize("angle,rotation", [(0, 0), (5, 0), (90, 90), (-93, 270), (180, 180)])
def test_cut_quad_and_classify_a_tile_in_a_bigger_picture(clf, angle, rotation):
    canvas, quad = _table_with_tile("7z", (120.0, 90.0), angle)
    crop = cut_quad(canvas, quad)
    assert crop.shape == (INPUT_SIZE, INPUT_SIZE, 3)
    guess = clf.classify([crop])[0]
    assert (guess.tile, guess.rotation) == ("7z", rotation)


def test_cut_crop_centres_the_tile():
    canvas, _ = _table_with_tile("5z", (60.0, 70.0), 0)
    crop = cut_crop(canvas, (60.0, 70.0), 34)
    # the ivory face fills the middle, felt shows at the left and right edges
    assert crop[20, 20].mean() > 180 and crop[20, 0, 1] > crop[20, 0, 0] + 40
    with pytest.raises(ValueError, match="tile_long_px"):
        cut_crop(canvas, (60.0, 70.0), 0)


def test_missing_or_bad_model_is_a_clear_error(tmp_path):
    with pytest.raises(ClassifierError, match="not found"):
        OnnxTileClassifier(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ClassifierError, match="cannot load"):
        OnnxTileClassifier(bad)


def test_scripted_classifier_plays_its_script():
    s = ScriptedClassifier(["1m", TileGuess("back", 0.9, 90)])
    out = s.classify([None, None, None])
    assert [g.tile for g in out] == ["1m", "back", "none"]
    assert out[1].rotation == 90


def test_voting_reads_pictures_cropped_tight_to_the_face(clf):
    # a picture with no background at all: the bordered turns take over where the plain ones are unsure
    faces = [tile_art.tile_face(t, 300, 400) for t in ("5p", "1m", "9s")]
    assert [g.tile for g in clf.classify_voted(faces)] == ["5p", "1m", "9s"]
    # an empty felt picture stays 'none' (a border must not turn it into a back)
    felt = np.full((400, 300, 3), (40, 120, 40), np.uint8)
    assert clf.classify_voted([felt])[0].tile == "none"


def test_a_set_prior_sends_an_unsure_foreign_read_to_the_sets_kind_and_keeps_a_sure_one():
    classes = ("5p", "0p", "1f", "back", "none")
    prior = set_log_prior(census("136", "aka1"), classes)     # 5p: 3, 0p: 1, flowers: none in the set
    unsure = np.log([[0.30, 0.05, 0.60, 0.03, 0.02]])        # a crooked 5p the model takes for a flower
    sure = np.log([[0.004, 0.001, 0.99, 0.003, 0.002]])      # a flower slipped into the set
    red = np.log([[0.45, 0.50, 0.01, 0.02, 0.02]])           # a red five read barely surer than a plain one
    rot = np.zeros((1, 4))
    assert decode(unsure, rot, classes=classes)[0].tile == "1f"
    assert decode(unsure, rot, classes=classes, log_prior=prior)[0].tile == "5p"
    got = decode(sure, rot, classes=classes, log_prior=prior)[0]
    assert got.tile == "1f" and 0.5 < got.confidence < 0.99
    assert decode(red, rot, classes=classes, log_prior=prior)[0].tile == "5p"   # 3 plain fives to 1 red
    with pytest.raises(ValueError, match="not a tile census"):
        set_log_prior({"5x": 4})


def test_told_its_set_the_model_reads_the_set_as_well_and_still_sees_a_flower(clf):
    # the 136 tiles of a set with one red five a suit, in six artwork sets: told the set, the model
    # misreads no more of them (measured, alone then told: 16, 16 for candidate 13; 18, 16 for the joined file)
    at_table = OnnxTileClassifier()
    at_table.play_set(census("136", "aka1"))
    labels = full_set("136", "aka1")
    alone = _artwork_misses(clf, labels, 3, train_data.HELDOUT_SEED + 19)
    told = _artwork_misses(at_table, labels, 3, train_data.HELDOUT_SEED + 19)
    assert len(told) <= len(alone), (told, alone)
    # a flower slipped into that set is still seen (the integrity checks flag it)
    flowers = [f"{n}f" for n in range(1, 9)] * 2
    crops = train_data.render_labels(flowers, [0, 90, 180, 270] * 4, seed=train_data.HELDOUT_SEED + 47)
    read = [g.tile for g in at_table.classify(list(crops))]
    assert sum(a == b for a, b in zip(read, flowers, strict=True)) >= len(flowers) - 2, read


def test_the_shipped_file_is_the_weighed_members_its_metadata_names(clf):
    # the shipped file joins trained models (hardware/sim/training/ensemble.py): its logits are the
    # members' (kept beside the training code) weighed, the tile logits over one temperature
    meta = clf.metadata
    members = json.loads(meta["members"])
    temperature = float(meta["temperature"])
    assert abs(sum(m["weight"] for m in members) - 1) < 1e-6 and len(members) >= 2
    xs, _, _ = train_data.heldout_set(64, seed=train_data.HELDOUT_SEED + 23)
    tile, rot = clf.logits(list(xs))
    want_tile, want_rot = 0.0, 0.0
    for m in members:
        path = CANDIDATES / m["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == m["sha256"], path
        t, r = OnnxTileClassifier(path).logits(list(xs))
        want_tile, want_rot = want_tile + m["weight"] * t / temperature, want_rot + m["weight"] * r
    assert np.allclose(tile, want_tile, atol=1e-3) and np.allclose(rot, want_rot, atol=1e-3)
