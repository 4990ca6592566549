"""``tablectl classify FILE... --json`` as shared/contracts/classify.md describes it."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from controller.cli import main as tablectl
from hardware.sim import tile_art
from hardware.sim.training.data import HELDOUT_SEED, render_labels


def _photo(tile: str, turns_cw: int = 0, size=(300, 400)) -> np.ndarray:
    """A tile picture like a phone photo: the face big on a grey table, turned ``turns_cw`` x 90 degrees."""
    w, h = size
    img = np.full((h + 40, w + 40, 3), (90, 95, 100), np.uint8)
    face = tile_art.tile_body_topdown(tile, w, h - 30, thickness_px=30, back_colour="green")
    tile_art.blit(img, face, np.float32([[20, 20], [20 + w, 20], [20 + w, 20 + h], [20, 20 + h]]))
    return np.ascontiguousarray(np.rot90(img, -turns_cw))


@pytest.fixture(scope="module")
def pictures(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiles")
    files = {}
    for name, img in [("east.png", _photo("1z")), ("chun_90.jpg", _photo("7z", 1)),
                      ("two_man_180.png", _photo("2m", 2)), ("red5s.jpg", _photo("0s"))]:
        cv2.imwrite(str(d / name), img)
        files[name] = str(d / name)
    small = render_labels(["3p", "none"], [270, 0], seed=HELDOUT_SEED + 5)
    cv2.imwrite(str(d / "crop_3p.png"), small[0])
    cv2.imwrite(str(d / "felt.png"), cv2.resize(small[1], (200, 200)))
    files["crop_3p.png"], files["felt.png"] = str(d / "crop_3p.png"), str(d / "felt.png")
    (d / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nthis is not really a png")
    files["broken.png"] = str(d / "broken.png")
    return files


def _lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_json_lines_in_input_order(pictures, capsys):
    names = ["chun_90.jpg", "east.png", "two_man_180.png", "red5s.jpg", "crop_3p.png"]
    rc = tablectl(["classify", *[pictures[n] for n in names], "--json"])
    rows = _lines(capsys.readouterr().out)
    assert rc == 0
    assert [r["file"] for r in rows] == [pictures[n] for n in names]
    got = [(r["tile"], r.get("rotation")) for r in rows]
    assert got == [("7z", 90), ("1z", 0), ("2m", 180), ("0s", 0), ("3p", 90)]
    for r in rows:
        assert set(r) == {"file", "tile", "confidence", "rotation"}
        assert 0.4 <= r["confidence"] <= 1.0


def test_no_tile_is_none_without_rotation(pictures, capsys):
    rc = tablectl(["classify", pictures["felt.png"], "--json"])
    (row,) = _lines(capsys.readouterr().out)
    assert rc == 0
    assert row["tile"] == "none" and "rotation" not in row and 0 <= row["confidence"] <= 1


def test_unreadable_files_give_error_lines_and_exit_1(pictures, tmp_path, capsys):
    missing = str(tmp_path / "missing.jpg")
    args = [pictures["east.png"], pictures["broken.png"], missing, pictures["red5s.jpg"]]
    rc = tablectl(["classify", *args, "--json"])
    rows = _lines(capsys.readouterr().out)
    assert rc == 1
    assert [r["file"] for r in rows] == args
    assert rows[0]["tile"] == "1z" and rows[3]["tile"] == "0s"
    assert set(rows[1]) == {"file", "error"} and "not a readable image" in rows[1]["error"]
    assert set(rows[2]) == {"file", "error"} and "not found" in rows[2]["error"]


def test_the_installed_command_runs_as_a_process(pictures):
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "classify", pictures["east.png"],
                           pictures["broken.png"], "--json"], capture_output=True, text=True, timeout=120)
    rows = _lines(proc.stdout)
    assert proc.returncode == 1, proc.stderr
    assert rows[0]["tile"] == "1z" and "error" in rows[1]


def test_plain_text_output_and_usage_errors(pictures, capsys):
    assert tablectl(["classify", pictures["east.png"]]) == 0
    assert "1z" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        tablectl(["classify", "--json"])
    assert exc.value.code == 2
