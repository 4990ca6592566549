"""The walls (牌山/牌墙): where every tile is taken from, and the dead wall (王牌/牌尾).

Geometry (RULINGS "Walls" and "Dice"): seats ``0..n-1`` counter-clockwise; seat ``s`` owns the
wall in front of it, whose stacks are numbered ``1..stacks_per_side`` from the owner's right
end. Tiles are taken clockwise: stack k, k+1, ... of a wall, then stack 1 of the wall of the
seat on its left (``s - 1``). A stack holds an upper and a lower tile; taking removes the upper
tile first. A :class:`WallSlot` names a tile by where it was built: ``(seat, stack, layer)``.

After the break (:class:`controller.rules.dice.BreakPoint`), the stacks clockwise from the break
are the live wall; the last ``dead_wall_stacks`` stacks (those just before the break) are the
dead wall. Dead-wall stack 1 is the one nearest the live wall (S002:L43); the far stacks next
to the break hold the replacement tiles, taken upper first from the break end (S003:L49); the
dora indicator is the upper tile of the stack next to them (riichi: stack 5 of 7, the third from
the far end), kan indicators follow towards the live wall. After a replacement draw the profile
may refill the dead wall: the last live stack's lower tile moves to it (its upper tile drops
down, S002:L44), which removes the last tile of the live take order.

:func:`plan` maps (dice rolls, dealer seat, procedures) to every slot: the 13 dealt tiles of
each seat, the draws, the replacement tiles, the indicators. :class:`WallState` follows a hand
as it is played (what is taken next, how many live tiles remain, haitei), optionally with the
tiles in each slot; :func:`layout_from_roll` places a known sequence of tiles (a recorded
game) into the slots of a planned layout so that the deal, draws and indicators come out as
recorded, whatever the roll.

>>> from controller.rules.procedures import ProcedureRules
>>> lay = plan(ProcedureRules(), dealer=0, rolls=[(3, 5)])   # S002:L40: 8 -> left wall, take 9-10
>>> lay.deal_takes[0][1], lay.deal_takes[3][1]
(WallSlot(seat=3, stack=9, layer='upper'), WallSlot(seat=3, stack=10, layer='lower'))
>>> lay.indicator_slots[0], len(lay.draw_slots)
(WallSlot(seat=3, stack=6, layer='upper'), 70)
>>> w = WallState(lay); _ = w.deal(); w.live_remaining
70
>>> w.draw().slot, w.draw_replacement("kan").slot, w.live_remaining
(WallSlot(seat=1, stack=1, layer='upper'), WallSlot(seat=3, stack=8, layer='upper'), 68)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.rules import tiles as T
from controller.rules.dice import BreakPoint, break_point
from controller.rules.procedures import ProcedureRules
from controller.rules.tilesets import census as tileset_census

UPPER = "upper"
LOWER = "lower"
HAND_SIZE = 13


class WallError(ValueError):
    """A wall operation that the wall cannot do (no tile left, dealt twice), or tiles that do not fit."""


@dataclass(frozen=True, order=True)
class WallSlot:
    """A tile's place as built: stack ``stack`` (1 = the owner's right end) of ``seat``'s wall,
    ``layer`` "upper" or "lower"."""

    seat: int
    stack: int
    layer: str

    @property
    def stack_pos(self) -> tuple[int, int]:
        return (self.seat, self.stack)


@dataclass(frozen=True)
class Take:
    """A tile taken from the wall: its slot and, where the tiles are known, the tile."""

    slot: WallSlot
    tile: str | None = None


@dataclass(frozen=True)
class WallLayout:
    """Every slot's role for one hand, fixed by the procedures, the dealer and the break point.

    - ``live_stacks``: (seat, stack) in take order, from the break clockwise.
    - ``dead_stacks``: (seat, stack), dead-wall stack 1 (nearest the live wall) first; the last
      one is next to the break.
    - ``hand_slots[seat]``: the 13 slots dealt to each seat (absolute seat index).
    - ``deal_takes``: ``(seat, slot)`` in the physical order the deal takes them (with the
      dealer's jump tile when ``dealing == "jump"``).
    - ``draw_slots``: the live tiles after the 13-each deal in take order (the dealer's first
      draw, or jump tile, first), then the stacks released at the first kan (chinese).
    - ``released_slots``: the dead-wall slots that become live at the first kan (chinese 10 → 7).
    - ``replacement_slots``: replacement tiles (嶺上/补牌) in the order they are taken.
    - ``indicator_slots``: the dora indicator, then each kan indicator; ``ura_slots`` below them.
    """

    rules: ProcedureRules
    dealer: int
    break_point: BreakPoint
    live_stacks: tuple[tuple[int, int], ...]
    dead_stacks: tuple[tuple[int, int], ...]
    hand_slots: tuple[tuple[WallSlot, ...], ...]
    deal_takes: tuple[tuple[int, WallSlot], ...]
    draw_slots: tuple[WallSlot, ...]
    released_slots: tuple[WallSlot, ...]
    replacement_slots: tuple[WallSlot, ...]
    indicator_slots: tuple[WallSlot, ...]
    ura_slots: tuple[WallSlot, ...]

    @property
    def n_seats(self) -> int:
        return self.rules.walls

    @property
    def all_slots(self) -> tuple[WallSlot, ...]:
        """Every slot of the table, wall by wall, stack by stack, upper first."""
        return tuple(WallSlot(s, k, layer) for s in range(self.rules.walls)
                     for k in range(1, self.rules.stacks_per_side + 1) for layer in (UPPER, LOWER))


def _stack_at(g: int, n: int, per_side: int) -> tuple[int, int]:
    """The (seat, stack) at clockwise index ``g``; index 0 is stack 1 of seat 0's wall."""
    g %= n * per_side
    block, offset = divmod(g, per_side)
    return ((n - block) % n, offset + 1)


def _index_of(seat: int, stack: int, n: int, per_side: int) -> int:
    return ((n - seat) % n) * per_side + (stack - 1)


def _slots(stacks: Sequence[tuple[int, int]]) -> list[WallSlot]:
    return [WallSlot(s, k, layer) for s, k in stacks for layer in (UPPER, LOWER)]


def layout(rules: ProcedureRules, dealer: int, bp: BreakPoint) -> WallLayout:
    """The slot roles for a break point. Raises WallError for a seat outside the table."""
    n, per_side = rules.walls, rules.stacks_per_side
    if not 0 <= dealer < n:
        raise WallError(f"dealer seat {dealer} is outside 0..{n - 1}")
    if not 0 <= bp.wall_seat < n:
        raise WallError(f"break wall seat {bp.wall_seat} is outside 0..{n - 1}")
    total = n * per_side
    dead_n = rules.dead_wall_stacks
    g_break = _index_of(bp.wall_seat, 1, n, per_side) + bp.stacks_left - 1  # last stack left standing
    live_stacks = tuple(_stack_at(g_break + j, n, per_side) for j in range(1, total - dead_n + 1))
    dead_stacks = tuple(_stack_at(g_break - (dead_n - i), n, per_side) for i in range(1, dead_n + 1))
    live = _slots(live_stacks)

    hands: list[list[WallSlot]] = [[] for _ in range(n)]
    takes: list[tuple[int, WallSlot]] = []
    pos = 0
    for _round in range(3):
        for i in range(n):
            seat = (dealer + i) % n
            for slot in live[pos:pos + 4]:
                hands[seat].append(slot)
                takes.append((seat, slot))
            pos += 4
    singles = [((dealer + i) % n, live[pos + i]) for i in range(n)]
    for seat, slot in singles:
        hands[seat].append(slot)
    pos += n
    if rules.dealing == "jump":  # the dealer takes both of its tiles first, then the others one each
        takes += [singles[0], (dealer, live[pos])] + singles[1:]
    else:
        takes += singles

    after = rules.dead_wall_stacks_after_kan
    released = _slots(dead_stacks[:dead_n - after]) if after else []
    replacement_stacks = dead_stacks[::-1][:rules.replacement_stacks]
    replacements = _slots(replacement_stacks)
    indicators: list[WallSlot] = []
    ura: list[WallSlot] = []
    if rules.has_dora_indicator:
        for s, k in dead_stacks[:dead_n - rules.replacement_stacks][::-1]:
            indicators.append(WallSlot(s, k, UPPER))
            ura.append(WallSlot(s, k, LOWER))
    return WallLayout(rules, dealer, bp, live_stacks, dead_stacks, tuple(tuple(h) for h in hands),
                      tuple(takes), tuple(live[pos:]) + tuple(released), tuple(released),
                      tuple(replacements), tuple(indicators), tuple(ura))


def plan(rules: ProcedureRules, dealer: int, rolls: Sequence[Sequence[int]]) -> WallLayout:
    """The slot roles from the dice: rolls (each a sequence of die values) under ``rules.break_method``.

    Raises DiceError (a ValueError) for rolls the method cannot accept.
    """
    bp = break_point(rules.break_method, dealer, rolls, n_seats=rules.walls,
                     start_after_smaller_die=rules.start_after_smaller_die)
    return layout(rules, dealer, bp)


class WallState:
    """One hand's walls as they are played: what is taken next, what is left.

    Pure and deterministic: every call either changes the state and returns, or raises WallError
    and changes nothing. ``tiles`` (slot → tile), when known, makes each :class:`Take` carry its
    tile; without it the state tracks slots only (as the game tracker does from the camera).

    Call :meth:`deal` once, then :meth:`draw` for each turn's draw, :meth:`draw_replacement` after
    a kan, a flower or a north, and :meth:`flip_kan_indicator` when a kan indicator is turned.
    """

    def __init__(self, lay: WallLayout, tiles: Mapping[WallSlot, str] | None = None) -> None:
        self.layout = lay
        self.rules = lay.rules
        self._tiles = dict(tiles) if tiles is not None else None
        after_deal = HAND_SIZE * lay.n_seats
        released = len(lay.released_slots)
        live_after_deal = lay.draw_slots[:len(lay.draw_slots) - released]
        self._live: deque[WallSlot] = deque([s for hand in lay.hand_slots for s in hand] + list(live_after_deal))
        self._hand_count = after_deal
        self._replacements: deque[WallSlot] = deque(lay.replacement_slots)
        self._is_released = not released
        self._refilled: list[WallSlot] = []
        self._taken: set[WallSlot] = set()
        self._is_dealt = False
        self._kans = 0
        self._shown_indicators = 1 if self.rules.has_dora_indicator else 0
        self._dead_stacks = set(lay.dead_stacks)

    # --- queries -------------------------------------------------------------------------------
    @property
    def live_remaining(self) -> int:
        """Tiles still in the live wall (not yet dealt or drawn, not moved to the dead wall)."""
        return len(self._live) - (0 if self._is_dealt else self._deal_size())

    @property
    def is_exhausted(self) -> bool:
        """No live tile left: the hand ends after the last discard (exhaustive draw)."""
        return self._is_dealt and not self._live

    @property
    def is_haitei_next(self) -> bool:
        """The next draw takes the last live tile (haitei / 海底)."""
        return self._is_dealt and len(self._live) == 1

    @property
    def dead_wall_remaining(self) -> int:
        """Tiles in the dead wall now (indicators included, refilled tiles included)."""
        dead = sum(1 for s in _slots(self.current_dead_stacks()) if s not in self._taken)
        return dead + len(self._refilled)

    @property
    def replacements_left(self) -> int:
        return len(self._replacements)

    @property
    def kans(self) -> int:
        return self._kans

    def current_dead_stacks(self) -> tuple[tuple[int, int], ...]:
        """Dead-wall stacks now, stack 1 (nearest the live wall) first (refilled tiles lie beyond it)."""
        return tuple(p for p in self.layout.dead_stacks if p in self._dead_stacks)

    def next_draw_slot(self) -> WallSlot | None:
        """Where the next live draw is taken (None when exhausted or not yet dealt)."""
        return self._live[0] if self._is_dealt and self._live else None

    def next_replacement_slot(self) -> WallSlot | None:
        return self._replacements[0] if self._replacements else None

    def indicator_slots(self) -> tuple[WallSlot, ...]:
        """Slots of the indicators showing now: the dora indicator, then each flipped kan indicator."""
        return self.layout.indicator_slots[:self._shown_indicators]

    def ura_slots(self) -> tuple[WallSlot, ...]:
        """Slots under the showing indicators (ura dora, read at a riichi win)."""
        return self.layout.ura_slots[:self._shown_indicators]

    def next_indicator_slot(self) -> WallSlot | None:
        slots = self.layout.indicator_slots
        return slots[self._shown_indicators] if self._shown_indicators < len(slots) else None

    def stack_heights(self) -> dict[tuple[int, int], int]:
        """Tiles standing in every stack of the table, ``{(seat, stack): 0|1|2}`` (a camera check).

        A stack of height 1 shows its remaining tile in the lower layer (an upper tile drops down
        when the lower one is moved by a refill)."""
        heights: dict[tuple[int, int], int] = {}
        gone = self._taken | set(self._refilled)
        for slot in self.layout.all_slots:
            pos = slot.stack_pos
            heights[pos] = heights.get(pos, 0) + int(slot not in gone)
        return heights

    def refilled(self) -> tuple[Take, ...]:
        """Tiles moved from the live wall into the dead wall, in order (they lie at its near end)."""
        return tuple(self._take_of(s) for s in self._refilled)

    def tile_at(self, slot: WallSlot) -> str | None:
        return self._tiles.get(slot) if self._tiles is not None else None

    def indicators(self) -> tuple[str | None, ...]:
        """The tiles of the showing indicators (None where tiles are unknown)."""
        return tuple(self.tile_at(s) for s in self.indicator_slots())

    # --- actions -------------------------------------------------------------------------------
    def deal(self) -> tuple[tuple[Take, ...], ...]:
        """Deal the hands; returns the takes of each seat (absolute seat index) in take order.

        With ``dealing == "jump"`` the dealer gets its 14th tile here; with ``"one_each"`` it
        comes from the first :meth:`draw`. Raises WallError when dealt already.
        """
        if self._is_dealt:
            raise WallError("the hands are already dealt")
        hands: list[list[Take]] = [[] for _ in range(self.layout.n_seats)]
        for seat, slot in self.layout.deal_takes:
            hands[seat].append(self._take_of(slot))
        for _ in range(self._deal_size()):
            self._taken.add(self._live.popleft())
        self._is_dealt = True
        return tuple(tuple(h) for h in hands)

    def draw(self) -> Take:
        """Take the next live tile. Raises WallError before the deal or when the live wall is empty."""
        if not self._is_dealt:
            raise WallError("draw before the deal")
        if not self._live:
            raise WallError("no live tile left: the wall is exhausted")
        slot = self._live.popleft()
        self._taken.add(slot)
        return self._take_of(slot)

    def draw_replacement(self, reason: str = "kan") -> Take:
        """Take a replacement tile after a kan, a flower or a north ("kan" | "flower" | "north").

        On the first kan a shrinking dead wall releases its near stacks to the live wall; then
        the dead wall is refilled from the last live stack when ``reason`` is in ``refill_after``.
        Raises WallError for an unknown reason, before the deal, or with no replacement tile left.
        """
        if reason not in ("kan", "flower", "north"):
            raise WallError(f"replacement reason {reason!r} must be 'kan', 'flower' or 'north'")
        if reason == "flower" and self.rules.flower_replacement == "none":
            raise WallError("this table plays without flowers: no flower replacement")
        if not self._replacements:
            raise WallError(f"no replacement tile left in the dead wall for a {reason}")
        slot = self._replacements.popleft()
        self._taken.add(slot)
        if reason == "kan":
            self._kans += 1
            if not self._is_released:
                self._release()
        if reason in self.rules.refill_after and self._live and self._is_dealt:
            self._refilled.append(self._live.pop())
        return self._take_of(slot)

    def flip_kan_indicator(self) -> Take:
        """Turn the next kan indicator (towards the live wall), after that kan's replacement draw.

        Raises WallError when no kan is waiting for its indicator or no indicator slot is left."""
        slot = self.next_indicator_slot()
        if slot is None or self._shown_indicators >= self._kans + 1:
            raise WallError(f"no kan indicator to flip: {self._kans} kan(s), "
                            f"{self._shown_indicators} indicator(s) showing")
        self._shown_indicators += 1
        return self._take_of(slot)

    # --- internals -----------------------------------------------------------------------------
    def _deal_size(self) -> int:
        return self._hand_count + (1 if self.rules.dealing == "jump" else 0)

    def _release(self) -> None:
        after = self.rules.dead_wall_stacks_after_kan
        for pos in self.layout.dead_stacks[:self.rules.dead_wall_stacks - after]:
            self._dead_stacks.discard(pos)
        self._live.extend(self.layout.released_slots)
        self._is_released = True

    def _take_of(self, slot: WallSlot) -> Take:
        return Take(slot, self.tile_at(slot))


def replace_deal_flowers(state: WallState, hands: Sequence[Sequence[str]]) -> tuple[list[list[str]], list[list[str]]]:
    """Set aside the flowers of a dealt hand and replace them at once (S003:L57-61).

    The dealer first, then counter-clockwise; a replacement that is a flower is replaced again.
    ``hands`` are the dealt tiles by seat (the state must know its tiles). Returns the hands
    after replacement and the flowers each seat set aside. Raises WallError when the dead wall
    runs out or the tiles are unknown.
    """
    n = state.layout.n_seats
    out = [list(h) for h in hands]
    flowers: list[list[str]] = [[] for _ in range(n)]
    for i in range(n):
        seat = (state.layout.dealer + i) % n
        while any(T.is_flower(t) for t in out[seat]):
            flower = next(t for t in out[seat] if T.is_flower(t))
            out[seat].remove(flower)
            flowers[seat].append(flower)
            take = state.draw_replacement("flower")
            if take.tile is None:
                raise WallError("flower replacement needs the wall's tiles")
            out[seat].append(take.tile)
    return out, flowers


def layout_from_roll(lay: WallLayout, *, hands: Sequence[Sequence[str]], draws: Sequence[str] = (),
                     replacements: Sequence[str] = (), indicators: Sequence[str] = (),
                     ura_indicators: Sequence[str] = (), census: Mapping[str, int] | None = None,
                     rest: Sequence[str] | None = None) -> dict[WallSlot, str]:
    """Place known tiles into the wall slots of ``lay`` so that the hand plays out as recorded.

    ``hands[seat]``: the 13 tiles dealt to each seat (absolute seat index; the dealer's 14th
    is ``draws[0]``); ``draws``: every live draw of the hand in order; ``replacements``: the
    replacement tiles in order; ``indicators``: the dora indicator then the kan indicators;
    ``ura_indicators``: the tiles under them. Any dice roll works: the tiles are arranged to fit
    it. The other slots get ``rest`` (exactly the census minus the tiles above), or that
    remainder in census order. ``census`` defaults to the procedures' tile set and red set.

    Returns ``{slot: tile}`` for every slot. Raises WallError naming what does not fit (a hand
    not of 13, more draws than live tiles, a tile more often than the census allows).

    >>> from controller.rules.procedures import ProcedureRules
    >>> hands = [T.parse(h) for h in ("123456789m1234p", "1234567891234s", "1111222233334z", "5555666677774z")]
    >>> lay = plan(ProcedureRules(), 0, [(2, 3)])
    >>> tiles = layout_from_roll(lay, hands=hands, draws=["9p"], indicators=["5p"])
    >>> w = WallState(lay, tiles); [t.tile for t in w.deal()[0]][:4], w.draw().tile, w.indicators()
    (['1m', '2m', '3m', '4m'], '9p', ('5p',))
    """
    rules = lay.rules
    if census is None:
        census = tileset_census(rules.tile_set, rules.red_set or "none")
    if len(hands) != lay.n_seats:
        raise WallError(f"{len(hands)} hands given for {lay.n_seats} seats")
    placed: dict[WallSlot, str] = {}

    def put(kind: str, slots: Sequence[WallSlot], values: Sequence[str]) -> None:
        if len(values) > len(slots):
            raise WallError(f"{len(values)} {kind} given but the wall has only {len(slots)} such slots")
        for slot, tile in zip(slots, values, strict=False):
            T.check(tile)
            placed[slot] = tile

    for seat, hand in enumerate(hands):
        if len(hand) != HAND_SIZE:
            raise WallError(f"hand of seat {seat} has {len(hand)} tiles, expected {HAND_SIZE}")
        put(f"tiles for seat {seat}", lay.hand_slots[seat], hand)
    # each refilled replacement moved the last live tile away: those slots were never drawn
    live_capacity = len(lay.draw_slots) - (len(replacements) if rules.refill_after else 0)
    put("draws", lay.draw_slots[:max(live_capacity, 0)], draws)
    put("replacement tiles", lay.replacement_slots, replacements)
    put("indicators", lay.indicator_slots, indicators)
    put("ura indicators", lay.ura_slots, ura_indicators)

    left = dict(census)
    for tile in placed.values():
        if left.get(tile, 0) <= 0:
            raise WallError(f"tile {tile!r} appears more often than the set holds ({census.get(tile, 0)})")
        left[tile] -= 1
    remainder = [t for t, k in left.items() for _ in range(k)]
    if rest is not None:
        if sorted(rest, key=T.sort_key) != sorted(remainder, key=T.sort_key):
            raise WallError("'rest' must be exactly the set's tiles not placed by the hand")
        remainder = list(rest)
    free = [s for s in lay.all_slots if s not in placed]
    if len(free) != len(remainder):
        raise WallError(f"census has {sum(census.values())} tiles, the wall has {len(lay.all_slots)} slots")
    placed.update(zip(free, remainder, strict=True))
    return placed
