"""Rendered training and held-out crops for the tile classifier (numpy/OpenCV only, no torch).

Each sample is one tile as a camera over the table (or a phone photo) would show it, cut out the
way ``vision/decode.py`` expects: the tile roughly centred, filling 70-100 % of the picture, at
about the detail of a 1280x720 whole-table camera (a face is ~26x34 px). Domain randomisation:
set style (ink hue and stroke per suit, wholly-red fives, framed haku, corner numbers, face tint),
tile thickness with the two-layer side wall on any side, back colours, felt and other backgrounds,
neighbours intruding, drop shadows, camera tilt up to ~45 degrees (perspective), rotation
0/90/180/270 plus a small skew, scale, lighting gradients, shadow bands, glare, colour casts,
fingers, resolution loss, blur, noise and JPEG.

The held-out set uses other seeds and other parameters (``HELDOUT``: back colours, felt hues and
light levels the training set never used), so its accuracy says something about generalisation.
:func:`evaluate_heldout` runs the shipped model on it and returns the figures for the model card
and ``bench/vision.py``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import cv2
import numpy as np

from controller.rules.tiles import ALL_TILES
from hardware.sim import tile_art
from vision.decode import CLASSES, INPUT_SIZE, ROTATIONS, prep_one

HARD_PAIRS: tuple[tuple[str, str], ...] = (
    ("4p", "5p"), ("5p", "6p"), ("4p", "6p"), ("7s", "9s"),
    ("5m", "0m"), ("5p", "0p"), ("5s", "0s"), ("1s", "5f"), ("5z", "back"),
)


@dataclass(frozen=True)
class RenderParams:
    """Ranges the renderer draws from. Angles in degrees, fractions of 1."""

    tilt_max_deg: float = 45.0
    skew_max_deg: float = 8.0
    fill: tuple[float, float] = (0.68, 1.12)  # >1: the crop cuts the tile's edges (a tight slot)
    back_colours: tuple[str, ...] = ("blue", "green", "yellow", "orange", "red", "black", "navy")
    felt_hues: tuple[float, float] = (0.0, 180.0)   # OpenCV hue range of the felt
    light: tuple[float, float] = (0.6, 1.3)
    p_neighbours: float = 0.75
    p_finger: float = 0.12
    p_glare: float = 0.25
    p_shadow: float = 0.35
    p_photo: float = 0.3        # a phone-photo-like crop: other backgrounds, bigger detail, any aspect
    p_any_back: float = 0.0     # chance a set's back is any colour rather than one of back_colours
    p_artwork_style: float = 0.0  # chance a set looks exactly like the artwork (the scene renderer's default)
    centre_jitter: float = 0.04   # crop centre offset, fraction of the crop side (standard deviation)
    jpeg_quality: tuple[int, int] = (35, 95)
    noise_max: float = 9.0


TRAIN = RenderParams(p_any_back=0.5, p_artwork_style=0.2, centre_jitter=0.06)
HELDOUT = RenderParams(
    tilt_max_deg=40.0, skew_max_deg=6.0, fill=(0.72, 0.98),
    back_colours=("teal", "pink", "purple", "blue", "yellow"),
    felt_hues=(0.0, 180.0), light=(0.6, 1.25), jpeg_quality=(45, 90), noise_max=7.0,
)
MIN_FELT_CONTRAST = 70.0  # BGR distance between the felt and the tile backs
HELDOUT_SEED = 990_001  # training seeds are small integers; this range is never used for training

_SKIN = [(140, 170, 225), (110, 140, 200), (80, 110, 170), (60, 80, 120), (160, 190, 235)]


# --------------------------------------------------------------------------- backgrounds

_NOISE_BANK: list[np.ndarray] = []


def _noise(rng: np.random.Generator, size: int) -> np.ndarray:
    """A ``size`` x ``size`` x 3 patch of unit Gaussian noise, cut from a fixed bank (drawing it is slow)."""
    if not _NOISE_BANK:
        _NOISE_BANK.append(np.random.default_rng(12345).standard_normal((512, 512, 3), np.float32))
    bank = _NOISE_BANK[0]
    y, x = rng.integers(0, bank.shape[0] - size, 2)
    patch = bank[y:y + size, x:x + size]
    return patch[::-1] if rng.random() < 0.5 else patch


def _felt(rng: np.random.Generator, size: int, params: RenderParams, avoid: tuple = ()) -> np.ndarray:
    """A table surface. Its colour keeps ``MIN_FELT_CONTRAST`` away from the ``avoid`` colours (the
    set's backs): a back on a felt of its own colour cannot be told from an empty slot in a crop."""
    for _ in range(20):
        kind = rng.random()
        if kind < 0.7:  # table felt: a saturated, not too bright cloth
            hue = rng.uniform(*params.felt_hues)
            hsv = np.array([[[hue, rng.uniform(60, 230), rng.uniform(50, 190)]]], np.float32)
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


def _random_tile(rng: np.random.Generator) -> str:
    return ALL_TILES[int(rng.integers(len(ALL_TILES)))]


# --------------------------------------------------------------------------- one tile body


@dataclass
class _Body:
    img: np.ndarray        # BGRA
    face_quad: np.ndarray  # 4x2 corners of the top (face/back) inside img


def _body(label: str, fw: int, fh: int, t: int, side: str, back: str | tuple, style, rng) -> _Body:
    face_up = label != "back"
    img = tile_art.tile_body_topdown(label if face_up else "back", fw, fh, thickness_px=t, side=side,
                                     back_colour=back, style=style, face_layer=float(rng.uniform(0.3, 0.7)))
    ox = t if side == "left" else 0
    oy = t if side == "top" else 0
    quad = np.float32([[ox, oy], [ox + fw, oy], [ox + fw, oy + fh], [ox, oy + fh]])
    return _Body(img, quad)


def _place(canvas: np.ndarray, body: _Body, cx: float, cy: float, quarter_turns: int,
           shadow: float) -> np.ndarray:
    """Paste a body (optionally turned 90 degrees k times) with its face centred at (cx, cy); return face quad."""
    img = np.ascontiguousarray(np.rot90(body.img, -quarter_turns)) if quarter_turns % 4 else body.img
    h0, w0 = body.img.shape[:2]
    q = body.face_quad.copy()
    for _ in range(quarter_turns % 4):  # clockwise quarter turn of points: (x, y) -> (h - y, x)
        q = np.stack([h0 - q[:, 1], q[:, 0]], axis=1)
        h0, w0 = w0, h0
    fc = q.mean(0)
    x0, y0 = cx - fc[0], cy - fc[1]
    h, w = img.shape[:2]
    dst = np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
    if shadow > 0:  # soft drop shadow down-right of the body
        sh = np.zeros_like(img)
        sh[:, :, 3] = (img[:, :, 3].astype(np.float32) * shadow).astype(np.uint8)
        sh = cv2.GaussianBlur(sh, (0, 0), 2.0)
        off = max(1.0, 0.06 * w)
        tile_art.blit(canvas, sh, dst + np.float32([off, off]))
    tile_art.blit(canvas, img, dst)
    return q + np.float32([x0, y0])


def _finger(canvas: np.ndarray, rng: np.random.Generator, cx: float, cy: float, reach: float,
            width_px: float) -> None:
    """A finger (skin-coloured capsule) coming in from an edge towards (cx, cy), stopping ``reach`` short."""
    ang = rng.uniform(0, 2 * np.pi)
    d = np.array([np.cos(ang), np.sin(ang)])
    tip = np.array([cx, cy]) + d * reach
    base = tip + d * canvas.shape[0]
    width = max(2, int(width_px * rng.uniform(0.7, 1.2)))
    col = np.array(_SKIN[int(rng.integers(len(_SKIN)))], float) + rng.normal(0, 10, 3)
    layer = canvas.copy()
    cv2.line(layer, tuple(int(v) for v in tip), tuple(int(v) for v in base), col.tolist(), width, cv2.LINE_AA)
    cv2.circle(layer, tuple(int(v) for v in tip), width // 2, col.tolist(), -1, cv2.LINE_AA)
    canvas[:] = layer


# --------------------------------------------------------------------------- photometric


def _photometric(img: np.ndarray, rng: np.random.Generator, params: RenderParams) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    gain = rng.uniform(*params.light) * (1 + rng.normal(0, 0.07, 3))  # brightness and colour cast
    f *= gain[None, None, :]
    if rng.random() < 0.5:  # felt-coloured tint bounced onto everything
        tint = f.reshape(-1, 3).mean(0)
        f = f * (1 - 0.12) + tint * 0.12 * rng.uniform(0, 1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(ang) * (xx - w / 2) + np.sin(ang) * (yy - h / 2)) / max(h, w)
    f *= (1 + rng.uniform(0, 0.5) * ramp)[:, :, None]
    if rng.random() < params.p_shadow:  # a soft shadow band (a hand, a neighbour stack)
        ang = rng.uniform(0, 2 * np.pi)
        dist = np.cos(ang) * (xx - w / 2) + np.sin(ang) * (yy - h / 2) - rng.uniform(-0.4, 0.5) * w
        soft = 1 / (1 + np.exp(-dist / max(1.0, rng.uniform(1, 0.15 * w))))
        f *= (1 - rng.uniform(0.15, 0.45) * soft)[:, :, None]
    if rng.random() < params.p_glare:  # specular glare on the glossy face
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.05, 0.2) * w
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2 * rng.uniform(0.3, 3)) / (2 * s * s))
        f += (rng.uniform(30, 110) * blob)[:, :, None]
    return np.clip(f, 0, 255).astype(np.uint8)


def _degrade(img: np.ndarray, rng: np.random.Generator, params: RenderParams) -> np.ndarray:
    s = img.shape[0]
    if rng.random() < 0.5:  # resolution loss: a coarser camera, then upscaled
        k = rng.uniform(0.7, 0.95)
        small = cv2.resize(img, (max(8, int(s * k)), max(8, int(s * k))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (s, s), interpolation=cv2.INTER_LINEAR)
    r = rng.random()
    if r < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    elif r < 0.45:  # motion blur
        n = int(rng.integers(2, 4))
        k = np.zeros((n, n), np.float32)
        if rng.random() < 0.5:
            k[n // 2, :] = 1 / n
        else:
            k[:, n // 2] = 1 / n
        img = cv2.filter2D(img, -1, k)
    sigma = rng.uniform(0, params.noise_max)
    img = np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        q = int(rng.integers(*params.jpeg_quality))
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


# --------------------------------------------------------------------------- one sample


def render_sample(label: str, rotation: int, rng: np.random.Generator, *, style: tile_art.TileStyle,
                  backs: tuple, params: RenderParams = TRAIN) -> np.ndarray:
    """One crop of ``label`` (a class of ``CLASSES``) turned ``rotation`` degrees clockwise.

    ``backs`` are the two set colours of the table. Returns a BGR uint8 crop of any aspect, ready
    for :func:`vision.decode.prep_one`.
    """
    size = 220
    canvas = _felt(rng, size, params, avoid=backs)
    is_photo = rng.random() < params.p_photo
    fw = int(rng.uniform(44, 60))
    fh = int(fw * rng.uniform(1.25, 1.42))
    t = int(fw * rng.uniform(0.0, 0.45)) if rng.random() < 0.85 else 0
    side = ("bottom", "top", "left", "right")[int(rng.integers(4))]
    cx = cy = size / 2
    set_back = backs[int(rng.integers(2))]
    shadow = rng.uniform(0.2, 0.6)
    gap = fw * rng.uniform(0.0, 0.18)

    # neighbours first (the target is drawn over them): a river/wall row, maybe rows above/below
    if rng.random() < params.p_neighbours and not (is_photo and rng.random() < 0.7):
        is_wall = label == "back" and rng.random() < 0.6
        for dx, dy in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)]:
            if rng.random() < (0.75 if dy == 0 else 0.35):
                nl = "back" if (is_wall or rng.random() < 0.15) else _random_tile(rng)
                sideways = rng.random() < 0.12
                ox = dx * (fw + gap + (fh - fw) * sideways * 0.5 + (0 if not is_wall else -gap))
                oy = dy * (fh + t + fw * rng.uniform(0.05, 0.3))
                if label == "none" and dx == 0 and dy == 0:
                    continue
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
            strip = np.ascontiguousarray(tile_art.tile_body_topdown(
                "back", fw, 4, thickness_px=th_px, back_colour=set_back)[4:])
            strip[:, :, 3] = 255
            tile_art.blit(canvas, strip, quad[[0, 1, 1, 0]] + np.float32([[0, 0], [0, 0], [0, th_px], [0, th_px]]))
        elif r < 0.4:  # clutter: random blobs and lines
            for _ in range(int(rng.integers(1, 5))):
                col = rng.integers(0, 255, 3).tolist()
                p = rng.uniform(cx - fw, cx + fw, 2).astype(int)
                cv2.circle(canvas, tuple(int(v) for v in p), int(rng.uniform(3, fw / 2)), col, -1, cv2.LINE_AA)
    else:
        body = _body(label, fw, fh, t, side, set_back, style, rng)
        quad = _place(canvas, body, cx, cy, 0, shadow)
        if rng.random() < params.p_finger:
            # a finger at the tile's edge, not over the glyph: a covered numeral is no longer a label
            _finger(canvas, rng, cx, cy, 0.5 * fh * rng.uniform(0.95, 1.2), fw * 0.5)

    # camera: rotation k*90 clockwise, small skew, tilt (foreshortening along a random axis + keystone)
    k = ROTATIONS.index(rotation)
    th = np.deg2rad(90 * k + rng.uniform(-params.skew_max_deg, params.skew_max_deg))
    c, s = np.cos(th), np.sin(th)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    tilt = np.deg2rad(rng.uniform(0, params.tilt_max_deg))
    phi = rng.uniform(0, np.pi)
    cp, sp = np.cos(phi), np.sin(phi)
    r_phi = np.array([[cp, -sp, 0], [sp, cp, 0], [0, 0, 1]])
    squash = np.diag([1.0, np.cos(tilt), 1.0])
    keystone = np.eye(3)
    keystone[2, :2] = rng.normal(0, 0.0012 * np.sin(tilt) + 1e-5, 2)
    centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    m = np.linalg.inv(centre) @ keystone @ r_phi @ squash @ r_phi.T @ rot @ centre
    warped = cv2.warpPerspective(canvas, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    wq = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), m).reshape(-1, 2)

    x0, y0 = wq.min(0)
    x1, y1 = wq.max(0)
    bw, bh = x1 - x0, y1 - y0
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    if is_photo and rng.random() < 0.6:  # a photo of any aspect, the tile filling most of it
        cw = bw / rng.uniform(*params.fill)
        ch = bh / rng.uniform(*params.fill)
    else:
        cw = ch = max(bw, bh) / rng.uniform(*params.fill)
    mx += rng.normal(0, params.centre_jitter) * cw
    my += rng.normal(0, params.centre_jitter) * ch
    crop = cv2.getRectSubPix(warped, (max(8, int(cw)), max(8, int(ch))), (float(mx), float(my)))
    crop = _photometric(crop, rng, params)
    if is_photo and rng.random() < 0.5:  # phone photos keep more detail than the table camera
        return _degrade(prep_one(crop, 64), rng, params)
    return _degrade(prep_one(crop, INPUT_SIZE), rng, params)


# --------------------------------------------------------------------------- sets


def class_weights() -> np.ndarray:
    """Sampling weight per class: ``none`` and ``back`` come up more (they vary most)."""
    w = np.ones(len(CLASSES))
    w[CLASSES.index("none")] = 2.5
    w[CLASSES.index("back")] = 1.5
    return w / w.sum()


def render_set(n: int, seed: int, params: RenderParams = TRAIN, group: int = 64
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` crops -> (images uint8 ``(n, S, S, 3)``, class index, rotation index). One style per group."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(len(CLASSES), size=n, p=class_weights())
    rots = rng.integers(0, 4, size=n)
    xs = np.zeros((n, INPUT_SIZE, INPUT_SIZE, 3), np.uint8)
    style = None
    backs: tuple = ()
    for i in range(n):
        if i % group == 0:
            style = tile_art.random_style(rng)
            if rng.random() < params.p_artwork_style:
                style = tile_art.with_style(tile_art.DEFAULT_STYLE, stroke_px=style.stroke_px,
                                            glyph_scale=style.glyph_scale)
            backs = _set_backs(rng, params)
        crop = render_sample(CLASSES[labels[i]], ROTATIONS[rots[i]], rng, style=style, backs=backs,
                             params=params)
        xs[i] = prep_one(crop)
    return xs, labels.astype(np.int64), rots.astype(np.int64)


def render_labels(labels: list[str], rotations: list[int], seed: int, params: RenderParams = HELDOUT,
                  group: int = 8) -> np.ndarray:
    """Crops of exactly these classes at these rotations (degrees), ``(n, S, S, 3)`` uint8; for tests."""
    rng = np.random.default_rng(seed)
    xs = np.zeros((len(labels), INPUT_SIZE, INPUT_SIZE, 3), np.uint8)
    style, backs = None, ()
    for i, (label, rot) in enumerate(zip(labels, rotations, strict=True)):
        if i % group == 0:
            style = tile_art.random_style(rng)
            backs = _set_backs(rng, params)
        xs[i] = prep_one(render_sample(label, rot, rng, style=style, backs=backs, params=params))
    return xs


def _set_backs(rng: np.random.Generator, params: RenderParams) -> tuple:
    """The two back colours of a table's two sets."""
    pick = rng.choice(len(params.back_colours), size=2, replace=False)
    backs = [_jitter_colour(tile_art.BACK_COLOURS[params.back_colours[j]], rng) for j in pick]
    for i in range(2):
        if rng.random() < params.p_any_back:
            hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(60, 255), rng.uniform(40, 240)]]])
            backs[i] = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    return tuple(backs)


def _jitter_colour(bgr: tuple[int, int, int], rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.clip(np.array(bgr) + rng.normal(0, 18, 3), 0, 255))


def symmetric_180(threshold: float = 15.0) -> frozenset[str]:
    """Tiles whose glyph looks (nearly) the same upside down in the artwork, so 0 and 180 are one answer."""
    out = set()
    for tile in ALL_TILES:
        if tile == "5z":
            out.add(tile)
            continue
        g = tile_art._styled_glyph(tile, tile_art.DEFAULT_STYLE)
        img = g[:, :, :3] * g[:, :, 3:] + (1 - g[:, :, 3:])
        img = cv2.resize(img, (30, 40), interpolation=cv2.INTER_AREA)
        if np.abs(img - img[::-1, ::-1]).mean() * 255 < threshold:
            out.add(tile)
    # bamboo fives and sixes are symmetric in most physical sets; the artwork differs only by ink colour
    out |= {"5s", "0s", "6s"}
    return frozenset(out)


# --------------------------------------------------------------------------- evaluation


def confusion_report(true: np.ndarray, pred: np.ndarray, rot_true: np.ndarray | None = None,
                     rot_pred: list | None = None) -> tuple[float, str]:
    """Top-1 accuracy and a text report: hard pairs, the most common confusions, per-class misses."""
    true = np.asarray(true)
    pred = np.asarray(pred)
    acc = float((true == pred).mean()) if len(true) else 0.0
    lines = [f"samples={len(true)} top1_accuracy={acc:.4f}"]
    confusions = Counter((CLASSES[a], CLASSES[b]) for a, b in zip(true, pred, strict=True) if a != b)
    lines.append("hard pairs (true->predicted counts, both directions):")
    for a, b in HARD_PAIRS:
        n_a = int((true == CLASSES.index(a)).sum())
        n_b = int((true == CLASSES.index(b)).sum())
        lines.append(f"  {a}<->{b}: {a}->{b} {confusions[(a, b)]}/{n_a}, {b}->{a} {confusions[(b, a)]}/{n_b}")
    red = plain = n_red = 0
    for r, p5 in (("0m", "5m"), ("0p", "5p"), ("0s", "5s")):
        red += confusions[(r, p5)] + confusions[(p5, r)]
        n_red += int((true == CLASSES.index(r)).sum() + (true == CLASSES.index(p5)).sum())
        plain += 0
    lines.append(f"  red<->plain fives: {red} confused of {n_red}")
    lines.append("most common confusions: " + (", ".join(f"{a}->{b} x{n}" for (a, b), n in
                                                         confusions.most_common(12)) or "none"))
    if rot_true is not None and rot_pred is not None:
        sym = symmetric_180()
        ok = total = 0
        for t, rt, rp, p in zip(true, rot_true, rot_pred, pred, strict=True):
            name = CLASSES[t]
            if name == "none" or p != t or rp is None:
                continue
            want = ROTATIONS[rt]
            if name in sym or name == "back":
                want %= 180
                rp %= 180
            ok += int(want == rp)
            total += 1
        lines.append(f"rotation accuracy (correct tiles, 0/180 folded for symmetric faces): "
                     f"{ok / max(total, 1):.4f} of {total}")
    return acc, "\n".join(lines)


def heldout_set(n: int, seed: int = HELDOUT_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The held-out rendered set: unseen seeds and parameters (``HELDOUT``)."""
    return render_set(n, seed, HELDOUT, group=32)


def evaluate_heldout(n: int = 2000, *, seed: int = HELDOUT_SEED, classifier=None) -> tuple[float, str]:
    """Run the shipped model (or ``classifier``) on ``n`` held-out crops: (top-1 accuracy, report text)."""
    if classifier is None:
        from vision.classifier import OnnxTileClassifier
        classifier = OnnxTileClassifier()
    xs, ys, rs = heldout_set(n, seed)
    guesses = []
    for i in range(0, n, 256):
        guesses.extend(classifier.classify(list(xs[i:i + 256])))
    pred = np.array([CLASSES.index(g.best or g.tile) for g in guesses])
    acc, report = confusion_report(ys, pred, rs, [g.rotation for g in guesses])
    answered = np.array([CLASSES.index(g.tile) for g in guesses])
    report += f"\nanswer accuracy (low-confidence answers turned to none): {float((answered == ys).mean()):.4f}"
    return acc, report


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.train_data [N] [--model FILE]``: print the held-out accuracy and confusion report."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m vision.train_data", description=main.__doc__)
    ap.add_argument("n", type=int, nargs="?", default=4000, help="held-out crops to render (default 4000)")
    ap.add_argument("--model", default=None, help="ONNX model (default: the shipped one)")
    args = ap.parse_args(argv)
    from vision.classifier import DEFAULT_MODEL, OnnxTileClassifier

    _acc, report = evaluate_heldout(args.n, classifier=OnnxTileClassifier(args.model or DEFAULT_MODEL))
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
