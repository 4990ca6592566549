"""The faults of contracts/table-api.md committed in a hand's script (``--inject RULE@HAND[:SEAT]``).

:func:`inject` changes a built hand (its walls and actions) so that the simulated table commits
the fault physically, and records it in ``hand.faults`` with the seat and tile the tracker is to
name. ``extra_draw`` is planned before the walls are laid out (:func:`pick_extra_draw`).
"""

from __future__ import annotations

from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import walls as WL
from hardware.sim.script_model import Fault, HandBuilder, HandScript, ScriptError, slot_of


def has_spare_tile(live: list[str], n_kans: int) -> bool:
    """Does the live wall hold a tile no one draws in the hand (for an extra draw)?"""
    return len(live) + 1 <= 122 - 52 - n_kans


def pick_extra_draw(lh: TH.LogHand, f: Fault, live: list[str], n_kans: int, where: str) -> tuple[int, int]:
    """(seat, index in the live draws after which it takes one tile more). Where the live wall has
    no spare tile the extra one is the last live tile, moved forward (the hand then ends a draw
    early: the script leaves the log)."""
    revealers = _revealers(lh)
    draws = []   # (seat, live index)
    k = 0
    for e in lh.events:
        if isinstance(e, TH.Draw) and not e.is_rinshan:
            draws.append((e.seat, k))
            k += 1
    seats = [f.seat] if f.seat is not None else [s for s in range(4) if s not in revealers] or list(range(4))
    mine = [d for d in draws[1:-4] if d[0] in seats] or [d for d in draws[:-1] if d[0] in seats]
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


def _cut_at_last_used(hand: HandScript, wall: int) -> WL.WallSlot:
    """Every tile of ``wall`` is used in the hand: the one used last is the one missing. The hand is
    cut short where it would be taken (the dealer presses OK: the script leaves the log there)."""
    acts = hand.actions
    k = max(i for i, a in enumerate(acts) if a["op"] in ("take", "flip", "refill") and a["wall"] == wall)
    slot = slot_of(acts[k])
    dealer = hand.dealer
    del acts[k:]
    acts.append({"op": "press", "seat": dealer, "action": "ok"})
    return slot


def _drop_standing(hand: HandScript, hb: HandBuilder, seat: int, where: str) -> None:
    """``seat`` (it lays no hand down) lets one of its standing tiles fall under the table while
    play goes on: 12 stand where 13 belong, which the camera counts from above (``drop``; the
    staff put the tile back with the set after the hand). The tile is one it holds from then to
    the end, so the rest of the hand is played as built."""
    acts = hand.actions
    final = hb.players[seat].hand
    discards = [i for i, a in enumerate(acts) if a["op"] == "discard"]
    first_flip = next((i for i, a in enumerate(acts) if a["op"] == "flip"), None)
    if first_flip is None or not discards:
        raise ScriptError(f"{where}: cannot inject wrong_hand_size for seat {seat}: the hand ends before play")
    points = [first_flip + 1] + [i + 1 for i in discards if acts[i]["seat"] == seat and i < discards[-1]]
    best = None
    for tile in sorted(set(final), key=lambda t: (T.is_red(t), T.sort_key(t))):
        ok = [p for p in points if all(tile in hb.held_before(a, seat) for a in acts[p:] if hb.knows(a))]
        if ok:
            best = (ok[len(ok) // 2], tile)
            break
    if best is None:
        raise ScriptError(f"{where}: cannot inject wrong_hand_size for seat {seat}: no tile it keeps to drop")
    at, tile = best
    acts.insert(at, {"op": "drop", "seat": seat, "tile": tile})
    hb.players[seat].give(tile)
    hand.faults.append({"rule": "wrong_hand_size", "hand": hand.index, "seat": seat, "tile": None})


def _turns(acts: list[dict], discards: list[int], f: Fault) -> list[int]:
    """The draws followed by the drawer's discard after the deal at which ``f`` can be committed."""
    dealt = max(i for i, a in enumerate(acts) if a["op"] == "flip" and not a["is_ura"] and i < discards[0])
    takes = [i for i, a in enumerate(acts) if a["op"] == "take" and i > dealt
             and i + 1 < len(acts) and acts[i + 1]["op"] == "discard" and acts[i + 1]["seat"] == a["seat"]]
    if f.rule == "out_of_turn":
        return [i for i in takes if f.seat is None or acts[i]["seat"] != f.seat]
    return [i for i in takes if f.seat is None or acts[i]["seat"] == f.seat]


def _right_after_deal(hand: HandScript, hb: HandBuilder, first_flip: int, f: Fault) -> None:
    """Right after the deal (the indicator turned, the dealer to discard first) ``f.seat`` discards
    (and takes the tile back: the fault is named at once) or swaps the indicator."""
    acts = hand.actions
    seat = f.seat
    if f.rule == "out_of_turn":
        wrong = hb.held_before(acts[first_flip], seat)[0]
        acts[first_flip + 1:first_flip + 1] = [
            {"op": "discard", "seat": seat, "tile": wrong, "is_riichi": False, "is_tsumogiri": False},
            {"op": "take_back", "seat": seat, "index": 0, "tile": wrong}]
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": wrong})
        return
    ind = acts[first_flip]
    other = T.KINDS_34[(T.to_34(ind["tile"]) + 9) % 34]
    acts.insert(first_flip + 1, {"op": "swap_indicator", "seat": seat, "wall": ind["wall"], "stack": ind["stack"],
                                 "layer": ind["layer"], "tile": other})
    hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": seat, "tile": other})


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


def replaceable(hand: HandScript) -> list[int]:
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


def held_alone(hand: HandScript, hb: HandBuilder) -> dict[int, int]:
    """Discards that no one calls or wins on of a tile the seat took (dealt or drawn) and held as
    its only copy from then on, even when it let it go later (not tsumogiri): discard index ->
    the index of the take it came from. The tile can be changed in both and in its wall slot."""
    acts = hand.actions
    out: dict[int, int] = {}
    for i, a in enumerate(acts):
        if a["op"] != "discard" or a["is_riichi"] or not hb.knows(a) or _is_called(acts, i):
            continue
        seat, tile = a["seat"], a["tile"]
        if hb.held_before(a, seat).count(tile) != 1:
            continue
        for j in range(i - 1, -1, -1):
            b = acts[j]
            if not hb.knows(b):
                continue
            held = hb.held_before(b, seat).count(tile)
            if b["op"] == "take" and b["seat"] == seat and b["tile"] == tile and held == 0:
                out[i] = j
                break
            if held != 1:
                break
    return out


def _is_called(acts: list[dict], i: int) -> bool:
    nxt = acts[i + 1] if i + 1 < len(acts) else None
    return bool(nxt and ((nxt["op"] == "meld" and nxt["meld_kind"] in ("chi", "pon", "daiminkan"))
                         or (nxt["op"] == "press" and nxt["action"] in ("ron", "tsumo", "draw"))))


def replace_discard(hand: HandScript, i: int, tile: str, take_at: int | None = None) -> None:
    """Change discard ``i`` and the take it came from (``take_at``; by default the seat's last take
    before it: a tsumogiri discard) and that wall slot to ``tile``."""
    a = hand.actions[i]
    j = take_at if take_at is not None else \
        max(k for k in range(i) if hand.actions[k]["op"] == "take" and hand.actions[k]["seat"] == a["seat"])
    take = hand.actions[j]
    hand.walls[slot_of(take)] = tile
    take["tile"] = tile
    a["tile"] = tile


def _inject_excess(hand: HandScript, hb: HandBuilder, f: Fault, where: str, *, red: bool) -> None:
    face = _face_up(hand)
    takes = {i: None for i in replaceable(hand)}
    for i, j in held_alone(hand, hb).items():
        takes.setdefault(i, j)
    cands = sorted(takes)
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
                          + ": too few discards of a tile it drew to change")
    _need, last, kind, usable = best
    for c in usable + [last]:
        replace_discard(hand, c, kind, takes[c])
    hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": hand.actions[last]["seat"], "tile": kind})


def inject(hand: HandScript, hb: HandBuilder, lay: WL.WallLayout, f: Fault, where: str) -> None:
    """Commit fault ``f`` (a rule of contracts/table-api.md other than ``extra_draw``) in ``hand``."""
    acts = hand.actions
    if f.rule in ("missing_tile", "other_back"):
        cut = False
        try:
            slot = _untouched_slot(hand, f.seat, where, f.rule)
        except ScriptError:
            if f.seat is None:
                raise
            slot, cut = _cut_at_last_used(hand, f.seat), True
        if f.rule == "missing_tile":
            hand.walls[slot] = None
            acts[0]["counts"][slot.seat] -= 1
        else:
            acts[0]["odd_backs"].append({"wall": slot.seat, "stack": slot.stack, "layer": slot.layer})
        hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": slot.seat, "tile": None,
                            **({"cut": True} if cut else {})})
        return
    if f.rule in ("fifth_tile", "wrong_red"):
        _inject_excess(hand, hb, f, where, red=f.rule == "wrong_red")
        return
    if f.rule == "wrong_hand_size":
        reveals = [a for a in acts if a["op"] == "reveal" and (f.seat is None or a["seat"] == f.seat)]
        if not reveals and f.seat is not None and hb.lh.result.outcome == "exhaustive_draw":
            # at an exhaustive draw a noten seat may still lay its hand down (claiming tenpai)
            acts.insert(len(acts) - 1, {"op": "reveal", "seat": f.seat, "tiles": list(hb.players[f.seat].hand),
                                        "win_tile": None})
            reveals = [acts[-2]]
        if not reveals and f.seat is not None:
            _drop_standing(hand, hb, f.seat, where)
            return
        if not reveals:
            raise ScriptError(f"{where}: cannot inject wrong_hand_size: no seat reveals a hand")
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
        first_flip = next((i for i, a in enumerate(acts) if a["op"] == "flip"), None)
        if (not discards or not _turns(acts, discards, f)) and f.seat is not None and first_flip is not None \
                and (f.rule == "moved_indicator" or f.seat != hand.dealer):
            _right_after_deal(hand, hb, first_flip, f)       # no turn of its own (or none) to do it in
            return
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
