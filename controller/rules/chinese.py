"""General Chinese rules (seed 000): the ``[chinese]`` table and its rules.

- A win is four sets and a pair (S000:L44-45); the pair may be any pair (乱将) or only a 2, 5
  or 8 of a suit (``pair_rule = "258"``, S000:L42).
- Wind fan (S000:L20-21): +1 for a pung of one's seat wind, or for the dealer holding his own
  wind (East) as the pair; +2 instead for the seat wind's pung when it is also the round wind
  (双东/双南…). A hand is worth ``base_points`` x 2^fan (a profile value: S000 gives no number).
- The discarder pays (S000:L61-62); on a self-draw the three others pay. With
  ``robbing_kong_pays = true`` a robbed kong is paid by the kong's player as a discard (S004:L43).
- False win 诈和 (S000:L46): paid to each of the other three, by the intended hand's value,
  double it, or the limit (``false_win_penalty``).
- Exhaustive draw (S000:L49-50): the dealer stays, or passes and pays ``draw_penalty`` to each
  of the three. Four winds in the first go-round (L51): an abortive draw, or the dealer pays
  ``four_winds_fine`` to each and play goes on. Four kans (L52) abort only when one player has
  three and another makes the fourth. Three players claiming one discard (L53): a draw, or the
  first claimant counter-clockwise from the discarder wins (抱和).
- A hand of the wrong size (相公, L55-58) may not win and plays on; the alert goes to the staff
  view only until the hand ends (:func:`hand_size_error`).

>>> r = score("123m456p789s111z55s", win_tile="5s", seat_wind=0, round_wind=0, winner=0, discarder=2)
>>> r.fan, r.points, r.payments
(2, 4, (4, 0, -4, 0))
>>> is_winning_hand(T.parse("123m456p789s111z44s"), rules=ChineseRules(pair_rule="258"))
False
>>> four_kans_aborts([3, 1, 0, 0]), four_kans_aborts([4, 0, 0, 0]), four_kans_aborts([2, 2, 0, 0])
(True, False, False)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from controller.rules import tiles as T
from controller.rules.hk.arrange import Arrangement, HandShapeError, Meld, arrangements
from controller.rules.ruleset import RuleSetError

PAIR_RULES = ("any", "258")
FALSE_WIN_PENALTIES = ("intended_value", "double", "limit")
EXHAUSTIVE_DRAWS = ("dealer_stays", "dealer_passes_pays")
FOUR_WINDS = ("draw", "fine")
THREE_CLAIMS = ("draw", "first_claimant")
PAIR_258 = frozenset(k for s in (0, 9, 18) for k in (s + 1, s + 4, s + 7))


class ChineseRulesError(RuleSetError):
    """A ``[chinese]`` table with an unknown key or a value out of range (named in the message)."""


class ChineseError:
    """Why a hand does not score (the ``error`` of a :class:`ChineseResult`)."""

    NOT_A_WIN = "not_a_win"
    WRONG_PAIR = "pair_not_258"
    WRONG_SIZE = "wrong_hand_size"


@dataclass(frozen=True)
class ChineseRules:
    """Values of the ``[chinese]`` table (see the module docstring for each rule)."""

    pair_rule: str = "any"
    base_points: int = 1
    false_win_penalty: str = "intended_value"
    limit_points: int = 0
    exhaustive_draw: str = "dealer_stays"
    draw_penalty: int = 0
    four_winds: str = "draw"
    four_winds_fine: int = 0
    four_kans_abort: bool = True
    three_claims: str = "draw"
    dealer_repeats_on_win: bool = True
    robbing_kong_pays: bool = True

    @classmethod
    def from_table(cls, table: dict[str, Any] | None) -> ChineseRules:
        """Build from a profile's ``[chinese]`` table. Raises ChineseRulesError naming the key at fault."""
        table = dict(table or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        choices = {"pair_rule": PAIR_RULES, "false_win_penalty": FALSE_WIN_PENALTIES,
                   "exhaustive_draw": EXHAUSTIVE_DRAWS, "four_winds": FOUR_WINDS, "three_claims": THREE_CLAIMS}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in fields:
                raise ChineseRulesError(f"[chinese] unknown key {key!r}; known keys: {', '.join(fields)}")
            default = fields[key].default
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ChineseRulesError(f"[chinese] {key!r} is {value!r}, must be true or false")
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ChineseRulesError(f"[chinese] {key!r} is {value!r}, must be a whole number >= 0")
            elif value not in choices[key]:
                raise ChineseRulesError(f"[chinese] {key!r} is {value!r}, must be one of {', '.join(choices[key])}")
            values[key] = value
        rules = cls(**values)
        if rules.false_win_penalty == "limit" and rules.limit_points <= 0:
            raise ChineseRulesError("[chinese] false_win_penalty 'limit' needs 'limit_points' > 0")
        if rules.base_points <= 0:
            raise ChineseRulesError("[chinese] 'base_points' must be at least 1")
        return rules


@dataclass(frozen=True)
class ChineseResult:
    """A scored Chinese hand: ``fan`` from the wind rules (``reasons`` say which), ``points`` =
    base_points x 2^fan, ``payments`` per seat; ``error`` set when the hand cannot win."""

    error: str | None
    fan: int = 0
    points: int = 0
    reasons: tuple[str, ...] = ()
    payments: tuple[int, ...] = ()
    arrangement: str = ""


def _pair_ok(arr: Arrangement, rules: ChineseRules) -> bool:
    if rules.pair_rule == "any":
        return True
    pair = arr.pair
    return pair is not None and pair.first in PAIR_258


def _standard(arrs: list[Arrangement]) -> list[Arrangement]:
    return [a for a in arrs if not a.is_thirteen_orphans]  # S000 knows only four sets and a pair


def is_winning_hand(concealed: Sequence[str], melds: Sequence[Meld] = (), *,
                    rules: ChineseRules | None = None) -> bool:
    """Four sets and a pair, with the profile's pair rule. Raises HandShapeError for impossible input."""
    rules = rules or ChineseRules()
    return any(_pair_ok(a, rules) for a in _standard(arrangements([T.plain(t) for t in concealed], list(melds))))


def wind_fan(arr: Arrangement, *, seat_wind: int, round_wind: int, is_dealer: bool) -> tuple[int, tuple[str, ...]]:
    """Fan from winds for one arrangement, with reasons (S000:L20-21)."""
    fan = 0
    reasons: list[str] = []
    seat_kind = 27 + seat_wind
    if any(g.is_triplet and g.first == seat_kind for g in arr.sets):
        if seat_wind == round_wind:
            fan += 2
            reasons.append("double_wind")  # 双东 / 双南 …
        else:
            fan += 1
            reasons.append("seat_wind_pung")
    pair = arr.pair
    if is_dealer and pair is not None and pair.first == 27:
        fan += 1
        reasons.append("dealer_wind_pair")
    return fan, tuple(reasons)


def hand_value(fan: int, rules: ChineseRules | None = None) -> int:
    rules = rules or ChineseRules()
    return rules.base_points * 2 ** fan


def win_payments(points: int, winner: int, discarder: int | None, n_players: int = 4) -> tuple[int, ...]:
    """The discarder pays ``points`` (S000:L62); on a self-draw (None) each other seat pays it."""
    if not 0 <= winner < n_players or (discarder is not None and not 0 <= discarder < n_players):
        raise ValueError(f"seats must be 0..{n_players - 1}: winner {winner}, discarder {discarder}")
    if discarder == winner:
        raise ValueError(f"seat {winner} cannot win on its own discard")
    delta = [0] * n_players
    for s in range(n_players):
        if s != winner and (discarder is None or s == discarder):
            delta[s] = -points
    delta[winner] = -sum(delta)
    return tuple(delta)


def score(concealed: str | Sequence[str], *, win_tile: str, melds: Sequence[Meld] = (), seat_wind: int = 0,
          round_wind: int = 0, winner: int = 0, discarder: int | None = None, dealer: int | None = None,
          robbed_kong_by: int | None = None, rules: ChineseRules | None = None) -> ChineseResult:
    """Score a Chinese win. ``concealed`` holds the winning tile. ``dealer`` defaults to the seat
    whose seat wind is East; ``robbed_kong_by`` names the kong's player of a robbed kong (paid as a
    discard by that player when ``robbing_kong_pays``). Raises HandShapeError for impossible input.
    """
    rules = rules or ChineseRules()
    tiles = T.parse(concealed) if isinstance(concealed, str) else [T.check(t) for t in concealed]
    tiles = [T.plain(t) for t in tiles]
    if T.plain(T.check(win_tile)) not in tiles:
        raise HandShapeError(f"winning tile {win_tile!r} is not in the hand {T.fmt(tiles)!r}")
    if not (0 <= seat_wind <= 3 and 0 <= round_wind <= 3):
        raise HandShapeError(f"winds must be 0..3: seat {seat_wind}, round {round_wind}")
    arrs = _standard(arrangements(tiles, list(melds)))
    if not arrs:
        return ChineseResult(ChineseError.NOT_A_WIN)
    good = [a for a in arrs if _pair_ok(a, rules)]
    if not good:
        return ChineseResult(ChineseError.WRONG_PAIR, arrangement=arrs[0].describe())
    is_dealer = seat_wind == 0 if dealer is None else dealer == winner
    fan, reasons, arr = max(((*wind_fan(a, seat_wind=seat_wind, round_wind=round_wind, is_dealer=is_dealer), a)
                             for a in good), key=lambda x: x[0])
    points = hand_value(fan, rules)
    payer = discarder
    if robbed_kong_by is not None:
        payer = robbed_kong_by if rules.robbing_kong_pays else None
    return ChineseResult(None, fan, points, reasons, win_payments(points, winner, payer), arr.describe())


def hand_size_error(concealed_count: int, n_melds: int, *, has_drawn: bool) -> str | None:
    """相公: "big" (大相公, too many tiles) or "small" (小相公, too few), None when right.

    Between turns a hand holds 13 (a meld counting 3); right after a draw or a call, 14.
    """
    size = concealed_count + 3 * n_melds
    expected = 14 if has_drawn else 13
    if size > expected:
        return "big"
    if size < expected:
        return "small"
    return None


def false_win_penalty(seat: int, intended_fan: int, rules: ChineseRules | None = None,
                      n_players: int = 4) -> tuple[int, ...]:
    """诈和: point changes per seat; the false winner pays the penalty to each other seat."""
    rules = rules or ChineseRules()
    if not 0 <= seat < n_players:
        raise ValueError(f"seat {seat} is outside 0..{n_players - 1}")
    if rules.false_win_penalty == "limit":
        amount = rules.limit_points
    else:
        amount = hand_value(max(intended_fan, 0), rules) * (2 if rules.false_win_penalty == "double" else 1)
    delta = [amount] * n_players
    delta[seat] = -amount * (n_players - 1)
    return tuple(delta)


def exhaustive_draw(dealer: int, rules: ChineseRules | None = None,
                    n_players: int = 4) -> tuple[int, tuple[int, ...]]:
    """荒牌: (next dealer, point changes). The dealer stays, or passes and pays each other seat."""
    rules = rules or ChineseRules()
    delta = [0] * n_players
    if rules.exhaustive_draw == "dealer_stays":
        return dealer, tuple(delta)
    for s in range(n_players):
        if s != dealer:
            delta[s] = rules.draw_penalty
    delta[dealer] = -rules.draw_penalty * (n_players - 1)
    return (dealer + 1) % n_players, tuple(delta)


def is_four_winds(first_discards: Sequence[str]) -> bool:
    """The first go-round's four discards are the same wind (四风连打)."""
    return len(first_discards) == 4 and len(set(first_discards)) == 1 and first_discards[0] in ("1z", "2z", "3z", "4z")


def four_winds(dealer: int, rules: ChineseRules | None = None,
               n_players: int = 4) -> tuple[str, int, tuple[int, ...]]:
    """After four winds: ("draw", next dealer, no payments) or ("fine", same dealer, the fine)."""
    rules = rules or ChineseRules()
    delta = [0] * n_players
    if rules.four_winds == "draw":
        return "draw", (dealer + 1) % n_players, tuple(delta)
    for s in range(n_players):
        if s != dealer:
            delta[s] = rules.four_winds_fine
    delta[dealer] = -rules.four_winds_fine * (n_players - 1)
    return "fine", dealer, tuple(delta)


def four_kans_aborts(kans_by_seat: Sequence[int], rules: ChineseRules | None = None) -> bool:
    """Four kans abort only when one player made three and another the fourth (S000:L52)."""
    rules = rules or ChineseRules()
    return rules.four_kans_abort and sorted(kans_by_seat, reverse=True)[:2] == [3, 1]


def three_claims(discarder: int, claimants: Sequence[int], rules: ChineseRules | None = None,
                 n_players: int = 4) -> int | None:
    """Three players claim one discard (三家喊和): None for a draw, or the winning seat (the
    first claimant counter-clockwise from the discarder). Fewer claimants: the first one wins."""
    rules = rules or ChineseRules()
    if discarder in claimants:
        raise ValueError(f"seat {discarder} cannot claim its own discard")
    if len(claimants) >= 3 and rules.three_claims == "draw":
        return None
    return min(claimants, key=lambda s: (s - discarder) % n_players) if claimants else None


def next_dealer(dealer: int, winner: int | None, rules: ChineseRules | None = None, n_players: int = 4) -> int:
    """After a win: the dealer stays when he won (连庄, S000:L16), else his right (下家) deals."""
    rules = rules or ChineseRules()
    if winner is None:
        raise ValueError("use exhaustive_draw() or four_winds() for a hand without a winner")
    if winner == dealer and rules.dealer_repeats_on_win:
        return dealer
    return (dealer + 1) % n_players
