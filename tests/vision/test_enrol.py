"""``tablectl enrol DIR --out SET_FILE`` and ``tablectl classify --set``: the contract's enrolment part."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main as tablectl
from tests.vision.enrol_data import MAT_KINDS, render, standin_design, write_dir
from vision.classifier import OnnxTileClassifier
from vision.enrol import (
    AUGMENT,
    MODES,
    EnrolledClassifier,
    TileSet,
    TileSetError,
    build,
    model_sha256,
    similarity,
)

KINDS = ("1m", "5p", "0p", "7z", "3f", "back")


@pytest.fixture(scope="module")
def style():
    return standin_design(31)


@pytest.fixture(scope="module")
def enrol_dir(tmp_path_factory, style):
    return write_dir(tmp_path_factory.mktemp("enrol") / "set", render(style, KINDS, 3, seed=310, heldout=False))


@pytest.fixture(scope="module")
def set_file(enrol_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("setfile") / "table.set"
    assert tablectl(["enrol", str(enrol_dir), "--out", str(out)]) == 0
    return out


def _fails(argv, capsys, *needles) -> str:
    rc = tablectl(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    for needle in needles:
        assert needle in err, err
    return err


def test_enrol_writes_a_set_bound_to_the_model(set_file, capsys):
    ts = TileSet.load(set_file, model_sha256=model_sha256(OnnxTileClassifier().model_path))
    assert ts.kinds == tuple(k for k in MAT_KINDS if k in KINDS)
    assert all(len(ts.vectors[k]) == 3 for k in KINDS)
    body = json.loads(set_file.read_text())
    assert body["format"] == "jantaku-tile-set" and body["version"] == 2
    assert body["model"]["embedding"] in ("features", "tile_logits")
    # each picture's altered copies, named by the picture they were made from
    assert all(sorted(ts.augmented_of[k]) == [i for i in range(3) for _ in range(AUGMENT)] for k in KINDS)
    assert all(ts.augmented[k].shape == (3 * AUGMENT, 2, ts.dim) for k in KINDS)
    assert body["rule"]["whiten"] > 0


def _resealed(body: dict, path: Path) -> Path:
    body.pop("sha256", None)
    body["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    path.write_text(json.dumps(body))
    return path


def test_a_version_1_set_file_is_still_read_and_compared_as_it_was_made(set_file, style, tmp_path, capsys):
    body = json.loads(set_file.read_text())
    body["version"] = 1
    del body["rule"]["whiten"]
    for entry in body["kinds"].values():
        del entry["augmented"]
    old = _resealed(body, tmp_path / "v1.set")
    ts = TileSet.load(old, model_sha256=model_sha256(OnnxTileClassifier().model_path))
    assert ts.rule["whiten"] == 0 and not ts.augmented
    _mu, white = ts.space()
    assert np.array_equal(white, np.eye(ts.dim))            # no whitening, as version 1 compared
    picture = tmp_path / "5p.png"
    cv2.imwrite(str(picture), render(style, ["5p"], 1, seed=399, heldout=True)[0][1])
    assert tablectl(["classify", "--set", str(old), str(picture)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{picture}: ") and ": error:" not in line, line


def test_altered_copies_of_a_picture_the_set_lacks_are_refused_as_damage(set_file, tmp_path):
    body = json.loads(set_file.read_text())
    entry = next(iter(body["kinds"].values()))
    entry["augmented"]["of"][-1] = entry["count"]
    with pytest.raises(TileSetError, match="damaged .*outside"):
        TileSet.load(_resealed(body, tmp_path / "of.set"))


def _without(ts: TileSet, kind: str, i: int) -> TileSet:
    """The set as if picture ``i`` of ``kind`` had never been enrolled."""
    keep = ts.augmented_of[kind] != i
    of = ts.augmented_of[kind][keep]
    return TileSet(model_sha256=ts.model_sha256, embedding=ts.embedding, dim=ts.dim, mode=ts.mode, rule=ts.rule,
                   vectors={**ts.vectors, kind: np.delete(ts.vectors[kind], i, axis=0)},
                   augmented={**ts.augmented, kind: ts.augmented[kind][keep]},
                   augmented_of={**ts.augmented_of, kind: of - (of > i)})


@pytest.mark.parametrize("mode", MODES)
def test_each_picture_is_judged_as_a_set_made_without_it_would_judge_it(set_file, mode):
    ts = TileSet.load(set_file, model_sha256=model_sha256(OnnxTileClassifier().model_path))
    _score, genuine, impostor = ts._leave_one_out(mode, exact=True)
    expected = []
    for ki, kind in enumerate(ts.kinds):
        for i in range(len(ts.vectors[kind])):
            kinds, protos, mu, white = _without(ts, kind, i).prototypes(mode)
            assert kinds == ts.kinds
            sims = similarity(ts.vectors[kind][i:i + 1], protos, mu, mode, white)[0]
            expected.append((sims[ki], np.delete(sims, ki).max()))
    assert len(genuine) == len(expected) == 3 * len(KINDS)
    assert np.allclose(list(zip(genuine, impostor, strict=True)), expected, atol=1e-5)


PICTURE_SEEDS = range(311, 331)   # one held-out picture per kind for each


def test_classify_with_set_prints_the_contract_lines(set_file, style, tmp_path, capsys):
    files = []
    for seed in PICTURE_SEEDS:
        for i, (label, crop) in enumerate(render(style, KINDS, 1, seed=seed, heldout=True)):
            files.append(str(tmp_path / f"{seed}-{i}_{label}.png"))
            cv2.imwrite(files[-1], crop)
    (tmp_path / "broken.png").write_bytes(b"not a png")
    rc = tablectl(["classify", "--set", str(set_file), *files, str(tmp_path / "broken.png"), "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rc == 1
    assert [r["file"] for r in rows] == [*files, str(tmp_path / "broken.png")]
    assert "error" in rows[-1]
    for r in rows[:-1]:
        assert set(r) <= {"file", "tile", "confidence", "rotation"} and {"tile", "confidence"} <= set(r)
        assert 0.0 <= r["confidence"] <= 1.0
    # 3 pictures per kind enrolled, each kind read on 20 other pictures in held-out light and pose. One
    # picture per kind (5 of 6 right) measured the luck of a seed: over these 20 seeds the 2026-11-29
    # model read 98 of 120 (0.82) and the shipped model 94 (0.78) without whitening; with it
    # (set files of version 2) the shipped model reads 101 (0.84); 0.8 is asked.
    right = sum(r["tile"] == Path(r["file"]).stem.split("_")[1] for r in rows[:-1])
    assert right >= 0.8 * len(files), [(r["file"], r["tile"]) for r in rows[:-1]]


def test_missing_labels_csv(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    _fails(["enrol", str(tmp_path / "d"), "--out", str(tmp_path / "x.set")], capsys, "labels.csv", "not found")
    assert not (tmp_path / "x.set").exists()


@pytest.mark.parametrize("text, needle", [
    ("name,kind\na.png,1m\n", "line 1: malformed header"),
    ("", "line 1: malformed header"),
    ("file,label\na.png\n", "line 2: malformed row"),
    ("file,label\na.png,1m,extra\n", "line 2: malformed row"),
    ("file,label\n", "no pictures listed"),
])
def test_malformed_labels_csv(tmp_path, capsys, text, needle):
    d = tmp_path / "d"
    d.mkdir()
    cv2.imwrite(str(d / "a.png"), np.full((40, 30, 3), 200, np.uint8))
    (d / "labels.csv").write_text(text)
    _fails(["enrol", str(d), "--out", str(tmp_path / "x.set")], capsys, str(d / "labels.csv"), needle)
    assert not (tmp_path / "x.set").exists()


def test_unknown_label_names_file_and_line(enrol_dir, tmp_path, capsys):
    d = tmp_path / "d"
    d.mkdir()
    rows = (enrol_dir / "labels.csv").read_text().splitlines()
    for row in rows[1:3]:
        (d / row.split(",")[0]).write_bytes((enrol_dir / row.split(",")[0]).read_bytes())
    (d / "labels.csv").write_text("\n".join([rows[0], rows[1], rows[2].split(",")[0] + ",5x"]) + "\n")
    _fails(["enrol", str(d), "--out", str(tmp_path / "x.set")], capsys, f"{d / 'labels.csv'} line 3",
           "unknown label '5x'")
    assert not (tmp_path / "x.set").exists()


@pytest.mark.parametrize("content", [None, b"", b"\x89PNG\r\n\x1a\nnot really"])
def test_unreadable_picture_names_file_and_line(enrol_dir, tmp_path, capsys, content):
    d = tmp_path / "d"
    d.mkdir()
    rows = (enrol_dir / "labels.csv").read_text().splitlines()
    first = rows[1].split(",")[0]
    (d / first).write_bytes((enrol_dir / first).read_bytes())
    if content is not None:
        (d / "bad.png").write_bytes(content)
    (d / "labels.csv").write_text(f"{rows[0]}\n{rows[1]}\nbad.png,2m\n")
    _fails(["enrol", str(d), "--out", str(tmp_path / "x.set")], capsys, f"{d / 'labels.csv'} line 3",
           str(d / "bad.png"))
    assert not (tmp_path / "x.set").exists()


def test_failed_enrol_leaves_an_old_set_file_alone(set_file, tmp_path, capsys):
    out = tmp_path / "keep.set"
    out.write_bytes(set_file.read_bytes())
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "labels.csv").write_text("file,label\nnothere.png,1m\n")
    _fails(["enrol", str(tmp_path / "d"), "--out", str(out)], capsys, "nothere.png")
    assert out.read_bytes() == set_file.read_bytes()


def _damaged(set_file: Path, tmp_path: Path, how: str) -> Path:
    out = tmp_path / f"{how}.set"
    text = set_file.read_text()
    if how == "cut":
        out.write_text(text[: len(text) // 2])
    elif how == "edited":
        body = json.loads(text)
        body["rule"]["tau"] = body["rule"]["tau"] * 2
        out.write_text(json.dumps(body))
    elif how == "vectors":
        body = json.loads(text)
        kind = next(iter(body["kinds"]))
        body["kinds"][kind]["vectors"] = body["kinds"][kind]["vectors"][:-8]
        out.write_text(json.dumps(body))
    elif how == "foreign":
        cv2.imwrite(str(out.with_suffix(".png")), np.zeros((8, 8, 3), np.uint8))
        out = out.with_suffix(".png")
    elif how == "other_json":
        out.write_text(json.dumps({"tiles": [1, 2, 3]}))
    elif how == "other_model":
        body = json.loads(text)
        body.pop("sha256")
        body["model"]["sha256"] = "0" * 64
        import hashlib
        body["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
        out.write_text(json.dumps(body))
    elif how == "version":
        body = json.loads(text)
        body["version"] = 99
        out.write_text(json.dumps(body))
    return out


@pytest.mark.parametrize("how, needle", [
    ("cut", "damaged"), ("edited", "damaged (its checksum"), ("vectors", "damaged"), ("foreign", "not a tile set file"),
    ("other_json", "not a tile set file"), ("other_model", "another model version"), ("version", "version 99"),
])
def test_classify_refuses_a_bad_set_file(set_file, tmp_path, capsys, how, needle):
    bad = _damaged(set_file, tmp_path, how)
    picture = tmp_path / "p.png"
    cv2.imwrite(str(picture), np.full((40, 30, 3), 200, np.uint8))
    _fails(["classify", "--set", str(bad), str(picture), "--json"], capsys, str(bad), needle)


def test_classify_refuses_a_missing_set_file(tmp_path, capsys):
    picture = tmp_path / "p.png"
    cv2.imwrite(str(picture), np.full((40, 30, 3), 200, np.uint8))
    _fails(["classify", "--set", str(tmp_path / "nope.set"), str(picture)], capsys, "nope.set", "not found")


def test_damaged_vectors_are_caught_after_the_checksum(set_file, tmp_path):
    body = json.loads(set_file.read_text())
    kind = next(iter(body["kinds"]))
    body["kinds"][kind]["count"] += 1
    body.pop("sha256")
    import hashlib
    body["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    bad = tmp_path / "count.set"
    bad.write_text(json.dumps(body))
    with pytest.raises(TileSetError, match="damaged"):
        TileSet.load(bad)


def test_kinds_not_enrolled_are_still_recognised(style):
    """A set of six kinds leaves the others to the shipped model: plain-artwork tiles of kinds
    outside the set read as without a set."""
    clf = OnnxTileClassifier()
    ts = build(clf, render(style, KINDS, 3, seed=312, heldout=False))
    enrolled = EnrolledClassifier(clf, ts)
    from hardware.sim import tile_art
    others = [k for k in ("2m", "9s", "4p", "1z", "6z", "8f") if k not in KINDS]
    crops = render(tile_art.DEFAULT_STYLE, others, 3, seed=313, heldout=True)
    plain = clf.classify_voted([c for _, c in crops])
    with_set = enrolled.classify_voted([c for _, c in crops])
    plain_right = sum(g.tile == k for g, (k, _) in zip(plain, crops, strict=True))
    set_right = sum(g.tile == k for g, (k, _) in zip(with_set, crops, strict=True))
    assert set_right >= plain_right - 1, (plain_right, set_right)


def test_rotation_is_still_reported(set_file, style):
    clf = OnnxTileClassifier()
    enrolled = EnrolledClassifier(clf, TileSet.load(set_file))
    face = style and render(style, ["7z"], 1, seed=314, heldout=False)[0][1]
    turned = [np.ascontiguousarray(np.rot90(face, -k)) for k in range(4)]  # clockwise quarter turns
    base = enrolled.classify_voted([face])[0].rotation
    got = [g.rotation for g in enrolled.classify_voted(turned)]
    assert got == [(base + 90 * k) % 360 for k in range(4)]


@pytest.mark.parametrize("argv, needle", [
    (["enrol"], "give DIR, or one of"),
    (["enrol", "somewhere"], "--out SET_FILE is required"),
    (["enrol", "somewhere", "--frame", "x.png", "--out", "y"], "give DIR, or one of"),
])
def test_enrol_usage_errors(capsys, argv, needle):
    _fails(argv, capsys, needle)


def test_a_set_for_another_model_file_is_refused_when_built_upon(set_file, tmp_path):
    """``build(base=...)`` of a set made with other model weights is refused, not mixed."""
    body = json.loads(set_file.read_text())
    ts = TileSet.load(set_file)
    ts.model_sha256 = "f" * 64
    with pytest.raises(TileSetError, match="another model version"):
        build(OnnxTileClassifier(), [], base=ts)
    assert body["model"]["sha256"] != ts.model_sha256


def _pictures(n: int, seed: int) -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(k, rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)) for k in ("2p", "7s", "6z", "back")[:n]]


def test_added_pictures_join_the_kept_folder_without_rewriting_it(set_file, tmp_path):
    from vision.enrol import FolderError, keep_added_pictures, keep_pictures, pictures_dir, read_folder
    path = tmp_path / "tile_set.json"
    path.write_bytes(set_file.read_bytes())
    mat = _pictures(3, 1)
    folder = keep_pictures(mat, path)
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.glob("*.png")}
    # a picture a staff folder named as the next would be: the added one takes another name
    cv2.imwrite(str(folder / "004_7s.png"), mat[0][1])
    (folder / "labels.csv").write_text((folder / "labels.csv").read_text() + "004_7s.png,7s\n")
    added = _pictures(2, 2)
    assert keep_added_pictures(added, path, path) == folder
    for name, stat in before.items():       # the kept pictures are left as they were
        assert ((folder / name).stat().st_ino, (folder / name).stat().st_mtime_ns) == stat
    got = read_folder(folder)
    assert [k for k, _ in got] == ["2p", "7s", "6z", "7s", "2p", "7s"]
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(got[4:], added, strict=True))   # PNG: lossless
    # saved elsewhere: a folder of its own holds the base's pictures and the added ones; the base's is unchanged
    other = tmp_path / "elsewhere" / "copy.json"
    other.parent.mkdir()
    assert keep_added_pictures(_pictures(1, 3), path, other) == pictures_dir(other)
    assert len(read_folder(pictures_dir(other))) == 7 and len(read_folder(folder)) == 6
    # a kept picture gone: refused, naming it, and the list is left as it was
    listed = (folder / "labels.csv").read_text()
    (folder / "002_7s.png").unlink()
    with pytest.raises(FolderError, match=r"line 3: picture .*002_7s\.png: not found"):
        keep_added_pictures(_pictures(1, 4), path, path)
    assert (folder / "labels.csv").read_text() == listed


def test_a_set_is_saved_even_where_its_pictures_cannot_be_kept(set_file, tmp_path):
    from vision.enrol import pictures_dir, save_set
    ts = TileSet.load(set_file)
    path = tmp_path / "tile_set.json"
    saved = save_set(ts, path, _pictures(3, 5))
    assert saved.pictures == pictures_dir(path) and not saved.not_kept
    assert save_set(ts, path).pictures is None            # a folder's set keeps nothing more
    # the place the pictures are written first is taken by a file: the set is saved, and why they were not kept is told
    pictures_dir(path).with_name(pictures_dir(path).name + ".new").write_text("in the way")
    path.unlink()
    saved = save_set(ts, path, _pictures(3, 6))
    assert saved.pictures is None and "tile_set_pictures.new" in saved.not_kept
    assert TileSet.load(path).count == ts.count
