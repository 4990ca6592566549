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
