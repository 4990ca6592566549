"""Frame -> :class:`TableView`: what lies on the table, read at the layout's known places.

The calibration gives the camera (pose and lens), the layout gives where every wall slot,
river row, meld strip, reveal strip and flower strip lies, so reading needs no detector:

1. One ``cv2.remap`` samples the frame at all fixed measuring points (table mm, at the
   height where the thing measured sits), precomputed once per calibration.
2. Cheap colour measures on those samples against the felt (its colour is measured every
   frame at free places): wall slots are 2, 1 or 0 tiles high by testing, at the slot's edge
   away from the camera's foot point, whether a tile top is there at two tiles' height or one
   (a lower top shows up shifted towards the foot point); strips are parsed tile by tile
   (upright or sideways from the ivory face at the row's edge; meld gaps; an added kan tile
   behind the called one).
3. All face-up crops of the frame (river, melds, revealed hands, flowers, face-up wall tops)
   are classified in one batch by the tile classifier (``vision.classifier.TileClassifier``).
   A river place that does not look like a tile face (a busy face, or a hand over the row) is
   classified too; the row ends at the first such place the classifier does not read as a tile.

Every measuring point is projected with the calibrated camera at the height of what it
measures (a stack's top at one or two tiles, a tile's top, a stick's top), so the camera may
look at the table from off to one side (tested to 15 degrees of tilt, turned any way). Where a
test would look into a tile's side wall from such a camera, it samples where the wall does
not reach: a meld's far bands on the felt when the camera's foot point lies beyond the row,
gaps between melds (and a winning tile set apart) along the row's near band. The one pose it
cannot read fully is a camera straight over a wall (``calibration.pose_warnings`` says so).
Also read: the winning tile set apart right of a revealed hand (``win_tiles``), riichi sticks
(``sticks``, white along ``Layout.stick_rect``).

Seats here are table positions (0 at the bottom of the layout, counter-clockwise); the
tracker maps them to game seats. Errors: :class:`ReaderError` for a frame that cannot be read
(not a picture, wrong size for the calibration).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.rules.tiles import plain
from vision.calibration import Calibration, CalibrationError, pose_warnings
from vision.classifier import CROP_MARGIN, TileClassifier
from vision.decode import INPUT_SIZE, MIN_CONFIDENCE, TileGuess
from vision.hand_count import count_standing
from vision.layout import Layout, Strip, TableProfile, TileRect, VisionError, source_from_position

log = logging.getLogger(__name__)

STEP_MM = 1.0           # spacing of the strip sample lines
_BACK_CONFIDENCE = 0.9  # a face-down tile told by its colour alone
_OTHER_BACK_CHROMA = 0.15   # chromaticity distance from the walls' usual back colour: another set
_FACE_CHROMA = 0.05     # a wall top this far from the usual back colour (or this much brighter) is
_FACE_BRIGHT = 1.25     # classified: a face-up indicator whose ink hides its ivory
_DOUBTFUL_CONFIDENCE = 0.6   # a river place that did not look like a tile face counts only when read this sure
_SECOND_LOOK = 0.8      # a crop classified less sure than this is classified again, turned
_REUSE_DIFF = 6.0       # mean abs difference (8x8 thumbnail, 0..255) below which a crop is "the same"
_ROT90 = (cv2.ROTATE_90_COUNTERCLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_CLOCKWISE)   # np.rot90 k = 1, 2, 3


class ReaderError(VisionError, ValueError):
    """A frame the reader cannot read (not a picture, wrong size, calibration for another table)."""


@dataclass(frozen=True)
class SeenTile:
    """One tile as read: ``tile`` mpsz, ``back`` (face down) or ``none`` (unsure), the classifier's
    ``confidence``, ``is_sideways`` where it lies turned (riichi discard, called tile)."""

    tile: str
    confidence: float
    is_sideways: bool = False

    def to_json(self) -> dict:
        out: dict = {"tile": self.tile, "confidence": round(float(self.confidence), 3)}
        if self.is_sideways:
            out["sideways"] = True
        return out


@dataclass(frozen=True)
class SeenMeld:
    """A meld as laid, left to right. ``kind`` chi/pon/daiminkan/kakan/ankan (``""`` if unclear);
    ``sideways`` the called tile's index; ``added`` the added-kan tile; ``source`` the table position
    the called tile came from (from the sideways tile's side), None for a closed kan."""

    tiles: tuple[SeenTile, ...]
    kind: str
    sideways: int | None = None
    added: SeenTile | None = None
    source: int | None = None

    def to_json(self) -> dict:
        out: dict = {"kind": self.kind, "tiles": [t.to_json() for t in self.tiles]}
        if self.sideways is not None:
            out["sideways"] = self.sideways
        if self.added is not None:
            out["added"] = self.added.to_json()
        if self.source is not None:
            out["source"] = self.source
        return out


@dataclass(frozen=True)
class Indicator:
    """A face-up tile on top of a wall slot (a dora or kan dora indicator); ``stack`` 1-based."""

    wall: int
    stack: int
    tile: SeenTile


@dataclass(frozen=True)
class TableView:
    """Everything read from one frame; seats are table positions."""

    walls: dict[int, tuple[int, ...]] = field(default_factory=dict)   # wall -> tiles per stack 1..N
    indicators: tuple[Indicator, ...] = ()
    rivers: dict[int, tuple[SeenTile, ...]] = field(default_factory=dict)
    melds: dict[int, tuple[SeenMeld, ...]] = field(default_factory=dict)
    revealed: dict[int, tuple[SeenTile, ...]] = field(default_factory=dict)
    flowers: dict[int, tuple[SeenTile, ...]] = field(default_factory=dict)
    now: float = 0.0
    tiles_classified: int = 0     # face-up crops the classifier read for this view
    other_backs: dict[int, tuple[str, ...]] = field(default_factory=dict)   # wall -> per stack: "" or a colour
    occluded: frozenset[int] = frozenset()   # positions whose river was cut short by something over it
    win_tiles: dict[int, SeenTile] = field(default_factory=dict)   # position -> the revealed tile set apart
    sticks: frozenset[int] = frozenset()     # positions with a riichi stick out
    standing: dict[int, int] = field(default_factory=dict)   # position -> concealed tiles standing, where counted

    def to_json(self) -> dict:
        return {
            "now": self.now,
            "walls": {str(k): list(v) for k, v in self.walls.items()},
            "indicators": [{"wall": i.wall, "stack": i.stack, **i.tile.to_json()} for i in self.indicators],
            "rivers": {str(k): [t.to_json() for t in v] for k, v in self.rivers.items()},
            "melds": {str(k): [m.to_json() for m in v] for k, v in self.melds.items()},
            "revealed": {str(k): [t.to_json() for t in v] for k, v in self.revealed.items()},
            "flowers": {str(k): [t.to_json() for t in v] for k, v in self.flowers.items()},
            "win_tiles": {str(k): t.to_json() for k, t in self.win_tiles.items()},
            "sticks": sorted(self.sticks),
            "other_backs": [{"wall": w, "stack": i, "colour": c} for w, v in self.other_backs.items()
                            for i, c in enumerate(v, start=1) if c],
        }


def colour_name(bgr: np.ndarray) -> str:
    """A plain name for a tile back's colour (hue bins), for staff messages."""
    h, s_, v = cv2.cvtColor(np.uint8([[np.clip(bgr, 0, 255)]]), cv2.COLOR_BGR2HSV)[0, 0].tolist()
    if v < 60:
        return "black"
    if s_ < 45:
        return "white" if v > 170 else "grey"
    for limit, name in ((8, "red"), (20, "orange"), (35, "yellow"), (85, "green"), (100, "teal"), (130, "blue"),
                        (150, "purple"), (170, "pink")):
        if h < limit:
            return name
    return "red"


def _seen(guess: TileGuess, is_sideways: bool, is_sure_tile: bool) -> SeenTile:
    """Where the reader knows a face-up tile lies (a river, a meld), an unsure answer keeps the
    model's best class with its (low) confidence; the tracker's threshold and vote decide."""
    if is_sure_tile and guess.tile == "none" and guess.best not in ("", "none", "back"):
        return SeenTile(guess.best, guess.best_confidence, is_sideways)
    return SeenTile(guess.tile, guess.confidence, is_sideways)


# --------------------------------------------------------------------------- sampling


class _Samples:
    """Collects named sets of table points; one remap map for all of them."""

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []
        self._index: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._n = 0

    def add(self, name: str, points_mm: np.ndarray) -> None:
        pts = np.asarray(points_mm, dtype=np.float64)
        shape = pts.shape[:-1]
        flat = pts.reshape(-1, 3)
        self._index[name] = (self._n, shape)
        self._parts.append(flat)
        self._n += len(flat)

    def build(self, camera) -> tuple[np.ndarray, np.ndarray]:
        pts = np.concatenate(self._parts)
        px = camera.project(pts).astype(np.float32)
        w = 1024
        rows = -(-len(px) // w)
        pad = rows * w - len(px)
        px = np.concatenate([px, np.full((pad, 2), -10.0, np.float32)])
        return px[:, 0].reshape(rows, w).copy(), px[:, 1].reshape(rows, w).copy()

    def get(self, flat: np.ndarray, name: str) -> np.ndarray:
        start, shape = self._index[name]
        n = int(np.prod(shape))
        return flat[start:start + n].reshape(*shape, flat.shape[-1])


def _seg_points(lay: Layout, strip: Strip, d_offsets: Sequence[float], z: Sequence[float], n: int) -> np.ndarray:
    """Points along a strip at 1 mm steps, line k at height ``z[k]``: shape (len(d_offsets), n, 3)."""
    s = np.arange(n) * STEP_MM + STEP_MM / 2
    u = strip.start_u + strip.direction * s
    out = np.empty((len(d_offsets), n, 3))
    for k, off in enumerate(d_offsets):
        d = np.full(n, strip.near_d - off)
        out[k, :, :2] = lay.to_table_array(strip.seat, u, d)
        out[k, :, 2] = z[k]
    return out


@dataclass
class _Colour:
    """Colour classes of samples against the felt measured in this frame (per channel, no axis reductions:
    a reduction over a length-3 axis is slow in numpy)."""

    felt: np.ndarray          # BGR float
    felt_sum: float

    def classify(self, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(occupied, ivory) boolean arrays for BGR samples (..., 3).

        occupied: not felt (another chromaticity, or much brighter; a shadow keeps the felt's
        chromaticity). ivory: a bright, nearly grey surface: a tile face.
        """
        b, g, r = (samples[..., i].astype(np.float32) for i in range(3))
        tot = b + g + r + 1.0
        fb, fg, fr = (float(v) / self.felt_sum for v in self.felt)
        inv = 1.0 / tot
        d = np.abs(b * inv - fb) + np.abs(g * inv - fg) + np.abs(r * inv - fr)
        bright = tot > 1.8 * self.felt_sum
        occupied = (d > 0.12) | bright
        mx = np.maximum(np.maximum(b, g), r)
        mn = np.minimum(np.minimum(b, g), r)
        ivory = ((mx - mn) < 0.3 * mx) & (tot > 1.5 * self.felt_sum)
        return occupied, ivory


# --------------------------------------------------------------------------- reader


class TableReader:
    """Reads a table frame at the layout's places. Build once per calibration; :meth:`read` per frame.

    ``classifier`` is any ``TileClassifier`` (the shipped ``OnnxTileClassifier`` in production).
    ``reuse_crops``: keep the answer for a tile whose crop looks as it did in the previous
    frame (the daemon's loop; a bench of cold reads leaves it off).
    Raises CalibrationError if the calibration was made for another table profile.
    """

    def __init__(self, profile: TableProfile, calibration: Calibration, classifier: TileClassifier, *,
                 crop_px: int = INPUT_SIZE, reuse_crops: bool = False) -> None:
        calibration.check_matches(profile=profile)
        self.profile = profile
        self.layout = Layout(profile)
        # the standing hands counted from above (vision.hand_count): off until the rendered demo's
        # games have been checked with it (table_check: 2 games, 0 differences)
        self.count_hands = False
        self.calibration = calibration
        self.camera = calibration.camera
        self.classifier = classifier
        self.crop_px = int(crop_px)
        t = profile.tile
        self.T = t.thickness_mm
        self._nadir = self.camera.centre_mm[:2]
        self._height = float(self.camera.centre_mm[2])
        self.pose_warnings = pose_warnings(calibration, profile)
        for warning in self.pose_warnings:
            log.warning("reader: %s", warning)
        s = _Samples()
        # felt reference: the free centre and the four free corners
        g = np.linspace(-60, 60, 7)
        gx, gy = np.meshgrid(g, g)
        felt = [np.column_stack([gx.ravel(), gy.ravel()])]
        c = profile.felt_half_mm - 80.0
        h = np.linspace(-8, 8, 5)
        hx, hy = np.meshgrid(h, h)
        for sx in (-1, 1):
            for sy in (-1, 1):
                felt.append(np.column_stack([sx * c + hx.ravel(), sy * c + hy.ravel()]))
        fp = np.concatenate(felt)
        s.add("felt", np.column_stack([fp, np.zeros(len(fp))]))
        # wall slots: edge bands at two tiles' and one tile's height, and the tops
        self._slots = self.layout.wall_slots()
        bands2, bands1, tops2, tops1 = [], [], [], []
        for slot in self._slots:
            b2, b1 = self._wall_bands(slot.wall, slot.stack)
            bands2.append(b2)
            bands1.append(b1)
            tops2.append(self._grid(slot.rect, 2 * self.T, 4, 5, 0.8))
            tops1.append(self._grid(slot.rect, self.T, 4, 5, 0.8))
        if self._slots:
            s.add("wall_b2", np.stack(bands2))
            s.add("wall_b1", np.stack(bands1))
            s.add("wall_t2", np.stack(tops2))
            s.add("wall_t1", np.stack(tops1))
        # riichi sticks: a line of points along each seat's stick place, on the stick's top
        s.add("sticks", np.stack([self._grid(self.layout.stick_rect(seat), self.layout.STICK_MM[2], 9, 2, 0.6)
                                  for seat in range(profile.positions)]))
        # strips: lines at 1 mm along each strip, at the tiles' top height
        self._strips = self.layout.strips()
        self._strip_len = [int(strip.length_mm / STEP_MM) for strip in self._strips]
        L, W = t.length_mm, t.width_mm
        offsets = [8.0, 13.0, 18.0,                 # mid lines (any tile lies across them)
                   1.75,                            # near band: upright only when sideways are centred
                   L - 1.75,                        # far band: upright only
                   2 * W + t.gap_mm - 1.75]         # behind band: an added kan tile's far edge
        # A meld's far and behind bands tell an upright tile from a sideways one (and an added kan
        # tile) by whether a tile top reaches them. Sampled at the tops' height they work while the
        # camera's foot point lies on the player's side of the row: what lies beyond a missing top
        # is felt. With the foot point beyond the row (towards the centre) a ray past a sideways
        # tile's far edge runs down into that tile's far wall, so there the bands are sampled on the
        # felt itself: felt where no tile lies, the tile's body where one does.
        self._far_on_felt = [strip.kind == "melds" and self._nadir_d(strip.seat) < strip.near_d - W
                             for strip in self._strips]
        # Gaps between melds (and the winning tile set apart) on the mid lines: with the camera off to
        # one side a gap shows the next tile's side wall instead of felt. With the foot point beyond
        # the row's far edge, rays past the near band leave the row over the player's edge: felt.
        self._gap_on_near = [strip.kind in ("melds", "reveal") and self._nadir_d(strip.seat) < strip.near_d - L
                             for strip in self._strips]
        # all strips one after another along the lines (each its own length), so each frame's measures are a
        # few array ops; strip k holds positions _strip_off[k]:_strip_off[k + 1]
        self._strip_off = [0, *np.cumsum(self._strip_len).tolist()]
        if self._strips:
            s.add("strips", np.concatenate([
                _seg_points(self.layout, strip, offsets, [self.T] * 4 + [0.0 if on_felt else self.T] * 2, n)
                for strip, on_felt, n in zip(self._strips, self._far_on_felt, self._strip_len, strict=True)], axis=1))
        self._samples = s
        self._nadir_sides = [self._nadir_side(strip) for strip in self._strips]
        self._tile_cache: dict[tuple[int, float, bool, bool], TileRect] = {}
        # fixed-point maps once per calibration: what cv2.remap makes of float maps on every call
        self._map_x, self._map_y = cv2.convertMaps(*s.build(self.camera), cv2.CV_16SC2)
        self._meld_used: dict[int, list[int]] = {}
        self._plane_cache: dict[float, np.ndarray] = {}
        self.reuse_crops = reuse_crops
        self._crop_cache: dict[tuple, tuple[np.ndarray, TileGuess]] = {}
        self._frame = np.zeros((1, 1, 3), np.uint8)
        self.revealed_rects: dict[int, list[TileRect]] = {}   # last read: position -> its revealed tiles' rects

    # ---- geometry helpers
    def _grid(self, rect: TileRect, z: float, nu: int, nv: int, frac: float) -> np.ndarray:
        q = rect.array()
        a = (np.linspace(-frac / 2, frac / 2, nu) + 0.5)
        b = (np.linspace(-frac / 2, frac / 2, nv) + 0.5)
        A, B = np.meshgrid(a, b)
        A, B = A.ravel()[:, None], B.ravel()[:, None]
        top = q[0] + (q[1] - q[0]) * A
        bottom = q[3] + (q[2] - q[3]) * A
        p = top + (bottom - top) * B
        return np.column_stack([p, np.full(len(p), z)])

    def _wall_bands(self, wall: int, stack: int) -> tuple[np.ndarray, np.ndarray]:
        """Sample points near the slot's edge facing away from the camera's foot point, at 2T and T."""
        lay = self.layout
        right, forward = lay.seat_axes(wall)
        slot = lay.wall_slot(wall, stack)
        inner = self.profile.wall.inner_mm
        outer = inner + self.profile.tile.length_mm
        u_centre = float(np.asarray(slot.centre) @ right)
        d_nadir = float(-(self._nadir @ forward))
        d_mid = (inner + outer) / 2
        dist = abs(d_mid - d_nadir)
        # how far a top one tile lower appears shifted towards the foot point (mm, in d)
        shift = self.T * (dist + self.profile.tile.length_mm / 2) / max(self._height - 2 * self.T, 1.0)
        offs = np.array([0.3, 0.55]) * min(shift, 6.0)
        if d_nadir <= d_mid:
            ds = outer - offs          # away edge: the player's side
        else:
            ds = inner + offs
        us = u_centre + np.linspace(-7.5, 7.5, 6)
        U, D = np.meshgrid(us, ds)
        xy = lay.to_table_array(wall, U.ravel(), D.ravel())
        b2 = np.column_stack([xy, np.full(len(xy), 2 * self.T)])
        b1 = np.column_stack([xy, np.full(len(xy), self.T)])
        return b2, b1

    # ---- reading
    def check_frame(self, frame: np.ndarray) -> None:
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim != 3 or frame.shape[2] != 3:
            raise ReaderError(f"reader: expected a BGR uint8 frame, got "
                              f"{getattr(frame, 'shape', type(frame).__name__)} {getattr(frame, 'dtype', '')}")
        try:
            self.calibration.check_frame(frame)
        except CalibrationError as err:
            raise ReaderError(str(err)) from err

    def read(self, frame: np.ndarray, *, now: float = 0.0) -> TableView:
        """Read one frame (BGR uint8, the calibrated size). Raises ReaderError for a frame it cannot read."""
        self.check_frame(frame)
        self._frame = frame
        self.revealed_rects = {}
        flat = cv2.remap(frame, self._map_x, self._map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(0, 0, 0)).reshape(-1, 3)
        felt = np.median(self._samples.get(flat, "felt").astype(np.float32), axis=0)
        col = _Colour(felt, float(felt.sum()) + 1.0)
        raw = flat
        occupied, ivory = col.classify(flat)                   # one pass over all samples
        flat = np.stack([occupied, ivory], axis=-1).view(np.uint8)
        # every tile found: (rect, is_sideways, is_face_up); face-down ones (closed kans, standing
        # hands) are backs by their colour and need no classifier time
        jobs: list[tuple[TileRect, bool, bool]] = []
        walls, wall_jobs, backs = self._read_walls(flat, raw, jobs)
        strips = self._parse_strips(flat)
        strip_jobs: list[list[int]] = []
        lenient: set[int] = set()     # places where a face-up tile surely lies (rivers, melds)
        packed: set[int] = set()      # tiles in a row of touching tiles (a revealed hand)
        for strip, parsed in zip(self._strips, strips, strict=True):
            idx = []
            for rect, is_side, face_up, _lying in parsed["rects"]:
                idx.append(len(jobs))
                jobs.append((rect, is_side, face_up))
                if strip.kind in ("river", "melds"):
                    lenient.add(len(jobs) - 1)
                elif strip.kind == "reveal":
                    packed.add(len(jobs) - 1)
            strip_jobs.append(idx)
        todo = [i for i, job in enumerate(jobs) if job[2]]
        guesses = dict(zip(todo, self._classify([jobs[i][0] for i in todo], [i in packed for i in todo]), strict=True))
        seen = [_seen(guesses[i], side, i in lenient) if i in guesses else SeenTile("back", _BACK_CONFIDENCE, side)
                for i, (_, side, _) in enumerate(jobs)]
        indicators = tuple(Indicator(w, st, seen[j]) for (w, st), j in wall_jobs if seen[j].tile not in ("back", "none"))
        for ind in indicators:      # a face, not another back colour
            if backs.get(ind.wall) and backs[ind.wall][ind.stack - 1]:
                backs[ind.wall] = tuple("" if i == ind.stack - 1 else c for i, c in enumerate(backs[ind.wall]))
        rivers: dict[int, list[SeenTile]] = {}
        melds: dict[int, tuple[SeenMeld, ...]] = {}
        revealed: dict[int, tuple[SeenTile, ...]] = {}
        flowers: dict[int, tuple[SeenTile, ...]] = {}
        occluded: set[int] = set()
        for strip, parsed, idx in zip(self._strips, strips, strip_jobs, strict=True):
            tiles = [seen[j] for j in idx]
            if strip.kind == "river":
                # a row read short under a hand: the rows after it are not to be trusted either
                if strip.seat in occluded:
                    continue
                cut = next((i for i in parsed["doubtful"] if guesses[idx[i]].tile in ("none", "back")
                            or guesses[idx[i]].confidence < _DOUBTFUL_CONFIDENCE), None)
                if cut is not None:
                    tiles = tiles[:cut]
                if parsed["occluded"] or cut is not None:
                    occluded.add(strip.seat)
                rivers.setdefault(strip.seat, []).extend(tiles)
            elif strip.kind == "melds":
                standing = {i for i in parsed["doubtful"] if guesses[idx[i]].tile in ("none", "back")
                            or guesses[idx[i]].confidence < _DOUBTFUL_CONFIDENCE}
                melds[strip.seat] = self._melds(strip.seat, parsed, tiles, standing)
            elif strip.kind == "reveal":
                pass   # below, once the melds that may share the strip are known
            else:
                # only flowers and seasons count here (an added kan tile may reach into the strip)
                faces = tuple(t for t in tiles if t.tile.endswith("f"))
                if faces:
                    flowers[strip.seat] = faces
        for seat in range(self.profile.positions):
            rivers.setdefault(seat, [])
        win_tiles: dict[int, SeenTile] = {}
        for strip, parsed, idx in zip(self._strips, strips, strip_jobs, strict=True):
            if strip.kind == "reveal":
                self._revealed_row(strip, parsed, idx, seen, strips, revealed, win_tiles)
        # a stick is white along its length (a hand over it is not)
        stick_white = self._samples.get(flat, "sticks")[..., 1].mean(axis=1)
        sticks = frozenset(int(p) for p in np.flatnonzero(stick_white >= 0.7))
        standing = count_standing(frame, self.camera, self.layout, seats=[p for p in range(4) if p not in revealed]) \
            if self.count_hands else {}
        return TableView(walls, indicators, {k: tuple(v) for k, v in rivers.items()}, melds, revealed, flowers,
                         now, len(todo), backs, frozenset(occluded), win_tiles, sticks, standing)

    def _revealed_row(self, strip: Strip, parsed: dict, idx: list[int], seen: list[SeenTile], strips: list[dict],
                      revealed: dict, win_tiles: dict) -> None:
        """The face-up tiles of a revealed hand, and the winning tile when the last one lies set apart.

        Melds and the revealed hand may share the player's strip: the hand is what lies left of the
        melds. A winner sets the winning tile apart at the right end: a group of one tile after a gap.
        """
        right, _ = self.layout.seat_axes(strip.seat)
        limit = np.inf
        if self._meld_used.get(strip.seat):
            meld_rects = self._meld_rects(strip.seat, strips)
            limit = min(float(np.asarray(meld_rects[i][0].centre) @ right)
                        for i in self._meld_used[strip.seat]) - self.profile.tile.length_mm / 2
        rects = parsed["rects"]
        keep = {i for i, (r, *_) in enumerate(rects)
                if float(np.asarray(r.centre) @ right) < limit and seen[idx[i]].tile not in ("back", "none")}
        if not keep:
            return
        # a tile between read ones that could not be read stays in the hand as "none" (the hand's
        # size counts): a later frame may read it
        keep |= {i for i in range(min(keep), max(keep)) if float(np.asarray(rects[i][0].centre) @ right) < limit}
        order = sorted(keep)
        self.revealed_rects[strip.seat] = [rects[i][0] for i in order]   # for learning from play
        revealed[strip.seat] = tuple(seen[idx[i]] if seen[idx[i]].tile != "back" else SeenTile("none", 0.0)
                                     for i in order)
        groups = [[i for i in g if i in keep] for g in parsed["groups"]]
        groups = [g for g in groups if g]
        if len(groups) >= 2 and len(groups[-1]) == 1 and groups[-1][0] == order[-1]:
            win_tiles[strip.seat] = seen[idx[order[-1]]]

    def _read_walls(self, flat: np.ndarray, raw: np.ndarray, jobs: list) -> tuple[dict, list, dict]:
        walls: dict[int, list[int]] = {w: [0] * self.profile.wall.stacks for w in self.layout.wall_positions}
        wall_jobs: list[tuple[tuple[int, int], int]] = []
        if not self._slots:
            return {}, [], {}
        occ2 = self._samples.get(flat, "wall_b2")[..., 0].mean(axis=1)
        occ1 = self._samples.get(flat, "wall_b1")[..., 0].mean(axis=1)
        iv2 = self._samples.get(flat, "wall_t2")[..., 1].mean(axis=1)
        iv1 = self._samples.get(flat, "wall_t1")[..., 1].mean(axis=1)
        top2 = self._samples.get(raw, "wall_t2").astype(np.float32).mean(axis=1)
        top1 = self._samples.get(raw, "wall_t1").astype(np.float32).mean(axis=1)
        back_of: dict[int, np.ndarray] = {}
        for k, slot in enumerate(self._slots):
            n = 2 if occ2[k] >= 0.5 else (1 if occ1[k] >= 0.5 else 0)
            walls[slot.wall][slot.stack - 1] = n
            if n and (iv2[k] if n == 2 else iv1[k]) >= 0.3:   # an ivory top: a face-up tile
                rect = self.layout.wall_top(slot.wall, slot.stack, n)
                wall_jobs.append(((slot.wall, slot.stack), len(jobs)))
                jobs.append((rect, False, True))
            elif n:
                back_of[k] = top2[k] if n == 2 else top1[k]
        other = self._other_backs(back_of)
        # a top that is not quite the set's back may be a face-up tile whose ink hides its ivory (an 8s
        # indicator is mostly green, a 7p many-coloured dots): the classifier tells a face from a back
        unlike: set[int] = set()
        if len(back_of) >= 4:
            keys = list(back_of)
            cols = np.stack([back_of[k] for k in keys])
            bright = cols.sum(axis=1)
            chroma = cols / (bright[:, None] + 1.0)
            off = np.abs(chroma - np.median(chroma, axis=0)).sum(axis=1)
            bright_limit = _FACE_BRIGHT * float(np.median(bright))
            unlike = {k for k, o, b in zip(keys, off, bright, strict=True)
                      if o > _FACE_CHROMA or b > bright_limit}
        for k, slot in enumerate(self._slots):
            if k in back_of and (other[slot.wall][slot.stack - 1] or k in unlike):
                rect = self.layout.wall_top(slot.wall, slot.stack, walls[slot.wall][slot.stack - 1])
                wall_jobs.append(((slot.wall, slot.stack), len(jobs)))
                jobs.append((rect, False, True))
        return {w: tuple(v) for w, v in walls.items()}, wall_jobs, other

    def _other_backs(self, back_of: dict[int, np.ndarray]) -> dict[int, tuple[str, ...]]:
        """Per wall and stack: "" for the set's back colour (the walls' majority) or an empty slot,
        else the name of the other colour seen there (a tile of the other set)."""
        out = {w: [""] * self.profile.wall.stacks for w in self.layout.wall_positions}
        if len(back_of) < 4:
            return {w: tuple(v) for w, v in out.items()}
        keys = list(back_of)
        cols = np.stack([back_of[k] for k in keys])
        chroma = cols / (cols.sum(axis=1, keepdims=True) + 1.0)
        usual = np.median(chroma, axis=0)
        far = np.abs(chroma - usual).sum(axis=1) > _OTHER_BACK_CHROMA
        for k, is_far, col in zip(keys, far, cols, strict=True):
            if is_far:
                slot = self._slots[k]
                out[slot.wall][slot.stack - 1] = colour_name(col)
        # a tile of the other set is one stack, perhaps two; a longer run of "other colour" is an arm
        # or a hand over the wall, not tiles
        for row in out.values():
            i = 0
            while i < len(row):
                j = i
                while j < len(row) and row[j]:
                    j += 1
                if j - i > 2:
                    row[i:j] = [""] * (j - i)
                i = j + 1
        return {w: tuple(v) for w, v in out.items()}

    def _parse_strips(self, flat: np.ndarray) -> list[dict]:
        if not self._strips:
            return []
        lines = self._samples.get(flat, "strips")      # (6, all strips' positions, [occupied, ivory])
        occ = lines[:3, :, 0].any(axis=0)
        # running sums make every window fraction O(1): c[b] - c[a] counts the hits in [a, b). One sum runs
        # over all strips; a strip's slice of it (one longer) differs by a constant, which cancels in c[b] - c[a]
        occ_c = [0, *np.cumsum(occ).tolist()]
        face_c = [0, *np.cumsum(lines[:3, :, 1].sum(axis=0)).tolist()]
        band_c = np.cumsum(lines[3:], axis=1)          # (3 bands, positions, [filled, ivory])
        ivory = [[0, *band_c[i, :, 1].tolist()] for i in range(2)]
        filled = [[0, *band_c[i, :, 0].tolist()] for i in range(3)]
        near = lines[3, :, 0].astype(bool)
        out = []
        for k in range(len(self._strips)):
            a, b = self._strip_off[k], self._strip_off[k + 1]
            out.append(self._parse_strip(k, occ[a:b], occ_c[a:b + 1], face_c[a:b + 1], [c[a:b + 1] for c in ivory],
                                         [c[a:b + 1] for c in filled], near[a:b] if self._gap_on_near[k] else None))
        return out

    def _parse_strip(self, k: int, occ: np.ndarray, occ_c: list, face_c: list, ivory: list, filled: list,
                     gap_occ: np.ndarray | None = None) -> dict:
        """Tiles along strip ``k``: ``rects`` [(rect, is_sideways, is_face_up, is_lying)], ``groups`` (runs of touching
        tiles, as index lists into rects) and ``added`` (rect index of a called tile -> its added-kan tile)."""
        strip = self._strips[k]

        def frac(c: list, a: int, b: int) -> float:
            b = min(b, len(c) - 1)
            return (c[b] - c[a]) / (b - a) if b > a else 0.0

        t = self.profile.tile
        W, L, gap = t.width_mm, t.length_mm, t.gap_mm
        n = len(occ)
        rects: list[tuple[TileRect, bool, bool]] = []
        groups: list[list[int]] = []
        added: dict[int, int] = {}
        allow_sideways = strip.kind in ("river", "melds")
        is_occluded = False
        doubtful: list[int] = []
        nadir_near = self._nadir_sides[k] > 0
        w_px = int(W / STEP_MM)
        current: list[int] = []
        if gap_occ is None:
            gap_occ = occ

        def tile_at(p: int) -> bool:
            return p + w_px <= n and frac(occ_c, p + 3, p + w_px - 3) > 0.6

        def next_start(p: int) -> int | None:
            """The first tile start after felt at or past ``p`` (a meld or hand begins)."""
            free = np.flatnonzero(~gap_occ[p:])
            if len(free) == 0:
                return None
            q = p + int(free[0])
            nxt = np.flatnonzero(gap_occ[q:])
            if len(nxt) == 0:
                return None
            q += int(nxt[0])
            return q + self._fringe_steps(strip, q)

        # the scan keeps the exact offset in mm (tiles are 26.5 / 34.5 mm apart) and samples at the
        # nearest step, so the error does not grow along a row
        pos_mm: float | None = 0.0
        if strip.kind != "river" and not tile_at(0):
            start = next_start(0)
            pos_mm = None if start is None else start * STEP_MM
        while pos_mm is not None:
            pos = int(round(pos_mm / STEP_MM))
            if pos + w_px > n:
                break
            if not tile_at(pos):
                if strip.kind == "river":
                    break
                if current:
                    groups.append(current)
                    current = []
                start = next_start(pos + 1)
                pos_mm = None if start is None else start * STEP_MM
                continue
            a, b = pos + 4, pos + w_px - 4
            is_side = has_added = False
            # a face-up top shows ivory between the glyph strokes; a face-down one only the back colour
            face_up = frac(face_c, pos + 3, pos + 20) > 0.45
            if not face_up and strip.kind == "reveal":
                # a busy face lying in a revealed hand (0p, 8s, 9p): its ivory border shows at both ends,
                # where a standing tile (only its thickness deep) leaves felt at the far one; anything
                # lying there reaches the far band: the classifier decides
                face_up = frac(ivory[0], a, b) + frac(ivory[1], a, b) > 1.0 or frac(filled[1], a, b) > 0.5
            if not face_up and strip.kind == "river":
                # a busy face (many dots or bamboos) leaves little ivory on the mid lines; an upright
                # tile's face still shows its ivory border near both ends (a hand over the row shows none)
                face_up = frac(ivory[0], a, b) + frac(ivory[1], a, b) > 1.0
                if not face_up:
                    # a river holds face-up tiles only: a tile here or a hand over the row. The
                    # classifier decides (read() ends the row at the first doubtful place it does
                    # not read as a tile)
                    doubtful.append(len(rects))
                    face_up = True
            classify_anyway = False
            if not face_up and strip.kind == "melds":
                if frac(filled[1], a, b) > 0.5:
                    # lying upright: a closed kan's back or a busy face; the classifier tells them apart
                    classify_anyway = True
                elif not any(i in doubtful for i in current):
                    # a busy face lying sideways (its far band is felt) or a standing tile of the hand:
                    # the classifier decides (read() takes a place it does not read as a tile for standing)
                    doubtful.append(len(rects))
                    face_up = True
            if allow_sideways and face_up:
                if strip.sideways == "center":
                    # the edge band facing away from the camera's foot point: no side wall shows there
                    k_band = 1 if nadir_near else 0
                    is_side = frac(ivory[k_band], a, b) < 0.3 and frac(filled[k_band], a, b) < 0.6
                else:
                    # the far band: an upright tile's face reaches it, a sideways one's does not (its
                    # side wall may show there, but that is not the ivory face)
                    has_added = frac(filled[2], a, b) > 0.6   # glyphs may reach the edge: any tile there
                    if self._far_on_felt[k]:
                        is_side = has_added or frac(filled[1], a, b) < 0.4
                    else:
                        is_side = has_added or frac(ivory[1], a, b) < 0.3
            # lying flat (not a standing hand tile): something fills the far band, as no standing tile does
            is_lying = is_side or frac(filled[1], a, b) > 0.5
            face_up = face_up or classify_anyway
            current.append(len(rects))
            rects.append((self._strip_tile(k, pos_mm, is_side, False), is_side, face_up, is_lying))
            if has_added:
                added[len(rects) - 1] = len(rects)
                rects.append((self._strip_tile(k, pos_mm, True, True), True, True, True))
            pos_mm += (L if is_side else W) + gap
            if strip.kind != "river":
                pos = int(round(pos_mm / STEP_MM))
                window = ~gap_occ[pos:pos + 10]
                if len(window) >= 2 and bool((window[:-1] & window[1:]).any()):   # felt between: a gap
                    groups.append(current)
                    current = []
                    start = next_start(pos)
                    pos_mm = None if start is None else start * STEP_MM
        if current:
            groups.append(current)
        return {"rects": rects, "groups": groups, "added": added, "occluded": is_occluded, "doubtful": doubtful}

    def _strip_tile(self, k: int, pos_mm: float, is_sideways: bool, is_behind: bool) -> TileRect:
        """``Layout.strip_tile`` for strip ``k``, kept per reader: the scan meets the same offsets frame after frame."""
        key = (k, pos_mm, is_sideways, is_behind)
        rect = self._tile_cache.get(key)
        if rect is None:
            if len(self._tile_cache) > 65536:
                self._tile_cache.clear()
            rect = self.layout.strip_tile(self._strips[k], pos_mm, is_sideways=is_sideways, is_behind=is_behind)
            self._tile_cache[key] = rect
        return rect

    def _fringe_steps(self, strip: Strip, p: int) -> int:
        """How far (samples) a tile's side wall shows before its top at strip position ``p``, when
        the camera's foot point lies behind it (the side facing the scan is then in view)."""
        right, _ = self.layout.seat_axes(strip.seat)
        s_nadir = float(self._nadir @ right) * strip.direction - strip.start_u * strip.direction
        s_edge = p * STEP_MM
        if s_nadir >= s_edge:
            return 0
        shift = self.T * (s_edge - s_nadir) / max(self._height - self.T, 1.0)
        return int(round(shift / STEP_MM))

    def _meld_rects(self, seat: int, strips: list[dict]) -> list[tuple[TileRect, bool, bool, bool]]:
        for strip, parsed in zip(self._strips, strips, strict=True):
            if strip.kind == "melds" and strip.seat == seat:
                return parsed["rects"]
        return []

    def _nadir_d(self, seat: int) -> float:
        """The camera's foot point as a distance from the centre towards ``seat``."""
        _, forward = self.layout.seat_axes(seat)
        return float(-(self._nadir @ forward))

    def _nadir_side(self, strip: Strip) -> float:
        """> 0 when the camera's foot point lies on the strip's near (player) side."""
        _, forward = self.layout.seat_axes(strip.seat)
        d_nadir = float(-(self._nadir @ forward))
        return d_nadir - (strip.near_d - self.profile.tile.length_mm / 2)

    def _melds(self, seat: int, parsed: dict, tiles: list[SeenTile],
               standing: set[int] | frozenset[int] = frozenset()) -> tuple[SeenMeld, ...]:
        out = []
        used: list[int] = []
        self._meld_used[seat] = used
        rects = parsed["rects"]
        added = parsed["added"]
        behind_idx = set(added.values())
        for group in parsed["groups"]:
            main = [i for i in group if i not in behind_idx]
            # within the strip tiles were found right to left; a meld reads left to right
            main = main[::-1]
            ts = [tiles[i] for i in main]
            side = [k for k, i in enumerate(main) if rects[i][1]]
            add = next((tiles[added[i]] for i in main if i in added), None)
            n = len(ts)
            if not all(rects[i][3] and i not in standing for i in main):
                break   # standing tiles: the concealed hand begins here
            backs = sum(1 for x in ts if x.tile == "back")
            kind = ""
            sideways = side[0] if len(side) == 1 else None
            source = None
            if n == 4 and backs in (2, 4) and sideways is None:
                kind = "ankan"
            elif n == 4 and sideways is not None:
                kind = "daiminkan"
            elif n == 3 and sideways is not None:
                faces = [x.tile for x in ts]
                if add is not None:
                    kind = "kakan"
                elif len({plain(f) for f in faces if f not in ("back", "none")}) == 1:
                    kind = "pon"
                else:
                    kind = "chi"
            else:
                break   # not a meld: the hand (standing or revealed) begins here
            if sideways is not None:
                source = source_from_position(seat, sideways, n, self.profile.positions)
            out.append(SeenMeld(tuple(ts), kind, sideways, add, source))
            used.extend(main)
        return tuple(out)

    # ---- crops and classification
    def crops(self, frame: np.ndarray, rects: Sequence[TileRect]) -> list[np.ndarray]:
        """Square crops (crop_px) around tile tops, oriented as their owner reads them.

        All crops come from one ``cv2.remap``: crop pixel -> table mm at the top's height
        (affine) -> frame pixel (that height's plane homography).
        """
        if not rects:
            return []
        p = self.crop_px
        q = np.array([r.corners for r in rects], np.float64)       # n, 4, 2
        ex = q[:, 1] - q[:, 0]
        ey = q[:, 3] - q[:, 0]
        lx = np.hypot(ex[:, 0], ex[:, 1])
        ly = np.hypot(ey[:, 0], ey[:, 1])
        side = np.maximum(lx, ly) * CROP_MARGIN
        g = ((np.arange(p) + 0.5) / p - 0.5).astype(np.float32)
        ux = (ex / lx[:, None] * side[:, None]).astype(np.float32)
        uy = (ey / ly[:, None] * side[:, None]).astype(np.float32)
        centre = q.mean(axis=1).astype(np.float32)
        x = centre[:, None, None, 0] + g[None, None, :] * ux[:, None, None, 0] + g[None, :, None] * uy[:, None, None, 0]
        y = centre[:, None, None, 1] + g[None, None, :] * ux[:, None, None, 1] + g[None, :, None] * uy[:, None, None, 1]
        z = np.array([r.z_mm for r in rects])
        mx = np.empty(x.shape, np.float32)
        my = np.empty(x.shape, np.float32)
        for level in np.unique(z):
            sel = z == level
            (h00, h01, h02), (h10, h11, h12), (h20, h21, h22) = self._plane_h(float(level)).tolist()
            xs, ys = x[sel], y[sel]
            w = h20 * xs + h21 * ys + h22
            mx[sel] = (h00 * xs + h01 * ys + h02) / w
            my[sel] = (h10 * xs + h11 * ys + h12) / w
        n = len(rects)
        out = cv2.remap(frame, mx.reshape(n * p, p), my.reshape(n * p, p), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        return [out[i * p:(i + 1) * p] for i in range(n)]

    def _plane_h(self, z_mm: float) -> np.ndarray:
        key = round(z_mm, 3)
        H = self._plane_cache.get(key)
        if H is None:
            H = self.camera.plane_homography(z_mm)
            self._plane_cache[key] = H
        return H

    def _classify_crops(self, crops: list[np.ndarray],
                        faces: Sequence[tuple[float, float] | None] | None = None) -> list[TileGuess]:
        """The classifier's answers; a crop answered less sure than ``_SECOND_LOOK`` is classified
        again turned by 90, 180 and 270 degrees and the answers vote (each with its confidence): a
        busy face at a slant (7p, 6p) is often read surer turned. A tile in a row of touching tiles
        (``faces[i]``: its face's width and height as fractions of the crop, given for the tiles of
        a revealed hand) is also classified cut tight to its own face, the neighbours' edges that a
        square crop takes in left out (the classifier pads the cut with its own edge); that answer
        votes twice: a face between two alike neighbours (5s between 4s and 6s) reads surer alone."""
        guesses = self.classifier.classify(crops)
        weak = [i for i, g in enumerate(guesses) if g.best not in ("", "none") and g.best_confidence < _SECOND_LOOK]
        if not weak:
            return guesses
        # cv2.rotate gives np.rot90's pixels (k = 1, 2, 3: counter-clockwise turns), without numpy's overhead
        second = [cv2.rotate(crops[i], code) for i in weak for code in _ROT90]
        packed = [i for i in weak if faces is not None and faces[i] is not None]
        second += [_tight(crops[i], faces[i]) for i in packed]  # type: ignore[index,arg-type]
        answers = self.classifier.classify(second)
        tight = dict(zip(packed, answers[3 * len(weak):], strict=True))
        out = list(guesses)
        for n, i in enumerate(weak):
            voters = [(g, 1.0) for g in (guesses[i], *answers[3 * n:3 * n + 3])]
            if i in tight:
                voters.append((tight[i], 2.0))
            votes: dict[str, float] = {}
            for g, weight in voters:
                votes[g.best] = votes.get(g.best, 0.0) + weight * g.best_confidence
            best, total = max(votes.items(), key=lambda kv: kv[1])
            conf = total / sum(weight for _g, weight in voters)
            if best == guesses[i].best and conf <= guesses[i].best_confidence:
                continue
            sure = conf >= MIN_CONFIDENCE
            out[i] = TileGuess(best if sure else "none", conf if sure else 1.0 - conf,
                               (guesses[i].rotation or 0) if sure else None, best, conf)
        return out

    def _classify(self, rects: list[TileRect], packed: Sequence[bool] | None = None) -> list[TileGuess]:
        """Classify the tiles at ``rects`` (``packed[i]``: rect i lies in a row of touching tiles)."""
        if not rects:
            return []
        crops = self.crops(self._frame, rects)
        faces = [_face_fraction(r) if packed is not None and packed[i] else None for i, r in enumerate(rects)]
        if not self.reuse_crops:
            return self._classify_crops(crops, faces)
        # a tile that looks as it did last frame keeps its answer: only changed crops are classified
        small = [cv2.resize(c, (8, 8), interpolation=cv2.INTER_AREA).astype(np.int16) for c in crops]
        keys = [(tuple(round(v, 1) for xy in r.corners for v in xy), r.z_mm) for r in rects]
        out: list[TileGuess | None] = []
        todo = []
        for i, (key, sig) in enumerate(zip(keys, small, strict=True)):
            hit = self._crop_cache.get(key)
            if hit is not None and float(np.abs(hit[0] - sig).mean()) < _REUSE_DIFF:
                out.append(hit[1])
            else:
                out.append(None)
                todo.append(i)
        for i, guess in zip(todo, self._classify_crops([crops[i] for i in todo], [faces[i] for i in todo]), strict=True):
            out[i] = guess
            self._crop_cache[keys[i]] = (small[i], guess)
        if len(self._crop_cache) > 4096:
            self._crop_cache.clear()
        return out  # type: ignore[return-value]


def _face_fraction(rect: TileRect) -> tuple[float, float]:
    """The face's width and height as fractions of its square crop (side: long side x CROP_MARGIN)."""
    q = np.asarray(rect.corners, np.float64)
    lx = float(np.hypot(*(q[1] - q[0])))
    ly = float(np.hypot(*(q[3] - q[0])))
    side = max(lx, ly, 1e-9) * CROP_MARGIN
    return lx / side, ly / side


def _tight(crop: np.ndarray, face: tuple[float, float]) -> np.ndarray:
    """The middle of a square crop that holds only the tile's own face."""
    p = crop.shape[0]
    w = max(4, min(p, int(round(p * face[0]))))
    h = max(4, min(p, int(round(p * face[1]))))
    x0, y0 = (p - w) // 2, (p - h) // 2
    return crop[y0:y0 + h, x0:x0 + w]
