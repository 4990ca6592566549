"""A camera picture of the enrolment mat (``vision/enrol_mat.py``) with a set's tiles laid on it.

What staff photograph to enrol a table's set (``tablectl enrol --frame``/``--camera``): one tile of
each kind face up in its place, the back face down, the mat tilted and turned, lit unevenly. The
enrolment tests and ``bench/vision.py --enrol-from mat`` use it.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.sim import tile_art

BACK_BGR = (150, 60, 20)


def mat_photo(style: tile_art.TileStyle | None = None, *, seed: int = 0, size=(1600, 1200),
              background: np.ndarray | None = None, quad: np.ndarray | None = None,
              back_colour: tuple[int, int, int] = BACK_BGR) -> np.ndarray:
    """A camera picture of the enrolment mat with one tile of each kind in its place (the back
    face down, ``back_colour``), the mat tilted and turned by a homography, lit unevenly. With
    ``background`` and ``quad`` (the mat's four corners in it, TL TR BR BL): the mat laid into that
    picture instead."""
    from vision import enrol_mat

    rng = np.random.default_rng(seed)
    dpi = 100
    px = dpi / 25.4
    page = cv2.cvtColor(enrol_mat.render_mat(dpi=dpi), cv2.COLOR_GRAY2BGR)
    for i, kind in enumerate(enrol_mat.MAT_KINDS):
        x, y, pw, ph = enrol_mat.place_rect(i)
        fw, fh = (pw - 3) * px, (ph - 4) * px
        cx, cy = (x + pw / 2) * px + rng.normal(0, 0.6 * px), (y + ph / 2) * px + rng.normal(0, 0.6 * px)
        body = tile_art.tile_body_topdown(None if kind == "back" else kind, int(fw), int(fh),
                                          thickness_px=int(0.12 * fh), back_colour=back_colour, style=style)
        bh = body.shape[0]
        where = np.float32([[cx - fw / 2, cy - fh / 2], [cx + fw / 2, cy - fh / 2],
                            [cx + fw / 2, cy - fh / 2 + bh], [cx - fw / 2, cy - fh / 2 + bh]])
        tile_art.blit(page, body, where)
    h, w = page.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    if background is not None:
        H, W = background.shape[:2]
        m = cv2.getPerspectiveTransform(src, np.float32(quad))
        frame = cv2.warpPerspective(page, m, (W, H), flags=cv2.INTER_LINEAR)
        inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (W, H)) > 127
        return np.where(inside[..., None], frame, background)
    W, H = size
    jitter = rng.uniform(-0.06, 0.06, (4, 2)) * [W, H]
    dst = np.float32([[0.12 * W, 0.14 * H], [0.9 * W, 0.1 * H], [0.93 * W, 0.9 * H], [0.08 * W, 0.86 * H]]) + jitter
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    frame = cv2.warpPerspective(page, m, (W, H), flags=cv2.INTER_AREA, borderValue=(60, 90, 40))
    grad = np.linspace(0.75, 1.1, W)[None, :, None] * np.linspace(1.05, 0.85, H)[:, None, None]
    return np.clip(frame * grad + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
