"""The riichi family (four players, and three: ``sanma``) as the engine's
:class:`~controller.tracker.family.Family`.

What it follows beyond the shared flow: the deal and each draw (``WallStackTaken``), the
replacement tiles after a kan or a north and the indicators (:mod:`controller.rules.walls`);
the camera must find the dora indicator at the slot the tracker names (``WatchSlot``);
discards (sideways = riichi; after a called riichi tile the next sideways tile is only a
marker), calls and kans (``Meld``), riichi sticks, kan indicators; wins declared (tsumo, ron,
robbing a kan), the revealed hands and ura indicators; exhaustive draws (tenpai from the
revealed hands); abortive draws (nine terminals, four riichi, four winds, four kans, triple
ron). Three players: three seats (winds E/S/W, rounds E1-E3, S1-S3), three walls and the
sanma break, no chi (a chi shown is named), a north set aside (``Meld`` "nuki") with its
replacement tile from the dead wall (kita dora in the result, may be robbed), no four-riichi
or four-winds abort; the result shown is the replay's (its empty fourth seat included).

Every result is the rules engine's replay over the hand as the table saw it
(:mod:`~controller.tracker.riichi.scoring`); the hand is rebuilt consistently for it
(:mod:`~controller.tracker.riichi.record`). Modules: :mod:`~controller.tracker.riichi.state`,
:mod:`~controller.tracker.riichi.play` (wall, discards, indicators),
:mod:`~controller.tracker.riichi.melds`, :mod:`~controller.tracker.riichi.result`.
"""

from __future__ import annotations

from typing import Any

from controller import events as ev
from controller.rules import tiles as T
from controller.rules.dora import dora_of
from controller.rules.ruleset import RuleSet
from controller.tracker.riichi import actions as ACTIONS
from controller.tracker.riichi import melds as MELDS
from controller.tracker.riichi import play as PLAY
from controller.tracker.riichi import result as RES
from controller.tracker.riichi.scoring import compute_result, unscorable_message
from controller.tracker.riichi.state import GameState, SeatState


class RiichiFamily:
    """Riichi, four and three players (:class:`~controller.tracker.family.Family`)."""

    name = "riichi"
    handlers = {
        ev.Discard: PLAY.on_discard,
        ev.Meld: MELDS.on_meld,
        ev.RiichiStick: PLAY.on_stick,
        ev.IndicatorRevealed: PLAY.on_indicator,
        ev.HandRevealed: RES.on_revealed,
        # staff actions: checked, applied whole or not at all, kept in a history, undoable
        # (controller.tracker.riichi.actions); the engine's common ones serve the fan family
        ev.ConfirmResult: lambda s, e, now, cmds: ACTIONS.guarded(RIICHI, s, e, now, cmds),
        ev.VoidHand: lambda s, e, now, cmds: ACTIONS.guarded(RIICHI, s, e, now, cmds),
        ev.Correction: lambda s, e, now, cmds: ACTIONS.guarded(RIICHI, s, e, now, cmds),
    }
    corrections: dict = {}    # every riichi correction is an action of controller.tracker.riichi.actions

    declare_tsumo = staticmethod(RES.declare_tsumo)
    declare_ron = staticmethod(RES.declare_ron)
    declare_draw = staticmethod(RES.declare_nine_terminals)   # nine terminals (九種九牌)

    @staticmethod
    def follows(rules: RuleSet) -> bool:
        return rules.family == "riichi" and rules.players in (3, 4)

    @staticmethod
    def new_state() -> GameState:
        return GameState()

    @staticmethod
    def fresh_state(e: ev.StartGame, rules: RuleSet) -> GameState | str:
        n = rules.players
        players = tuple(e.players)
        scores = e.start_scores or (rules.start_points,) * n
        if n == 3:
            # three-player riichi: three seats (four names or a tenhou-style score list with an empty
            # fourth seat are cut to three)
            players = (players + ("",) * 3)[:3]
            if len(scores) == 4 and int(scores[3]) == 0:
                scores = tuple(scores[:3])
            if len(scores) != 3:
                return (f"ruleset {e.ruleset!r} is played by 3 players but {len(scores)} start scores are given: "
                        "game not started")
        reds = e.red_fives
        if reds is None:
            reds = tuple(r for r, k in zip(T.REDS, rules.red_fives, strict=True) for _ in range(k))
        fresh = GameState(table=e.table, ruleset=e.ruleset, players=players, red_fives=tuple(reds),
                          round=e.start_round, honba=e.start_honba, sticks=e.start_sticks)
        fresh.seats = [SeatState(score=int(x)) for x in scores]
        fresh.first_dealer_method = e.first_dealer
        return fresh

    compute_result = staticmethod(compute_result)
    confirm = staticmethod(RES.confirm)
    unscorable_message = staticmethod(unscorable_message)

    @staticmethod
    def walls_planned(s: GameState, layout: Any, cmds: list, now: float) -> None:
        ind = layout.indicator_slots[0]   # play begins: the camera must find the dora indicator here
        cmds.append(ev.WatchSlot(wall=ind.seat, stack=ind.stack, purpose="indicator", now=now))

    draw_next = staticmethod(PLAY.draw_next)
    draw_replacement = staticmethod(PLAY.draw_replacement)
    owes_replacement = staticmethod(PLAY.owes_replacement)

    @staticmethod
    def correct_hand(s: GameState, seat: int) -> None:
        return None

    name_extra_tile = staticmethod(PLAY.name_extra_tile)
    replace_discard = staticmethod(PLAY.replace_discard)
    undo_discard = staticmethod(PLAY.undo_discard)

    @staticmethod
    def public_extra(s: GameState) -> tuple[dict, list[dict]]:
        extra = {"dora_indicators": list(s.indicators),
                 "dora": [dora_of(t, is_sanma=s.n_seats == 3) for t in s.indicators]}
        seats = [{"riichi": seat.is_riichi, "tenpai": _tenpai_of(s, i),
                  "melds": [{"kind": m["kind"], "tiles": list(m["tiles"])} for m in seat.melds]
                  + [{"kind": "nuki", "tiles": [t]} for t in seat.norths]}
                 for i, seat in enumerate(s.seats)]
        return extra, seats


def _tenpai_of(s: GameState, seat: int) -> bool | None:
    """Tenpai at a draw, from the shown (or, once applied, the last) result; None otherwise."""
    res = s.result if s.result is not None else (s.last_result if s.phase in ("walls", "ended") else None)
    if res is not None and "tenpai" in res:
        return bool(res["tenpai"][seat])
    return None


RIICHI = RiichiFamily()
