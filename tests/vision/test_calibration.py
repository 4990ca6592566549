"""Calibration from the rendered corner markers, the calibration file, and the two commands."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from hardware.sim.scene import pose_camera
from tests.fixtures.frames import TEST_POSES, rendered
from vision import calibration_cli
from vision.calibration import Calibration, CalibrationError, calibrate, detect_markers
from vision.layout import Layout, load_profile


@pytest.mark.parametrize("pose", sorted(TEST_POSES))
def test_calibration_from_rendered_markers_is_within_tolerance(pose):
    rt = rendered(pose)
    truth = pose_camera(TEST_POSES[pose])
    cam = rt.calibration.camera
    assert rt.calibration.reprojection_px < 1.0
    # the lens' focal length and the distance trade off in a near top-down view: 1.5 % of the distance
    distance = float(np.linalg.norm(truth.centre_mm))
    assert np.linalg.norm(cam.centre_mm - truth.centre_mm) < 0.015 * distance
    # every wall top and river cell lands within a pixel of where the true camera sees it
    lay = Layout(rt.profile)
    pts = np.array([[*s.centre, 40.0] for s in lay.wall_slots()]
                   + [[*lay.strip_tile(st, 60.0).centre, 20.0] for st in lay.strips()])
    err = np.linalg.norm(cam.project(pts) - truth.project(pts), axis=1)
    assert err.max() < 1.0


def test_a_covered_marker_is_named():
    rt = rendered("top")
    frame = rt.frame.copy()
    corners = detect_markers(frame, rt.profile)[2]
    x0, y0 = corners.min(axis=0).astype(int) - 12
    x1, y1 = corners.max(axis=0).astype(int) + 12
    frame[y0:y1, x0:x1] = (40, 100, 30)           # a hand over marker 2
    with pytest.raises(CalibrationError, match=r"markers not found: id 2 \(found \[0, 1, 3\]"):
        calibrate(frame, rt.profile)


def test_markers_of_another_table_do_not_fit():
    rt = rendered("top")
    other = load_profile("riichi4")
    moved = other.markers.__class__(other.markers.dictionary, other.markers.size_mm, other.markers.ids,
                                    ((-300.0, -352.0), (352.0, -352.0), (352.0, 352.0), (-352.0, 352.0)))
    bad = other.__class__(**{**other.__dict__, "markers": moved})
    with pytest.raises(CalibrationError, match="fit the table profile 'riichi4' badly"):
        calibrate(rt.frame, bad)


def test_a_picture_without_markers_says_which_are_missing():
    with pytest.raises(CalibrationError, match=r"id 0, 1, 2, 3 \(found none"):
        calibrate(np.full((720, 1280, 3), 90, np.uint8), load_profile("riichi4"))


def test_saved_file_round_trips_and_checks_size_and_profile(tmp_path):
    cal = rendered("tilted").calibration
    path = cal.save(tmp_path / "cal.json")
    back = Calibration.load(path, profile=load_profile("riichi4"), frame_size=(1280, 720))
    pts = np.array([[0.0, 0.0, 0.0], [200.0, -250.0, 40.0]])
    assert np.allclose(back.camera.project(pts), cal.camera.project(pts), atol=1e-6)
    with pytest.raises(CalibrationError, match=r"made for 1280x720 frames, the camera gives 640x480"):
        Calibration.load(path, frame_size=(640, 480))
    with pytest.raises(CalibrationError, match=r"made for table profile 'riichi4', the table uses 'hk144'"):
        Calibration.load(path, profile=load_profile("hk144"))
    with pytest.raises(CalibrationError, match=r"frame is 640x480, the calibration was made for 1280x720"):
        back.check_frame(np.zeros((480, 640, 3), np.uint8))


@pytest.mark.parametrize("content, message", [
    ("not json", "cannot read"), ("[1, 2]", "expected a JSON object"),
    ('{"format": "other/9"}', "format 'other/9'"),
    ('{"format": "jantaku-calibration/1", "profile": "riichi4"}', "malformed"),
], ids=["garbage", "array", "format", "fields"])
def test_bad_calibration_files_are_clear_errors(tmp_path, content, message):
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        Calibration.load(p)
    with pytest.raises(CalibrationError, match="does not exist"):
        Calibration.load(tmp_path / "missing.json")


def test_markers_command_writes_a_sheet_that_calibration_can_read(tmp_path, capsys):
    assert calibration_cli.main("markers", ["--out", str(tmp_path / "m.png"), "--dpi", "150"]) == 0
    sheet = cv2.imread(str(tmp_path / "m.png"), cv2.IMREAD_GRAYSCALE)
    found = detect_markers(sheet, load_profile("riichi4"))
    assert sorted(found) == [0, 1, 2, 3]
    side_px = np.linalg.norm(found[0][1] - found[0][0])
    assert side_px == pytest.approx(40 / 25.4 * 150, rel=0.03)     # printed at true size
    assert calibration_cli.main("markers", ["--out", str(tmp_path / "m.pdf")]) == 0
    pdf = (tmp_path / "m.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]", pdf)
    assert float(box[1]) == pytest.approx(595.3, abs=1) and float(box[2]) == pytest.approx(841.9, abs=1)  # A4
    assert calibration_cli.main("markers", ["--out", str(tmp_path / "m.gif")]) == 2


def test_calibrate_command_writes_file_and_overlay(tmp_path, capsys):
    frame_path = tmp_path / "frame.png"
    cv2.imwrite(str(frame_path), rendered("turned").frame)
    out = tmp_path / "cal.json"
    assert calibration_cli.main("calibrate", ["--frame", str(frame_path), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["profile"] == "riichi4" and data["frame_size"] == [1280, 720]
    over = cv2.imread(str(tmp_path / "cal_overlay.png"))
    assert over.shape == (720, 1280, 3) and not np.array_equal(over, rendered("turned").frame)
    # errors: unreadable picture, a picture without markers
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a picture")
    assert calibration_cli.main("calibrate", ["--frame", str(bad)]) == 1
    assert "cannot read the picture" in capsys.readouterr().err
    cv2.imwrite(str(bad), np.full((720, 1280, 3), 80, np.uint8))
    assert calibration_cli.main("calibrate", ["--frame", str(bad), "--out", str(tmp_path / "x.json")]) == 1
    assert "markers not found: id 0, 1, 2, 3" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_a_camera_straight_over_a_wall_is_warned_about():
    """Stack heights need the one-tile top to show shifted from the two-tile top: a camera whose
    foot point lies over a wall gets a warning naming it; the test poses (up to 15 degrees) none."""
    from hardware.sim.scene import pose_camera
    from vision.calibration import pose_warnings

    profile = load_profile("riichi4")
    for name, pose in TEST_POSES.items():
        assert pose_warnings(Calibration("riichi4", pose_camera(pose), (0, 1, 2, 3), 0.1), profile) == [], name
    over = pose_camera(dict(tilt_deg=12.0, azimuth_deg=-90.0, roll_deg=-5.0, distance_mm=1160.0))   # foot at y=-241
    warnings = pose_warnings(Calibration("riichi4", over, (0, 1, 2, 3), 0.1), profile)
    assert len(warnings) == 1 and "(0, -241) mm lies over or next to wall 0" in warnings[0]
