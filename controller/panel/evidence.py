"""An alert's evidence frame cropped to the place: the river of the seat named, the tile marked.

The camera's calibration and table profile (``vision``) say where each river place lies in the
frame; the crop is the seat's whole river with a margin, the tile's outline drawn in red. Where
the place is not known the whole frame is kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MARGIN_PX = 24


def river_place(state: Any, alert: dict) -> tuple[int, int, list[bool]] | None:
    """(seat, river index, sideways flags of the river) of the discard an alert names, when the
    tracker still holds it (same hand, the seat's latest discard of that tile)."""
    seat, tile = alert.get("seat"), alert.get("tile")
    seats = getattr(state, "seats", None)
    if not isinstance(seat, int) or not tile or not seats or not 0 <= seat < len(seats):
        return None
    if getattr(state, "hand_index", None) != alert.get("hand_index"):
        return None
    river = getattr(seats[seat], "river", None) or []
    hits = [k for k, r in enumerate(river) if r.get("tile") == tile]
    if not hits:
        return None
    return seat, hits[-1], [bool(r.get("is_sideways")) for r in river]


def crop(jpeg: bytes, calibration: Any, profile: Any, position: int, index: int, sideways: list[bool]) -> bytes:
    """The frame cut to table position ``position``'s river with place ``index`` outlined; raises
    ValueError when the place is outside the profile's river."""
    import cv2

    from vision.layout import Layout
    lay = Layout(profile)
    per, rows = profile.river.per_row, profile.river.rows
    row, col = divmod(index, per)
    if row >= rows:
        row, col = rows - 1, index - (rows - 1) * per      # the last row runs on
    frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError("the evidence frame cannot be decoded")
    cam = calibration.camera
    z = profile.tile.thickness_mm
    start = row * per
    flags = list(sideways[start:start + per] if row < rows - 1 else sideways[start:])
    flags += [False] * (col + 1 - len(flags))
    rect = lay.lay_row(lay.river_strip(position, row), flags)[col]
    outline = cam.project_xy(rect.array(), z)
    area = np.concatenate([cam.project_xy(lay.strip_tile(strip, k * lay.pitch_mm).array(), z)
                           for strip in lay.river_strips(position) for k in range(per)] + [outline])
    h, w = frame.shape[:2]
    x0, y0 = np.maximum(np.floor(area.min(axis=0)) - MARGIN_PX, 0).astype(int)
    x1, y1 = np.minimum(np.ceil(area.max(axis=0)) + MARGIN_PX, [w, h]).astype(int)
    if x1 <= x0 or y1 <= y0:
        raise ValueError("the river lies outside the frame")
    out = frame[y0:y1, x0:x1].copy()
    pts = np.round(outline - [x0, y0]).astype(np.int32)
    cv2.polylines(out, [pts], True, (0, 0, 255), 3, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise ValueError("the cropped frame cannot be encoded")
    return data.tobytes()


def cropped_evidence(state: Any, parts: Any, jpeg: bytes, alert: dict) -> bytes | None:
    """The crop for ``alert`` of the tracker's ``state``, by the camera part among ``parts``, or None
    (no camera, place unknown)."""
    place = river_place(state, alert)
    if place is None:
        return None
    reader = next((getattr(p, "reader", None) for p in parts if getattr(p, "reader", None)), None)
    cal, profile = getattr(reader, "calibration", None), getattr(reader, "profile", None)
    if cal is None or profile is None:
        return None
    seat, index, sideways = place
    n = len(getattr(state, "seats", ()) or ()) or 4
    position = (getattr(state, "first_dealer_chair", 0) + seat) % n
    try:
        return crop(jpeg, cal, profile, position, index, sideways)
    except (ValueError, IndexError, AttributeError):
        return None


def evidence_for_alert(state: Any, parts: Any, path: Any, alert_index: str | None) -> bytes | None:
    """``GET /api/staff/evidence/NAME?alert=K``: the crop for alert ``K`` of the tracker's ``state``
    (None: serve the whole frame). The daemon calls it (``PanelDoor.evidence_cut``) with its parts."""
    alerts = getattr(state, "alerts", None) or []
    if alert_index is None or not alert_index.isdigit() or int(alert_index) >= len(alerts):
        return None
    try:
        jpeg = path.read_bytes()
    except OSError:
        return None
    return cropped_evidence(state, parts, jpeg, alerts[int(alert_index)])
