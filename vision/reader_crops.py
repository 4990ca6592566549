"""The reader's crops: tile pictures cut from the frame and classified (a mixin of
``vision.reader.TableReader``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import cv2
import numpy as np

from vision.classifier import CROP_MARGIN
from vision.decode import MIN_CONFIDENCE, TileGuess
from vision.layout import TileRect
from vision.reader_view import (
    _REUSE_DIFF,
    _ROT90,
    _SECOND_LOOK,
)

log = logging.getLogger(__name__)

_THUMB_MAP = 16    # reuse check: a crop's square sampled 16x16, averaged to 8x8
_REUSE_SHIFT_MM = 1.5   # reuse check: a place moved this little is the same place (a tile is 26.5 mm wide)


class CropReading:
    """Cutting and classifying tile crops (see ``TableReader``)."""

    def crops(self, frame: np.ndarray, rects: Sequence[TileRect]) -> list[np.ndarray]:
        """Square crops (crop_px) around tile tops, oriented as their owner reads them.

        All crops come from one ``cv2.remap``: crop pixel -> table mm at the top's height
        (affine) -> frame pixel (that height's plane homography). A tile's map depends only on
        where it lies, so it is made once and kept (tiles lie still for many frames).
        """
        if not rects:
            return []
        p = self.crop_px
        # float maps (fixed-point ones, 1/32 px, read 6 more of 1134 held-out tiles wrong in bench/vision.py)
        out = cv2.remap(frame, *self._stacked_maps(rects, p), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return [out[i * p:(i + 1) * p] for i in range(len(rects))]

    def _stacked_maps(self, rects: Sequence[TileRect], p: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``p`` x ``p`` maps of ``rects`` one below another, for one ``cv2.remap``; each rect's
        maps are made once and kept, and so is the last stack (a still table asks for the same places)."""
        cache = self._crop_maps.setdefault(p, {})
        todo = [r for r in dict.fromkeys(rects) if r not in cache]
        if todo:
            if len(cache) + len(todo) > 4096:
                cache.clear()
            for r, mxy in zip(todo, self._maps(todo, p), strict=True):
                cache[r] = mxy
        rects = tuple(rects)
        last = self._crop_stack.get(p)
        if last is not None and last[0] == rects:
            return last[1]
        maps = [cache[r] for r in rects]
        if len(maps) == 1:
            return maps[0]
        mxy = (np.concatenate([m[0] for m in maps]), np.concatenate([m[1] for m in maps]))
        self._crop_stack[p] = (rects, mxy)
        return mxy

    def _thumbnails(self, frame: np.ndarray, rects: Sequence[TileRect]) -> np.ndarray:
        """Each rect's crop as an 8x8 thumbnail, int16 ``(n, 8, 8, 3)``: 2x2 samples per cell (a 16x16 map
        over the crop's square) averaged, without cutting the whole crops (most keep their answers)."""
        out = cv2.remap(frame, *self._stacked_maps(rects, _THUMB_MAP), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        small = cv2.resize(out, (8, 8 * len(rects)), interpolation=cv2.INTER_AREA)
        return small.reshape(len(rects), 8, 8, -1).astype(np.int16)

    def _maps(self, rects: Sequence[TileRect], p: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per rect: the frame's x and y (``p`` x ``p``, float32) for each pixel of its square crop."""
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
        return [(mx[i], my[i]) for i in range(len(rects))]

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
        busy face at a slant (7p, 6p) is often read surer turned (a tile set's classifier votes over
        the turns itself, ``votes_over_turns``). A tile in a row of touching tiles
        (``faces[i]``: its face's width and height as fractions of the crop, given for the tiles of
        a revealed hand) is also classified cut tight to its own face, the neighbours' edges that a
        square crop takes in left out (the classifier pads the cut with its own edge); that answer
        votes twice: a face between two alike neighbours (5s between 4s and 6s) reads surer alone."""
        guesses = self.classifier.classify(crops)
        weak = [i for i, g in enumerate(guesses) if g.best not in ("", "none") and g.best_confidence < _SECOND_LOOK]
        if not weak:
            return guesses
        packed = [i for i in weak if faces is not None and faces[i] is not None]
        tights = [_tight(crops[i], faces[i]) for i in packed]  # type: ignore[index,arg-type]
        if getattr(self.classifier, "votes_over_turns", False):
            # a tile set's classifier (vision.enrol) votes over the four turns itself, probabilities and
            # embeddings averaged: that reads a set's weak crops better than their answers' vote below
            # (held-out designs enrolled: 0.66-0.81 -> 0.72-0.86 of the crops right)
            turned = self.classifier.classify_voted([crops[i] for i in weak])
            answers = self.classifier.classify(tights)
            turned_votes = {i: [(g, 4.0)] for i, g in zip(weak, turned, strict=True)}
        else:
            # cv2.rotate gives np.rot90's pixels (k = 1, 2, 3: counter-clockwise turns), without numpy's overhead
            second = [cv2.rotate(crops[i], code) for i in weak for code in _ROT90]
            answers = self.classifier.classify(second + tights)
            turned_votes = {i: [(g, 1.0) for g in (guesses[i], *answers[3 * n:3 * n + 3])] for n, i in enumerate(weak)}
            answers = answers[3 * len(weak):]
        tight = dict(zip(packed, answers, strict=True))
        out = list(guesses)
        for i in weak:
            voters = turned_votes[i]
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

    def _crop_key(self, rect: TileRect) -> tuple:
        """Where a crop lies, to 0.1 px (a place's answer is kept while its crop looks the same)."""
        key = self._crop_keys.get(rect)
        if key is None:
            if len(self._crop_keys) > 4096:
                self._crop_keys.clear()
            key = self._crop_keys[rect] = (tuple(round(v, 1) for xy in rect.corners for v in xy), rect.z_mm)
        return key

    def _classify(self, rects: list[TileRect], packed: Sequence[bool] | None = None) -> list[TileGuess]:
        """Classify the tiles at ``rects`` (``packed[i]``: rect i lies in a row of touching tiles)."""
        if not rects:
            return []
        if len(set(rects)) < len(rects):
            # one place in two strips (a revealed hand's row parsed as melds too): classified once, as
            # a tile in a row of touching tiles where either strip says so
            places = list(dict.fromkeys(rects))
            rows = {r for i, r in enumerate(rects) if packed is not None and packed[i]}
            answers = dict(zip(places, self._classify(places, [r in rows for r in places]), strict=True))
            return [answers[r] for r in rects]
        faces = [_face_fraction(r) if packed is not None and packed[i] else None for i, r in enumerate(rects)]
        if not self.reuse_crops:
            return self._classify_crops(self.crops(self._frame, rects), faces)
        # a tile that looks as it did last frame keeps its answer: only changed crops are classified.
        # Only the places read in the last frame are kept: a place left empty (a called tile taken
        # from the river) forgets its tile, so the next tile put there (the discarder's next, often a
        # neighbour of the called one: 6m after 7m, alike in a thumbnail) is classified anew
        # A place the last frame did not have at its exact key but had within _REUSE_SHIFT_MM (a row
        # found a step further on, see _near_places) keeps its answer when the last frame's place
        # looks as it did: the tile there has not changed, and this place is on it
        keys = [self._crop_key(r) for r in rects]
        last = self._crop_cache
        hits = [last.get(key) for key in keys]
        near = _near_places(keys, hits, last) if last and None in hits else {}
        for i, key in near.items():
            hits[i] = last[key]
        small = self._thumbnails(self._frame, [*rects, *(last[key][2] for key in near.values())])
        looked = small[:len(rects)].copy()          # how each place's crop looks now ...
        looked[list(near)] = small[len(rects):]     # ... and, for a near place, the last frame's place
        known = [i for i, hit in enumerate(hits) if hit is not None]
        same: set[int] = set()
        if known:
            diff = np.abs(np.stack([hits[i][0] for i in known]) - looked[known]).mean(axis=(1, 2, 3))  # type: ignore[index]
            same = {i for i, d in zip(known, diff.tolist(), strict=True) if d < _REUSE_DIFF}
        kept: dict[tuple, tuple[np.ndarray, TileGuess, TileRect]] = {}
        out: list[TileGuess | None] = []
        todo = []
        for i, (key, hit) in enumerate(zip(keys, hits, strict=True)):
            if i in same:
                out.append(hit[1])  # type: ignore[index]
                kept[key] = hit if i not in near else (small[i], hit[1], rects[i])  # type: ignore[index,assignment]
            else:
                out.append(None)
                todo.append(i)
        crops = self.crops(self._frame, [rects[i] for i in todo])
        for i, guess in zip(todo, self._classify_crops(crops, [faces[i] for i in todo]), strict=True):
            out[i] = guess
            kept[keys[i]] = (small[i], guess, rects[i])
        self._crop_cache = kept
        return out  # type: ignore[return-value]


def _near_places(keys: list[tuple], hits: list, last: dict[tuple, tuple]) -> dict[int, tuple]:
    """For places the last frame did not have at their exact key (``hits[i]`` None), the key of a place
    of the last frame at most ``_REUSE_SHIFT_MM`` from it, corner by corner, at the same height, not
    itself read this frame, each matched at most once. The scan of a meld or hand row may start a
    step (1 mm) further on in one frame than in the next, which moves every tile of the row without
    changing one: the bench's loop classified whole rows of 8 anew."""
    now = set(keys)
    free = [key for key in last if key not in now]
    if not free:
        return {}
    old = np.array([key[0] for key in free])                       # (m, 8): corners, mm
    z_old = np.array([key[1] for key in free])
    taken = np.zeros(len(free), bool)
    out: dict[int, tuple] = {}
    for i, (key, hit) in enumerate(zip(keys, hits, strict=True)):
        if hit is not None:
            continue
        shift = np.abs(old - np.asarray(key[0])).max(axis=1)
        shift[taken | (z_old != key[1])] = np.inf
        j = int(np.argmin(shift))
        if shift[j] <= _REUSE_SHIFT_MM:
            taken[j] = True
            out[i] = free[j]
    return out


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
