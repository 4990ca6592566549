"""The riichi tracker follows three-player games (the ``sanma`` profile) from the table's events.

Each hand is played on a simulated three-wall table whose walls hold known tiles: the walls
are planned from the dealer's sanma roll by controller.rules.walls (108 tiles, three walls of
18, a dead wall of 9 stacks with 8 replacement tiles), the tiles placed with
``layout_from_roll`` (the hands and draws a scenario needs, the rest of the set shuffled with
a fixed seed), and the table reports what the firmware and a perfect camera would: the lift,
the dice, every wall slot taken, the indicator, discards, melds (pon, a north set aside),
riichi sticks, buttons, revealed hands. The tracker never sees a concealed tile.

The same hand is also written down as a tenhou-style LogHand from the tiles the table really
held (independently of the tracker's rebuilt record): the tracker's result must be what
``controller.rules.replay.replay_hand`` gives for it, and the figures are checked by hand
against the profile (35000 start, no tsumo loss: the north share split, noten total 2000).
"""

from __future__ import annotations

import json
import random

import pytest

from controller import events as ev
from controller import tracker as G
from controller.rules import dice as DC
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.melds import Meld as RMeld
from controller.rules.replay import replay_hand
from controller.rules.ruleset import load as load_rules
from controller.rules.settlement import settle
from controller.rules.tilesets import census_for

RULES = load_rules("sanma")
N = 3


class Table:
    """One sanma hand on a table with known walls; ``events`` is what the tracker is told and
    ``log`` the same hand as the tiles really went (a tenhou-style timeline)."""

    def __init__(self, dealer: int, roll, hands, *, draws=(), replacements=(), indicators=(), ura=(),
                 seed: int = 0, now: float = 0.0) -> None:
        proc = RULES.procedures
        self.dealer, self.rolls = dealer, [tuple(roll)]
        lay = WL.plan(proc, dealer, self.rolls)
        placed = WL.layout_from_roll(lay, hands=[T.parse(h) for h in hands], draws=list(draws),
                                     replacements=list(replacements), indicators=list(indicators),
                                     ura_indicators=list(ura), census=census_for(RULES))
        fixed = {s for hand in lay.hand_slots for s in hand}
        fixed |= set(lay.draw_slots[:len(draws)]) | set(lay.replacement_slots[:len(replacements)])
        fixed |= set(lay.indicator_slots[:len(indicators)]) | set(lay.ura_slots[:len(ura)])
        free = [s for s in lay.all_slots if s not in fixed]
        rest = [placed[s] for s in free]
        random.Random(seed).shuffle(rest)
        placed.update(zip(free, rest, strict=True))
        self.lay, self.placed = lay, placed
        self.ws = WL.WallState(lay, placed)
        self.height = {pos: 2 for pos in {s.stack_pos for s in lay.all_slots}}
        self.hands: list[list[str]] = [[] for _ in range(N)]
        self.haipai: list[list[str]] = []
        self.events: list[ev.Event] = []
        self.log: list = []
        self.now = now
        self.per_wall = 2 * proc.stacks_per_side
        self.last_draw: list[str | None] = [None] * N
        self.n_ind = 1

    def emit(self, e_cls, **kw) -> None:
        self.now += 1.0
        self.events.append(e_cls(now=self.now, **kw))

    def take(self, slot: WL.WallSlot) -> None:
        self.height[slot.stack_pos] -= 1
        self.emit(ev.WallStackTaken, wall=slot.seat, stack=slot.stack, tiles_left=self.height[slot.stack_pos])

    def start(self) -> None:
        """The lift (three walls of 36), the dealer's roll, the dora indicator turned."""
        self.emit(ev.LiftDone, counts=(self.per_wall,) * N)
        seat, _n = DC.next_roller("sanma", self.dealer, [])
        self.emit(ev.Button, seat=seat, action="dice")
        self.emit(ev.DiceResult, seat=seat, dice=self.rolls[0])
        ind = self.lay.indicator_slots[0]
        self.emit(ev.IndicatorRevealed, wall=ind.seat, stack=ind.stack, tile=self.placed[ind])

    def deal(self) -> None:
        for _seat, slot in self.lay.deal_takes:
            self.take(slot)
        for seat, takes in enumerate(self.ws.deal()):
            self.hands[seat] = [t.tile for t in takes]
        self.haipai = [list(h) for h in self.hands]

    def draw(self, seat: int) -> str:
        take = self.ws.draw()
        self.take(take.slot)
        self.hands[seat].append(take.tile)
        self.log.append(TH.Draw(seat, take.tile))
        self.last_draw[seat] = take.tile
        return take.tile

    def discard(self, seat: int, tile: str | None = None, *, riichi: bool = False) -> str:
        tsumogiri = tile is None
        tile = tile or self.hands[seat][-1]
        self.hands[seat].remove(tile)
        self.emit(ev.Discard, seat=seat, tile=tile, is_riichi=riichi, is_tsumogiri=tsumogiri)
        self.log.append(TH.Discard(seat, tile, tsumogiri, riichi))
        if riichi:
            self.emit(ev.RiichiStick, seat=seat)
        return tile

    def turn(self, seat: int, tile: str | None = None) -> str:
        self.draw(seat)
        return self.discard(seat, tile)

    def pon(self, seat: int, tile: str, source: int) -> None:
        for _ in range(2):
            self.hands[seat].remove(tile)
        self.emit(ev.Meld, seat=seat, meld_kind="pon", tiles=(tile,) * 3, called=tile, source=source)
        self.log.append(TH.Call(seat, RMeld("pon", (tile,) * 3, tile, source)))

    def nuki(self, seat: int) -> str:
        """A north set aside, and its replacement tile from the dead wall."""
        self.hands[seat].remove("4z")
        self.emit(ev.Meld, seat=seat, meld_kind="nuki", tiles=("4z",))
        self.log.append(TH.Nuki(seat, "4z"))
        take = self.ws.draw_replacement("north")
        self.take(take.slot)
        self.hands[seat].append(take.tile)
        self.log.append(TH.Draw(seat, take.tile, True))
        self.last_draw[seat] = take.tile
        return take.tile

    def ankan(self, seat: int, tile: str) -> str:
        """A closed kan, its replacement tile, and the kan indicator turned at once."""
        for _ in range(4):
            self.hands[seat].remove(tile)
        self.emit(ev.Meld, seat=seat, meld_kind="ankan", tiles=(tile,) * 4)
        self.log.append(TH.Kan(seat, RMeld("ankan", (tile,) * 4, None, None)))
        take = self.ws.draw_replacement("kan")
        self.take(take.slot)
        self.hands[seat].append(take.tile)
        self.log.append(TH.Draw(seat, take.tile, True))
        slot = self.ws.flip_kan_indicator().slot
        self.n_ind += 1
        self.emit(ev.IndicatorRevealed, wall=slot.seat, stack=slot.stack, tile=self.placed[slot])
        return take.tile

    def button(self, seat: int, action: str) -> None:
        self.emit(ev.Button, seat=seat, action=action)

    def reveal(self, seat: int, win_tile: str | None = None, extra: str | None = None) -> None:
        tiles = list(self.hands[seat]) + ([extra] if extra else [])
        self.emit(ev.HandRevealed, seat=seat, tiles=tuple(tiles), win_tile=win_tile)

    def reveal_ura(self) -> None:
        slot = self.lay.ura_slots[0]
        self.emit(ev.IndicatorRevealed, wall=slot.seat, stack=slot.stack, tile=self.placed[slot], is_ura=True)

    def play_out(self, first: int) -> None:
        """From ``first`` on, everybody draws and throws the drawn tile until the live wall is empty."""
        seat = first
        while self.ws.live_remaining > 0:
            self.turn(seat)
            seat = (seat + 1) % N

    def log_hand(self, index: int, round_: int, honba: int, sticks: int, scores, result: TH.Result) -> TH.LogHand:
        """The hand as it really went, for the replay (rounds numbered 3 to a wind, as the tracker does)."""
        inds = [self.placed[s] for s in self.lay.indicator_slots[:self.n_ind]]
        ura = [self.placed[s] for s in self.lay.ura_slots[:self.n_ind]]
        return TH.LogHand(index, round_, honba, sticks, tuple(scores), inds, ura, [list(h) for h in self.haipai],
                          list(self.log), result, players=3, rounds_per_wind=3)


def play(events, state=None):
    s = state or G.new_state()
    out = []
    for e in events:
        s, cmds = G.step(s, e, e.now)
        out += cmds
    return s, out


def alerts_of(cmds):
    return [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]


def start(**kw):
    return play([ev.StartGame(ruleset="sanma", players=("A", "B", "C"), **kw)])


def won(seat: int, src: int) -> TH.Result:
    return TH.Result("和了", "win", "win", (TH.WinRecord(seat, src, seat, (), ()),), ())


DRAW = TH.Result("流局", "exhaustive_draw", "exhaustive_draw", (), ())


def riichi_pon_nuki_tsumo(now: float = 0.0) -> Table:
    """E1, dealer seat 0: seat 1 pons the dealer's 7z; the dealer riichis on 9m; seat 2 sets a north
    aside (ippatsu broken) and throws its replacement tile; the dealer draws 4s: tsumo (riichi,
    tsumo, pinfu, ittsu = 5 han, mangan)."""
    t = Table(0, (3, 4), ("123456789p112s9m", "199m11p56788s5z77z", "44p99s112233466z"),
              draws=("7z", "5z", "3s", "6z", "8p", "4s"), replacements=("7p",), indicators=("7z",), ura=("6z",),
              now=now)
    t.start()
    t.deal()
    t.draw(0)
    t.discard(0, "7z")
    t.pon(1, "7z", 0)
    t.discard(1, "1m")
    t.turn(2)                      # 5z, thrown
    t.draw(0)                      # 3s
    t.discard(0, "9m", riichi=True)
    t.turn(1)                      # 6z, thrown
    t.draw(2)                      # 8p
    t.nuki(2)                      # the north aside, 7p from the dead wall
    t.discard(2)                   # 7p, thrown
    t.draw(0)                      # 4s
    t.button(0, "tsumo")
    t.reveal(0, win_tile="4s")
    t.reveal_ura()
    return t


def test_a_sanma_hand_with_a_pon_a_north_a_riichi_and_a_tsumo_is_followed():
    s, cmds = start()
    assert s.phase == "walls" and len(s.seats) == 3 and alerts_of(cmds) == []
    t = riichi_pon_nuki_tsumo()
    s, cmds = play(t.events, s)
    assert s.alerts == [], s.alerts
    # the north: a nuki meld of seat 2, its replacement from the dead wall; the pon of seat 1
    pub = G.public_state(s)
    assert pub["seats"][2]["melds"] == [{"kind": "nuki", "tiles": ["4z"]}]
    assert pub["seats"][1]["melds"] == [{"kind": "pon", "tiles": ["7z", "7z", "7z"]}]
    assert any(isinstance(c, ev.WatchSlot) and c.purpose == "replacement"
               and (c.wall, c.stack) == t.lay.replacement_slots[0].stack_pos for c in cmds)
    # 108 - 18 dead - 39 dealt = 51 live tiles; 6 drawn
    assert pub["live_wall"] == 51 - 6
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, won(0, 0)), RULES)
    assert s.result == want
    (win,) = s.result["wins"]
    assert dict(map(tuple, win["yaku"])) == {"riichi": 1, "tsumo": 1, "pinfu": 1, "ittsu": 2}
    # dealer mangan, no tsumo loss: 6000 from each of the two others, and the riichi stick
    assert win["points"] == 12000
    assert s.result["deltas"][:3] == [13000, -6000, -6000]
    assert s.result["scores_after"][:3] == [47000, 29000, 29000]
    s, cmds = play([ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    pub = G.public_state(s)
    assert [x["score"] for x in pub["seats"]] == [47000, 29000, 29000]
    assert (pub["round"], pub["honba"], pub["riichi_sticks"], pub["dealer"]) == ("E1", 1, 0, 0)
    assert pub["hands"] == [{"hand": 0, "round": "E1", "honba": 0, "outcome": "win",
                             "deltas": [13000, -6000, -6000], "scores": [47000, 29000, 29000]}]


def test_a_north_set_aside_counts_as_dora_and_its_replacement_wins_by_rinshan():
    """E1, seat 2 draws a north, sets it aside and wins on the replacement tile: ittsu 2 + tsumo 1
    + rinshan 1 + one north 1 = mangan, a non-dealer's tsumo without tsumo loss: the dealer pays
    4000 + 1000, seat 1 2000 + 1000."""
    s, _ = start()
    t = Table(0, (5, 5), ("19m19p19s1234567z", "2233445566778p", "123456789s1124p"),
              draws=("1z", "1z", "4z"), replacements=("3p",), indicators=("5z",), seed=3)
    t.start()
    t.deal()
    t.turn(0)           # 1z
    t.turn(1)           # 1z
    t.draw(2)           # 4z
    t.nuki(2)           # 3p
    t.button(2, "tsumo")
    t.reveal(2, win_tile="3p")
    s, _ = play(t.events, s)
    assert s.alerts == []
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, won(2, 2)), RULES)
    assert s.result == want
    (win,) = s.result["wins"]
    assert dict(map(tuple, win["yaku"])) == {"tsumo": 1, "rinshan": 1, "ittsu": 2, "dora": 1}
    assert s.result["deltas"][:3] == [-5000, -3000, 8000]


def test_a_ron_is_paid_by_the_discarder_alone():
    """Seat 1 (chiitoitsu, 25 fu 2 han: 1600) rons the dealer's 9p."""
    s, _ = start()
    t = Table(0, (2, 6), ("123456789s1m9m1z1p", "1122p3344s5566z9p", "11223344z55567p"),
              draws=("9p",), indicators=("7s",), seed=5)
    t.start()
    t.deal()
    t.draw(0)
    t.discard(0, "9p")
    t.button(1, "ron")
    t.reveal(1, win_tile="9p", extra="9p")
    s, _ = play(t.events, s)
    assert s.alerts == []
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, won(1, 0)), RULES)
    assert s.result == want
    assert s.result["wins"][0]["yaku"] == [["chiitoitsu", 2]]
    assert s.result["deltas"][:3] == [-1600, 1600, 0]


def _noten_draw_table(dealer: int, hands, now: float) -> Table:
    t = Table(dealer, (4, 4), hands, seed=11, now=now)
    t.start()
    t.deal()
    t.play_out(dealer)
    return t


def test_an_exhaustive_draw_pays_tenpai_for_three_and_the_deal_passes():
    s, _ = start()
    t = riichi_pon_nuki_tsumo()
    s, _ = play(t.events + [ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    # E1 honba 1: seat 1 alone is tenpai (1z/2z); the dealer is noten and passes the deal
    hands = ("19m2468p13579s13z", "123456p789s1122z", "9m3579p2468s3567z")
    t2 = _noten_draw_table(0, hands, t.now + 5)
    t2.reveal(1)
    s, cmds = play(t2.events, s)
    assert s.phase == "result" and s.result["outcome"] == "exhaustive_draw", (s.result, s.result_error)
    # every seat drew in turn until the 51 live tiles were gone
    assert G.public_state(s)["live_wall"] == 0
    want = replay_hand(t2.log_hand(1, 0, 1, 0, (47000, 29000, 29000), DRAW), RULES)
    assert s.result == want
    assert s.result["tenpai"][:3] == [False, True, False]
    assert s.result["deltas"][:3] == [-1000, 2000, -1000]
    assert [x["tenpai"] for x in G.public_state(s)["seats"]] == [False, True, False]
    s, _ = play([ev.ConfirmResult(hand_index=1, now=t2.now + 1)], s)
    pub = G.public_state(s)
    assert (pub["round"], pub["honba"], pub["dealer"], pub["phase"]) == ("E2", 2, 1, "walls")
    assert [x["wind"] for x in pub["seats"]] == ["W", "E", "S"]
    assert [x["is_dealer"] for x in pub["seats"]] == [False, True, False]
    assert [x["score"] for x in pub["seats"]] == [46000, 31000, 28000]
    assert [r["scores"] for r in pub["hands"]] == [[47000, 29000, 29000], [46000, 31000, 28000]]
    assert [(r["round"], r["honba"], r["outcome"], r["deltas"]) for r in pub["hands"]] == [
        ("E1", 0, "win", [13000, -6000, -6000]), ("E1", 1, "exhaustive_draw", [-1000, 2000, -1000])]
    # E2: the dealer (seat 1) lights its dice lamp and rolls
    t3 = Table(1, (1, 2), hands, seed=2, now=t2.now + 10)
    t3.start()
    s, cmds = play(t3.events[:2], s)
    assert any(isinstance(c, ev.LightButton) and c.seat == 1 and c.action == "dice" for c in cmds)


def test_the_last_round_ends_the_game_and_settles_three_players():
    """A game taken over at South 3 (seat 2 deals): an exhaustive draw, the dealer noten, the
    leader above 40000: the game ends and is settled with uma 15/0/-15."""
    s, _ = start(start_round=5, start_scores=(45000, 33000, 27000))
    pub = G.public_state(s)
    assert (pub["round"], pub["dealer"]) == ("S3", 2)
    assert [x["wind"] for x in pub["seats"]] == ["S", "W", "E"]
    hands = ("19m2468p13579s13z", "9m1357p2468s2567z", "9m3579p2468s3567z")
    t = _noten_draw_table(2, hands, 0.0)
    s, _ = play(t.events, s)
    assert s.result["outcome"] == "exhaustive_draw" and s.result["deltas"][:3] == [0, 0, 0]
    s, cmds = play([ev.ConfirmResult(hand_index=0, now=t.now + 1)], s)
    pub = G.public_state(s)
    assert pub["finished"] and pub["phase"] == "ended"
    assert pub["settlement"] == settle([45000, 33000, 27000], rules=RULES) and len(pub["settlement"]) == 3
    (shown,) = [c for c in cmds if isinstance(c, ev.Show) and c.what == "settlement"]
    assert shown.data["scores"] == [45000, 33000, 27000] and shown.data["reason"] == "last_round"
    assert pub["hands"] == [{"hand": 0, "round": "S3", "honba": 0, "outcome": "exhaustive_draw",
                             "deltas": [0, 0, 0], "scores": [45000, 33000, 27000]}]


def test_public_state_has_three_seats_and_sanma_dora():
    s, _ = start()
    t = riichi_pon_nuki_tsumo()
    s, _ = play(t.events[:8], s)   # lift, dice, indicator and the first deal takes
    pub = G.public_state(s)
    assert len(pub["seats"]) == 3 and [x["wind"] for x in pub["seats"]] == ["E", "S", "W"]
    assert [x["name"] for x in pub["seats"]] == ["A", "B", "C"]
    assert [x["score"] for x in pub["seats"]] == [35000] * 3
    assert (pub["ruleset"], pub["round"], pub["dealer"], pub["phase"]) == ("sanma", "E1", 0, "play")
    assert pub["dora_indicators"] == ["7z"] and pub["dora"] == ["5z"]
    json.dumps(pub)
    # sanma dora: 1m indicates 9m (no 2m-8m in the set)
    s2, _ = start()
    t2 = Table(0, (3, 4), ("123456789p112s9m", "199m11p56788s5z77z", "44p99s112233466z"), indicators=("1m",))
    t2.start()
    s2, _ = play(t2.events, s2)
    assert G.public_state(s2)["dora"] == ["9m"]


def test_a_discard_out_of_turn_names_the_seat_and_the_tile_with_three_seats():
    s, _ = start()
    t = riichi_pon_nuki_tsumo()
    s, _ = play(t.events[:t.events.index(next(e for e in t.events if isinstance(e, ev.Discard)))], s)
    # the dealer is to discard; seat 2 throws 9s
    s, cmds = play([ev.Discard(seat=2, tile="9s", now=500.0)], s)
    (a,) = alerts_of(cmds)
    assert (a.rule, a.seat, a.tile) == ("out_of_turn", 2, "9s") and "seat 0's turn" in a.message
    # there is no seat 3 at a three-player table
    s, cmds = play([ev.Discard(seat=3, tile="1p", now=501.0)], s)
    (a,) = alerts_of(cmds)
    assert a.rule == "inconsistent" and "seat 3" in a.message
    assert G.public_state(s)["seats"][0]["river"] == []


def test_chi_is_named_in_sanma_and_a_north_only_on_ones_own_turn():
    s, _ = start()
    t = riichi_pon_nuki_tsumo()
    first = next(i for i, e in enumerate(t.events) if isinstance(e, ev.Discard))
    s, _ = play(t.events[:first + 1], s)     # the dealer threw 7z
    s, cmds = play([ev.Meld(seat=1, meld_kind="pon", tiles=("7z",) * 3, called="7z", source=0, now=599.0),
                    ev.Discard(seat=1, tile="1p", now=599.5)], s)
    assert alerts_of(cmds) == []
    # seat 2 shows a chi on the 1p: named (and followed, for staff to sort out)
    s, cmds = play([ev.Meld(seat=2, meld_kind="chi", tiles=("1p", "2p", "3p"), called="1p", source=1, now=600.0)],
                   s)
    assert [(a.rule, a.seat, a.tile) for a in alerts_of(cmds)] == [("inconsistent", 2, "1p")]
    assert "three-player riichi has no chi" in alerts_of(cmds)[0].message
    s2, _ = play(t.events[:first + 1], start()[0])
    s2, cmds = play([ev.Meld(seat=2, meld_kind="nuki", tiles=("4z",), now=601.0)], s2)
    (a,) = alerts_of(cmds)
    assert (a.rule, a.seat, a.tile) == ("out_of_turn", 2, "4z")


def test_four_player_start_scores_are_refused_for_three_players():
    s, cmds = start(start_scores=(30000, 30000, 30000, 15000))
    assert s.phase == "idle" and alerts_of(cmds)[0].rule == "inconsistent" and "3 players" in alerts_of(cmds)[0].message


@pytest.mark.parametrize("seed", range(3))
def test_garbled_sanma_streams_never_break_the_tracker(seed):
    import dataclasses
    rng = random.Random(seed)
    t = riichi_pon_nuki_tsumo()
    out: list[ev.Event] = [ev.StartGame(ruleset="sanma")]
    for e in t.events + [ev.Button(seat=0, action="ok", now=t.now + 1)]:
        r = rng.random()
        if r < 0.05:
            continue
        if r < 0.1 and hasattr(e, "seat"):
            e = dataclasses.replace(e, seat=rng.randrange(4))
        out.append(e)
    s = G.new_state()
    for e in out:
        s, cmds = G.step(s, e, e.now)
        assert all(isinstance(c, ev.Command) for c in cmds)
    json.dumps(G.public_state(s))


def test_nine_terminals_aborts_and_the_dealer_keeps_the_deal():
    s, _ = start()
    t = Table(0, (5, 5), ("19m19p19s1234567z", "2233445566778p", "123456789s1124p"), draws=("1z",), seed=3)
    t.start()
    t.deal()
    t.draw(0)
    t.button(0, "draw")
    t.reveal(0)
    s, _ = play(t.events, s)
    assert s.alerts == []
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3,
                                  TH.Result("九種九牌", "abortive_draw", "nine_terminals", (), ())), RULES)
    assert s.result == want and want["outcome"] == "abortive_draw" and want["deltas"][:3] == [0, 0, 0]
    s, _ = play([ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    pub = G.public_state(s)
    assert (pub["round"], pub["honba"], pub["dealer"]) == ("E1", 1, 0)
    assert pub["hands"][0]["outcome"] == "abortive_draw" and pub["hands"][0]["scores"] == [35000] * 3


def test_three_riichi_do_not_abort_a_three_player_hand():
    s, _ = start()
    t = Table(0, (4, 4), ("19m2468p13579s13z", "123456p789s1122z", "9m3579p2468s3567z"), seed=11)
    t.start()
    t.deal()
    for seat in range(3):
        t.draw(seat)
        t.discard(seat, riichi=True)
    t.draw(0)
    s, _ = play(t.events, s)
    pub = G.public_state(s)
    assert pub["phase"] == "play" and pub["riichi_sticks"] == 3
    assert [x["score"] for x in pub["seats"]] == [34000] * 3 and all(x["riichi"] for x in pub["seats"])


def test_the_first_dealer_is_rolled_for_over_three_chairs():
    s, cmds = play([ev.StartGame(ruleset="sanma", players=("A", "B", "C"), first_dealer="one_roll")])
    assert s.phase == "seating" and [(c.seat, c.action) for c in cmds if isinstance(c, ev.LightButton)] == [(0, "dice")]
    # 5 counted from chair 0 over three chairs: chair 1 deals first and is the game's seat 0
    s, cmds = play([ev.Button(seat=0, action="dice", now=1.0), ev.DiceResult(seat=0, dice=(2, 3), now=2.0)], s)
    pub = G.public_state(s)
    assert pub["first_dealer_chair"] == 1 and [x["name"] for x in pub["seats"]] == ["B", "C", "A"]
    assert s.phase == "walls" and len(pub["seats"]) == 3


def test_a_tenhou_style_start_with_an_empty_fourth_seat_is_taken_as_three():
    s, cmds = start(start_scores=(40000, 35000, 30000, 0), start_round=3)
    pub = G.public_state(s)
    assert alerts_of(cmds) == [] and [x["score"] for x in pub["seats"]] == [40000, 35000, 30000]
    assert (pub["round"], pub["dealer"]) == ("S1", 0)


def test_a_closed_kan_takes_a_replacement_and_turns_an_indicator_without_shortening_the_live_wall():
    """No refill in seed 002 sanma: after a kan the live wall still gives all 51 draws."""
    s, _ = start()
    t = Table(0, (6, 6), ("19m19p19s1112356z", "123456p789s2233z", "9m3579p2468s3567z"), draws=("1z",), seed=8)
    t.start()
    t.deal()
    t.draw(0)
    t.ankan(0, "1z")
    t.discard(0)
    t.play_out(1)
    t.reveal(1)     # tenpai on 2z / 3z
    s, cmds = play(t.events, s)
    assert s.alerts == []
    assert sum(1 for x in t.log if isinstance(x, TH.Draw) and not x.is_rinshan) == 51
    pub = G.public_state(s)
    assert pub["seats"][0]["melds"] == [{"kind": "ankan", "tiles": ["1z"] * 4}]
    assert len(pub["dora_indicators"]) == 2 and pub["live_wall"] == 0
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, DRAW), RULES)
    assert s.result == want and s.result["outcome"] == "exhaustive_draw" and want["deltas"][:3] == [-1000, 2000, -1000]


def test_a_tsumo_on_the_last_live_tile_is_haitei():
    """The profile's sanma wall (a 9-stack dead wall, never refilled: 51 live draws), not Tenhou's."""
    hands = ("19m2468p13579s13z", "123456p789s1122z", "123456789s1124p")
    left = dict(census_for(RULES))
    for h in hands:
        for x in T.parse(h):
            left[x] -= 1
    pool = [x for x, k in left.items() if x not in ("3p", "0p") for _ in range(k)]
    t = Table(0, (4, 4), hands, draws=tuple(pool[:50]) + ("3p",), seed=1)
    t.start()
    t.deal()
    t.play_out(0)
    t.events.pop()                 # seat 2's last draw is not thrown: it wins
    t.hands[2].append(t.log.pop().tile)
    t.button(2, "tsumo")
    t.reveal(2, win_tile="3p")
    s, _ = play(t.events, start()[0])
    assert s.alerts == [] and s.result["outcome"] == "win"
    assert ["haitei", 1] in s.result["wins"][0]["yaku"]


def test_the_daemon_core_runs_a_sanma_game_and_serves_three_seats():
    from controller.daemon import Core
    core = Core("t1", "sanma")
    core.apply(ev.StartGame(ruleset="sanma", players=("A", "B", "C")))
    t = riichi_pon_nuki_tsumo()
    for e in t.events + [ev.Button(seat=0, action="ok", now=t.now + 1)]:
        core.apply(e)
    view = core.view()
    assert core.errors == [] and [x["score"] for x in view["seats"]] == [47000, 29000, 29000]
    assert (view["round"], view["honba"]) == ("E1", 1) and view["hands"][0]["deltas"] == [13000, -6000, -6000]


def test_a_north_set_aside_may_be_robbed_as_a_plain_ron():
    """Seat 1 (chiitoitsu waiting on 4z) rons the north the dealer sets aside, before its
    replacement is taken: 25 fu 2 han, 1600 from the dealer."""
    s, _ = start()
    t = Table(0, (3, 3), ("123456789s1m9m4z1p", "1122p3344s55664z", "112233z77z55567p"), draws=("9p",), seed=9)
    t.start()
    t.deal()
    t.draw(0)
    t.hands[0].remove("4z")
    t.emit(ev.Meld, seat=0, meld_kind="nuki", tiles=("4z",))
    t.log.append(TH.Nuki(0, "4z"))
    t.button(1, "ron")
    t.reveal(1, win_tile="4z", extra="4z")
    s, _ = play(t.events, s)
    assert s.alerts == []
    want = replay_hand(t.log_hand(0, 0, 0, 0, (35000,) * 3, won(1, 0)), RULES)
    assert s.result == want
    assert want["wins"][0]["yaku"] == [["chiitoitsu", 2]] and want["deltas"][:3] == [-1600, 1600, 0]
