"""vision.decode: crop -> tensor, logits -> TileGuess (pure, no model)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.decode import CLASSES, INPUT_SIZE, TileGuess, decode, prep, prep_one, softmax, square_pad, to_bgr


def _logits(cls: str, strength: float = 10.0, classes=CLASSES) -> np.ndarray:
    z = np.zeros(len(classes))
    z[classes.index(cls)] = strength
    return z


def _rot(deg: int, strength: float = 6.0) -> np.ndarray:
    z = np.zeros(4)
    z[deg // 90] = strength
    return z


def test_prep_shape_range_and_channel_order():
    crop = np.zeros((50, 50, 3), np.uint8)
    crop[..., 2] = 255  # red in BGR
    x = prep([crop, crop])
    assert x.shape == (2, 3, INPUT_SIZE, INPUT_SIZE) and x.dtype == np.float32
    assert np.allclose(x[:, 2], 1.0) and np.allclose(x[:, :2], 0.0)
    assert prep([]).shape == (0, 3, INPUT_SIZE, INPUT_SIZE)


def test_square_pad_keeps_content_centred_and_repeats_edges():
    img = np.zeros((40, 20, 3), np.uint8)
    img[:, 0] = 10
    img[:, -1] = 200
    sq = square_pad(img)
    assert sq.shape == (40, 40, 3)
    assert np.array_equal(sq[:, 10:30], img)
    assert (sq[:, :10] == 10).all() and (sq[:, 30:] == 200).all()
    wide = square_pad(np.zeros((10, 30, 3), np.uint8))
    assert wide.shape == (30, 30, 3)


@pytest.mark.parametrize("img", [
    np.zeros((30, 30), np.uint8),
    np.zeros((30, 30, 4), np.uint8),
    np.zeros((30, 30, 1), np.uint8),
    np.full((30, 30, 3), 65535, np.uint16),
], ids=["grey", "bgra", "one-channel", "uint16"])
def test_any_picture_becomes_bgr_uint8(img):
    out = to_bgr(img)
    assert out.shape == (30, 30, 3) and out.dtype == np.uint8
    assert prep_one(img).shape == (INPUT_SIZE, INPUT_SIZE, 3)


def test_bad_crop_is_a_value_error():
    with pytest.raises(ValueError, match="crop"):
        to_bgr(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(ValueError, match="channels"):
        to_bgr(np.zeros((5, 5, 2), np.uint8))


def test_decode_confident_answer_with_rotation():
    (g,) = decode(_logits("0p")[None], _rot(270)[None])
    assert g.tile == "0p" and g.rotation == 270 and g.confidence > 0.99 and g.is_tile
    assert g.to_json() == {"tile": "0p", "confidence": round(g.confidence, 3), "rotation": 270}


def test_low_confidence_is_none_with_the_best_guess_kept():
    z = np.zeros(len(CLASSES))
    z[CLASSES.index("4p")] = 1.0
    z[CLASSES.index("5p")] = 0.9
    (g,) = decode(z[None], _rot(0)[None])
    assert g.tile == "none" and g.rotation is None and not g.is_tile
    assert g.best == "4p" and g.best_confidence < 0.4
    assert g.confidence == pytest.approx(1 - g.best_confidence)
    assert "rotation" not in g.to_json()
    (g,) = decode(z[None], _rot(0)[None], min_confidence=0.01)
    assert g.tile == "4p"


def test_model_none_class_has_no_rotation():
    (g,) = decode(_logits("none")[None], _rot(90)[None])
    assert (g.tile, g.rotation) == ("none", None) and g.confidence > 0.99


@pytest.mark.parametrize("deg,folded", [(0, 0), (90, 90), (180, 0), (270, 90)])
def test_symmetric_faces_and_backs_fold_180(deg, folded):
    (g,) = decode(_logits("8p")[None], _rot(deg)[None], symmetric_180=frozenset({"8p"}))
    assert g.rotation == folded
    (g,) = decode(_logits("back")[None], _rot(deg)[None])
    assert g.rotation == folded
    (g,) = decode(_logits("1m")[None], _rot(deg)[None], symmetric_180=frozenset({"8p"}))
    assert g.rotation == deg


def test_mismatched_logits_are_rejected():
    with pytest.raises(ValueError, match="classes"):
        decode(np.zeros((1, 5)), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="rotations"):
        decode(np.zeros((1, len(CLASSES))), np.zeros((1, 3)))


def test_softmax_is_stable_for_large_logits():
    p = softmax(np.array([[1000.0, 0.0], [0.0, 0.0]]))
    assert np.allclose(p.sum(1), 1) and p[0, 0] == pytest.approx(1.0) and p[1, 0] == pytest.approx(0.5)


def test_guess_is_frozen_data():
    g = TileGuess("1m", 0.9, 0)
    with pytest.raises(AttributeError):
        g.tile = "2m"  # type: ignore[misc]
