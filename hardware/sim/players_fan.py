"""Seeded simulated players for the fan families (``hk``, ``chinese``, ``competition``).

No recorded Hong Kong or Chinese logs exist, so :func:`play_game` has four seeded players play
legal, sensible hands on walls built from the dice (:mod:`controller.rules.walls`) and writes
what they do as a :class:`~hardware.sim.script.Script` in the same JSON action format the
simulated table acts out (``Script.to_json``; see :mod:`hardware.sim.script`), with two more
actions:

  ============ ==============================================================================
  ``flower``   ``seat`` sets ``tile`` (a flower or season) aside face up; its replacement tile
               follows as a ``take`` from the tail (and a ``refill`` where the tail is refilled)
  ``nuki``     three-player: ``seat`` sets a north aside (the same place as flowers)
  ============ ==============================================================================

How they play: each keeps the tiles that work together (pairs, neighbours) and lets go of the
loneliest; it declares a win whenever the rules engine says its hand wins (self-drawn, or on a
discard: the first claimant counter-clockwise from the discarder); it pungs or kongs a discard
it holds two or three of, chows its left player's discard now and then, and makes a concealed
kong of four it holds; flowers are set aside at once (after the deal, the dealer first). In the
Chinese rules a player now and then declares a win on a discard that does not complete its hand
(a false win, 诈和). A hand with no win ends when the live wall runs out (an exhaustive draw).

Every hand's result is also worked out here by the rules engine from what was played
(:attr:`Played.results`: ``outcome``, ``deltas``, ``next_dealer``), independently of the tracker,
so that a game acted out at the simulated table can be checked against it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.rules import chinese as CH
from controller.rules import dice as DC
from controller.rules import hk as HK
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.hk.arrange import HandShapeError, Meld
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from hardware.sim.players_walls import shuffled_walls
from hardware.sim.script_model import HandScript, Script, ScriptError

FAMILIES = ("hk", "chinese")
PUNG_CHANCE = 0.7
CHOW_CHANCE = 0.35
FALSE_WIN_CHANCE = 0.3    # per hand (Chinese): one player declares a win that is none, at some discard


@dataclass
class Played:
    """A game the players played: the script the table acts out and, per hand, the result the
    rules engine gives for it (``outcome``, ``deltas`` in seat order, ``next_dealer``, ``winner``)."""

    script: Script
    results: list[dict] = field(default_factory=list)

    @property
    def final_scores(self) -> list[int]:
        scores = list(self.script.hands[0].scores)
        for r in self.results:
            scores = [a + b for a, b in zip(scores, r["deltas"], strict=True)]
        return scores


@dataclass
class _Seat:
    hand: list[str] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    flowers: list[str] = field(default_factory=list)


def _usefulness(hand: list[str], tile: str) -> float:
    """How much ``tile`` works with the rest of ``hand`` (pairs and neighbours count)."""
    plain = [T.plain(t) for t in hand]
    k = T.plain(tile)
    same = plain.count(k) - 1
    score = 3.0 * same
    if k[1] in "mps":
        n = int(k[0])
        for d, w in ((1, 2.0), (2, 1.0)):
            for m in (n - d, n + d):
                if 1 <= m <= 9 and f"{m}{k[1]}" in plain:
                    score += w
        score += 0.5 if 3 <= n <= 7 else 0.0
    return score


class _HandPlay:
    """One hand played by the four players; ``actions`` is its script."""

    def __init__(self, rules: RuleSet, dealer: int, round_wind: int, rng: random.Random) -> None:
        self.rules, self.dealer, self.round_wind, self.rng = rules, dealer, round_wind, rng
        self.rolls, self.lay, self.walls = shuffled_walls(rules, dealer, rng)
        self.ws = WL.WallState(self.lay, dict(self.walls))
        self.seats = [_Seat() for _ in range(4)]
        self.actions: list[dict] = []
        self.result: dict = {}
        self.discards = 0
        self.false_win_at = rng.randint(6, 40) if rules.family == "chinese" and rng.random() < FALSE_WIN_CHANCE else -1

    # ------------------------------------------------------------------ table actions
    def add(self, **action) -> None:
        self.actions.append(action)

    def _take(self, seat: int, take: WL.Take) -> str:
        self.add(op="take", seat=seat, wall=take.slot.seat, stack=take.slot.stack, layer=take.slot.layer,
                 tile=take.tile)
        self.seats[seat].hand.append(take.tile)
        return take.tile

    def _replacement(self, seat: int, reason: str) -> str | None:
        n = len(self.ws.refilled())
        try:
            take = self.ws.draw_replacement(reason)
        except WL.WallError:
            return None
        tile = self._take(seat, take)
        for moved in self.ws.refilled()[n:]:     # the last live tile moves to the tail
            self.add(op="refill", wall=moved.slot.seat, stack=moved.slot.stack, layer=moved.slot.layer)
        return tile

    def _flowers(self, seat: int) -> bool:
        """Set aside every flower ``seat`` holds, each replaced from the tail. False: no tile left."""
        while (flower := next((t for t in self.seats[seat].hand if T.is_flower(t)), None)) is not None:
            self.seats[seat].hand.remove(flower)
            self.seats[seat].flowers.append(flower)
            self.add(op="flower", seat=seat, tile=flower)
            if self._replacement(seat, "flower") is None:
                return False
        return True

    # ------------------------------------------------------------------ the rules engine
    def _wins(self, seat: int, tiles: list[str], win_tile: str, discarder: int | None):
        """The rules engine's score of ``tiles`` (14 with the winning tile) for ``seat``, or None."""
        st = self.seats[seat]
        seat_wind = (seat - self.dealer) % 4
        try:
            if self.rules.family == "hk":
                r = HK.score(tiles, win_tile=win_tile, melds=st.melds, is_self_draw=discarder is None,
                             flowers=st.flowers, seat_wind=seat_wind, rules=self.rules.hk)
                if r.error is not None:
                    return None
                return {"points": r.points, "fan": r.fan,
                        "deltas": list(HK.payments(r.points, seat, discarder, self.rules.hk))}
            r = CH.score(tiles, win_tile=win_tile, melds=st.melds, seat_wind=seat_wind, round_wind=self.round_wind,
                         winner=seat, discarder=discarder, dealer=self.dealer, rules=self.rules.chinese)
        except (HandShapeError, ValueError):
            return None
        if r.error is not None:
            return None
        return {"points": r.points, "fan": r.fan, "deltas": list(r.payments)}

    def _next_dealer(self, winner: int | None) -> int:
        if self.rules.family == "hk":
            return HK.next_dealer(self.dealer, winner, self.rules.hk)
        return CH.next_dealer(self.dealer, winner, self.rules.chinese)

    # ------------------------------------------------------------------ the hand
    def play(self) -> None:
        dealer = self.dealer
        self.add(op="lift", counts=[2 * self.rules.procedures.stacks_per_side] * 4, odd_backs=[])
        for i, roll in enumerate(self.rolls):
            seat, _n = DC.next_roller(self.rules.procedures.break_method, dealer, self.rolls[:i])
            self.add(op="press", seat=seat, action="dice")
            self.add(op="dice", seat=seat, dice=list(roll))
        for seat, slot in self.lay.deal_takes:
            self.add(op="take", seat=seat, wall=slot.seat, stack=slot.stack, layer=slot.layer, tile=self.walls[slot])
        for seat, takes in enumerate(self.ws.deal()):
            self.seats[seat].hand = [t.tile for t in takes]
        for k in range(4):
            if not self._flowers((dealer + k) % 4):
                return self._draw()
        seat, drew = dealer, True
        while True:
            st = self.seats[seat]
            if drew and self._self_drawn(seat):
                return None
            if drew:
                self._closed_kongs(seat)
                if self.result:
                    return None
            tile = min(dict.fromkeys(st.hand), key=lambda t: (_usefulness(st.hand, t), self.rng.random()))
            st.hand.remove(tile)
            self.add(op="discard", seat=seat, tile=tile, is_riichi=False, is_tsumogiri=False)
            if self._claims(seat, tile):
                return None
            if self.ws.live_remaining == 0:
                return self._draw()
            called = self._calls(seat, tile)
            if called is not None:
                seat, drew = called
                if self.result:
                    return None
                continue
            seat = (seat + 1) % 4
            try:
                self._take(seat, self.ws.draw())
            except WL.WallError:
                return self._draw()
            if not self._flowers(seat):
                return self._draw()
            drew = True

    def _self_drawn(self, seat: int) -> bool:
        st = self.seats[seat]
        win_tile = st.hand[-1]
        won = self._wins(seat, list(st.hand), win_tile, None)
        if won is None:
            return False
        self.add(op="press", seat=seat, action="tsumo")
        self.add(op="reveal", seat=seat, tiles=list(st.hand), win_tile=win_tile)
        self._end("win", won["deltas"], seat)
        return True

    def _closed_kongs(self, seat: int) -> None:
        st = self.seats[seat]
        while True:
            four = next((k for k in dict.fromkeys(T.plain(t) for t in st.hand)
                         if sum(T.plain(t) == k for t in st.hand) == 4), None)
            if four is None or self.ws.live_remaining < 2:
                return
            tiles = [t for t in st.hand if T.plain(t) == four]
            for t in tiles:
                st.hand.remove(t)
            st.melds.append(Meld("ankan", tuple(T.plain(t) for t in tiles)))
            self.add(op="meld", seat=seat, meld_kind="ankan", tiles=tiles, called=None, source=None)
            if self._replacement(seat, "kan") is None or not self._flowers(seat):
                self._draw()
                return
            if self._self_drawn(seat):
                return

    def _claims(self, src: int, tile: str) -> bool:
        """A win on the discard (the first claimant counter-clockwise), or a false win (Chinese)."""
        for k in (1, 2, 3):
            seat = (src + k) % 4
            st = self.seats[seat]
            tiles = list(st.hand) + [tile]
            won = self._wins(seat, tiles, tile, src)
            if won is not None:
                self.add(op="press", seat=seat, action="ron")
                self.add(op="reveal", seat=seat, tiles=tiles, win_tile=tile)
                self._end("win", won["deltas"], seat)
                return True
        self.discards += 1
        if self.discards == self.false_win_at:
            seat = (src + self.rng.randint(1, 3)) % 4
            tiles = list(self.seats[seat].hand) + [tile]
            self.add(op="press", seat=seat, action="ron")
            self.add(op="reveal", seat=seat, tiles=tiles, win_tile=tile)
            deltas = list(CH.false_win_penalty(seat, 0, self.rules.chinese))
            self._end("false_win", deltas, None, next_dealer=(self.dealer + 1) % 4, false_winner=seat)
            return True
        return False

    def _calls(self, src: int, tile: str) -> tuple[int, bool] | None:
        """A pung or kong (any seat holding two or three) or a chow (the next seat) on the discard:
        (the caller, whether it drew a replacement), or None."""
        k = T.plain(tile)
        for d in (1, 2, 3):
            seat = (src + d) % 4
            st = self.seats[seat]
            same = [t for t in st.hand if T.plain(t) == k]
            if len(same) >= 2 and self.rng.random() < PUNG_CHANCE:
                is_kong = len(same) == 3 and self.ws.live_remaining >= 2
                mine = same[:3] if is_kong else same[:2]
                for t in mine:
                    st.hand.remove(t)
                tiles = [tile] + mine
                st.melds.append(Meld("kan" if is_kong else "pon", tuple(T.plain(t) for t in tiles)))
                self.add(op="meld", seat=seat, meld_kind="daiminkan" if is_kong else "pon", tiles=tiles, called=tile,
                         source=src)
                if is_kong:
                    if self._replacement(seat, "kan") is None or not self._flowers(seat):
                        self._draw()
                        return seat, True
                    return seat, True
                return seat, False
        seat = (src + 1) % 4
        st = self.seats[seat]
        if k[1] in "mps" and self.rng.random() < CHOW_CHANCE:
            n = int(k[0])
            for a, b in ((n + 1, n + 2), (n - 1, n + 1), (n - 2, n - 1)):
                if not (1 <= a <= 9 and 1 <= b <= 9):
                    continue
                ta = next((t for t in st.hand if T.plain(t) == f"{a}{k[1]}"), None)
                tb = next((t for t in st.hand if T.plain(t) == f"{b}{k[1]}"), None)
                if ta is None or tb is None:
                    continue
                st.hand.remove(ta)
                st.hand.remove(tb)
                tiles = [tile, ta, tb]
                st.melds.append(Meld("chi", tuple(T.plain(t) for t in tiles)))
                self.add(op="meld", seat=seat, meld_kind="chi", tiles=tiles, called=tile, source=src)
                return seat, False
        return None

    def _draw(self) -> None:
        if self.rules.family == "hk":
            nd, deltas = HK.next_dealer(self.dealer, None, self.rules.hk), [0, 0, 0, 0]
        else:
            nd, d = CH.exhaustive_draw(self.dealer, self.rules.chinese)
            deltas = list(d)
        self._end("exhaustive_draw", deltas, None, next_dealer=nd)

    def _end(self, outcome: str, deltas: list[int], winner: int | None, *, next_dealer: int | None = None,
             false_winner: int | None = None) -> None:
        self.add(op="press", seat=self.dealer, action="ok")
        self.result = {"outcome": outcome, "deltas": list(deltas), "winner": winner, "false_winner": false_winner,
                       "next_dealer": self._next_dealer(winner) if next_dealer is None else next_dealer}


def play_game(ruleset: str, *, hands: int = 4, seed: int = 0) -> Played:
    """``hands`` hands of ``ruleset`` (a four-player fan-family profile) played by seeded players,
    from East 1 on, dealers as the rules rotate them. Raises ScriptError for another profile."""
    rules = load_rules(ruleset)
    if rules.family not in FAMILIES or rules.players != 4:
        raise ScriptError(f"{ruleset}: the fan players play four-player hk or chinese profiles only")
    scores = [rules.start_points] * 4
    dealer, round_wind = 0, 0
    out, results = [], []
    for index in range(hands):
        rng = random.Random(seed * 100003 + index)
        hp = _HandPlay(rules, dealer, round_wind, rng)
        hp.play()
        if not hp.result:
            raise ScriptError(f"{ruleset}: hand {index} ended without a result")  # pragma: no cover
        out.append(HandScript(index, round_wind * 4, 0, 0, tuple(scores), dealer, tuple(hp.rolls[0][:2]),
                              hp.walls, hp.actions))
        results.append(hp.result)
        scores = [a + b for a, b in zip(scores, hp.result["deltas"], strict=True)]
        nd = hp.result["next_dealer"]
        round_wind, _over = HK.advance_round(round_wind, dealer, nd, 0)   # a round ends when the deal comes back
        dealer = nd
    script = Script(ruleset, ("", "", "", ""), out, f"<{ruleset} players seed {seed}>", ())
    return Played(script, results)
