"""The start of a game and of each hand, alike for every family: the game seated (the first
dealer rolled for at the table), the walls lifted (their counts checked against the profile),
the dealer's dice and the break (the walls planned), the set built again.

The functions take a :class:`controller.tracker.hand.HandState` and append their commands to ``cmds``.
"""

from __future__ import annotations

from typing import Any

from controller import events as ev
from controller import integrity as IG
from controller.rules import dice as DC
from controller.rules import seating as SEAT
from controller.rules import walls as WL
from controller.tracker.hand import HandState, alert, begin_hand


class _NeedRoll(Exception):
    def __init__(self, chair: int, n_dice: int) -> None:
        super().__init__(chair, n_dice)
        self.chair, self.n_dice = chair, n_dice


def start(fresh: HandState, cmds: list, now: float) -> HandState:
    """The game starts with ``fresh`` (a new state of the family's kind): its first hand begins,
    or the chairs roll for the first dealer first. Returns ``fresh``, under way."""
    if fresh.first_dealer_method in ("seated", "east"):
        begin_hand(fresh, cmds, now)
        return fresh
    fresh.phase = "seating"
    seating_step(fresh, cmds, now)
    return fresh


def seating_next(s: HandState) -> tuple[int, int] | int:
    """The chair that rolls next and its dice, or (an int) the first dealer's chair."""
    given = [dice for _chair, dice in s.seating_rolls]

    def roll(chair: int, n_dice: int):
        if given:
            return given.pop(0)
        raise _NeedRoll(chair, n_dice)

    try:
        return SEAT.first_dealer(s.first_dealer_method, len(s.seats) or 4, roll=roll).wind
    except _NeedRoll as need:
        return need.chair, need.n_dice


def seating_step(s: HandState, cmds: list, now: float) -> None:
    """Ask the next chair to roll for the first dealer, or seat the game once it is decided and
    begin its first hand."""
    nxt = seating_next(s)
    if isinstance(nxt, tuple):
        cmds.append(ev.LightButton(seat=nxt[0], action="dice", now=now))
        return
    f = nxt
    s.first_dealer_chair = f
    n = len(s.seats) or 4
    s.players = tuple(s.players[(f + i) % n] for i in range(n))
    s.seats = [s.seats[(f + i) % n] for i in range(n)]
    cmds.append(ev.Show(what="seating", data={"first_dealer_chair": f, "players": list(s.players),
                                              "rolls": [[c, list(d)] for c, d in s.seating_rolls]}, now=now))
    begin_hand(s, cmds, now)


def on_stack_ready(fam: Any, s: HandState, e: ev.StackReady, now: float, cmds: list) -> None:
    """The set just played is built into walls again: it must add up to the whole set."""
    if s.phase == "ended":
        return
    problem = IG.check_set_total(e.counts, s.rules.procedures)
    if problem:
        alert(s, cmds, "set_mismatch", None, None, problem, now=now, key=("set", now))


def on_mcu_fault(fam: Any, s: HandState, e: ev.McuFault, now: float, cmds: list) -> None:
    """The shuffler counted a wrong number of tiles in a lane (PROTOCOL.md ``lane_count``): the set
    being built again does not add up (a tile kept back, or one too many). The machine cycle
    halts on the fault; the tracker names it."""
    if e.code != "lane_count" or s.phase in ("idle", "ended"):
        return
    alert(s, cmds, "set_mismatch", None, None,
          f"the set built again does not add up: the shuffler counts {e.detail or 'a wrong number of tiles'}",
          now=now, key=("set", now))


def on_lift(fam: Any, s: HandState, e: ev.LiftDone, now: float, cmds: list) -> None:
    """The walls are up: their counts checked against the profile; the dealer's dice lamp lit."""
    if s.phase != "walls":
        return
    for rule, seat, message in IG.check_lift(e.counts, s.rules.procedures):
        alert(s, cmds, rule, seat, None, message, now=now)
    s.lift_total = sum(e.counts)
    s.phase = "dice"
    cmds.append(ev.LightButton(seat=s.dealer, action="dice", now=now))


def roll_owed(s: HandState) -> tuple[int, int] | None:
    """The roll the table waits for now: (chair, number of dice), for the first dealer or for the
    break; None when no roll is owed."""
    if s.phase == "seating":
        nxt = seating_next(s)
        return nxt if isinstance(nxt, tuple) else None
    if s.phase == "dice":
        return DC.next_roller(s.rules.procedures.break_method, s.dealer, s.rolls)
    return None


def on_way_on(s: HandState, cmds: list, now: float) -> None:
    """The machine taken up again after a stop (staff's ``retry`` / ``continue``): a roll asked for
    before it stays to be rolled, so the lamp of the seat that rolls next is lit again. A dice
    press while the machine was stopped was refused by it (PROTOCOL.md: a latched fault rejects
    every job), and a dealer whose lamp went out would not know to press again."""
    nxt = roll_owed(s)
    if nxt is not None:
        cmds.append(ev.LightButton(seat=nxt[0], action="dice", now=now))


def on_dice_button(s: HandState, seat: int, now: float, cmds: list) -> None:
    """A seat's dice button: that seat rolls if it is the one to roll now (for the first dealer,
    or for the break)."""
    nxt = roll_owed(s)
    if nxt is not None and nxt[0] == seat:
        cmds.append(ev.RollDice(seat=seat, count=nxt[1], now=now))


def on_dice(s: HandState, e: ev.DiceResult, now: float, cmds: list) -> Any:
    """The dice shown: a seating roll, or a roll of the break. Returns the walls' layout
    (``controller.rules.walls``) once the last roll of the break is in (play begins), else None."""
    if s.phase == "seating":
        nxt = seating_next(s)
        if isinstance(nxt, tuple) and nxt[0] == e.seat and len(e.dice) == nxt[1]:
            s.seating_rolls.append((e.seat, tuple(e.dice)))
            seating_step(s, cmds, now)
        return None
    if s.phase != "dice":
        return None
    proc = s.rules.procedures
    nxt = DC.next_roller(proc.break_method, s.dealer, s.rolls)
    if nxt is None or nxt[0] != e.seat or len(e.dice) != nxt[1]:
        return None
    s.rolls.append(tuple(e.dice))
    nxt = DC.next_roller(proc.break_method, s.dealer, s.rolls)
    if nxt is not None:
        cmds.append(ev.LightButton(seat=nxt[0], action="dice", now=now))
        return None
    lay = WL.plan(proc, s.dealer, s.rolls)
    s.wall = WL.WallState(lay)
    s.deal_left = [slot for _seat, slot in lay.deal_takes]
    s.phase = "play"
    return lay
