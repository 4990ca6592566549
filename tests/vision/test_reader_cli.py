"""``tablectl read``: one picture -> the table view as JSON, and an annotated picture."""

from __future__ import annotations

import json

import cv2
import numpy as np

from tests.fixtures.frames import rendered
from vision import reader_cli


def test_read_prints_the_view_and_draws_it(tmp_path, capsys, tile_model):
    rt = rendered("top")
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), rt.frame)
    cal = rt.calibration.save(tmp_path / "cal.json")
    out = tmp_path / "annotated.png"
    assert reader_cli.main("read", [str(frame), "--calibration", str(cal), "--annotate", str(out)]) == 0
    view = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in view["rivers"]["3"]] == [t for t, _ in rt.state.rivers[3]]
    assert view["walls"]["1"] == rt.state.walls[1]
    assert view["indicators"][0]["tile"] == "3p"
    drawn = cv2.imread(str(out))
    assert drawn.shape == rt.frame.shape and not np.array_equal(drawn, rt.frame)


def test_read_errors_are_named(tmp_path, capsys):
    rt = rendered("top")
    cal = rt.calibration.save(tmp_path / "cal.json")
    assert reader_cli.main("read", [str(tmp_path / "none.png"), "--calibration", str(cal)]) == 1
    assert "cannot read the picture" in capsys.readouterr().err
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((480, 640, 3), np.uint8))
    assert reader_cli.main("read", [str(small), "--calibration", str(cal), "--model", str(tmp_path / "m.onnx")]) == 1
    assert "not found" in capsys.readouterr().err
    assert reader_cli.main("read", [str(small), "--calibration", str(tmp_path / "nope.json")]) == 1
    assert "does not exist" in capsys.readouterr().err


def _confidences(view: dict) -> list[float]:
    return [t["confidence"] for seat in sorted(view["rivers"]) for t in view["rivers"][seat]]


def test_read_as_the_table_does_with_its_rule_set_and_tile_set(tmp_path, capsys, tile_model):
    """``--ruleset`` weighs each kind by its copies in the set and ``--set`` uses an enrolled set,
    as the daemon does: the same tiles are read, with the confidences the table's reader gives."""
    from hardware.sim.tile_art import DEFAULT_STYLE
    from hardware.sim.tile_crops import render_sample
    from tests.vision.enrol_data import BACKS, ENROL_CONDITIONS
    from vision.classifier import OnnxTileClassifier
    from vision.enrol import build

    rt = rendered("top")
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), rt.frame)
    cal = str(rt.calibration.save(tmp_path / "cal.json"))
    assert reader_cli.main("read", [str(frame), "--calibration", cal]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert reader_cli.main("read", [str(frame), "--calibration", cal, "--ruleset", "tenhou"]) == 0
    told = json.loads(capsys.readouterr().out)
    river = [t for t, _ in rt.state.rivers[3]]
    assert [t["tile"] for t in told["rivers"]["3"]] == river
    assert _confidences(told) != _confidences(plain)      # the set's prior is in effect
    # a small set of the renderer's artwork: two pictures of each of the river's kinds
    rng = np.random.default_rng(3)
    samples = [(k, render_sample(k, 0, rng, style=DEFAULT_STYLE, backs=BACKS, cond=ENROL_CONDITIONS)) for k in sorted(set(river)) for _ in range(2)]
    set_file = build(OnnxTileClassifier(), samples).save(tmp_path / "set.json")
    assert reader_cli.main("read", [str(frame), "--calibration", cal, "--ruleset", "tenhou",
                                    "--set", str(set_file)]) == 0
    enrolled = json.loads(capsys.readouterr().out)
    assert [t["tile"] for t in enrolled["rivers"]["3"]] == river
    assert _confidences(enrolled) != _confidences(told)


def test_read_names_a_bad_rule_set_or_set_file(tmp_path, capsys, tile_model):
    rt = rendered("top")
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), rt.frame)
    cal = str(rt.calibration.save(tmp_path / "cal.json"))
    assert reader_cli.main("read", [str(frame), "--calibration", cal, "--ruleset", "nosuch"]) == 1
    assert "unknown ruleset 'nosuch'" in capsys.readouterr().err
    damaged = tmp_path / "set.json"
    damaged.write_text('{"format": "jantaku-tile-set", "version": 2', encoding="utf-8")
    assert reader_cli.main("read", [str(frame), "--calibration", cal, "--set", str(damaged)]) == 1
    assert f"tile set {damaged}: damaged" in capsys.readouterr().err
    assert reader_cli.main("read", [str(frame), "--calibration", cal, "--set", str(tmp_path / "no.json")]) == 1
    assert "file not found" in capsys.readouterr().err
