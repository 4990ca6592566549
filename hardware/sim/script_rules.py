"""The tracker's other alert rules committed in a hand's script (``EXTRA_FAULT_RULES``):
``stack_count``, ``set_mismatch``, ``kuikae``, ``last_discard_call``, ``furiten_ron``.

Each injector changes a built hand so that the simulated table commits the fault physically
(walls swapped so that the set stays whole, a discard changed, a call added) and records it in
``hand.faults``. See :mod:`hardware.sim.script` for the table of what each does.
"""

from __future__ import annotations

from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import waits as WT
from controller.rules import walls as WL
from controller.rules.calls import kuikae_reason
from hardware.sim.script_faults import replace_discard, replaceable
from hardware.sim.script_model import Fault, HandBuilder, HandScript, ScriptError, slot_of


def _fault_for(f: Fault) -> str:
    return f" for seat {f.seat}" if f.seat is not None else ""


def _touched_stacks(hand: HandScript) -> set[tuple[int, int]]:
    """(wall, stack) of every stack a tile is taken from, turned on, swapped on or moved from."""
    return {(a["wall"], a["stack"]) for a in hand.actions
            if a["op"] in ("take", "flip", "swap_indicator", "refill")}


def _inject_stack_count(hand: HandScript, hb: HandBuilder, f: Fault, where: str) -> None:
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


def inject_set_mismatch(prev: HandScript, hb: HandBuilder, hand: HandScript, f: Fault, where: str) -> None:
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


def _ron_waits(hb: HandBuilder) -> dict[int, set[str]]:
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


def _deal_swap(hand: HandScript, hb: HandBuilder, seat: int, kinds: set[str], *, keep: frozenset[str] = frozenset()
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
        hand.walls[slot_of(take)] = tile
        take["tile"] = tile
        final.remove(x)
        final.append(tile)
        return tile, x
    return None


def _inject_kuikae(hand: HandScript, hb: HandBuilder, f: Fault, where: str) -> None:
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
            if bad == meant or kuikae_reason(call, bad, rules) is None or not fits(seat, bad, meant):
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
        barred = {k for k in T.KINDS_34 if k != T.plain(meant) and kuikae_reason(call, k, rules) is not None
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


def _inject_last_discard_call(hand: HandScript, hb: HandBuilder, f: Fault, where: str) -> None:
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


def _haitei_for(hand: HandScript, hb: HandBuilder, i: int, seat: int) -> dict | None:
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
        replace_discard(hand, i, tile)
        return meld
    return None


def _dealt_pair(hand: HandScript, hb: HandBuilder, seat: int, tile: str, src: int) -> dict | None:
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


def _inject_furiten_ron(hand: HandScript, hb: HandBuilder, f: Fault, where: str) -> None:
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
    cands = [i for i in replaceable(hand) if i not in first_go]
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
                replace_discard(hand, i, tile)
                reveal = next(a for a in acts if a["op"] == "reveal" and a["seat"] == winner)
                hand.faults.append({"rule": f.rule, "hand": hand.index, "seat": winner, "tile": reveal["win_tile"]})
                return
    raise ScriptError(f"{where}: cannot inject furiten_ron{_fault_for(f)}: no tsumogiri discard of the winner to "
                      "change, or no unseen copy of a winning tile in the walls")


def inject(hand: HandScript, hb: HandBuilder, f: Fault, where: str) -> None:
    """Commit fault ``f`` (one of ``stack_count``, ``kuikae``, ``last_discard_call``, ``furiten_ron``;
    ``set_mismatch`` spans two hands: :func:`inject_set_mismatch`) in ``hand``."""
    {"stack_count": _inject_stack_count, "kuikae": _inject_kuikae, "last_discard_call": _inject_last_discard_call,
     "furiten_ron": _inject_furiten_ron}[f.rule](hand, hb, f, where)


IN_HAND = ("stack_count", "kuikae", "last_discard_call", "furiten_ron")

