"""``tablectl markers`` and ``tablectl calibrate``.

    tablectl markers [--profile riichi4] [--out markers.pdf] [--dpi 300] [--mat enrol_mat.pdf]
    tablectl calibrate (--frame FILE | --camera DEVICE) [--profile riichi4] [--hfov DEG]
                       [--out calibration.json] [--overlay overlay.png]

``markers`` writes the printable sheet of the four table-corner ArUco markers (PNG, or PDF
at true size) and the tile-set enrolment mat (``vision/enrol_mat.py``; ``--mat off``: not). ``calibrate`` finds them in a frame (a picture file, or one frame from a
camera), solves the camera and writes the calibration file and an overlay picture of the
layout for the operator to check. Exit status 0 on success, 1 on a calibration problem
(the message names it: missing marker ids, bad fit), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import CalibrationError, calibrate, marker_sheet, overlay, pose_warnings
from vision.layout import ProfileError, load_profile


def write_pdf(path: Path, page: np.ndarray, *, dpi: int) -> None:
    """A one-page PDF holding ``page`` (grey uint8) at ``dpi``, so it prints at true size."""
    h, w = page.shape[:2]
    data = zlib.compress(np.ascontiguousarray(page).tobytes())
    w_pt, h_pt = w * 72.0 / dpi, h * 72.0 / dpi
    content = f"q {w_pt:.3f} 0 0 {h_pt:.3f} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.3f} {h_pt:.3f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))


def _markers(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="tablectl markers", description="Write the printable marker sheet.")
    ap.add_argument("--profile", default="riichi4", help="table profile name or .toml path (default riichi4)")
    ap.add_argument("--out", default="markers.pdf", help="output .pdf or .png (default markers.pdf)")
    ap.add_argument("--dpi", type=int, default=300)
    ap.add_argument("--mat", default=None, help="the enrolment mat, .pdf or .png (default: OUT's folder, "
                    "enrol_mat with OUT's suffix; 'off': none)")
    args = ap.parse_args(argv)
    if not 72 <= args.dpi <= 1200:
        print(f"tablectl markers: --dpi {args.dpi} must be within 72..1200", file=sys.stderr)
        return 2
    profile = load_profile(args.profile)
    page = marker_sheet(profile, dpi=args.dpi)
    out = Path(args.out)
    if out.suffix.lower() == ".pdf":
        write_pdf(out, page, dpi=args.dpi)
    elif out.suffix.lower() == ".png":
        cv2.imwrite(str(out), page)
    else:
        print(f"tablectl markers: --out {out} must end in .pdf or .png", file=sys.stderr)
        return 2
    print(f"wrote {out}: markers {list(profile.markers.ids)} ({profile.markers.dictionary}), "
          f"{profile.markers.size_mm:g} mm; print at 100 % scale")
    if args.mat != "off":
        from vision.enrol_mat import MAT_KINDS, render_mat

        mat = Path(args.mat) if args.mat else out.with_name("enrol_mat" + out.suffix.lower())
        if mat.suffix.lower() not in (".pdf", ".png"):
            print(f"tablectl markers: --mat {mat} must end in .pdf or .png", file=sys.stderr)
            return 2
        page = render_mat(dpi=min(args.dpi, 200))
        if mat.suffix.lower() == ".pdf":
            write_pdf(mat, page, dpi=min(args.dpi, 200))
        else:
            cv2.imwrite(str(mat), page)
        print(f"wrote {mat}: the enrolment mat, {len(MAT_KINDS)} numbered places (A3; any scale works), "
              "for 'tablectl enrol --camera'")
    return 0


def _grab(device: str) -> np.ndarray | None:
    from vision.camera import OpenCVCamera

    cam = OpenCVCamera(device)
    try:
        frame = None
        for _ in range(10):  # let auto gain settle for a few frames where it is on
            got = cam.read()
            frame = got if got is not None else frame
        return frame
    finally:
        cam.close()


def _calibrate(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="tablectl calibrate",
                                 description="Calibrate the camera from the table-corner ArUco markers.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--frame", help="a picture file taken by the table camera")
    src.add_argument("--camera", help="a camera device (index or /dev/videoN): grab one frame")
    ap.add_argument("--profile", default="riichi4", help="table profile name or .toml path (default riichi4)")
    ap.add_argument("--hfov", type=float, default=None,
                    help="the lens' horizontal field of view in degrees (default: estimated, else 70)")
    ap.add_argument("--out", default="calibration.json")
    ap.add_argument("--overlay", default=None, help="overlay picture (default: OUT with _overlay.png)")
    args = ap.parse_args(argv)
    profile = load_profile(args.profile)
    if args.frame:
        frame = cv2.imread(args.frame, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"tablectl calibrate: cannot read the picture {args.frame}", file=sys.stderr)
            return 1
    else:
        frame = _grab(args.camera)
        if frame is None:
            print(f"tablectl calibrate: camera {args.camera} gave no frame (camera lost)", file=sys.stderr)
            return 1
    cal = calibrate(frame, profile, hfov_deg=args.hfov)
    out = Path(args.out)
    cal.save(out)
    over = Path(args.overlay) if args.overlay else out.with_name(out.stem + "_overlay.png")
    cv2.imwrite(str(over), overlay(frame, cal, profile))
    print(f"wrote {out} (profile {profile.name}, {cal.size[0]}x{cal.size[1]}, hfov {cal.camera.hfov_deg():.1f} deg, "
          f"reprojection {cal.reprojection_px:.2f} px) and {over}: check the slots on it")
    for warning in pose_warnings(cal, profile):
        print(f"warning: {warning}")
    return 0


def main(command: str, argv: list[str]) -> int:
    try:
        if command == "markers":
            return _markers(argv)
        if command == "calibrate":
            return _calibrate(argv)
    except (ProfileError, CalibrationError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 1
    print(f"tablectl: {command!r} is not a calibration command", file=sys.stderr)
    return 2
