"""The simulated table's camera: draws a table state as a 1280x720 camera above the table sees it.

Tiles are boxes with a two-layer body (ivory face layer, coloured back layer) projected with
the same pinhole model the reader calibrates (``vision.calibration.PinholeCamera``): walls
with 2, 1 or 0 tiles per slot and face-up indicators on top, rivers six per row with sideways
riichi tiles, melds with the called tile sideways (closed kans with backs, added kans behind),
standing concealed hands, revealed hands (the winning tile set apart), flowers set aside, riichi
sticks, players' hands passing over, the ArUco markers at the corners, felt, a lighting
gradient, soft shadows and sensor noise. Faces come from ``hardware.sim.tile_art``.
Deterministic given the seed; tens of ms a frame.

>>> from vision.layout import load_profile
>>> r = SceneRenderer(load_profile("riichi4"))
>>> frame = r.render(TableState.full_walls(r.layout), seed=1)
>>> frame.shape, frame.dtype
((720, 1280, 3), dtype('uint8'))
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from hardware.sim import tile_art
from vision.calibration import PinholeCamera
from vision.layout import Layout, TableProfile, TileRect

FELT_BGR = (58, 112, 34)
FRAME_SIZE = (1280, 720)
_TEX_PX_MM = 2.0           # felt texture resolution
_FACE_PX = (52, 68)        # tile face texture size (2 px/mm)
_STICK_BGR = (238, 242, 245)
WIN_GAP_MM = 15.0          # how far a winner sets the winning tile apart from the revealed row


@dataclass(frozen=True)
class MeldShape:
    """A meld as laid out, left to right: ``tiles`` (``"back"`` for face down), ``sideways`` the index
    of the called tile (None for closed), ``added`` the added-kan tile lying behind it."""

    tiles: tuple[str, ...]
    sideways: int | None = None
    added: str | None = None


@dataclass
class TableState:
    """What lies on the table. Seats are table positions 0..3 (counter-clockwise from the bottom).

    ``walls``: wall -> tiles per stack (2/1/0), list index 0 is stack 1 at the owner's right end;
    ``indicators``: (wall, stack 1-based) -> the face-up tile on top of that slot;
    ``rivers``: seat -> [(tile, is_sideways)] in discard order; ``melds``: seat -> [MeldShape]
    from the right end leftwards; ``standing``: seat -> concealed tiles standing (backs to the
    camera); ``revealed``: seat -> tiles laid face up; ``flowers``: seat -> tiles set aside;
    ``hands_over``: table (x, y) mm where a player's hand hovers; ``other_backs``: (wall, stack) ->
    the back colour of a slot whose tiles come from the other set (a fault to catch);
    ``win_apart``: seats whose last revealed tile (the winning tile) lies set apart, ``WIN_GAP_MM``
    right of the rest of the row; ``sticks``: seats whose riichi stick lies out (``Layout.stick_rect``).
    """

    walls: dict[int, list[int]] = field(default_factory=dict)
    indicators: dict[tuple[int, int], str] = field(default_factory=dict)
    rivers: dict[int, list[tuple[str, bool]]] = field(default_factory=dict)
    melds: dict[int, list[MeldShape]] = field(default_factory=dict)
    standing: dict[int, int] = field(default_factory=dict)
    revealed: dict[int, list[str]] = field(default_factory=dict)
    flowers: dict[int, list[str]] = field(default_factory=dict)
    hands_over: tuple[tuple[float, float], ...] = ()
    back_colour: str = "blue"
    other_backs: dict[tuple[int, int], str] = field(default_factory=dict)
    win_apart: set[int] = field(default_factory=set)
    sticks: set[int] = field(default_factory=set)

    @classmethod
    def full_walls(cls, layout: Layout, **kw) -> TableState:
        n = layout.profile.wall.stacks
        return cls(walls={w: [2] * n for w in layout.wall_positions}, **kw)

    def copy(self) -> TableState:
        return TableState({k: list(v) for k, v in self.walls.items()}, dict(self.indicators),
                          {k: list(v) for k, v in self.rivers.items()}, {k: list(v) for k, v in self.melds.items()},
                          dict(self.standing), {k: list(v) for k, v in self.revealed.items()},
                          {k: list(v) for k, v in self.flowers.items()}, tuple(self.hands_over), self.back_colour,
                          dict(self.other_backs), set(self.win_apart), set(self.sticks))


@dataclass(frozen=True)
class _Box:
    corners: np.ndarray       # 4x2 footprint (table mm), in face order when it has a textured top
    z0: float
    z1: float
    top: str | None           # tile name for a face-up top, "back", or None (flat colour)
    split: float              # height (from z0) where the side changes colour
    lower_bgr: tuple[int, int, int]
    upper_bgr: tuple[int, int, int]


class SceneRenderer:
    """Renders :class:`TableState` for one table profile and camera pose (PinholeCamera)."""

    def __init__(self, profile: TableProfile, camera: PinholeCamera | None = None, *,
                 felt_bgr: tuple[int, int, int] = FELT_BGR, style: tile_art.TileStyle | None = None,
                 light: float = 1.0, noise: float = 3.0) -> None:
        self.profile = profile
        self.layout = Layout(profile)
        self.camera = camera or PinholeCamera.from_pose()
        self.felt_bgr = felt_bgr
        self.style = style or tile_art.DEFAULT_STYLE
        self.light = light
        self.noise = noise
        self.size = self.camera.size
        self._background = self._make_background()
        self._gain = self._make_gain()
        self._noise_bank = np.clip(np.random.default_rng(7).normal(0, noise, (self.size[1] + 64, self.size[0] + 64, 3)),
                                   -127, 127).astype(np.int16)

    # ---- static parts (per pose)
    def _make_background(self) -> np.ndarray:
        half = self.profile.felt_half_mm + 120.0
        n = int(round(2 * half * _TEX_PX_MM))
        rng = np.random.default_rng(11)
        tex = np.empty((n, n, 3), np.uint8)
        tex[:] = (70, 95, 125)  # the table's wooden frame beyond the felt
        f0 = int(round((half - self.profile.felt_half_mm) * _TEX_PX_MM))
        grain = rng.normal(0, 5, (n // 4, n // 4)).astype(np.float32)
        grain = cv2.resize(grain, (n, n), interpolation=cv2.INTER_LINEAR)
        felt = np.clip(np.array(self.felt_bgr, np.float32)[None, None, :] + grain[..., None], 0, 255)
        tex[f0:n - f0, f0:n - f0] = felt[f0:n - f0, f0:n - f0].astype(np.uint8)
        m = self.profile.markers
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, m.dictionary))
        side = int(round(m.size_mm * _TEX_PX_MM))
        quiet = int(round(m.size_mm * 0.2 * _TEX_PX_MM))
        for mid, (cx, cy) in zip(m.ids, m.centres_mm, strict=True):
            col = int(round((cx + half) * _TEX_PX_MM)) - side // 2
            row = int(round((half - cy) * _TEX_PX_MM)) - side // 2
            tex[row - quiet:row + side + quiet, col - quiet:col + side + quiet] = 235
            tex[row:row + side, col:col + side] = cv2.aruco.generateImageMarker(d, mid, side)[..., None]
        # texture pixel (c, r) -> table mm (c/px - half, half - r/px)
        S = np.array([[1 / _TEX_PX_MM, 0, -half], [0, -1 / _TEX_PX_MM, half], [0, 0, 1]])
        H = self.camera.plane_homography(0.0) @ S
        return cv2.warpPerspective(tex, H, self.size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                                   borderValue=(40, 40, 45))

    def _make_gain(self) -> np.ndarray:
        w, h = self.size
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((x - w * 0.45) / w) ** 2 + ((y - h * 0.4) / h) ** 2
        g = self.light * (1.12 - 0.45 * r2)
        g1 = np.clip(g * 128, 0, 255).astype(np.uint8)
        return cv2.merge([g1, g1, g1])

    # ---- tile boxes
    def _tile_boxes(self, rect: TileRect, tile: str, *, z0: float, back: tuple[int, int, int]) -> _Box:
        t = self.profile.tile
        ivory = tuple(int(c) for c in self.style.face_bgr)
        face_h = t.thickness_mm * t.face_layer
        if tile == "back":  # face down: face layer below, back layer on top
            return _Box(rect.array(), z0, z0 + t.thickness_mm, "back", face_h, ivory, back)
        return _Box(rect.array(), z0, z0 + t.thickness_mm, tile, t.thickness_mm - face_h, back, ivory)

    def boxes(self, state: TableState) -> list[_Box]:
        lay = self.layout
        back = tile_art.BACK_COLOURS.get(state.back_colour, (160, 90, 20)) if isinstance(state.back_colour, str) \
            else tuple(state.back_colour)
        T = self.profile.tile.thickness_mm
        out: list[_Box] = []
        for wall, counts in state.walls.items():
            for stack, n in enumerate(counts, start=1):
                if n <= 0:
                    continue
                rect = lay.wall_slot(wall, stack).rect
                slot_back = tile_art.BACK_COLOURS[state.other_backs[(wall, stack)]] \
                    if (wall, stack) in state.other_backs else back
                for level in range(min(n, 2)):
                    tile = "back"
                    if level == n - 1 and (wall, stack) in state.indicators:
                        tile = state.indicators[(wall, stack)]
                    out.append(self._tile_boxes(rect, tile, z0=level * T, back=slot_back))
        per_row = self.profile.river.per_row
        for seat, river in state.rivers.items():
            rows: list[list[tuple[str, bool]]] = [river[i:i + per_row] for i in range(0, len(river), per_row)]
            if len(rows) > self.profile.river.rows:
                raise ValueError(f"scene: seat {seat} has {len(river)} discards, the river holds "
                                 f"{per_row * self.profile.river.rows}")
            for r, row in enumerate(rows):
                rects = lay.lay_row(lay.river_strip(seat, r), [s for _, s in row])
                out += [self._tile_boxes(rc, tile, z0=0.0, back=back) for rc, (tile, _) in zip(rects, row, strict=True)]
        for seat, melds in state.melds.items():
            strip = lay.meld_strip(seat)
            pos = 0.0
            for meld in melds:
                # melds are laid from the right end leftwards; within a meld the tiles read left to right
                widths = [(self.profile.tile.length_mm if i == meld.sideways else self.profile.tile.width_mm)
                          for i in range(len(meld.tiles))]
                total = sum(widths) + self.profile.tile.gap_mm * len(widths)
                x = pos + total
                for i, tile in enumerate(meld.tiles):
                    x -= widths[i] + self.profile.tile.gap_mm
                    rc = lay.strip_tile(strip, x, is_sideways=(i == meld.sideways))
                    out.append(self._tile_boxes(rc, tile, z0=0.0, back=back))
                    if i == meld.sideways and meld.added:
                        rb = lay.strip_tile(strip, x, is_sideways=True, is_behind=True)
                        out.append(self._tile_boxes(rb, meld.added, z0=0.0, back=back))
                pos += total + self.profile.meld_gap_mm
        for seat, tiles in state.revealed.items():
            apart = frozenset({len(tiles) - 2}) if seat in state.win_apart and len(tiles) > 1 else frozenset()
            rects = lay.lay_row(lay.reveal_strip(seat), [False] * len(tiles), gaps_after=apart, gap_mm=WIN_GAP_MM)
            out += [self._tile_boxes(rc, tile, z0=0.0, back=back) for rc, tile in zip(rects, tiles, strict=True)]
        for seat, tiles in state.flowers.items():
            rects = lay.lay_row(lay.flower_strip(seat), [False] * len(tiles))
            out += [self._tile_boxes(rc, tile, z0=0.0, back=back) for rc, tile in zip(rects, tiles, strict=True)]
        t = self.profile.tile
        ivory = tuple(int(c) for c in self.style.face_bgr)
        for seat in sorted(state.sticks):     # a white stick (its red dot is too small to matter here)
            rc = lay.stick_rect(seat)
            out.append(_Box(rc.array(), 0.0, rc.z_mm, None, rc.z_mm, _STICK_BGR, _STICK_BGR))
        for seat, n in state.standing.items():
            if seat in state.revealed:
                continue
            strip = lay.reveal_strip(seat)
            face_d = t.thickness_mm * t.face_layer
            for k in range(n):
                u0 = strip.start_u + k * lay.pitch_mm
                near = strip.near_d - 2.0
                front = np.array([lay.to_table(seat, u, d) for u, d in
                                  ((u0, near - face_d), (u0 + t.width_mm, near - face_d),
                                   (u0 + t.width_mm, near), (u0, near))])
                rear = np.array([lay.to_table(seat, u, d) for u, d in
                                 ((u0, near - t.thickness_mm), (u0 + t.width_mm, near - t.thickness_mm),
                                  (u0 + t.width_mm, near - face_d), (u0, near - face_d))])
                out.append(_Box(front, 0.0, t.length_mm, None, t.length_mm, ivory, ivory))
                out.append(_Box(rear, 0.0, t.length_mm, None, t.length_mm, back, back))
        return out

    # ---- drawing
    @functools.lru_cache(maxsize=128)  # noqa: B019 - one renderer per pose, few kinds of faces
    def _face(self, tile: str, back: tuple[int, int, int]) -> np.ndarray:
        if tile == "back":
            return tile_art.tile_back(back, *_FACE_PX, alpha=True)
        return tile_art.tile_face(tile, *_FACE_PX, style=self.style, alpha=True)

    def _draw_boxes(self, frame: np.ndarray, boxes: list[_Box], back: tuple[int, int, int]) -> None:
        if not boxes:
            return
        cam = self.camera
        eye = cam.centre_mm
        n = len(boxes)
        corners = np.stack([b.corners for b in boxes])                       # n,4,2
        z0 = np.array([b.z0 for b in boxes])
        z1 = np.array([b.z1 for b in boxes])
        zs = np.array([b.split for b in boxes]) + z0
        pts = np.empty((n, 3, 4, 3))
        for k, z in enumerate((z0, zs, z1)):
            pts[:, k, :, :2] = corners
            pts[:, k, :, 2] = z[:, None]
        px = cam.project(pts)                                                # n,3,4,2
        centres = np.concatenate([corners.mean(axis=1), ((z0 + z1) / 2)[:, None]], axis=1)
        order = np.argsort(-np.linalg.norm(centres - eye, axis=1))
        light = np.array([0.35, -0.45, 0.82])
        light /= np.linalg.norm(light)
        for i in order:
            b = boxes[i]
            c = corners[i]
            cen = c.mean(axis=0)
            for e in range(4):
                a, bb = c[e], c[(e + 1) % 4]
                mid = (a + bb) / 2
                normal = mid - cen
                normal = normal / (np.linalg.norm(normal) + 1e-9)
                to_eye = eye[:2] - mid
                if normal.dot(to_eye) <= 0:
                    continue
                shade = 0.62 + 0.3 * max(0.0, float(normal.dot(light[:2])))
                for lo, hi, col in ((0, 1, b.lower_bgr), (1, 2, b.upper_bgr)):
                    if (lo == 0 and b.split <= 0) or (hi == 2 and b.split >= b.z1 - b.z0):
                        continue
                    quad = np.array([px[i, lo, e], px[i, lo, (e + 1) % 4], px[i, hi, (e + 1) % 4], px[i, hi, e]])
                    cv2.fillConvexPoly(frame, np.round(quad * 16).astype(np.int32),
                                       tuple(int(v * shade) for v in col), cv2.LINE_AA, 4)
            top = px[i, 2]
            if b.top is None:
                cv2.fillConvexPoly(frame, np.round(top * 16).astype(np.int32),
                                   tuple(int(v * 0.95) for v in b.upper_bgr), cv2.LINE_AA, 4)
            else:
                tile_art.blit(frame, self._face(b.top, b.upper_bgr if b.top == "back" else back), top)

    def _draw_hand(self, frame: np.ndarray, xy: tuple[float, float], rng: np.random.Generator) -> None:
        cam = self.camera
        x, y = xy
        edge = self.profile.felt_half_mm + 150
        ang = math.atan2(y, x)
        arm_end = np.array([edge * math.cos(ang), edge * math.sin(ang)])
        skin = [(150, 175, 225), (120, 150, 205), (90, 120, 170)][int(rng.integers(3))]
        palm = cam.project(np.array([[x, y, 110.0]]))[0]
        end = cam.project(np.array([[arm_end[0], arm_end[1], 160.0]]))[0]
        scale = cam.project(np.array([[x + 45, y, 110.0]]))[0]
        r = float(np.linalg.norm(scale - palm))
        cv2.line(frame, tuple(int(v) for v in palm), tuple(int(v) for v in end), tuple(int(v * 0.9) for v in skin),
                 max(2, int(r * 1.4)), cv2.LINE_AA)
        cv2.ellipse(frame, (int(palm[0]), int(palm[1])), (int(r), int(r * 1.25)), math.degrees(ang) + 90, 0, 360,
                    skin, -1, cv2.LINE_AA)
        for k in range(4):  # fingers towards the table centre
            fa = ang + math.pi + (k - 1.5) * 0.28
            tip = palm + r * 1.9 * np.array([math.cos(fa), -math.sin(fa)])
            cv2.line(frame, tuple(int(v) for v in palm), tuple(int(v) for v in tip), skin, max(2, int(r * 0.35)),
                     cv2.LINE_AA)

    def _shadows(self, frame: np.ndarray, boxes: list[_Box]) -> None:
        if not boxes:
            return
        mask = np.zeros((self.size[1], self.size[0]), np.uint8)
        for b in boxes:
            if b.z0 > 0:
                continue
            off = np.array([-0.25, 0.3]) * b.z1
            pts = self.camera.project_xy(b.corners + off, 0.0)
            cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 90)
        mask = cv2.blur(mask, (9, 9))
        gain = cv2.subtract(np.full_like(mask, 255), mask)       # darken the felt by up to ~35 %
        cv2.multiply(frame, cv2.merge([gain, gain, gain]), dst=frame, scale=1 / 255.0)

    def render(self, state: TableState, *, seed: int = 0) -> np.ndarray:
        """The camera frame (BGR uint8, height x width) of ``state``; the same seed gives the same frame."""
        rng = np.random.default_rng(seed)
        frame = self._background.copy()
        back = tile_art.BACK_COLOURS.get(state.back_colour, (160, 90, 20)) if isinstance(state.back_colour, str) \
            else tuple(state.back_colour)
        boxes = self.boxes(state)
        self._shadows(frame, boxes)
        self._draw_boxes(frame, boxes, back)
        for xy in state.hands_over:
            self._draw_hand(frame, xy, rng)
        jitter = float(rng.uniform(0.96, 1.04))
        frame = cv2.multiply(frame, self._gain, scale=jitter / 128.0)
        if self.noise > 0:
            oy, ox = rng.integers(0, 64, 2)
            nz = self._noise_bank[oy:oy + self.size[1], ox:ox + self.size[0]]
            frame = cv2.add(frame.astype(np.int16), nz, dtype=cv2.CV_8U)
        return frame


def pose_camera(pose: dict, size: tuple[int, int] = FRAME_SIZE) -> PinholeCamera:
    """A camera from a pose dict (keys of ``PinholeCamera.from_pose``: tilt_deg, azimuth_deg, roll_deg,
    distance_mm, hfov_deg, target_mm)."""
    return PinholeCamera.from_pose(size=size, **pose)
