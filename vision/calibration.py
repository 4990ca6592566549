"""Camera calibration: ArUco markers at the table corners -> camera pose -> table-plane millimetres.

A :class:`PinholeCamera` maps table points ``(x, y, z)`` mm (``z`` above the felt) to frame
pixels: intrinsics ``K`` (square pixels, principal point at the centre, focal length from the
lens' horizontal field of view, or estimated from a tilted view) and the pose ``R``, ``t``.
Tile tops sit above the felt (a wall stack is two tiles high), so the reader needs the pose,
not only the felt-plane homography.

:func:`calibrate` finds the four corner markers (``cv2.aruco.ArucoDetector``), solves the pose
with ``cv2.solvePnP`` on their 16 corners and returns a :class:`Calibration`, saved as JSON.
Errors are :class:`CalibrationError` and name the problem: which marker ids are missing, a
frame size or profile that does not match the file.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.layout import Layout, TableProfile, VisionError, load_profile

log = logging.getLogger(__name__)

DEFAULT_HFOV_DEG = 70.0
FORMAT = "jantaku-calibration/1"


class CalibrationError(VisionError, ValueError):
    """A calibration that cannot be made or used; the message says why (missing ids, size, profile)."""


# --------------------------------------------------------------------------- camera model


def intrinsics(width_px: int, height_px: int, hfov_deg: float) -> np.ndarray:
    """K for square pixels, principal point at the frame centre, horizontal field of view ``hfov_deg``."""
    if not 10.0 <= hfov_deg <= 170.0:
        raise CalibrationError(f"calibration: hfov_deg is {hfov_deg}, must be within 10..170")
    f = (width_px / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, width_px / 2], [0, f, height_px / 2], [0, 0, 1]], dtype=np.float64)


@dataclass(frozen=True)
class PinholeCamera:
    """``K`` (3x3), ``R`` (3x3 table->camera), ``t`` (3,), frame ``size`` (width, height) px."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: tuple[int, int]

    @classmethod
    def from_pose(cls, *, tilt_deg: float = 0.0, azimuth_deg: float = -90.0, roll_deg: float = 0.0,
                  distance_mm: float = 1000.0, hfov_deg: float = DEFAULT_HFOV_DEG,
                  target_mm: tuple[float, float] = (0.0, 0.0), size: tuple[int, int] = (1280, 720)
                  ) -> PinholeCamera:
        """A camera ``distance_mm`` from ``target_mm`` on the felt, looking at it.

        ``tilt_deg`` leans the camera from straight down towards the direction ``azimuth_deg``
        (degrees from +x, counter-clockwise; -90 is over position 0); ``roll_deg`` turns the
        picture about the optical axis (0: position 0 at the bottom of the frame when straight down).
        """
        tilt, az, roll = (math.radians(v) for v in (tilt_deg, azimuth_deg, roll_deg))
        target = np.array([target_mm[0], target_mm[1], 0.0])
        direction = np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
        centre = target + distance_mm * direction
        z_c = -direction
        x0 = np.array([math.cos(roll), math.sin(roll), 0.0])
        x_c = x0 - x0.dot(z_c) * z_c
        x_c /= np.linalg.norm(x_c)
        y_c = np.cross(z_c, x_c)
        R = np.stack([x_c, y_c, z_c])
        return cls(intrinsics(size[0], size[1], hfov_deg), R, -R @ centre, (int(size[0]), int(size[1])))

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's position in table mm."""
        return -self.R.T @ self.t

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table points ``(..., 3)`` mm -> frame pixels ``(..., 2)`` (float)."""
        p = np.asarray(points_mm, dtype=np.float64)
        c = p @ self.R.T + self.t
        z = c[..., 2:3]
        uv = c[..., :2] / z
        return uv * np.array([self.K[0, 0], self.K[1, 1]]) + np.array([self.K[0, 2], self.K[1, 2]])

    def project_xy(self, xy_mm: np.ndarray, z_mm: float | np.ndarray) -> np.ndarray:
        xy = np.asarray(xy_mm, dtype=np.float64)
        z = np.broadcast_to(np.asarray(z_mm, dtype=np.float64), xy.shape[:-1])
        return self.project(np.concatenate([xy, z[..., None]], axis=-1))

    def plane_homography(self, z_mm: float = 0.0) -> np.ndarray:
        """3x3 homography from table (x, y) mm at height ``z_mm`` to frame pixels."""
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z_mm + self.t])
        H = self.K @ M
        return H / H[2, 2]

    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.size[0] / 2 / self.K[0, 0]))


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True)
class Calibration:
    """A solved camera for one table profile and frame size."""

    profile: str
    camera: PinholeCamera
    marker_ids: tuple[int, ...]
    reprojection_px: float
    created: str = ""

    @property
    def size(self) -> tuple[int, int]:
        return self.camera.size

    def homography(self) -> np.ndarray:
        """Felt plane (z=0) table mm -> frame pixels."""
        return self.camera.plane_homography(0.0)

    def check_frame(self, frame: np.ndarray) -> None:
        """Raise CalibrationError unless ``frame`` has the size this calibration was made for."""
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
            raise CalibrationError(f"calibration: expected a BGR frame, got {getattr(frame, 'shape', type(frame))}")
        w, h = self.size
        if frame.shape[1] != w or frame.shape[0] != h:
            raise CalibrationError(f"calibration: frame is {frame.shape[1]}x{frame.shape[0]}, the calibration "
                                   f"was made for {w}x{h}; calibrate again for this camera mode")

    def to_json(self) -> dict:
        rvec, _ = cv2.Rodrigues(self.camera.R)
        return {
            "format": FORMAT, "profile": self.profile, "created": self.created,
            "frame_size": list(self.camera.size),
            "K": self.camera.K.tolist(), "rvec": rvec.ravel().tolist(), "tvec": self.camera.t.tolist(),
            "homography_z0": self.homography().tolist(),
            "hfov_deg": round(self.camera.hfov_deg(), 3),
            "marker_ids": list(self.marker_ids), "reprojection_px": round(self.reprojection_px, 4),
        }

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        return path

    @classmethod
    def from_json(cls, data: dict, *, origin: str = "<calibration>") -> Calibration:
        try:
            if data.get("format") != FORMAT:
                raise CalibrationError(f"calibration {origin}: format {data.get('format')!r}, expected {FORMAT!r}")
            K = np.array(data["K"], dtype=np.float64).reshape(3, 3)
            rvec = np.array(data["rvec"], dtype=np.float64).reshape(3)
            t = np.array(data["tvec"], dtype=np.float64).reshape(3)
            w, h = (int(v) for v in data["frame_size"])
            R, _ = cv2.Rodrigues(rvec)
            cam = PinholeCamera(K, R, t, (w, h))
            return cls(str(data["profile"]), cam, tuple(int(i) for i in data.get("marker_ids", ())),
                       float(data.get("reprojection_px", 0.0)), str(data.get("created", "")))
        except CalibrationError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise CalibrationError(f"calibration {origin}: malformed ({err})") from err

    @classmethod
    def load(cls, path: str | Path, *, profile: TableProfile | None = None,
             frame_size: tuple[int, int] | None = None) -> Calibration:
        """Read a calibration file; with ``profile``/``frame_size`` also check it matches them."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as err:
            raise CalibrationError(f"calibration file {path} does not exist") from err
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CalibrationError(f"calibration {path}: cannot read ({err})") from err
        if not isinstance(data, dict):
            raise CalibrationError(f"calibration {path}: expected a JSON object")
        cal = cls.from_json(data, origin=str(path))
        cal.check_matches(profile=profile, frame_size=frame_size, origin=str(path))
        return cal

    def check_matches(self, *, profile: TableProfile | None = None, frame_size: tuple[int, int] | None = None,
                      origin: str = "calibration") -> None:
        if profile is not None and profile.name != self.profile:
            raise CalibrationError(f"{origin}: made for table profile {self.profile!r}, "
                                   f"the table uses {profile.name!r}; calibrate again")
        if frame_size is not None and tuple(frame_size) != tuple(self.size):
            raise CalibrationError(f"{origin}: made for {self.size[0]}x{self.size[1]} frames, "
                                   f"the camera gives {frame_size[0]}x{frame_size[1]}; calibrate again")


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int) or not name.startswith("DICT_"):
        raise CalibrationError(f"calibration: unknown ArUco dictionary {name!r} (e.g. DICT_4X4_50)")
    return cv2.aruco.getPredefinedDictionary(code)


def detect_markers(frame: np.ndarray, profile: TableProfile) -> dict[int, np.ndarray]:
    """The profile's corner markers found in ``frame``: id -> 4x2 corner pixels (TL, TR, BR, BL)."""
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise CalibrationError("calibration: the frame is not a picture")
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(profile.markers.dictionary), params)
    corners, ids, _rejected = detector.detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            if int(i) in profile.markers.ids:
                found[int(i)] = np.asarray(c, dtype=np.float64).reshape(4, 2)
    return found


def _estimate_focal(H: np.ndarray, size: tuple[int, int]) -> float | None:
    """Focal length (px) from a felt homography (Zhang, principal point known), or None if the
    view is too close to straight down to tell."""
    T = np.array([[1, 0, -size[0] / 2], [0, 1, -size[1] / 2], [0, 0, 1]])
    h = T @ H
    h = h / np.linalg.norm(h[:, 0])
    a, b = h[:, 0], h[:, 1]
    cands = []
    den1 = a[2] * b[2]
    if abs(den1) > 1e-9:
        cands.append(-(a[0] * b[0] + a[1] * b[1]) / den1)
    den2 = a[2] ** 2 - b[2] ** 2
    if abs(den2) > 1e-9:
        cands.append(-(a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2) / den2)
    good = [math.sqrt(c) for c in cands if c > 0]
    if not good:
        return None
    f = float(np.median(good))
    # only trust it when the view is clearly tilted (the perspective terms carry the information)
    tilt = math.hypot(a[2], b[2]) * f
    return f if tilt > 0.12 and 0.3 * size[0] < f < 5 * size[0] else None


def calibrate(frame: np.ndarray, profile: TableProfile, *, hfov_deg: float | None = None) -> Calibration:
    """Solve the camera from the four corner markers in ``frame``.

    ``hfov_deg``: the lens' horizontal field of view; None estimates it from a tilted view and
    falls back to DEFAULT_HFOV_DEG for a view from straight above. Raises CalibrationError
    naming the marker ids that were not found, or a solution that does not fit the markers.
    """
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        raise CalibrationError("calibration: the frame is not a picture")
    size = (frame.shape[1], frame.shape[0])
    found = detect_markers(frame, profile)
    missing = [i for i in profile.markers.ids if i not in found]
    if missing:
        raise CalibrationError(
            f"calibration: markers not found: id {', '.join(map(str, missing))} "
            f"(found {sorted(found) or 'none'}; dictionary {profile.markers.dictionary}); "
            "check that every table corner marker is visible and lit")
    table = Layout(profile).marker_corners()
    obj = np.concatenate([np.column_stack([table[i], np.zeros(4)]) for i in profile.markers.ids])
    img = np.concatenate([found[i] for i in profile.markers.ids])
    H, _ = cv2.findHomography(obj[:, :2], img, 0)
    if H is None:
        raise CalibrationError("calibration: the marker corners do not give a homography")
    if hfov_deg is None:
        f = _estimate_focal(H, size)
        K = intrinsics(size[0], size[1], DEFAULT_HFOV_DEG)
        if f is not None:
            K[0, 0] = K[1, 1] = f
    else:
        K = intrinsics(size[0], size[1], hfov_deg)
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, None, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise CalibrationError("calibration: solvePnP found no camera pose for the markers")
    R, _ = cv2.Rodrigues(rvec)
    cam = PinholeCamera(K, R, tvec.ravel(), size)
    err = float(np.sqrt(np.mean(np.sum((cam.project(obj) - img) ** 2, axis=1))))
    if err > 3.0:
        raise CalibrationError(f"calibration: markers fit the table profile {profile.name!r} badly "
                               f"(reprojection {err:.1f} px, limit 3.0); wrong profile or moved markers?")
    if cam.centre_mm[2] <= 0:
        raise CalibrationError("calibration: the solved camera is below the table; wrong marker positions?")
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    log.info("calibrated %s: %dx%d, hfov %.1f deg, reprojection %.2f px", profile.name, size[0], size[1],
             cam.hfov_deg(), err)
    return Calibration(profile.name, cam, tuple(profile.markers.ids), err, created)


MIN_WALL_PARALLAX_MM = 1.3   # below this a wall's one-tile top hides under where its two-tile top would be


def wall_parallax_mm(camera: PinholeCamera, profile: TableProfile) -> dict[int, float]:
    """Per wall: how far (mm, across the wall) a stack's top one tile lower appears shifted from
    where a full stack's top would be, at the wall's slot nearest the camera's foot point. The
    reader tells 2 from 1 tiles by that shift: a camera whose foot point (the point straight
    below the lens) lies over or next to a wall sees that wall from straight above, where one
    and two tiles look alike."""
    lay = Layout(profile)
    foot = camera.centre_mm[:2]
    height = float(camera.centre_mm[2])
    t = profile.tile
    d_mid = profile.wall.inner_mm + t.length_mm / 2
    out = {}
    for wall in lay.wall_positions:
        _, forward = lay.seat_axes(wall)
        d_foot = float(-(foot @ forward))
        out[wall] = t.thickness_mm * (abs(d_mid - d_foot) + t.length_mm / 2) / max(height - 2 * t.thickness_mm, 1.0)
    return out


def pose_warnings(cal: Calibration, profile: TableProfile) -> list[str]:
    """Plain warnings about a camera pose the reader cannot read everything from (empty: fine)."""
    foot = cal.camera.centre_mm
    out = []
    for wall, shift in wall_parallax_mm(cal.camera, profile).items():
        if shift < MIN_WALL_PARALLAX_MM:
            out.append(f"the camera's foot point ({foot[0]:.0f}, {foot[1]:.0f}) mm lies over or next to wall {wall}: "
                       f"stack heights there (2 or 1 tiles) cannot be told apart; aim the camera so that the point "
                       f"straight below it lies well inside the walls (or straight over the table centre)")
    return out


def overlay(frame: np.ndarray, cal: Calibration, profile: TableProfile | None = None) -> np.ndarray:
    """The frame with the layout drawn on it (wall slots, river rows, meld/reveal/flower strips,
    markers) for the operator to check the calibration by eye."""
    profile = profile or load_profile(cal.profile)
    lay = Layout(profile)
    out = frame.copy()
    cam = cal.camera
    T = profile.tile.thickness_mm

    def poly(rect_xy: np.ndarray, z: float, colour: tuple[int, int, int], thick: int = 1) -> None:
        pts = cam.project_xy(rect_xy, z)
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, thick, cv2.LINE_AA)

    for slot in lay.wall_slots():
        poly(slot.rect.array(), 2 * T, (0, 255, 255))
    for strip in lay.strips():
        n = int(strip.length_mm // lay.pitch_mm) if strip.kind != "river" else profile.river.per_row
        colour = {"river": (0, 255, 0), "melds": (255, 128, 0), "reveal": (255, 0, 255),
                  "flowers": (0, 128, 255)}[strip.kind]
        for k in range(n):
            poly(lay.strip_tile(strip, k * lay.pitch_mm).array(), T, colour)
    for mid, corners in lay.marker_corners().items():
        poly(corners, 0.0, (0, 0, 255), 2)
        c = cam.project_xy(corners.mean(axis=0), 0.0)
        cv2.putText(out, str(mid), (int(c[0]) - 6, int(c[1]) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 2)
    cv2.putText(out, f"{cal.profile}  reprojection {cal.reprojection_px:.2f} px", (10, 24),
                cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2, cv2.LINE_AA)
    return out


def marker_sheet(profile: TableProfile, *, dpi: int = 150, page_mm: tuple[float, float] = (210.0, 297.0)
                 ) -> np.ndarray:
    """A printable page (grey uint8, A4 portrait at ``dpi``) with the four corner markers at their
    true size (``size_mm``), each labelled with its id and its table corner; cut them out."""
    px_mm = dpi / 25.4
    w, h = int(round(page_mm[0] * px_mm)), int(round(page_mm[1] * px_mm))
    page = np.full((h, w), 255, np.uint8)
    d = aruco_dictionary(profile.markers.dictionary)
    side = int(round(profile.markers.size_mm * px_mm))
    names = {(-1, -1): "bottom-left (position 0's left)", (1, -1): "bottom-right (position 0's right)",
             (1, 1): "top-right", (-1, 1): "top-left"}
    cells = [(0, 0), (1, 0), (0, 1), (1, 1)]
    for (mid, (cx, cy)), (col, row) in zip(zip(profile.markers.ids, profile.markers.centres_mm, strict=True),
                                            cells, strict=True):
        img = cv2.aruco.generateImageMarker(d, mid, side)
        x = int(w * (0.08 + 0.47 * col))
        y = int(h * (0.08 + 0.45 * row))
        page[y:y + side, x:x + side] = img
        label = f"id {mid}: {names[(int(math.copysign(1, cx)), int(math.copysign(1, cy)))]}"
        cv2.putText(page, label, (x, y + side + int(8 * px_mm)), cv2.FONT_HERSHEY_SIMPLEX, 0.45 * dpi / 150, 0, 1,
                    cv2.LINE_AA)
        cv2.putText(page, f"{profile.markers.size_mm:g} mm, centre at ({cx:g}, {cy:g}) mm",
                    (x, y + side + int(14 * px_mm)), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * dpi / 150, 0, 1, cv2.LINE_AA)
    cv2.putText(page, f"jantaku table markers: profile {profile.name}, {profile.markers.dictionary}; "
                "print at 100 % scale", (int(8 * px_mm), int(8 * px_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                0.45 * dpi / 150, 0, 1, cv2.LINE_AA)
    return page
