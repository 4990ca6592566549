"""Learning from play, the daemon's side: revealed hands as the camera saw them, kept on confirmation.

The camera part (``controller/daemon_camera.py``) shows every read view to :meth:`Learner.see`,
which keeps, per table position, the crops of the revealed hand's tiles and what the classifier
read in them. When a result is confirmed (``staff.confirm_result``: the staff, or the table's OK
after the staff corrected what needed it) the daemon calls :meth:`Learner.confirmed` with the
hands as confirmed; each is matched to the position whose reading fits it best, and the crops
go to the :class:`vision.confirmed.ConfirmedStore` with their now-known labels.

>>> match([("1m", "2m", "3m")], {2: [("c1", "1m", 0.9), ("c2", "2p", 0.5), ("c3", "3m", 0.8)]})
[('1m', 'c1', '1m', 0.9), ('2m', 'c2', '2p', 0.5), ('3m', 'c3', '3m', 0.8)]
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any

log = logging.getLogger(__name__)

Seen = tuple[Any, str, float]      # (crop, what the classifier read, its confidence)


def match(hands: Sequence[Sequence[str]], seen: dict[int, list[Seen]]) -> list[tuple[str, Any, str, float]]:
    """``(label, crop, read, confidence)`` for the tiles of confirmed ``hands`` found in ``seen``.

    Each hand goes to the position whose reads share most tiles with it (at least half of them).
    Reads that equal a label of the hand take it; of the rest, one read left with one label left
    is that label (a correction); more than one left over are ambiguous and not kept.
    """
    out: list[tuple[str, Any, str, float]] = []
    free = dict(seen)
    for hand in hands:
        labels = [t for t in hand if t]
        if not labels or not free:
            continue
        want = Counter(labels)

        def overlap(pos: int, want: Counter = want) -> int:
            return sum((Counter(r for _c, r, _p in free[pos]) & want).values())

        pos = max(free, key=overlap)
        if overlap(pos) * 2 < len(labels):
            continue
        tiles = free.pop(pos)
        left = Counter(labels)
        kept: dict[int, tuple[str, Any, str, float]] = {}
        rest = []
        for i, (crop, read, conf) in enumerate(tiles):
            if left[read] > 0:
                left[read] -= 1
                kept[i] = (read, crop, read, conf)
            else:
                rest.append(i)
        leftover = list(left.elements())
        if len(rest) == 1 and len(leftover) == 1:
            crop, read, conf = tiles[rest[0]]
            kept[rest[0]] = (leftover[0], crop, read, conf)
        out.extend(kept[i] for i in sorted(kept))
    return out


class Learner:
    """Keeps the revealed hands' crops between frames; stores them on confirmation (thread-safe)."""

    def __init__(self, store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._seen: dict[int, list[Seen]] = {}
        self.kept = 0

    def see(self, reader, frame, view) -> None:
        """From the camera thread, after each read: remember the revealed hands with their crops."""
        revealed = getattr(view, "revealed", None)
        rects = getattr(reader, "revealed_rects", None)
        if not revealed or not rects:
            return
        update = {}
        for pos, tiles in revealed.items():
            r = rects.get(pos)
            if not r or len(r) != len(tiles):
                continue
            crops = reader.crops(frame, r)
            update[pos] = [(c, t.tile, float(t.confidence)) for c, t in zip(crops, tiles, strict=True)]
        if update:
            with self._lock:
                self._seen.update(update)

    def confirmed(self, hands: Sequence[Sequence[str]], *, now: float | None = None) -> int:
        """The hands as confirmed: keep the matching crops; returns how many were kept."""
        with self._lock:
            seen, self._seen = self._seen, {}
        samples = match(hands, seen)
        kept = self.store.keep(samples, now=now) if samples else 0
        self.kept += kept
        if kept:
            log.info("learning from play: kept %d confirmed crops", kept)
        return kept


def confirmed_hands(game_state: Any) -> list[tuple[str, ...]]:
    """The revealed hands in a game state (riichi or fan), as the staff see and confirm them."""
    return [tuple(seat.revealed) for seat in getattr(game_state, "seats", ()) or ()
            if getattr(seat, "revealed", None)]
