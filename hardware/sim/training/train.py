"""Train the tile classifier and export it to ONNX: ``python -m hardware.sim.training.train`` (a development step).

Renders the training crops (``hardware/sim/training/data.py``: the face designs and conditions
of ``hardware/sim/tile_designs.py``) into ``.train/`` in the repository (ignored by git; reused
when present), trains a small depthwise-separable CNN with two heads (tile class, rotation) on
the CPU, calibrates it (temperature scaling on held-out renders, folded into the tile head),
exports ``vision/models/tiles.onnx`` with its class list in the ONNX metadata and the
penultimate embedding as a third output ``features``, and prints the held-out report for
``vision/models/MODEL_CARD.md``.

torch, onnx and tqdm are the ``train`` extra; the product itself runs the exported file with
onnxruntime only.

Options: ``--samples N`` (training crops, default 180000), ``--epochs E``, ``--threads T``,
``--heldout N``, ``--out DIR``, ``--fresh`` (re-render the data even if cached), ``--also`` (more
cached ``.npz`` sets), ``--init-onnx FILE`` (fine-tune from an exported model's weights),
``--scene-frames F`` (also train on the crops the table reader cuts from ``F`` frames of the scene
renderer, labelled by the shipped model, which reads them exactly: ``data.scene_set``; cached in
``.train/``), ``--scene-keep`` (the share of their backs and empty places kept), ``--widths`` (the network's channels),
``--depth`` (blocks at each width: a deeper network fine-tuned from a shallower file starts as that file),
``--distill TEACHER.onnx`` (also match the teacher's answers on the crops it reads right),
``--p-artwork`` (the share of rendered sets in the artwork), ``--p-mixed`` (the share of the others
drawn in ``tile_designs.mixed_design``), ``--upright`` (render under the near-upright
subset of the training conditions), ``--steep`` (under their corner of strong tilt and squeeze),
``--design NAME`` (every set in one named training design), ``--wear SHARE`` (the share of sets drawn as
played, engraved sets), ``--look-alikes N`` (also N near-upright crops of the scene artwork's look-alike
kinds only, chunk seeds from ``--seed-base``).
The shipped model's recipe is in ``vision/models/MODEL_CARD.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

from hardware.sim.training import data as train_data
from vision.decode import CLASSES, INPUT_SIZE, ROTATIONS

REPO = Path(__file__).resolve().parents[3]
CACHE_DIR = REPO / ".train"
MODEL_DIR = REPO / "vision" / "models"
CALIBRATION_SEED = train_data.HELDOUT_SEED + 500_000  # held-out renders for the temperature, not for the figures
CHUNK = 2000
WIDTHS = (32, 64, 96, 128, 192, 256)  # the shipped model's (2026-12-03); the artwork model of 2026-11-29: 16,32,48,64,96,128
STRIDES = (1, 2, 1, 2, 1)             # of the five blocks after the stem
DEPTH = (1, 1, 1, 1, 1)               # blocks at each of the five widths (candidates 36-37: 1,2,2,2,2)


def _render_chunk(seed: int, p_artwork: float = train_data.P_ARTWORK, upright: bool = False, p_mixed: float = 0.0,
                  steep: bool = False, design: str | None = None, wear: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return train_data.render_set(CHUNK, seed, p_artwork=p_artwork, upright=upright, p_mixed=p_mixed, steep=steep,
                                 design=design, wear=wear)


def render_training_set(n: int, *, workers: int, fresh: bool, seed_base: int = 1,
                        p_artwork: float = train_data.P_ARTWORK, upright: bool = False, p_mixed: float = 0.0,
                        steep: bool = False, design: str | None = None, wear: float = 0.0
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Render (or load from ``.train/``) ``n`` training crops; chunk seeds from ``seed_base`` (small
    integers, never the held-out seed); ``p_artwork``: the share of sets in the artwork; ``design``: one
    named training design only."""
    import functools

    chunks = (n + CHUNK - 1) // CHUNK
    share = (("" if p_artwork == train_data.P_ARTWORK else f"_a{p_artwork:g}") + ("_up" if upright else "")
             + ("_steep" if steep else "") + (f"_m{p_mixed:g}" if p_mixed else "") + (f"_d{design}" if design else "") + (f"_w{wear:g}" if wear else ""))
    path = CACHE_DIR / f"train_v7_s{seed_base}_{chunks * CHUNK}{share}.npz"
    render = functools.partial(_render_chunk, p_artwork=p_artwork, upright=upright, p_mixed=p_mixed, steep=steep,
                               design=design, wear=wear)
    return _cached_chunks(path, render, range(seed_base, seed_base + chunks), workers=workers, fresh=fresh)


def _load_set(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = np.load(path)
    return data["x"], data["y"], data["r"]


def _cached_chunks(path: Path, render, seeds: range, *, workers: int, fresh: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The set cached at ``path``, or (absent, or ``fresh``) ``render(seed) -> (x, y, r)`` of each of ``seeds``
    in ``workers`` processes, concatenated and cached there."""
    from tqdm import tqdm

    if path.is_file() and not fresh:
        return _load_set(path)
    CACHE_DIR.mkdir(exist_ok=True)
    with mp.get_context("fork").Pool(workers) as pool:
        parts = list(tqdm(pool.imap(render, seeds), total=len(seeds), desc="render", unit="chunk"))
    x, y, r = (np.concatenate([p[i] for p in parts]) for i in range(3))
    np.savez(path, x=x, y=y, r=r)
    return x, y, r


def scene_training_set(frames: int, *, keep: float, per_chunk: int = 25, seed_base: int = 1
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops of ``frames`` scene-renderer frames (``data.scene_set``, chunks of ``per_chunk`` frames cached in
    ``.train/``); of the ``back`` and ``none`` crops (most of them: the walls) only the share ``keep`` is kept."""
    CACHE_DIR.mkdir(exist_ok=True)
    parts = []
    for seed in range(seed_base, seed_base + (frames + per_chunk - 1) // per_chunk):
        path = CACHE_DIR / f"scene_v1_{seed}.npz"
        if not path.is_file():
            np.savez(path, **dict(zip("xyr", train_data.scene_set(per_chunk, seed), strict=True)))
        parts.append(_load_set(path))
    x, y, r = (np.concatenate([p[i] for p in parts]) for i in range(3))
    plentiful = np.isin(y, [CLASSES.index("back"), CLASSES.index("none")])
    sel = ~plentiful | (np.random.default_rng(seed_base).random(len(y)) < keep)
    return x[sel], y[sel], r[sel]


# the scene artwork's look-alike kinds (candidate 33): the pairs the classifier tests bound, and their neighbours
LOOKALIKES = ("2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "0p", "3m", "4m", "5m", "6m", "7m", "9m", "0m",
              "1s", "2s", "3s", "5s", "0s", "7s", "9s")


def _lookalike_chunk(seed: int, n: int = 64) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = [LOOKALIKES[i] for i in rng.integers(len(LOOKALIKES), size=n)]
    rots = [int(r) for r in rng.choice(ROTATIONS, size=n)]
    xs = train_data.render_labels(labels, rots, seed=seed)   # one set of the artwork, near upright
    return xs, np.array([CLASSES.index(t) for t in labels]), np.array([ROTATIONS.index(r) for r in rots])


def lookalike_set(n: int, *, workers: int, seed_base: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Render (or load from ``.train/``) ``n`` crops of the artwork's look-alike kinds only (``LOOKALIKES``),
    one set style per 64 crops, chunk seeds from ``seed_base``."""
    chunks = n // 64
    path = CACHE_DIR / f"lookalike_v7_s{seed_base}_{chunks * 64}.npz"
    return _cached_chunks(path, _lookalike_chunk, range(seed_base, seed_base + chunks), workers=workers)


def build_model(widths: tuple[int, ...] = WIDTHS, depth: tuple[int, ...] = DEPTH):
    """The network: a stride-2 stem and five depthwise-separable blocks (``widths``: the stem's and each
    block's output channels), global pooling, two heads. ``depth[i]`` > 1 follows block i with
    ``depth[i] - 1`` more blocks of its width (stride 1).

    Convolutions carry a bias and no batch norm: the exported graph (batch norm folded into the
    convolutions) can then be loaded back with :func:`init_from_onnx` and fine-tuned.
    ``forward`` returns ``(tile_logits, rotation_logits, features)``.
    """
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int, slot: tuple[int, int]) -> nn.Sequential:
        b = nn.Sequential(
            nn.Conv2d(cin, cin, 3, stride, 1, groups=cin), nn.ReLU(inplace=True),
            nn.Conv2d(cin, cout, 1), nn.ReLU(inplace=True),
        )
        b.slot = slot  # (width i, j-th block of it): init_from_onnx starts the j >= file's depth as identities
        return b

    w = tuple(widths)
    if len(depth) != len(w) - 1 or min(depth) < 1:
        raise ValueError(f"build_model: depth needs {len(w) - 1} counts of at least 1, got {depth}")
    layers = [nn.Conv2d(3, w[0], 3, 2, 1), nn.ReLU(inplace=True)]   # 20x20
    for i, stride in enumerate(STRIDES):   # 20x20, 10x10, 10x10, 5x5, 5x5
        layers.append(block(w[i], w[i + 1], stride, (i, 0)))
        layers += [block(w[i + 1], w[i + 1], 1, (i, j)) for j in range(1, depth[i])]

    class TileNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.depth = tuple(depth)   # for init_from_onnx
            self.widths = w             # for init_from_onnx and widen
            self.features = nn.Sequential(*layers)
            self.tile_head = nn.Linear(w[-1], len(CLASSES))
            self.rotation_head = nn.Linear(w[-1], len(ROTATIONS))
            self.dropout = nn.Dropout(0.1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            f = self.features(x - 0.5).mean(dim=(2, 3))
            d = self.dropout(f)
            return self.tile_head(d), self.rotation_head(d), f

    return TileNet()


def onnx_architecture(path: Path) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(widths, depth)`` of an exported model, read from its convolutions (for :func:`build_model`)."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(path))
    return _architecture({i.name: numpy_helper.to_array(i) for i in m.graph.initializer},
                         [n for n in m.graph.node if n.op_type == "Conv"])


def _architecture(inits: dict[str, np.ndarray], convs: list) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(widths, depth)`` from an exported graph's initializers and its Conv nodes in order."""
    shapes = {name: a.shape for name, a in inits.items()}
    widths, depth = [shapes[convs[0].input[1]][0]], []
    for pw in convs[2::2]:   # after the stem: (depthwise, pointwise) pairs
        cout = shapes[pw.input[1]][0]
        if depth and cout == widths[-1] and len(widths) > 1:
            depth[-1] += 1
        else:
            widths.append(cout)
            depth.append(1)
    return tuple(widths), tuple(depth)


def init_from_onnx(model, path: Path, *, seed: int = 0) -> None:
    """Load the weights of an exported model (convolutions in graph order, then the two heads). A model
    deeper than the file (``build_model``'s ``depth``) takes the file's blocks in order and starts each
    block the file lacks as the identity (its input follows a ReLU, so it passes through unchanged):
    the deeper network first reads exactly as the file does. A model wider than the file (more channels
    at some widths) starts from the file's network made wider by :func:`widen` (it too reads as the file)."""
    import onnx
    import torch
    from onnx import numpy_helper

    m = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    blocks = list(model.features.children())
    file_widths, file_depth = _architecture(inits, convs)
    widths = model.widths
    if file_widths != widths:
        if len(file_widths) != len(widths) or any(f > w for f, w in zip(file_widths, widths, strict=True)):
            raise ValueError(f"init_from_onnx: {path} has widths {file_widths}, the network {widths}: "
                             "a network can only start from a file as wide as it or narrower")
        narrow = build_model(file_widths, model.depth)
        init_from_onnx(narrow, path)
        widen(narrow, model, seed=seed)
        return
    if len(file_depth) != len(model.depth) or any(f > d for f, d in zip(file_depth, model.depth, strict=True)):
        raise ValueError(f"init_from_onnx: {path} has blocks {file_depth}, the network {model.depth}: "
                         "a network can only start from a file as deep as it or shallower")
    extra = [b for b in blocks if hasattr(b, "slot") and b.slot[1] >= file_depth[b.slot[0]]]
    mine = [mod for b in blocks if b not in extra for mod in b.modules() if isinstance(mod, torch.nn.Conv2d)]
    if len(convs) != len(mine):
        raise ValueError(f"init_from_onnx: {path} has {len(convs)} convolutions, the network {len(mine)}")
    with torch.no_grad():
        for node, mod in zip(convs, mine, strict=True):
            if tuple(mod.weight.shape) != inits[node.input[1]].shape:
                raise ValueError(f"init_from_onnx: {path}: a convolution of shape {inits[node.input[1]].shape}, "
                                 f"the network's {tuple(mod.weight.shape)}")
            mod.weight.copy_(torch.from_numpy(inits[node.input[1]]))
            mod.bias.copy_(torch.from_numpy(inits[node.input[2]]))
        for b in extra:
            depthwise, pointwise = (mod for mod in b.modules() if isinstance(mod, torch.nn.Conv2d))
            depthwise.weight.zero_()
            depthwise.weight[:, 0, 1, 1] = 1.0
            pointwise.weight.copy_(torch.eye(pointwise.out_channels)[:, :, None, None])
            depthwise.bias.zero_()
            pointwise.bias.zero_()
        for head in ("tile_head", "rotation_head"):
            getattr(model, head).weight.copy_(torch.from_numpy(inits[f"{head}.weight"]))
            getattr(model, head).bias.copy_(torch.from_numpy(inits[f"{head}.bias"]))


def widen(narrow, wide, *, seed: int = 0) -> None:
    """Copy ``narrow`` into ``wide`` (same depth, at least as many channels at each width) so that ``wide``
    computes the same function (Net2WiderNet, Chen et al. 2016): each added channel repeats a channel of its
    width chosen at random, and the layer after it shares that channel's outgoing weights among the copies in
    random parts summing to one (the same sum, and copies that learn apart from the first step)."""
    import torch
    from torch import nn

    rng = np.random.default_rng(seed)
    wn, ww = narrow.widths, wide.widths
    maps, shares = [], []
    for a, b in zip(wn, ww, strict=True):
        g = np.concatenate([np.arange(a), rng.integers(0, a, b - a)])
        share = np.ones(b)
        for c in np.unique(g):
            copies = np.flatnonzero(g == c)
            share[copies] = rng.dirichlet(np.full(len(copies), 4.0)) if len(copies) > 1 else 1.0
        maps.append(torch.from_numpy(g))
        shares.append(torch.from_numpy(share).float())
    old = [m for m in narrow.features.modules() if isinstance(m, nn.Conv2d)]
    new = [m for m in wide.features.modules() if isinstance(m, nn.Conv2d)]
    levels = [0] + [lv for i, d in enumerate(narrow.depth) for lv in [i + 1] * d]   # the width each conv pair writes
    with torch.no_grad():
        new[0].weight.copy_(old[0].weight[maps[0]])
        new[0].bias.copy_(old[0].bias[maps[0]])
        src = 0
        for k, out in enumerate(levels[1:]):
            dw_o, pw_o, dw_n, pw_n = old[1 + 2 * k], old[2 + 2 * k], new[1 + 2 * k], new[2 + 2 * k]
            gi, si, go = maps[src], shares[src], maps[out]
            dw_n.weight.copy_(dw_o.weight[gi])
            dw_n.bias.copy_(dw_o.bias[gi])
            pw_n.weight.copy_(pw_o.weight[go][:, gi] * si[None, :, None, None])
            pw_n.bias.copy_(pw_o.bias[go])
            src = out
        for head in ("tile_head", "rotation_head"):
            h_o, h_n = getattr(narrow, head), getattr(wide, head)
            h_n.weight.copy_(h_o.weight[:, maps[-1]] * shares[-1][None, :])
            h_n.bias.copy_(h_o.bias)


def _rotation_targets(y: np.ndarray, r: np.ndarray, symmetric: frozenset[str]) -> np.ndarray:
    """Soft rotation targets: one-hot, or half/half over r and r+180 for faces symmetric under 180."""
    t = np.zeros((len(y), 4), np.float32)
    t[np.arange(len(y)), r] = 1.0
    sym_idx = [CLASSES.index(c) for c in symmetric | {"back"}]
    sym = np.isin(y, sym_idx)
    t[sym] = 0.5 * (t[sym] + np.roll(t[sym], 2, axis=1))
    return t


def load_chunks(pattern: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All cached ``.npz`` sets matching ``pattern`` (relative to the repository), concatenated."""
    files = sorted(REPO.glob(pattern))
    if not files:
        raise FileNotFoundError(f"train: no data matches {pattern}")
    parts = [np.load(f) for f in files]
    return tuple(np.concatenate([p[k] for p in parts]) for k in ("x", "y", "r"))  # type: ignore[return-value]


def teacher_targets(x: np.ndarray, y: np.ndarray, teacher: Path, threads: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``teacher`` model's tile and rotation probabilities on ``x`` and a mask of the crops it reads right
    (distillation learns only from those: the teacher's knowledge of its own designs, not its mistakes)."""
    from vision.classifier import OnnxTileClassifier
    from vision.decode import softmax

    clf = OnnxTileClassifier(teacher, threads=threads)
    tl, rl = [], []
    for i in range(0, len(x), 2048):  # the crops are prepared already (prep of an input-size crop keeps it)
        a, b = clf.logits(list(x[i:i + 2048]))
        tl.append(a)
        rl.append(b)
    pt, pr = softmax(np.concatenate(tl)), softmax(np.concatenate(rl))
    return pt.astype(np.float32), pr.astype(np.float32), pt.argmax(1) == y


def train(x: np.ndarray, y: np.ndarray, r: np.ndarray, *, epochs: int, threads: int, seed: int = 0,
          init: Path | None = None, init_onnx: Path | None = None, max_lr: float = 4e-3, reload=None,
          widths: tuple[int, ...] = WIDTHS, depth: tuple[int, ...] = DEPTH, teacher: Path | None = None,
          distill_weight: float = 1.0):
    """Train (or fine-tune) the network; ``reload()``, if given, returns a fresh (x, y, r) each epoch
    (data still being rendered joins as it lands). LR: 10 % warm-up, then cosine down to 2 %.
    ``teacher``: also match that model's tile and rotation probabilities on the crops it reads right
    (weight ``distill_weight``), so that a new network keeps what the old one knew."""
    import math

    import torch
    from torch.nn import functional as F

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    symmetric = train_data.symmetric_180()
    model = build_model(widths, depth)
    if init is not None:  # fine-tune from an earlier run's weights
        model.load_state_dict(torch.load(init, map_location="cpu"))
    if init_onnx is not None:
        init_from_onnx(model, init_onnx, seed=seed)
    model = model.to(memory_format=torch.channels_last)  # the batches are NHWC already; about 2x faster on the CPU
    batch = 256
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(seed)
    t0 = time.monotonic()
    for epoch in range(epochs):
        if reload is not None:
            x, y, r = reload()
        rot_t = torch.from_numpy(_rotation_targets(y, r, symmetric))
        rot_w = torch.from_numpy((y != CLASSES.index("none")).astype(np.float32))
        if teacher is not None and (reload is not None or epoch == 0):
            t_tile, t_rot, t_ok = (torch.from_numpy(a) for a in teacher_targets(x, y, teacher, threads))
            print(f"teacher reads {float(t_ok.float().mean()):.4f} of {len(y)} crops right", flush=True)
        xt = torch.from_numpy(x)  # uint8 NHWC; converted per batch to keep memory small
        yt = torch.from_numpy(y)
        model.train()
        order = torch.randperm(len(x), generator=gen)
        correct = seen = 0
        loss_sum = 0.0
        for i in range(0, len(x), batch):
            progress = (epoch + i / len(x)) / epochs
            lr = max_lr * (progress / 0.1 if progress < 0.1 else
                           0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * (progress - 0.1) / 0.9)))
            for g in opt.param_groups:
                g["lr"] = lr
            idx = order[i:i + batch]
            xb = xt[idx].permute(0, 3, 1, 2).float().mul_(1 / 255)
            if torch.rand(1, generator=gen).item() < 0.5:  # cheap extra contrast/brightness jitter
                xb = (xb - 0.5) * (0.8 + 0.4 * torch.rand(len(idx), 1, 1, 1, generator=gen)) + 0.5
            logits, rot_logits, _ = model(xb)
            loss = F.cross_entropy(logits, yt[idx], label_smoothing=0.02)
            rot_loss = -(rot_t[idx] * F.log_softmax(rot_logits, dim=1)).sum(1)
            loss = loss + 0.5 * (rot_loss * rot_w[idx]).sum() / rot_w[idx].sum().clamp(min=1)
            if teacher is not None:
                ok = t_ok[idx].float()
                kl = -(t_tile[idx] * F.log_softmax(logits, dim=1)).sum(1)
                kl = kl + 0.5 * -(t_rot[idx] * F.log_softmax(rot_logits, dim=1)).sum(1) * rot_w[idx]
                loss = loss + distill_weight * (kl * ok).sum() / ok.sum().clamp(min=1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            correct += int((logits.argmax(1) == yt[idx]).sum())
            seen += len(idx)
            loss_sum += float(loss) * len(idx)
        CACHE_DIR.mkdir(exist_ok=True)
        torch.save(model.state_dict(), CACHE_DIR / f"tiles_epoch{epoch + 1}.pt")  # a checkpoint per epoch
        print(f"epoch {epoch + 1}/{epochs}: {len(x)} crops, loss {loss_sum / seen:.3f}, train acc "
              f"{correct / seen:.4f}, lr {lr:.2e}, {time.monotonic() - t0:.0f} s", flush=True)
    model = model.to(memory_format=torch.contiguous_format).eval()
    torch.save(model.state_dict(), CACHE_DIR / "tiles_last.pt")
    return model, symmetric


def export_onnx(model, path: Path, symmetric: frozenset[str], extra: dict[str, str] | None = None) -> None:
    """Write ``model`` as ONNX with the metadata the product reads (and ``extra`` entries)."""
    import onnx
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE)
    torch.onnx.export(model, (dummy,), str(path), dynamo=False, opset_version=17,
                      input_names=["crops"], output_names=["tile_logits", "rotation_logits", "features"],
                      dynamic_axes={"crops": {0: "n"}, "tile_logits": {0: "n"}, "rotation_logits": {0: "n"},
                                    "features": {0: "n"}})
    m = onnx.load(str(path))
    meta = {
        "classes": json.dumps(list(CLASSES)),
        "rotations": json.dumps(list(ROTATIONS)),
        "input_size": str(INPUT_SIZE),
        "symmetric_180": json.dumps(sorted(symmetric)),
        "preprocessing": "BGR uint8 crop, pad to square (replicate edges), area-resize to input_size, "
                         "NCHW float32 0..1 (vision/decode.py prep)",
        "trained": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
        **(extra or {}),
    }
    del m.metadata_props[:]
    for k, v in meta.items():
        entry = m.metadata_props.add()
        entry.key, entry.value = k, v
    m.doc_string = "jantaku tile classifier: tile class + rotation (+ features, the penultimate embedding)"
    onnx.save(m, str(path))


def fit_temperature(tile_logits: np.ndarray, true: np.ndarray) -> float:
    """The temperature T minimising the negative log-likelihood of ``softmax(logits / T)`` (a grid search)."""
    from vision.decode import softmax

    best_t, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 121)):
        p = softmax(tile_logits / t)[np.arange(len(true)), true]
        nll = float(-np.log(p + 1e-12).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t


def calibrate(model, n: int, threads: int) -> float:
    """Fit the temperature on ``n`` held-out renders (seeds ``CALIBRATION_SEED``..., not those of the figures)
    and fold it into the tile head; returns T."""
    import torch

    torch.set_num_threads(threads)
    xs, ys, _ = train_data.render_set(n, CALIBRATION_SEED, heldout=True, group=32)
    model.eval()
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(xs[i:i + 512]).permute(0, 3, 1, 2).float() / 255)[0]
                            for i in range(0, n, 512)]).numpy()
    t = fit_temperature(logits, ys)
    with torch.no_grad():
        model.tile_head.weight.div_(t)
        model.tile_head.bias.div_(t)
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hardware.sim.training.train", description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=180_000, help="crops to render (0: train on --also only)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--heldout", type=int, default=4000)
    ap.add_argument("--calibration", type=int, default=3000, help="held-out renders to fit the temperature on")
    ap.add_argument("--out", type=Path, default=MODEL_DIR)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--seed-base", type=int, default=1, help="first chunk seed of the rendered set")
    ap.add_argument("--also", type=Path, nargs="*", default=[], help="more cached .npz sets to train on")
    ap.add_argument("--chunks", default=None, help="glob of cached .npz sets, re-read every epoch")
    ap.add_argument("--render-only", action="store_true", help="render (and cache) the data, do not train")
    ap.add_argument("--init", type=Path, default=None, help="start from these torch weights (fine-tune)")
    ap.add_argument("--init-onnx", type=Path, default=None, help="start from an exported model's weights")
    ap.add_argument("--max-lr", type=float, default=4e-3)
    ap.add_argument("--scene-frames", type=int, default=0, help="also train on the reader's crops of this many "
                    "scene-renderer frames (labelled by the shipped model)")
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)),
                    help="channels of the stem and the five blocks, comma-separated")
    ap.add_argument("--depth", default=",".join(map(str, DEPTH)),
                    help="blocks at each of the five widths, comma-separated (with --init-onnx of a shallower "
                         "model the added blocks start as the identity)")
    ap.add_argument("--distill", type=Path, default=None, help="teacher model (ONNX) to distil on the crops it reads right")
    ap.add_argument("--distill-weight", type=float, default=1.0)
    ap.add_argument("--p-artwork", type=float, default=train_data.P_ARTWORK,
                    help="share of rendered sets in the artwork")
    ap.add_argument("--p-mixed", type=float, default=0.0, help="share of the non-artwork rendered sets drawn in "
                    "a random mix of the training designs' choices (tile_designs.mixed_design)")
    ap.add_argument("--upright", action="store_true", help="render under the near-upright, well-lit subset of "
                    "the training conditions (CHECK_CONDITIONS)")
    ap.add_argument("--steep", action="store_true", help="render under the training poses' corner of strong tilt "
                    "and squeeze (STEEP_CONDITIONS)")
    ap.add_argument("--design", default=None, choices=train_data.TRAIN_DESIGNS,
                    help="render every set in this one named training design (tile_designs.DESIGNS)")
    ap.add_argument("--wear", type=float, default=0.0, help="share of rendered sets drawn as played, engraved sets "
                    "(tile_art.worn_style: shaded grooves, worn paint, outlined strokes)")
    ap.add_argument("--look-alikes", type=int, default=0, metavar="N",
                    help="also render N crops of the scene artwork's look-alike kinds only (LOOKALIKES), near upright")
    ap.add_argument("--scene-keep", type=float, default=0.35, help="share of the scene crops' backs and empties kept")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    parts = []
    if args.samples:
        parts.append(render_training_set(args.samples, workers=args.threads, fresh=args.fresh,
                                         seed_base=args.seed_base, p_artwork=args.p_artwork,
                                         upright=args.upright, p_mixed=args.p_mixed, steep=args.steep,
                                         design=args.design, wear=args.wear))
    if args.scene_frames:
        parts.append(scene_training_set(args.scene_frames, keep=args.scene_keep))
    if args.look_alikes:
        parts.append(lookalike_set(args.look_alikes, workers=args.threads, seed_base=args.seed_base))
    render_s = time.monotonic() - t0
    if args.render_only:
        print(f"rendered {sum(len(p[1]) for p in parts)} crops in {render_s:.0f} s")
        return 0
    for extra in args.also:
        parts.append(_load_set(extra))
    reload = None
    if args.chunks:
        def reload():
            got = load_chunks(args.chunks)
            return tuple(np.concatenate([got[i]] + [p[i] for p in parts]) for i in range(3))
        parts_x = reload()
    else:
        parts_x = tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
    x, y, r = parts_x
    t1 = time.monotonic()
    widths = tuple(int(w) for w in args.widths.split(","))
    if len(widths) != len(WIDTHS):
        ap.error(f"--widths: {len(WIDTHS)} numbers, got {args.widths!r}")
    depth = tuple(int(d) for d in args.depth.split(","))
    if len(depth) != len(DEPTH) or min(depth) < 1:
        ap.error(f"--depth: {len(DEPTH)} numbers of at least 1, got {args.depth!r}")
    model, symmetric = train(x, y, r, epochs=args.epochs, threads=args.threads, init=args.init,
                             init_onnx=args.init_onnx, max_lr=args.max_lr, reload=reload, widths=widths,
                             depth=depth, teacher=args.distill, distill_weight=args.distill_weight)
    train_s = time.monotonic() - t1
    temperature = calibrate(model, args.calibration, args.threads)
    onnx_path = args.out / "tiles.onnx"
    export_onnx(model, onnx_path, symmetric)
    write_report(onnx_path, args.heldout, f"on {len(x)} crops, {args.epochs} epochs, temperature {temperature:.3f}, "
                                          f"render {render_s:.0f} s, train {train_s:.0f} s")
    return 0


def write_report(onnx_path: Path, heldout: int, describe: str) -> float:
    """The exported model's held-out report (``heldout`` renders), printed and written beside it as
    ``heldout_report.txt`` with a summary line (size, sha256, ``describe``); returns the top-1."""
    from vision.classifier import OnnxTileClassifier

    acc, report = train_data.evaluate_heldout(heldout, classifier=OnnxTileClassifier(onnx_path))
    digest = hashlib.sha256(onnx_path.read_bytes()).hexdigest()[:16]
    summary = (f"model {onnx_path} ({onnx_path.stat().st_size / 1024:.0f} KB, sha256 {digest}) {describe}; "
               f"held-out top-1 {acc:.4f}")
    (onnx_path.parent / "heldout_report.txt").write_text(report + "\n" + summary + "\n")
    print(report)
    print(summary)
    return acc


if __name__ == "__main__":
    sys.exit(main())
