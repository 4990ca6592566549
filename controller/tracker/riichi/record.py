"""The hand as the table saw it, rebuilt for the rules engine's replay.

The camera never sees a concealed tile until a hand is revealed. To have the hand scored by
:func:`controller.rules.replay.replay_hand` (so that the table shows exactly what
``tablectl replay`` would), the tracker's record of the hand (draws, discards, calls and
kans in order, the indicators, the revealed hands) is turned into a tenhou-style
:class:`controller.rules.tenhou.LogHand`:

- every tile a seat gives up (a discard, the tiles of a call or kan) is taken from that
  seat's earliest unseen tile (its drawn tile for a tsumogiri);
- what a seat still holds is its revealed hand (a tsumo winner's last draw is the tile it
  set apart), or, for a hand never shown, unseen tiles of the set that do not wait (a hand
  not shown at a draw is noten).

Each rebuilt hand is consistent with everything seen, so every figure the replay computes
(yaku, fu, haitei, ippatsu, furiten-free waits, noten payments) is the one the table played.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from controller.rules import tenhou as TH
from controller.rules import tiles as T
from controller.rules import waits as WT
from controller.rules.melds import Meld as RMeld
from controller.rules.tilesets import census_for
from controller.tracker.hand import census_of, ron_tile

if TYPE_CHECKING:
    from controller.tracker.riichi.state import GameState

_RESULT_NAMES = {"win": "和了", "exhaustive_draw": "流局", "nine_terminals": "九種九牌", "four_riichi": "四家立直",
                 "triple_ron": "三家和了", "four_winds": "四風連打", "four_kans": "四槓散了"}
_OUTCOME = {"win": ("win", "win"), "exhaustive_draw": ("exhaustive_draw", "exhaustive_draw"),
            "nine_terminals": ("abortive_draw", "nine_terminals"), "four_riichi": ("abortive_draw", "four_riichi"),
            "triple_ron": ("abortive_draw", "triple_ron"), "four_winds": ("abortive_draw", "four_winds"),
            "four_kans": ("abortive_draw", "four_kans")}
_FILLER_ORDER = ("1m", "4m", "7m", "2p", "5p", "8p", "3s", "6s", "9s", "1z", "2z", "3z", "5z", "9m", "3p", "6p",
                 "1s", "4s", "7s", "2m", "8m", "9p", "2s", "8s", "4z", "6z", "7z", "3m", "6m", "1p", "4p", "7p",
                 "5s", "5m")


def rules_meld(m: dict) -> RMeld:
    kind = {"chi": "chi", "pon": "pon", "daiminkan": "kan", "kakan": "kakan", "ankan": "ankan"}[m["kind"]]
    tiles = list(m["tiles"])
    called = m["called"]
    if kind in ("chi", "pon", "kan") and called in tiles:
        tiles.remove(called)
        tiles = [called] + tiles
    elif kind == "kakan":
        called = m.get("pon_called") or tiles[0]
    return RMeld(kind, tuple(tiles), called if kind != "ankan" else None,
                 m["source"] if kind != "ankan" else None)


def log_hand(s: GameState, kind: str) -> TH.LogHand:
    """The hand as the table saw it, in the replay's form (unseen tiles rebuilt consistently)."""
    outcome, rkind = _OUTCOME[kind]
    timeline = s.timeline
    n = s.n_seats
    # per seat: references to unseen tiles; ("h", seat, i) haipai, ("d", k) the draw at timeline k
    held: list[list[tuple]] = [[("h", seat, i) for i in range(13)] for seat in range(n)]
    value: dict[tuple, str] = {}
    last_draw: list[tuple | None] = [None] * n

    def give(seat: int, tile: str, prefer: tuple | None = None) -> None:
        refs = held[seat]
        if prefer is not None and prefer in refs:
            ref = prefer
        else:
            ref = next((r for r in refs if r != last_draw[seat]), None) or (refs[0] if refs else None)
        if ref is None:
            raise ValueError(f"seat {seat} gives up {tile} but holds no tile")
        refs.remove(ref)
        value[ref] = tile

    for k, item in enumerate(timeline):
        op, seat = item[0], item[1]
        if op == "draw":
            held[seat].append(("d", k))
            last_draw[seat] = ("d", k)
        elif op == "discard":
            give(seat, item[2], last_draw[seat] if item[3] else None)
            last_draw[seat] = None
        elif op == "call":
            m: RMeld = item[2]
            rest = list(m.tiles)
            rest.remove(m.called)
            for t in rest:
                give(seat, t)
            last_draw[seat] = None
        elif op == "nuki":
            give(seat, item[2])
        elif op == "kan":
            m = item[2]
            if m.kind == "ankan":
                for t in m.tiles:
                    give(seat, t)
            else:
                give(seat, item[3])
    # what is left: the revealed tiles, or unseen tiles that do not wait
    for seat in range(n):
        st = s.seats[seat]
        refs = held[seat]
        if st.revealed is not None:
            tiles = list(st.revealed)
            is_ron = any(w == seat and src != seat for w, src in s.winners)
            if is_ron:
                tiles.remove(st.win_tile if st.win_tile in tiles else ron_tile(s))
            if len(tiles) != len(refs):
                raise ValueError(f"seat {seat} shows {len(tiles)} standing tiles where {len(refs)} are held")
            is_tsumo = any(w == seat and src == seat for w, src in s.winners)
            if is_tsumo and last_draw[seat] in refs and st.win_tile in tiles:
                value[last_draw[seat]] = st.win_tile
                tiles.remove(st.win_tile)
                refs = [r for r in refs if r != last_draw[seat]]
            for r, t in zip(refs, tiles, strict=True):
                value[r] = t
    pool = Counter(census_for(s.rules)) if not s.red_fives else Counter(census_of(s))
    pool.subtract(Counter(value.values()))
    pool.subtract(Counter(s.indicators))
    pool.subtract(Counter(u for u in s.ura if u))
    for seat in range(n):
        st = s.seats[seat]
        refs = [r for r in held[seat] if r not in value]
        if not refs:
            continue
        melds = [rules_meld(m) for m in st.melds]
        filler = _noten_filler(pool, len(refs), melds)
        for r, t in zip(refs, filler, strict=True):
            value[r] = t
            pool[t] -= 1
    haipai = [[value[("h", seat, i)] for i in range(13)] for seat in range(n)]
    events: list[Any] = []
    for k, item in enumerate(timeline):
        op, seat = item[0], item[1]
        if op == "draw":
            events.append(TH.Draw(seat, value[("d", k)], item[2]))
        elif op == "discard":
            events.append(TH.Discard(seat, item[2], item[3], item[4]))
        elif op == "call":
            events.append(TH.Call(seat, item[2]))
        elif op == "nuki":
            events.append(TH.Nuki(seat, item[2]))
        else:
            events.append(TH.Kan(seat, item[2], item[3]))
    wins = tuple(TH.WinRecord(w, src, w, (), ()) for w, src in s.winners) if kind in ("win", "triple_ron") else ()
    result = TH.Result(_RESULT_NAMES[kind], outcome if kind != "triple_ron" else "win", rkind, wins, ())
    if kind == "triple_ron":
        result = TH.Result(_RESULT_NAMES[kind], "abortive_draw", "triple_ron", (), ())
    ura = [u for u in s.ura if u][:len(s.indicators)]
    # three players: the tracker numbers rounds 3 to a wind (E1..E3 = 0..2, S1 = 3), as the game flow does
    return TH.LogHand(s.hand_index, s.round, s.honba, s.hand_start_sticks, tuple(s.hand_start_scores),
                      list(s.indicators) or ["1z"], ura, haipai, events, result, players=n, rounds_per_wind=n)


def _noten_filler(pool: Counter, n: int, melds: list[RMeld]) -> list[str]:
    order = [t for t in _FILLER_ORDER] + [t for t in T.KINDS_34 if t not in _FILLER_ORDER]
    for shift in range(len(order)):
        rot = order[shift:] + order[:shift]
        picked: list[str] = []
        left = Counter(pool)
        rounds = 0
        while len(picked) < n and rounds < 4:
            for t in rot:
                if len(picked) == n:
                    break
                if left[t] > 0:
                    picked.append(t)
                    left[t] -= 1
            rounds += 1
        if len(picked) < n:
            break
        if n % 3 != 1:
            return picked
        try:
            if not WT.is_tenpai(picked, melds):
                return picked
        except ValueError:
            return picked
    raise ValueError("no unseen tiles left to stand for a hand that was not shown")
