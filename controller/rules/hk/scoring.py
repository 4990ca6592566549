"""Scoring a Hong Kong win: the single best pattern of the fan table, points = 2^fan, payments.

>>> r = score("111m222m333m999m1z1z", win_tile="1z")          # 清一色? no: honors -> 混碰
>>> r.pattern, r.fan, r.points
('hun_peng', 4, 16)
>>> score("1112345678999m5m", win_tile="5m").pattern        # 九莲宝灯 (清一色 not added)
'jiu_lian_bao_deng'
>>> payments(16, winner=2, discarder=0), payments(16, winner=2, discarder=None)
((-48, 0, 48, 0), (-16, -16, 48, -16))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from controller.rules import tiles as T
from controller.rules.hk.arrange import HandShapeError, Meld, arrangements
from controller.rules.hk.patterns import PATTERNS, HKHandView, Pattern
from controller.rules.hk.rules import HKRules


class HKError:
    """Why a hand does not score (the ``error`` of an :class:`HKResult`)."""

    NOT_A_WIN = "not_a_win"
    BELOW_MIN_FAN = "below_min_fan"


@dataclass(frozen=True)
class PatternHit:
    name: str
    kanji: str
    fan: int | None  # None: recognised, no value in this profile


@dataclass(frozen=True)
class HKResult:
    """A scored hand: the best ``pattern`` and every pattern present (``hits``) in the arrangement
    chosen; ``fan`` = the pattern's fan + flower fan; ``points`` = 2^fan (0 with an error)."""

    error: str | None
    pattern: str | None = None
    pattern_fan: int = 0
    flower_fan: int = 0
    own_flowers: int = 0
    hits: tuple[PatternHit, ...] = ()
    arrangement: str = ""

    @property
    def fan(self) -> int:
        return self.pattern_fan + self.flower_fan

    @property
    def points(self) -> int:
        return 0 if self.error else 2 ** self.fan


def _value(pattern: type[Pattern], rules: HKRules) -> int | None:
    if pattern.fan is not None:
        return pattern.fan
    return rules.extra_fan.get(pattern.name)


def own_flowers(flowers: Iterable[str], seat_wind: int) -> int:
    """Flowers of one's own seat: 1f..4f (plum, orchid, chrysanthemum, bamboo) and 5f..8f
    (spring .. winter) belong to East, South, West, North in turn."""
    out = 0
    for f in flowers:
        if not T.is_flower(T.check(f)):
            raise HandShapeError(f"{f!r} is not a flower or season")
        out += (int(f[0]) - 1) % 4 == seat_wind
    return out


def is_all_flowers(flowers: Iterable[str]) -> bool:
    """All eight flowers and seasons held (the instant win of ``HKRules.all_flowers_wins``)."""
    return sorted(set(flowers)) == list(T.FLOWERS)


def score(concealed: str | Sequence[str], *, win_tile: str, melds: Sequence[Meld] = (),
          is_self_draw: bool = False, is_ready_declared: bool = False, flowers: Sequence[str] = (),
          seat_wind: int = 0, rules: HKRules | None = None) -> HKResult:
    """Score a Hong Kong win. ``concealed`` holds the winning tile (mpsz text or a list).

    Returns an HKResult (``error`` set when the hand is not complete or below ``min_fan``).
    Raises HandShapeError (a ValueError) for impossible input: not 14 tiles, a fifth copy, a
    winning tile not in the hand.
    """
    rules = rules or HKRules()
    tiles = T.parse(concealed) if isinstance(concealed, str) else [T.check(t) for t in concealed]
    tiles = [T.plain(t) for t in tiles]
    if T.plain(T.check(win_tile)) not in tiles:
        raise HandShapeError(f"winning tile {win_tile!r} is not in the hand {T.fmt(tiles)!r}")
    if not 0 <= seat_wind <= 3:
        raise HandShapeError(f"seat wind {seat_wind} must be 0 (East) .. 3 (North)")
    arrs = arrangements(tiles, list(melds))
    n_own = own_flowers(flowers, seat_wind)
    if not arrs:
        return HKResult(HKError.NOT_A_WIN, own_flowers=n_own)
    best: tuple[int, int, int] | None = None
    chosen: HKResult | None = None
    for arr in arrs:
        view = HKHandView(arr, is_self_draw, is_ready_declared)
        hits = [p for p in PATTERNS if p.is_present(view)]
        valued = [(v, i, p) for i, p in enumerate(hits) if (v := _value(p, rules)) is not None]
        fan, order, top = max(valued, key=lambda x: (x[0], x[1]))
        key = (fan, order, len(hits))
        if best is None or key > best:
            best = key
            chosen = HKResult(None, top.name, fan, rules.own_flower_fan * n_own, n_own,
                              tuple(PatternHit(p.name, p.kanji, _value(p, rules)) for p in hits), arr.describe())
    assert chosen is not None
    if chosen.fan < rules.min_fan:
        return HKResult(HKError.BELOW_MIN_FAN, chosen.pattern, chosen.pattern_fan, chosen.flower_fan,
                        chosen.own_flowers, chosen.hits, chosen.arrangement)
    return chosen


def payments(points: int, winner: int, discarder: int | None, rules: HKRules | None = None,
             n_players: int = 4) -> tuple[int, ...]:
    """Point changes per seat for a win worth ``points`` per share.

    Self-draw (``discarder`` None): each other seat pays one share. On a discard: the discarder
    pays all three shares ("discarder_all", the default) or one share ("discarder_share").
    Raises ValueError for seats outside the table or a winner who discarded.
    """
    rules = rules or HKRules()
    for name, seat in (("winner", winner), ("discarder", discarder)):
        if seat is not None and not 0 <= seat < n_players:
            raise ValueError(f"{name} seat {seat} is outside 0..{n_players - 1}")
    if discarder == winner:
        raise ValueError(f"seat {winner} cannot win on its own discard")
    delta = [0] * n_players
    others = [s for s in range(n_players) if s != winner]
    if discarder is None:
        for s in others:
            delta[s] -= points
    else:
        shares = len(others) if rules.discard_payment == "discarder_all" else 1
        delta[discarder] -= points * shares
    delta[winner] = -sum(delta)
    return tuple(delta)


def next_dealer(dealer: int, winner: int | None, rules: HKRules | None = None, n_players: int = 4) -> int:
    """The next hand's dealer: the deal rotates after every hand, draws included (S003:L127),
    unless ``dealer_repeats`` and the dealer won."""
    rules = rules or HKRules()
    if rules.dealer_repeats and winner == dealer:
        return dealer
    return (dealer + 1) % n_players


def advance_round(round_wind: int, dealer: int, new_dealer: int, first_dealer: int,
                  n_rounds: int = 4) -> tuple[int, bool]:
    """(round wind of the next hand, whether the game is over): a round (圈) ends when the deal
    passes back to the first dealer; a game is four rounds, East to North (S003:L131, S000:L17)."""
    if new_dealer != dealer and new_dealer == first_dealer:
        round_wind += 1
    return round_wind, round_wind >= n_rounds
