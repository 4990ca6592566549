"""The ``Family`` protocol: what a family of rules supplies to the one engine
(:mod:`controller.tracker.engine`), and only what differs between families. The flow (event
dispatch, the seating, the lift and the dice, rivers, the staff's corrections, void hand, the
confirmation of a result) is the engine's; a family gives its handlers for the events of play,
its declarations and results, and its part of the public state.

Implementations: :data:`controller.tracker.riichi.family.RIICHI` (four- and three-player
riichi) and :data:`controller.tracker.fan.family.FAN` (Hong Kong, Chinese, competition). The
engine chooses one from the rule set's ``family`` (:func:`controller.tracker.engine.family_for`).

An implementation must provide every member below; ``corrections`` may be empty.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from controller import events as ev
from controller.rules.ruleset import RuleSet
from controller.tracker.hand import HandState

Handler = Callable[[Any, Any, float, list], None]           # (state, event, now, cmds)
Correct = Callable[[Any, dict, float, list], None]          # (state, data, now, cmds); raises on bad data


class Family(Protocol):
    name: str
    #: the events of play this family follows itself (draws, discards, melds, flowers, ...)
    handlers: Mapping[type[ev.Event], Handler]
    #: staff corrections only this family has (``what`` -> handler), beside the engine's
    corrections: Mapping[str, Correct]

    def follows(self, rules: RuleSet) -> bool:
        """Does this family follow games of ``rules``?"""

    def new_state(self) -> HandState:
        """The family's state before any game."""

    def fresh_state(self, e: ev.StartGame, rules: RuleSet) -> HandState | str:
        """The state of a game started by ``e``, or (a str) why it cannot start."""

    def walls_planned(self, s: HandState, layout: Any, cmds: list, now: float) -> None:
        """The break is rolled and the walls planned: play begins."""

    def declare_tsumo(self, s: HandState, seat: int, cmds: list, now: float) -> None: ...
    def declare_ron(self, s: HandState, seat: int, cmds: list, now: float) -> None: ...

    def declare_draw(self, s: HandState, seat: int, cmds: list, now: float) -> None:
        """The seat's ``draw`` button (riichi: nine terminals); may do nothing."""

    def compute_result(self, s: HandState, cmds: list, now: float) -> None:
        """The hand's result as it stands, shown; else ``result_problem`` says why not."""

    def confirm(self, s: HandState, cmds: list, now: float) -> None:
        """Apply the shown result; the next hand, or the game's end."""

    def unscorable_message(self, s: HandState) -> str | None:
        """The alert to raise when OK is pressed and the hand has no result (None: no alert)."""

    def replace_discard(self, s: HandState, cmds: list, now: float, seat: int, index: int, tile: str) -> None:
        """River tile ``index`` of ``seat`` is ``tile`` after all (re-read, or a staff correction)."""

    def draw_next(self, s: HandState, cmds: list, now: float) -> None:
        """The next live tile is seen taken: the seat on turn draws it."""

    def draw_replacement(self, s: HandState, cmds: list, now: float) -> bool:
        """The replacement tile is seen taken: the seat owed it draws it (False: none is owed yet)."""

    def owes_replacement(self, s: HandState, seat: int | None) -> bool:
        """Is ``seat`` (None: any seat) owed a replacement tile?"""

    def name_extra_tile(self, s: HandState, seat: int, what: str, cmds: list, now: float) -> None:
        """``seat`` took a tile its turn does not allow (``what`` says how): name it."""

    def undo_discard(self, s: HandState, seat: int) -> None:
        """The seat's last discard is taken back: undo what the family recorded of it."""

    def correct_hand(self, s: HandState, seat: int) -> None:
        """Staff set ``seat``'s revealed hand: what the family resets with it."""

    def public_extra(self, s: HandState) -> tuple[dict, list[dict]]:
        """The family's fields of ``GET /api/state``, and per seat its extra fields."""
