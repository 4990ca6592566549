"""Tile classifiers: the ``TileClassifier`` interface, the shipped ONNX model, a scripted stand-in.

``OnnxTileClassifier`` runs ``vision/models/tiles.onnx`` with onnxruntime on the CPU (one
intra-op thread by default, so a full-table read stays predictable next to the daemon), batched:
pass all crops of a frame in one :meth:`~OnnxTileClassifier.classify` call. ``cut_crop`` and
``cut_quad`` cut a tile crop out of a bigger picture in the form the model was trained on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.decode import (
    CLASSES,
    INPUT_SIZE,
    MIN_CONFIDENCE,
    ROTATIONS,
    TileGuess,
    decode,
    prep,
    set_log_prior,
    softmax,
    to_bgr,
)
from vision.layout import VisionError

log = logging.getLogger(__name__)

DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "tiles.onnx"
CROP_MARGIN = 1.15  # crop side = tile's long side x this: the tile fills ~87 % of the crop, as in training


class ClassifierError(VisionError, RuntimeError):
    """The model file is missing, unreadable or does not match what this code expects."""


class TileClassifier(Protocol):
    """Classifies tile crops.

    Implementations must provide :meth:`classify`, taking BGR uint8 crops (any size, one tile
    roughly centred and filling most of the crop) and returning one :class:`TileGuess` per crop,
    in order. An unsure answer is a ``none`` guess with its confidence, never an exception.
    """

    def classify(self, crops: Sequence[np.ndarray]) -> list[TileGuess]: ...


class OnnxTileClassifier:
    """The shipped ONNX model run by onnxruntime.

    ``model_path`` defaults to ``vision/models/tiles.onnx``; ``threads`` is onnxruntime's intra-op
    thread count; answers whose best class is below ``min_confidence`` come back as ``none``.
    :meth:`play_set` tells it the tile set the table plays (a prior over the kinds; none by default).
    Raises :class:`ClassifierError` if the model cannot be loaded or its metadata does not fit.
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, *, threads: int = 1,
                 min_confidence: float = MIN_CONFIDENCE) -> None:
        import onnxruntime as ort

        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise ClassifierError(f"classifier: model file {self.model_path} not found "
                                  "(train it with 'python -m hardware.sim.training.train')")
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"classifier: min_confidence is {min_confidence}, must be within 0..1")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self._session = ort.InferenceSession(str(self.model_path), opts, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own untyped errors for bad files
            raise ClassifierError(f"classifier: cannot load model {self.model_path}: {err}") from err
        meta = self._session.get_modelmeta().custom_metadata_map
        self.metadata: dict[str, str] = dict(meta)    # the model's own entries (a joined model names its members)
        try:
            self.classes: tuple[str, ...] = tuple(json.loads(meta["classes"]))
            self.input_size = int(meta["input_size"])
            self.symmetric_180 = frozenset(json.loads(meta.get("symmetric_180", "[]")))
        except (KeyError, ValueError) as err:
            raise ClassifierError(f"classifier: model {self.model_path} lacks its class metadata ({err})") from err
        if set(self.classes) - set(CLASSES) or json.loads(meta.get("rotations", "[0, 90, 180, 270]")) != list(
                ROTATIONS):
            raise ClassifierError(f"classifier: model {self.model_path} has classes this code does not know")
        self.min_confidence = float(min_confidence)
        self.log_prior: np.ndarray | None = None
        self._input = self._session.get_inputs()[0].name
        log.info("tile classifier %s: %d classes, input %d px, %d thread(s)", self.model_path.name,
                 len(self.classes), self.input_size, threads)

    def logits(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Raw ``(tile_logits, rotation_logits)`` for the crops (for evaluation and calibration)."""
        batch = prep(crops, self.input_size)
        if len(batch) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 4), np.float32)
        tile_logits, rotation_logits = self._session.run(["tile_logits", "rotation_logits"], {self._input: batch})
        return tile_logits, rotation_logits

    def logits_and_embedding(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(tile_logits, rotation_logits, embedding)`` of each crop as it is, from one run of the
        model (the embedding as :meth:`embed` gives it with ``turns=1``; for a tile set's classifier)."""
        name = self.embedding_output
        batch = prep(crops, self.input_size)
        if name == "tile_logits":
            tile_logits, rotation_logits = self._session.run(["tile_logits", "rotation_logits"], {self._input: batch})
            return tile_logits, rotation_logits, np.asarray(tile_logits, np.float32)
        tile_logits, rotation_logits, emb = self._session.run(["tile_logits", "rotation_logits", name],
                                                              {self._input: batch})
        return tile_logits, rotation_logits, np.asarray(emb, np.float32)

    def classify(self, crops: Sequence[np.ndarray]) -> list[TileGuess]:
        crops = list(crops)
        if not crops:
            return []
        tile_logits, rotation_logits = self.logits(crops)
        return decode(tile_logits, rotation_logits, classes=self.classes, min_confidence=self.min_confidence,
                      symmetric_180=self.symmetric_180, log_prior=self.log_prior)

    def play_set(self, census: Mapping[str, int] | None) -> None:
        """Read as at a table that plays the set ``census`` (tile -> copies, reds apart: the rule
        set's ``controller.rules.tilesets.census``): each kind weighed by its copies, a tile the set
        lacks by :data:`vision.decode.FOREIGN_COPIES` (``decode.set_log_prior``); ``None``: every
        kind alike (``tablectl classify``: a picture from any set)."""
        self.log_prior = None if census is None else set_log_prior(census, self.classes)


    def classify_voted(self, crops: Sequence[np.ndarray], *, margin: float = 0.1) -> list[TileGuess]:
        """Classify each crop by voting: the crop turned 0/90/180/270 degrees, as it is and with a
        grey border of ``margin`` of its size on each side (a picture cropped tight to the tile then
        looks like the crops the model was trained on); probabilities averaged over the four turns
        (rotations mapped back). The bordered turns answer only where the plain ones are unsure. About 8x the work of :meth:`classify`; meant for single pictures (``tablectl
        classify``), not whole frames.
        """
        crops = list(crops)
        if not crops:
            return []
        variants, turns = [], []
        for crop in crops:
            h, w = crop.shape[:2]
            m = max(1, int(round(max(h, w) * margin)))
            padded = cv2.copyMakeBorder(to_bgr(crop), m, m, m, m, cv2.BORDER_CONSTANT, value=(128, 128, 128))
            for cut in (crop, padded):
                for k in range(4):  # np.rot90 turns counter-clockwise: the face's clockwise turn drops by 90k
                    variants.append(np.ascontiguousarray(np.rot90(cut, k)))
                    turns.append(k)
        tile_logits, rotation_logits = self.logits(variants)
        p_tile = softmax(tile_logits)
        p_rot = softmax(rotation_logits)
        for i, k in enumerate(turns):
            p_rot[i] = np.roll(p_rot[i], k)
        # per crop: two groups of four turns (as is, bordered). The bordered group answers only when
        # the picture as is leaves the model unsure and the border shows a face-up tile: a bordered
        # empty felt or a bordered neighbour's edge would look like a back or a haku.
        p_tile = p_tile.reshape(len(crops), 2, 4, -1).mean(2)
        p_rot = p_rot.reshape(len(crops), 2, 4, -1).mean(2)
        face_up = np.array([c not in ("back", "none") for c in self.classes])
        best = p_tile.argmax(axis=2)
        conf = p_tile.max(axis=2)
        pick = ((conf[:, 0] < self.min_confidence) & face_up[best[:, 1]] & (conf[:, 1] > conf[:, 0])).astype(int)
        rows = np.arange(len(crops))
        p_tile, p_rot = p_tile[rows, pick], p_rot[rows, pick]
        return decode(np.log(p_tile + 1e-12), np.log(p_rot + 1e-12), classes=self.classes,
                      min_confidence=self.min_confidence, symmetric_180=self.symmetric_180, log_prior=self.log_prior)

    @property
    def embedding_output(self) -> str:
        """The model output :meth:`embed` uses: ``features`` where the model has it, else ``tile_logits``."""
        return "features" if any(o.name == "features" for o in self._session.get_outputs()) else "tile_logits"

    def embed(self, crops: Sequence[np.ndarray], *, turns: int = 4) -> np.ndarray:
        """One embedding per crop, ``(N, D)`` float32, the same for the crop at any quarter turn:
        the model's ``features`` output (its penultimate layer) where it has one, else its tile
        logits, averaged over the crop turned 0/90/180/270 degrees (as :meth:`classify_voted`
        votes; ``turns=1``: the crop as it is only, a quarter of the work). For tile-set
        enrolment (``vision/enrol.py``).
        """
        crops = list(crops)
        outputs = [o.name for o in self._session.get_outputs()]
        name = self.embedding_output
        if turns not in (1, 4):
            raise ValueError(f"embed: turns is {turns}, must be 1 or 4")
        if not crops:
            dim = self._session.get_outputs()[outputs.index(name)].shape[-1]
            return np.zeros((0, dim if isinstance(dim, int) else len(self.classes)), np.float32)
        variants = [np.ascontiguousarray(np.rot90(to_bgr(c), k)) for c in crops for k in range(turns)]
        (out,) = self._session.run([name], {self._input: prep(variants, self.input_size)})
        return np.asarray(out, np.float32).reshape(len(crops), turns, -1).mean(1)


class ScriptedClassifier:
    """A stand-in that answers from a script: for tests of the parts that consume guesses.

    ``answers`` is consumed in order, one guess per crop; when it runs out every crop is ``none``.
    """

    def __init__(self, answers: Iterable[TileGuess | str]) -> None:
        self._answers = [a if isinstance(a, TileGuess) else TileGuess(a, 1.0, 0 if a != "none" else None, a, 1.0)
                         for a in answers]

    def classify(self, crops: Sequence[np.ndarray]) -> list[TileGuess]:
        out = []
        for _ in crops:
            out.append(self._answers.pop(0) if self._answers else TileGuess("none", 1.0, None, "none", 1.0))
        return out


def cut_crop(image: np.ndarray, center_xy: tuple[float, float], tile_long_px: float, *,
             angle_deg: float = 0.0, out_px: int = INPUT_SIZE) -> np.ndarray:
    """Cut the square crop around a tile whose face centre is ``center_xy`` (image pixels).

    ``tile_long_px`` is the tile's long side in the image; the crop side is ``CROP_MARGIN`` times
    that, so the tile fills the crop as in training. ``angle_deg`` turns the crop counter-clockwise
    with the image (undo a known skew of the table in the picture). Pixels outside the image
    repeat its edge. Returns BGR uint8 ``(out_px, out_px, 3)``.
    """
    side = float(tile_long_px) * CROP_MARGIN
    if side <= 1:
        raise ValueError(f"cut_crop: tile_long_px is {tile_long_px}, must be more than 1")
    scale = out_px / side
    m = cv2.getRotationMatrix2D((float(center_xy[0]), float(center_xy[1])), angle_deg, scale)
    m[0, 2] += out_px / 2 - center_xy[0]
    m[1, 2] += out_px / 2 - center_xy[1]
    interp = cv2.INTER_AREA if scale < 1 and abs(angle_deg) < 1e-6 else cv2.INTER_LINEAR
    if scale < 0.5:  # strong reduction: smooth first so the warp does not alias
        blurred = cv2.GaussianBlur(image, (0, 0), 0.5 / scale)
        return cv2.warpAffine(blurred, m, (out_px, out_px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpAffine(image, m, (out_px, out_px), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def cut_quad(image: np.ndarray, quad_xy: np.ndarray, *, out_px: int = INPUT_SIZE) -> np.ndarray:
    """Cut a tile given the four image corners of its face (any order around, any rotation).

    The face quad is mapped into the centre of a square crop (long side = crop side / CROP_MARGIN),
    keeping the face's orientation as the picture shows it (the classifier reports the rotation).
    """
    q = np.asarray(quad_xy, np.float32).reshape(4, 2)
    centre = q.mean(0)
    e1 = np.linalg.norm(q[1] - q[0])
    e2 = np.linalg.norm(q[2] - q[1])
    long_px = max(e1, e2)
    d = q[1] - q[0] if e1 >= e2 else q[2] - q[1]
    # keep the long side's direction in the picture, only remove skew within +-45 degrees
    ang = np.degrees(np.arctan2(d[1], d[0])) % 90
    ang = ang - 90 if ang > 45 else ang
    return cut_crop(image, (float(centre[0]), float(centre[1])), long_px, angle_deg=float(ang), out_px=out_px)
