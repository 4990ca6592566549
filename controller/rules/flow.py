"""Game flow: round names, dealer rotation, honba, the riichi stick pool, start points, game end
(east-only / hanchan / full game, west extension, tobi, agari-yame) and a voided hand.

:class:`GameScore` is a frozen value; each method returns the next state. The game tracker
applies a hand's deltas (from :mod:`controller.rules.payments` / :mod:`controller.rules.draws`)
with :meth:`GameScore.finish_hand`.

>>> from controller.rules.ruleset import load
>>> rs = load("tenhou")
>>> g = GameScore.start(rs).riichi(1, rs)
>>> g.scores, g.sticks
((25000, 24000, 25000, 25000), 1)
>>> g = g.finish_hand("win", [0, 4900, -3900, 0], rs, winners=(1,))
>>> g.round_name, g.honba, g.sticks, g.scores
('E2', 0, 0, (25000, 28900, 21100, 25000))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from controller.rules.draws import dealer_keeps_after_draw
from controller.rules.ruleset import RuleSet

_WIND_LETTERS = "ESWN"
_LAST_ROUND = {"east": 1, "hanchan": 2, "full": 4}  # winds played


def round_name(round_index: int, players: int = 4) -> str:
    """``E1``..``E4``, ``S1``.. from the 0-based round index.

    >>> round_name(0), round_name(5), round_name(8), round_name(3, players=3)
    ('E1', 'S2', 'W1', 'S1')
    """
    wind = _WIND_LETTERS[(round_index // players) % 4]
    return f"{wind}{round_index % players + 1}"


@dataclass(frozen=True)
class GameScore:
    """Scores per seat (seat 0 = the first dealer), round index (0 = E1), honba, sticks on the table."""

    scores: tuple[int, ...]
    round: int = 0
    honba: int = 0
    sticks: int = 0
    is_over: bool = False
    end_reason: str = ""

    @classmethod
    def start(cls, rules: RuleSet) -> GameScore:
        return cls(tuple([rules.start_points] * rules.players))

    @property
    def players(self) -> int:
        return len(self.scores)

    @property
    def dealer(self) -> int:
        return self.round % self.players

    @property
    def round_name(self) -> str:
        return round_name(self.round, self.players)

    def seat_wind(self, seat: int) -> str:
        """Seat wind tile (``1z`` east .. ``4z`` north) of ``seat`` this hand."""
        return f"{(seat - self.dealer) % self.players + 1}z"

    @property
    def round_wind(self) -> str:
        return f"{(self.round // self.players) % 4 + 1}z"

    def riichi(self, seat: int, rules: RuleSet) -> GameScore:
        """A riichi stick goes on the table. Raises ValueError where negatives end the game and
        the seat cannot pay."""
        if rules.has_tobi and self.scores[seat] < rules.riichi_cost:
            raise ValueError(f"seat {seat} has {self.scores[seat]} points, a riichi stick costs {rules.riichi_cost}")
        scores = list(self.scores)
        scores[seat] -= rules.riichi_cost
        return replace(self, scores=tuple(scores), sticks=self.sticks + 1)

    def finish_hand(self, outcome: str, deltas: Sequence[int], rules: RuleSet, *, winners: Sequence[int] = (),
                    dealer_tenpai: bool = False) -> GameScore:
        """Apply a hand's result: ``outcome`` win / exhaustive_draw / abortive_draw, ``deltas`` per seat
        (riichi sticks collected by a winner included, deposits already made by :meth:`riichi`)."""
        if self.is_over:
            raise ValueError("the game is over")
        if len(deltas) != self.players:
            raise ValueError(f"{len(deltas)} deltas for {self.players} seats")
        scores = tuple(s + d for s, d in zip(self.scores, deltas, strict=True))
        dealer = self.dealer
        if outcome == "win":
            if not winners:
                raise ValueError("a win needs its winners")
            keeps = dealer in winners
            honba = self.honba + 1 if keeps else 0
            sticks = 0
        elif outcome == "exhaustive_draw":
            keeps = dealer_keeps_after_draw(dealer_tenpai=dealer_tenpai, round_index=self.round, rules=rules)
            honba, sticks = self.honba + 1, self.sticks
        elif outcome == "abortive_draw":
            keeps = rules.abortive_dealer == "keep"
            honba, sticks = self.honba + 1, self.sticks
        else:
            raise ValueError(f"unknown outcome {outcome!r}")
        nxt = replace(self, scores=scores, round=self.round if keeps else self.round + 1, honba=honba, sticks=sticks)
        may_stop = (outcome == "win" and rules.has_agari_yame) or (
            outcome == "exhaustive_draw" and rules.has_tenpai_yame)
        return nxt._check_end(rules, finished_round=self.round, dealer_kept=keeps and may_stop)

    def _check_end(self, rules: RuleSet, *, finished_round: int, dealer_kept: bool) -> GameScore:
        """``dealer_kept``: the dealer stays by a win (agari-yame) or tenpai (tenpai-yame) and may stop."""
        n = self.players
        if rules.has_tobi and any(s < 0 for s in self.scores):
            return replace(self, is_over=True, end_reason="tobi")
        last = _LAST_ROUND[rules.game_length] * n - 1
        target = rules.extension_target
        top = max(self.scores)
        leader_ok = top >= target
        if finished_round == last and dealer_kept:
            dealer = finished_round % n
            if self.scores[dealer] == top and self.scores[dealer] >= target and \
                    self.scores.count(top) == 1:
                return replace(self, is_over=True, end_reason="agari_yame")
        if self.round > last:
            if finished_round > last and leader_ok:
                return replace(self, is_over=True, end_reason="extension_target")
            if not rules.has_west_extension or leader_ok or self.round > min(last + n, 4 * n - 1):
                return replace(self, is_over=True, end_reason="last_round")
        return self

    def void_hand(self, start: GameScore) -> GameScore:
        """A voided hand (tile-set error): back to the hand's starting scores and deposits, same
        dealer and honba."""
        return start
