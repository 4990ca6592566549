"""Tile-set enrolment: adapt the classifier to one physical set from a few labelled pictures.

See ``shared/contracts/classify.md`` ("Enrolment"). A **set file** holds, per enrolled kind, the
model's embeddings of each enrolment picture (:func:`embed`: ``OnnxTileClassifier.embed``, the
``features`` output where the model has one, else its tile logits, averaged over the four quarter
turns, of the picture and of the picture turned 45 degrees), and the **mode** that compares them
(:func:`similarity`: ``quarter``, ``phases`` or ``octant``), chosen when the set is made as the one
that tells the set's own pictures apart best (leave-one-out): a set photographed near quarter
turns and one photographed at any slant want different ones. Beside each picture it holds the
embeddings of ``AUGMENT`` altered copies of it (:func:`augment`: turned to any angle, tilted,
relit, white-balanced, blurred, noisy, JPEG), from which the set learns which directions of
the embedding are light and pose rather than kind (see the rule). It is bound to the model it
was made with (the model file's sha256): another model's embeddings mean nothing, so such a
file is refused.

File format (JSON, UTF-8), version 2 (version 1, without ``augmented`` and ``whiten``, is still
read, and compared as it was made: without whitening)::

    {"format": "jantaku-tile-set", "version": 2,
     "model": {"sha256": "...", "file": "tiles.onnx", "embedding": "tile_logits" | "features", "dim": D,
               "mode": "quarter" | "phases" | "octant"},
     "created": "2026-12-02T14:00:00Z", "source": "enrol DIR",
     "rule": {"ref": 0.75, "gate_width": 0.1, "tau": 0.02, "prior": 0.15, "whiten": 0.1},
     "kinds": {"1m": {"count": 4, "vectors": "<base64 float32 (count, 2, D), little-endian>",
                      "augmented": {"of": [0, 0, ..., 3], "vectors": "<base64 float32 (len(of), 2, D)>"}}, ...},
     "sha256": "<sha256 of the canonical JSON of everything above>"}

``of`` names, for each altered copy, the picture (0 .. count-1) it was made from.

The canonical JSON is ``json.dumps(body, sort_keys=True, separators=(",", ":"))`` without the
``sha256`` key: a file changed by hand or cut short is refused as damaged.

**The combination rule** (:class:`EnrolledClassifier`). For a crop, the model gives class
probabilities ``p(c)`` (voted over the four turns) and the crop's embedding ``e``. Embeddings are
centred on the mean of the set's vectors (pictures and altered copies), whitened by
``(S + whiten * tr(S)/D * I)^(-1/2)``, ``S`` the scatter of the set's vectors about their own
kind's mean (so the directions in which light and pose move a kind count for little; measured
on held-out designs, ``tests/vision/test_enrol_heldout.py``, this reads about a third of the
remaining errors right), and scaled to unit length; each enrolled kind's prototype is the
normalised mean of its vectors so treated, ``s(c)`` the cosine similarity of ``e``
to it in the set's mode, ``E`` the enrolled kinds. Whether the crop shows an enrolled kind at
all: the model's odds ``p(E) / (1 - p(E))`` times the set's likelihood ratio ``exp((max s - ref) / gate_width)``, as a
probability ``g``. Then::

    q(c) = g * softmax_E(prior * log p(c) + s(c) / tau)     for c in E
    q(c) = (1 - g) * p(c) / (1 - p(E))                       for the other classes (none too)

and below the model's ``min_confidence`` the answer is ``none``, as without a set. A crop close
to a kind's pictures is pulled to that kind however the model read it (``prior`` < 1 tempers the
model's say among the enrolled kinds); one close to none of them (an empty place, a kind
missing from ``DIR``) is left to the model, so kinds missing from the enrolment are still
recognised as the shipped model knows them. ``ref`` and ``gate_width`` are measured on the
enrolment pictures when the set is made: ``ref`` halfway between the median similarity of a
picture to its own kind and the median similarity to its best other kind, the picture and its
altered copies left out of the prototypes, the centre and the whitening (with them in, a set of
few kinds judges its own pictures too alike, and the gate then shuts out other photos of them),
``gate_width`` half that gap (``tau``, ``prior``, ``whiten`` and these fractions were tuned on
rendered held-out designs, ``tests/vision/test_enrol_heldout.py``).
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from vision.decode import CLASSES, TileGuess, decode, prep_one, softmax, to_bgr
from vision.layout import VisionError
from vision.pictures import read_image

log = logging.getLogger(__name__)

FORMAT = "jantaku-tile-set"
VERSION = 2
READS = (1, 2)         # version 1 files: no altered copies, compared without whitening
ENROL_KINDS: tuple[str, ...] = CLASSES  # the 37 kinds, 8 flowers, back (and none, for a picture of no tile)
DEFAULT_RULE = {"ref": 0.7, "gate_width": 0.1, "tau": 0.02, "prior": 0.15, "whiten": 0.1}
RULE_KEYS = tuple(DEFAULT_RULE)
AUGMENT = 8            # altered copies embedded per enrolment picture (see augment)
_BATCH = 64
MODES = ("quarter", "phases", "octant")   # how embeddings are compared (see similarity); ties: the first

Progress = Callable[[int, int], None]


class TileSetError(VisionError, ValueError):
    """A set file is missing, damaged, not a set file, or made for another model; or enrolment input is bad."""


class ForeignSetError(TileSetError):
    """A sound set file made for another model version."""


def model_sha256(path: str | Path) -> str:
    """The sha256 of a model file (hex): what a set file is bound to."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def embedding_kind(classifier) -> str:
    """Which model output the classifier's embeddings come from (``features`` or ``tile_logits``)."""
    return str(getattr(classifier, "embedding_output", "tile_logits"))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-9)


def _canonical(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


@dataclass
class TileSet:
    """The enrolled embeddings of one physical set, bound to one model (see the module doc)."""

    model_sha256: str
    embedding: str
    dim: int
    vectors: dict[str, np.ndarray]                 # kind -> (count, 2, dim) float32: phase 0 and 45 degrees
    rule: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_RULE))
    mode: str = "quarter"
    model_file: str = ""
    created: str = ""
    source: str = ""
    augmented: dict[str, np.ndarray] = field(default_factory=dict)     # kind -> (m, 2, dim): altered copies
    augmented_of: dict[str, np.ndarray] = field(default_factory=dict)  # kind -> (m,) int: the picture of each
    loo_score: float = float("nan")   # share of its own pictures the set told apart (fit_rule), not saved

    # ------------------------------------------------------------------ derived
    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in ENROL_KINDS if k in self.vectors)

    @property
    def count(self) -> int:
        return int(sum(len(v) for v in self.vectors.values()))

    def _views(self, kind: str, mode: str) -> tuple[np.ndarray, np.ndarray]:
        """A kind's pictures then their altered copies as ``mode`` compares them ``(n, P, dim)``,
        and the picture each row comes from."""
        v = _view(self.vectors[kind], mode)
        own = np.arange(len(v))
        a = self.augmented.get(kind)
        if a is None or not len(a):
            return v, own
        return np.concatenate([v, _view(a, mode)]), np.concatenate([own, self.augmented_of[kind]])

    def space(self, mode: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The centre ``(dim,)`` and whitening ``(dim, dim)`` of ``mode`` (see the module doc): the
        identity where ``whiten`` is 0 (a version 1 file) or the set's vectors do not vary."""
        mode = mode or self.mode
        return _space([self._views(k, mode)[0] for k in self.kinds], self.dim, float(self.rule.get("whiten", 0.0)))

    def prototypes(self, mode: str | None = None
                   ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray]:
        """(kinds, unit prototypes ``(K, P, dim)`` of ``mode`` (default the set's), centre ``(dim,)``,
        whitening ``(dim, dim)``)."""
        mode = mode or self.mode
        kinds = self.kinds
        mu, white = self.space(mode)
        if not kinds:
            return kinds, np.zeros((0, 1, self.dim), np.float32), mu, white
        return kinds, _protos([self._views(k, mode)[0] for k in kinds], mu, white), mu, white

    def _leave_one_out(self, mode: str, exact: bool) -> tuple[float, list[float], list[float]]:
        """Each picture against prototypes made without it and its altered copies: the share it
        tells apart, and its similarity to its own kind and to the best other. ``exact``: the
        centre and whitening are made without it too (else they are the whole set's: quicker,
        and enough to compare modes, but a picture's own copies then shape the whitening it is
        judged in, and its similarity to its kind comes out high)."""
        kinds = self.kinds
        whiten = float(self.rule.get("whiten", 0.0))
        views = [self._views(k, mode) for k in kinds]
        if exact:           # each picture's own centre and whitening: the set's sums less its kind's, plus
            sums = [_sums(v, self.dim) for v, _of in views]     # its kind's remade without the picture
            whole = _added(sums)
            every = np.concatenate([v for v, _of in views])
            bounds = _bounds([v for v, _of in views])
        else:               # the whole set's centre and whitening
            _k, protos, mu, white = self.prototypes(mode)
        genuine, impostor, right = [], [], 0
        for ki, k in enumerate(kinds):
            rows, of = views[ki]
            n = len(self.vectors[k])
            if n < 2:
                continue
            for i in range(n):
                keep = of != i
                if exact:
                    part = _sums(rows[keep], self.dim)
                    mu, white = _whitening(*(whole[j] - sums[ki][j] + part[j] for j in range(3)), self.dim, whiten)
                    flat = _unit((every - mu) @ white)
                    others = _means(flat, bounds)
                    a, b = bounds[ki]
                    others[ki] = _unit(flat[a:b][keep].mean(0))
                else:
                    others = protos.copy()
                    others[ki] = _protos([rows[keep]], mu, white)[0]
                sims = similarity(self.vectors[k][i:i + 1], others, mu, mode, white)[0]
                genuine.append(float(sims[ki]))
                sims[ki] = -np.inf
                impostor.append(float(sims.max()))
                right += genuine[-1] > impostor[-1]
        return right / max(len(genuine), 1), genuine, impostor

    def fit_rule(self) -> dict[str, float]:
        """Choose the mode that tells the set's own pictures apart best (leave-one-out), and measure
        ``ref`` and ``gate_width`` in it (exact leave-one-out); defaults when there are too few
        pictures."""
        kinds = self.kinds
        whiten = float(self.rule.get("whiten", DEFAULT_RULE["whiten"]))
        self.rule = {**DEFAULT_RULE, "whiten": whiten}
        if len(kinds) < 2 or sum(len(self.vectors[k]) >= 2 for k in kinds) < 2:
            self.mode = MODES[0]
            return self.rule
        # one BLAS thread: these are many small products and eigh, which gain nothing from a second
        # thread on a quiet machine and lose several times over when the cores are busy (a table's Pi)
        with threadpool_limits(limits=1, user_api="blas"):
            best = None
            for mode in MODES:
                score = self._leave_one_out(mode, exact=False)[0]
                if best is None or score > best[0] + 1e-9:
                    best = (score, mode)
            self.mode = best[1]
            self.loo_score, genuine, impostor = self._leave_one_out(self.mode, exact=whiten > 0)
        g, i = float(np.median(genuine)), float(np.median(impostor))
        gap = max(g - i, 0.05)
        self.rule = {**self.rule, "ref": round((g + i) / 2, 4), "gate_width": round(gap / 2, 4)}
        return self.rule

    # ------------------------------------------------------------------ file
    def to_json(self) -> dict:
        body = {
            "format": FORMAT, "version": VERSION,
            "model": {"sha256": self.model_sha256, "file": self.model_file, "embedding": self.embedding,
                      "dim": int(self.dim), "mode": self.mode},
            "created": self.created, "source": self.source,
            "rule": {k: float(v) for k, v in self.rule.items()},
            "kinds": {k: self._kind_json(k) for k in self.kinds},
        }
        body["sha256"] = hashlib.sha256(_canonical(body)).hexdigest()
        return body

    def _kind_json(self, kind: str) -> dict:
        out = {"count": int(len(self.vectors[kind])), "vectors": _b64(self.vectors[kind])}
        if len(self.augmented.get(kind, ())):
            out["augmented"] = {"of": [int(i) for i in self.augmented_of[kind]], "vectors": _b64(self.augmented[kind])}
        return out

    def save(self, path: str | Path) -> Path:
        """Write the set file atomically (a temporary file renamed over ``path``)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | Path, *, model_sha256: str | None = None) -> TileSet:
        """Read and check a set file; with ``model_sha256``, refuse a file made for another model.

        Raises :class:`TileSetError` naming the file and the problem.
        """
        path = Path(path)
        if not path.is_file():
            raise TileSetError(f"tile set {path}: file not found")
        try:
            raw = path.read_bytes()
        except OSError as err:
            raise TileSetError(f"tile set {path}: cannot read it ({err.strerror or err})") from err
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            if raw[:1] in (b"{", b" ", b"\n"):
                raise TileSetError(f"tile set {path}: damaged (not valid JSON: {err})") from err
            raise TileSetError(f"tile set {path}: not a tile set file (made with 'tablectl enrol')") from err
        if not isinstance(body, dict) or body.get("format") != FORMAT:
            raise TileSetError(f"tile set {path}: not a tile set file (made with 'tablectl enrol')")
        if body.get("version") not in READS:
            raise TileSetError(f"tile set {path}: format version {body.get('version')!r}, this software reads "
                               f"version {VERSION}: enrol the set again")
        digest = body.pop("sha256", None)
        if digest != hashlib.sha256(_canonical(body)).hexdigest():
            raise TileSetError(f"tile set {path}: damaged (its checksum does not match its content)")
        try:
            model = body["model"]
            dim = int(model["dim"])
            if model["mode"] not in MODES:
                raise ValueError(f"unknown mode {model['mode']!r}")
            vectors, augmented, augmented_of = {}, {}, {}
            for kind, entry in body["kinds"].items():
                if kind not in ENROL_KINDS:
                    raise ValueError(f"unknown kind {kind!r}")
                count = int(entry["count"])
                vectors[kind] = _unb64(entry["vectors"], count, dim, f"kind {kind}")
                if "augmented" in entry:
                    of = np.asarray(entry["augmented"]["of"], np.int64)
                    if of.ndim != 1 or (len(of) and (of.min() < 0 or of.max() >= count)):
                        raise ValueError(f"kind {kind}: altered copies of pictures outside 0..{count - 1}")
                    augmented[kind] = _unb64(entry["augmented"]["vectors"], len(of), dim, f"kind {kind} (altered)")
                    augmented_of[kind] = of
            # version 1 has no whitening (its sets are compared as they were made)
            keys = RULE_KEYS if body["version"] >= 2 else tuple(k for k in RULE_KEYS if k != "whiten")
            rule = {"whiten": 0.0, **{k: float(body["rule"][k]) for k in keys}}
            ts = cls(model_sha256=str(model["sha256"]), embedding=str(model["embedding"]), dim=dim,
                     vectors=vectors, rule=rule, augmented=augmented, augmented_of=augmented_of,
                     mode=str(model["mode"]), model_file=str(model.get("file", "")),
                     created=str(body.get("created", "")),
                     source=str(body.get("source", "")))
        except (KeyError, TypeError, ValueError) as err:
            raise TileSetError(f"tile set {path}: damaged ({err})") from err
        if min(ts.rule["tau"], ts.rule["gate_width"]) <= 0 or ts.rule["whiten"] < 0:
            raise TileSetError(f"tile set {path}: damaged (rule {ts.rule}: tau and gate_width must be above 0, whiten not below)")
        if model_sha256 is not None and ts.model_sha256 != model_sha256:
            raise ForeignSetError(f"tile set {path}: made for another model version (model sha256 "
                                  f"{ts.model_sha256[:12]}..., this model is {model_sha256[:12]}...): enrol the set again")
        return ts

    def describe(self) -> str:
        return (f"{len(self.kinds)} kinds, {self.count} pictures, model {self.model_file or '?'} "
                f"{self.model_sha256[:12]}, made {self.created or '?'}")


def _space(views: Sequence[np.ndarray], dim: int, whiten: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre and whitening of kinds' vectors ``[(n, P, dim), ...]`` (see :meth:`TileSet.space`)."""
    return _whitening(*_added([_sums(v, dim) for v in views]), dim, whiten)


def _added(sums: Sequence[tuple[int, np.ndarray, np.ndarray]]) -> tuple:
    """:func:`_sums` of several kinds added up: those of all of them together."""
    return tuple(sum(s[j] for s in sums) for j in range(3))


def _sums(v: np.ndarray, dim: int) -> tuple[int, np.ndarray, np.ndarray]:
    """What :func:`_whitening` needs of one kind's vectors ``(n, P, dim)``: their count, sum, and
    scatter about the kind's own mean (one per phase), in float64. Sums of kinds add up, so the
    exact leave-one-out remakes only the kind a picture is left out of."""
    x = v.astype(np.float64)
    resid = (x - x.mean(0)).reshape(-1, dim) if len(x) else np.zeros((0, dim))
    return int(x.shape[0] * x.shape[1]), x.reshape(-1, dim).sum(0), resid.T @ resid


def _whitening(count: int, total, scatter, dim: int, whiten: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre and whitening ``(S + whiten * tr(S)/dim * I)^(-1/2)`` from :func:`_sums` added over kinds."""
    eye = np.eye(dim, dtype=np.float32)
    if count == 0:
        return np.zeros(dim, np.float32), eye
    mu = (total / count).astype(np.float32)
    if whiten <= 0:
        return mu, eye
    scatter = scatter / count
    trace = float(np.trace(scatter))
    if trace <= 1e-12:
        return mu, eye
    w, vecs = np.linalg.eigh(scatter + whiten * trace / dim * np.eye(dim))
    return mu, ((vecs * np.maximum(w, 1e-12) ** -0.5) @ vecs.T).astype(np.float32)


def _protos(views: Sequence[np.ndarray], mu: np.ndarray, white: np.ndarray) -> np.ndarray:
    """Unit prototypes ``(K, P, dim)``: per kind, the normalised mean of its centred, whitened, unit vectors."""
    return _means(_unit((np.concatenate(views) - mu) @ white), _bounds(views))


def _bounds(views: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """Where each kind's rows lie in ``np.concatenate(views)``."""
    ends = np.cumsum([len(v) for v in views]).tolist()
    return list(zip([0, *ends[:-1]], ends, strict=True))


def _means(flat: np.ndarray, bounds: Sequence[tuple[int, int]]) -> np.ndarray:
    """Per kind (its rows ``flat[a:b]`` of centred, whitened, unit vectors), the normalised mean: its prototype."""
    return np.stack([_unit(flat[a:b].mean(0)) for a, b in bounds]).astype(np.float32)


def _b64(v: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(v, "<f4").tobytes()).decode()


def _unb64(text, count: int, dim: int, what: str) -> np.ndarray:
    v = np.frombuffer(base64.b64decode(text, validate=True), "<f4")
    if v.size != count * 2 * dim or not np.isfinite(v).all():
        raise ValueError(f"{what}: {v.size} numbers for {count} x 2 x {dim}")
    return v.reshape(count, 2, dim).astype(np.float32)


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """An altered copy of an enrolment picture, as another photo of the same tile might look: as a
    64 px square, turned to any angle, scaled 0.9-1.1, its corners moved up to 8 %, gamma 0.6-1.6,
    brightness 0.6-1.3, each colour 0.8-1.2 (white balance), sometimes blurred, sensor noise, JPEG
    quality 30-95."""
    sq = prep_one(crop, 64)
    src = np.float32([[0, 0], [64, 0], [64, 64], [0, 64]])
    dst = (src + rng.uniform(-0.08, 0.08, (4, 2)) * 64).astype(np.float32)
    turn = np.vstack([cv2.getRotationMatrix2D((32.0, 32.0), float(rng.uniform(-180, 180)),
                                              float(rng.uniform(0.9, 1.1))), [0, 0, 1]])
    out = cv2.warpPerspective(sq, turn @ cv2.getPerspectiveTransform(src, dst), (64, 64), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    x = (out.astype(np.float32) / 255) ** rng.uniform(0.6, 1.6)
    x = x * (rng.uniform(0.8, 1.2, 3) * rng.uniform(0.6, 1.3)).astype(np.float32)
    sigma = rng.uniform(0, 1.3)
    if sigma > 0.3:
        x = cv2.GaussianBlur(x, (0, 0), sigma)
    x = x + rng.normal(0, rng.uniform(0, 0.03), x.shape).astype(np.float32)
    out = np.clip(x * 255, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else out


def _turn45(crop: np.ndarray) -> np.ndarray:
    """The crop turned 45 degrees (as a 64 px square, edges repeated into the corners)."""
    sq = prep_one(crop, 64)
    m = cv2.getRotationMatrix2D((32.0, 32.0), 45.0, 1.0)
    return cv2.warpAffine(sq, m, (64, 64), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def embed(classifier, crops: Sequence[np.ndarray], *, turns: int = 4, phases: int = 2) -> np.ndarray:
    """The set's embeddings of crops, ``(N, 2, D)``: ``classifier.embed`` (averaged over ``turns``
    quarter turns) of each crop, and of the crop turned 45 degrees (zeros with ``phases=1``)."""
    crops = [to_bgr(c) for c in crops]
    e0 = classifier.embed(crops, turns=turns)
    e45 = classifier.embed([_turn45(c) for c in crops], turns=turns) if phases == 2 and crops else np.zeros_like(e0)
    return np.stack([e0, e45], axis=1).astype(np.float32)


def _view(v: np.ndarray, mode: str) -> np.ndarray:
    """What a mode compares of ``(n, 2, D)`` embeddings: ``(n, P, D)``."""
    if mode == "quarter":
        return v[:, :1]
    if mode == "octant":
        return v.mean(1, keepdims=True)
    return v


def similarity(emb: np.ndarray, protos: np.ndarray, mu: np.ndarray, mode: str, white: np.ndarray) -> np.ndarray:
    """Cosine similarity ``(N, K)`` of embeddings ``(N, 2, D)`` to prototypes ``(K, P, D)``, the
    embeddings centred on ``mu`` and whitened by ``white`` (:meth:`TileSet.space`).

    ``quarter``: the crop's quarter-turn embedding to the kinds' (a set photographed near quarter
    turns); ``octant``: the average with the 45-degree turn on both sides (a set photographed at
    any slant); ``phases``: the crop's quarter-turn embedding to the nearer of a kind's two phases.
    """
    q = ((emb.mean(1) if mode == "octant" else emb[:, 0]) - mu) @ white
    return np.einsum("nd,kpd->nkp", _unit(q), protos).max(2)


def embed_all(classifier, crops: Sequence[np.ndarray], *, progress: Progress | None = None) -> np.ndarray:
    """:func:`embed` over ``crops`` in batches, calling ``progress(done, total)`` after each."""
    out = []
    total = len(crops)
    for i in range(0, total, _BATCH):
        out.append(embed(classifier, crops[i:i + _BATCH]))
        if progress is not None:
            progress(min(i + _BATCH, total), total)
    if not out:
        return np.zeros((0, 2, 0), np.float32)
    return np.concatenate(out).astype(np.float32)


def build(classifier, samples: Sequence[tuple[str, np.ndarray]], *, progress: Progress | None = None,
          source: str = "", base: TileSet | None = None) -> TileSet:
    """A set from labelled crops ``(label, BGR crop)``; with ``base``, its vectors are kept too.

    Raises :class:`TileSetError` for an unknown label or a ``base`` of another model.
    """
    sha = model_sha256(classifier.model_path)
    for label, _crop in samples:
        if label not in ENROL_KINDS:
            raise TileSetError(f"enrol: unknown label {label!r} (expected one of {' '.join(ENROL_KINDS)})")
    if base is not None and base.model_sha256 != sha:
        raise TileSetError("enrol: the set to add to was made for another model version: enrol it again")
    crops = [to_bgr(c) for _l, c in samples]
    rng = np.random.default_rng(len(crops))          # the same pictures make the same set
    copies = [augment(c, rng) for c in crops for _ in range(AUGMENT)]
    per_picture = 1 + AUGMENT
    shown = None if progress is None else (lambda done, _total: progress(done // per_picture, len(crops)))
    vecs = embed_all(classifier, crops + copies, progress=shown)
    vecs, copy_vecs = vecs[:len(crops)], vecs[len(crops):]
    vectors: dict[str, list[np.ndarray]] = {}
    augmented: dict[str, list[np.ndarray]] = {}
    augmented_of: dict[str, list[np.ndarray]] = {}
    if base is not None:
        for k in base.kinds:
            vectors[k] = [base.vectors[k]]
            if len(base.augmented.get(k, ())):
                augmented[k] = [base.augmented[k]]
                augmented_of[k] = [base.augmented_of[k]]
    for i, ((label, _c), v) in enumerate(zip(samples, vecs, strict=True)):
        picture = sum(len(x) for x in vectors.get(label, ()))
        vectors.setdefault(label, []).append(v[None, :])
        augmented.setdefault(label, []).append(copy_vecs[i * AUGMENT:(i + 1) * AUGMENT])
        augmented_of.setdefault(label, []).append(np.full(AUGMENT, picture, np.int64))
    dim = int(vecs.shape[2]) if len(vecs) else (base.dim if base is not None else 0)
    ts = TileSet(model_sha256=sha, embedding=embedding_kind(classifier), dim=dim,
                 vectors={k: np.concatenate(v).astype(np.float32) for k, v in vectors.items()},
                 augmented={k: np.concatenate(v).astype(np.float32) for k, v in augmented.items()},
                 augmented_of={k: np.concatenate(v) for k, v in augmented_of.items()},
                 model_file=Path(classifier.model_path).name,
                 created=dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), source=source)
    ts.fit_rule()
    log.info("tile set: %s, rule %s", ts.describe(), ts.rule)
    return ts


class EnrolledClassifier:
    """The shipped classifier with a tile set: a ``TileClassifier`` (see the module doc for the rule).

    :meth:`classify` is the one-pass path for whole frames (the daemon's reader); :meth:`classify_voted`
    votes over the four quarter turns (single pictures, ``tablectl classify --set``, and the reader's
    second look at a frame's weak crops: ``votes_over_turns``).
    """

    votes_over_turns = True

    def __init__(self, classifier, tile_set: TileSet) -> None:
        sha = model_sha256(classifier.model_path)
        if tile_set.model_sha256 != sha:
            raise TileSetError("tile set: made for another model version: enrol the set again")
        if tile_set.embedding != embedding_kind(classifier):
            raise TileSetError(f"tile set: made from the model's {tile_set.embedding}, this model gives "
                               f"{embedding_kind(classifier)}: enrol the set again")
        self.base = classifier
        self.tile_set = tile_set
        self.classes = classifier.classes
        self.min_confidence = classifier.min_confidence
        kinds, self._protos, self._mu, self._white = tile_set.prototypes()
        self._mode = tile_set.mode
        self._cols = np.array([self.classes.index(k) for k in kinds if k in self.classes], np.int64)
        if len(self._cols) != len(kinds):
            self._protos = self._protos[[i for i, k in enumerate(kinds) if k in self.classes]]
        self._rule = tile_set.rule

    def combine(self, p_tile: np.ndarray, emb: np.ndarray) -> np.ndarray:
        """The rule: model probabilities ``(N, C)`` and embeddings ``(N, 2, D)`` -> probabilities ``(N, C)``."""
        if len(self._cols) == 0 or len(p_tile) == 0:
            return p_tile
        r = self._rule
        sims = similarity(emb, self._protos, self._mu, self._mode, self._white)
        enrolled = np.zeros(p_tile.shape[1], bool)
        enrolled[self._cols] = True
        m_e = np.clip(p_tile[:, enrolled].sum(1), 1e-6, 1 - 1e-6)
        log_odds = np.log(m_e / (1 - m_e)) + (sims.max(1) - r["ref"]) / r["gate_width"]
        gate = 1.0 / (1.0 + np.exp(-np.clip(log_odds, -50, 50)))
        q = np.zeros_like(p_tile)
        q[:, enrolled] = gate[:, None] * softmax(r["prior"] * np.log(np.maximum(p_tile[:, enrolled], 1e-12))
                                                 + sims / r["tau"])
        q[:, ~enrolled] = (1 - gate)[:, None] * p_tile[:, ~enrolled] / (1 - m_e)[:, None]
        return q

    def _answer(self, crops: list[np.ndarray], turns: int) -> list[TileGuess]:
        if not crops:
            return []
        crops = [to_bgr(c) for c in crops]
        variants = [np.ascontiguousarray(np.rot90(c, k)) for c in crops for k in range(turns)]
        n = len(variants)
        if self._mode == "octant":    # the crops turned 45 degrees too (embed()'s second phase)
            variants += [np.ascontiguousarray(np.rot90(_turn45(c), k)) for c in crops for k in range(turns)]
        # one run of the model gives the answers and the embeddings (embed() would run the same turns again)
        tile_logits, rotation_logits, emb = self.base.logits_and_embedding(variants)
        tile_logits, rotation_logits = tile_logits[:n], rotation_logits[:n]
        p_tile = softmax(tile_logits).reshape(len(crops), turns, -1).mean(1)
        p_rot = softmax(rotation_logits)
        for i in range(n):  # np.rot90 by k turns the face's clockwise turn back by 90k
            p_rot[i] = np.roll(p_rot[i], i % turns)
        p_rot = p_rot.reshape(len(crops), turns, -1).mean(1)
        e0 = emb[:n].reshape(len(crops), turns, -1).mean(1)
        e45 = emb[n:].reshape(len(crops), turns, -1).mean(1) if len(emb) > n else np.zeros_like(e0)
        p = self.combine(p_tile, np.stack([e0, e45], axis=1).astype(np.float32))
        return decode(np.log(p + 1e-12), np.log(p_rot + 1e-12), classes=self.classes,
                      min_confidence=self.min_confidence, symmetric_180=self.base.symmetric_180,
                      log_prior=self.base.log_prior)

    def classify(self, crops: Sequence[np.ndarray]) -> list[TileGuess]:
        return self._answer(list(crops), 1)

    def classify_voted(self, crops: Sequence[np.ndarray]) -> list[TileGuess]:
        return self._answer(list(crops), 4)


class FolderError(ValueError):
    """An enrolment folder that cannot be read: the message names the file and line."""


def read_labels(folder: Path) -> list[tuple[str, Path, int]]:
    """``(label, picture path, line)`` for each row of ``folder/labels.csv`` (header ``file,label``).
    Raises :class:`FolderError` naming the file and line."""
    if not folder.is_dir():
        raise FolderError(f"{folder}: not a folder")
    path = folder / "labels.csv"
    if not path.is_file():
        raise FolderError(f"{path}: not found (expected a labels.csv with header 'file,label')")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise FolderError(f"{path}: cannot read it ({err})") from err
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip() for c in rows[0]] != ["file", "label"]:
        got = ",".join(rows[0]) if rows else "an empty file"
        raise FolderError(f"{path} line 1: malformed header {got!r}, expected 'file,label'")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2 or not row[0].strip():
            raise FolderError(f"{path} line {line}: malformed row {','.join(row)!r}, expected 'file,label'")
        name, label = row[0].strip(), row[1].strip()
        if label not in ENROL_KINDS:
            raise FolderError(f"{path} line {line}: unknown label {label!r} (mpsz like 5p, 0m for a red five, "
                              "1f..8f, back)")
        out.append((label, folder / name, line))
    if not out:
        raise FolderError(f"{path}: no pictures listed")
    return out


def read_folder(folder: str | Path, progress: Progress | None = None) -> list[tuple[str, np.ndarray]]:
    """The ``(label, BGR picture)`` pairs an enrolment folder lists (``labels.csv``, the ``tablectl enrol
    DIR`` format); ``progress(done, total)`` every 50 pictures. Raises :class:`FolderError` naming the
    file and line of a bad row or picture."""
    folder = Path(folder)
    rows = read_labels(folder)
    samples = []
    for i, (label, picture, line) in enumerate(rows, start=1):
        try:
            samples.append((label, to_bgr(read_image(str(picture)))))
        except (OSError, ValueError) as err:
            raise FolderError(f"{folder / 'labels.csv'} line {line}: picture {picture}: {err}") from err
        if progress is not None and (i % 50 == 0 or i == len(rows)):
            progress(i, len(rows))
    return samples


def pictures_dir(set_path: str | Path) -> Path:
    """The folder beside a set file that keeps the mat pictures it was made from: ``<stem>_pictures``."""
    path = Path(set_path)
    return path.with_name(path.stem + "_pictures")


def keep_pictures(samples: Sequence[tuple[str, np.ndarray]], set_path: str | Path) -> Path:
    """Keep ``(label, crop)`` pictures beside the set file as an enrolment folder (``labels.csv`` and one
    PNG a picture, the ``tablectl enrol DIR`` format), replacing the folder of an earlier enrolment.
    A model update refuses the set (it is bound to the model); :func:`with_tile_set` (or ``tablectl
    enrol DIR --out SET``) then makes it again from these pictures, without the mat."""
    folder = pictures_dir(set_path)
    fresh, stale = folder.with_name(folder.name + ".new"), folder.with_name(folder.name + ".old")
    for leftover in (fresh, stale):       # of an enrolment cut short
        shutil.rmtree(leftover, ignore_errors=True)
    fresh.mkdir(parents=True)
    rows = ["file,label", *_write_pictures(fresh, samples)]
    (fresh / "labels.csv").write_text("\n".join(rows) + "\n")
    if folder.exists():
        folder.rename(stale)
    fresh.rename(folder)
    shutil.rmtree(stale, ignore_errors=True)
    return folder


def _write_pictures(folder: Path, samples: Sequence[tuple[str, np.ndarray]], *,
                    taken: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Write ``(label, crop)`` pictures into ``folder`` as ``NNN_label.png``, numbered on after the
    ``taken`` names without reusing one; their ``labels.csv`` rows (``file,label``)."""
    rows, used, n = [], set(taken), len(taken)
    for label, crop in samples:
        n += 1
        while (name := f"{n:03d}_{label}.png") in used:
            n += 1
        if not cv2.imwrite(str(folder / name), to_bgr(crop)):
            raise OSError(f"{folder / name}: could not be written")
        used.add(name)
        rows.append(f"{name},{label}")
    return rows


def keep_added_pictures(samples: Sequence[tuple[str, np.ndarray]], base_path: str | Path,
                        set_path: str | Path) -> Path | None:
    """After ``samples`` are added to the set at ``base_path`` (``build(..., base=...)``) and saved at
    ``set_path``: keep these beside the base's pictures, so the set made again after a model update
    holds them all. Where ``set_path`` is the base's own file the new pictures join its folder (the
    kept ones are not read or written again; ``labels.csv`` is replaced last, so a fault midway leaves
    the list as it was); elsewhere they go with copies of the base's into a folder of its own.
    ``None`` (nothing kept) where the base kept no pictures: such a set cannot be made again anyway.
    Raises OSError or :class:`FolderError` if the kept ones cannot be read."""
    kept = pictures_dir(base_path)
    if not (kept / "labels.csv").exists():
        return None
    folder = pictures_dir(set_path)
    if folder.resolve() != kept.resolve():
        return keep_pictures([*read_folder(kept), *samples], set_path)
    rows = read_labels(kept)
    for _label, picture, line in rows:
        if not picture.is_file():
            raise FolderError(f"{kept / 'labels.csv'} line {line}: picture {picture}: not found")
    lines = ["file,label", *(f"{picture.name},{label}" for label, picture, _line in rows)]
    lines += _write_pictures(folder, samples, taken={picture.name for _label, picture, _line in rows})
    fresh = folder / "labels.csv.new"
    fresh.write_text("\n".join(lines) + "\n")
    os.replace(fresh, folder / "labels.csv")
    return folder


@dataclass(frozen=True)
class Saved:
    """Where :func:`save_set` saved a set, and where it kept its pictures (``None``: not kept, and
    ``not_kept`` says why where keeping them failed)."""

    path: Path
    pictures: Path | None = None
    not_kept: str = ""


def save_set(tile_set: TileSet, path: str | Path, samples: Sequence[tuple[str, np.ndarray]] | None = None, *,
             base_path: str | Path | None = None) -> Saved:
    """Save ``tile_set`` at ``path`` and keep the pictures it was made from beside it (the set is
    made again from them after a model update, :func:`with_tile_set`): ``samples`` the mat's
    (:func:`keep_pictures`), or, with ``base_path``, those added to the set saved there, beside its
    own (:func:`keep_added_pictures`); ``samples=None`` keeps none (a folder the set was read from
    keeps them already). Raises ``OSError`` if the set itself cannot be saved; pictures that cannot
    be kept are only reported (``Saved.not_kept``): the set is saved and usable either way."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tile_set.save(path)
    if samples is None:
        return Saved(path)
    try:
        if base_path is None:
            return Saved(path, keep_pictures(samples, path))
        return Saved(path, keep_added_pictures(samples, base_path, path))
    except (OSError, ValueError) as err:
        return Saved(path, None, str(err))


def with_tile_set(classifier, path: str | Path) -> tuple[object, str]:
    """``classifier`` with the tile set at ``path``, and a line for the staff view. A set that cannot
    be used (made for another model, damaged) is made again from the pictures kept beside it (the
    mat's, :func:`keep_pictures`, and those added from play, :func:`keep_added_pictures`) and saved;
    without them, or if that fails, the classifier alone (and why; the refusal is logged)."""
    if not path:
        return classifier, "none (the shipped model)"
    try:
        ts = TileSet.load(path, model_sha256=model_sha256(classifier.model_path))
        return EnrolledClassifier(classifier, ts), f"{path}: {ts.describe()}"
    except TileSetError as err:
        refused = err
    again = pictures_dir(path)
    if (again / "labels.csv").exists():
        # the pictures staff confirmed when they enrolled: the set made again for this model (after an
        # update) or again whole (a damaged file); the labels are theirs, only the embeddings are new
        try:
            ts = build(classifier, read_folder(again), source=f"made again from {again}")
            ts.save(path)
        except (TileSetError, OSError, ValueError) as err:
            log.error("camera: %s; making it again from %s failed (%s); reading with the shipped model alone",
                      refused, again, err)
            return classifier, f"refused ({refused}); made again from {again}: failed ({err}); the shipped model alone"
        log.warning("camera: %s; made it again from its pictures %s", refused, again)
        why = "for this model" if isinstance(refused, ForeignSetError) else "from its pictures: the file was unusable"
        return EnrolledClassifier(classifier, ts), f"{path}: {ts.describe()} (made again {why})"
    log.error("camera: %s; reading with the shipped model alone", refused)
    return classifier, f"refused ({refused}); the shipped model alone"
