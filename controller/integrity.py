"""Integrity checks: rules over what the table saw, each naming the rule, the seat and the tile.

The game tracker (:mod:`controller.game`) calls these as events arrive and turns each
problem into an :class:`controller.events.Alert` (``RaiseAlert`` command: logged, the frame
kept as evidence, shown on the staff view at once, and on the table display when
:func:`is_public` says the ruleset allows it).

Rules (the first nine are the names of contracts/table-api.md):

=================== =====================================================================
``missing_tile``    the lifted walls hold fewer tiles than the set
``fifth_tile``      more copies of a kind face up than the set holds (a fifth copy)
``wrong_red``       a red five face up that the table's set does not have (one too many)
``other_back``      a tile with the other set's back colour stands in the walls
``taken_back``      a discard leaves the river (other than by a call), or changes
``extra_draw``      a seat takes a tile when its turn does not allow one
``out_of_turn``     a seat discards (or kans) when it is not its turn
``wrong_hand_size`` a revealed hand with too many or too few tiles (it may not win)
``moved_indicator`` an indicator that changes after it was read
``stack_count``     the lifted walls hold more tiles than the set, or a wall the wrong count
``set_mismatch``    the set built again after a hand does not add up (a tile kept back or added)
``kuikae``          a discard right after a call that the profile's kuikae rule bans
``last_discard_call`` a call on the last discard of the hand
``furiten_ron``     a ron by a seat in furiten
``inconsistent``    what the camera reports cannot be fitted to the hand (staff to correct)
``wrong_indicator`` a tile turned at a place no indicator belongs
=================== =====================================================================

A confirmed tile-set error (missing, fifth, wrong red, other back, stack count) offers the
staff "void hand" (RULINGS: tile-set errors).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.rules import tiles as T
from controller.rules import waits as WT
from controller.rules.calls import check_kuikae  # noqa: F401  (the alert rule kuikae; the rule itself is pure)
from controller.rules.melds import Meld as RMeld
from controller.rules.ruleset import RuleSet

SET_ERRORS = frozenset({"missing_tile", "fifth_tile", "wrong_red", "other_back", "stack_count", "set_mismatch"})
# kept from the table display until the hand ends in the Chinese rules (相公: 不必声张, S000:L58)
_HIDDEN_MID_HAND = {"chinese": frozenset({"wrong_hand_size"}), "competition": frozenset({"wrong_hand_size"})}


def is_public(rule: str, rules: RuleSet) -> bool:
    """May the alert show on the table display at once? (Staff always see it.)"""
    hidden = _HIDDEN_MID_HAND.get(rules.family, frozenset()) | _HIDDEN_MID_HAND.get(rules.name, frozenset())
    return rule not in hidden


def check_lift(counts: Sequence[int], proc: Any) -> list[tuple[str, int | None, str]]:
    """Tiles per wall after the lift vs the profile: ``[(rule, seat, message)]``.

    >>> from controller.rules.procedures import ProcedureRules
    >>> check_lift([34, 34, 33, 34], ProcedureRules())
    [('missing_tile', 2, 'the lifted walls hold 135 tiles, the set has 136: wall 2 holds 33 of 34')]
    >>> check_lift([34, 34, 34, 34], ProcedureRules())
    []
    """
    per_wall = 2 * proc.stacks_per_side
    want = per_wall * proc.walls
    total = sum(counts)
    short = [i for i, c in enumerate(counts) if c < per_wall]
    over = [i for i, c in enumerate(counts) if c > per_wall]
    if len(counts) != proc.walls:
        return [("stack_count", None, f"the lift reports {len(counts)} walls, the table has {proc.walls}")]
    if total < want:
        seat = short[0] if short else None
        where = f": wall {seat} holds {counts[seat]} of {per_wall}" if seat is not None else ""
        return [("missing_tile", seat, f"the lifted walls hold {total} tiles, the set has {want}{where}")]
    if total > want:
        seat = over[0] if over else None
        return [("stack_count", seat, f"the lifted walls hold {total} tiles, the set has {want}")]
    if short or over:
        seat = (short or over)[0]
        return [("stack_count", seat, f"wall {seat} holds {counts[seat]} tiles where {per_wall} belong")]
    return []


def check_set_total(counts: Sequence[int], proc: Any) -> str | None:
    """The walls built after a hand (``stack_ready``) must hold the whole set: else a tile was
    kept back or added during the hand ("a set that does not add up at hand end").

    >>> from controller.rules.procedures import ProcedureRules
    >>> check_set_total([34, 34, 34, 33], ProcedureRules())
    'the set comes back with 135 tiles after the hand, it has 136'
    """
    want = 2 * proc.stacks_per_side * proc.walls
    total = sum(counts)
    if total != want:
        return f"the set comes back with {total} tiles after the hand, it has {want}"
    return None


def census_problems(face_up: Mapping[str, int], census: Mapping[str, int], new_tiles: Iterable[str]
                    ) -> list[tuple[str, str, str]]:
    """Problems the ``new_tiles`` just turned face up cause: ``[(rule, tile, message)]``.

    ``face_up`` counts every tile face up now (the new ones included); ``census`` is the set.

    >>> census_problems({"3m": 5}, {"3m": 4}, ["3m"])
    [('fifth_tile', '3m', 'copy 5 of 3m face up: the set holds 4')]
    >>> census_problems({"0p": 2, "5p": 1}, {"0p": 1, "5p": 3}, ["0p"])
    [('wrong_red', '0p', 'red five 0p number 2 face up: the set holds 1')]
    """
    out = []
    for t in dict.fromkeys(new_tiles):
        if T.is_red(t):
            have, seen = census.get(t, 0), face_up.get(t, 0)
            if seen > have:
                out.append(("wrong_red", t, f"red five {t} number {seen} face up: the set holds {have}"))
            continue
        kind = T.plain(t)
        red = f"0{kind[1]}" if kind[0] == "5" and kind[1] in "mps" else None
        total_have = census.get(kind, 0) + (census.get(red, 0) if red else 0)
        total_seen = face_up.get(kind, 0) + (face_up.get(red, 0) if red else 0)
        if total_seen > total_have or face_up.get(kind, 0) > census.get(kind, 0):
            seen = max(total_seen, face_up.get(kind, 0))
            out.append(("fifth_tile", t, f"copy {seen} of {kind} face up: the set holds {census.get(kind, 0)}"
                        + (f" plain and {census.get(red, 0)} red" if red else "")))
    return out


def new_face_up_of_reveal(state: Any, seat: int, tiles: list[str]) -> list[str]:
    """Tiles of a revealed hand that were not face up before (a ron tile already lies in a river)."""
    rest = list(tiles)
    winners = getattr(state, "winners", [])
    st = state.seats[seat]
    if any(w == seat and src != seat for w, src in winners) and st.win_tile in rest:
        rest.remove(st.win_tile)
    return rest


def check_furiten(state: Any, seat: int, tiles: list[str]) -> str | None:
    """For a ron: is ``seat`` (revealing ``tiles``, the ron tile included) in furiten?"""
    st = state.seats[seat]
    hand = list(tiles)
    if st.win_tile in hand:
        hand.remove(st.win_tile)
    melds = [_rules_meld(m) for m in st.melds]
    try:
        waits = WT.waits(hand, melds)
    except ValueError:
        return None
    own = [r["tile"] for r in st.river]
    timeline = state.timeline
    own_discards = [k for k, x in enumerate(timeline) if x[0] == "discard" and x[1] == seat]
    last_own = own_discards[-1] if own_discards else -1
    riichi_at = next((k for k, x in enumerate(timeline) if x[0] == "discard" and x[1] == seat and x[4]), None)
    others = [(k, x[2]) for k, x in enumerate(timeline) if x[0] == "discard" and x[1] != seat]
    current = others[-1][0] if others else None
    passed_since = [t for k, t in others if k > last_own and k != current]
    passed_riichi = [t for k, t in others if riichi_at is not None and k > riichi_at and k != current]
    kind = WT.furiten(waits, own, passed_since_discard=passed_since, passed_since_riichi=passed_riichi)
    if kind is None:
        return None
    return f"seat {seat} wins by ron while in {kind.value} furiten (waits {', '.join(waits)})"


def _rules_meld(m: Mapping[str, Any]) -> RMeld:
    kind = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "kakan", "ankan": "ankan"}[m["kind"]]
    tiles = list(m["tiles"])
    called = m.get("called")
    if kind == "ankan":
        return RMeld("ankan", tuple(tiles), None, None)
    if kind == "kakan":
        return RMeld("kakan", tuple(tiles), m.get("pon_called") or tiles[0], m.get("source"))
    return RMeld(kind, tuple(tiles), called, m.get("source"))
