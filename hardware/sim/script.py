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
  ``drop``       ``seat`` lets standing tile ``tile`` fall off the table (an injected
                 ``wrong_hand_size`` of a seat that lays no hand down: 12 stand where 13 belong)
  ``flower``     ``seat`` sets ``tile`` (a flower or season) aside face up (the fan players)
  ``nuki``       three-player: ``seat`` sets a north aside
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
from collections import Counter
from typing import Any

from controller.rules import dice as DC
from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import walls as WL
from controller.rules.replay import rules_for_log
from controller.rules.ruleset import RuleSet
from controller.rules.ruleset import load as load_rules
from controller.rules.tilesets import census_for
from hardware.sim import script_faults as FAULTS
from hardware.sim import script_rules as OTHER
from hardware.sim.script_events import events_of
from hardware.sim.script_model import (
    EXTRA_FAULT_RULES,
    FAULT_RULES,
    INJECTABLE_RULES,
    Fault,
    HandBuilder,
    HandScript,
    Script,
    ScriptError,
    parse_inject,
    script_from_json,
)

__all__ = ["FAULT_RULES", "EXTRA_FAULT_RULES", "INJECTABLE_RULES", "Fault", "HandScript", "Script", "ScriptError",
           "build_script", "events_of", "load_script", "parse_inject", "script_from_json"]

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
    table_rules = load_rules(ruleset)
    if game.players != table_rules.players:
        raise ScriptError(f"{source}: a log of {game.players} players cannot be acted out at a table of "
                          f"{ruleset!r} ({table_rules.players} seats)")
    # the set's red fives as the log's "rule" says (a game without reds has four plain fives)
    rules = dataclasses.replace(table_rules, red_fives=rules_for_log(game).red_fives)
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
            OTHER.inject_set_mismatch(hands[f.hand - 1], builders[f.hand - 1], hands[f.hand], f,
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



def _build_hand(lh: TH.LogHand, rules: RuleSet, rng: random.Random, faults: list[Fault], source: str
                ) -> tuple[HandScript, HandBuilder]:
    where = f"{source}: hand {lh.index}"
    proc = rules.procedures
    dealer = lh.dealer
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    roller = DC.next_roller(proc.break_method, dealer, [])[0] if proc.walls == 3 else dealer
    lay = WL.plan(proc, dealer, [dice])
    live = [e.tile for e in lh.events if isinstance(e, TH.Draw) and not e.is_rinshan]
    repl = [e.tile for e in lh.events if isinstance(e, TH.Draw) and e.is_rinshan]
    n_kans = sum(1 for e in lh.events if isinstance(e, TH.Kan)
                 or (isinstance(e, TH.Call) and e.meld.kind == "kan"))
    census = census_for(rules)
    extra = next((f for f in faults if f.rule == "extra_draw"), None)
    extra_at = None   # (seat, index in the live draw list after which the extra tile is taken)
    cut_after = None  # live draws after which the hand is cut short (no tile left for the log's next one)
    if extra is not None:
        extra_at = FAULTS.pick_extra_draw(lh, extra, live, n_kans, where)
        used = Counter(t for h in lh.haipai for t in h) + Counter(live) + Counter(repl) \
            + Counter(lh.dora_indicators) + Counter(lh.ura_indicators)
        if FAULTS.has_spare_tile(live, n_kans):
            spare = next(t for t in sorted(census, key=T.sort_key) if census[t] - used[t] > 0 and not T.is_red(t))
            live.insert(extra_at[1] + 1, spare)
        else:          # it takes the last live tile: the hand ends a draw early
            live.insert(extra_at[1] + 1, live.pop())
            cut_after = len(live)
    try:
        tiles = WL.layout_from_roll(lay, hands=lh.haipai, draws=live, replacements=repl,
                                    indicators=lh.dora_indicators, ura_indicators=lh.ura_indicators, census=census)
    except WL.WallError as err:
        raise ScriptError(f"{where}: the walls cannot be laid out: {err}") from None
    hb = HandBuilder(lh, rules, rng, where)
    ws = WL.WallState(lay, tiles)
    hb.add({"op": "lift", "counts": [2 * proc.stacks_per_side] * proc.walls, "odd_backs": []})
    hb.add({"op": "press", "seat": roller, "action": "dice"})
    hb.add({"op": "dice", "seat": roller, "dice": list(dice)})
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
    is_cut = False
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
        if isinstance(e, TH.Draw) and not e.is_rinshan and cut_after is not None and live_taken >= cut_after:
            is_cut = True
            break
        if isinstance(e, TH.Draw):
            after_north = i > 0 and isinstance(lh.events[i - 1], TH.Nuki)
            take = ws.draw_replacement("north" if after_north else "kan") if e.is_rinshan else ws.draw()
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
        elif isinstance(e, TH.Nuki):
            # three-player: a north set aside face up; its replacement follows from the dead wall
            hb.add({"op": "nuki", "seat": e.seat, "tile": e.tile})
            hb.players[e.seat].give(e.tile)
        else:
            raise ScriptError(f"{where}: {type(e).__name__} cannot be acted out at the table")
    if is_cut:
        hb.add({"op": "press", "seat": dealer, "action": "ok"})
    else:
        _finish(hb, lh, lay, tiles, shown)
    hb.seal()
    hand = HandScript(lh.index, lh.round, lh.honba, lh.sticks, lh.scores, dealer, dice, dict(tiles),
                      hb.actions)
    if extra is not None:
        hand.faults.append({**extra_fault, **({"cut": True} if is_cut else {})})
    for f in faults:
        if f.rule != "extra_draw":
            if f.rule in OTHER.IN_HAND:
                OTHER.inject(hand, hb, f, where)
            else:
                FAULTS.inject(hand, hb, lay, f, where)
    return hand, hb


def _finish(hb: HandBuilder, lh: TH.LogHand, lay: WL.WallLayout, tiles: dict, shown: int) -> None:
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
