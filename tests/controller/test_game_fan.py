"""The tracker follows Hong Kong and Chinese games (controller.tracker.fan.family) from the table's events.

Each hand is played on a simulated table whose walls hold known tiles: the walls are planned
from the dice by controller.rules.walls, the tiles placed with ``layout_from_roll`` (the hands
and draws a scenario needs, the rest of the set shuffled with a fixed seed), and the table
reports what the firmware and a perfect camera would: the lift, the dice, every wall slot
taken, flowers set aside, discards, melds, buttons, revealed hands. The tracker never sees
the concealed tiles.
"""

from __future__ import annotations

import random

import pytest

from controller import events as ev
from controller import tracker as G
from controller.daemon import Core
from controller.rules import chinese as CH
from controller.rules import dice as DC
from controller.rules import hk as HK
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.hk.arrange import Meld
from controller.rules.ruleset import load as load_rules
from controller.tracker.fan import family as FAN


class Table:
    """One hand on a table with known walls; ``events`` is what the tracker is told."""

    def __init__(self, ruleset: str, dealer: int, rolls, hands, *, draws=(), replacements=(), seed: int = 0,
                 now: float = 0.0) -> None:
        self.rules = load_rules(ruleset)
        proc = self.rules.procedures
        self.dealer, self.rolls = dealer, [tuple(r) for r in rolls]
        lay = WL.plan(proc, dealer, self.rolls)
        placed = WL.layout_from_roll(lay, hands=[T.parse(h) for h in hands], draws=list(draws),
                                     replacements=list(replacements))
        fixed = {s for hand in lay.hand_slots for s in hand}
        fixed |= set(lay.draw_slots[:len(draws)]) | set(lay.replacement_slots[:len(replacements)])
        free = [s for s in lay.all_slots if s not in fixed]
        rest = [placed[s] for s in free]
        random.Random(seed).shuffle(rest)
        placed.update(zip(free, rest, strict=True))
        self.lay = lay
        self.ws = WL.WallState(lay, placed)
        self.height = {pos: 2 for pos in {s.stack_pos for s in lay.all_slots}}
        self.hands: list[list[str]] = [[] for _ in range(4)]
        self.events: list[ev.Event] = []
        self.now = now
        self.per_wall = 2 * proc.stacks_per_side

    def emit(self, e_cls, **kw) -> None:
        self.now += 1.0
        self.events.append(e_cls(now=self.now, **kw))

    def take(self, slot: WL.WallSlot) -> None:
        self.height[slot.stack_pos] -= 1
        self.emit(ev.WallStackTaken, wall=slot.seat, stack=slot.stack, tiles_left=self.height[slot.stack_pos])

    def start(self) -> None:
        """The lift and the dealer's dice (and the second roll by the wall's owner where the profile has one)."""
        self.emit(ev.LiftDone, counts=(self.per_wall,) * 4)
        method = self.rules.procedures.break_method
        for i, dice in enumerate(self.rolls):
            seat, _n = DC.next_roller(method, self.dealer, self.rolls[:i])
            self.emit(ev.Button, seat=seat, action="dice")
            self.emit(ev.DiceResult, seat=seat, dice=dice)

    def deal(self) -> None:
        for _seat, slot in self.lay.deal_takes:
            self.take(slot)
        for seat, takes in enumerate(self.ws.deal()):
            self.hands[seat] = [t.tile for t in takes]
        for i in range(4):   # flowers of the deal: the dealer first, then counter-clockwise
            self.flowers((self.dealer + i) % 4)

    def flowers(self, seat: int) -> None:
        while any(T.is_flower(t) for t in self.hands[seat]):
            flower = next(t for t in self.hands[seat] if T.is_flower(t))
            self.hands[seat].remove(flower)
            self.emit(ev.FlowerSetAside, seat=seat, tile=flower)
            self.replace(seat, "flower")

    def replace(self, seat: int, reason: str) -> str:
        n_refilled = len(self.ws.refilled())
        take = self.ws.draw_replacement(reason)
        self.take(take.slot)
        for moved in self.ws.refilled()[n_refilled:]:   # the last live tile moves to the tail
            self.take(moved.slot)
        self.hands[seat].append(take.tile)
        return take.tile

    def draw(self, seat: int) -> str:
        take = self.ws.draw()
        self.take(take.slot)
        self.hands[seat].append(take.tile)
        self.flowers(seat)
        return self.hands[seat][-1]

    def discard(self, seat: int, tile: str | None = None) -> str:
        tile = tile or self.hands[seat][-1]
        if tile in self.hands[seat]:
            self.hands[seat].remove(tile)
        self.emit(ev.Discard, seat=seat, tile=tile)
        return tile

    def turn(self, seat: int, tile: str | None = None) -> str:
        self.draw(seat)
        return self.discard(seat, tile)

    def meld(self, seat: int, kind: str, tiles: str, called: str | None = None, source: int | None = None) -> None:
        ts = T.parse(tiles)
        rest = list(ts)
        if called is not None:
            rest.remove(called)
        for t in rest:
            if t in self.hands[seat]:
                self.hands[seat].remove(t)
        self.emit(ev.Meld, seat=seat, meld_kind=kind, tiles=tuple(ts), called=called, source=source)
        if kind in ("ankan", "daiminkan", "kakan"):
            self.replace(seat, "kan")

    def button(self, seat: int, action: str) -> None:
        self.emit(ev.Button, seat=seat, action=action)

    def reveal(self, seat: int, tiles: str, win_tile: str | None = None) -> None:
        self.emit(ev.HandRevealed, seat=seat, tiles=tuple(T.parse(tiles)), win_tile=win_tile)

    def play_out(self) -> None:
        """The dealer throws its 14th tile; then everybody draws and throws the drawn tile until the
        live wall is empty."""
        self.discard(self.dealer)
        seat = (self.dealer + 1) % 4
        while self.ws.live_remaining > 0:
            self.turn(seat)
            seat = (seat + 1) % 4


def play(events, state=None):
    s = state or G.new_state()
    out = []
    for e in events:
        s, cmds = G.step(s, e, e.now)
        out += cmds
    return s, out


def start(ruleset: str, **kw):
    return play([ev.StartGame(ruleset=ruleset, players=("A", "B", "C", "D"), **kw)])


# --------------------------------------------------------------------------- Hong Kong

HK_HANDS = ("1f234s678s345p6p7m1z",          # seat 0, dealer: an own flower (plum, East)
            "7777p11s56m34m89p6z",            # seat 1: a concealed kong
            "111m222m99m11z5z3f4p",           # seat 2: the winner, a flower of its own (chrysanthemum, West)
            "9m99p22z33z44z66m88m")          # seat 3
HK_DRAWS = ("2p", "7z", "1p", "9s", "3m", "8s")   # the dealer's jump tile, then the draws in turn
HK_REPL = ("3s", "5z", "6z")                  # seat 0's flower, seat 2's flower, seat 1's kong


def hk_hand(*, ruleset: str = "hk", rolls=((2, 3, 4), (5, 6)), out_of_turn: bool = False) -> Table:
    """E1 in Hong Kong: flowers in the deal, a pung, a concealed kong, a win on a discard."""
    t = Table(ruleset, 0, rolls, HK_HANDS, draws=HK_DRAWS, replacements=HK_REPL, seed=3)
    t.start()
    t.deal()
    t.discard(0, "1z")
    t.meld(2, "pon", "111z", called="1z", source=0)
    t.discard(2, "4p")
    if out_of_turn:
        t.emit(ev.Discard, seat=1, tile="5m")          # seat 1 throws while it is seat 3's turn
        t.emit(ev.DiscardRemoved, seat=1, index=0, tile="5m")
    t.turn(3, "7z")
    t.turn(0, "1p")
    t.draw(1)
    t.meld(1, "ankan", "7777p")
    t.discard(1, "6z")
    t.turn(2, "3m")
    t.draw(3)
    t.discard(3, "9m")
    t.button(2, "ron")
    t.reveal(2, "111m222m99m55z")                   # the 9m stays in the river
    return t


def test_hk_hand_followed_and_scored_by_the_fan_table():
    s, cmds = start("hk")
    assert isinstance(s, FAN.FanState) and s.phase == "walls"
    assert [type(c) for c in cmds] == [ev.Shuffle, ev.Lift]
    t = hk_hand()
    s, cmds = play(t.events, s)
    # dice: three by the dealer, then two by the owner of the wall the three point at (S003)
    rolls = [c for c in cmds if isinstance(c, ev.RollDice)]
    assert [(c.seat, c.count) for c in rolls] == [(0, 3), (DC.hk_wall_offset(9), 2)]
    assert s.phase == "result" and s.alerts == []
    res = s.result
    want = HK.score("111m222m999m55z", win_tile="9m", melds=[Meld.of("pon", "111z")], flowers=["3f"], seat_wind=2)
    (win,) = res["wins"]
    assert (win["pattern"], win["fan"], win["points"]) == (want.pattern, want.fan, want.points)
    # hand-checked against S003's table: 混碰 (mixed one suit + all pungs) is 4 fan, 16 points;
    # the discarder pays the shares of all three (RULINGS)
    assert (win["pattern"], win["fan"], win["points"]) == ("hun_peng", 4, 16)
    assert res["deltas"] == [0, 0, 48, -48] == list(HK.payments(16, 2, 3))
    assert win["flowers"] == ["3f"] and win["from"] == 3 and not win["is_self_draw"]
    assert [c for c in cmds if isinstance(c, ev.Show) and c.what == "result"][-1].data == res
    pub = G.public_state(s)
    assert [x["flowers"] for x in pub["seats"]] == [["1f"], [], ["3f"], []]
    assert pub["seats"][2]["melds"] == [{"kind": "pon", "tiles": ["1z", "1z", "1z"]}]
    assert pub["seats"][1]["melds"] == [{"kind": "ankan", "tiles": ["7p"] * 4}]
    # the live wall: 144 - 14 (tail) - 53 (deal) - 5 draws - 3 refills after the replacement draws
    assert pub["live_wall"] == 144 - 14 - 53 - 5 - 3 == t.ws.live_remaining
    # applied on the ok button: scores, the score sheet, the deal rotates (S003:L127)
    s, cmds = play([ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    pub = G.public_state(s)
    assert [x["score"] for x in pub["seats"]] == [25000, 25000, 25048, 24952]
    assert pub["hands"] == [{"hand": 0, "round": "E1", "honba": 0, "outcome": "win", "deltas": [0, 0, 48, -48],
                             "scores": [25000, 25000, 25048, 24952]}]
    assert (pub["round"], pub["dealer"], pub["hand_index"], s.phase) == ("E2", 1, 1, "walls")
    assert pub["last_result"] == res
    assert [type(c) for c in cmds] == [ev.Shuffle, ev.Lift]


def test_public_state_contract_fields_at_every_step():
    s, _ = start("hk")
    for e in hk_hand().events:
        s, _ = G.step(s, e, e.now)
        pub = G.public_state(s)
        for key in ("table", "ruleset", "round", "honba", "riichi_sticks", "hand_index", "dealer", "finished",
                    "seats", "dora_indicators", "dora", "live_wall", "last_result", "alerts", "hands"):
            assert key in pub
        assert pub["riichi_sticks"] == 0 and pub["dora_indicators"] == [] and pub["dora"] == []
        for seat in pub["seats"]:
            assert set(seat) >= {"wind", "score", "riichi", "name", "river", "melds", "flowers"}
            assert seat["riichi"] is False
    assert [x["wind"] for x in pub["seats"]] == ["E", "S", "W", "N"]
    assert [x["name"] for x in pub["seats"]] == ["A", "B", "C", "D"]


def test_step_never_changes_the_state_it_is_given_and_replays_the_same():
    s, _ = start("hk")
    events = hk_hand().events
    for e in events:
        before = repr(s)
        s2, _ = G.step(s, e, e.now)
        assert repr(s) == before
        s = s2
    again, _ = play(events, start("hk")[0])
    assert G.public_state(again) == G.public_state(s)


def test_out_of_turn_discard_names_seat_and_tile():
    s, _ = start("hk")
    s, cmds = play(hk_hand(out_of_turn=True).events, s)
    alerts = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert [(a.rule, a.seat, a.tile) for a in alerts] == [("out_of_turn", 1, "5m")]
    assert "seat 1 discards 5m while it is seat 3's turn" in alerts[0].message and alerts[0].is_public
    # the tile went back: the hand goes on as before and still scores the same
    assert s.result["deltas"] == [0, 0, 48, -48]
    assert G.public_state(s)["seats"][1]["river"] == ["6z"]


def test_hk_fifth_copy_and_second_flower_are_caught():
    s, _ = start("hk")
    t = hk_hand()
    s, _ = play(t.events[:-3], s)            # up to seat 3's draw
    s, cmds = play([ev.Discard(seat=3, tile="7p", now=500.0), ev.FlowerSetAside(seat=0, tile="1f", now=501.0)], s)
    got = [(c.alert.rule, c.alert.seat, c.alert.tile) for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert ("fifth_tile", 3, "7p") in got            # four 7p in seat 1's kong
    assert ("fifth_tile", 0, "1f") in got            # one plum in the set
    assert G.staff_alerts(s)[0]["rule"] == "fifth_tile"


def test_hk_lift_counts_checked_against_the_profile():
    s, _ = start("hk")
    s, cmds = play([ev.LiftDone(counts=(36, 36, 35, 36), now=1.0)], s)
    (a,) = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert (a.rule, a.seat) == ("missing_tile", 2) and "143 tiles, the set has 144" in a.message
    assert s.phase == "dice" and cmds[-1] == ev.LightButton(seat=0, action="dice", now=1.0)


def test_hk_retry_lights_the_dealers_dice_lamp_again_while_the_roll_is_owed():
    s, _ = start("hk")
    s, _ = play([ev.LiftDone(counts=(36, 36, 36, 36), now=1.0)], s)
    s, cmds = G.step(s, ev.Correction(what="retry", reason="shuffler fault cleared"), 2.0)
    assert s.phase == "dice" and cmds == [ev.LightButton(seat=0, action="dice", now=2.0)]
    assert s.corrections[-1]["what"] == "retry"


def _hk_end_game():
    """The last two hands of a HK game: N3 drawn out, N4 won by the dealer on a self-draw."""
    scores = (26000, 24000, 25500, 24500)
    s, cmds = start("hk", start_round=14, start_scores=scores)
    assert (G.public_state(s)["round"], s.dealer) == ("N3", 2)
    t = Table("hk", 2, [(1, 1, 1), (2, 2)], ("123456789m1234p", "1234567891234s", "1122334455667z", "5566778899p1z2z3z"),
              seed=11)
    t.start()
    t.deal()
    t.play_out()
    s, cmds = play(t.events, s)
    return s, cmds, scores, t


def test_hk_exhaustive_draw_rotates_the_deal_and_the_game_ends_after_the_north_round():
    s, cmds, scores, t = _hk_end_game()
    res = s.result
    assert s.phase == "result" and res["outcome"] == "exhaustive_draw" and res["deltas"] == [0, 0, 0, 0]
    assert res["next_dealer"] == 3 and res["next_round"] == "N4" and not res["game_over"]
    # every flower drawn was set aside and replaced from the tail
    shown = [[e.tile for e in t.events if isinstance(e, ev.FlowerSetAside) and e.seat == i] for i in range(4)]
    assert [x["flowers"] for x in G.public_state(s)["seats"]] == shown and sum(map(len, shown)) >= 5
    assert G.public_state(s)["live_wall"] == 0
    assert [x["rule"] for x in G.staff_alerts(s)] == []
    s, _ = play([ev.ConfirmResult(hand_index=0, now=t.now + 1)], s)
    assert (G.public_state(s)["round"], s.dealer, s.hand_index, s.honba) == ("N4", 3, 1, 0)
    # N4: the dealer wins on a self-draw with all chows (平胡)
    hands = ("1112223334445m", "1112223334445p", "1112223334445s", "123m456m789m234p5s")
    t2 = Table("hk", 3, [(6, 6, 6), (3, 4)], hands, draws=("5s",), seed=5, now=t.now + 10)
    t2.start()
    t2.deal()
    t2.button(3, "tsumo")
    t2.reveal(3, "123m456m789m234p5s5s", win_tile="5s")
    s, cmds = play(t2.events, s)
    (win,) = s.result["wins"]
    want = HK.score("123m456m789m234p55s", win_tile="5s", is_self_draw=True, seat_wind=0)
    assert (win["pattern"], win["fan"], win["points"]) == (want.pattern, want.fan, want.points)
    # S003's table: 平胡 is 1 fan, 2 points; on a self-draw each of the three pays one share
    assert (win["pattern"], win["points"]) == ("ping_hu", 2)
    assert s.result["deltas"] == [-2, -2, -2, 6] and s.result["game_over"]
    s, cmds = play([ev.Button(seat=3, action="ok", now=t2.now + 1)], s)
    final = [scores[0] - 2, scores[1] - 2, scores[2] - 2, scores[3] + 6]
    pub = G.public_state(s)
    assert pub["finished"] and s.phase == "ended" and pub["settlement"] == [float(x) for x in final]
    assert [r["outcome"] for r in pub["hands"]] == ["exhaustive_draw", "win"]
    assert [r["round"] for r in pub["hands"]] == ["N3", "N4"]
    assert pub["hands"][-1]["scores"] == final
    assert any(isinstance(c, ev.Show) and c.what == "settlement" for c in cmds)


def test_a_finished_hk_game_is_exported_with_its_score_sheet(tmp_path):
    """``tablectl export`` over a store holding a Hong Kong game: no tenhou.net/6 form, so the score
    sheet and the final scores."""
    from controller.daemon_export import export_games
    from controller.storage import EventStore

    scores = (26000, 24000, 25500, 24500)
    first = ev.StartGame(ruleset="hk", players=("A", "B", "C", "D"), start_round=14, start_scores=scores)
    s, _cmds, _scores, t = _hk_end_game()
    hands = ("1112223334445m", "1112223334445p", "1112223334445s", "123m456m789m234p5s")
    t2 = Table("hk", 3, [(6, 6, 6), (3, 4)], hands, draws=("5s",), seed=5, now=t.now + 10)
    t2.start()
    t2.deal()
    t2.button(3, "tsumo")
    t2.reveal(3, "123m456m789m234p5s5s", win_tile="5s")
    stream = [first, *t.events, ev.ConfirmResult(hand_index=0, now=t.now + 1), *t2.events,
              ev.Button(seat=3, action="ok", now=t2.now + 1)]
    store = EventStore.open(tmp_path, synchronous="normal")
    try:
        for e in stream:
            store.append("test", e.KIND, ev.to_record(e))
        (game,) = export_games(store)
    finally:
        store.close()
    final = [scores[0] - 2, scores[1] - 2, scores[2] - 2, scores[3] + 6]
    assert game["rule"] == {"disp": "hk"} and game["name"] == ["A", "B", "C", "D"] and game["sc"] == final
    assert [(r["round"], r["outcome"], r["scores"]) for r in game["sheet"]] == [
        ("N3", "exhaustive_draw", list(scores)), ("N4", "win", final)]


def test_hk_not_a_win_waits_for_staff():
    s, _ = start("hk")
    t = hk_hand()
    events = t.events[:-1] + [ev.HandRevealed(seat=2, tiles=tuple(T.parse("111m222m99m56z")), now=t.now)]
    s, _ = play(events, s)
    assert s.result is None and "does not win" in s.result_error
    s, cmds = play([ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    assert [c.alert.rule for c in cmds if isinstance(c, ev.RaiseAlert)] == ["inconsistent"]
    s, _ = play([ev.Correction(what="hand", reason="misread", data={"seat": 2, "tiles": T.parse("111m222m999m55z"),
                                                                      "win_tile": "9m"}, now=t.now + 2)], s)
    assert s.result["deltas"] == [0, 0, 48, -48]


# --------------------------------------------------------------------------- Chinese

CH_HANDS = ("789m456p789s11z5s9p",      # seat 0, dealer: pungs East from seat 2, waits on 5s
            "3333m1122p6677s4z",          # seat 1: a concealed kong
            "1z2468m1357p2468s",          # seat 2
            "3333s2z3z6z7z99m11s8s")     # seat 3
CH_DRAWS = ("8p", "7m", "9m", "9s", "2z", "6m")


def ch_hand(*, extra_draw: bool = False, now: float = 0.0) -> Table:
    """E1 under the Chinese rules: two rolls summed, a pung of the dealer's wind, a concealed kong
    (the tail shrinks from 10 stacks to 7), a win on a discard."""
    t = Table("chinese", 0, [(1, 3), (3, 4)], CH_HANDS, draws=CH_DRAWS, replacements=("8m",), seed=7, now=now)
    t.start()
    t.deal()
    t.discard(0, "8p")
    t.draw(1)
    t.meld(1, "ankan", "3333m")
    t.discard(1, "4z")
    t.turn(2, "1z")
    t.meld(0, "pon", "111z", called="1z", source=2)
    t.discard(0, "9p")
    t.turn(1, "9s")
    if extra_draw:
        t.draw(2)                                   # seat 2 takes two tiles (大相公)
    t.turn(2, "5s")
    t.button(0, "ron")
    t.reveal(0, "789m456p789s5s5s", win_tile="5s")
    return t


def test_chinese_hand_followed_and_scored_by_the_wind_rules():
    s, _ = start("chinese")
    t = ch_hand()
    s, cmds = play(t.events, s)
    rolls = [c for c in cmds if isinstance(c, ev.RollDice)]
    assert [(c.seat, c.count) for c in rolls] == [(0, 2), (3, 2)]     # S000: 4 points at the left seat
    assert s.phase == "result" and s.alerts == []
    want = CH.score("789m456p789s55s", win_tile="5s", melds=[Meld.of("pon", "111z")], seat_wind=0, round_wind=0,
                    winner=0, discarder=2)
    (win,) = s.result["wins"]
    assert (win["fan"], win["points"], s.result["deltas"]) == (want.fan, want.points, list(want.payments))
    # hand-checked (S000:L20-21, RULINGS): the East pung in the East round is 双东, 2 fan; 1 x 2^2 = 4,
    # paid by the discarder
    assert (win["fan"], win["points"], win["reasons"]) == (2, 4, ["double_wind"])
    assert s.result["deltas"] == [4, 0, -4, 0]
    assert G.public_state(s)["seats"][1]["melds"] == [{"kind": "ankan", "tiles": ["3m"] * 4}]
    # the first kong released three of the tail's ten stacks to the live wall (S000: 10, then 7)
    assert G.public_state(s)["live_wall"] == 136 - 20 - 53 - 4 + 6 == t.ws.live_remaining
    # the dealer won: he keeps the deal (连庄, S000:L16)
    s, _ = play([ev.Button(seat=0, action="ok", now=t.now + 1)], s)
    pub = G.public_state(s)
    assert (pub["round"], pub["dealer"], pub["honba"], pub["hand_index"]) == ("E1", 0, 1, 1)
    assert [x["score"] for x in pub["seats"]] == [25004, 25000, 24996, 25000]
    assert pub["hands"][0]["deltas"] == [4, 0, -4, 0]


def test_a_hand_seen_laid_down_before_its_win_button_arrived_is_the_winners_reveal():
    """The camera may see the hand laid down before the seat's ron button reaches the game (the
    button over the MCU link, the hand over the camera): the result is the same."""
    s, _ = start("chinese")
    t = ch_hand()
    button, reveal = t.events[-2], t.events[-1]
    assert isinstance(button, ev.Button) and isinstance(reveal, ev.HandRevealed)
    s_late, _ = play(t.events[:-2] + [reveal, button], s)
    s_first, _ = play(t.events, s)
    assert s_late.phase == s_first.phase == "result" and s_late.alerts == []
    assert s_late.result == s_first.result and s_late.result["deltas"] == [4, 0, -4, 0]


def test_chinese_wrong_size_hand_hidden_mid_hand_then_public_at_hand_end():
    s, _ = start("chinese")
    t = ch_hand(extra_draw=True)
    cut = len(t.events) - 2                      # before the ron is declared
    s, cmds = play(t.events[:cut], s)
    (a,) = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert (a.rule, a.seat, a.is_public) == ("wrong_hand_size", 2, False)
    assert "大相公" in a.message
    assert [x["rule"] for x in G.staff_alerts(s)] == ["wrong_hand_size"]
    assert G.public_state(s)["alerts"] == []            # not announced at the table mid-hand
    s, _ = play(t.events[cut:], s)
    assert s.phase == "result"
    assert [(x["rule"], x["seat"]) for x in G.public_state(s)["alerts"]] == [("wrong_hand_size", 2)]


def test_hk_extra_draw_is_public_at_once():
    s, _ = start("hk")
    t = hk_hand()
    k = next(i for i, e in enumerate(t.events) if isinstance(e, ev.Discard) and e.tile == "7z")
    slot = t.ws.layout.draw_slots[5]
    extra = ev.WallStackTaken(wall=slot.seat, stack=slot.stack, tiles_left=1, now=t.events[k].now - 0.5)
    s, cmds = play(t.events[:k] + [extra], s)
    (a,) = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert (a.rule, a.seat, a.is_public) == ("extra_draw", 3, True)
    assert G.public_state(s)["alerts"][0]["rule"] == "extra_draw"


def test_chinese_false_win_pays_the_penalty_and_the_deal_passes():
    s, _ = start("chinese")
    t = ch_hand()
    events = t.events[:-1] + [ev.HandRevealed(seat=0, tiles=tuple(T.parse("789m456p789s5s6s")), now=t.now)]
    s, _ = play(events, s)
    res = s.result
    assert res["outcome"] == "false_win" and res["false_win"]["seat"] == 0
    assert res["deltas"] == list(CH.false_win_penalty(0, 0, load_rules("chinese").chinese)) == [-3, 1, 1, 1]
    s, _ = play([ev.ConfirmResult(hand_index=0, now=t.now + 1)], s)
    assert (s.dealer, G.public_state(s)["round"]) == (1, "E2")


def test_chinese_three_claims_on_one_discard_are_a_draw():
    s, _ = start("chinese")
    t = ch_hand()
    k = next(i for i, e in enumerate(t.events) if isinstance(e, ev.Button) and e.action == "ron")
    claims = [ev.Button(seat=x, action="ron", now=t.events[k].now + i) for i, x in enumerate((0, 1, 3))]
    s, _ = play(t.events[:k] + claims, s)
    assert s.result["kind"] == "three_claims" and s.result["outcome"] == "abortive_draw"
    assert s.result["deltas"] == [0, 0, 0, 0] and s.result["next_dealer"] == 0   # as an exhaustive draw: stays


def test_chinese_four_winds_in_the_first_go_round_end_the_hand():
    s, _ = start("chinese")
    hands = ("1z123m456p789s1s2s3s", "1z4m5m6m4p5p6p7s8s9s1p2p3p", "1z9m9m9m8p8p8p2s3s4s7m7m7m",
             "1z6m7m8m1p2p3p4s5s6s9p9p9p")
    t = Table("chinese", 0, [(2, 2), (1, 1)], hands, draws=("5z", "6z", "7z", "5z"), seed=2)
    t.start()
    t.deal()
    t.discard(0, "1z")
    for seat in (1, 2, 3):
        t.turn(seat, "1z")
    s, _ = play(t.events, s)
    assert s.result["kind"] == "four_winds" and s.result["next_dealer"] == 1
    assert s.result["deltas"] == [0, 0, 0, 0]


def test_chinese_exhaustive_draw_dealer_stays():
    s, _ = start("chinese")
    t = Table("chinese", 0, [(6, 5), (2, 3)], ("123456789m1234p", "1234567891234s", "1122334455667z",
                                                "5566778899p1z2z3z"), seed=4)
    t.start()
    t.deal()
    t.play_out()
    s, _ = play(t.events, s)
    assert s.result["outcome"] == "exhaustive_draw" and s.result["deltas"] == [0, 0, 0, 0]
    s, _ = play([ev.Button(seat=2, action="ok", now=t.now + 1)], s)
    assert (s.dealer, s.honba, G.public_state(s)["round"]) == (0, 1, "E1")


def test_first_dealer_rolled_at_the_table():
    s, cmds = start("chinese", first_dealer="one_roll")
    assert s.phase == "seating" and cmds == [ev.LightButton(seat=0, action="dice")]
    s, cmds = play([ev.Button(seat=0, action="dice", now=1.0)], s)
    assert cmds == [ev.RollDice(seat=0, count=2, now=1.0)]
    s, cmds = play([ev.DiceResult(seat=0, dice=(3, 4), now=2.0)], s)   # 7: the chair across deals
    assert s.players == ("C", "D", "A", "B") and s.first_dealer_chair == 2 and s.phase == "walls"
    assert cmds[0].what == "seating"


def test_void_hand_restores_the_scores():
    s, _ = start("hk")
    t = hk_hand()
    s, _ = play(t.events, s)
    s, cmds = play([ev.VoidHand(reason="two sets mixed", now=t.now + 1)], s)
    assert [x.score for x in s.seats] == [25000] * 4 and s.phase == "walls" and s.dealer == 0
    assert s.history[-1]["outcome"] == "void"


def test_daemon_core_runs_a_fan_game_and_serves_its_state():
    core = Core("t1", "hk")
    core.apply(ev.StartGame(ruleset="hk", players=("A", "B", "C", "D")))
    for e in hk_hand().events:
        core.apply(e)
    assert core.errors == []
    view = core.view()
    assert view["ruleset"] == "hk" and view["pending_result"]["deltas"] == [0, 0, 48, -48]
    assert view["seats"][2]["flowers"] == ["3f"]


def test_a_riichi_game_after_a_fan_game_goes_back_to_the_riichi_tracker():
    s, _ = start("hk")
    s, cmds = play([ev.StartGame(ruleset="tenhou", now=1.0)], s)
    assert isinstance(s, G.GameState) and s.phase == "walls"
    assert G.public_state(s)["dora_indicators"] == []
    s, _ = play([ev.StartGame(ruleset="competition", now=2.0)], s)
    assert isinstance(s, FAN.FanState) and s.rules.procedures.tile_set == "144"


@pytest.mark.parametrize("ruleset", ["nope"])
def test_profiles_not_followed_are_still_refused(ruleset):
    s, cmds = start(ruleset)
    assert s.phase == "idle" and cmds[0].alert.rule == "inconsistent"


def _whole_stream(seed: int) -> list[ev.Event]:
    """Two HK hands and a drawn-out one, as one stream (for the garbling test)."""
    events: list[ev.Event] = [ev.StartGame(ruleset="hk", players=("A", "B", "C", "D"))]
    t = hk_hand()
    events += t.events + [ev.Button(seat=0, action="ok", now=t.now + 1)]
    t2 = Table("hk", 1, [(4, 4, 4), (1, 6)], ("123456789m1234p", "1234567891234s", "1122334455667z",
                                              "5566778899p1z2z3z"), seed=seed, now=t.now + 5)
    t2.start()
    t2.deal()
    t2.play_out()
    return events + t2.events + [ev.ConfirmResult(hand_index=1, now=t2.now + 1)]


@pytest.mark.parametrize("seed", range(8))
def test_garbled_event_streams_never_break_the_tracker(seed):
    """Dropped, repeated, swapped and mis-seated events, stray staff actions: the tracker keeps
    answering (alerts, no exception) and its public state stays JSON."""
    import dataclasses
    import json
    rng = random.Random(seed)
    out: list[ev.Event] = []
    for e in _whole_stream(seed):
        r = rng.random()
        if r < 0.03:
            continue
        if r < 0.06:
            out.append(e)
        if r < 0.09 and hasattr(e, "seat") and not isinstance(e, ev.StartGame):
            e = dataclasses.replace(e, seat=rng.randrange(4))
        if r < 0.11 and len(out) > 1:
            out[-1], e = e, out[-1]
        out.append(e)
    for x in (ev.ConfirmResult(hand_index=rng.randrange(3)), ev.VoidHand(reason="test"),
              ev.Correction(what="discard", reason="r", data={"seat": 1, "index": rng.randrange(30), "tile": "5m"}),
              ev.Correction(what="hand", reason="r", data={"seat": 2, "tiles": ["1m"] * 13}),
              ev.Correction(what="winner", reason="r", data={"seat": 3}),
              ev.Correction(what="discard", reason="r", data={"seat": "x"}),
              ev.StaffDeclare(seat=1, action="ron"), ev.Button(seat=0, action="tsumo"),
              ev.FlowerSetAside(seat=2, tile="5f"), ev.FlowerSetAside(seat=1, tile="5m"),
              ev.Meld(seat=3, meld_kind="kakan", tiles=("2m",) * 4, called="2m"),
              ev.Meld(seat=0, meld_kind="chi", tiles=("1m", "2m", "3m"), called="1m", source=2),
              ev.HandRevealed(seat=1, tiles=("1f", "1m")),
              ev.Button(seat=2, action="draw"), ev.DiscardRemoved(seat=1, index=0, tile="1m", replaced_by="2m")):
        out.insert(rng.randrange(1, len(out)), x)
    s = G.new_state()
    for e in out:
        s, cmds = G.step(s, e, e.now)
        assert all(isinstance(c, ev.Command) for c in cmds)
    json.dumps(G.public_state(s))


def test_a_call_on_the_last_discard_is_named():
    s, _ = start("chinese")
    t = Table("chinese", 0, [(6, 5), (2, 3)], ("123456789m1234p", "1234567891234s", "1122334455667z",
                                                "5566778899p1z2z3z"), seed=4)
    t.start()
    t.deal()
    t.play_out()
    s, _ = play(t.events, s)
    last = t.events[-1]
    s, cmds = play([ev.Meld(seat=(last.seat + 2) % 4, meld_kind="pon", tiles=(last.tile,) * 3, called=last.tile,
                            source=last.seat, now=t.now + 1)], s)
    (a,) = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert (a.rule, a.tile) == ("last_discard_call", last.tile) and s.result["outcome"] == "exhaustive_draw"


def test_competition_plays_with_flowers_and_scores_by_the_chinese_rules():
    s, _ = start("competition")
    t = hk_hand(ruleset="competition", rolls=((2, 3), (5, 6)))
    s, cmds = play(t.events, s)
    assert s.alerts == [] and [x["flowers"] for x in G.public_state(s)["seats"]] == [["1f"], [], ["3f"], []]
    want = CH.score("111m222m999m55z", win_tile="9m", melds=[Meld.of("pon", "111z")], seat_wind=2, round_wind=0,
                    winner=2, discarder=3, dealer=0, rules=load_rules("competition").chinese)
    (win,) = s.result["wins"]
    # no wind of its own in the hand: 0 fan, the base value 1, paid by the discarder
    assert (win["fan"], win["points"], s.result["deltas"]) == (want.fan, want.points, list(want.payments))
    assert s.result["deltas"] == [0, 0, 1, -1]


def test_chinese_robbing_a_kong_is_paid_by_the_kong_player():
    s, _ = start("chinese")
    hands = ("55p123m456m789m12s", "34p123s456s789s99m", "1122334455667z", "5678p11m2m33m4m5m7z6z")
    t = Table("chinese", 0, [(1, 3), (3, 4)], hands, draws=("9s", "8s", "9p", "1p", "7z", "6s", "2s", "5p"), seed=7)
    t.start()
    t.deal()
    t.discard(0, "9s")
    t.turn(1, "8s")
    t.turn(2, "9p")
    t.turn(3, "5p")
    t.meld(0, "pon", "555p", called="5p", source=3)
    t.discard(0, "1s")
    t.turn(1, "7z")
    t.turn(2, "6s")
    t.turn(3, "2s")
    t.draw(0)
    t.emit(ev.Meld, seat=0, meld_kind="kakan", tiles=("5p",) * 4, called="5p")   # robbed before its replacement
    t.button(1, "ron")
    t.reveal(1, "34p123s456s789s99m")
    s, _ = play(t.events, s)
    assert s.alerts == []
    (win,) = s.result["wins"]
    assert win["robbed_kong"] and win["from"] == 0 and win["win_tile"] == "5p"
    want = CH.score("34p123s456s789s99m5p", win_tile="5p", seat_wind=1, round_wind=0, winner=1, dealer=0,
                    robbed_kong_by=0)
    assert s.result["deltas"] == list(want.payments) == [-1, 1, 0, 0]   # S004:L43: paid as a discard


def test_hk_wrong_size_hand_revealed_is_refused_and_public():
    s, _ = start("hk")
    t = hk_hand()
    events = t.events[:-1] + [ev.HandRevealed(seat=2, tiles=tuple(T.parse("111m222m99m55z9s9m")), now=t.now)]
    s, cmds = play(events, s)
    (a,) = [c.alert for c in cmds if isinstance(c, ev.RaiseAlert)]
    assert (a.rule, a.seat, a.is_public) == ("wrong_hand_size", 2, True) and "大相公" in a.message
    assert s.result is None and "15 tiles" in s.result_error


def test_a_refused_start_keeps_the_fan_game():
    s, _ = start("hk")
    s, _ = play(hk_hand().events, s)
    s2, cmds = play([ev.StartGame(ruleset="nope", now=900.0)], s)
    assert s2 is s and cmds[0].alert.rule == "inconsistent"
