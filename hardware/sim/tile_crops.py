"""One rendered tile crop as a camera (the table's, or a phone) would show it, cut as ``tablectl classify`` expects.

Numpy/OpenCV only. :func:`render_sample` draws the tile body (``tile_art``, any face design via
its style) on a table surface with neighbours, fingers and shadows, looks at it through a camera
(any in-plane angle, tilt, aspect squeeze), lights it (white balance, light level, gradients,
specular highlights of a glossy face) and degrades it (tile size, defocus, motion blur, sensor
noise, JPEG). The ranges it draws from are a :class:`Conditions`; the training and held-out
conditions are declared in ``hardware/sim/tile_designs.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from controller.rules.tiles import ALL_TILES
from hardware.sim import tile_art

Interval = tuple[float, float]


@dataclass(frozen=True)
class Conditions:
    """Ranges a crop is drawn from. Hue and light ranges are unions of intervals; angles in degrees."""

    felt_hues: tuple[Interval, ...]     # OpenCV hue (0-180) of a coloured table felt
    back_hues: tuple[Interval, ...]     # hue of a set back drawn at random (not a named colour)
    back_colours: tuple[str, ...]       # named back colours (tile_art.BACK_COLOURS)
    light: tuple[Interval, ...]         # overall light level (gain)
    tilt_deg: Interval                  # camera tilt off the vertical (perspective)
    skew_deg: Interval                  # |in-plane angle off the quarter turn| (the label's rotation)
    squeeze: Interval                   # aspect squeeze of the picture (1: none, 1.33: 4:3)
    tile_px: Interval = (25.0, 64.0)    # long side of the tile as the camera saw it
    jpeg_quality: tuple[int, int] = (30, 95)
    noise_max: float = 9.0
    fill: Interval = (0.68, 1.12)       # tile's long side / crop side (>1 cuts the edges)
    p_any_back: float = 0.5
    p_neighbours: float = 0.75
    p_finger: float = 0.15
    p_glare: float = 0.35
    p_shadow: float = 0.35
    p_photo: float = 0.35
    centre_jitter: float = 0.06


MIN_FELT_CONTRAST = 70.0  # BGR distance between the felt and the tile backs
_SKIN = [(140, 170, 225), (110, 140, 200), (80, 110, 170), (60, 80, 120), (160, 190, 235)]
_NOISE_BANK: list[np.ndarray] = []


def pick(rng: np.random.Generator, intervals: tuple[Interval, ...]) -> float:
    """A uniform draw from a union of intervals (weighted by their lengths)."""
    lengths = np.array([max(b - a, 1e-9) for a, b in intervals])
    a, b = intervals[int(rng.choice(len(intervals), p=lengths / lengths.sum()))]
    return float(rng.uniform(a, b))


def _noise(rng: np.random.Generator, size: int) -> np.ndarray:
    if not _NOISE_BANK:
        _NOISE_BANK.append(np.random.default_rng(12345).standard_normal((512, 512, 3), np.float32))
    bank = _NOISE_BANK[0]
    y, x = rng.integers(0, bank.shape[0] - size, 2)
    patch = bank[y:y + size, x:x + size]
    return patch[::-1] if rng.random() < 0.5 else patch


def _felt(rng: np.random.Generator, size: int, cond: Conditions, avoid: tuple = ()) -> np.ndarray:
    """A table surface, kept ``MIN_FELT_CONTRAST`` away from the set's back colours."""
    for _ in range(20):
        kind = rng.random()
        if kind < 0.7:  # table felt: a saturated, not too bright cloth
            hsv = np.array([[[pick(rng, cond.felt_hues), rng.uniform(60, 230), rng.uniform(50, 190)]]], np.float32)
        elif kind < 0.85:  # grey / black / white surfaces
            hsv = np.array([[[0, rng.uniform(0, 30), rng.uniform(20, 240)]]], np.float32)
        else:  # wood / brown
            hsv = np.array([[[rng.uniform(8, 22), rng.uniform(80, 200), rng.uniform(60, 200)]]], np.float32)
        base = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        if all(np.linalg.norm(base - np.array(c, np.float32)) >= MIN_FELT_CONTRAST for c in avoid):
            break
    low = cv2.resize(rng.normal(0, 1, (6, 6, 3)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    img = base[None, None, :] * (1 + 0.08 * low) + _noise(rng, size) * np.float32(rng.uniform(1, 7))
    if kind >= 0.85 and rng.random() < 0.6:  # grain stripes
        stripes = np.sin(np.linspace(0, rng.uniform(10, 40), size) + rng.uniform(0, 6))[:, None, None]
        img = img * (1 + 0.1 * stripes)
    return np.clip(img, 0, 255).astype(np.uint8)


def set_backs(rng: np.random.Generator, cond: Conditions) -> tuple:
    """The two back colours (BGR) of a table's two sets."""
    pick2 = rng.choice(len(cond.back_colours), size=2, replace=len(cond.back_colours) < 2)
    backs = [tuple(int(v) for v in np.clip(np.array(tile_art.BACK_COLOURS[cond.back_colours[j]])
                                           + rng.normal(0, 18, 3), 0, 255)) for j in pick2]
    for i in range(2):
        if rng.random() < cond.p_any_back:
            hsv = np.uint8([[[pick(rng, cond.back_hues), rng.uniform(60, 255), rng.uniform(40, 240)]]])
            backs[i] = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    return tuple(backs)


def _body(label: str, fw: int, fh: int, t: int, side: str, back, style, rng) -> tuple[np.ndarray, np.ndarray]:
    img = tile_art.tile_body_topdown(label, fw, fh, thickness_px=t, side=side, back_colour=back, style=style,
                                     face_layer=float(rng.uniform(0.3, 0.7)))
    ox = t if side == "left" else 0
    oy = t if side == "top" else 0
    return img, np.float32([[ox, oy], [ox + fw, oy], [ox + fw, oy + fh], [ox, oy + fh]])


def _place(canvas: np.ndarray, body: tuple, cx: float, cy: float, quarter_turns: int, shadow: float) -> np.ndarray:
    """Paste a body (turned 90 degrees k times) with its face centred at (cx, cy); return the face quad."""
    src, q = body
    img = np.ascontiguousarray(np.rot90(src, -quarter_turns)) if quarter_turns % 4 else src
    h0, w0 = src.shape[:2]
    q = q.copy()
    for _ in range(quarter_turns % 4):
        q = np.stack([h0 - q[:, 1], q[:, 0]], axis=1)
        h0, w0 = w0, h0
    fc = q.mean(0)
    x0, y0 = cx - fc[0], cy - fc[1]
    h, w = img.shape[:2]
    dst = np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
    if shadow > 0:
        sh = np.zeros_like(img)
        sh[:, :, 3] = (img[:, :, 3].astype(np.float32) * shadow).astype(np.uint8)
        sh = cv2.GaussianBlur(sh, (0, 0), 2.0)
        off = max(1.0, 0.06 * w)
        tile_art.blit(canvas, sh, dst + np.float32([off, off]))
    tile_art.blit(canvas, img, dst)
    return q + np.float32([x0, y0])


def _finger(canvas: np.ndarray, rng: np.random.Generator, cx: float, cy: float, reach: float, width_px: float) -> None:
    ang = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(ang), np.sin(ang)])
    tip = np.array([cx, cy]) + d * reach
    base = tip + d * canvas.shape[0]
    width = max(2, int(width_px * rng.uniform(0.7, 1.2)))
    col = (np.array(_SKIN[int(rng.integers(len(_SKIN)))], float) + rng.normal(0, 10, 3)).tolist()
    cv2.line(canvas, tuple(int(v) for v in tip), tuple(int(v) for v in base), col, width, cv2.LINE_AA)
    cv2.circle(canvas, tuple(int(v) for v in tip), width // 2, col, -1, cv2.LINE_AA)


def _photometric(img: np.ndarray, rng: np.random.Generator, cond: Conditions, glossy: bool) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    wb = np.exp(rng.normal(0, 0.1, 3))  # white balance / colour cast
    f *= (pick(rng, cond.light) * wb)[None, None, :]
    if rng.random() < 0.5:  # felt-coloured light bounced onto everything
        tint = f.reshape(-1, 3).mean(0)
        f = f * 0.88 + tint * 0.12 * rng.uniform(0, 1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(ang) * (xx - w / 2) + np.sin(ang) * (yy - h / 2)) / max(h, w)
    f *= (1 + rng.uniform(0, 0.5) * ramp)[:, :, None]
    if rng.random() < cond.p_shadow:
        ang = rng.uniform(0, 2 * np.pi)
        dist = np.cos(ang) * (xx - w / 2) + np.sin(ang) * (yy - h / 2) - rng.uniform(-0.4, 0.5) * w
        soft = 1 / (1 + np.exp(-dist / max(1.0, rng.uniform(1, 0.15 * w))))
        f *= (1 - rng.uniform(0.15, 0.45) * soft)[:, :, None]
    if rng.random() < (cond.p_glare if glossy else cond.p_glare * 0.3):  # specular highlight on the face
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.04, 0.2 if glossy else 0.3) * w
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2 * rng.uniform(0.2, 4)) / (2 * s * s))
        f += (rng.uniform(40, 130 if glossy else 50) * blob)[:, :, None]
    return np.clip(f, 0, 255).astype(np.uint8)


def _degrade(img: np.ndarray, rng: np.random.Generator, cond: Conditions, tile_long: float) -> np.ndarray:
    h, w = img.shape[:2]
    want = rng.uniform(*cond.tile_px)
    if want < tile_long:  # the camera saw the tile this small
        k = want / tile_long
        small = cv2.resize(img, (max(6, int(w * k)), max(6, int(h * k))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.35:  # defocus
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.3))
    elif r < 0.5:  # motion blur, any direction
        n = int(rng.integers(3, 6))
        k = np.zeros((n, n), np.float32)
        cv2.line(k, (0, int(rng.integers(n))), (n - 1, int(rng.integers(n))), 1.0, 1)
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1))
    sigma = rng.uniform(0, cond.noise_max)
    img = np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.75:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*cond.jpeg_quality))])
        if ok:
            img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def render_sample(label: str, rotation: int, rng: np.random.Generator, *, style: tile_art.TileStyle,
                  backs: tuple, cond: Conditions, out_px: int = 64, glossy: bool = True) -> np.ndarray:
    """One crop of ``label`` (mpsz, ``back`` or ``none``) with its face turned ``rotation`` degrees clockwise.

    ``style`` is the set's look (its ``design`` draws the glyphs), ``backs`` the table's two back
    colours. Returns a BGR uint8 crop, ``out_px`` on its long side, of any aspect.
    """
    size = 220
    canvas = _felt(rng, size, cond, avoid=backs)
    is_photo = rng.random() < cond.p_photo
    fw = int(rng.uniform(44, 60))
    fh = int(fw * rng.uniform(1.25, 1.42))
    t = int(fw * rng.uniform(0.0, 0.45)) if rng.random() < 0.85 else 0
    side = ("bottom", "top", "left", "right")[int(rng.integers(4))]
    cx = cy = size / 2
    set_back = backs[int(rng.integers(2))]
    shadow = rng.uniform(0.2, 0.6)
    gap = fw * rng.uniform(0.0, 0.18)
    if rng.random() < cond.p_neighbours and not (is_photo and rng.random() < 0.7):
        is_wall = label == "back" and rng.random() < 0.6
        for dx, dy in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)]:
            if rng.random() < (0.75 if dy == 0 else 0.35):
                nl = "back" if (is_wall or rng.random() < 0.15) else ALL_TILES[int(rng.integers(len(ALL_TILES)))]
                sideways = rng.random() < 0.12
                ox = dx * (fw + gap + (fh - fw) * sideways * 0.5 + (0 if not is_wall else -gap))
                oy = dy * (fh + t + fw * rng.uniform(0.05, 0.3))
                nb = _body(nl, fw, fh, t, side, set_back, style, rng)
                _place(canvas, nb, cx + ox, cy + oy, 1 if sideways else 0, shadow)
    if label == "none":
        quad = np.float32([[cx - fw / 2, cy - fh / 2], [cx + fw / 2, cy - fh / 2],
                           [cx + fw / 2, cy + fh / 2], [cx - fw / 2, cy + fh / 2]])
        r = rng.random()
        if r < 0.2:  # a hand or a finger over the empty slot
            _finger(canvas, rng, cx, cy, -fw * rng.uniform(0, 1), fw * 0.5)
        elif r < 0.3:  # a tile side / stack edge seen end-on: just the two coloured layers
            th_px = max(4, t + 4)
            strip = np.ascontiguousarray(tile_art.tile_body_topdown("back", fw, 4, thickness_px=th_px,
                                                                    back_colour=set_back)[4:])
            strip[:, :, 3] = 255
            tile_art.blit(canvas, strip, quad[[0, 1, 1, 0]] + np.float32([[0, 0], [0, 0], [0, th_px], [0, th_px]]))
        elif r < 0.4:  # clutter
            for _ in range(int(rng.integers(1, 5))):
                p = rng.uniform(cx - fw, cx + fw, 2).astype(int)
                cv2.circle(canvas, (int(p[0]), int(p[1])), int(rng.uniform(3, fw / 2)), rng.integers(0, 255, 3).tolist(),
                           -1, cv2.LINE_AA)
    else:
        quad = _place(canvas, _body(label, fw, fh, t, side, set_back, style, rng), cx, cy, 0, shadow)
        if rng.random() < cond.p_finger:  # a finger at the tile's edge, not over the glyph
            _finger(canvas, rng, cx, cy, 0.5 * fh * rng.uniform(0.95, 1.2), fw * 0.5)

    # camera: quarter turns + skew in the plane, tilt (foreshortening along a random axis + keystone), squeeze
    skew = rng.uniform(*cond.skew_deg) * (1 if rng.random() < 0.5 else -1)
    th = np.deg2rad(rotation + skew)
    c, s = np.cos(th), np.sin(th)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    tilt = np.deg2rad(rng.uniform(*cond.tilt_deg))
    phi = rng.uniform(0, np.pi)
    cp, sp = np.cos(phi), np.sin(phi)
    r_phi = np.array([[cp, -sp, 0], [sp, cp, 0], [0, 0, 1]])
    squash = np.diag([1.0, np.cos(tilt), 1.0])
    keystone = np.eye(3)
    keystone[2, :2] = rng.normal(0, 0.0012 * np.sin(tilt) + 1e-5, 2)
    sq = rng.uniform(*cond.squeeze)
    aspect = np.diag([1.0, 1.0 / sq, 1.0]) if rng.random() < 0.5 else np.diag([1.0 / sq, 1.0, 1.0])
    centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    m = np.linalg.inv(centre) @ aspect @ keystone @ r_phi @ squash @ r_phi.T @ rot @ centre
    warped = cv2.warpPerspective(canvas, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    wq = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), m).reshape(-1, 2)
    x0, y0 = wq.min(0)
    x1, y1 = wq.max(0)
    bw, bh = x1 - x0, y1 - y0
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    if is_photo and rng.random() < 0.6:  # a photo of any aspect, the tile filling most of it
        cw, ch = bw / rng.uniform(*cond.fill), bh / rng.uniform(*cond.fill)
    else:
        cw = ch = max(bw, bh) / rng.uniform(*cond.fill)
    mx += rng.normal(0, cond.centre_jitter) * cw
    my += rng.normal(0, cond.centre_jitter) * ch
    crop = cv2.getRectSubPix(warped, (max(8, int(cw)), max(8, int(ch))), (float(mx), float(my)))
    crop = _photometric(crop, rng, cond, glossy)
    k = out_px / max(crop.shape[:2])
    crop = cv2.resize(crop, (max(4, round(crop.shape[1] * k)), max(4, round(crop.shape[0] * k))),
                      interpolation=cv2.INTER_AREA)
    tile_long = max(np.linalg.norm(wq[1] - wq[0]), np.linalg.norm(wq[2] - wq[1])) * k
    return _degrade(crop, rng, cond, tile_long)
