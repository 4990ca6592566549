"""The training tool's wider start: a network wider than a shipped member first reads exactly as it does.

Training is a dev step (torch is not installed in CI, where these tests skip); the shipped files are read by
onnxruntime, as the product reads them.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from hardware.sim.training import train

torch = pytest.importorskip("torch")

MEMBER = train.REPO / "hardware" / "sim" / "training" / "candidates" / "cand13.onnx"


def crops(n: int = 6) -> np.ndarray:
    return np.random.default_rng(1).random((n, 3, 40, 40)).astype(np.float32)


def test_a_wider_deeper_network_started_from_a_member_reads_as_the_member():
    widths = (32, 64, 112, 160, 256, 384)
    model = train.build_model(widths, (1, 2, 1, 3, 1))
    train.init_from_onnx(model, MEMBER, seed=5)
    model.eval()
    sess = ort.InferenceSession(str(MEMBER), providers=["CPUExecutionProvider"])
    want_tiles, want_turns = sess.run(None, {sess.get_inputs()[0].name: crops()})[:2]
    with torch.no_grad():
        tiles, turns, features = model(torch.from_numpy(crops()))
    assert features.shape == (6, 384)
    assert np.abs(tiles.numpy() - want_tiles).max() < 1e-3
    assert np.abs(turns.numpy() - want_turns).max() < 1e-3
    # each added feature is a copy whose weight into the heads is a part of its source's, not all of it
    # (so the copies learn apart from the first step)
    head = model.tile_head.weight
    added, first = head[:, 256:].T, head[:, :256].T
    assert added.abs().sum(1).min() > 0 and torch.cdist(added, first).min() > 1e-6


def test_a_network_narrower_than_the_file_is_refused():
    with pytest.raises(ValueError, match="as wide as it or narrower"):
        train.init_from_onnx(train.build_model((32, 64, 96, 128, 192, 128)), MEMBER)
