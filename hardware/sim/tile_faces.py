"""Procedural tile faces: the standard layouts of circles and bamboo, characters and honours in CJK fonts.

A :class:`FaceDesign` names one way of drawing a whole set: the font of the characters and
honours (brush, Mincho, Kaiti, Gothic faces from Debian's font packages), how a circle and a
bamboo stick are drawn (filled, segmented, beads or outlined), the 1s bird, the colour scheme (and whether
the character tiles are in one ink or carry a red 萬), the simplified or traditional forms.
``kind="unicode"`` designs draw the Mahjong Tiles block (U+1F000..) of Noto Sans Symbols2 or
Symbola instead. :func:`glyph` returns the glyph layer of one tile at the artwork's working
resolution (BGRA uint8, 120x160) in the four canonical inks that ``tile_art`` recolours per set
(dark, red, green, blue), so the per-set style (ink hues, stroke weight, scale, shear, face
tint, corner numbers, haku frame) applies to these faces as to the artwork.

Fonts are looked up under ``/usr/share/fonts`` by file name (``FONT_FILES``); a missing font
raises :class:`~hardware.sim.tile_art.TileArtError` naming the Debian package to install
(``./dev setup`` installs them). Pillow draws the text.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

W, H = 120, 160  # tile_art.ART_W, ART_H
DARK, RED, GREEN, BLUE, LIGHT = (60, 25, 15), (40, 40, 190), (40, 125, 25), (150, 70, 20), (240, 242, 245)

# font key -> (file name under /usr/share/fonts, Debian package, face index in a .ttc)
FONT_FILES: dict[str, tuple[str, str, int]] = {
    "kouzan-mouhitsu": ("kouzan-mouhitsu.ttf", "fonts-kouzan-mouhitsu", 0),
    "kouzan-gyosho": ("kouzan-mouhitsu-gyosho.ttf", "fonts-kouzan-mouhitsu", 0),
    "kouzan-sousyo": ("KouzanBrushFontSousyo.ttf", "fonts-kouzan-mouhitsu", 0),
    "aoyagi-kouzan": ("AoyagiKouzanT.ttf", "fonts-aoyagi-kouzan-t", 0),
    "ipa-mincho": ("ipam.ttf", "fonts-ipafont-mincho", 0),
    "ipa-gothic": ("ipag.ttf", "fonts-ipafont-gothic", 0),
    "arphic-uming": ("uming.ttc", "fonts-arphic-uming", 0),
    "arphic-ukai": ("ukai.ttc", "fonts-arphic-ukai", 0),
    "wqy-microhei": ("wqy-microhei.ttc", "fonts-wqy-microhei", 0),
    "wqy-zenhei": ("wqy-zenhei.ttc", "fonts-wqy-zenhei", 0),
    # more training faces for the mixed designs (2026-12-06): Kaiti, bold Hei, round Yuan and Fangsong (cwTeX),
    # Japanese Gothic, rounded Gothic and Mincho faces, and two handwritten ones
    "cwtex-kai": ("cwkai.ttf", "fonts-cwtex-kai", 0),
    "cwtex-heib": ("cwheib.ttf", "fonts-cwtex-heib", 0),
    "cwtex-yen": ("cwyen.ttf", "fonts-cwtex-yen", 0),
    "cwtex-fangsong": ("cwfs.ttf", "fonts-cwtex-fs", 0),
    "motoya-cedar": ("MTLc3m.ttf", "fonts-motoya-l-cedar", 0),
    "motoya-maruberi": ("MTLmr3m.ttf", "fonts-motoya-l-maruberi", 0),
    "vl-gothic": ("VL-Gothic-Regular.ttf", "fonts-vlgothic", 0),
    "sawarabi-mincho": ("sawarabi-mincho-medium.ttf", "fonts-sawarabi-mincho", 0),
    "seto-hand": ("setofont.ttf", "fonts-seto", 0),
    "kiloji-hand": ("kiloji.ttf", "fonts-kiloji", 0),
    "noto-symbols2": ("NotoSansSymbols2-Regular.ttf", "fonts-noto-core", 0),
    "symbola": ("Symbola_hint.ttf", "fonts-symbola", 0),
}
FONT_ROOT = Path("/usr/share/fonts")

KANJI_NUM = "一二三四五六七八九"
WINDS = "東南西北"
FLOWER_CHARS = "梅蘭菊竹春夏秋冬"
# Unicode Mahjong Tiles: 1F000 E S W N, 1F004 chun, 1F005 hatsu, 1F006 haku, 1F007.. 1-9m,
# 1F010.. 1-9s, 1F019.. 1-9p, 1F022 plum orchid bamboo chrysanthemum, 1F026 spring..winter
_UNICODE_FLOWERS = (0x1F022, 0x1F023, 0x1F025, 0x1F024, 0x1F026, 0x1F027, 0x1F028, 0x1F029)


@dataclass(frozen=True)
class FaceDesign:
    """How one set draws its faces (see the module docstring). All fields are names."""

    name: str
    kind: str = "drawn"          # "drawn" | "unicode"
    font: str = "ipa-mincho"     # characters, honours, flowers (drawn) or the Mahjong-block font (unicode)
    fallback_font: str = "wqy-microhei"  # for characters the font lacks
    pip: str = "rings"           # rings | solid | petal | target
    stick: str = "segmented"     # segmented | bar | beads | hollow
    bird: str = "bird"           # bird | peacock | stick
    colours: str = "classic"     # classic | mono | tri
    wan: str = "萬"              # 萬 | 万
    hatsu: str = "發"            # 發 | 发
    five: str = "五"             # 五 | 伍
    red_mark: bool = False       # red fives also carry a small red dot in the corner
    flowers: str = "chars"       # chars | framed
    wan_ink: str = "red"         # red: 萬 in red under the number | ink: the whole character tile in one ink


class FontMissing(FileNotFoundError):
    """A font a design needs is not installed."""


@functools.cache
def font_file(key: str) -> Path:
    """The installed file of font ``key``; raises :class:`FontMissing` naming the package."""
    name, package, _ = FONT_FILES[key]
    hits = sorted(FONT_ROOT.rglob(name))
    if not hits:
        raise FontMissing(f"tile faces: font {name} not found under {FONT_ROOT} "
                          f"(apt-get install {package}, or run ./dev setup)")
    return hits[0]


@functools.lru_cache(maxsize=64)
def _font(key: str, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(font_file(key)), px, index=FONT_FILES[key][2])


@functools.lru_cache(maxsize=2048)
def _text_mask(text: str, key: str, fallback: str = "") -> np.ndarray:
    """``text`` drawn large in font ``key`` (``fallback`` for characters it lacks), cut to its ink: float 0..1."""
    from PIL import Image, ImageDraw

    px = 160
    out = []
    for ch in text:
        for k in (key, fallback) if fallback else (key,):
            f = _font(k, px)
            img = Image.new("L", (px * 2, px * 2), 0)
            ImageDraw.Draw(img).text((px // 4, px // 4), ch, font=f, fill=255)
            a = np.asarray(img, np.float32) / 255.0
            if a.sum() > 20 and not _is_notdef(a, k):
                break
        else:
            raise FontMissing(f"tile faces: no installed font draws {ch!r} ({key}, {fallback})")
        out.append(_trim(a))
    if len(out) == 1:
        return out[0]
    h = max(m.shape[0] for m in out)
    return np.hstack([cv2.resize(m, (max(1, int(m.shape[1] * h / m.shape[0])), h)) for m in out])


@functools.lru_cache(maxsize=32)
def _notdef(key: str) -> np.ndarray:
    from PIL import Image, ImageDraw

    img = Image.new("L", (320, 320), 0)
    ImageDraw.Draw(img).text((40, 40), "\uffff", font=_font(key, 160), fill=255)
    return _trim(np.asarray(img, np.float32) / 255.0)


def _is_notdef(a: np.ndarray, key: str) -> bool:
    t, nd = _trim(a), _notdef(key)
    return t.shape == nd.shape and float(np.abs(t - nd).mean()) < 0.01


def _trim(a: np.ndarray) -> np.ndarray:
    ys, xs = np.where(a > 0.05)
    if len(ys) == 0:
        return a[:1, :1]
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


class _Canvas:
    """A 120x160 glyph layer being drawn: colour and coverage."""

    def __init__(self) -> None:
        self.bgr = np.zeros((H, W, 3), np.float32)
        self.a = np.zeros((H, W), np.float32)

    def paint(self, mask: np.ndarray, colour) -> None:
        m = np.clip(mask, 0, 1)[:, :, None]
        self.bgr = self.bgr * (1 - m) + np.array(colour, np.float32) * m
        self.a = np.maximum(self.a, m[:, :, 0])

    def shape(self, draw, colour) -> None:
        """``draw(mask_u8)`` draws white shapes with OpenCV; paint them in ``colour``."""
        m = np.zeros((H * 4, W * 4), np.uint8)  # 4x supersampling for smooth edges
        draw(m)
        self.paint(cv2.resize(m, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0, colour)

    def text(self, mask: np.ndarray, box: tuple[float, float, float, float], colour, keep_aspect=True) -> None:
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        h, w = mask.shape
        if keep_aspect:
            s = min(bw / w, bh / h)
            tw, th = max(1, int(w * s)), max(1, int(h * s))
        else:
            tw, th = max(1, int(bw)), max(1, int(bh))
        small = cv2.resize(mask, (tw, th), interpolation=cv2.INTER_AREA)
        full = np.zeros((H, W), np.float32)
        ox, oy = int(x0 + (bw - tw) / 2), int(y0 + (bh - th) / 2)
        full[oy:oy + th, ox:ox + tw] = small[:max(0, min(th, H - oy)), :max(0, min(tw, W - ox))]
        self.paint(full, colour)

    def layer(self) -> np.ndarray:
        out = np.zeros((H, W, 4), np.uint8)
        out[:, :, :3] = np.clip(self.bgr + 0.5, 0, 255).astype(np.uint8)
        out[:, :, 3] = np.clip(self.a * 255 + 0.5, 0, 255).astype(np.uint8)
        return out


def _s(v: float) -> int:  # art px -> supersampled int
    return int(round(v * 4))


# --------------------------------------------------------------------------- circles

_PIN_LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.26), (0.5, 0.74)],
    3: [(0.24, 0.2), (0.5, 0.5), (0.76, 0.8)],
    4: [(0.28, 0.27), (0.72, 0.27), (0.28, 0.73), (0.72, 0.73)],
    5: [(0.26, 0.22), (0.74, 0.22), (0.5, 0.5), (0.26, 0.78), (0.74, 0.78)],
    6: [(0.3, 0.17), (0.7, 0.17), (0.3, 0.55), (0.7, 0.55), (0.3, 0.85), (0.7, 0.85)],
    7: [(0.2, 0.12), (0.5, 0.22), (0.8, 0.32), (0.3, 0.58), (0.7, 0.58), (0.3, 0.86), (0.7, 0.86)],
    8: [(0.3, 0.12), (0.7, 0.12), (0.3, 0.37), (0.7, 0.37), (0.3, 0.63), (0.7, 0.63), (0.3, 0.88), (0.7, 0.88)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}
_PIN_R = {1: 0.42, 2: 0.2, 3: 0.16, 4: 0.2, 5: 0.17, 6: 0.15, 7: 0.13, 8: 0.12, 9: 0.15}


def _pin_colours(n: int, scheme: str, red: bool) -> list:
    if red:
        return [RED] * n
    if scheme == "mono":
        return [BLUE] * n
    if scheme == "tri":
        return [(BLUE, RED, GREEN)[i % 3] for i in range(n)]
    return {
        1: [RED], 2: [GREEN, BLUE], 3: [BLUE, RED, GREEN], 4: [BLUE, GREEN, GREEN, BLUE],
        5: [BLUE, GREEN, RED, GREEN, BLUE], 6: [GREEN, GREEN, RED, RED, RED, RED],
        7: [GREEN] * 3 + [RED] * 4, 8: [BLUE] * 8, 9: [BLUE] * 3 + [RED] * 3 + [GREEN] * 3,
    }[n]


def _circle(c: _Canvas, cx: float, cy: float, r: float, colour, style: str) -> None:
    def disc(rad, col):
        c.shape(lambda m: cv2.circle(m, (_s(cx), _s(cy)), max(1, _s(rad)), 255, -1, cv2.LINE_AA), col)

    if style == "solid":
        disc(r, colour)
        disc(r * 0.3, LIGHT)
    elif style == "petal":
        disc(r, colour)
        for k in range(8):
            ang = k * np.pi / 4
            c.shape(lambda m, ang=ang: cv2.circle(m, (_s(cx + 0.62 * r * np.cos(ang)), _s(cy + 0.62 * r * np.sin(ang))),
                                                   max(1, _s(r * 0.16)), 255, -1, cv2.LINE_AA), LIGHT)
        disc(r * 0.28, LIGHT)
        disc(r * 0.14, colour)
    elif style == "target":
        disc(r, colour)
        disc(r * 0.72, LIGHT)
        disc(r * 0.45, colour)
    else:  # rings
        disc(r, colour)
        disc(r * 0.8, LIGHT)
        disc(r * 0.66, colour)
        disc(r * 0.36, LIGHT)
        disc(r * 0.2, colour)


def _pins(c: _Canvas, n: int, d: FaceDesign, red: bool, box) -> None:
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    r = _PIN_R[n] * min(bw, bh * 0.75)
    for (u, v), col in zip(_PIN_LAYOUT[n], _pin_colours(n, d.colours, red), strict=True):
        _circle(c, x0 + u * bw, y0 + v * bh, r, col, d.pip)
    if n == 1:  # the big 1p: an ornament ring
        for k in range(12):
            ang = k * np.pi / 6
            cx, cy = x0 + bw / 2 + 0.86 * r * np.cos(ang), y0 + bh / 2 + 0.86 * r * np.sin(ang)
            c.shape(lambda m, cx=cx, cy=cy: cv2.circle(m, (_s(cx), _s(cy)), _s(r * 0.09), 255, -1, cv2.LINE_AA),
                    LIGHT)


# --------------------------------------------------------------------------- bamboo

_STICK_LAYOUT = {
    2: [(0.5, 0.25), (0.5, 0.75)],
    3: [(0.5, 0.25), (0.28, 0.75), (0.72, 0.75)],
    4: [(0.28, 0.25), (0.72, 0.25), (0.28, 0.75), (0.72, 0.75)],
    5: [(0.22, 0.25), (0.78, 0.25), (0.5, 0.5), (0.22, 0.75), (0.78, 0.75)],
    6: [(x, y) for y in (0.25, 0.75) for x in (0.2, 0.5, 0.8)],
    7: [(0.5, 0.16)] + [(x, y) for y in (0.5, 0.84) for x in (0.2, 0.5, 0.8)],
    8: [(x, y) for y in (0.25, 0.75) for x in (0.14, 0.38, 0.62, 0.86)],
    9: [(x, y) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)],
}


def _stick_colours(n: int, scheme: str, red: bool) -> list:
    if red:
        return [RED] * n
    if scheme == "mono":
        return [GREEN] * n
    if scheme == "tri":
        return [(GREEN, BLUE, GREEN, RED)[i % 4] for i in range(n)]
    return {
        2: [GREEN, BLUE], 3: [BLUE, GREEN, GREEN], 4: [GREEN, BLUE, BLUE, GREEN],
        5: [GREEN, BLUE, RED, BLUE, GREEN], 6: [GREEN] * 3 + [BLUE] * 3, 7: [RED] + [GREEN] * 6,
        8: [GREEN] * 8, 9: [GREEN, RED, BLUE] * 3,
    }[n]


def _stick(c: _Canvas, cx: float, cy: float, w: float, h: float, ang: float, colour, style: str) -> None:
    def rect(ww, hh, col):
        box = cv2.boxPoints(((_s(cx), _s(cy)), (_s(ww), _s(hh)), ang)).astype(np.int32)
        c.shape(lambda m: cv2.fillPoly(m, [box], 255, cv2.LINE_AA), col)

    if style == "beads":  # three stacked ovals
        for k in (-1, 0, 1):
            dx, dy = -np.sin(np.radians(ang)) * k * h / 3, np.cos(np.radians(ang)) * k * h / 3
            c.shape(lambda m, dx=dx, dy=dy: cv2.ellipse(m, (_s(cx + dx), _s(cy + dy)), (_s(w / 2), _s(h / 6.4)), ang,
                                                         0, 360, 255, -1, cv2.LINE_AA), colour)
        return
    rect(w, h, colour)
    if style == "segmented":
        rect(w * 0.28, h * 0.86, LIGHT)
    elif style == "hollow":  # an outlined stick, as engraved one-line sets draw it
        rect(w * 0.62, h * 0.92, LIGHT)
    for k in (-1, 1):  # nodes
        dx, dy = -np.sin(np.radians(ang)) * k * h * 0.18, np.cos(np.radians(ang)) * k * h * 0.18
        box = cv2.boxPoints(((_s(cx + dx), _s(cy + dy)), (_s(w * 1.25), _s(h * 0.07)), ang)).astype(np.int32)
        c.shape(lambda m, box=box: cv2.fillPoly(m, [box], 255, cv2.LINE_AA), colour)


def _bamboo(c: _Canvas, n: int, d: FaceDesign, red: bool, box) -> None:
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    rows = 3 if n in (7, 9) else 2
    h = bh / rows * 0.86
    w = min(bw / (4 if n == 8 else 3) * 0.55, h * 0.32)
    for i, ((u, v), col) in enumerate(zip(_STICK_LAYOUT[n], _stick_colours(n, d.colours, red), strict=True)):
        ang = 0.0
        if n == 8 and i % 4 in (1, 2):  # the 8s: the middle sticks lean into an M over a W
            ang = (22 if (i % 4 == 1) == (i < 4) else -22)
        _stick(c, x0 + u * bw, y0 + v * bh, w, h, ang, col, d.stick)


def _bird(c: _Canvas, d: FaceDesign, red: bool, box) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bw, bh = x1 - x0, y1 - y0
    body = RED if red else GREEN
    if d.bird == "stick":  # one tall ornate stick
        _stick(c, cx, cy, bw * 0.28, bh * 0.9, 0, body, d.stick)
        c.shape(lambda m: cv2.circle(m, (_s(cx), _s(y0 + bh * 0.12)), _s(bw * 0.14), 255, -1, cv2.LINE_AA), RED)
        return
    if d.bird == "peacock":  # a fan of tail feathers behind a small body
        for k in range(7):
            ang = np.radians(-150 + k * 20)
            ex, ey = cx + 0.42 * bw * np.cos(ang), cy - 0.05 * bh + 0.4 * bh * np.sin(ang)
            c.shape(lambda m, ex=ex, ey=ey: cv2.line(m, (_s(cx), _s(cy + bh * 0.2)), (_s(ex), _s(ey)), 255, _s(3),
                                                     cv2.LINE_AA), body)
            c.shape(lambda m, ex=ex, ey=ey: cv2.circle(m, (_s(ex), _s(ey)), _s(bw * 0.07), 255, -1, cv2.LINE_AA),
                    BLUE)
    else:  # a perched bird: tail down-left, head up-right
        for k in range(3):
            c.shape(lambda m, k=k: cv2.line(m, (_s(cx - bw * 0.05), _s(cy + bh * 0.1)),
                                            (_s(x0 + bw * (0.05 + 0.12 * k)), _s(y1 - bh * 0.02)), 255, _s(4),
                                            cv2.LINE_AA), BLUE)
    c.shape(lambda m: cv2.ellipse(m, (_s(cx), _s(cy + bh * 0.08)), (_s(bw * 0.22), _s(bh * 0.16)), -30, 0, 360, 255,
                                  -1, cv2.LINE_AA), body)
    c.shape(lambda m: cv2.circle(m, (_s(cx + bw * 0.16), _s(cy - bh * 0.16)), _s(bw * 0.11), 255, -1,
                                 cv2.LINE_AA), body)
    c.shape(lambda m: cv2.fillPoly(m, [np.int32([[_s(cx + bw * 0.25), _s(cy - bh * 0.18)],
                                                  [_s(cx + bw * 0.4), _s(cy - bh * 0.12)],
                                                  [_s(cx + bw * 0.25), _s(cy - bh * 0.1)]])], 255, cv2.LINE_AA), RED)
    c.shape(lambda m: cv2.circle(m, (_s(cx + bw * 0.18), _s(cy - bh * 0.18)), _s(bw * 0.03), 255, -1,
                                 cv2.LINE_AA), LIGHT)


# --------------------------------------------------------------------------- whole faces

BOX = (12.0, 14.0, 108.0, 146.0)  # the glyph area on the 120x160 face


def _drawn(tile: str, d: FaceDesign) -> np.ndarray:
    c = _Canvas()
    n, suit = int(tile[0]), tile[1]
    red = n == 0
    n = 5 if red else n
    font, fb = d.font, d.fallback_font
    x0, y0, x1, y1 = BOX
    if suit == "p":
        _pins(c, n, d, red, BOX)
    elif suit == "s":
        if n == 1:
            _bird(c, d, red, BOX)
        else:
            _bamboo(c, n, d, red, BOX)
    elif suit == "m":
        num = d.five if n == 5 else KANJI_NUM[n - 1]
        ink = RED if red else DARK
        c.text(_text_mask(num, font, fb), (x0 + 8, y0, x1 - 8, y0 + 0.45 * (y1 - y0)), ink)
        c.text(_text_mask(d.wan, font, fb), (x0, y0 + 0.48 * (y1 - y0), x1, y1), RED if d.wan_ink == "red" else ink)
    elif suit == "z":
        if n <= 4:
            c.text(_text_mask(WINDS[n - 1], font, fb), BOX, DARK if d.colours != "tri" else BLUE)
        elif n == 6:
            c.text(_text_mask(d.hatsu, font, fb), BOX, GREEN)
        elif n == 7:
            c.text(_text_mask("中", font, fb), BOX, RED)
        # 5z (haku) is drawn by tile_art: blank, or a frame in the set's style
    else:  # flowers and seasons: the name's character, the number 1-4 in a corner
        col = RED if n <= 4 else BLUE
        inner = (x0 + 6, y0 + 26, x1 - 6, y1 - 6)
        c.text(_text_mask(FLOWER_CHARS[n - 1], font, fb), inner, GREEN if n in (2, 4) else col)
        c.text(_text_mask(KANJI_NUM[(n - 1) % 4] if d.flowers == "framed" else str((n - 1) % 4 + 1),
                          font if d.flowers == "framed" else "wqy-microhei", fb), (x0, y0, x0 + 26, y0 + 26), col)
        if d.flowers == "framed":
            c.shape(lambda m: cv2.rectangle(m, (_s(x0 + 2), _s(y0 + 24)), (_s(x1 - 2), _s(y1 - 2)), 255, _s(2),
                                            cv2.LINE_AA), col)
    if red and d.red_mark:
        c.shape(lambda m: cv2.circle(m, (_s(x1 - 6), _s(y0 + 6)), _s(5), 255, -1, cv2.LINE_AA), RED)
    return c.layer()


def _unicode_point(tile: str) -> int:
    n, suit = int(tile[0]), tile[1]
    n = 5 if n == 0 else n
    if suit == "m":
        return 0x1F007 + n - 1
    if suit == "s":
        return 0x1F010 + n - 1
    if suit == "p":
        return 0x1F019 + n - 1
    if suit == "z":
        return (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)[n - 1]
    return _UNICODE_FLOWERS[n - 1]


def _unicode(tile: str, d: FaceDesign) -> np.ndarray:
    """A tile of the Mahjong Tiles block, its drawn outline cut away, in one ink per suit."""
    c = _Canvas()
    mask = _text_mask(chr(_unicode_point(tile)), d.font)
    h, w = mask.shape
    inset_x, inset_y = int(w * 0.1), int(h * 0.08)
    mask = _trim(mask[inset_y:h - inset_y, inset_x:w - inset_x])
    n, suit = int(tile[0]), tile[1]
    colour = {"m": DARK, "p": BLUE, "s": GREEN, "f": RED if n <= 4 else BLUE}.get(suit, DARK)
    if suit == "z":
        colour = {6: GREEN, 7: RED}.get(n, DARK)
    if n == 0:
        colour = RED
    c.text(mask, BOX, colour, keep_aspect=False)
    return c.layer()


@functools.lru_cache(maxsize=4096)
def glyph(tile: str, design: FaceDesign) -> np.ndarray:
    """The glyph layer of ``tile`` (mpsz, red fives ``0x``, flowers ``1f``..``8f``) in ``design``: BGRA uint8 120x160."""
    if tile == "5z" and design.kind == "drawn":
        return np.zeros((H, W, 4), np.uint8)
    return _unicode(tile, design) if design.kind == "unicode" else _drawn(tile, design)
