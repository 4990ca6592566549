"""The game tracker's former name: everything lives in :mod:`controller.tracker` now; this
module only keeps ``from controller import game`` working for code written against it."""

from __future__ import annotations

from controller.tracker import *  # noqa: F403
from controller.tracker import __all__  # noqa: F401
