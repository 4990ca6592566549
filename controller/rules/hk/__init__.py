"""Hong Kong rules (seed 003): fan table, points = 2^fan, flowers, payer rule, rotation.

``HKRules`` parses the ``[hk]`` table of a profile; :func:`score` looks up the single best
pattern of a win; :func:`payments` and :func:`next_dealer` settle and rotate.
"""

from controller.rules.hk.arrange import HandShapeError, Meld, arrangements
from controller.rules.hk.patterns import PATTERNS, UNVALUED, Pattern
from controller.rules.hk.rules import HKRules, HKRulesError
from controller.rules.hk.scoring import (
    HKError,
    HKResult,
    PatternHit,
    advance_round,
    is_all_flowers,
    next_dealer,
    own_flowers,
    payments,
    score,
)

__all__ = [
    "PATTERNS", "UNVALUED", "HKError", "HKResult", "HKRules", "HKRulesError", "HandShapeError", "Meld", "Pattern",
    "PatternHit", "advance_round", "arrangements", "is_all_flowers", "next_dealer", "own_flowers", "payments", "score",
]
