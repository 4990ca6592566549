"""Held-out face designs: the shipped model zero-shot, then after enrolling 4 pictures per kind.

Each design is one the model was not trained on (``hardware/sim/tile_designs.py``'s
``HELDOUT_DESIGNS`` where present, else the stand-in in ``enrol_data``). Enrolment pictures are
rendered under the training conditions; the test pictures are other renders of the same design
under the held-out conditions (other light, tilt, noise), and include empty places (``none``):
the proxy for "other photos of the same set".
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.enrol_data import MAT_KINDS, designs
from vision.classifier import OnnxTileClassifier
from vision.enrol import EnrolledClassifier, build

TEST_KINDS = (*MAT_KINDS, "none")


@pytest.fixture(scope="module")
def clf():
    return OnnxTileClassifier()


@pytest.mark.parametrize("name, renderer", designs(), ids=[n for n, _ in designs()])
def test_enrolment_lifts_a_heldout_design(clf, name, renderer):
    enrol_samples = renderer(MAT_KINDS, 4, 700, False)
    test = renderer(TEST_KINDS, 4, 701, True)
    labels = [k for k, _ in test]
    crops = [c for _, c in test]
    zero = np.mean([g.tile == k for g, k in zip(clf.classify_voted(crops), labels, strict=True)])
    enrolled = EnrolledClassifier(clf, build(clf, enrol_samples))
    after = np.mean([g.tile == k for g, k in zip(enrolled.classify_voted(crops), labels, strict=True)])
    frames = np.mean([g.tile == k for g, k in zip(enrolled.classify(crops), labels, strict=True)])
    print(f"design {name}: zero-shot {zero:.3f}, enrolled (4 per kind) {after:.3f}, one-pass {frames:.3f} "
          f"on {len(test)} held-out renders")
    assert after >= 0.9, (zero, after)
    assert after >= zero + 0.06, (zero, after)
