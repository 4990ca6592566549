"""Tile pictures: faces, backs and tile bodies seen from above, for training and the scene renderer.

Pure numpy/OpenCV. The artwork is the public-domain riichi set (FluffyStuff, CC0): a glyph
layer per kind composited over a blank ``front``. A downscaled copy (120x160 RGBA) ships in
``hardware/sim/tiles/`` so the product needs nothing outside the package; set
``JANTAKU_TILE_ASSETS`` to a folder laid out like ``shared/assets/tiles`` (``regular/png/*.png``)
to render from another copy instead. The flowers and seasons (``1f``..``8f``) are not in the
artwork and are drawn here.

Every picture is BGR ``uint8`` (OpenCV order), shape ``(height_px, width_px, 3)``; functions
taking ``alpha=True`` return BGRA with the rounded tile outline in the alpha channel.

Physical sets differ from the artwork, so a :class:`TileStyle` carries what varies between
sets: face tint, ink colour per suit, stroke weight, wholly-red red fives, a framed haku,
corner numbers. ``random_style(rng)`` draws one; ``DEFAULT_STYLE`` is the artwork as drawn.

>>> face = tile_face("5p", 30, 40)
>>> face.shape, face.dtype
((40, 30, 3), dtype('uint8'))
>>> tile_body_topdown("1z", 30, 40, thickness_px=8).shape
(48, 30, 4)
"""

from __future__ import annotations

import functools
import os
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from controller.rules.tiles import ALL_TILES

ASSET_ENV = "JANTAKU_TILE_ASSETS"
PACKAGE_ART_DIR = Path(__file__).resolve().parent / "tiles"
SHARED_ART_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "assets" / "tiles"
ART_W, ART_H = 120, 160  # working resolution of the glyph layers (3:4, like the artwork)

# Named back colours of automatic-table sets (BGR). Any BGR tuple works too.
BACK_COLOURS: dict[str, tuple[int, int, int]] = {
    "blue": (160, 90, 20),
    "green": (60, 130, 30),
    "yellow": (40, 190, 230),
    "orange": (30, 110, 235),
    "red": (45, 45, 200),
    "pink": (150, 120, 235),
    "purple": (130, 50, 100),
    "black": (40, 35, 30),
    "navy": (90, 40, 20),
    "teal": (130, 130, 20),
    "magenta": (190, 50, 170),
}

# Glyph pixel categories: what an ink mapping can recolour.
_NONE, _DARK, _RED, _GREEN, _BLUE, _LIGHT, _OTHER = range(7)
_FLOWER_NAMES = ("plum", "orchid", "chrysanthemum", "bamboo", "spring", "summer", "autumn", "winter")


class TileArtError(FileNotFoundError):
    """The tile artwork cannot be found or read."""


@dataclass(frozen=True)
class TileStyle:
    """What differs between physical tile sets. Colours are BGR.

    ``ink`` maps a suit letter (``m p s z f``) to ``(dark_ink, red_ink, green_ink, blue_ink)``:
    the colour each glyph category of that suit is painted in (``None`` keeps the artwork's).
    ``stroke_px`` thickens (>0) or thins (<0) the glyph strokes, in 120x160 art pixels.
    """

    face_bgr: tuple[int, int, int] = (238, 243, 247)
    ink: dict[str, tuple] = field(default_factory=dict)
    stroke_px: int = 0
    is_red_five_whole: bool = False
    has_haku_frame: bool = False
    has_corner_numbers: bool = False
    glyph_scale: float = 1.0
    glyph_affine: tuple[float, float, float] = (1.0, 1.0, 0.0)  # x scale, y scale, shear: other fonts
    frame_bgr: tuple[int, int, int] = (150, 80, 20)
    design: object = None  # a tile_faces.FaceDesign drawing the glyphs; None: the artwork
    # an engraved, played set (see worn_style): the groove's shading (0: a flat print), paint worn off in
    # patches (0..1), thick strokes painted only along their edges (art px; 0: filled), the wear's pattern
    relief: float = 0.0
    wear: float = 0.0
    outline_px: int = 0
    wear_seed: int = 0

    def __hash__(self) -> int:  # ink is a dict; hash its items so styles can key caches
        return hash((self.face_bgr, tuple(sorted(self.ink.items())), self.stroke_px,
                     self.is_red_five_whole, self.has_haku_frame, self.has_corner_numbers,
                     self.glyph_scale, self.glyph_affine, self.frame_bgr, self.design,
                     self.relief, self.wear, self.outline_px, self.wear_seed))


DEFAULT_STYLE = TileStyle()

_DARK_INKS = [(20, 20, 20), (70, 25, 10), (90, 35, 15), (50, 20, 20), (40, 60, 10)]
_RED_INKS = [(40, 40, 160), (30, 30, 200), (40, 20, 190), (60, 50, 150), (20, 10, 140)]
_GREEN_INKS = [(40, 110, 10), (60, 120, 20), (30, 80, 20), (90, 40, 10), (20, 20, 20), (110, 60, 10)]
_BLUE_INKS = [(140, 60, 20), (100, 30, 10), (20, 20, 20), (170, 80, 30)]


def random_style(rng: np.random.Generator) -> TileStyle:
    """Draw a plausible tile-set style: ink per suit, stroke weight, red fives, haku frame, corner numbers."""
    def pick(options: list) -> tuple[int, int, int]:
        base = np.array(options[int(rng.integers(len(options)))], dtype=float)
        return tuple(int(v) for v in np.clip(base + rng.normal(0, 12, 3), 0, 255))

    ink: dict[str, tuple] = {}
    for suit in "mpszf":
        ink[suit] = (pick(_DARK_INKS), pick(_RED_INKS), pick(_GREEN_INKS), pick(_BLUE_INKS))
    if rng.random() < 0.3:  # many sets draw pinzu and souzu in the same navy/black
        ink["s"] = (ink["s"][0], ink["s"][1], ink["p"][0], ink["s"][3])
    face = np.array([238, 243, 247]) + rng.normal(0, 6, 3) + np.array([0, 0, -rng.uniform(0, 18)])
    return TileStyle(
        face_bgr=tuple(int(v) for v in np.clip(face, 180, 255)),
        ink=ink,
        stroke_px=int(rng.integers(-1, 3)),
        is_red_five_whole=bool(rng.random() < 0.5),
        has_haku_frame=bool(rng.random() < 0.35),
        has_corner_numbers=bool(rng.random() < 0.25),
        glyph_scale=float(rng.uniform(0.85, 1.08)),
        glyph_affine=(float(rng.uniform(0.86, 1.08)), float(rng.uniform(0.9, 1.08)), float(rng.uniform(-0.08, 0.08))),
        frame_bgr=pick(_BLUE_INKS + _DARK_INKS),
    )


def worn_style(style: TileStyle, rng: np.random.Generator) -> TileStyle:
    """``style`` as a real set that has been played: engraved faces whose grooves shade on one side,
    paint worn off in patches, and (one set in five) thick strokes painted only along their edges."""
    return replace(style, relief=float(rng.uniform(0.3, 1.0)), wear=float(rng.uniform(0.0, 0.6)),
                   outline_px=int(rng.integers(2, 5)) if rng.random() < 0.2 else 0,
                   wear_seed=int(rng.integers(1 << 30)))


def _weathered(tile: str, glyph: np.ndarray, style: TileStyle) -> tuple[np.ndarray, np.ndarray]:
    """The glyph layer (BGRA float) worn and hollowed as ``style`` says, and the groove's shading
    (a layer to put over the face: dark on the side away from the light, light on the other)."""
    glyph = glyph.copy()
    groove = glyph[:, :, 3].copy()
    if style.outline_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * style.outline_px + 1,) * 2)
        glyph[:, :, 3] = np.clip(groove - cv2.erode(groove, k), 0, 1)
    rng = np.random.default_rng((style.wear_seed, zlib.crc32(tile.encode())))   # a pattern of its own for each kind
    if style.wear:
        patches = cv2.resize(rng.random((6, 5)).astype(np.float32), (ART_W, ART_H), interpolation=cv2.INTER_CUBIC)
        specks = cv2.GaussianBlur(rng.random((ART_H, ART_W)).astype(np.float32), (0, 0), 1.2)
        fade = np.clip(style.wear * (1.6 * patches + 2.0 * (specks - 0.5)), 0, 0.85)
        glyph[:, :, 3] *= 1 - fade
    shading = np.zeros((ART_H, ART_W, 4), np.float32)
    if style.relief:
        ang = rng.uniform(0, 2 * np.pi)
        d = rng.uniform(1.5, 3.0)
        dx, dy = d * np.cos(ang), d * np.sin(ang)

        def shifted(a: np.ndarray, sx: float, sy: float) -> np.ndarray:
            return cv2.warpAffine(a, np.float32([[1, 0, sx], [0, 1, sy]]), (ART_W, ART_H), flags=cv2.INTER_LINEAR)

        dark = np.clip(shifted(groove, dx, dy) - groove, 0, 1) * style.relief * 0.6
        light = np.clip(shifted(groove, -dx, -dy) - groove, 0, 1) * style.relief * 0.5
        face = np.array(style.face_bgr, np.float32) / 255.0
        total = np.maximum(dark, light)
        colour = np.where((dark >= light)[..., None], face * 0.45, np.float32(1.0))
        shading = np.dstack([colour, total]).astype(np.float32)
    return glyph, shading


# --------------------------------------------------------------------------- artwork loading


def art_dir() -> Path:
    """The folder the artwork is read from: ``$JANTAKU_TILE_ASSETS``, the packaged copy, or ../shared."""
    env = os.environ.get(ASSET_ENV)
    if env:
        root = Path(env)
        return root / "regular" / "png" if (root / "regular" / "png").is_dir() else root
    if (PACKAGE_ART_DIR / "front.png").is_file():
        return PACKAGE_ART_DIR
    return SHARED_ART_DIR / "regular" / "png"


def _read_rgba(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise TileArtError(f"tile art: cannot read RGBA picture {path} (set {ASSET_ENV} to the tiles folder)")
    if img.shape[:2] != (ART_H, ART_W):
        img = cv2.resize(img, (ART_W, ART_H), interpolation=cv2.INTER_AREA)
    return img


@functools.lru_cache(maxsize=4)
def _load_art(folder: str) -> dict[str, np.ndarray]:
    root = Path(folder)
    names = ["front", "back"] + [t for t in ALL_TILES if not t.endswith("f")]
    return {name: _read_rgba(root / f"{name}.png") for name in names}


def _art() -> dict[str, np.ndarray]:
    return _load_art(str(art_dir()))


def export_package_art(src_dir: Path | None = None, dst_dir: Path = PACKAGE_ART_DIR) -> list[Path]:
    """Write the 120x160 RGBA copy of the artwork that ships in ``hardware/sim/tiles/`` (a dev step)."""
    src = Path(src_dir) if src_dir else SHARED_ART_DIR / "regular" / "png"
    dst_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in ["front", "back"] + [t for t in ALL_TILES if not t.endswith("f")]:
        img = cv2.imread(str(src / f"{name}.png"), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise TileArtError(f"tile art: missing {src / (name + '.png')}")
        small = cv2.resize(img, (ART_W, ART_H), interpolation=cv2.INTER_AREA)
        out = dst_dir / f"{name}.png"
        cv2.imwrite(str(out), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        written.append(out)
    return written


# --------------------------------------------------------------------------- glyph layers


def _categorise(rgba: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(np.ascontiguousarray(rgba[:, :, :3]), cv2.COLOR_BGR2HSV).astype(int)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    cat = np.full(h.shape, _OTHER, np.int8)
    cat[(h >= 35) & (h <= 95)] = _GREEN
    cat[(h > 95) & (h <= 140)] = _BLUE
    cat[(h < 12) | (h > 165)] = _RED
    cat[(s < 70) | (v < 70)] = _DARK
    cat[(v > 190) & (s < 50)] = _LIGHT
    cat[rgba[:, :, 3] == 0] = _NONE
    return cat


def _flower_glyph(tile: str) -> np.ndarray:
    """Draw flower/season ``1f``..``8f``: a picture per tile and its number (1-4) in the corner."""
    n = int(tile[0])
    g = np.zeros((ART_H, ART_W, 4), np.uint8)
    bgr = g[:, :, :3].copy()
    a = g[:, :, 3].copy()

    def disc(cx, cy, r, col):
        cv2.circle(bgr, (cx, cy), r, col, -1, cv2.LINE_AA)
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)

    def line(p, q, col, t):
        cv2.line(bgr, p, q, col, t, cv2.LINE_AA)
        cv2.line(a, p, q, 255, t, cv2.LINE_AA)

    def poly(pts, col):
        pts = np.array(pts, np.int32)
        cv2.fillPoly(bgr, [pts], col, cv2.LINE_AA)
        cv2.fillPoly(a, [pts], 255, cv2.LINE_AA)

    cx, cy = 64, 90
    green, red, dark = (40, 120, 20), (40, 40, 190), (40, 30, 20)
    if n == 1:  # plum: five round petals on a branch
        line((20, 150), (cx, cy), dark, 5)
        for k in range(5):
            ang = k * 2 * np.pi / 5 - np.pi / 2
            disc(int(cx + 20 * np.cos(ang)), int(cy + 20 * np.sin(ang)), 13, (150, 80, 220))
        disc(cx, cy, 7, (40, 200, 240))
    elif n == 2:  # orchid: long curved leaves and a purple bloom
        for dx in (-30, -10, 12, 32):
            line((cx, 148), (cx + dx, 60 + abs(dx)), green, 5)
        disc(cx, 58, 14, (160, 50, 130))
        disc(cx - 14, 70, 9, (160, 50, 130))
    elif n == 3:  # chrysanthemum: many thin petals
        for k in range(16):
            ang = k * 2 * np.pi / 16
            line((cx, cy), (int(cx + 36 * np.cos(ang)), int(cy + 36 * np.sin(ang))), (20, 150, 230), 5)
        disc(cx, cy, 10, (20, 90, 200))
    elif n == 4:  # bamboo plant: three stalks with nodes and leaves
        for dx in (-24, 0, 24):
            line((cx + dx, 150), (cx + dx, 44), green, 7)
            for y in (70, 100, 128):
                line((cx + dx - 6, y), (cx + dx + 6, y), dark, 3)
        poly([(cx + 24, 60), (cx + 50, 40), (cx + 30, 70)], green)
    elif n == 5:  # spring: a sprout with two leaves
        line((cx, 150), (cx, 80), green, 6)
        poly([(cx, 95), (cx - 40, 60), (cx - 10, 105)], green)
        poly([(cx, 85), (cx + 40, 50), (cx + 10, 95)], green)
        disc(cx, 70, 9, (60, 200, 120))
    elif n == 6:  # summer: a red sun with rays
        disc(cx, cy, 22, red)
        for k in range(12):
            ang = k * 2 * np.pi / 12
            line((int(cx + 28 * np.cos(ang)), int(cy + 28 * np.sin(ang))),
                 (int(cx + 42 * np.cos(ang)), int(cy + 42 * np.sin(ang))), red, 4)
    elif n == 7:  # autumn: a maple-like leaf
        pts = [(cx, 40), (cx + 14, 70), (cx + 44, 62), (cx + 28, 92), (cx + 40, 120), (cx, 106),
               (cx - 40, 120), (cx - 28, 92), (cx - 44, 62), (cx - 14, 70)]
        poly(pts, (20, 100, 220))
        line((cx, 106), (cx, 150), dark, 4)
    else:  # winter: a blue snowflake
        for k in range(6):
            ang = k * np.pi / 3
            p = (int(cx + 44 * np.cos(ang)), int(cy + 44 * np.sin(ang)))
            line((cx, cy), p, (170, 90, 30), 5)
            mid = (int(cx + 26 * np.cos(ang)), int(cy + 26 * np.sin(ang)))
            for da in (-0.6, 0.6):
                line(mid, (int(mid[0] + 14 * np.cos(ang + da)), int(mid[1] + 14 * np.sin(ang + da))),
                     (170, 90, 30), 4)
    # the tile's number 1-4 in the top-left corner, red for flowers, blue for seasons
    num_col = red if n <= 4 else (150, 60, 20)
    cv2.putText(bgr, str((n - 1) % 4 + 1), (8, 38), cv2.FONT_HERSHEY_DUPLEX, 1.2, num_col, 3, cv2.LINE_AA)
    cv2.putText(a, str((n - 1) % 4 + 1), (8, 38), cv2.FONT_HERSHEY_DUPLEX, 1.2, 255, 3, cv2.LINE_AA)
    g[:, :, :3] = bgr
    g[:, :, 3] = a
    return g


@functools.lru_cache(maxsize=4096)
def _glyph(tile: str, folder: str, design=None) -> tuple[np.ndarray, np.ndarray]:
    """The tile's glyph layer (BGRA, 120x160) and its pixel categories (``design``: a procedural face)."""
    if design is not None:
        from hardware.sim import tile_faces

        g = tile_faces.glyph(tile, design)
    else:
        g = _flower_glyph(tile) if tile.endswith("f") else _load_art(folder)[tile]
    return g, _categorise(g)


def _styled_glyph(tile: str, style: TileStyle) -> np.ndarray:
    """Recolour (per suit ink), reweight (stroke) and rescale the glyph for ``style``; BGRA float 0..1."""
    src_tile = tile
    whole_red = False
    if tile in ("0m", "0p", "0s") and style.is_red_five_whole:
        src_tile, whole_red = "5" + tile[1], True  # the plain five, painted all red: no dot to rely on
    g, cat = _glyph(src_tile, str(art_dir()), style.design)
    bgr = g[:, :, :3].astype(np.float32)
    alpha = g[:, :, 3].astype(np.float32) / 255.0
    inks = style.ink.get(tile[1])
    if whole_red:
        red = (inks[1] if inks else (30, 30, 200))
        for c in (_DARK, _RED, _GREEN, _BLUE, _OTHER):
            bgr[cat == c] = red
    elif inks:
        for c, colour in zip((_DARK, _RED, _GREEN, _BLUE), inks, strict=True):
            if colour is not None:
                bgr[cat == c] = colour
    if style.stroke_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(style.stroke_px) + 1,) * 2)
        ink_alpha = alpha * (cat != _LIGHT)
        if style.stroke_px > 0:
            grown = cv2.dilate(ink_alpha, k)
            # spread the ink colour into the grown rim: erode colour takes the darkest neighbour
            spread = cv2.erode(np.where(ink_alpha[..., None] > 0.5, bgr, 255.0).astype(np.float32), k)
            rim = (grown > ink_alpha + 0.05)
            bgr[rim] = spread[rim]
            alpha = np.maximum(alpha, grown)
        else:
            # thinner strokes, but none erased: what the erosion would remove entirely (a line no
            # wider than the kernel: Symbola's outlined pips and sticks) stays as it was
            thin = cv2.erode(alpha, k)
            kept = np.maximum(thin, alpha - cv2.dilate(thin, k))
            alpha = np.where(cat == _LIGHT, alpha, kept)
    out = np.dstack([bgr / 255.0, alpha]).astype(np.float32)
    sx, sy, shear = style.glyph_affine
    if abs(style.glyph_scale - 1.0) > 1e-3 or (sx, sy, shear) != (1.0, 1.0, 0.0):
        a = np.array([[sx, shear], [0.0, sy]]) * style.glyph_scale
        c = np.array([ART_W / 2, ART_H / 2])
        m = np.hstack([a, (c - a @ c)[:, None]])
        out = cv2.warpAffine(out, m, (ART_W, ART_H), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    return out


def _corner_mark(tile: str) -> str:
    if tile[1] in "mps":
        return "5" if tile[0] == "0" else tile[0]
    if tile[1] == "z" and tile[0] in "1234":
        return "ESWN"[int(tile[0]) - 1]
    return ""


@functools.lru_cache(maxsize=2048)
def _face_art(tile: str, style: TileStyle) -> np.ndarray:
    """The whole face at art resolution, BGRA float 0..1."""
    front = _art()["front"].astype(np.float32) / 255.0
    shade = front[:, :, :3] / (np.array([235, 240, 245], np.float32) / 255.0)[None, None, :]
    face = np.clip(shade * (np.array(style.face_bgr, np.float32) / 255.0), 0, 1)
    if tile != "5z" or style.has_haku_frame:
        if tile == "5z":
            glyph = np.zeros((ART_H, ART_W, 4), np.float32)
            col = tuple(c / 255.0 for c in style.frame_bgr) + (1.0,)
            cv2.rectangle(glyph, (22, 26), (ART_W - 23, ART_H - 27), col, 6, cv2.LINE_AA)
            cv2.rectangle(glyph, (32, 36), (ART_W - 33, ART_H - 37), col, 2, cv2.LINE_AA)
        else:
            glyph = _styled_glyph(tile, style)
        if style.relief or style.wear or style.outline_px:
            glyph, shading = _weathered(tile, glyph, style)
            s = shading[:, :, 3:4]
            face = face * (1 - s) + shading[:, :, :3] * s
        a = glyph[:, :, 3:4]
        face = face * (1 - a) + glyph[:, :, :3] * a
        if style.has_corner_numbers and _corner_mark(tile):
            ink = style.ink.get(tile[1], ((20, 20, 20),))[0]
            mark = np.zeros((ART_H, ART_W), np.uint8)  # putText draws on 8-bit pictures only
            cv2.putText(mark, _corner_mark(tile), (6, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 255, 2, cv2.LINE_AA)
            m = mark[:, :, None].astype(np.float32) / 255.0
            face = face * (1 - m) + (np.array(ink, np.float32) / 255.0) * m
    return np.dstack([face, front[:, :, 3]]).astype(np.float32)


def _to_size(art: np.ndarray, width_px: int, height_px: int, alpha: bool) -> np.ndarray:
    if width_px < 1 or height_px < 1:
        raise ValueError(f"tile art: size {width_px}x{height_px} px, must be at least 1x1")
    interp = cv2.INTER_AREA if width_px < ART_W else cv2.INTER_LINEAR
    img = cv2.resize(art, (int(width_px), int(height_px)), interpolation=interp)
    img = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if alpha:
        return img
    # outside the rounded outline: plain face colour, so a BGR-only face is a clean rectangle
    a = img[:, :, 3:4].astype(np.float32) / 255.0
    return (img[:, :, :3] * a + img[:, :, :3].reshape(-1, 3).max(0) * (1 - a) * 0.95).astype(np.uint8)


def _resolve_style(style: TileStyle | None, rng: np.random.Generator | None) -> TileStyle:
    if style is not None:
        return style
    return random_style(rng) if rng is not None else DEFAULT_STYLE


# --------------------------------------------------------------------------- public pictures


def tile_face(tile: str, width_px: int, height_px: int, *, style: TileStyle | None = None,
              rng: np.random.Generator | None = None, alpha: bool = False) -> np.ndarray:
    """The face of ``tile`` (mpsz, incl. ``0m``/``0p``/``0s`` and ``1f``..``8f``), upright, front-on.

    ``style`` picks the set's look; without it, ``rng`` draws a random style, and with neither the
    artwork is drawn as is. Returns BGR uint8 ``(height_px, width_px, 3)``, or BGRA with the
    rounded outline as alpha when ``alpha`` is true. Raises ValueError for an unknown tile.
    """
    if tile not in ALL_TILES:
        raise ValueError(f"tile art: unknown tile {tile!r}, expected mpsz like '5p', '0s' or '3f'")
    return _to_size(_face_art(tile, _resolve_style(style, rng)), width_px, height_px, alpha)


def _back_colour(set_colour: str | tuple[int, int, int]) -> np.ndarray:
    if isinstance(set_colour, str):
        if set_colour not in BACK_COLOURS:
            raise ValueError(f"tile art: unknown back colour {set_colour!r}, one of {sorted(BACK_COLOURS)} "
                             "or a BGR tuple")
        set_colour = BACK_COLOURS[set_colour]
    return np.array(set_colour, np.float32) / 255.0


@functools.lru_cache(maxsize=64)
def _back_art(colour: tuple[float, float, float]) -> np.ndarray:
    front = _art()["front"].astype(np.float32) / 255.0
    shade = front[:, :, :3].mean(axis=2, keepdims=True) / (240.0 / 255.0)
    face = np.clip(shade * np.array(colour, np.float32), 0, 1)
    return np.dstack([face, front[:, :, 3]]).astype(np.float32)


def tile_back(set_colour: str | tuple[int, int, int], width_px: int, height_px: int, *,
              alpha: bool = False) -> np.ndarray:
    """A face-down tile seen from above: the back in ``set_colour`` (a name in BACK_COLOURS or BGR)."""
    colour = tuple(float(c) for c in _back_colour(set_colour))
    return _to_size(_back_art(colour), width_px, height_px, alpha)


def tile_body_topdown(tile: str | None, width_px: int, height_px: int, *, thickness_px: int,
                      side: str = "bottom", back_colour: str | tuple[int, int, int] = "blue",
                      face_layer: float = 0.45, style: TileStyle | None = None,
                      rng: np.random.Generator | None = None) -> np.ndarray:
    """A lying tile seen from above at an angle: its top plus the visible side wall, BGRA uint8.

    ``tile`` is the face shown on top (``None`` or ``"back"`` for a face-down tile). The side wall,
    ``thickness_px`` deep, shows on ``side`` (``bottom``/``top``/``left``/``right``: the edge turned
    towards the camera): two layers, the white face layer (``face_layer`` of the thickness) and the
    coloured back layer; for a face-down tile the coloured layer is the one next to the top.
    The top keeps the face orientation (upright); shape is ``(height_px + t, width_px, 4)`` for
    ``bottom``/``top`` and ``(height_px, width_px + t, 4)`` for ``left``/``right``.
    """
    if side not in ("bottom", "top", "left", "right"):
        raise ValueError(f"tile art: side {side!r}, must be bottom, top, left or right")
    if thickness_px < 0:
        raise ValueError(f"tile art: thickness_px is {thickness_px}, must be at least 0")
    is_face_up = tile not in (None, "back")
    top = (tile_face(tile, width_px, height_px, style=style, rng=rng, alpha=True) if is_face_up
           else tile_back(back_colour, width_px, height_px, alpha=True))
    # build for side=bottom in the orientation where the wall runs along the long edge seen
    along = width_px if side in ("bottom", "top") else height_px
    t = int(thickness_px)
    wall = np.zeros((t, along, 4), np.uint8)
    if t:
        st = _resolve_style(style, rng)
        ivory = np.array(st.face_bgr, np.float32) * 0.86
        back = _back_colour(back_colour) * 255.0 * 0.8
        n_face = int(round(t * face_layer))
        rows = [ivory] * n_face + [back] * (t - n_face)
        if not is_face_up:
            rows = rows[::-1]
        shade = np.linspace(1.0, 0.78, t)[:, None]
        wall[:, :, :3] = np.clip(np.array(rows)[:, None, :] * shade[:, :, None], 0, 255).astype(np.uint8)
        wall[:, :, 3] = 255
        r = max(1, min(along // 8, t))  # rounded ends of the wall, like the rounded tile corners
        mask = np.full((t, along), 255, np.uint8)
        mask[:, :r] = 0
        mask[:, along - r:] = 0
        cv2.rectangle(mask, (r, 0), (along - r - 1, t - 1), 255, -1)
        for x in (r, along - r - 1):
            cv2.ellipse(mask, (x, 0), (r, t), 0, 0, 180, 255, -1)
        wall[:, :, 3] = mask
    if side == "bottom":
        return np.vstack([top, wall])
    if side == "top":
        return np.vstack([wall[::-1], top])
    wall_v = np.ascontiguousarray(np.rot90(wall, 1)) if side == "right" else np.ascontiguousarray(
        np.rot90(wall, -1))
    return np.hstack([top, wall_v]) if side == "right" else np.hstack([wall_v, top])


def blit(dst: np.ndarray, src_bgra: np.ndarray, quad_xy: np.ndarray) -> np.ndarray:
    """Warp ``src_bgra`` onto ``dst`` (BGR, changed in place) so its corners land on ``quad_xy``.

    ``quad_xy`` is 4x2 float, destination pixels of the source's top-left, top-right,
    bottom-right, bottom-left corners. Alpha-blends; returns ``dst``.
    """
    h, w = src_bgra.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    quad = np.asarray(quad_xy, np.float32).reshape(4, 2)
    x0, y0 = np.floor(quad.min(0)).astype(int)
    x1, y1 = np.ceil(quad.max(0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, dst.shape[1]), min(y1, dst.shape[0])
    if x1 <= x0 or y1 <= y0:
        return dst
    m = cv2.getPerspectiveTransform(src, quad - np.float32([x0, y0]))
    warped = cv2.warpPerspective(src_bgra, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = dst[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + warped[:, :, :3] * a + 0.5).astype(np.uint8)
    return dst


def flower_name(tile: str) -> str:
    """``1f`` -> ``plum`` .. ``8f`` -> ``winter``."""
    return _FLOWER_NAMES[int(tile[0]) - 1]


def with_style(style: TileStyle, **changes) -> TileStyle:
    """A copy of ``style`` with some fields changed (``dataclasses.replace``)."""
    return replace(style, **changes)
