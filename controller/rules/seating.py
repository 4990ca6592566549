"""Choosing seats (搬庄/定位/抓位) and the first dealer (定庄/起家), per the four seeds.

Randomness is injected: ``roll(seat, n_dice)`` returns that seat's dice (the daemon passes a
CSPRNG, tests pass scripted values) and ``shuffle(tiles)`` returns a permutation of the wind
tiles. Every roll is returned in order, with its purpose, so the daemon can log it. Ties are
rolled again by the tied players only (RULINGS "Choosing seats").

Players are numbered by the chair they first sit in, ``0..n-1`` counter-clockwise. A
:class:`Seating` gives each player's wind (0 East .. 3 North); players then sit East, South,
West, North counter-clockwise, and the first-dealer procedure works on those winds.

Seat methods (``ProcedureRules.seating``):

- ``draw_winds`` (摸风法, S002:L6, S000:L6, S004:L12): each player draws one face-down wind.
- ``dice_count`` (数点法/点数法, S000:L4, S004:L2): everyone rolls; the highest is East, the next
  South, and so on; tied players roll again among themselves.
- ``dice_point`` (骰点法, S000:L5, S004:L5): everyone rolls; 5/9 East, 2/6/10 South, 3/7/11
  West, 4/8/12 North; a wind already taken rolls again.
- ``hk_temp_dealer`` (S003:L1-25): everyone rolls, the highest is the temporary dealer, who lays
  the four winds in a row (an even marker at one end, an odd one at the other) and rolls; the
  seat counted counter-clockwise from him draws first, from the odd end on an odd total, the
  even end on an even one, then the others counter-clockwise from the same end.
- ``customary`` / ``assigned`` (习惯法, S004:L16): the staff or organiser gives the winds.

First-dealer methods (``ProcedureRules.first_dealer``):

- ``two_rolls`` (S002:L15): the East drawer rolls; the seat it points at rolls again; the
  second total counts from that second roller, unsummed.
- ``one_roll`` (S000:L9, S002:L16): the East drawer rolls once and the total points at the dealer.
- ``east``: the East drawer deals (S002:L16, S003:L21, S004:L17).

>>> fd = first_dealer("two_rolls", roll=scripted([(1, 2), (2, 4)]))   # S002:L15: 3 -> West, 6 -> North
>>> fd.wind, [r.seat for r in fd.rolls]
(3, [0, 2])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from controller.rules.dice import DiceError, check_dice, seat_from_count

RollFn = Callable[[int, int], Sequence[int]]
ShuffleFn = Callable[[list[str]], Sequence[str]]

WIND_TILES = ("1z", "2z", "3z", "4z")
SEAT_METHODS = ("draw_winds", "dice_count", "dice_point", "hk_temp_dealer", "customary", "assigned")
FIRST_DEALER_METHODS = ("two_rolls", "one_roll", "east")
MAX_ROLLS = 400


class SeatingError(ValueError):
    """A seating procedure that cannot complete: bad dice, a bad permutation, an unknown method."""


@dataclass(frozen=True)
class SeatRoll:
    """One throw of the procedure: ``seat`` (a player, or a wind for the first dealer) rolled
    ``dice`` for ``purpose`` ("seat", "tie", "temp_dealer", "draw_end", "first_dealer")."""

    seat: int
    dice: tuple[int, ...]
    purpose: str

    @property
    def total(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True)
class Seating:
    """Each player's wind (``wind_of[player]``, 0 East .. n-1), with the rolls and draws that decided it."""

    wind_of: tuple[int, ...]
    rolls: tuple[SeatRoll, ...] = ()
    drawn: tuple[str, ...] = ()

    @property
    def player_of_wind(self) -> tuple[int, ...]:
        out = [0] * len(self.wind_of)
        for player, wind in enumerate(self.wind_of):
            out[wind] = player
        return tuple(out)


@dataclass(frozen=True)
class FirstDealer:
    """The first dealer, as a wind (0 = the East drawer's seat, counter-clockwise), and the rolls."""

    wind: int
    rolls: tuple[SeatRoll, ...] = ()


def scripted(values: Iterable[Sequence[int]]) -> RollFn:
    """A roll function that returns ``values`` in order (tests, replays of logged rolls)."""
    it = iter(values)

    def roll(seat: int, n_dice: int) -> Sequence[int]:
        try:
            return next(it)
        except StopIteration:
            raise SeatingError(f"scripted dice ran out (seat {seat} asked for {n_dice} dice)") from None

    return roll


class _Roller:
    def __init__(self, roll: RollFn | None) -> None:
        if roll is None:
            raise SeatingError("this procedure needs dice: pass roll(seat, n_dice)")
        self._roll = roll
        self.log: list[SeatRoll] = []

    def __call__(self, seat: int, purpose: str, n_dice: int = 2) -> int:
        if len(self.log) >= MAX_ROLLS:
            raise SeatingError(f"no result after {MAX_ROLLS} rolls")
        try:
            dice = check_dice(self._roll(seat, n_dice), n_dice, who=f"seat {seat} {purpose} roll")
        except DiceError as err:
            raise SeatingError(str(err)) from err
        self.log.append(SeatRoll(seat, dice, purpose))
        return sum(dice)


def _rank(players: Sequence[int], roller: _Roller, purpose: str) -> list[int]:
    """Order ``players`` by their totals, highest first; tied groups roll again among themselves."""
    totals = {p: roller(p, purpose) for p in players}
    out: list[int] = []
    for total in sorted(set(totals.values()), reverse=True):
        group = [p for p in players if totals[p] == total]
        out += group if len(group) == 1 else _rank(group, roller, "tie")
    return out


def _highest(players: Sequence[int], roller: _Roller, purpose: str) -> int:
    """The player with the highest total; only players tied for the top roll again."""
    totals = {p: roller(p, purpose) for p in players}
    top = max(totals.values())
    group = [p for p in players if totals[p] == top]
    return group[0] if len(group) == 1 else _highest(group, roller, "tie")


def _permutation(shuffle: ShuffleFn | None, tiles: Sequence[str]) -> tuple[str, ...]:
    if shuffle is None:
        raise SeatingError("this procedure draws winds: pass shuffle(tiles)")
    out = tuple(shuffle(list(tiles)))
    if sorted(out) != sorted(tiles):
        raise SeatingError(f"shuffle returned {list(out)}, not a permutation of {list(tiles)}")
    return out


def choose_seats(method: str, n_players: int = 4, *, roll: RollFn | None = None,
                 shuffle: ShuffleFn | None = None, assigned: Sequence[int] | None = None) -> Seating:
    """Run a seat procedure (see the module docstring). Raises SeatingError.

    >>> choose_seats("dice_count", roll=scripted([(6, 6), (1, 1), (3, 3), (3, 3), (2, 1), (6, 5)])).wind_of
    (0, 3, 2, 1)
    >>> choose_seats("draw_winds", shuffle=lambda t: [t[2], t[0], t[3], t[1]]).wind_of
    (2, 0, 3, 1)
    """
    if n_players not in (3, 4):
        raise SeatingError(f"{n_players} players: must be 3 or 4")
    if method not in SEAT_METHODS:
        raise SeatingError(f"unknown seating method {method!r}: known are {', '.join(SEAT_METHODS)}")
    winds = WIND_TILES[:n_players]
    players = list(range(n_players))
    if method == "draw_winds":
        drawn = _permutation(shuffle, winds)
        return Seating(tuple(winds.index(t) for t in drawn), (), drawn)
    if method in ("customary", "assigned"):
        if assigned is None or sorted(assigned) != players:
            raise SeatingError(f"'{method}' seating needs the winds of the {n_players} players "
                               f"as a permutation of {players}, got {assigned!r}")
        return Seating(tuple(assigned))
    roller = _Roller(roll)
    if method == "dice_count":
        order = _rank(players, roller, "seat")
        wind_of = [0] * n_players
        for wind, player in enumerate(order):
            wind_of[player] = wind
        return Seating(tuple(wind_of), tuple(roller.log))
    if method == "dice_point":
        if n_players != 4:
            raise SeatingError("'dice_point' seating is for four players")
        taken: dict[int, int] = {}
        for player in players:
            purpose = "seat"
            while True:
                wind = seat_from_count(0, roller(player, purpose), 4)
                if wind not in taken:
                    taken[wind] = player
                    break
                purpose = "tie"
        wind_of = [0] * 4
        for wind, player in taken.items():
            wind_of[player] = wind
        return Seating(tuple(wind_of), tuple(roller.log))
    if method == "hk_temp_dealer":
        temp = _highest(players, roller, "temp_dealer")
        row = _permutation(shuffle, winds)  # row[0] lies at the even end, row[-1] at the odd end
        total = roller(temp, "draw_end")
        first = seat_from_count(temp, total, n_players)
        from_odd_end = total % 2 == 1
        order = list(reversed(row)) if from_odd_end else list(row)
        wind_of = [0] * n_players
        drawn: list[str] = [""] * n_players
        for i in range(n_players):
            player = (first + i) % n_players
            drawn[player] = order[i]
            wind_of[player] = winds.index(order[i])
        return Seating(tuple(wind_of), tuple(roller.log), tuple(drawn))
    raise AssertionError(method)  # pragma: no cover (checked above)


def first_dealer(method: str, n_players: int = 4, *, roll: RollFn | None = None) -> FirstDealer:
    """Run a first-dealer procedure on the seated winds (0 = East drawer). Raises SeatingError.

    >>> first_dealer("one_roll", roll=scripted([(3, 4)])).wind   # 7 from East -> across (West)
    2
    """
    if n_players not in (3, 4):
        raise SeatingError(f"{n_players} players: must be 3 or 4")
    if method not in FIRST_DEALER_METHODS:
        raise SeatingError(f"unknown first-dealer method {method!r}: known are {', '.join(FIRST_DEALER_METHODS)}")
    if method == "east":
        return FirstDealer(0)
    roller = _Roller(roll)
    if method == "one_roll":
        return FirstDealer(seat_from_count(0, roller(0, "first_dealer"), n_players), tuple(roller.log))
    second = seat_from_count(0, roller(0, "first_dealer"), n_players)  # two_rolls
    dealer = seat_from_count(second, roller(second, "first_dealer"), n_players)
    return FirstDealer(dealer, tuple(roller.log))
