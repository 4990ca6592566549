"""The reader's strips: rivers, melds, revealed hands and flowers parsed along their rows
(a mixin of ``vision.reader.TableReader``)."""

from __future__ import annotations

import logging

import numpy as np

from controller.rules.tiles import plain
from vision.layout import Strip, TileRect, source_from_position
from vision.reader_view import (
    STEP_MM,
    SeenMeld,
    SeenTile,
)

log = logging.getLogger(__name__)


class StripParsing:
    """Parsing of the strips along the table's rows (see ``TableReader``)."""

    def _parse_strips(self, flat: np.ndarray) -> list[dict]:
        if not self._strips:
            return []
        lines = self._samples.get(flat, "strips")      # (6, all strips' positions, [occupied, ivory])
        occ = lines[:3, :, 0].any(axis=0)
        near = lines[3, :, 0].astype(bool)
        measures = self._strip_measures(occ, lines)
        out = []
        for k in range(len(self._strips)):
            a, b = self._strip_off[k], self._strip_off[k + 1]
            if not occ[a:b].any():      # nothing on the strip: no place holds a tile (see tile_at)
                out.append({"rects": [], "groups": [], "added": {}, "occluded": False, "doubtful": []})
                continue
            out.append(self._parse_strip(k, occ[a:b], measures[:, a:b], near[a:b] if self._gap_on_near[k] else None))
        return out

    def _strip_measures(self, occ: np.ndarray, lines: np.ndarray) -> np.ndarray:
        """For every position p of every strip, the fractions the scan asks of a tile starting at p
        (rows: occupied over the tile's width less 3 mm each end, then ``_parse_strip``'s ``face``,
        ``ivory`` and ``filled``): windows of the lines after p, each cut at its strip's end. Running
        sums make each window two lookups: c[b] - c[a] counts the hits in [a, b)."""
        n = occ.shape[0]
        if self._strip_windows is None or self._strip_windows[0] != n:
            self._strip_windows = (n, self._windows(n))
        (a_tile, b_tile, s_tile), (a_face, b_face, s_face), (a_band, b_band, s_band) = self._strip_windows[1]
        sums = np.zeros((7, n + 1), np.int32)
        np.cumsum(occ, out=sums[0, 1:])
        np.cumsum(lines[:3, :, 1].sum(axis=0, dtype=np.int32), out=sums[1, 1:])
        np.cumsum(lines[3:5, :, 1], axis=1, dtype=np.int32, out=sums[2:4, 1:])
        np.cumsum(lines[3:6, :, 0], axis=1, dtype=np.int32, out=sums[4:7, 1:])
        out = np.empty((7, n))
        np.divide(sums[0, b_tile] - sums[0, a_tile], s_tile, out=out[0])
        np.divide(sums[1, b_face] - sums[1, a_face], s_face, out=out[1])
        np.divide(np.take(sums[2:], b_band, axis=1) - np.take(sums[2:], a_band, axis=1), s_band, out=out[2:])
        return out

    def _windows(self, n: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``_strip_measures``' windows [p + lo, min(p + hi, strip end)) for the n positions: their
        ends and sizes (inf for an empty window, and for a tile's window where the tile would not fit
        on its strip, so that its fraction is 0)."""
        end = np.repeat(np.asarray(self._strip_off[1:]), np.diff(self._strip_off))
        pos = np.arange(n)
        w_px = int(self.profile.tile.width_mm / STEP_MM)
        out = []
        for lo, hi in ((3, w_px - 3), (3, 20), (4, w_px - 4)):
            a = np.minimum(pos + lo, n)
            b = np.minimum(pos + hi, end)
            size = (b - a).astype(np.float64)
            size[size <= 0] = np.inf
            if lo == 3 and hi == w_px - 3:
                size[pos + w_px > end] = np.inf
            out.append((a, np.maximum(b, a), size))
        return out

    def _parse_strip(self, k: int, occ: np.ndarray, measures: np.ndarray, gap_occ: np.ndarray | None = None) -> dict:
        """Tiles along strip ``k``: ``rects`` [(rect, is_sideways, is_face_up, is_lying)], ``groups`` (runs of touching
        tiles, as index lists into rects) and ``added`` (rect index of a called tile -> its added-kan tile).
        ``measures``: the strip's columns of ``_strip_measures``."""
        strip = self._strips[k]
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

        tile_frac = measures[0]

        def tile_at(p: int) -> bool:
            return p < n and tile_frac[p] > 0.6

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
            # the fractions of its windows: ivory over the top's first 17 mm, and the near and mid lines'
            # ivory and the near, mid and far bands' filled, each over the tile's width less 4 mm each end
            face, ivory0, ivory1, filled0, filled1, filled2 = measures[1:, pos].tolist()
            ivory, filled = (ivory0, ivory1), (filled0, filled1, filled2)
            is_side = has_added = False
            # a face-up top shows ivory between the glyph strokes; a face-down one only the back colour
            face_up = face > 0.45
            if not face_up and strip.kind == "reveal":
                # a busy face lying in a revealed hand (0p, 8s, 9p): its ivory border shows at both ends,
                # where a standing tile (only its thickness deep) leaves felt at the far one; anything
                # lying there reaches the far band: the classifier decides
                face_up = ivory[0] + ivory[1] > 1.0 or filled[1] > 0.5
            if not face_up and strip.kind == "river":
                # a busy face (many dots or bamboos) leaves little ivory on the mid lines; an upright
                # tile's face still shows its ivory border near both ends (a hand over the row shows none)
                face_up = ivory[0] + ivory[1] > 1.0
                if not face_up:
                    # a river holds face-up tiles only: a tile here or a hand over the row. The
                    # classifier decides (read() ends the row at the first doubtful place it does
                    # not read as a tile)
                    doubtful.append(len(rects))
                    face_up = True
            classify_anyway = False
            if not face_up and strip.kind == "melds":
                if filled[1] > 0.5:
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
                    is_side = ivory[k_band] < 0.3 and filled[k_band] < 0.6
                else:
                    # the far band: an upright tile's face reaches it, a sideways one's does not (its
                    # side wall may show there, but that is not the ivory face)
                    has_added = filled[2] > 0.6   # glyphs may reach the edge: any tile there
                    if self._far_on_felt[k]:
                        is_side = has_added or filled[1] < 0.4
                    else:
                        is_side = has_added or ivory[1] < 0.3
            # lying flat (not a standing hand tile): something fills the far band, as no standing tile does
            is_lying = is_side or filled[1] > 0.5
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
