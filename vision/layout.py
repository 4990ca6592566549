"""Table-plane geometry in millimetres, from a physical table profile (``hardware/profiles/*.toml``).

Pure: no I/O beyond reading the profile once. The table frame has its origin at the table
centre, ``x`` to the right of position 0 and ``y`` away from it; heights ``z`` are above the
felt. Position 0 sits at the bottom edge, positions 1, 2, 3 follow counter-clockwise (right,
top, left), which is the turn order. Each seat's areas are given in the seat frame: ``u`` from
the seat's left to its right, ``d`` the distance from the centre towards the seat.

A tile lying in an area is a :class:`TileRect`: its four table corners in face order
(top-left, top-right, bottom-right, bottom-left of the face as its owner reads it) and the
height of its top. Wall stacks are numbered from 1 at the wall owner's right end (clockwise
around the table), as ``controller.events`` numbers them.

>>> lay = Layout(load_profile("riichi4"))
>>> len(lay.wall_slots())
68
>>> s = lay.wall_slot(0, 1)
>>> round(s.centre[0], 2), round(s.centre[1], 2)
(212.0, -259.0)
>>> lay.to_table(1, 0.0, 100.0)
(100.0, 0.0)
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from firmware_bridge.errors import TableError

_AXES = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))   # cos, sin of 90 degrees x seat
PROFILE_DIR = Path(__file__).resolve().parent.parent / "hardware" / "profiles"


class VisionError(TableError):
    """The vision branch of ``TableError``: camera, calibration, profiles, classifier, reader."""


class ProfileError(VisionError, ValueError):
    """A table profile that cannot be used; the message names the file, section and key."""


# --------------------------------------------------------------------------- profile


@dataclass(frozen=True)
class TileSpec:
    width_mm: float
    length_mm: float
    thickness_mm: float
    face_layer: float
    gap_mm: float


@dataclass(frozen=True)
class MarkerSpec:
    dictionary: str
    size_mm: float
    ids: tuple[int, ...]
    centres_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class WallSpec:
    positions: tuple[int, ...]
    stacks: int
    inner_mm: float


@dataclass(frozen=True)
class RiverSpec:
    per_row: int
    rows: int
    left_mm: float
    first_row_mm: float
    row_gap_mm: float
    sideways: str


@dataclass(frozen=True)
class StripSpec:
    """A row of tiles at a seat: starts at ``start_mm`` (u), runs ``length_mm`` to the right
    (``direction`` +1) or left (-1); ``near_mm`` is the d of its edge nearest the player."""

    start_mm: float
    direction: int
    near_mm: float
    length_mm: float


@dataclass(frozen=True)
class TableProfile:
    name: str
    description: str
    positions: int
    tile: TileSpec
    felt_half_mm: float
    markers: MarkerSpec
    wall: WallSpec
    river: RiverSpec
    melds: StripSpec
    meld_gap_mm: float
    reveal: StripSpec
    flowers: StripSpec
    source: str = "<profile>"


class _Section:
    """Typed getters over one TOML table; every key must be read, or it is refused by name."""

    def __init__(self, origin: str, name: str, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise ProfileError(f"profile {origin}: [{name}] must be a section")
        self.origin, self.name, self.raw, self.used = origin, name, raw, set()

    def _where(self, key: str) -> str:
        return f"profile {self.origin}: [{self.name}] {key!r}" if self.name else f"profile {self.origin}: {key!r}"

    def get(self, key: str) -> Any:
        self.used.add(key)
        if key not in self.raw:
            raise ProfileError(f"{self._where(key)} is missing")
        return self.raw[key]

    def num(self, key: str, lo: float, hi: float) -> float:
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ProfileError(f"{self._where(key)} is {v!r}, must be a number")
        if not lo <= v <= hi:
            raise ProfileError(f"{self._where(key)} is {v}, must be within {lo}..{hi}")
        return float(v)

    def int(self, key: str, lo: int, hi: int) -> int:
        v = self.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ProfileError(f"{self._where(key)} is {v!r}, must be an integer within {lo}..{hi}")
        return v

    def str(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        v = self.get(key)
        if not isinstance(v, str) or (choices and v not in choices):
            want = f"one of {', '.join(choices)}" if choices else "text"
            raise ProfileError(f"{self._where(key)} is {v!r}, must be {want}")
        return v

    def done(self) -> None:
        unknown = sorted(set(self.raw) - self.used)
        if unknown:
            raise ProfileError(f"profile {self.origin}: unknown key {unknown[0]!r}"
                               + (f" in [{self.name}]" if self.name else ""))


def load_profile(name_or_path: str | Path) -> TableProfile:
    """Read a table profile by name (``riichi4``, ``hk144``, ``sanma``) or path; validate every key.

    Raises ProfileError naming the file, the section and the key for a missing, unknown or
    out-of-range value, or an area that overlaps the walls.
    """
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = PROFILE_DIR / f"{name_or_path}.toml"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in PROFILE_DIR.glob("*.toml")))
            raise ProfileError(f"unknown table profile {str(name_or_path)!r} (known: {known})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise ProfileError(f"profile file {path} does not exist") from err
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"profile {path}: not valid TOML: {err}") from err
    return parse_profile(raw, origin=str(path))


def parse_profile(raw: dict[str, Any], *, origin: str = "<profile>") -> TableProfile:
    top = _Section(origin, "", raw)
    sections = ("tile", "felt", "markers", "wall", "river", "melds", "reveal", "flowers")
    for key in raw:
        if isinstance(raw[key], dict) and key not in sections:
            raise ProfileError(f"profile {origin}: unknown section [{key}] (known: {', '.join(sections)})")
    name = top.str("name")
    description = top.str("description")
    positions = top.int("positions", 3, 4)

    s = _Section(origin, "tile", top.get("tile"))
    tile = TileSpec(s.num("width_mm", 10, 60), s.num("length_mm", 14, 80), s.num("thickness_mm", 5, 40),
                    s.num("face_layer", 0.1, 0.9), s.num("gap_mm", 0, 5))
    s.done()
    if tile.length_mm <= tile.width_mm:
        raise ProfileError(f"profile {origin}: [tile] length_mm {tile.length_mm} must exceed width_mm {tile.width_mm}")

    s = _Section(origin, "felt", top.get("felt"))
    felt_half = s.num("half_mm", 200, 1000)
    s.done()

    s = _Section(origin, "markers", top.get("markers"))
    dictionary = s.str("dictionary")
    size = s.num("size_mm", 10, 200)
    ids = s.get("ids")
    centres = s.get("centres_mm")
    s.done()
    if not (isinstance(ids, list) and len(ids) == 4 and all(isinstance(i, int) and 0 <= i < 1000 for i in ids)
            and len(set(ids)) == 4):
        raise ProfileError(f"profile {origin}: [markers] 'ids' is {ids!r}, must be four different ids 0..999")
    if not (isinstance(centres, list) and len(centres) == 4
            and all(isinstance(c, list) and len(c) == 2 and all(isinstance(v, (int, float)) for v in c)
                    for c in centres)):
        raise ProfileError(f"profile {origin}: [markers] 'centres_mm' must be four [x, y] pairs")
    markers = MarkerSpec(dictionary, size, tuple(ids), tuple((float(x), float(y)) for x, y in centres))

    s = _Section(origin, "wall", top.get("wall"))
    wall_pos = s.get("positions")
    wall = WallSpec(tuple(wall_pos) if isinstance(wall_pos, list) else (), s.int("stacks", 8, 24),
                    s.num("inner_mm", 50, 800))
    s.done()
    if not wall.positions or any(p not in range(positions) for p in wall.positions) \
            or len(set(wall.positions)) != len(wall.positions):
        raise ProfileError(f"profile {origin}: [wall] 'positions' is {wall_pos!r}, must list seats 0..{positions - 1}")
    half_wall = wall.stacks * (tile.width_mm + tile.gap_mm) / 2
    if half_wall > wall.inner_mm:
        raise ProfileError(f"profile {origin}: [wall] {wall.stacks} stacks need inner_mm >= {half_wall:.1f} "
                           f"(is {wall.inner_mm}): the walls would overlap at the corners")

    s = _Section(origin, "river", top.get("river"))
    river = RiverSpec(s.int("per_row", 3, 12), s.int("rows", 1, 6), s.num("left_mm", -500, 500),
                      s.num("first_row_mm", 0, 500), s.num("row_gap_mm", 0, 20),
                      s.str("sideways", ("center", "near")))
    s.done()
    river_outer = river.first_row_mm + river.rows * (tile.length_mm + river.row_gap_mm)
    if river_outer > wall.inner_mm:
        raise ProfileError(f"profile {origin}: [river] {river.rows} rows reach d={river_outer:.0f} mm, "
                           f"past the wall at inner_mm={wall.inner_mm}")

    def strip(section: str, start_key: str, direction: int) -> tuple[StripSpec, _Section]:
        st = _Section(origin, section, top.get(section))
        spec = StripSpec(st.num(start_key, -1000, 1000), direction, st.num("near_mm", 0, 1000),
                         st.num("length_mm", tile.width_mm, 1000))
        if spec.near_mm - tile.length_mm < wall.inner_mm + tile.length_mm:
            raise ProfileError(f"profile {origin}: [{section}] near_mm {spec.near_mm} puts the strip on the wall "
                               f"(must be >= {wall.inner_mm + 2 * tile.length_mm})")
        return spec, st

    melds, s = strip("melds", "right_mm", -1)
    meld_gap = s.num("meld_gap_mm", 2, 40)
    if s.str("sideways", ("near",)) != "near":  # pragma: no cover - checked by choices
        raise ProfileError("unreachable")
    s.done()
    reveal, s = strip("reveal", "left_mm", +1)
    s.done()
    flowers, s = strip("flowers", "left_mm", +1)
    s.done()
    top.done()
    return TableProfile(name, description, positions, tile, felt_half, markers, wall, river, melds, meld_gap,
                        reveal, flowers, origin)


# --------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class TileRect:
    """A tile's top face in table mm: ``corners`` (4x2) in face order TL, TR, BR, BL, ``z_mm`` its height."""

    corners: tuple[tuple[float, float], ...]
    z_mm: float

    @property
    def centre(self) -> tuple[float, float]:
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = self.corners
        return (ax + bx + cx + dx) / 4, (ay + by + cy + dy) / 4

    def array(self) -> np.ndarray:
        return np.asarray(self.corners, dtype=np.float64)


@dataclass(frozen=True)
class WallSlot:
    """Wall slot ``stack`` (1 = the owner's right end) of the wall in front of ``wall``."""

    wall: int
    stack: int
    rect: TileRect  # the footprint (z_mm = 0); the face order reads upright for the wall's owner

    @property
    def centre(self) -> tuple[float, float]:
        return self.rect.centre


@dataclass(frozen=True)
class Strip:
    """A row along which tiles are laid, in the seat frame: from ``start_u`` towards ``direction``."""

    seat: int
    kind: str          # river | melds | reveal | flowers
    index: int         # row number for a river, else 0
    start_u: float
    direction: int
    near_d: float
    length_mm: float
    sideways: str      # center | near


class Layout:
    """Where everything lies on the table, in table-plane millimetres, for one profile."""

    def __init__(self, profile: TableProfile) -> None:
        self.profile = profile
        self.tile = profile.tile
        self.pitch_mm = profile.tile.width_mm + profile.tile.gap_mm

    # ---- frames
    @staticmethod
    def seat_axes(seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(right, towards-centre) unit vectors of ``seat`` in the table frame."""
        c, s = _AXES[seat % 4]
        return np.array([c, s]), np.array([-s, c])

    @staticmethod
    def to_table(seat: int, u: float, d: float) -> tuple[float, float]:
        """Seat-frame (u right, d from centre towards the seat) to table (x, y) mm."""
        c, s = _AXES[seat % 4]
        # p = u * right - d * forward, right = (c, s), forward = (-s, c)
        return u * c + d * s + 0.0, u * s - d * c + 0.0

    def to_table_array(self, seat: int, u: np.ndarray, d: np.ndarray) -> np.ndarray:
        right, forward = self.seat_axes(seat)
        return u[..., None] * right - d[..., None] * forward

    def seat_rect(self, seat: int, u0: float, u1: float, d_far: float, d_near: float, z_mm: float) -> TileRect:
        """A face-up tile read upright by ``seat``: u0..u1 left to right, d_far (top) .. d_near (bottom)."""
        pts = [self.to_table(seat, u0, d_far), self.to_table(seat, u1, d_far),
               self.to_table(seat, u1, d_near), self.to_table(seat, u0, d_near)]
        return TileRect(tuple(pts), z_mm)

    def sideways_rect(self, seat: int, u0: float, u1: float, d_far: float, d_near: float,
                      z_mm: float) -> TileRect:
        """A tile turned sideways (rotated a quarter turn counter-clockwise, its top to the seat's left)."""
        pts = [self.to_table(seat, u0, d_near), self.to_table(seat, u0, d_far),
               self.to_table(seat, u1, d_far), self.to_table(seat, u1, d_near)]
        return TileRect(tuple(pts), z_mm)

    # ---- walls
    @property
    def wall_positions(self) -> tuple[int, ...]:
        return self.profile.wall.positions

    def wall_length_mm(self) -> float:
        return self.profile.wall.stacks * self.pitch_mm

    def wall_slot(self, wall: int, stack: int) -> WallSlot:
        w = self.profile.wall
        if wall not in w.positions:
            raise ValueError(f"layout {self.profile.name}: no wall in front of seat {wall} (walls: {w.positions})")
        if not 1 <= stack <= w.stacks:
            raise ValueError(f"layout {self.profile.name}: stack {stack} out of range 1..{w.stacks}")
        u1 = self.wall_length_mm() / 2 - (stack - 1) * self.pitch_mm - self.tile.gap_mm / 2
        u0 = u1 - self.tile.width_mm
        rect = self.seat_rect(wall, u0, u1, w.inner_mm, w.inner_mm + self.tile.length_mm, 0.0)
        return WallSlot(wall, stack, rect)

    def wall_slots(self) -> list[WallSlot]:
        return [self.wall_slot(w, i) for w in self.wall_positions for i in range(1, self.profile.wall.stacks + 1)]

    def wall_top(self, wall: int, stack: int, tiles: int) -> TileRect:
        """The top face of a slot holding ``tiles`` (1 or 2) tiles."""
        r = self.wall_slot(wall, stack).rect
        return TileRect(r.corners, tiles * self.tile.thickness_mm)

    # ---- strips
    def river_strip(self, seat: int, row: int) -> Strip:
        rv = self.profile.river
        if not 0 <= row < rv.rows:
            raise ValueError(f"layout {self.profile.name}: river row {row} out of range 0..{rv.rows - 1}")
        near = rv.first_row_mm + row * (self.tile.length_mm + rv.row_gap_mm) + self.tile.length_mm
        length = rv.per_row * self.pitch_mm + (self.tile.length_mm - self.tile.width_mm) * 2
        return Strip(seat, "river", row, rv.left_mm, +1, near, length, rv.sideways)

    def river_strips(self, seat: int) -> list[Strip]:
        return [self.river_strip(seat, r) for r in range(self.profile.river.rows)]

    def meld_strip(self, seat: int) -> Strip:
        m = self.profile.melds
        return Strip(seat, "melds", 0, m.start_mm, m.direction, m.near_mm, m.length_mm, "near")

    def reveal_strip(self, seat: int) -> Strip:
        m = self.profile.reveal
        return Strip(seat, "reveal", 0, m.start_mm, m.direction, m.near_mm, m.length_mm, "near")

    def flower_strip(self, seat: int) -> Strip:
        m = self.profile.flowers
        return Strip(seat, "flowers", 0, m.start_mm, m.direction, m.near_mm, m.length_mm, "near")

    # ---- riichi sticks
    STICK_MM = (100.0, 10.0, 3.0)    # a 1000-point stick: length, width, thickness

    def stick_rect(self, seat: int) -> TileRect:
        """Where ``seat`` puts its riichi stick: along the river, between its first row and the centre,
        centred on the row (its top at the stick's thickness)."""
        rv = self.profile.river
        length, width, thick = self.STICK_MM
        u_mid = rv.left_mm + rv.per_row * self.pitch_mm / 2
        d_near = rv.first_row_mm - 6.0
        return self.seat_rect(seat, u_mid - length / 2, u_mid + length / 2, d_near - width, d_near, thick)

    def strips(self) -> list[Strip]:
        out: list[Strip] = []
        for seat in range(self.profile.positions):
            out += self.river_strips(seat)
            out += [self.meld_strip(seat), self.reveal_strip(seat), self.flower_strip(seat)]
        return out

    def strip_tile(self, strip: Strip, offset_mm: float, *, is_sideways: bool = False,
                   is_behind: bool = False) -> TileRect:
        """The tile lying in ``strip`` starting ``offset_mm`` along it (upright, or sideways).

        ``is_behind``: the added tile of an added kan, sideways behind the called tile.
        Heights: a tile lies on the felt, its face at the tile's thickness.
        """
        t = self.tile
        along = t.length_mm if is_sideways else t.width_mm
        if strip.direction > 0:
            u0 = strip.start_u + offset_mm
        else:
            u0 = strip.start_u - offset_mm - along
        u1 = u0 + along
        near = strip.near_d
        if not is_sideways:
            return self.seat_rect(strip.seat, u0, u1, near - t.length_mm, near, t.thickness_mm)
        if strip.sideways == "center":
            inset = (t.length_mm - t.width_mm) / 2
            return self.sideways_rect(strip.seat, u0, u1, near - inset - t.width_mm, near - inset, t.thickness_mm)
        if is_behind:
            d_near = near - t.width_mm - t.gap_mm
            return self.sideways_rect(strip.seat, u0, u1, d_near - t.width_mm, d_near, t.thickness_mm)
        return self.sideways_rect(strip.seat, u0, u1, near - t.width_mm, near, t.thickness_mm)

    def lay_row(self, strip: Strip, sideways: list[bool], *, gaps_after: frozenset[int] = frozenset(),
                gap_mm: float | None = None) -> list[TileRect]:
        """Rects of tiles laid one after another along ``strip``; ``gaps_after`` indexes get a meld gap."""
        rects = []
        pos = 0.0
        gap = self.profile.meld_gap_mm if gap_mm is None else gap_mm
        for i, is_side in enumerate(sideways):
            rects.append(self.strip_tile(strip, pos, is_sideways=is_side))
            pos += (self.tile.length_mm if is_side else self.tile.width_mm) + self.tile.gap_mm
            if i in gaps_after:
                pos += gap
        return rects

    # ---- markers
    def marker_corners(self) -> dict[int, np.ndarray]:
        """Each marker's four corners (table mm, z=0) in ArUco order TL, TR, BR, BL, printed upright for seat 0."""
        m = self.profile.markers
        h = m.size_mm / 2
        out = {}
        for mid, (cx, cy) in zip(m.ids, m.centres_mm, strict=True):
            out[mid] = np.array([[cx - h, cy + h], [cx + h, cy + h], [cx + h, cy - h], [cx - h, cy - h]])
        return out


def source_from_position(seat: int, sideways_index: int, n_tiles: int, players: int = 4) -> int:
    """Which seat a called tile came from, from where the sideways tile lies (left/middle/right).

    Left: the player on the left (kamicha, previous in turn); right: the player on the right
    (shimocha, next); otherwise across (toimen). Seats count counter-clockwise in turn order;
    with three players (sanma) there is no one across.
    """
    if sideways_index == 0:
        return (seat - 1) % players
    if sideways_index == n_tiles - 1 or players == 3:
        return (seat + 1) % players
    return (seat + 2) % players


def sideways_index_for(seat: int, source: int, n_tiles: int, players: int = 4) -> int:
    """Where the sideways tile lies in a called meld of ``n_tiles`` (inverse of source_from_position):
    left for the previous player, right for the next, else across (with three players the
    previous player is two seats on)."""
    rel = (source - seat) % players
    if rel == players - 1:
        return 0
    if rel == 1:
        return n_tiles - 1
    if rel == 2:
        return 1
    raise ValueError(f"seat {seat} cannot call its own tile (source {source})")
