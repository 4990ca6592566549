"""Join trained tile models into one ONNX file: ``python -m hardware.sim.training.ensemble`` (a development step).

    python -m hardware.sim.training.ensemble --members A.onnx B.onnx --weights 0.4 0.6 --out DIR

Each member is a model exported by ``hardware.sim.training.train`` (of any ``--widths`` and ``--depth``). The
joined model runs every member on the crop; its tile and rotation logits are the members' logits
weighed by ``--weights`` (folded into each member's heads), then calibrated again (one temperature
fitted on held-out renders, as ``train`` does). Its ``features`` output (the embedding that
enrolment compares) is the heaviest member's. The metadata names the members (``members``: file,
sha256, weight) and the ``temperature``: tile logits = sum(weight x member's logits) / temperature. One file, the same inputs, outputs and metadata as
any exported model: the product cannot tell it from a single network.

Why: a model fine-tuned on many face designs reads held-out designs better but loses part of the
scene renderer's artwork; averaged with the model that knows that artwork, the file keeps most of
both (the numbers are in ``vision/models/MODEL_CARD.md``). It costs a second network's time per crop.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from hardware.sim.training import data as train_data
from hardware.sim.training.train import (
    CALIBRATION_SEED,
    build_model,
    export_onnx,
    fit_temperature,
    init_from_onnx,
    onnx_architecture,
    write_report,
)


def joined(members: list[Path], weights: list[float]):
    """The members as one torch module, their heads weighed; ``forward`` as ``build_model``'s."""
    import torch
    from torch import nn

    nets = []
    for path, w in zip(members, weights, strict=True):
        net = build_model(*onnx_architecture(path))
        init_from_onnx(net, path)
        with torch.no_grad():
            for head in (net.tile_head, net.rotation_head):
                head.weight.mul_(w)
                head.bias.mul_(w)
        nets.append(net.eval())
    lead = max(range(len(weights)), key=lambda i: weights[i])

    class Joined(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.members = nn.ModuleList(nets)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            outs = [m(x) for m in self.members]
            return (torch.stack([o[0] for o in outs]).sum(0), torch.stack([o[1] for o in outs]).sum(0),
                    outs[lead][2])

    return Joined().eval()


def calibrate(model, n: int) -> float:
    """One temperature for the joined tile logits, fitted on ``n`` held-out renders and folded into
    every member's tile head; returns it."""
    import torch

    xs, ys, _ = train_data.render_set(n, CALIBRATION_SEED, heldout=True, group=32)
    with torch.no_grad():
        logits = torch.cat([model(torch.from_numpy(xs[i:i + 512]).permute(0, 3, 1, 2).float() / 255)[0]
                            for i in range(0, n, 512)]).numpy()
    t = fit_temperature(logits, ys)
    with torch.no_grad():
        for net in model.members:
            net.tile_head.weight.div_(t)
            net.tile_head.bias.div_(t)
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hardware.sim.training.ensemble", description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=Path, nargs="+", required=True, help="exported models (ONNX) to join")
    ap.add_argument("--weights", type=float, nargs="+", required=True, help="one weight per member")
    ap.add_argument("--out", type=Path, required=True, help="folder for tiles.onnx and heldout_report.txt")
    ap.add_argument("--calibration", type=int, default=3000, help="held-out renders to fit the temperature on")
    ap.add_argument("--heldout", type=int, default=4000)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    if len(args.weights) != len(args.members) or any(w <= 0 for w in args.weights):
        ap.error("--weights: one positive weight per member")
    missing = [str(p) for p in args.members if not p.is_file()]
    if missing:
        ap.error(f"--members: no such file: {', '.join(missing)}")
    import torch

    torch.set_num_threads(args.threads)
    total = sum(args.weights)
    model = joined(args.members, [w / total for w in args.weights])
    temperature = calibrate(model, args.calibration)
    path = args.out / "tiles.onnx"
    members = [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest(), "weight": w / total}
               for p, w in zip(args.members, args.weights, strict=True)]
    export_onnx(model, path, train_data.symmetric_180(),
                extra={"members": json.dumps(members), "temperature": f"{temperature:.6f}"})
    weighed = " + ".join(f"{w / total:.2f} x {p.name}" for p, w in zip(args.members, args.weights, strict=True))
    write_report(path, args.heldout, f"{weighed}, temperature {temperature:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
