"""Scripted games: a tenhou.net/6 log turned into what the simulated table physically does.

``tablectl demo --script FILE`` has the simulated table act out a recorded game (see
``contracts/table-api.md``). For every hand of the log this module builds a
:class:`HandScript`:

- a dice roll and the walls laid out for it (PROC's :func:`controller.rules.walls.layout_from_roll`),
  so that the deal, every draw, the replacement tiles and the indicators come out as recorded;
- the physical actions in order, as plain JSON objects (``op`` first):

  ============== ==========================================================================
  ``lift``       the walls rise; ``counts`` tiles per wall; ``odd_backs`` slots showing the
                 other set's back colour
  ``press``      ``seat`` presses its ``action`` button (dice, tsumo, ron, draw, ok)
  ``dice``       the table shows ``dice`` rolled for ``seat``
  ``take``       ``seat`` takes the tile at ``wall``/``stack``/``layer`` (``tile``) into its hand
  ``refill``     the lower tile of ``wall``/``stack`` moves to the dead wall (after a kan)
  ``discard``    ``seat`` puts ``tile`` in its river (``is_riichi``: sideways)
  ``take_back``  ``seat`` picks discard number ``index`` (``tile``) back up
  ``meld``       ``seat`` lays out a meld (``meld_kind``, ``tiles``, ``called``, ``source``)
  ``stick``      ``seat`` puts out a riichi stick
  ``flip``       the tile at ``wall``/``stack``/``layer`` is turned face up (``is_ura``: an ura
                 indicator at the end of a riichi win)
  ``swap_indicator`` the indicator at ``wall``/``stack`` is exchanged for ``tile``
  ``reveal``     ``seat`` lays its standing tiles face up (``win_tile`` set apart, or null)
  ``keep``       after the hand, ``seat`` keeps ``tile`` back instead of pushing it into the
                 centre (an injected ``set_mismatch``)
  ``stacked``    the machine has built the set returned after the last hand again (shuffled in
                 the background) and counted ``counts`` tiles in its lanes
  ============== ==========================================================================

- the faults injected into it (``--inject RULE@HAND[:SEAT]``), for the tests: the daemon is
  never told. :data:`FAULT_RULES` are the rules of contracts/table-api.md; the simulator can
  also commit :data:`EXTRA_FAULT_RULES`, the tracker's other alert rules:

  ===================== ====================================================================
  ``stack_count``       a stack of wall SEAT stays down and the next wall (SEAT + 1) rises with
                        an 18th stack: the walls hold 136 tiles, one wall 32 and one 36
  ``set_mismatch``      after hand HAND - 1 seat SEAT keeps a tile back off the table (``keep``);
                        in hand HAND the machine builds that set again one tile short
                        (``stacked``: the firmware's ``StackReady``). The tracker names no seat
                        or tile: it cannot know whose it was (the fault's ``kept_back`` says).
                        Not possible in hand 0.
  ``kuikae``            right after a chi (or a pon) the caller discards a tile the call bars
                        (the called kind, or the other end of the run): one it holds, or one it
                        was dealt instead of a tile it holds face down all hand (two wall slots
                        swapped); it keeps the meant tile face down (or lets it go at its next
                        discard of the barred tile)
  ``last_discard_call`` at an exhaustive draw a seat that lays no hand down pons (or chis) the
                        last discard of the hand: with a pair it holds, or the last tile drawn
                        and let go was one it holds a pair of, or it was dealt the pair
  ``furiten_ron``       the ron winner drew one of its winning tiles earlier and discarded it
                        (a tsumogiri discard of its changed to that tile, swapped with an unseen
                        wall tile), then declares ron anyway
  ===================== ====================================================================

:func:`events_of` turns a script into the event stream that the firmware link and a perfect
camera tracker would report (``controller.events``), which is how the game tracker is tested
without the camera. Seats are the log's seat order; seat 0 deals first.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller import events as ev
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import waits as WT
from controller.rules import walls as WL
from controller.rules.calls import check_kuikae
from controller.rules.replay import rules_for_log
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.rules.tilesets import census_for
from hardware.sim.players import Player, seat_players

FAULT_RULES = ("missing_tile", "fifth_tile", "wrong_red", "other_back", "taken_back", "extra_draw",
               "out_of_turn", "wrong_hand_size", "moved_indicator")          # contracts/table-api.md
EXTRA_FAULT_RULES = ("stack_count", "set_mismatch", "kuikae", "last_discard_call", "furiten_ron")
INJECTABLE_RULES = FAULT_RULES + EXTRA_FAULT_RULES
_INJECT = re.compile(r"^([a-z_]+)@(\d+)(?::(\d))?$")


class ScriptError(ValueError):
    """A log that cannot be acted out, or a fault that cannot be injected where asked."""


@dataclass(frozen=True)
class Fault:
    """One fault to inject: ``rule`` in hand ``hand`` (0-based) by ``seat`` (None: the script picks)."""

    rule: str
    hand: int
    seat: int | None = None


def parse_inject(text: str) -> Fault:
    """Parse ``RULE@HAND[:SEAT]``. Raises ScriptError naming what is wrong."""
    m = _INJECT.match(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ScriptError(f"--inject {text!r}: expected RULE@HAND[:SEAT], e.g. taken_back@2:1")
    rule, hand, seat = m.group(1), int(m.group(2)), m.group(3)
    if rule not in INJECTABLE_RULES:
        raise ScriptError(f"--inject {text!r}: unknown rule {rule!r}; known: {', '.join(INJECTABLE_RULES)}")
    if seat is not None and int(seat) > 3:
        raise ScriptError(f"--inject {text!r}: seat {seat} is not 0..3")
    return Fault(rule, hand, None if seat is None else int(seat))


@dataclass
class HandScript:
    index: int
    round: int
    honba: int
    sticks: int
    scores: tuple[int, ...]
    dealer: int
    dice: tuple[int, int]
    walls: dict[WL.WallSlot, str | None]
    actions: list[dict]
    faults: list[dict] = field(default_factory=list)


@dataclass
class Script:
    """A whole scripted game. ``red_fives``: the red fives of the set played (mpsz), as the
    log's ``"rule"`` says; the staff would start the game with them."""

    ruleset: str
    players: tuple[str, ...]
    hands: list[HandScript]
    source: str = "<log>"
    red_fives: tuple[str, ...] = ("0m", "0p", "0s")

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "players": list(self.players), "source": self.source,
                "red_fives": list(self.red_fives), "hands": [_hand_json(h) for h in self.hands]}


def _hand_json(h: HandScript) -> dict:
    walls: list[list[list[str | None]]] = []
    for seat in range(4):
        stacks = []
        last = max([17] + [slot.stack for slot, tile in h.walls.items() if slot.seat == seat and tile is not None])
        for k in range(1, last + 1):
            stacks.append([h.walls.get(WL.WallSlot(seat, k, WL.UPPER)), h.walls.get(WL.WallSlot(seat, k, WL.LOWER))])
        walls.append(stacks)
    return {"index": h.index, "round": h.round, "honba": h.honba, "sticks": h.sticks, "scores": list(h.scores),
            "dealer": h.dealer, "dice": list(h.dice), "walls": walls, "actions": h.actions, "faults": h.faults}


def script_from_json(data: dict) -> Script:
    """Rebuild a Script from :meth:`Script.to_json` output. Raises ScriptError when malformed."""
    try:
        hands = []
        for h in data["hands"]:
            walls: dict[WL.WallSlot, str | None] = {}
            for seat, stacks in enumerate(h["walls"]):
                for k, (up, low) in enumerate(stacks, start=1):
                    walls[WL.WallSlot(seat, k, WL.UPPER)] = up
                    walls[WL.WallSlot(seat, k, WL.LOWER)] = low
            hands.append(HandScript(h["index"], h["round"], h["honba"], h["sticks"], tuple(h["scores"]),
                                    h["dealer"], tuple(h["dice"]), walls, list(h["actions"]), list(h["faults"])))
        return Script(data["ruleset"], tuple(data["players"]), hands, data.get("source", "<script>"),
                      tuple(data.get("red_fives", ("0m", "0p", "0s"))))
    except (KeyError, TypeError, ValueError) as err:
        raise ScriptError(f"script is malformed: {err!r}") from None


# --------------------------------------------------------------------------- building


def build_script(log: Any, *, injects: tuple[Fault, ...] | list[Fault] = (), seed: int = 0,
                 ruleset: str = "tenhou", source: str = "<log>") -> Script:
    """Build the physical script of a tenhou.net/6 log (decoded JSON or a parsed LogGame).

    Raises ScriptError (a malformed log, a fault that does not fit its hand).
    """
    try:
        game = log if isinstance(log, TH.LogGame) else TH.parse_log(log, source)
    except TH.LogError as err:
        raise ScriptError(str(err)) from None
    if game.players != 4:
        raise ScriptError(f"{source}: only four-player logs can be acted out, this one has {game.players}")
    # the set's red fives as the log's "rule" says (a game without reds has four plain fives)
    rules = dataclasses.replace(load_rules(ruleset), red_fives=rules_for_log(game).red_fives)
    by_hand: dict[int, list[Fault]] = {}
    for f in injects:
        if f.rule not in INJECTABLE_RULES:
            raise ScriptError(f"--inject {f.rule}@{f.hand}: unknown rule {f.rule!r}")
        if not 0 <= f.hand < len(game.hands):
            raise ScriptError(f"--inject {f.rule}@{f.hand}: the game has hands 0..{len(game.hands) - 1}")
        if f.rule == "set_mismatch" and f.hand == 0:
            raise ScriptError(f"{source}: hand 0: cannot inject set_mismatch: no set comes back from an earlier hand "
                              "to be built again short")
        by_hand.setdefault(f.hand, []).append(f)
    hands = []
    builders = []
    for lh in game.hands:
        rng = random.Random(seed * 100003 + lh.index)
        own = [f for f in by_hand.get(lh.index, []) if f.rule != "set_mismatch"]
        hand, hb = _build_hand(lh, rules, rng, own, source)
        hands.append(hand)
        builders.append(hb)
    for f in injects:
        if f.rule == "set_mismatch":
            _inject_set_mismatch(hands[f.hand - 1], builders[f.hand - 1], hands[f.hand], f,
                                 f"{source}: hand {f.hand}")
    names = tuple(game.names[:4]) if len(game.names) >= 4 else ("", "", "", "")
    reds = tuple(r for r, n in zip(T.REDS, rules.red_fives, strict=True) for _ in range(n))
    return Script(ruleset, names, hands, source, reds)


def load_script(path: str, *, injects: tuple[Fault, ...] | list[Fault] = (), seed: int = 0) -> Script:
    """Read a tenhou.net/6 log file (or a saved script) and build its script. Raises ScriptError."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, json.JSONDecodeError) as err:
        raise ScriptError(f"{path}: cannot read the log: {err}") from None
    if isinstance(data, dict) and "hands" in data and "log" not in data:
        return script_from_json(data)
    return build_script(data, injects=injects, seed=seed, source=path)


def _slot_of(action: dict) -> WL.WallSlot:
    return WL.WallSlot(action["wall"], action["stack"], action.get("layer", WL.UPPER))


class _Hand:
    """Builder state for one hand."""

    def __init__(self, lh: TH.LogHand, rules: RuleSet, rng: random.Random, where: str) -> None:
        self.lh, self.rules, self.rng, self.where = lh, rules, rng, where
        self.actions: list[dict] = []
        self.snaps: list[tuple[tuple[str, ...], ...]] = []   # every seat's hand before each action
        self.players: list[Player] = seat_players(lh.haipai)
        self._snap_of: dict[int, int] = {}

    def add(self, action: dict) -> None:
        self.snaps.append(tuple(tuple(p.hand) for p in self.players))
        self.actions.append(action)

    def seal(self) -> None:
        """The hand is built: remember each action's snapshot by the action itself (faults insert
        actions, which shifts the indices)."""
        self._snap_of = {id(a): k for k, a in enumerate(self.actions)}

    def knows(self, action: dict) -> bool:
        """Is ``action`` one of the hand as built (not one a fault inserted)?"""
        return id(action) in self._snap_of

    def held_before(self, action: dict, seat: int) -> tuple[str, ...]:
        """``seat``'s standing tiles just before ``action`` (an action of the hand as built)."""
        return self.snaps[self._snap_of[id(action)]][seat]


def _build_hand(lh: TH.LogHand, rules: RuleSet, rng: random.Random, faults: list[Fault], source: str
                ) -> tuple[HandScript, _Hand]:
    where = f"{source}: hand {lh.index}"
    proc = rules.procedures
    dealer = lh.dealer
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    lay = WL.plan(proc, dealer, [dice])
    live = [e.tile for e in lh.events if isinstance(e, TH.Draw) and not e.is_rinshan]
    repl = [e.tile for e in lh.events if isinstance(e, TH.Draw) and e.is_rinshan]
    n_kans = sum(1 for e in lh.events if isinstance(e, TH.Kan)
                 or (isinstance(e, TH.Call) and e.meld.kind == "kan"))
    census = census_for(rules)
    extra = next((f for f in faults if f.rule == "extra_draw"), None)
    extra_at = None   # (seat, index in the live draw list after which the extra tile is taken)
    if extra is not None:
        extra_at = _pick_extra_draw(lh, extra, live, n_kans, where)
        used = Counter(t for h in lh.haipai for t in h) + Counter(live) + Counter(repl) \
            + Counter(lh.dora_indicators) + Counter(lh.ura_indicators)
        spare = next(t for t in sorted(census, key=T.sort_key) if census[t] - used[t] > 0 and not T.is_red(t))
        live.insert(extra_at[1] + 1, spare)
    try:
        tiles = WL.layout_from_roll(lay, hands=lh.haipai, draws=live, replacements=repl,
                                    indicators=lh.dora_indicators, ura_indicators=lh.ura_indicators, census=census)
    except WL.WallError as err:
        raise ScriptError(f"{where}: the walls cannot be laid out: {err}") from None
    hb = _Hand(lh, rules, rng, where)
    ws = WL.WallState(lay, tiles)
    hb.add({"op": "lift", "counts": [2 * proc.stacks_per_side] * 4, "odd_backs": []})
    hb.add({"op": "press", "seat": dealer, "action": "dice"})
    hb.add({"op": "dice", "seat": dealer, "dice": list(dice)})
    for seat, slot in lay.deal_takes:
        hb.add({"op": "take", "seat": seat, "wall": slot.seat, "stack": slot.stack, "layer": slot.layer,
                "tile": tiles[slot]})
    ws.deal()
    shown = 1
    ind = lay.indicator_slots[0]
    hb.add({"op": "flip", "wall": ind.seat, "stack": ind.stack, "layer": ind.layer, "tile": tiles[ind],
            "is_ura": False})
    pending_flips = 0
    flip_after_draw = False
    refills = 0
    live_taken = 0
    extra_fault: dict = {}

    def flip_next() -> None:
        nonlocal shown
        if shown < len(lh.dora_indicators):
            take = ws.flip_kan_indicator()
            hb.add({"op": "flip", "wall": take.slot.seat, "stack": take.slot.stack, "layer": take.slot.layer,
                    "tile": take.tile, "is_ura": False})
            shown += 1

    result = lh.result
    is_ron_end = result.outcome == "win" and any(w.seat != w.from_seat for w in result.wins)
    for i, e in enumerate(lh.events):
        is_last = i == len(lh.events) - 1
        if isinstance(e, TH.Draw):
            take = ws.draw_replacement("kan") if e.is_rinshan else ws.draw()
            if take.tile != e.tile:
                raise ScriptError(f"{where}: the wall gives {take.tile} where the log draws {e.tile}")
            hb.add({"op": "take", "seat": e.seat, "wall": take.slot.seat, "stack": take.slot.stack,
                    "layer": take.slot.layer, "tile": take.tile})
            hb.players[e.seat].draw(e.tile)
            if e.is_rinshan and len(ws.refilled()) > refills:
                moved = ws.refilled()[-1].slot
                refills += 1
                hb.add({"op": "refill", "wall": moved.seat, "stack": moved.stack, "layer": moved.layer})
            if e.is_rinshan and flip_after_draw:
                flip_next()
                flip_after_draw = False
            if not e.is_rinshan:
                if extra_at is not None and live_taken == extra_at[1]:
                    take2 = ws.draw()
                    hb.add({"op": "take", "seat": e.seat, "wall": take2.slot.seat, "stack": take2.slot.stack,
                            "layer": take2.slot.layer, "tile": take2.tile})
                    hb.players[e.seat].hand.append(take2.tile)
                    live_taken += 1
                    extra_fault = {"rule": "extra_draw", "hand": lh.index, "seat": e.seat, "tile": None}
                live_taken += 1
        elif isinstance(e, TH.Discard):
            hb.add({"op": "discard", "seat": e.seat, "tile": e.tile, "is_riichi": e.is_riichi,
                    "is_tsumogiri": e.is_tsumogiri})
            hb.players[e.seat].discard(e.tile, is_riichi=e.is_riichi)
            while pending_flips:
                flip_next()
                pending_flips -= 1
            if e.is_riichi and not (is_last and is_ron_end):
                hb.add({"op": "stick", "seat": e.seat})
        elif isinstance(e, TH.Call):
            m = e.meld
            kind = {"chi": "chi", "pon": "pon", "kan": "daiminkan"}[m.kind]
            hb.add({"op": "meld", "seat": e.seat, "meld_kind": kind, "tiles": list(m.tiles), "called": m.called,
                    "source": m.source})
            hb.players[e.seat].call(m)
            if m.kind == "kan":
                pending_flips += 1
        elif isinstance(e, TH.Kan):
            while pending_flips:
                flip_next()
                pending_flips -= 1
            m = e.meld
            hb.add({"op": "meld", "seat": e.seat, "meld_kind": m.kind, "tiles": list(m.tiles),
                    "called": e.added, "source": None if m.kind == "ankan" else m.source})
            hb.players[e.seat].kan(m, e.added)
            if m.kind == "ankan":
                flip_after_draw = True   # a closed kan's indicator turns at once (after the replacement)
            elif not (is_last and result.outcome == "win"):
                pending_flips += 1
        else:
            raise ScriptError(f"{where}: {type(e).__name__} cannot be acted out at a four-player table")
    _finish(hb, lh, lay, tiles, shown)
    hb.seal()
    hand = HandScript(lh.index, lh.round, lh.honba, lh.sticks, lh.scores, dealer, dice, dict(tiles),
                      hb.actions)
    if extra is not None:
        hand.faults.append(extra_fault)
    for f in faults:
        if f.rule != "extra_draw":
            _inject(hand, hb, lay, f, where)
    return hand, hb


def _finish(hb: _Hand, lh: TH.LogHand, lay: WL.WallLayout, tiles: dict, shown: int) -> None:
    """The end of the hand: declarations, revealed hands, ura indicators, the dealer's ok."""
    result = lh.result
    last = lh.events[-1] if lh.events else None
    if result.outcome == "win":
        for w in result.wins:
            hb.add({"op": "press", "seat": w.seat, "action": "tsumo" if w.seat == w.from_seat else "ron"})
        for w in result.wins:
            p = hb.players[w.seat]
            if w.seat == w.from_seat:
                hb.add({"op": "reveal", "seat": w.seat, "tiles": list(p.hand), "win_tile": p.last_draw})
                continue
            if isinstance(last, TH.Kan):
                ron = last.added if last.meld.kind == "kakan" else last.meld.tiles[0]   # robbing a kan
            elif isinstance(last, TH.Discard):
                ron = last.tile
            else:
                raise ScriptError(f"{hb.where}: a ron with no discard to win on")
            hb.add({"op": "reveal", "seat": w.seat, "tiles": list(p.hand) + [ron], "win_tile": ron})
        if any(hb.players[w.seat].is_riichi for w in result.wins):
            for k, tile in enumerate(lh.ura_indicators[:shown]):
                slot = lay.ura_slots[k]
                hb.add({"op": "flip", "wall": slot.seat, "stack": slot.stack, "layer": slot.layer, "tile": tile,
                        "is_ura": True})
    elif result.outcome == "exhaustive_draw":
        for p in hb.players:
            if p.is_tenpai():
                hb.add({"op": "reveal", "seat": p.seat, "tiles": list(p.hand), "win_tile": None})
    elif result.kind == "nine_terminals":
        seat = last.seat if last is not None else lh.dealer
        hb.add({"op": "press", "seat": seat, "action": "draw"})
        hb.add({"op": "reveal", "seat": seat, "tiles": list(hb.players[seat].hand), "win_tile": None})
    elif result.kind == "triple_ron" and isinstance(last, TH.Discard):
        for k in (1, 2, 3):
            hb.add({"op": "press", "seat": (last.seat + k) % 4, "action": "ron"})
    elif result.kind == "four_riichi":
        for p in hb.players:
            hb.add({"op": "reveal", "seat": p.seat, "tiles": list(p.hand), "win_tile": None})
    hb.add({"op": "press", "seat": lh.dealer, "action": "ok"})


# --------------------------------------------------------------------------- faults


def _pick_extra_draw(lh: TH.LogHand, f: Fault, live: list[str], n_kans: int, where: str) -> tuple[int, int]:
    capacity = 122 - 52 - n_kans
    if len(live) + 1 > capacity:
        raise ScriptError(f"{where}: cannot inject extra_draw: the live wall has no spare tile")
    revealers = _revealers(lh)
    draws = []   # (seat, live index)
    k = 0
    for e in lh.events:
        if isinstance(e, TH.Draw) and not e.is_rinshan:
            draws.append((e.seat, k))
            k += 1
    seats = [f.seat] if f.seat is not None else [s for s in range(4) if s not in revealers] or list(range(4))
    mine = [d for d in draws[1:-4] if d[0] in seats]
    if not mine:
        raise ScriptError(f"{where}: cannot inject extra_draw for seat {f.seat}: it draws too little")
    return mine[len(mine) // 2]


def _revealers(lh: TH.LogHand) -> set[int]:
    if lh.result.outcome == "win":
        return {w.seat for w in lh.result.wins}
    if lh.result.outcome == "exhaustive_draw" or lh.result.kind == "four_riichi":
        return set(range(4))
    return set()


def _untouched_slot(hand: HandScript, seat: int | None, where: str, rule: str) -> WL.WallSlot:
    """A wall slot no one takes, flips or moves in this hand (lower layers first), in ``seat``'s wall.

    A tile's back is seen while it stands, so for ``other_back`` any slot will do when all are used.
    """
    touched = {(a["wall"], a["stack"], a["layer"]) for a in hand.actions if a["op"] in ("take", "flip")}
    moved = {(a["wall"], a["stack"]) for a in hand.actions if a["op"] == "refill"}
    if rule == "other_back" and seat is not None and all((seat, k, layer) in touched or (seat, k) in moved
                                                          for k in range(1, 18) for layer in (WL.LOWER, WL.UPPER)):
        return WL.WallSlot(seat, 17, WL.UPPER)
    seats = [seat] if seat is not None else [0, 1, 2, 3]
    for layer in (WL.LOWER, WL.UPPER):
        for s in seats:
            for k in range(17, 0, -1):
                if (s, k, layer) not in touched and (s, k) not in moved:
                    return WL.WallSlot(s, k, layer)
    raise ScriptError(f"{where}: cannot inject {rule}: every tile of wall {seat} is used in this hand")


def _face_up(hand: HandScript) -> list[tuple[int, str]]:
    """(action index, tile) for every tile turned face up, each once (a ron tile counts in the river)."""
    out = []
    for i, a in enumerate(hand.actions):
        op = a["op"]
        if op == "discard":
            out.append((i, a["tile"]))
        elif op == "meld":
            tiles = list(a["tiles"])
            if a["meld_kind"] in ("chi", "pon", "daiminkan"):
                tiles.remove(a["called"])
            elif a["meld_kind"] == "kakan":
                tiles = [a["called"]]
            out += [(i, t) for t in tiles]
        elif op in ("flip", "swap_indicator"):
            out.append((i, a["tile"]))
        elif op == "reveal":
            tiles = list(a["tiles"])
            if a["win_tile"] is not None and any(b["op"] == "press" and b["action"] == "ron" and b["seat"] == a["seat"]
                                                 for b in hand.actions):
                tiles.remove(a["win_tile"])
            out += [(i, t) for t in tiles]
    return out


def _replaceable(hand: HandScript) -> list[int]:
    """Indices of tsumogiri discards that no one calls or wins on: the drawn tile can be changed."""
    out = []
    acts = hand.actions
    for i, a in enumerate(acts):
        if a["op"] != "discard" or not a["is_tsumogiri"] or a["is_riichi"]:
            continue
        nxt = acts[i + 1] if i + 1 < len(acts) else None
        if nxt and nxt["op"] == "meld" and nxt["meld_kind"] in ("chi", "pon", "daiminkan"):
            continue
        if nxt and nxt["op"] == "press" and nxt["action"] in ("ron", "tsumo", "draw"):
            continue
        if not any(b["op"] == "take" and b["seat"] == a["seat"] for b in acts[:i]):
            continue
        out.append(i)
    return out


def _replace_discard(hand: HandScript, i: int, tile: str) -> None:
    """Change tsumogiri discard ``i`` and the draw it came from (and the wall slot) to ``tile``."""
    a = hand.actions[i]
    j = max(k for k in range(i) if hand.actions[k]["op"] == "take" and hand.actions[k]["seat"] == a["seat"])
    take = hand.actions[j]
    hand.walls[_slot_of(take)] = tile
    take["tile"] = tile
    a["tile"] = tile


def _inject_excess(hand: HandScript, f: Fault, where: str, *, red: bool) -> None:
    face = _face_up(hand)
    cands = _replaceable(hand)
    seats = [f.seat] if f.seat is not None else [0, 1, 2, 3]
    kinds = [f"0{s}" for s in "mps"] if red else [t for t in T.KINDS_34 if t[0] != "5"]
    limit = 1 if red else 4
    best = None
    for last in reversed(cands):
        if hand.actions[last]["seat"] not in seats:
            continue
        before = [c for c in cands if c < last]
        for kind in kinds:
            have = sum(1 for i, t in face if i < last and (t == kind if red else T.plain(t) == kind))
            need = limit - have          # replacements before `last`
            if need < 0:
                continue
            usable = [c for c in before if T.plain(hand.actions[c]["tile"]) != T.plain(kind)]
            if len(usable) >= need and (best is None or need < best[0]):
                best = (need, last, kind, usable[:need])
        if best is not None:
            break
    if best is None:
        raise ScriptError(f"{where}: cannot inject {f.rule}" + (f" for seat {f.seat}" if f.seat is not None else "")
                          + ": too few tsumogiri discards to change")
    _need, last, kind, usable = best
    for c in usable + [last]:
        _replace_discard(hand, c, kind)
    hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": hand.actions[last]["seat"], "tile": kind})


def _inject(hand: HandScript, hb: _Hand, lay: WL.WallLayout, f: Fault, where: str) -> None:
    acts = hand.actions
    extra = {"stack_count": _inject_stack_count, "kuikae": _inject_kuikae,
             "last_discard_call": _inject_last_discard_call, "furiten_ron": _inject_furiten_ron}.get(f.rule)
    if extra is not None:
        extra(hand, hb, f, where)
        return
    if f.rule in ("missing_tile", "other_back"):
        slot = _untouched_slot(hand, f.seat, where, f.rule)
        if f.rule == "missing_tile":
            hand.walls[slot] = None
            acts[0]["counts"][slot.seat] -= 1
        else:
            acts[0]["odd_backs"].append({"wall": slot.seat, "stack": slot.stack, "layer": slot.layer})
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": slot.seat, "tile": None})
        return
    if f.rule in ("fifth_tile", "wrong_red"):
        _inject_excess(hand, f, where, red=f.rule == "wrong_red")
        return
    if f.rule == "wrong_hand_size":
        reveals = [a for a in acts if a["op"] == "reveal" and (f.seat is None or a["seat"] == f.seat)]
        if not reveals and f.seat is not None and hb.lh.result.outcome == "exhaustive_draw":
            # at an exhaustive draw a noten seat may still lay its hand down (claiming tenpai)
            acts.insert(len(acts) - 1, {"op": "reveal", "seat": f.seat, "tiles": list(hb.players[f.seat].hand),
                                        "win_tile": None})
            reveals = [acts[-2]]
        if not reveals:
            raise ScriptError(f"{where}: cannot inject wrong_hand_size: seat {f.seat} reveals no hand")
        a = reveals[0]
        tiles = list(a["tiles"])
        drop = next((t for t in tiles if t != a["win_tile"]), tiles[0])
        tiles.remove(drop)
        a["tiles"] = tiles
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": a["seat"], "tile": None})
        return
    discards = [i for i, a in enumerate(acts) if a["op"] == "discard"]
    if f.rule == "taken_back":
        riichi_from = {}
        for i in discards:
            if acts[i]["is_riichi"]:
                riichi_from.setdefault(acts[i]["seat"], i)
        cands = [i for i in discards[:-1] if (f.seat is None or acts[i]["seat"] == f.seat)
                 and i <= riichi_from.get(acts[i]["seat"], 10 ** 9) and not acts[i]["is_riichi"]]
        if not cands:
            raise ScriptError(f"{where}: cannot inject taken_back for seat {f.seat}: no discard to change")
        i = cands[len(cands) // 2]
        seat = acts[i]["seat"]
        held = [t for t in hb.snaps[i][seat] if T.plain(t) != T.plain(acts[i]["tile"])]
        wrong = held[0]
        index = sum(1 for k in discards if k < i and acts[k]["seat"] == seat)
        acts[i:i] = [{"op": "discard", "seat": seat, "tile": wrong, "is_riichi": False, "is_tsumogiri": False},
                     {"op": "take_back", "seat": seat, "index": index, "tile": wrong}]
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": wrong})
        return
    if f.rule in ("out_of_turn", "moved_indicator"):
        if not discards:
            raise ScriptError(f"{where}: cannot inject {f.rule}: the hand ends before any discard")
        dealt = max(i for i, a in enumerate(acts) if a["op"] == "flip" and not a["is_ura"] and i < discards[0])
        takes = [i for i, a in enumerate(acts) if a["op"] == "take" and i > dealt
                 and i + 1 < len(acts) and acts[i + 1]["op"] == "discard" and acts[i + 1]["seat"] == a["seat"]]
        if f.rule == "out_of_turn":
            cands = [i for i in takes if f.seat is None or acts[i]["seat"] != f.seat]
        else:
            cands = [i for i in takes if f.seat is None or acts[i]["seat"] == f.seat]
        if not cands:
            raise ScriptError(f"{where}: cannot inject {f.rule} for seat {f.seat}: no turn to do it in")
        i = cands[len(cands) // 2]
        if f.rule == "out_of_turn":
            seat = f.seat if f.seat is not None else (acts[i]["seat"] + 2) % 4
            wrong = hb.snaps[i][seat][0]
            index = sum(1 for k in discards if k < i and acts[k]["seat"] == seat)
            acts[i + 1:i + 1] = [
                {"op": "discard", "seat": seat, "tile": wrong, "is_riichi": False, "is_tsumogiri": False},
                {"op": "take_back", "seat": seat, "index": index, "tile": wrong}]
            hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": wrong})
        else:
            seat = acts[i]["seat"]
            ind = next(a for a in acts if a["op"] == "flip")
            other = T.KINDS_34[(T.to_34(ind["tile"]) + 9) % 34]
            acts[i + 1:i + 1] = [{"op": "swap_indicator", "seat": seat, "wall": ind["wall"], "stack": ind["stack"],
                                  "layer": ind["layer"], "tile": other}]
            hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": other})
        return
    raise ScriptError(f"{where}: unknown fault {f.rule!r}")  # pragma: no cover


# --------------------------------------------------------------------------- the tracker's other rules


def _fault_for(f: Fault) -> str:
    return f" for seat {f.seat}" if f.seat is not None else ""


def _touched_stacks(hand: HandScript) -> set[tuple[int, int]]:
    """(wall, stack) of every stack a tile is taken from, turned on, swapped on or moved from."""
    return {(a["wall"], a["stack"]) for a in hand.actions
            if a["op"] in ("take", "flip", "swap_indicator", "refill")}


def _inject_stack_count(hand: HandScript, hb: _Hand, f: Fault, where: str) -> None:
    """A stack of wall A no one touches in the hand stays down, and wall A + 1 rises with it as an
    18th stack (its left end, where wall A's stack 1 stood next to it): 32 and 36 tiles. The lift
    count names wall A, the short one. The 18th stack stands past the camera's wall slots; the MCU
    counts it (``SimTable.lift_counts``)."""
    touched = _touched_stacks(hand)
    walls = [f.seat] if f.seat is not None else [0, 1, 2, 3]
    for a in walls:
        free = [k for k in range(1, 18) if (a, k) not in touched
                and all(hand.walls.get(WL.WallSlot(a, k, layer)) is not None for layer in (WL.UPPER, WL.LOWER))]
        if not free:
            continue
        k = 1 if 1 in free else free[len(free) // 2]     # the corner stack next to wall A + 1 first
        b = (a + 1) % 4
        if any(slot.seat == b and slot.stack > 17 and tile is not None for slot, tile in hand.walls.items()):
            continue
        for layer in (WL.UPPER, WL.LOWER):
            hand.walls[WL.WallSlot(b, 18, layer)] = hand.walls[WL.WallSlot(a, k, layer)]
            hand.walls[WL.WallSlot(a, k, layer)] = None
        counts = hand.actions[0]["counts"]
        counts[a] -= 2
        counts[b] += 2
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": a, "tile": None})
        return
    raise ScriptError(f"{where}: cannot inject stack_count{_fault_for(f)}: every stack of "
                      + (f"wall {f.seat}" if f.seat is not None else "every wall") + " is used in this hand")


def _inject_set_mismatch(prev: HandScript, hb: _Hand, hand: HandScript, f: Fault, where: str) -> None:
    """After the hand before, seat SEAT keeps one of its tiles back instead of pushing it into the
    centre; while hand HAND is played the machine builds that set again and counts 135 tiles.

    The seat picked is one that laid no hand down (its tiles stayed face down): the camera never
    sees one go. The staff find the tile and put it back (the later walls are whole)."""
    revealed = {a["seat"] for a in prev.actions if a["op"] == "reveal"}
    seats = [f.seat] if f.seat is not None else [s for s in range(4) if s not in revealed] + sorted(revealed)
    seat = next((s for s in seats if hb.players[s].hand), None)
    if seat is None:
        raise ScriptError(f"{where}: cannot inject set_mismatch{_fault_for(f)}: the seat holds no tile at the end "
                          f"of hand {prev.index}")
    held = [t for t in T.sorted_tiles(hb.players[seat].hand) if not T.is_red(t)] or list(hb.players[seat].hand)
    tile = held[-1]
    hb.players[seat].give(tile)
    prev.actions.append({"op": "keep", "seat": seat, "tile": tile})
    proc = hb.rules.procedures
    lanes = [2 * proc.stacks_per_side] * proc.walls      # one lane per wall (hardware/PROTOCOL.md)
    lanes[seat % proc.walls] -= 1
    at = 1 if hand.actions and hand.actions[0]["op"] == "lift" else 0
    hand.actions.insert(at, {"op": "stacked", "counts": lanes})
    hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": None, "tile": None,
                        "kept_back": {"hand": prev.index, "seat": seat, "tile": tile}})


def _is_taken(acts: list[dict], i: int) -> bool:
    """Is discard ``i`` called (chi, pon, open kan) or won on?"""
    nxt = acts[i + 1] if i + 1 < len(acts) else None
    if nxt is None:
        return False
    return (nxt["op"] == "meld" and nxt["meld_kind"] in ("chi", "pon", "daiminkan")) or \
        (nxt["op"] == "press" and nxt["action"] == "ron")


def _gives_up(a: dict, seat: int, tile: str) -> bool:
    """Does action ``a`` take ``tile`` (that very tile) out of ``seat``'s standing tiles?"""
    if a.get("seat") != seat:
        return False
    if a["op"] == "discard":
        return a["tile"] == tile
    if a["op"] == "meld":
        tiles = list(a["tiles"])
        if a["meld_kind"] in ("chi", "pon", "daiminkan"):
            tiles.remove(a["called"])
        elif a["meld_kind"] == "kakan":
            tiles = [a["called"]]
        return tile in tiles
    if a["op"] in ("reveal", "keep"):
        return tile in (a["tiles"] if a["op"] == "reveal" else [a["tile"]])
    return False


def _ron_waits(hb: _Hand) -> dict[int, set[str]]:
    """The waits (plain kinds) of each seat that wins this hand by ron."""
    result = hb.lh.result
    out: dict[int, set[str]] = {}
    if result.outcome != "win":
        return out
    for w in result.wins:
        if w.seat != w.from_seat:
            p = hb.players[w.seat]
            try:
                out[w.seat] = set(WT.waits(p.hand, p.melds))
            except ValueError:
                out[w.seat] = set()
    return out


def _deal_swap(hand: HandScript, hb: _Hand, seat: int, kinds: set[str], *, keep: frozenset[str] = frozenset()
               ) -> tuple[str, str] | None:
    """Have ``seat`` dealt a tile of one of ``kinds`` instead of a tile it holds face down from the
    deal to the end of the hand (never given up, never shown): the two swap places with a wall slot
    no one takes or turns in the hand, so the set stays whole and no one sees a difference. Returns
    (the tile now held, the tile given for it), or None when no such swap exists. ``keep``: tiles
    not to give for it."""
    acts = hand.actions
    first_flip = next((i for i, a in enumerate(acts) if a["op"] == "flip"), len(acts))
    deal = [a for a in acts[:first_flip] if a["op"] == "take" and a["seat"] == seat]
    later = [hb.held_before(a, seat) for a in acts[first_flip:] if hb.knows(a)]
    final = hb.players[seat].hand
    touched = _touched_stacks(hand)
    spare = sorted(((slot, tile) for slot, tile in hand.walls.items() if tile is not None
                    and slot.stack_pos not in touched and T.plain(tile) in kinds),
                   key=lambda st: (T.is_red(st[1]), st[0]))
    if not spare:
        return None
    for take in deal:
        x = take["tile"]
        if T.plain(x) in kinds or x in keep or x not in final:
            continue
        if any(held.count(x) < 1 for held in later) or final.count(x) < 1:
            continue
        slot, tile = spare[0]
        hand.walls[slot] = x
        hand.walls[_slot_of(take)] = tile
        take["tile"] = tile
        final.remove(x)
        final.append(tile)
        return tile, x
    return None


def _inject_kuikae(hand: HandScript, hb: _Hand, f: Fault, where: str) -> None:
    """Right after a chi (a pon when no chi will do), the caller discards a tile the call bars
    instead of the tile the log discards. Where it holds one, it keeps the meant tile and lets it go
    at its next discard of the barred tile (so that its hand is the log's again), or keeps it to the
    end when it never lays its hand down. Else, when it never lays its hand down, it was dealt a
    barred tile instead of one it holds face down all hand (:func:`_deal_swap`), and keeps the meant
    tile to the end."""
    rules = hb.rules
    if rules.kuikae == "allowed":
        raise ScriptError(f"{where}: cannot inject kuikae: the {rules.name} rules allow any discard after a call")
    acts = hand.actions
    revealers = {a["seat"] for a in acts if a["op"] == "reveal"}
    waits = _ron_waits(hb)
    calls = []      # (meld index, discard index, seat, the call)
    for kind in ("chi", "pon"):
        for i, m in enumerate(acts):
            if m["op"] != "meld" or m["meld_kind"] != kind or (f.seat is not None and m["seat"] != f.seat):
                continue
            seat, j = m["seat"], i + 1
            if j >= len(acts) or acts[j]["op"] != "discard" or acts[j]["seat"] != seat or _is_taken(acts, j):
                continue
            calls.append((i, j, seat, {"kind": kind, "called": m["called"], "tiles": list(m["tiles"])}))

    def fits(seat: int, bad: str, meant: str) -> bool:
        # a winner's furiten could change with the river's order
        return not any({T.plain(bad), T.plain(meant)} & w for s, w in waits.items() if s != seat)

    def commit(j: int, seat: int, bad: str) -> None:
        acts[j]["tile"], acts[j]["is_tsumogiri"] = bad, False
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": bad})

    for _i, j, seat, call in calls:          # a barred tile it holds
        meant = acts[j]["tile"]
        for bad in dict.fromkeys(hb.held_before(acts[j], seat)):
            if bad == meant or check_kuikae(call, bad, rules) is None or not fits(seat, bad, meant):
                continue
            later = next((k for k in range(j + 1, len(acts)) if _gives_up(acts[k], seat, bad)), None)
            if later is None and seat in revealers:
                continue          # its revealed hand would hold the meant tile instead
            if later is not None and (acts[later]["op"] != "discard" or _is_taken(acts, later)):
                continue
            if later is not None:
                acts[later]["tile"], acts[later]["is_tsumogiri"] = meant, False
            else:
                hb.players[seat].give(bad)
                hb.players[seat].hand.append(meant)
            commit(j, seat, bad)
            return
    for _i, j, seat, call in calls:          # a barred tile it was dealt instead
        meant = acts[j]["tile"]
        if seat in revealers:
            continue
        barred = {k for k in T.KINDS_34 if k != T.plain(meant) and check_kuikae(call, k, rules) is not None
                  and fits(seat, k, meant)}
        swapped = _deal_swap(hand, hb, seat, barred) if barred else None
        if swapped is None:
            continue
        bad = swapped[0]
        hb.players[seat].give(bad)
        hb.players[seat].hand.append(meant)
        commit(j, seat, bad)
        return
    raise ScriptError(f"{where}: cannot inject kuikae{_fault_for(f)}: no call in this hand after which the caller "
                      "holds, or could have been dealt, a tile the call bars")


def _inject_last_discard_call(hand: HandScript, hb: _Hand, f: Fault, where: str) -> None:
    """At an exhaustive draw a seat that lays no hand down pons the last discard (chis it when it
    holds no pair but the run): a call on the hand's last discard (houtei)."""
    lh = hb.lh
    acts = hand.actions
    if lh.result.outcome != "exhaustive_draw" or not lh.events or not isinstance(lh.events[-1], TH.Discard):
        raise ScriptError(f"{where}: cannot inject last_discard_call: the hand does not end on its last discard "
                          "(an exhaustive draw)")
    i = max(k for k, a in enumerate(acts) if a["op"] == "discard")
    last = acts[i]
    tile, src = last["tile"], last["seat"]
    revealers = {a["seat"] for a in acts if a["op"] == "reveal"}
    seats = [f.seat] if f.seat is not None else [(src + k) % 4 for k in (1, 2, 3)]
    seats = [x for x in seats if x != src and x not in revealers]
    # a pair (a run) it holds; else the last tile drawn (and discarded at once) was another one, of
    # a kind it holds a pair of; else it was dealt the pair
    for way in ("held", "haitei", "dealt"):
        for seat in seats:
            meld = _call_on(hb.players[seat].hand, tile, seat, src)
            if meld is None and way == "haitei":
                meld = _haitei_for(hand, hb, i, seat)
                tile = acts[i]["tile"]
            if meld is None and way == "dealt":
                meld = _dealt_pair(hand, hb, seat, tile, src)
            if meld is None:
                continue
            for t in meld["tiles"][1:]:
                hb.players[seat].give(t)
            acts.insert(i + 1, meld)
            hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": tile})
            return
    why = f"seat {f.seat} discarded it or lays its hand down" if f.seat in (src, *revealers) else \
        f"no seat that lays no hand down holds, or could have been dealt, a pair (or a run) to call {tile} with"
    raise ScriptError(f"{where}: cannot inject last_discard_call{_fault_for(f)}: {why}")


def _call_on(held: list[str], tile: str, seat: int, src: int) -> dict | None:
    """The pon (or, for the next seat, the chi) ``seat`` can make on ``tile`` with ``held``, or None."""
    pair = [t for t in held if T.plain(t) == T.plain(tile)][:2]
    if len(pair) == 2:
        return {"op": "meld", "seat": seat, "meld_kind": "pon", "tiles": [tile] + pair, "called": tile, "source": src}
    run = _run_with(held, tile) if seat == (src + 1) % 4 else None
    if run is not None:
        return {"op": "meld", "seat": seat, "meld_kind": "chi", "tiles": [tile] + run, "called": tile, "source": src}
    return None


def _haitei_for(hand: HandScript, hb: _Hand, i: int, seat: int) -> dict | None:
    """The last discard ``i`` is the last tile drawn, let go at once: make it a copy, from a wall
    slot no one takes or turns, of a kind ``seat`` can call (swapped, so the set stays whole).
    Returns the call, or None."""
    acts = hand.actions
    last = acts[i]
    if not last["is_tsumogiri"] or last["is_riichi"] or hb.lh.result.kind == "nagashi_mangan":
        return None
    src = last["seat"]
    if not any(a["op"] == "take" and a["seat"] == src for a in acts[:i]):
        return None
    touched = _touched_stacks(hand)
    spare = sorted(((slot, tile) for slot, tile in hand.walls.items() if tile is not None
                    and slot.stack_pos not in touched), key=lambda st: (T.is_red(st[1]), st[0]))
    for slot, tile in spare:
        meld = _call_on(hb.players[seat].hand, tile, seat, src)
        if meld is None:
            continue
        j = max(k for k in range(i) if acts[k]["op"] == "take" and acts[k]["seat"] == src)
        hand.walls[slot] = acts[j]["tile"]
        _replace_discard(hand, i, tile)
        return meld
    return None


def _dealt_pair(hand: HandScript, hb: _Hand, seat: int, tile: str, src: int) -> dict | None:
    """``seat`` (it never shows its hand) was dealt the copies of ``tile``'s kind it lacks for a
    pon instead of tiles it holds face down all hand (:func:`_deal_swap`): the pon on ``tile``."""
    held = hb.players[seat].hand
    need = 2 - sum(1 for t in held if T.plain(t) == T.plain(tile))
    walls, takes = dict(hand.walls), [(a, a["tile"]) for a in hand.actions if a["op"] == "take" and a["seat"] == seat]
    before = list(held)
    given: set[str] = set()
    for _ in range(need):
        swapped = _deal_swap(hand, hb, seat, {T.plain(tile)}, keep=frozenset(given))
        if swapped is None:                  # undo a first swap: no pair after all
            hand.walls.clear()
            hand.walls.update(walls)
            for a, t in takes:
                a["tile"] = t
            held[:] = before
            return None
        given.add(swapped[1])
    return _call_on(held, tile, seat, src)


def _run_with(held: list[str], tile: str) -> list[str] | None:
    """Two of ``held`` that make a run with ``tile`` (a chi), or None."""
    if tile[1] == "z":
        return None
    n, suit = int(T.plain(tile)[0]), tile[1]
    for a, b in ((n - 2, n - 1), (n - 1, n + 1), (n + 1, n + 2)):
        if not (1 <= a <= 9 and 1 <= b <= 9):
            continue
        ta = next((t for t in held if T.plain(t) == f"{a}{suit}"), None)
        tb = next((t for t in held if T.plain(t) == f"{b}{suit}"), None)
        if ta is not None and tb is not None:
            return [ta, tb]
    return None


def _inject_furiten_ron(hand: HandScript, hb: _Hand, f: Fault, where: str) -> None:
    """The ron winner drew one of its winning tiles earlier and discarded it: one of its tsumogiri
    discards (not called, not in the first go-round) becomes a tile of a winning kind, swapped with
    that tile's copy in a wall slot no one takes or turns in the hand (so the set stays whole and
    no one sees the swap); it then declares ron anyway (discard furiten)."""
    acts = hand.actions
    waits = _ron_waits(hb)
    if not waits:
        raise ScriptError(f"{where}: cannot inject furiten_ron: no one wins by ron in this hand")
    if f.seat is not None and f.seat not in waits:
        raise ScriptError(f"{where}: cannot inject furiten_ron for seat {f.seat}: it does not win by ron in this hand")
    touched = _touched_stacks(hand)
    discards = [i for i, a in enumerate(acts) if a["op"] == "discard"]
    first_go = set(discards[:4])
    cands = [i for i in _replaceable(hand) if i not in first_go]
    for winner in ([f.seat] if f.seat is not None else sorted(waits)):
        others = set().union(*[w for s, w in waits.items() if s != winner])
        kinds = [k for k in sorted(waits[winner], key=T.sort_key) if k not in others]
        mine = [i for i in cands if acts[i]["seat"] == winner]
        for i in mine[len(mine) // 2:] + mine[:len(mine) // 2]:
            for slot, tile in sorted(hand.walls.items(), key=lambda st: (st[1] is not None and T.is_red(st[1]), st[0])):
                if tile is None or slot.stack_pos in touched or T.plain(tile) not in kinds:
                    continue
                j = max(k for k in range(i) if acts[k]["op"] == "take" and acts[k]["seat"] == winner)
                drawn = acts[j]["tile"]
                hand.walls[slot] = drawn
                _replace_discard(hand, i, tile)
                reveal = next(a for a in acts if a["op"] == "reveal" and a["seat"] == winner)
                hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": winner, "tile": reveal["win_tile"]})
                return
    raise ScriptError(f"{where}: cannot inject furiten_ron{_fault_for(f)}: no tsumogiri discard of the winner to "
                      "change, or no unseen copy of a winning tile in the walls")


# --------------------------------------------------------------------------- events


def events_of(script: Script, *, start_now: float = 0.0, step_s: float = 0.5,
              ruleset: str | None = None) -> list[ev.Event]:
    """The events the firmware link and a perfect camera tracker would report for ``script``.

    Starts with the staff's StartGame (from the first hand's round, honba, sticks and scores).
    """
    out: list[ev.Event] = []
    now = start_now
    first = script.hands[0]
    out.append(ev.StartGame(ruleset=ruleset or script.ruleset, players=tuple(script.players), now=now,
                            red_fives=tuple(script.red_fives),
                            start_round=first.round, start_honba=first.honba, start_sticks=first.sticks,
                            start_scores=tuple(first.scores)))
    for hand in script.hands:
        heights: dict[tuple[int, int], int] = {}
        for slot, tile in hand.walls.items():
            heights[slot.stack_pos] = heights.get(slot.stack_pos, 0) + (tile is not None)
        for a in hand.actions:
            now += step_s
            out.extend(_events_of_action(a, heights, now))
    return out


def _events_of_action(a: dict, heights: dict[tuple[int, int], int], now: float) -> list[ev.Event]:
    op = a["op"]
    if op == "lift":
        out: list[ev.Event] = [ev.LiftDone(counts=tuple(a["counts"]), now=now)]
        out += [ev.WallBack(wall=b["wall"], stack=b["stack"], colour="other", now=now) for b in a["odd_backs"]]
        return out
    if op == "press":
        return [ev.Button(seat=a["seat"], action=a["action"], now=now)]
    if op == "dice":
        return [ev.DiceResult(seat=a["seat"], dice=tuple(a["dice"]), now=now)]
    if op in ("take", "refill"):
        pos = (a["wall"], a["stack"])
        heights[pos] -= 1
        return [ev.WallStackTaken(wall=a["wall"], stack=a["stack"], tiles_left=heights[pos], now=now)]
    if op == "discard":
        return [ev.Discard(seat=a["seat"], tile=a["tile"], is_riichi=a["is_riichi"],
                           is_tsumogiri=a["is_tsumogiri"], now=now)]
    if op == "take_back":
        return [ev.DiscardRemoved(seat=a["seat"], index=a["index"], tile=a["tile"], now=now)]
    if op == "meld":
        return [ev.Meld(seat=a["seat"], meld_kind=a["meld_kind"], tiles=tuple(a["tiles"]), called=a["called"],
                        source=a["source"], now=now)]
    if op == "stick":
        return [ev.RiichiStick(seat=a["seat"], now=now)]
    if op in ("flip", "swap_indicator"):
        return [ev.IndicatorRevealed(wall=a["wall"], stack=a["stack"], tile=a["tile"],
                                     is_ura=bool(a.get("is_ura", False)), now=now)]
    if op == "reveal":
        return [ev.HandRevealed(seat=a["seat"], tiles=tuple(a["tiles"]), win_tile=a["win_tile"], now=now)]
    if op == "keep":
        return []          # a tile put in a pocket: nothing the firmware or the camera reports
    if op == "stacked":
        return [ev.StackReady(counts=tuple(a["counts"]), now=now)]
    raise ScriptError(f"unknown script action {op!r}")
