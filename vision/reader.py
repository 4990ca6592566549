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

import cv2
import numpy as np

from vision.calibration import Calibration, CalibrationError, pose_warnings
from vision.classifier import TileClassifier
from vision.decode import INPUT_SIZE, TileGuess
from vision.hand_count import StandingCounter
from vision.layout import Layout, Strip, TableProfile, TileRect
from vision.reader_crops import CropReading
from vision.reader_samples import _Colour, _Samples, _seg_points
from vision.reader_strips import StripParsing
from vision.reader_view import (
    _BACK_CONFIDENCE,
    _DOUBTFUL_CONFIDENCE,
    _FACE_BRIGHT,
    _FACE_CHROMA,
    _OTHER_BACK_CHROMA,
    _SECOND_LOOK,  # noqa: F401  (vision.reader's own names)
    STEP_MM,
    Indicator,
    ReaderError,
    SeenMeld,
    SeenTile,
    TableView,
    _seen,
    colour_name,
)

log = logging.getLogger(__name__)




# --------------------------------------------------------------------------- reader


class TableReader(StripParsing, CropReading):
    """Reads a table frame at the layout's places. Build once per calibration; :meth:`read` per frame.

    ``classifier`` is any ``TileClassifier`` (the shipped ``OnnxTileClassifier`` in production).
    ``reuse_crops``: keep the answer for a tile whose crop looks as it did in the previous
    frame, or found a step (1 mm) off a place of the previous frame that looks as it did (the
    daemon's loop; a bench of cold reads leaves it off).
    Raises CalibrationError if the calibration was made for another table profile.
    """

    def __init__(self, profile: TableProfile, calibration: Calibration, classifier: TileClassifier, *,
                 crop_px: int = INPUT_SIZE, reuse_crops: bool = False) -> None:
        calibration.check_matches(profile=profile)
        self.profile = profile
        self.layout = Layout(profile)
        # the standing hands counted from above (vision.hand_count), for the tracker's HandCount
        # (a seat that never lays its hand down may still hold 12 or 14)
        self.count_hands = True
        self._norths_aside = profile.positions == 3     # three-player riichi sets norths aside (nuki)
        self.calibration = calibration
        self.camera = calibration.camera
        self._standing = StandingCounter(self.camera, self.layout)
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
        self._strip_windows: tuple[int, list] | None = None     # reader_strips._strip_measures' windows
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
        self._crop_cache: dict[tuple, tuple[np.ndarray, TileGuess, TileRect]] = {}   # key -> thumbnail, answer, place
        self._crop_maps: dict[int, dict[TileRect, tuple]] = {}   # reader_crops._stacked_maps: size -> rect -> maps
        self._crop_keys: dict[TileRect, tuple] = {}                           # reader_crops._crop_key
        self._crop_stack: dict[int, tuple[tuple, tuple]] = {}    # reader_crops._stacked_maps: size -> the last stack
        self.revealed_rects: dict[int, list[TileRect]] = {}   # last read: position -> its revealed tiles' rects
        self._frame = np.zeros((1, 1, 3), np.uint8)

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
                # only flowers and seasons count here (an added kan tile may reach into the strip),
                # and at a three-player table the norths set aside (nuki, 抜き)
                faces = tuple(t for t in tiles if t.tile.endswith("f") or (t.tile == "4z" and self._norths_aside))
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
        standing = self._standing.count(frame, [p for p in range(4) if p not in revealed]) if self.count_hands else {}
        return TableView(walls, indicators, {k: tuple(v) for k, v in rivers.items()}, melds, revealed, flowers,
                         now, len({jobs[i][0] for i in todo}), backs, frozenset(occluded), win_tiles, sticks, standing)

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
        # the other set's backs are another colour by design: a top that still has the walls' own
        # colour name is the table's set in a shadow or under an arm's edge, not a tile of the other
        # set (seen in a default run: "the other set's back (blue)" on a blue set, holding a result)
        own = colour_name(np.median(cols, axis=0))
        for k, is_far, col in zip(keys, far, cols, strict=True):
            if is_far and colour_name(col) != own:
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
