"""Two experts in one model file: ``python -m hardware.sim.training.mixture`` (a development step).

The old model (trained on the artwork only; it reads the scene renderer's artwork under any set
style) and a wider one trained on every training design (it generalises to designs it never saw,
but misreads a few artwork crops the old one reads) are joined in one ONNX graph with a learned
gate: ``g = sigmoid(w . [f_old, f_new] + b)`` from the two networks' embeddings, and

    p(tile) = g * p_old(tile) + (1 - g) * p_new(tile)      (the same for the rotation)

``tile_logits`` and ``rotation_logits`` of the exported graph are the logarithms of these mixtures
(so softmax gives them back), ``features`` is the new network's embedding (for enrolment). The gate is
fitted by maximum likelihood of the mixture on fresh renders (seeds neither network trained on) of
the artwork and of the other training designs; then the held-out report is printed as ``train`` does.

    python -m hardware.sim.training.mixture --old OLD.onnx --new NEW.onnx --new-widths 32,64,96,128,192,256 \
        --data ".train/train_v6_s301_*.npz" ".train/train_v6_s401_*.npz" --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

from hardware.sim.training import data as train_data
from hardware.sim.training import train as training


def build_mixture(old_path: Path, new_path: Path, new_widths: tuple[int, ...]):
    """The two networks (weights from their exported files) under one gate, as a torch module."""
    import torch
    from torch import nn

    old = training.build_model(training.WIDTHS)
    training.init_from_onnx(old, old_path)
    new = training.build_model(new_widths)
    training.init_from_onnx(new, new_path)

    class Mixture(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.old, self.new = old, new
            self.gate = nn.Linear(training.WIDTHS[-1] + new_widths[-1], 1)
            nn.init.zeros_(self.gate.weight)
            nn.init.zeros_(self.gate.bias)

        def experts(self, x: torch.Tensor):
            a_tile, a_rot, a_f = self.old(x)
            b_tile, b_rot, b_f = self.new(x)
            return a_tile, a_rot, a_f, b_tile, b_rot, b_f

        def mix(self, a_tile, a_rot, a_f, b_tile, b_rot, b_f):
            g = self.gate(torch.cat([a_f, b_f], dim=1))
            log_g, log_1g = nn.functional.logsigmoid(g), nn.functional.logsigmoid(-g)
            lsm = nn.functional.log_softmax
            tile = torch.stack([log_g + lsm(a_tile, dim=1), log_1g + lsm(b_tile, dim=1)]).logsumexp(0)
            rot = torch.stack([log_g + lsm(a_rot, dim=1), log_1g + lsm(b_rot, dim=1)]).logsumexp(0)
            return tile, rot, b_f

        def forward(self, x: torch.Tensor):
            return self.mix(*self.experts(x))

    return Mixture().eval()


def fit_gate(model, x: np.ndarray, y: np.ndarray, *, threads: int, epochs: int = 60) -> None:
    """Fit the gate alone (the experts fixed) by the mixture's log-likelihood of the true tiles."""
    import torch

    torch.set_num_threads(threads)
    with torch.no_grad():
        outs = [model.experts(torch.from_numpy(x[i:i + 1024]).permute(0, 3, 1, 2).float() / 255)
                for i in range(0, len(x), 1024)]
    a_tile, a_rot, a_f, b_tile, b_rot, b_f = (torch.cat([o[k] for o in outs]) for k in range(6))
    yt = torch.from_numpy(y)
    opt = torch.optim.Adam(model.gate.parameters(), lr=0.05)
    for epoch in range(epochs):
        tile, _, _ = model.mix(a_tile, a_rot, a_f, b_tile, b_rot, b_f)
        loss = torch.nn.functional.nll_loss(tile, yt) + 1e-4 * model.gate.weight.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 20 == 19 or epoch == epochs - 1:
            with torch.no_grad():
                g = torch.sigmoid(model.gate(torch.cat([a_f, b_f], dim=1)))
            print(f"gate epoch {epoch + 1}: nll {float(loss):.4f}, mixture acc "
                  f"{float((tile.argmax(1) == yt).float().mean()):.4f}, old acc "
                  f"{float((a_tile.argmax(1) == yt).float().mean()):.4f}, new acc "
                  f"{float((b_tile.argmax(1) == yt).float().mean()):.4f}, mean gate {float(g.mean()):.3f}",
                  flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hardware.sim.training.mixture", description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--new", type=Path, required=True)
    ap.add_argument("--new-widths", default="32,64,96,128,192,256")
    ap.add_argument("--data", nargs="+", required=True, help="globs of cached .npz renders to fit the gate on")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--heldout", type=int, default=3000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    import torch

    from vision.classifier import OnnxTileClassifier

    widths = tuple(int(w) for w in args.new_widths.split(","))
    model = build_mixture(args.old, args.new, widths)
    parts = [training.load_chunks(g) for g in args.data]
    x, y = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    t0 = time.monotonic()
    fit_gate(model, x, y, threads=args.threads)
    onnx_path = args.out / "tiles.onnx"
    with torch.no_grad():
        training.export_onnx(model, onnx_path, train_data.symmetric_180())  # same inputs, outputs, metadata
    acc, report = train_data.evaluate_heldout(args.heldout, classifier=OnnxTileClassifier(onnx_path))
    digest = hashlib.sha256(onnx_path.read_bytes()).hexdigest()[:16]
    summary = (f"mixture {onnx_path} ({onnx_path.stat().st_size / 1024:.0f} KB, sha256 {digest}) of {args.old} and "
               f"{args.new}, gate fitted on {len(x)} crops in {time.monotonic() - t0:.0f} s; held-out top-1 {acc:.4f}")
    (args.out / "heldout_report.txt").write_text(report + "\n" + summary + "\n")
    print(report)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
