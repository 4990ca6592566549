"""Staff actions' former place: they live in :mod:`controller.tracker.riichi.actions` now (the
riichi family's handlers; the checks of both families through
:func:`controller.tracker.engine.check_staff`); this module only keeps
``from controller import staff_actions`` working for code written against it."""

from __future__ import annotations

from controller.tracker.checks import Refused
from controller.tracker.engine import check_staff as check
from controller.tracker.riichi.actions import ACTIONS, apply, fingerprint, guarded, history
from controller.tracker.riichi.held import HOLDING, holds_result

__all__ = ["ACTIONS", "HOLDING", "Refused", "apply", "check", "fingerprint", "guarded", "history", "holds_result"]
