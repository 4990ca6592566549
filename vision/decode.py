"""Pure tile-classifier maths: crop -> input tensor, logits -> :class:`TileGuess`.

No I/O and no model here (``vision/classifier.py`` runs the ONNX model). The same
:func:`prep` is used to train the model and to run it, so a crop is seen the same way both times.

Input: a BGR ``uint8`` picture of one tile, any size. It is padded to a square (edge pixels
repeated, the tile kept centred) and resized to ``INPUT_SIZE`` x ``INPUT_SIZE``; the tensor is
float32 NCHW, channels in BGR order, values 0..1.

Rotation: the degrees (0, 90, 180, 270) the tile face is turned **clockwise** in the picture;
rotating the picture counter-clockwise by that much shows the face upright. For faces that look
the same upside down (e.g. ``2p``, ``8s``, ``5z``, ``back``) 0 and 180 cannot be told apart; the
answer is then 0 or 90 (upright or sideways).

>>> import numpy as np
>>> prep([np.zeros((80, 60, 3), np.uint8)]).shape
(1, 3, 40, 40)
>>> g = decode(np.array([[0.0, 6.0, 0.0]]), np.array([[0.0, 4.0, 0.0, 0.0]]), classes=("1m", "2m", "none"))
>>> g[0].tile, g[0].rotation, round(g[0].confidence, 3)
('2m', 90, 0.995)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from controller.rules.tiles import ALL_TILES

INPUT_SIZE = 40
CLASSES: tuple[str, ...] = ALL_TILES + ("back", "none")
ROTATIONS: tuple[int, ...] = (0, 90, 180, 270)
MIN_CONFIDENCE = 0.4
FOREIGN_COPIES = 0.1   # a tile the table's set does not hold counts as this many copies (see set_log_prior)


@dataclass(frozen=True)
class TileGuess:
    """What the classifier saw in one crop.

    ``tile`` is mpsz (``0m``/``0p``/``0s`` red fives, ``1f``..``8f``), ``"back"`` or ``"none"``.
    ``confidence`` is the model's probability for that answer (for a ``none`` given because the
    best guess was too unsure: one minus that guess's probability). ``rotation`` is 0/90/180/270
    clockwise, or ``None`` for ``none``. ``best``/``best_confidence`` keep the top class even when
    the answer is ``none``, so a caller may still look at it.
    """

    tile: str
    confidence: float
    rotation: int | None
    best: str = ""
    best_confidence: float = 0.0

    @property
    def is_tile(self) -> bool:
        """True for a face-up tile (not ``back`` or ``none``)."""
        return self.tile not in ("back", "none")

    def to_json(self) -> dict:
        """The contract's fields: ``tile``, ``confidence`` (3 decimals) and ``rotation`` where known."""
        out: dict = {"tile": self.tile, "confidence": round(float(self.confidence), 3)}
        if self.rotation is not None:
            out["rotation"] = int(self.rotation)
        return out


def square_pad(img: np.ndarray) -> np.ndarray:
    """Pad a picture to a square, repeating its edge pixels, keeping the content centred."""
    h, w = img.shape[:2]
    if h == w:
        return img
    d = abs(h - w)
    a, b = d // 2, d - d // 2
    if h > w:
        return cv2.copyMakeBorder(img, 0, 0, a, b, cv2.BORDER_REPLICATE)
    return cv2.copyMakeBorder(img, a, b, 0, 0, cv2.BORDER_REPLICATE)


def to_bgr(img: np.ndarray) -> np.ndarray:
    """Any OpenCV picture (grey, BGR, BGRA; uint8 or uint16) as BGR uint8. Raises ValueError otherwise."""
    if not isinstance(img, np.ndarray) or img.ndim not in (2, 3) or img.size == 0:
        raise ValueError(f"crop: expected a picture array, got {getattr(img, 'shape', type(img).__name__)}")
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    elif img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if img.shape[2] == 1:
        return cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR)
    if img.shape[2] != 3:
        raise ValueError(f"crop: {img.shape[2]} channels, expected 1, 3 or 4")
    return img


def prep_one(img: np.ndarray, size: int = INPUT_SIZE) -> np.ndarray:
    """One crop as the model's ``size`` x ``size`` BGR uint8 square (pad, then area resize)."""
    sq = square_pad(to_bgr(img))
    if sq.shape[0] == size:
        return np.ascontiguousarray(sq)
    interp = cv2.INTER_AREA if sq.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(sq, (size, size), interpolation=interp)


def prep(crops: Iterable[np.ndarray], size: int = INPUT_SIZE) -> np.ndarray:
    """Crops -> float32 tensor ``(N, 3, size, size)``, BGR, 0..1."""
    squares = [prep_one(c, size) for c in crops]
    if not squares:
        return np.zeros((0, 3, size, size), np.float32)
    batch = np.stack(squares)
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32) * np.float32(1 / 255)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def set_log_prior(census: Mapping[str, int], classes: Sequence[str] = CLASSES) -> np.ndarray:
    """Log prior weights, one per class, for a table that plays the set ``census`` (tile -> copies,
    red fives apart from their plain five: ``controller.rules.tilesets.census``).

    The model was trained with every tile kind equally likely; in a set a kind is as likely as its
    copies: ``log(copies / 4)`` (a plain five of a set with one red: log 3/4, its red five: log 1/4).
    A tile the set does not hold (a flower at a riichi table, a red five where the set has none)
    counts as :data:`FOREIGN_COPIES` copies: it is still read where the picture is clear (about
    40 times surer than the best tile of the set), so a foreign tile in the set is still seen and
    flagged; an unsure one goes to the set's likeliest tile. ``back`` and ``none`` keep 0.

    >>> w = set_log_prior({"5m": 3, "0m": 1}, classes=("5m", "0m", "1f", "back"))
    >>> [round(float(x), 2) for x in w]
    [-0.29, -1.39, -3.69, 0.0]
    """
    bad = {t: n for t, n in census.items() if t not in ALL_TILES or not isinstance(n, int) or n < 0}
    if bad:
        raise ValueError(f"set_log_prior: not a tile census: {bad}")
    return np.array([0.0 if c in ("back", "none") else float(np.log(max(census.get(c, 0), FOREIGN_COPIES) / 4))
                     for c in classes])


def decode(tile_logits: np.ndarray, rotation_logits: np.ndarray, *, classes: Sequence[str] = CLASSES,
           min_confidence: float = MIN_CONFIDENCE,
           symmetric_180: frozenset[str] = frozenset(), log_prior: np.ndarray | None = None) -> list[TileGuess]:
    """Logits ``(N, len(classes))`` and ``(N, 4)`` -> one :class:`TileGuess` per row.

    A best class below ``min_confidence`` becomes ``none`` (low confidence is data, not an error).
    For classes in ``symmetric_180`` the rotation is folded to 0 (upright) or 90 (sideways).
    ``log_prior`` (:func:`set_log_prior`) is added to the tile logits: the answer and its
    confidence are then for a table that plays that set.
    """
    if log_prior is not None:
        tile_logits = np.asarray(tile_logits, np.float64) + log_prior
    p_tile = softmax(tile_logits)
    p_rot = softmax(rotation_logits)
    if p_tile.shape[1] != len(classes) or p_rot.shape[1] != len(ROTATIONS) or len(p_tile) != len(p_rot):
        raise ValueError(f"decode: logits {p_tile.shape} / {p_rot.shape} do not fit {len(classes)} classes "
                         "and 4 rotations")
    best_idx = p_tile.argmax(axis=1)
    conf = p_tile[np.arange(len(p_tile)), best_idx]
    folded = (p_rot[:, :2] + p_rot[:, 2:]).argmax(axis=1)
    straight = p_rot.argmax(axis=1)
    fold_mask = np.array([c in symmetric_180 or c == "back" for c in classes])[best_idx]
    rot_idx = np.where(fold_mask, folded, straight)
    out = []
    for k, c, r in zip(best_idx.tolist(), conf.tolist(), rot_idx.tolist(), strict=True):
        best = classes[k]
        if best == "none":
            out.append(TileGuess("none", c, None, best, c))
        elif c < min_confidence:
            out.append(TileGuess("none", 1.0 - c, None, best, c))
        else:
            out.append(TileGuess(best, c, ROTATIONS[r], best, c))
    return out
