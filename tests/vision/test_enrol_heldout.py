"""Held-out face designs: the shipped model zero-shot, then after enrolling 4 pictures per kind.

Each design is one the model was not trained on (``hardware/sim/tile_designs.py``'s
``HELDOUT_DESIGNS``, else the stand-in in ``enrol_data``), rendered under the held-out conditions
(light levels and poses the model was not trained on). One set of the design gives 4 enrolment
pictures per kind and 4 other renders per kind for the test (each its own angle, pose, light),
empty places (``none``) included: the proxy for "other photos of the same set".
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.enrol_data import MAT_KINDS, designs, tile_designs
from vision.classifier import OnnxTileClassifier
from vision.enrol import EnrolledClassifier, build

TEST_KINDS = (*MAT_KINDS, "none")
HELDOUT_NAMES = frozenset(tile_designs.HELDOUT_DESIGNS)


@pytest.fixture(scope="module")
def clf():
    return OnnxTileClassifier()


@pytest.mark.parametrize("name, renderer", designs(), ids=[n for n, _ in designs()])
def test_enrolment_lifts_a_heldout_design(clf, name, renderer):
    enrol_samples, test = renderer(TEST_KINDS, 4, 700)
    labels = [k for k, _ in test]
    crops = [c for _, c in test]
    zero = np.mean([g.tile == k for g, k in zip(clf.classify_voted(crops), labels, strict=True)])
    enrolled = EnrolledClassifier(clf, build(clf, enrol_samples))
    after = np.mean([g.tile == k for g, k in zip(enrolled.classify_voted(crops), labels, strict=True)])
    frames = np.mean([g.tile == k for g, k in zip(enrolled.classify(crops), labels, strict=True)])
    print(f"design {name}: zero-shot {zero:.3f}, enrolled (4 per kind) {after:.3f}, one-pass {frames:.3f} "
          f"on {len(test)} held-out renders")
    # measured with the shipped model (candidate 13, 2026-12-03): the tile_designs held-out designs
    # 0.30-0.56 zero-shot -> 0.65-0.73 enrolled; the stand-ins 0.56-0.61 -> 0.78-0.84 (the artwork model
    # before it: 0.17-0.21 -> 0.45-0.56, stand-ins 0.58-0.68 -> 0.77-0.87). The bounds hold for a
    # better model too: enrolment removes at least a fifth of the zero-shot errors.
    assert after >= zero + 0.2 * (1 - zero), (zero, after)
    assert after >= (0.35 if name in HELDOUT_NAMES else 0.65), (zero, after)
