"""Seeded simulated players for three-player riichi (``sanma``).

No recorded three-player games are at hand, so :func:`play_game` has three seeded players play
legal, sensible hands on walls built from the dealer's roll (:mod:`controller.rules.walls`: three
walls of 18 stacks, a dead wall of 9). What they do is written down as the hand's record
(a tenhou.net/6 style :class:`~controller.rules.tenhou.LogHand` of three seats: draws,
discards, pons, norths set aside, riichi) and turned by :func:`hardware.sim.script.build_script`
into the physical script the simulated table acts out (the ``nuki`` action: a north set aside
face up, its replacement taken from the dead wall).

How they play: each lets go of the tile that leaves its hand furthest from ready (shanten, then
the loneliest tile); a north is set aside at once (抜きドラ); a closed hand that is ready with a
tile to spare declares riichi (立直) and from then on throws what it draws; a discard it holds
two of is called pon (ポン) now and then, never on the last tile; there is no chi in three-player.
It wins on its own draw (ツモ) when the rules engine scores the hand with a yaku, and on a
discard (ロン) when the hand scores and it is not furiten (振聴: a wait among its own discards,
or one it let pass since its last discard); the first claimant counter-clockwise takes it. A hand
with no win ends when the live wall runs out (流局: the ready hands are shown).

Every hand's result is worked out here by the rules engine from the record
(``controller.rules.replay.replay_hand``), and the next hand's round, honba, sticks and scores by
its game flow (``controller.rules.flow``), independently of the tracker, so that a game acted out
at the simulated table can be checked against it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.rules import flow as FL
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import waits as W
from controller.rules import walls as WL
from controller.rules.melds import Meld
from controller.rules.replay import replay_hand
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.rules.scoring import score_win
from hardware.sim.players_walls import shuffled_walls
from hardware.sim.script import build_script
from hardware.sim.script_model import Script, ScriptError

N = 3
NORTH = "4z"
PON_CHANCE = 0.6
RIICHI_MIN_LIVE = 4       # tiles left in the live wall for a riichi (the next draw must come)


@dataclass
class Played:
    """A sanma game the players played: its record (``log``), the script the table acts out and,
    per hand, what the rules engine gives for the record (``outcome``, ``deltas`` of the three
    seats); ``final_scores`` after the game flow has settled the deposits."""

    log: TH.LogGame
    script: Script
    results: list[dict] = field(default_factory=list)
    final_scores: list[int] = field(default_factory=list)


@dataclass
class _Seat:
    hand: list[str] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    norths: int = 0
    is_riichi: bool = False
    passed: bool = False          # let a winning tile pass since its last discard (furiten till then)
    called: str | None = None     # the tile just called: not to be let go at once (喰い替え)


def _loneliness(hand: list[str], tile: str) -> float:
    """How little ``tile`` works with the rest of ``hand`` (pairs and neighbours make it useful)."""
    plain = [T.plain(t) for t in hand]
    k = T.plain(tile)
    score = 3.0 * (plain.count(k) - 1)
    if k[1] in "mps":
        n = int(k[0])
        for d, w in ((1, 2.0), (2, 1.0)):
            score += sum(w for m in (n - d, n + d) if 1 <= m <= 9 and f"{m}{k[1]}" in plain)
    return -score


class _HandPlay:
    """One hand played by the three players; ``events`` is its record."""

    def __init__(self, rules: RuleSet, game: FL.GameScore, rng: random.Random) -> None:
        self.rules, self.game, self.rng = rules, game, rng
        self.dealer = game.dealer
        self.rolls, self.lay, self.walls = shuffled_walls(rules, self.dealer, rng)
        self.ws = WL.WallState(self.lay, dict(self.walls))
        self.seats = [_Seat() for _ in range(N)]
        self.events: list = []
        self.haipai: list[list[str]] = []
        self.result: TH.Result | None = None

    # ------------------------------------------------------------------ the rules engine
    def _wind(self, seat: int) -> str:
        return self.game.seat_wind(seat)

    def _scores(self, seat: int, tiles: list[str], win_tile: str, *, is_tsumo: bool) -> bool:
        """Whether ``tiles`` (with the winning tile) win for ``seat`` with a yaku (the situational
        ones left out: they only add)."""
        st = self.seats[seat]
        try:
            return score_win(tiles, win_tile, st.melds, is_tsumo=is_tsumo, seat_wind=self._wind(seat),
                             round_wind=self.game.round_wind, is_riichi=st.is_riichi, rules=self.rules).ok
        except ValueError:
            return False

    def _waits(self, seat: int) -> list[str]:
        st = self.seats[seat]
        try:
            return W.waits(st.hand, st.melds)
        except ValueError:
            return []

    # ------------------------------------------------------------------ the hand
    def play(self) -> None:
        for seat, takes in enumerate(self.ws.deal()):
            self.seats[seat].hand = [t.tile for t in takes]
        self.haipai = [list(s.hand) for s in self.seats]
        seat, must_draw = self.dealer, True
        while self.result is None:
            if must_draw:
                if self.ws.live_remaining == 0:
                    return self._draw()
                if self._take(seat):
                    return None
            tile, is_riichi = self._choose(seat)
            self._discard(seat, tile, is_riichi)
            if self._ron(seat, tile):
                return None
            if self.ws.live_remaining == 0:
                return self._draw()
            caller = self._pon(seat, tile)
            if caller is not None:
                seat, must_draw = caller, False
                continue
            seat, must_draw = (seat + 1) % N, True

    def _take(self, seat: int) -> bool:
        """``seat`` draws, sets its norths aside (each replaced from the dead wall) and wins if it
        can (True)."""
        st = self.seats[seat]
        tile = self.ws.draw().tile
        st.hand.append(tile)
        self.events.append(TH.Draw(seat, tile))
        while NORTH in st.hand:
            try:
                take = self.ws.draw_replacement("north")
            except WL.WallError:
                break
            st.hand.remove(NORTH)
            st.norths += 1
            self.events.append(TH.Nuki(seat, NORTH))
            st.hand.append(take.tile)
            self.events.append(TH.Draw(seat, take.tile, True))
            tile = take.tile
        if self._scores(seat, list(st.hand), tile, is_tsumo=True):
            self.result = TH.Result("和了", "win", "win", (TH.WinRecord(seat, seat, seat, (), ()),))
            return True
        return False

    def _choose(self, seat: int) -> tuple[str, bool]:
        """The tile to let go, and whether with it the seat declares riichi."""
        st = self.seats[seat]
        if st.is_riichi:
            return st.hand[-1], False
        options = []
        for tile in dict.fromkeys(t for t in st.hand if T.plain(t) != st.called):
            rest = list(st.hand)
            rest.remove(tile)
            try:
                sh = W.shanten(rest, st.melds)
            except ValueError:
                sh = 8
            options.append((sh, _loneliness(st.hand, tile), self.rng.random(), tile))
        sh, _l, _r, tile = min(options)
        is_riichi = (sh == 0 and not st.melds and self.ws.live_remaining >= RIICHI_MIN_LIVE
                     and self.game.scores[seat] >= self.rules.riichi_cost)
        return tile, is_riichi

    def _discard(self, seat: int, tile: str, is_riichi: bool) -> None:
        st = self.seats[seat]
        is_tsumogiri = bool(self.events) and isinstance(self.events[-1], TH.Draw) and self.events[-1].tile == tile \
            and st.hand[-1] == tile
        st.hand.remove(tile)
        st.discards.append(tile)
        st.passed = st.passed and st.is_riichi
        st.called = None
        if is_riichi:
            st.is_riichi = True
            self.game = self.game.riichi(seat, self.rules)
        self.events.append(TH.Discard(seat, tile, is_tsumogiri, is_riichi))

    def _ron(self, src: int, tile: str) -> bool:
        for k in range(1, N):
            seat = (src + k) % N
            st = self.seats[seat]
            if T.plain(tile) not in {T.plain(w) for w in self._waits(seat)}:
                continue
            furiten = st.passed or any(T.plain(d) in {T.plain(w) for w in self._waits(seat)} for d in st.discards)
            if not furiten and self._scores(seat, st.hand + [tile], tile, is_tsumo=False):
                self.result = TH.Result("和了", "win", "win", (TH.WinRecord(seat, src, seat, (), ()),))
                return True
            st.passed = True
        return False

    def _pon(self, src: int, tile: str) -> int | None:
        for k in range(1, N):
            seat = (src + k) % N
            st = self.seats[seat]
            same = [t for t in st.hand if T.plain(t) == T.plain(tile)]
            if st.is_riichi or len(same) < 2 or self.rng.random() >= PON_CHANCE:
                continue
            for t in same[:2]:
                st.hand.remove(t)
            meld = Meld("pon", (tile, same[0], same[1]), tile, src)
            st.melds.append(meld)
            st.called = T.plain(tile)
            self.events.append(TH.Call(seat, meld))
            return seat
        return None

    def _draw(self) -> None:
        self.result = TH.Result("流局", "exhaustive_draw", "exhaustive_draw")

    def log_hand(self, index: int) -> TH.LogHand:
        assert self.result is not None
        g = self.game
        return TH.LogHand(index, g.round, g.honba, g.sticks, tuple(g.scores),
                          [self.walls[self.lay.indicator_slots[0]]], [self.walls[self.lay.ura_slots[0]]],
                          [list(h) for h in self.haipai], list(self.events), self.result, players=N,
                          rounds_per_wind=N)


def play_game(*, hands: int = 4, seed: int = 0, ruleset: str = "sanma") -> Played:
    """Up to ``hands`` hands of three-player riichi (``ruleset``, a three-player riichi profile)
    played by seeded players from East 1 on (fewer where the game ends first). Raises ScriptError
    for another profile."""
    rules = load_rules(ruleset)
    if rules.family != "riichi" or rules.players != N:
        raise ScriptError(f"{ruleset}: the sanma players play three-player riichi profiles only")
    game = FL.GameScore.start(rules)
    logs, results = [], []
    for index in range(hands):
        start = game
        hp = _HandPlay(rules, game, random.Random(seed * 100003 + index))
        hp.play()
        lh = hp.log_hand(index)
        # the record starts from the hand's scores and sticks before any riichi of this hand
        lh.scores, lh.sticks = tuple(start.scores), start.sticks
        out = replay_hand(lh, rules, source=f"<sanma players seed {seed}>")
        deltas = list(out["deltas"])[:N]
        after = list(out["scores_after"])[:N]
        before = tuple(a - d for a, d in zip(after, deltas, strict=True))
        stood = sum(1 for e in lh.events if isinstance(e, TH.Discard) and e.is_riichi) - (
            1 if out["outcome"] == "win" and _ronned_riichi(lh) else 0)
        sticks = start.sticks + (stood if out["outcome"] != "win" else 0)
        flow = FL.GameScore(scores=before, round=start.round, honba=start.honba, sticks=sticks)
        winners = [w["seat"] for w in out.get("wins", [])]
        dealer_tenpai = bool(list(out.get("tenpai") or [False] * N)[start.dealer])
        game = flow.finish_hand(out["outcome"], deltas, rules, winners=winners, dealer_tenpai=dealer_tenpai)
        logs.append(lh)
        results.append({"outcome": out["outcome"], "deltas": deltas, "winners": winners})
        if game.is_over:
            break
    log = TH.LogGame(logs, players=N, source=f"<{ruleset} players seed {seed}>")
    script = build_script(log, ruleset=ruleset, seed=seed, source=log.source)
    return Played(log, script, results, list(game.scores))


def _ronned_riichi(lh: TH.LogHand) -> bool:
    """The hand ended on a ron of a riichi declaration tile (its stick never went down)."""
    last = lh.events[-1] if lh.events else None
    return isinstance(last, TH.Discard) and last.is_riichi and any(w.seat != w.from_seat for w in lh.result.wins)
