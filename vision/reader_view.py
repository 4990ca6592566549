"""What the table reader sees in one frame: ``TableView`` with its ``SeenTile``s, melds and
indicators (plain data, JSON-able), and ``ReaderError``. Re-exported by ``vision.reader``."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.decode import TileGuess
from vision.layout import VisionError

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
    tiles_classified: int = 0     # face-up places the classifier read for this view (each once)
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
