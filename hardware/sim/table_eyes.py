"""From what the camera sees to the tracker's events, for the simulated table.

- :func:`perfect_view` reads a ``hardware.sim.scene.TableState`` the way a reader that never
  errs would (a ``vision.reader.TableView`` with confidence 1): the level below the camera,
  used when the rendered camera path is off (no tile model in this build) and as the
  reference the rendered path is compared with.
- :class:`ViewTracker` turns successive ``TableView`` s (from the rendered camera read by
  ``vision.reader.TableReader``, or from :func:`perfect_view`) into ``controller.events``:
  wall stacks taken, indicators turned, discards, discards taken back, melds, revealed hands.
  It knows nothing of the script: only the views and the seat buttons it is told about
  (``on_button``: a declared win makes the next changed indicator an ura indicator and the
  declarer's revealed hand end with its winning tile).

Seats are table positions (the game's seat order at the simulated table); ``stack`` is 1-based
in the events (``controller.rules.walls``), the views and the scene's indicators alike.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from controller import events as ev
from controller.rules import tiles as T
from hardware.sim.scene import TableState
from vision.layout import source_from_position
from vision.reader import Indicator, SeenMeld, SeenTile, TableView

UNREAD = ("back", "none")


def _is_run(tiles: list[str]) -> bool:
    if len(tiles) != 3 or any(not T.is_tile(t) for t in tiles):
        return False
    plain = sorted(T.plain(t) for t in tiles)
    if plain[0][1] == "z" or len({t[1] for t in plain}) != 1:
        return False
    nums = [int(t[0]) for t in plain]
    return nums == list(range(nums[0], nums[0] + 3))


def perfect_view(state: TableState, *, now: float = 0.0) -> TableView:
    """What an error-free reader reads from ``state``."""
    walls = {w: tuple(c) for w, c in state.walls.items()}
    indicators = tuple(Indicator(w, s, SeenTile(t, 1.0)) for (w, s), t in sorted(state.indicators.items())
                       if 1 <= s <= len(state.walls.get(w, ())) and state.walls[w][s - 1] > 0)
    rivers = {seat: tuple(SeenTile(t, 1.0, side) for t, side in state.rivers.get(seat, [])) for seat in range(4)}
    melds = {}
    players = 3 if len(state.walls) == 3 else 4      # three walls: three-player riichi
    for seat, shapes in state.melds.items():
        out = []
        for m in shapes:
            tiles = tuple(SeenTile(t, 1.0, i == m.sideways) for i, t in enumerate(m.tiles))
            faces = [t for t in m.tiles if t != "back"]
            if m.sideways is None:
                kind, source = "ankan", None
            else:
                source = source_from_position(seat, m.sideways, len(m.tiles), players)
                if m.added:
                    kind = "kakan"
                elif len(m.tiles) == 4:
                    kind = "daiminkan"
                else:
                    kind = "chi" if _is_run(faces) else "pon"
            added = SeenTile(m.added, 1.0, True) if m.added else None
            out.append(SeenMeld(tiles, kind, m.sideways, added, source))
        melds[seat] = tuple(out)
    revealed = {seat: tuple(SeenTile(t, 1.0) for t in tiles) for seat, tiles in state.revealed.items() if tiles}
    other_backs = {w: tuple(state.other_backs.get((w, k), "") if n > 0 else "" for k, n in enumerate(c, start=1))
                   for w, c in state.walls.items()}
    win_tiles = {seat: revealed[seat][-1] for seat in state.win_apart if revealed.get(seat)}
    standing = {seat: n for seat, n in state.standing.items() if seat not in revealed}
    flowers = {seat: tuple(SeenTile(t, 1.0) for t in tiles) for seat, tiles in state.flowers.items() if tiles}
    return TableView(walls, indicators, rivers, melds, revealed, flowers, now, 0, other_backs=other_backs,
                     win_tiles=win_tiles, sticks=frozenset(state.sticks), standing=standing)


def misread(view: TableView, rng: random.Random, rate: float) -> TableView:
    """A camera that errs now and then: with probability ``rate`` one face-up tile of the frame is
    read as another tile, or lost ("none"). For the simulated camera's error knob."""
    if rate <= 0 or rng.random() >= rate:
        return view
    places = [("river", seat, i) for seat, r in view.rivers.items() for i in range(len(r))]
    places += [("reveal", seat, i) for seat, r in view.revealed.items() for i in range(len(r))]
    places += [("meld", seat, (k, i)) for seat, ms in view.melds.items() for k, m in enumerate(ms)
               for i, t in enumerate(m.tiles) if t.tile not in UNREAD]
    places += [("indicator", None, i) for i in range(len(view.indicators))]
    if not places:
        return view
    kind, seat, where = rng.choice(places)
    wrong = "none" if rng.random() < 0.5 else rng.choice(T.KINDS_34)

    def bad(t: SeenTile) -> SeenTile:
        return SeenTile(wrong if wrong == "none" or T.plain(wrong) != T.plain(t.tile) else "none", 0.5,
                        t.is_sideways)

    rivers, revealed, melds, indicators = dict(view.rivers), dict(view.revealed), dict(view.melds), view.indicators
    if kind == "river":
        r = list(rivers[seat])
        r[where] = bad(r[where])
        rivers[seat] = tuple(r)
    elif kind == "reveal":
        r = list(revealed[seat])
        r[where] = bad(r[where])
        revealed[seat] = tuple(r)
    elif kind == "meld":
        k, i = where
        ms = list(melds[seat])
        tiles = list(ms[k].tiles)
        tiles[i] = bad(tiles[i])
        ms[k] = SeenMeld(tuple(tiles), ms[k].kind, ms[k].sideways, ms[k].added, ms[k].source)
        melds[seat] = tuple(ms)
    else:
        ind = list(indicators)
        ind[where] = Indicator(ind[where].wall, ind[where].stack, bad(ind[where].tile))
        indicators = tuple(ind)
    return replace(view, indicators=indicators, rivers=rivers, melds=melds, revealed=revealed)


def names(view: TableView) -> tuple:
    """What a frame says, without the confidences: two frames agree when this is equal."""
    return (tuple(sorted(view.walls.items())),
            tuple((i.wall, i.stack, i.tile.tile) for i in view.indicators),
            tuple(sorted((s, tuple((t.tile, t.is_sideways) for t in r)) for s, r in view.rivers.items())),
            tuple(sorted((s, tuple((tuple(t.tile for t in m.tiles), m.sideways, m.added.tile if m.added else None)
                                   for m in ms)) for s, ms in view.melds.items())),
            tuple(sorted((s, tuple(t.tile for t in r)) for s, r in view.revealed.items())))


def look_until_agreed(read: Callable[[], TableView], looks: int) -> TableView:
    """Frames from ``read()`` until two in a row say the same and the last leaves nothing unread
    (a tile misread or lost in one frame is outvoted; one unread waits for another frame), at
    most ``looks`` frames: the last one read."""
    last = None
    view = read()
    for _ in range(looks - 1):
        key = names(view)
        if key == last and settled(view)[1]:
            break
        last = key
        view = read()
    return view


def _reveal_beside_melds(view: TableView) -> TableView:
    """A long revealed hand reaches into the meld strip, where the reader sees its right end as a
    "meld" of face-up tiles with none sideways: no meld looks like that (a closed kan shows backs),
    so those tiles go back to the end of the revealed hand they belong to."""
    revealed, melds = dict(view.revealed), dict(view.melds)
    changed = False
    for seat, hand in view.revealed.items():
        ms = list(view.melds.get(seat, ()))
        stray = [m for m in ms if m.sideways is None and m.added is None
                 and all(t.tile not in ("back",) for t in m.tiles)]
        if not stray:
            continue
        tiles = list(hand)
        for m in reversed(stray):        # melds are listed from the right end: the nearest one is last
            tiles += list(m.tiles)
        revealed[seat] = tuple(tiles)
        melds[seat] = tuple(m for m in ms if m not in stray)
        changed = True
    if not changed:
        return view
    return replace(view, melds=melds, revealed=revealed)


SURE = 0.7      # a face read at least this sure counts as read (a meld's other faces are mended from it)


def mend_meld(m: SeenMeld) -> SeenMeld:
    """A called meld whose sure faces (two or more) are all one kind is a pon or a kan of that kind
    (a chi never holds two of a kind): its unsure or unread faces are that kind too. A busy face
    seen at a slant may be read unsure, or as another tile; the sure ones outvote it."""
    if m.sideways is None or len(m.tiles) < 3:
        return m
    sure = [t for t in m.tiles if t.tile not in UNREAD and t.confidence >= SURE]
    kinds = {T.plain(t.tile) for t in sure}
    if len(sure) < 2 or len(kinds) != 1:
        return m
    kind = kinds.pop()
    if all(t in sure or t.tile == "back" for t in m.tiles) and m.kind in ("pon", "daiminkan", "kakan"):
        return m
    tiles = tuple(t if t in sure or t.tile == "back" else SeenTile(kind, SURE, t.is_sideways) for t in m.tiles)
    new_kind = m.kind if m.kind in ("daiminkan", "kakan") else ("pon" if len(tiles) == 3 else "daiminkan")
    return replace(m, tiles=tiles, kind=new_kind)


def settled(view: TableView) -> tuple[TableView, bool]:
    """The part of ``view`` that can be trusted, and whether that is all of it.

    "Melds" with no face read at all are standing tiles reaching into the meld strip (a real meld
    shows faces, a closed kan its two middle tiles): dropped. A tile the reader could not name
    ("none") is not seen yet: a river stops before it, a meld or revealed hand with one waits,
    so that the next frame reports it once it is read. A called pon or kan's unsure faces are
    mended from its sure ones (:func:`mend_meld`).
    """
    view = _reveal_beside_melds(view)
    if any(m.sideways is not None for ms in view.melds.values() for m in ms):
        view = replace(view, melds={seat: tuple(mend_meld(m) for m in ms) for seat, ms in view.melds.items()})
    whole = True
    rivers = {}
    for seat, river in view.rivers.items():
        k = next((i for i, t in enumerate(river) if t.tile in UNREAD), len(river))
        whole = whole and k == len(river)
        rivers[seat] = river[:k]
    melds = {}
    for seat, ms in view.melds.items():
        keep = []
        for m in ms:
            faces = [t for t in m.tiles if t.tile not in UNREAD]
            if not faces:
                continue
            if (m.sideways is not None and len(faces) != len(m.tiles)) or (m.added is not None
                                                                             and m.added.tile in UNREAD):
                whole = False
                break          # a meld not read yet, and those after it
            keep.append(m)
        melds[seat] = tuple(keep)
    revealed = {}
    for seat, tiles in view.revealed.items():
        if any(t.tile in UNREAD for t in tiles):
            whole = False
            continue
        revealed[seat] = tiles
    if whole and melds == view.melds and revealed == view.revealed:
        return view, True
    return replace(view, rivers=rivers, melds=melds, revealed=revealed), whole


def set_aside(prev: TableView, view: TableView, now: float) -> list[ev.Event]:
    """Tiles new in a seat's flower place: a flower or season set aside (``FlowerSetAside``), or in
    three-player a north (``Meld`` ``nuki``)."""
    out: list[ev.Event] = []
    for seat, tiles in sorted(view.flowers.items()):
        names = [t.tile for t in tiles]
        if any(t in UNREAD for t in names):
            continue
        for tile in names[len(prev.flowers.get(seat, ())):]:
            if T.plain(tile) == "4z":
                out.append(ev.Meld(seat=seat, meld_kind="nuki", tiles=(tile,), now=now))
            elif T.is_flower(tile):
                out.append(ev.FlowerSetAside(seat=seat, tile=tile, now=now))
    return out


def hand_counts(prev: TableView, view: TableView, now: float) -> list[ev.Event]:
    """A seat's count of standing tiles that changed to one its melds do not allow (13 or 14 with
    them, a meld counted as 3): reported for the tracker to judge (``controller.integrity``)."""
    out: list[ev.Event] = []
    for seat, n in sorted(view.standing.items()):
        if n == prev.standing.get(seat) or n + 3 * len(view.melds.get(seat, ())) in (13, 14):
            continue
        out.append(ev.HandCount(seat=seat, count=n, now=now))
    return out


def _meld_tiles(m: SeenMeld) -> list[str]:
    return [t.tile for t in m.tiles]


class ViewTracker:
    """Successive views -> events. ``update(view, now)`` returns the events for what changed."""

    def __init__(self) -> None:
        self.prev: TableView | None = None
        self.declared: set[int] = set()
        self.hands = 0
        self.is_settled = True     # the last view was read whole (nothing left for a later frame)
        # per seat, every discard seen in order: True once a call took it out of the river. The
        # game counts a seat's discards with the called ones, the camera sees only those still there.
        self.called: dict[int, list[bool]] = {}
        self.backs_seen: set[tuple[int, int]] = set()   # wall slots of the other set's back reported this hand
        self.shown: dict[tuple[int, int], str] = {}     # indicator slot -> the tile last reported this hand
        # revealed hands: per seat, per position, each reading's summed confidence over the looks
        # so far, and the reading last reported (a hand lies revealed until the result is confirmed:
        # every look at it votes, and a reading the votes overturn is reported again)
        self.reveal_votes: dict[int, list[dict[str, float]]] = {}
        self.reported: dict[int, tuple[str, ...]] = {}

    def on_button(self, seat: int, action: str) -> None:
        if action in ("tsumo", "ron"):
            self.declared.add(seat)

    def update(self, view: TableView, now: float = 0.0) -> list[ev.Event]:
        view, self.is_settled = settled(view)
        if not self.is_settled and self.prev is not None:
            # a meld still unread may be what took a river's last tile: that river waits with it
            rivers = dict(view.rivers)
            for seat, river in view.rivers.items():
                if len(river) < len(self.prev.rivers.get(seat, ())):
                    rivers[seat] = self.prev.rivers[seat]
            view = replace(view, rivers=rivers)
        prev, self.prev = self.prev, view
        if prev is None or self._is_new_hand(prev, view):
            self.declared = set()
            self.called = {}
            self.backs_seen = set()
            self.shown = {}
            self.reveal_votes = {}
            self.reported = {}
            self.hands += 1 if view.walls and any(sum(c) for c in view.walls.values()) else 0
            return self._backs(view, now)
        out: list[ev.Event] = self._backs(view, now)
        out += self._walls(prev, view, now)
        out += self._indicators(prev, view, now)
        new_melds = self._new_melds(prev, view, now)
        out += self._rivers(prev, view, new_melds, self.called, now)
        out += [e for _seat, e in new_melds]
        out += self._reveals(prev, view, now)
        out += set_aside(prev, view, now)
        out += hand_counts(prev, view, now)
        return out

    def _backs(self, view: TableView, now: float) -> list[ev.Event]:
        """A wall tile showing another back colour than the set's (once per slot and hand)."""
        out: list[ev.Event] = []
        for w, colours in sorted(view.other_backs.items()):
            for stack, colour in enumerate(colours, start=1):
                if colour and (w, stack) not in self.backs_seen:
                    self.backs_seen.add((w, stack))
                    out.append(ev.WallBack(wall=w, stack=stack, colour=colour, now=now))
        return out

    @staticmethod
    def _is_new_hand(prev: TableView, view: TableView) -> bool:
        for w, counts in view.walls.items():
            old = prev.walls.get(w, ())
            if any(n > (old[i] if i < len(old) else 0) for i, n in enumerate(counts)):
                return True
        return False

    @staticmethod
    def _walls(prev: TableView, view: TableView, now: float) -> list[ev.Event]:
        out: list[ev.Event] = []
        for w, counts in sorted(view.walls.items()):
            old = prev.walls.get(w, ())
            for i, n in enumerate(counts):
                before = old[i] if i < len(old) else 0
                for left in range(before - 1, n - 1, -1):
                    out.append(ev.WallStackTaken(wall=w, stack=i + 1, tiles_left=left, now=now))
        return out

    def _indicators(self, prev: TableView, view: TableView, now: float) -> list[ev.Event]:
        # an indicator lost in a frame or two (a hand over it, a doubtful read) is not turned again
        # when it shows once more: only a tile other than the one reported at that slot is news
        out: list[ev.Event] = []
        for ind in view.indicators:
            tile = ind.tile.tile
            if tile in UNREAD:
                continue
            was = self.shown.get((ind.wall, ind.stack))
            if was == tile:
                continue
            self.shown[(ind.wall, ind.stack)] = tile
            is_ura = was is not None and bool(self.declared)
            out.append(ev.IndicatorRevealed(wall=ind.wall, stack=ind.stack, tile=tile, is_ura=is_ura, now=now))
        return out

    def _new_melds(self, prev: TableView, view: TableView, now: float) -> list[tuple[int, ev.Event]]:
        out: list[tuple[int, ev.Event]] = []
        for seat, melds in sorted(view.melds.items()):
            old = prev.melds.get(seat, ())
            for k, m in enumerate(melds):
                if k < len(old):
                    if m.added is not None and old[k].added is None:     # an added kan
                        tiles = tuple(_meld_tiles(old[k])) + (m.added.tile,)
                        out.append((seat, ev.Meld(seat=seat, meld_kind="kakan", tiles=tiles, called=m.added.tile,
                                                  source=old[k].source, now=now)))
                    continue
                tiles = _meld_tiles(m)
                if m.kind == "ankan" or m.sideways is None:
                    faces = [t for t in tiles if t not in UNREAD]
                    if not faces:
                        continue
                    kind_tile = T.plain(faces[0])
                    full = faces + [kind_tile] * (4 - len(faces))
                    out.append((seat, ev.Meld(seat=seat, meld_kind="ankan", tiles=tuple(full), now=now)))
                    continue
                called = tiles[m.sideways]
                kind = m.kind if m.kind in ("chi", "pon", "daiminkan") else ("daiminkan" if len(tiles) == 4 else
                                                                             "chi" if _is_run(tiles) else "pon")
                out.append((seat, ev.Meld(seat=seat, meld_kind=kind, tiles=tuple(tiles), called=called,
                                          source=m.source, now=now)))
        return out

    @staticmethod
    def _rivers(prev: TableView, view: TableView, new_melds: list[tuple[int, ev.Event]],
                called: dict[int, list[bool]], now: float) -> list[ev.Event]:
        called_from = {e.source: e.called for _s, e in new_melds
                       if isinstance(e, ev.Meld) and e.meld_kind in ("chi", "pon", "daiminkan")}
        out: list[ev.Event] = []
        for seat in sorted(set(view.rivers) | set(prev.rivers)):
            old = [t.tile for t in prev.rivers.get(seat, ())]
            cur = list(view.rivers.get(seat, ()))
            names = [t.tile for t in cur]
            made = called.setdefault(seat, [])
            if len(names) < len(old):
                # a tile gone: a call takes the last one; anything else was taken back. Which one
                # went is where the rest lines up best (an earlier tile read differently now is
                # the same tile: readings of a tile already reported are not news).
                i = max(range(len(old)), key=lambda k: (sum(T.plain(a) == T.plain(b) for a, b in
                                                            zip(old[:k] + old[k + 1:], names, strict=False)), k))
                gone = old[i]
                there = [k for k, c in enumerate(made) if not c]
                index = there[i] if i < len(there) else i
                if seat in called_from and i == len(old) - 1:
                    if index < len(made):
                        made[index] = True
                    continue
                if index < len(made):
                    made.pop(index)
                out.append(ev.DiscardRemoved(seat=seat, index=index, tile=gone, now=now))
                continue
            for t in cur[len(old):]:
                made.append(False)
                out.append(ev.Discard(seat=seat, tile=t.tile, is_riichi=t.is_sideways, now=now))
        return out

    def _reveals(self, prev: TableView, view: TableView, now: float) -> list[ev.Event]:
        """A hand laid down: reported once read whole; each later look at it votes (weighted by the
        reader's confidence), and when the votes name another reading of the same length it is
        reported again (a tile misread alike in a few frames is outvoted by the looks after)."""
        out: list[ev.Event] = []
        for seat, tiles in sorted(view.revealed.items()):
            names = tuple(t.tile for t in tiles)
            known = self.reported.get(seat)
            if known is not None and len(names) != len(known):
                continue          # another shape (a frame cut short): not this hand's reading
            votes = self.reveal_votes.setdefault(seat, [{} for _ in names])
            for box, t in zip(votes, tiles, strict=True):
                box[t.tile] = box.get(t.tile, 0.0) + max(float(t.confidence), 0.01)
            fused = tuple(max(box, key=box.__getitem__) for box in votes)
            if fused == known:
                continue
            self.reported[seat] = fused
            win = fused[-1] if seat in self.declared and fused else None
            out.append(ev.HandRevealed(seat=seat, tiles=fused, win_tile=win, now=now))
        return out
