"""Frames -> events: votes over the last ``k`` table views and reports what changed for good.

A single frame may misread a tile, lose one under a passing hand, or be missing; the tracker
commits a change only when at least ``need`` of the last ``k`` views agree (default 3 of 5),
so a 2 % per-frame misread or loss does not reach the game. It emits the events of
``controller.events``:

- ``Discard`` for each new river tile, in order (``is_riichi`` from the sideways tile;
  ``is_tsumogiri`` stays False: a camera above the table cannot tell it), and for a tile a meld
  took from a river before enough views could read it there (called at once, under an arm);
- ``DiscardRemoved`` when a committed river tile vanishes without a meld taking it, or is
  re-read as another tile (``replaced_by``);
- ``IndicatorRevealed`` for a face-up tile on a wall slot, again when it changes, with ``is_ura``
  once a hand has been revealed (the dora indicator lifted aside and the tile under it turned; a
  change seen while a hand lies face up but is not yet read waits for that hand);
- ``WallStackTaken`` for each tile a wall slot loses; ``WallBack`` for a slot whose back is not
  the colour of the rest of the walls (a tile of the table's other set);
- ``Meld`` for each new meld (and for a pon that becomes an added kan);
- ``RiichiStick`` when a seat's riichi stick is put out (once a hand);
- ``HandRevealed`` when a seat lays its hand face up, with ``win_tile`` when the last tile lies
  set apart from the row (a winner's winning tile), and again if most views later read one of
  its tiles otherwise (the game then replaces the reading); ``FlowerSetAside`` for each flower,
  and at a three-player table a ``Meld`` ``nuki`` for each north set aside;
- ``HandCount`` for a seat whose standing tiles, counted from above (``TableView.standing``),
  are one short of its melds (12 with them, a meld counted as 3; 13 belong between turns, 14
  on turn) in ``hold`` views in a row where nothing covered them: once, until the count
  changes (the game judges it, ``controller.integrity.check_hand_count``: 相公).

Seats: views are in table positions; events are in game seats, counted counter-clockwise from
``first_dealer_position`` (the position where the first dealer sits). Walls are raised anew for
each hand: when the walls fill up again the tracker starts a new hand by itself (or call
:meth:`new_hand`).
"""

from __future__ import annotations

import logging
from collections import Counter, deque
from dataclasses import dataclass, field

from controller.events import (
    Discard,
    DiscardRemoved,
    Event,
    FlowerSetAside,
    HandCount,
    HandRevealed,
    IndicatorRevealed,
    Meld,
    RiichiStick,
    WallBack,
    WallStackTaken,
)
from controller.rules.tiles import plain
from vision.reader import SeenMeld, SeenTile, TableView

log = logging.getLogger(__name__)

_UNSURE = ("none",)


@dataclass
class _Committed:
    rivers: dict[int, list[tuple[str, bool]]] = field(default_factory=dict)
    walls: dict[int, list[int]] = field(default_factory=dict)
    indicators: dict[tuple[int, int], str] = field(default_factory=dict)
    melds: dict[int, list[tuple]] = field(default_factory=dict)
    revealed: dict[int, tuple[str, ...]] = field(default_factory=dict)
    flowers: dict[int, list[str]] = field(default_factory=dict)
    other_backs: set[tuple[int, int]] = field(default_factory=set)
    sticks: set[int] = field(default_factory=set)


def _meld_key(m: SeenMeld) -> tuple:
    return (m.kind, tuple(t.tile for t in m.tiles), m.sideways, m.added.tile if m.added else None, m.source)


class TableTracker:
    """Votes over the last ``k`` views; :meth:`update` returns the events that became certain."""

    def __init__(self, *, k: int = 5, need: int | None = None, positions: int = 4,
                 first_dealer_position: int = 0, min_confidence: float = 0.3, hold: int | None = None) -> None:
        if k < 1:
            raise ValueError(f"tracker: k is {k}, must be at least 1")
        self.k = int(k)
        self.need = int(need) if need is not None else self.k // 2 + 1
        if not 1 <= self.need <= self.k:
            raise ValueError(f"tracker: need is {self.need}, must be within 1..k={self.k}")
        self.positions = positions
        self.first_dealer_position = first_dealer_position
        self.min_confidence = min_confidence
        self._views: deque[TableView] = deque(maxlen=self.k)
        # views a river's last tile must stay gone, without a meld taking it, before it counts as
        # taken back (a call's meld may be read a few frames after the tile left the river)
        self.hold = int(hold) if hold is not None else 2 * self.k
        self.new_hand()

    # ---- seats
    def seat(self, position: int) -> int:
        """The game seat sitting at table ``position``."""
        return (position - self.first_dealer_position) % self.positions

    def position(self, seat: int) -> int:
        """The table position where game ``seat`` sits (for ``Layout.wall_slot(position, stack)``)."""
        return (seat + self.first_dealer_position) % self.positions

    def new_hand(self) -> None:
        """Forget the committed table (the walls are raised anew): no events for what is already there."""
        self._c = _Committed()
        self._views.clear()
        self._shrunk_for: dict[int, int] = {}      # position -> views its river has looked one short
        self._called: dict[int, list[str]] = {}     # position -> tiles melds took from its river
        self._gone: dict[int, list[int]] = {}       # position -> discard-order places called away
        self._back_streak: dict[tuple[int, int], int] = {}   # (wall, stack) -> views in a row with another back
        self._odd_reveal: dict[int, tuple[tuple, int]] = {}   # position -> (odd-sized hand, views it lay)
        self._count_streak: dict[int, tuple[int, int]] = {}   # position -> (standing count, views in a row)
        self._count_told: dict[int, int] = {}       # position -> the unfit count last reported
        self._stable: dict[int, list[tuple[str, bool]]] = {}    # position -> its river as this update voted it
        self._withheld: dict[int, int] = {}          # position -> new discards held back in earlier updates
        self._ura_wait: dict[tuple[int, int], int] = {}   # (wall, stack) -> views a changed indicator waited for a hand

    def resume(self, *, rivers: dict[int, list[tuple[str, bool]]] | None = None,
               melds: dict[int, list[str]] | None = None, revealed: dict[int, tuple[str, ...]] | None = None,
               sticks: set[int] | frozenset[int] = frozenset(), called: dict[int, list[int]] | None = None) -> None:
        """Start from a table the game already knows (the daemon started again mid-hand), by game
        seat: ``rivers`` the tiles still lying in each river with their sideways flag, ``melds``
        the kinds of each seat's melds in order, ``revealed`` the hands lying face up, ``sticks``
        the seats whose riichi stick is out, ``called`` the discard-order places of each river's
        tiles called away. What is seen of these is then not reported again;
        the walls are taken as first seen (as at any start), so only later changes count."""
        self.new_hand()
        for seat, tiles in (rivers or {}).items():
            self._c.rivers[self.position(seat)] = [(str(t), bool(side)) for t, side in tiles]
        for seat, kinds in (melds or {}).items():
            # the kind is what a later kan on a pon needs; the other fields are never matched again
            self._c.melds[self.position(seat)] = [(str(k), (), None, None, None) for k in kinds]
        for seat, tiles in (revealed or {}).items():
            self._c.revealed[self.position(seat)] = tuple(tiles)
        self._c.sticks = {self.position(seat) for seat in sticks}
        for seat, places in (called or {}).items():
            self._gone[self.position(seat)] = sorted(int(k) for k in places)

    # ---- voting helpers
    def _tile(self, t: SeenTile) -> str:
        return t.tile if t.confidence >= self.min_confidence else "none"

    def _majority(self, values: list) -> object | None:
        if not values:
            return None
        value, count = Counter(values).most_common(1)[0]
        return value if count >= self.need else None

    def _stable_river(self, position: int) -> list[tuple[str, bool]]:
        rows = [tuple((self._tile(t), t.is_sideways) for t in v.rivers.get(position, ())) for v in self._views]
        out: list[tuple[str, bool]] = []
        for i in range(max((len(r) for r in rows), default=0)):
            if sum(1 for r in rows if len(r) > i) < self.need:
                break
            best = self._majority([r[i] for r in rows if len(r) > i and r[i][0] not in _UNSURE])
            if best is None:
                break
            out.append(best)
        return out

    # ---- main entry
    def update(self, view: TableView | None, now: float) -> list[Event]:
        """Add one view (None: no frame this time, the camera is lost) and return the new events."""
        if view is None:
            return []
        self._views.append(view)
        if len(self._views) < self.need:
            return []
        events: list[Event] = []
        self._walls(events, now)
        self._other_backs(events, now)
        new_melds = self._melds(events, now)
        self._rivers(events, now, new_melds)
        self._new_discards(events, now)
        self._sticks(events, now)
        self._revealed(events, now)
        self._indicators(events, now)     # after the melds (a kan's indicator) and the reveals (ura)
        self._flowers(events, now)
        self._standing(events, now)       # after the melds and reveals: they change what fits
        return events

    def _walls(self, events: list[Event], now: float) -> None:
        walls = set().union(*(v.walls.keys() for v in self._views))
        stable: dict[int, list[int]] = {}
        for w in walls:
            rows = [v.walls[w] for v in self._views if w in v.walls]
            n = max(len(r) for r in rows)
            stable[w] = []
            for i in range(n):
                best = self._majority([r[i] for r in rows if len(r) > i])
                stable[w].append(-1 if best is None else int(best))
        total_now = sum(max(c, 0) for r in stable.values() for c in r)
        total_was = sum(c for r in self._c.walls.values() for c in r)
        if self._c.walls and total_now > total_was + 8:   # the walls were raised again: a new hand
            views = list(self._views)
            self.new_hand()
            self._views.extend(views)
        for w, counts in stable.items():
            was = self._c.walls.setdefault(w, [])
            if not was:
                was.extend(max(c, 0) for c in counts)
                continue
            for i, c in enumerate(counts):
                if c < 0 or i >= len(was):
                    continue
                while was[i] > c:
                    was[i] -= 1
                    events.append(WallStackTaken(wall=self.seat(w), stack=i + 1, tiles_left=was[i], now=now))
                # more tiles than before: a hand or an arm over the slot (tiles do not come back
                # within a hand; new walls are a new hand, above), so nothing to report

    def _other_backs(self, events: list[Event], now: float) -> None:
        newest = {(w, i) for w, row in self._views[-1].other_backs.items() for i, c in enumerate(row, 1) if c}
        self._back_streak = {slot: self._back_streak.get(slot, 0) + 1 for slot in newest}
        # the other set's tile stands in the wall all hand; an arm reaching over the wall lies on a
        # slot for a few frames at a time, more of them when the camera runs slow (seen in default
        # runs: "the other set's back (orange)" on the middle stack of a wall during the deal,
        # holding the result): ``hold`` views in a row must all see it
        slots = {slot for slot, views in self._back_streak.items() if views >= self.hold}
        for w, stack in sorted(slots - self._c.other_backs):
            votes = [v.other_backs[w][stack - 1] for v in self._views
                     if w in v.other_backs and len(v.other_backs[w]) >= stack]
            best = self._majority(votes)
            if best:
                self._c.other_backs.add((w, stack))
                events.append(WallBack(wall=self.seat(w), stack=stack, colour=str(best), now=now))

    def _indicators(self, events: list[Event], now: float) -> None:
        slots = {(i.wall, i.stack) for v in self._views for i in v.indicators}
        for slot in sorted(slots):
            votes = []
            for v in self._views:
                seen = [self._tile(i.tile) for i in v.indicators if (i.wall, i.stack) == slot]
                votes.append(seen[0] if seen else None)
            best = self._majority([t for t in votes if t not in (None, "none")])
            was = self._c.indicators.get(slot)
            if best is None or was == best:
                self._ura_wait.pop(slot, None)
                continue
            # a tile turned after a hand was revealed is an ura indicator (the dora indicator lifted
            # aside, the tile under it turned); a change during play is reported too (the game
            # alerts on an indicator that changes after it was read)
            is_ura = bool(self._c.revealed)
            if was is not None and not is_ura and sum(1 for v in self._views if v.revealed) >= self.need:
                # a hand lies face up (in most views) but its reading has not settled yet (a doubtful
                # tile): the winner's ura turned meanwhile waits for it, or it would go to the game as
                # a moved dora indicator after the win (ignored there, the result waiting for its ura
                # for ever); a hand that never settles lets it through as the ura after ``3 * hold`` views
                waited = self._ura_wait[slot] = self._ura_wait.get(slot, 0) + 1
                if waited < 3 * self.hold:
                    continue
                is_ura = True
            self._ura_wait.pop(slot, None)
            self._c.indicators[slot] = str(best)
            events.append(IndicatorRevealed(wall=self.seat(slot[0]), stack=slot[1], tile=str(best),
                                            is_ura=is_ura, now=now))

    def _melds(self, events: list[Event], now: float) -> dict[int, list[str]]:
        """New melds per position; returns the called tiles taken per source position."""
        called_from: dict[int, list[str]] = {}
        positions = set().union(*(v.melds.keys() for v in self._views))
        for p in positions:
            rows = [tuple(_meld_key(m) for m in v.melds.get(p, ())) for v in self._views]
            committed = self._c.melds.setdefault(p, [])
            for j in range(max((len(r) for r in rows), default=0)):
                best = self._majority([r[j] for r in rows if len(r) > j])
                if best is None:
                    break
                if any(t in _UNSURE for t in best[1]) or best[0] == "":
                    break
                if j < len(committed):
                    if committed[j] == best:
                        continue
                    if committed[j][0] == "pon" and best[0] == "kakan":
                        committed[j] = best
                        events.append(self._meld_event(p, best, now))
                    continue
                committed.append(best)
                events.append(self._meld_event(p, best, now))
                if best[4] is not None and best[0] != "kakan":
                    called_from.setdefault(best[4], []).append(best[1][best[2]])
        return called_from

    def _meld_event(self, p: int, key: tuple, now: float) -> Meld:
        kind, tiles, sideways, added, source = key
        faces = [t for t in tiles if t != "back"]
        if kind == "ankan":
            shown = tuple(faces) + tuple(plain(faces[0]) for _ in range(4 - len(faces))) if faces else ()
            return Meld(seat=self.seat(p), meld_kind="ankan", tiles=shown, now=now)
        called = tiles[sideways] if sideways is not None else None
        all_tiles = tuple(tiles) + ((added,) if added else ())
        if kind == "kakan":
            called = added
        return Meld(seat=self.seat(p), meld_kind=kind, tiles=all_tiles, called=called,
                    source=self.seat(source) if source is not None else None, now=now)

    def _rivers(self, events: list[Event], now: float, called_from: dict[int, list[str]]) -> None:
        for p, taken in called_from.items():
            self._called.setdefault(p, []).extend(taken)
        for p in range(self.positions):
            stable = self._stable_river(p)
            self._stable[p] = stable
            committed = self._c.rivers.setdefault(p, [])
            if len(stable) >= len(committed):
                self._unseen_calls(p, called_from.get(p, ()), events, now)
            common = min(len(stable), len(committed))
            for i in range(common):
                if stable[i][0] != committed[i][0]:
                    events.append(DiscardRemoved(seat=self.seat(p), index=self._place(p, i), tile=committed[i][0],
                                                 replaced_by=stable[i][0], now=now))
                    committed[i] = stable[i]
            if len(stable) < len(committed) and self._river_shrunk(p):
                # the river's last tile gone: a call takes it (the meld said so, in this view or
                # an earlier one), or, once ``hold`` views agree that it is gone and no meld has
                # taken it, it was taken back. The meld may be read some frames after the tile
                # left (the caller's arm over it, the tiles still moving)
                gone = committed[len(stable):]
                calls = self._called.get(p, [])
                if len(gone) == 1 and any(plain(t) == plain(gone[0][0]) for t in calls):
                    calls.remove(next(t for t in calls if plain(t) == plain(gone[0][0])))
                    self._gone.setdefault(p, []).append(self._place(p, len(committed) - 1))
                    committed.pop()
                    self._shrunk_for.pop(p, None)
                    continue
                held = self._shrunk_for.get(p, 0) + 1
                self._shrunk_for[p] = held
                if len(gone) == 1 and held < self.hold:
                    continue
                for i in range(len(committed) - 1, len(stable) - 1, -1):
                    events.append(DiscardRemoved(seat=self.seat(p), index=self._place(p, i), tile=committed[i][0],
                                                 now=now))
                del committed[len(stable):]
                self._shrunk_for.pop(p, None)
            else:
                self._shrunk_for.pop(p, None)

    def _unseen_calls(self, p: int, taken: list[str] | tuple, events: list[Event], now: float) -> None:
        """Tiles this update's melds took from position ``p``'s river while no tile of it waits to
        leave (every committed tile still lies there): the discard was called before ``need`` views
        could read it (a daiminkan or pon at once, the caller's arm over the tile while it lay). The
        meld proves it was laid: it is reported (before its meld) and counted as called away."""
        calls = self._called.get(p, [])
        for tile in taken:
            if tile not in calls:
                continue
            calls.remove(tile)
            lying = len(self._c.rivers.get(p, ()))
            sides = [v.rivers[p][lying].is_sideways for v in self._views if len(v.rivers.get(p, ())) > lying]
            place = self._place(p, lying)
            self._gone.setdefault(p, []).append(place)
            meld = next((k for k, e in enumerate(events) if isinstance(e, Meld) and e.called == tile
                         and e.source == self.seat(p) and e.meld_kind != "kakan"), len(events))
            log.info("tracker: seat %d's %s (place %d) was called before it could be read in the river",
                     self.seat(p), tile, place)
            events.insert(meld, Discard(seat=self.seat(p), tile=tile, is_riichi=2 * sum(sides) > len(sides) > 0,
                                        now=now))

    def _new_discards(self, events: list[Event], now: float) -> None:
        """The new river tiles, as ``Discard`` s. While a discard that left its river has no meld
        yet (``_shrunk_for``: the caller's meld may be read frames after the tile left, under the
        caller's arm), the discards that followed it wait: the caller's own discard must reach the
        game after the call. The wait ends with the meld, with the tile counted as taken back
        (``hold`` views), with the tile's place filled again, or with the next tile taken from the
        wall (the game went on). The tiles held in earlier updates were laid before anything this
        update saw: they are reported before its first wall take (and before a place read as
        another tile: a seat's tile taken back, then its own discard laid in that place), unless
        the update read a meld (the call they waited for: they follow it)."""
        waiting = bool(self._shrunk_for)
        took = next((k for k, e in enumerate(events) if isinstance(e, WallStackTaken)), None)
        first = next((k for k, e in enumerate(events)
                      if isinstance(e, WallStackTaken) or (isinstance(e, DiscardRemoved) and e.replaced_by)), None)
        if any(isinstance(e, Meld) for e in events):
            first = took if waiting else None    # the meld this update read comes first: the held tiles after it
        before: list[Event] = []
        for p in range(self.positions):
            stable = self._stable.get(p, [])
            committed = self._c.rivers.setdefault(p, [])
            if len(stable) <= len(committed):
                self._withheld.pop(p, None)
                continue
            if waiting and took is None:
                self._withheld[p] = len(stable) - len(committed)
                continue
            held = self._withheld.pop(p, 0)
            start = len(committed)
            for i in range(start, len(stable)):
                tile, is_side = stable[i]
                committed.append(stable[i])
                event = Discard(seat=self.seat(p), tile=tile, is_riichi=bool(is_side), now=now)
                (before if first is not None and i - start < held else events).append(event)
        if before:
            assert first is not None
            events[first:first] = before

    def _place(self, p: int, i: int) -> int:
        """The discard-order place (``DiscardRemoved.index``: tiles called away keep their place) of
        the ``i``-th tile still lying in position ``p``'s river."""
        place = i
        for g in sorted(self._gone.get(p, ())):
            if g <= place:
                place += 1
        return place

    def _sticks(self, events: list[Event], now: float) -> None:
        for p in sorted(set().union(*(v.sticks for v in self._views)) - self._c.sticks):
            if sum(1 for v in self._views if p in v.sticks) >= self.need:
                self._c.sticks.add(p)
                events.append(RiichiStick(seat=self.seat(p), now=now))

    def _river_shrunk(self, p: int) -> bool:
        """The river is shorter in ``need`` views where nothing covered it (not merely hidden by a hand)."""
        n = len(self._c.rivers.get(p, ()))
        return sum(1 for v in self._views if len(v.rivers.get(p, ())) < n and p not in v.occluded) >= self.need

    def _revealed(self, events: list[Event], now: float) -> None:
        positions = set().union(*(v.revealed.keys() for v in self._views))
        for p in positions:
            rows = []
            for v in self._views:
                tiles = tuple(self._tile(t) for t in v.revealed.get(p, ()))
                win = v.win_tiles.get(p)
                rows.append((tiles, self._tile(win) if win is not None else None))
            voted = self._majority([r for r in rows if r[0]])
            if voted is None:
                continue
            best, win_tile = voted
            if any(t in _UNSURE for t in best) or win_tile in _UNSURE:
                continue
            known = self._c.revealed.get(p)
            if known is not None:
                # the hand lies on the table until the result is confirmed: if most views now read
                # a tile of it otherwise, the hand is reported again (the game replaces the reading)
                if len(best) == len(known) and best != known:
                    self._c.revealed[p] = best
                    events.append(HandRevealed(seat=self.seat(p), tiles=tuple(best), win_tile=win_tile, now=now))
                continue
            # a whole hand: 13 or 14 tiles less three per meld (a hand laid down halfway, or half
            # hidden by an arm, waits)
            melds = len(self._c.melds.get(p, ()))
            if len(best) not in (13 - 3 * melds, 14 - 3 * melds):
                # a hand of another size is reported once it has lain unchanged for ``hold`` views
                # (a hand still being laid down grows; one a tile short or over stays so)
                seen, n = self._odd_reveal.get(p, ((), 0))
                n = n + 1 if seen == best else 1
                self._odd_reveal[p] = (best, n)
                if n < self.hold:
                    continue
            self._odd_reveal.pop(p, None)
            self._c.revealed[p] = best
            events.append(HandRevealed(seat=self.seat(p), tiles=tuple(best), win_tile=win_tile, now=now))

    def _flowers(self, events: list[Event], now: float) -> None:
        positions = set().union(*(v.flowers.keys() for v in self._views))
        for p in positions:
            rows = [tuple(self._tile(t) for t in v.flowers.get(p, ())) for v in self._views]
            committed = self._c.flowers.setdefault(p, [])
            for i in range(max((len(r) for r in rows), default=0)):
                best = self._majority([r[i] for r in rows if len(r) > i and r[i] not in _UNSURE])
                if best is None:
                    break
                if i >= len(committed) and str(best).endswith("f"):
                    committed.append(str(best))
                    events.append(FlowerSetAside(seat=self.seat(p), tile=str(best), now=now))
                elif i >= len(committed) and self.positions == 3 and plain(str(best)) == "4z":
                    # three-player riichi: a north set aside (nuki), a meld of one tile
                    committed.append(str(best))
                    events.append(Meld(seat=self.seat(p), meld_kind="nuki", tiles=(str(best),), now=now))


    def _standing(self, events: list[Event], now: float) -> None:
        """The standing count of each seat that has not laid its hand down: one a tile short of its
        melds that stays the same for ``hold`` views in a row (a tile being drawn, a meld being
        laid out, a hand sorted pass) is reported; a view where the hand was covered or not
        counted leaves the streak as it was."""
        view = self._views[-1]
        for p in range(self.positions):
            if p in self._c.revealed:
                self._count_streak.pop(p, None)
                continue
            n = view.standing.get(p)
            if n is None or p in view.occluded:
                continue
            last, streak = self._count_streak.get(p, (-1, 0))
            streak = streak + 1 if last == n else 1
            self._count_streak[p] = (n, streak)
            melds = len(self._c.melds.get(p, ()))
            if n + 3 * melds != 12:
                # 13 or 14 fit (between turns, on turn); far fewer is a count gone wrong (a stick or
                # an arm along the hand), not a hand: a tile fallen leaves 12
                self._count_told.pop(p, None)
            elif streak >= self.hold and self._count_told.get(p) != n:
                self._count_told[p] = n
                events.append(HandCount(seat=self.seat(p), count=n, now=now))


# --------------------------------------------------------------------------- the loop's view of it all


@dataclass(frozen=True)
class WatchStatus:
    """Plain data for the panel: the camera's state (``ok`` / ``camera lost`` / ...), whether the
    table is calibrated, the last problem (one line), frames read."""

    camera: str
    is_calibrated: bool
    error: str = ""
    frames_read: int = 0


class TableWatcher:
    """Camera -> reader -> tracker, one :meth:`poll` per loop tick; never raises for a bad frame.

    ``reader_factory(calibration)`` builds the reader (``TableReader(profile, cal, classifier)``).
    Without a ``calibration`` the watcher calibrates from the first frame whose four markers
    are all visible (the simulated table; a real table ships a calibration file). A lost
    camera, a frame that cannot be read or calibrated: no events, and ``status()`` says why.
    """

    def __init__(self, camera, tracker: TableTracker, reader_factory, *, profile=None, calibration=None) -> None:
        self.camera = camera
        self.tracker = tracker
        self.reader_factory = reader_factory
        self.profile = profile
        self.calibration = calibration
        self.reader = reader_factory(calibration) if calibration is not None else None
        self._error = ""
        self._frames = 0
        self.last_view: TableView | None = None

    def poll(self, now: float) -> list[Event]:
        from vision.calibration import calibrate
        from vision.layout import VisionError

        frame = self.camera.read(now)
        if frame is None:
            self._error = self.camera.status().error or self.camera.status().state
            return []
        try:
            if self.reader is None:
                if self.profile is None:
                    raise VisionError("watcher: no calibration and no table profile to calibrate with")
                self.calibration = calibrate(frame, self.profile)
                self.reader = self.reader_factory(self.calibration)
            view = self.reader.read(frame, now=now)
        except VisionError as err:
            if str(err) != self._error:
                log.warning("table watcher: %s", err)
            self._error = str(err)
            return []
        self._error = ""
        self._frames += 1
        self.last_view = view
        return self.tracker.update(view, now)

    def status(self) -> WatchStatus:
        return WatchStatus(self.camera.status().state, self.reader is not None, self._error, self._frames)
