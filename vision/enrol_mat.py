"""The enrolment mat: a printed sheet with a numbered place for each kind, found by its markers.

The staff lay one tile of each kind face up in its place (the 37 kinds, the eight flowers and
seasons, and one tile face down for the back), the camera (or a phone) takes one picture, and
:func:`find_mat` + :func:`cut_places` cut every place out of it, ready for enrolment
(``vision/enrol.py``). The mat is located by four ArUco markers (``DICT_4X4_50`` ids 40-43, not
the table's corner ids) at its corners, so it may be printed at any scale (A3 at 100 % gives
places of 28 x 38 mm, for tiles up to about that size) and photographed at any angle.

Mat coordinates are millimetres of the A3 landscape page, origin at its top-left corner.

>>> len(MAT_KINDS), MAT_KINDS[0], MAT_KINDS[-1]
(46, '1m', 'back')
>>> place_rect(0)
(34.0, 25.0, 28.0, 38.0)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.decode import CLASSES
from vision.layout import VisionError

MAT_KINDS: tuple[str, ...] = tuple(c for c in CLASSES if c != "none")
MAT_MM = (420.0, 297.0)                # A3 landscape
DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (40, 41, 42, 43)          # top-left, top-right, bottom-right, bottom-left
MARKER_MM = 22.0
MARKER_MARGIN_MM = 6.0
COLS, ROWS = 10, 5
PLACE_MM = (28.0, 38.0)
PITCH_MM = (36.0, 50.0)
GRID_ORIGIN_MM = (34.0, 25.0)
CROP_MARGIN = 1.15                     # crop side = place's long side x this (as vision.classifier.cut_crop)
CROP_PX = 96


class MatError(VisionError, ValueError):
    """The mat is not found in a picture (markers missing), or a picture is not one."""


def place_rect(index: int) -> tuple[float, float, float, float]:
    """Place ``index``'s (x, y, width, height) in mat millimetres."""
    col, row = index % COLS, index // COLS
    return (GRID_ORIGIN_MM[0] + col * PITCH_MM[0], GRID_ORIGIN_MM[1] + row * PITCH_MM[1], *PLACE_MM)


def marker_corners_mm() -> dict[int, np.ndarray]:
    """Each marker's four corners (TL, TR, BR, BL) in mat millimetres."""
    w, h = MAT_MM
    m, s = MARKER_MARGIN_MM, MARKER_MM
    origins = [(m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s)]
    return {mid: np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float64)
            for mid, (x, y) in zip(MARKER_IDS, origins, strict=True)}


def _label(kind: str) -> str:
    return "back (face down)" if kind == "back" else kind


def render_mat(*, dpi: int = 150) -> np.ndarray:
    """The printable mat page (grey uint8, A3 landscape at ``dpi``)."""
    px = dpi / 25.4
    w, h = int(round(MAT_MM[0] * px)), int(round(MAT_MM[1] * px))
    page = np.full((h, w), 255, np.uint8)
    d = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    for mid, c in marker_corners_mm().items():
        x0, y0 = (c[0] * px).round().astype(int)
        side = int(round(MARKER_MM * px))
        page[y0:y0 + side, x0:x0 + side] = cv2.aruco.generateImageMarker(d, mid, side)
    scale = 0.42 * dpi / 150
    for i, kind in enumerate(MAT_KINDS):
        x, y, pw, ph = place_rect(i)
        p0 = (int(round(x * px)), int(round(y * px)))
        p1 = (int(round((x + pw) * px)), int(round((y + ph) * px)))
        cv2.rectangle(page, p0, p1, 150, max(1, int(0.4 * px)), cv2.LINE_AA)
        cv2.putText(page, f"{i + 1}  {_label(kind) if kind != 'back' else 'back'}",
                    (p0[0], p1[1] + int(6 * px)), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, 1, cv2.LINE_AA)
    cv2.putText(page, "jantaku enrolment mat: one tile of each kind face up in its place, one tile face down "
                "in 'back'; then 'tablectl enrol --camera'", (int(34 * px), int(16 * px)),
                cv2.FONT_HERSHEY_SIMPLEX, scale, 0, 1, cv2.LINE_AA)
    return page


def find_mat(frame: np.ndarray) -> np.ndarray:
    """The homography from mat millimetres to ``frame`` pixels, from its four markers.

    Raises :class:`MatError` naming the markers not found (three are enough, all four are used when seen).
    """
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise MatError("enrolment mat: the frame is not a picture")
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), params)
    corners, ids, _rejected = detector.detectMarkers(grey)
    found = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            if int(i) in MARKER_IDS:
                found[int(i)] = np.asarray(c, np.float64).reshape(4, 2)
    if len(found) < 3:
        missing = [m for m in MARKER_IDS if m not in found]
        raise MatError(f"enrolment mat: markers {missing} not found in the picture (need at least 3 of "
                       f"{list(MARKER_IDS)}): is the whole mat in view, flat and lit?")
    ref = marker_corners_mm()
    src = np.concatenate([ref[m] for m in sorted(found)])
    dst = np.concatenate([found[m] for m in sorted(found)])
    hmg, _mask = cv2.findHomography(src, dst, 0)
    if hmg is None:
        raise MatError("enrolment mat: the markers do not fit a flat mat")
    return hmg


def cut_places(frame: np.ndarray, homography: np.ndarray, *, out_px: int = CROP_PX
               ) -> list[tuple[str, np.ndarray]]:
    """Every place of the mat as ``(kind, BGR crop)``: the place's centre, a square of its long side
    times ``CROP_MARGIN``, straightened (the tile upright as the mat is), ``out_px`` square."""
    frame = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    out = []
    for i, kind in enumerate(MAT_KINDS):
        x, y, pw, ph = place_rect(i)
        cx, cy = x + pw / 2, y + ph / 2
        half = max(pw, ph) * CROP_MARGIN / 2
        src = np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
                        [cx - half, cy + half]], np.float64)
        img_quad = cv2.perspectiveTransform(src.reshape(-1, 1, 2), homography).reshape(4, 2)
        dst = np.array([[0, 0], [out_px, 0], [out_px, out_px], [0, out_px]], np.float64)
        m = cv2.getPerspectiveTransform(img_quad.astype(np.float32), dst.astype(np.float32))
        out.append((kind, cv2.warpPerspective(frame, m, (out_px, out_px), flags=cv2.INTER_AREA,
                                              borderMode=cv2.BORDER_REPLICATE)))
    return out


def contact_sheet(samples: Sequence[tuple[str, np.ndarray]], *, notes: Sequence[str] | None = None,
                  cell_px: int = 96, cols: int = COLS) -> np.ndarray:
    """A grid picture of the crops, each numbered and labelled (and ``notes[i]`` under it, e.g. what
    the shipped model reads there), for the staff to check before the set is saved."""
    rows = (len(samples) + cols - 1) // cols
    band = 34
    sheet = np.full((max(1, rows) * (cell_px + band), cols * cell_px, 3), 255, np.uint8)
    for i, (label, crop) in enumerate(samples):
        r, c = divmod(i, cols)
        x, y = c * cell_px, r * (cell_px + band)
        sheet[y:y + cell_px, x:x + cell_px] = cv2.resize(crop, (cell_px, cell_px), interpolation=cv2.INTER_AREA)
        cv2.putText(sheet, f"{i + 1} {label}", (x + 3, y + cell_px + 13), cv2.FONT_HERSHEY_SIMPLEX, 0.42,
                    (0, 0, 0), 1, cv2.LINE_AA)
        if notes is not None and notes[i]:
            cv2.putText(sheet, notes[i], (x + 3, y + cell_px + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.36,
                        (0, 0, 200), 1, cv2.LINE_AA)
    return sheet
