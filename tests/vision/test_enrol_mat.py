"""``tablectl markers`` prints the enrolment mat; ``tablectl enrol --frame`` reads a photo of it."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main as tablectl
from hardware.sim.mat_photo import mat_photo
from vision.classifier import OnnxTileClassifier
from vision.confirmed import ConfirmedStore
from vision.enrol import EnrolledClassifier, TileSet, TileSetError, model_sha256, pictures_dir, with_tile_set
from vision.enrol_mat import MAT_KINDS, MatError, cut_places, find_mat, render_mat


@pytest.fixture(scope="module")
def photo_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("mat") / "mat.jpg"
    cv2.imwrite(str(path), mat_photo(seed=3), [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def test_markers_writes_the_mat_too(tmp_path, capsys):
    assert tablectl(["markers", "--out", str(tmp_path / "m.png"), "--dpi", "100"]) == 0
    assert "enrolment mat" in capsys.readouterr().out
    page = cv2.imread(str(tmp_path / "enrol_mat.png"), cv2.IMREAD_GRAYSCALE)
    assert page is not None and page.shape[1] > page.shape[0]
    # the printed page itself is found, and its places are empty paper
    hmg = find_mat(page)
    crops = cut_places(page, hmg)
    assert [k for k, _ in crops] == list(MAT_KINDS)
    assert all(c.mean() > 200 for _, c in crops)
    assert tablectl(["markers", "--out", str(tmp_path / "n.png"), "--mat", "off"]) == 0
    assert not (tmp_path / "enrol_mat.png").with_name("x").exists()


def test_places_are_cut_where_the_tiles_lie(photo_file):
    frame = cv2.imread(str(photo_file))
    crops = cut_places(frame, find_mat(frame))
    guesses = OnnxTileClassifier().classify_voted([c for _, c in crops])
    right = [k for (k, _), g in zip(crops, guesses, strict=True) if g.tile == k]
    assert len(right) >= 40, [(k, g.tile) for (k, _), g in zip(crops, guesses, strict=True) if g.tile != k]
    upright = [g.rotation for (k, _), g in zip(crops, guesses, strict=True) if g.tile == k and k != "back"]
    assert upright.count(0) >= 0.9 * len(upright)


def test_enrol_from_a_mat_photo(photo_file, tmp_path, capsys):
    out, sheet = tmp_path / "table.set", tmp_path / "grid.png"
    rc = tablectl(["enrol", "--frame", str(photo_file), "--out", str(out), "--sheet", str(sheet), "--yes"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "finding the mat" in captured.err and "embedded 46/46" in captured.err
    ts = TileSet.load(out)
    assert ts.kinds == MAT_KINDS and all(len(ts.vectors[k]) == 1 for k in MAT_KINDS)
    grid = cv2.imread(str(sheet))
    assert grid is not None and grid.shape[1] == 10 * 96


def test_a_mat_enrolment_keeps_its_pictures_and_the_set_is_made_again_for_another_model(photo_file, tmp_path,
                                                                                          capsys, caplog):
    # enrolled with an older model (candidate 13 alone); then the model is updated
    out = tmp_path / "table.set"
    old_model = Path(__file__).parents[2] / "hardware/sim/training/candidates/cand13.onnx"
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(out), "--yes", "--model", str(old_model)]) == 0
    kept = pictures_dir(out)
    assert str(kept) in capsys.readouterr().out
    rows = (kept / "labels.csv").read_text().splitlines()
    assert rows[0] == "file,label" and [r.split(",")[1] for r in rows[1:]] == list(MAT_KINDS)
    clf = OnnxTileClassifier()
    with pytest.raises(TileSetError, match="another model"):
        TileSet.load(out, model_sha256=model_sha256(clf.model_path))
    # the daemon's camera makes the set again from the kept pictures, for this model, and saves it
    with caplog.at_level(logging.WARNING, logger="vision.enrol"):
        enrolled, line = with_tile_set(clf, out)
    assert isinstance(enrolled, EnrolledClassifier) and "46 kinds" in line and "made again" in line
    assert "another model" in caplog.text and str(kept) in caplog.text
    made = TileSet.load(out, model_sha256=model_sha256(clf.model_path))
    # the pictures are lossless: enrolling the photo itself with this model gives the same vectors
    again = tmp_path / "again.set"
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(again), "--yes"]) == 0
    direct = TileSet.load(again)
    assert all(np.allclose(made.vectors[k], direct.vectors[k], atol=1e-5) for k in MAT_KINDS)
    # by hand, the same: tablectl enrol on the kept folder
    assert tablectl(["enrol", str(kept), "--out", str(tmp_path / "hand.set")]) == 0
    assert TileSet.load(tmp_path / "hand.set").kinds == MAT_KINDS


def test_crops_added_from_play_are_kept_with_the_mat_pictures_and_a_damaged_set_is_made_again(
        photo_file, tmp_path, capsys):
    data = tmp_path / "data"
    out = data / "tile_set.json"
    old_model = Path(__file__).parents[2] / "hardware/sim/training/candidates/cand13.onnx"
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(out), "--yes", "--model", str(old_model)]) == 0
    # three crops staff confirmed in play, cut from the mat's own places
    frame = cv2.imread(str(photo_file))
    places = dict(cut_places(frame, find_mat(frame)))
    ConfirmedStore(data / "confirmed").keep([(k, places[k], k, 0.8) for k in ("2p", "7s", "6z")], now=86400.0)
    capsys.readouterr()
    assert tablectl(["enrol", "--add-confirmed", "--data", str(data), "--model", str(old_model)]) == 0
    assert str(pictures_dir(out)) in capsys.readouterr().out
    assert TileSet.load(out).count == len(MAT_KINDS) + 3
    rows = (pictures_dir(out) / "labels.csv").read_text().splitlines()[1:]
    assert sorted(r.split(",")[1] for r in rows) == sorted([*MAT_KINDS, "2p", "7s", "6z"])
    # the model is updated: the set made again holds the added crops too
    clf = OnnxTileClassifier()
    enrolled, line = with_tile_set(clf, out)
    assert isinstance(enrolled, EnrolledClassifier) and "(made again for this model)" in line
    made = TileSet.load(out, model_sha256=model_sha256(clf.model_path))
    assert made.count == len(MAT_KINDS) + 3 and len(made.vectors["7s"]) == 2
    # a damaged file (cut short) is made again from the same pictures, and the line says why
    out.write_bytes(out.read_bytes()[:-200])
    enrolled, line = with_tile_set(clf, out)
    assert isinstance(enrolled, EnrolledClassifier) and "the file was unusable" in line and "this model" not in line
    assert TileSet.load(out, model_sha256=model_sha256(clf.model_path)).count == made.count


def test_a_set_that_cannot_be_made_again_is_refused_and_left_as_it_was(photo_file, tmp_path, caplog):
    out = tmp_path / "table.set"
    old_model = Path(__file__).parents[2] / "hardware/sim/training/candidates/cand13.onnx"
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(out), "--yes", "--model", str(old_model)]) == 0
    before = out.read_bytes()
    kept = pictures_dir(out)
    (kept / "003_3m.png").unlink()                 # a kept picture lost
    clf = OnnxTileClassifier()
    with caplog.at_level(logging.ERROR, logger="vision.enrol"):
        alone, line = with_tile_set(clf, out)
    assert alone is clf and "another model" in line and "003_3m.png" in line and "model alone" in line
    assert "003_3m.png" in caplog.text
    assert out.read_bytes() == before
    # no pictures kept (a set from a folder, or enrolled before they were kept): refused, the model alone
    shutil.rmtree(kept)
    alone, line = with_tile_set(clf, out)
    assert alone is clf and line.startswith("refused (") and "made again" not in line


def test_enrol_asks_before_saving(photo_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    out = tmp_path / "table.set"
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(out)]) == 2
    assert "not saved" in capsys.readouterr().err
    assert not out.exists() and (tmp_path / "table_sheet.png").exists()
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    assert tablectl(["enrol", "--frame", str(photo_file), "--out", str(out)]) == 0
    assert out.exists()


def test_no_mat_in_the_picture(tmp_path, capsys):
    frame = np.full((600, 800, 3), (60, 90, 40), np.uint8)
    path = tmp_path / "felt.png"
    cv2.imwrite(str(path), frame)
    assert tablectl(["enrol", "--frame", str(path), "--out", str(tmp_path / "x.set"), "--yes"]) == 2
    assert "markers [40, 41, 42, 43] not found" in capsys.readouterr().err
    with pytest.raises(MatError):
        find_mat(np.zeros((0, 0), np.uint8))


def test_three_markers_are_enough(photo_file):
    frame = cv2.imread(str(photo_file))
    full = find_mat(frame)
    corner = cv2.perspectiveTransform(np.float64([[[14.0, 14.0]]]), full).reshape(2)  # marker 40's centre
    covered = frame.copy()
    cv2.circle(covered, (int(corner[0]), int(corner[1])), 40, (60, 90, 40), -1)
    part = find_mat(covered)
    probe = np.float64([[[200.0, 150.0]]])
    a = cv2.perspectiveTransform(probe, full).reshape(2)
    b = cv2.perspectiveTransform(probe, part).reshape(2)
    assert np.linalg.norm(a - b) < 3.0
    assert render_mat(dpi=72).ndim == 2
