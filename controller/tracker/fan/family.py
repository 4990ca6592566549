"""The fan family as the engine's :class:`~controller.tracker.family.Family`: Hong Kong (``hk``)
and general Chinese (``chinese``, ``competition``) games, four players.

What it follows beyond the shared flow: the break per the profile (hk: three dice, then two
by the wall's owner; chinese: two rolls summed), the deal (jump deal: the dealer holds 14),
the draws (``WallStackTaken`` at the slots :mod:`controller.rules.walls` names), flowers set
aside (``FlowerSetAside``) and their replacement tiles from the tail, discards, chow / pung /
kong (``Meld``) and the kong's replacement tile; wins declared (hk: the first claimant
counter-clockwise from the discarder wins; chinese: three claims on one discard are a draw or
the first claimant wins, per profile), the revealed hand scored by
:func:`controller.rules.hk.score` / :func:`controller.rules.chinese.score`; chinese: the false
win (诈和) paid by the profile's penalty, four winds in the first go-round (a draw, or the
dealer's fine and play goes on), four kans; exhaustive draws (no tenpai payments; chinese: the
dealer stays, or passes and pays); the deal's rotation and the round wind (a round ends when
the deal comes back to the first dealer); the game ends after the North round and is settled.
Integrity: the wrong-size hand (相公: chinese keeps it from the table until the hand ends).

Modules: :mod:`~controller.tracker.fan.state`, :mod:`~controller.tracker.fan.play` (walls,
draws, flowers, discards, melds), :mod:`~controller.tracker.fan.scoring` (results),
:mod:`~controller.tracker.fan.result` (declarations, revealed hands, flow).
"""

from __future__ import annotations

from typing import Any

from controller import events as ev
from controller.rules.ruleset import RuleSet
from controller.tracker.fan import play as PLAY
from controller.tracker.fan import result as RES
from controller.tracker.fan.scoring import compute_result, unscorable_message
from controller.tracker.fan.state import FanSeat, FanState
from controller.tracker.hand import WINDS

FAMILIES = ("hk", "chinese")


class FanFamily:
    """Hong Kong and Chinese rules (:class:`~controller.tracker.family.Family`)."""

    name = "fan"
    handlers = {ev.FlowerSetAside: PLAY.on_flower, ev.Discard: PLAY.on_discard, ev.Meld: PLAY.on_meld,
                ev.HandRevealed: RES.on_revealed}
    corrections: dict = {}

    @staticmethod
    def follows(rules: RuleSet) -> bool:
        return rules.family in FAMILIES and rules.players == 4

    @staticmethod
    def new_state() -> FanState:
        return FanState()

    @staticmethod
    def fresh_state(e: ev.StartGame, rules: RuleSet) -> FanState | str:
        fresh = FanState(table=e.table, ruleset=e.ruleset, players=tuple(e.players), round=e.start_round,
                         honba=e.start_honba)
        scores = e.start_scores or (rules.start_points,) * 4
        fresh.seats = [FanSeat(score=int(x)) for x in scores]
        fresh.first_dealer_method = e.first_dealer
        return fresh

    declare_tsumo = staticmethod(RES.declare_tsumo)
    declare_ron = staticmethod(RES.declare_ron)

    @staticmethod
    def walls_planned(s: FanState, layout: Any, cmds: list, now: float) -> None:
        return None   # no indicator to watch: these rules have no dora

    compute_result = staticmethod(compute_result)
    confirm = staticmethod(RES.confirm)
    unscorable_message = staticmethod(unscorable_message)
    replace_discard = staticmethod(PLAY.replace_discard)

    @staticmethod
    def declare_draw(s: FanState, seat: int, cmds: list, now: float) -> None:
        return None   # no abortive draw is declared at the table in these rules

    draw_next = staticmethod(PLAY.draw_next)
    draw_replacement = staticmethod(PLAY.draw_replacement)
    owes_replacement = staticmethod(PLAY.owes_replacement)
    name_extra_tile = staticmethod(PLAY.name_extra_tile)
    undo_discard = staticmethod(PLAY.undo_discard)

    @staticmethod
    def correct_hand(s: FanState, seat: int) -> None:
        s.seats[seat].wrong_size = None   # staff checked the hand

    @staticmethod
    def public_extra(s: FanState) -> tuple[dict, list[dict]]:
        extra = {"family": s.rules.family if s.phase != "idle" else None, "round_wind": WINDS[s.round_wind % 4],
                 "dora_indicators": [], "dora": []}
        return extra, [{"riichi": False, "flowers": list(seat.flowers), "tenpai": None} for seat in s.seats]


FAN = FanFamily()
