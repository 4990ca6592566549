"""Replaying tenhou.net/6 logs hand by hand (``tablectl replay``, contracts/replay.md).

Every figure is computed from the tiles and the declared events (who won, from whom; which
draw): the recorded point changes and yaku strings of the result entries are never read.
The ``mahjong`` calculator is called once per declared win; draws use the fast waits.

:func:`replay_game` returns one dict per hand in the contract's JSON shape.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from controller.rules import dora as D
from controller.rules import tiles as T
from controller.rules.draws import is_nagashi, noten_deltas
from controller.rules.melds import Meld
from controller.rules.payments import (
    WinPayment,
    nagashi_deltas,
    order_from,
    ron_amount,
    tsumo_amounts,
    win_deltas,
)
from controller.rules.ruleset import RuleSet, load
from controller.rules.scoring import score_win
from controller.rules.tenhou import Call, Discard, Draw, Kan, LogError, LogGame, LogHand, Nuki
from controller.rules.waits import waits_34

_WINDS = ("1z", "2z", "3z", "4z")
_DRAGONS = {"5z", "6z", "7z"}
_WIND_SET = {"1z", "2z", "3z", "4z"}


def rules_for_log(game: LogGame, name: str | None = None) -> RuleSet:
    """The ruleset for a log: ``name`` if given, else ``tenhou`` (``sanma`` with tsumo loss and
    uma 20-0-20, as Tenhou plays it, for three players) adjusted by the log's ``"rule"`` (red
    fives, open tanyao)."""
    if name:
        return load(name)
    rules = load("sanma" if game.players == 3 else "tenhou")
    rule = game.rule or {}
    changes: dict[str, Any] = {}
    if any(k in rule for k in ("aka51", "aka52", "aka53")):
        changes["red_fives"] = tuple(int(bool(rule.get(k, 0))) for k in ("aka51", "aka52", "aka53"))
    elif "aka" in rule:
        changes["red_fives"] = (1, 1, 1) if rule["aka"] else (0, 0, 0)
    disp = str(rule.get("disp", ""))
    if disp and any(ch in disp for ch in "般上特鳳技若銀琥孔"):
        changes["has_open_tanyao"] = "喰" in disp
        if "赤" not in disp and "red_fives" not in changes:
            changes["red_fives"] = (0, 0, 0)
    if game.players == 3:
        changes["has_tsumo_loss"] = True  # Tenhou's sanma: a tsumo is paid by the two others only
        # Tenhou's sanma table: a 14-tile dead wall, refilled after each kan and north
        changes["procedures"] = dataclasses.replace(rules.procedures, refill_after=("kan", "north"))
        changes["uma"] = (20, 0, -20)
    return dataclasses.replace(rules, **changes) if changes else rules


class _Seat:
    __slots__ = ("hand", "melds", "river", "called_away", "riichi", "double_riichi", "ippatsu",
                 "riichi_pending", "drawn_any", "discarded_any", "pao", "north", "kan_from")

    def __init__(self, haipai: list[str]) -> None:
        self.hand = list(haipai)
        self.melds: list[Meld] = []
        self.river: list[str] = []
        self.called_away = 0
        self.riichi = False
        self.double_riichi = False
        self.ippatsu = False
        self.riichi_pending = False
        self.drawn_any = False
        self.discarded_any = False
        self.pao: tuple[str, int] | None = None
        self.kan_from: int | None = None   # the seat whose discard this seat made an open kan of (till it discards)
        self.north = 0


def _remove(seat_state: _Seat, tile: str, where: str, seat: int) -> None:
    try:
        seat_state.hand.remove(tile)
    except ValueError:
        raise LogError(f"{where}: seat {seat} gives up {tile} which is not in its hand "
                       f"{T.fmt(T.sorted_tiles(seat_state.hand))}") from None


def replay_hand(h: LogHand, rules: RuleSet, source: str = "<log>", scores: Sequence[int] | None = None
                ) -> dict[str, Any]:
    """Replay one hand; return the contract's per-hand dict. Raises LogError."""
    where = f"{source}: hand {h.index}"
    n = h.players
    seats = [_Seat(hp) for hp in h.haipai]
    live_total = (136 - 14 - 52) if n == 4 else (108 - 14 - 39)
    counts_replacements = True
    proc = rules.procedures
    if n == 3 and proc is not None and proc.walls == 3 and not proc.refill_after:
        # a dead wall that is never refilled (seed 002 sanma: 9 stacks): replacement draws do not
        # shorten the live wall, which the deal leaves at 108 - 18 - 39 = 51 tiles
        live_total = proc.n_tiles - 2 * proc.dead_wall_stacks - 13 * n
        counts_replacements = False
    draws_total = 0
    clean_first_turn = True  # no call yet (double riichi, tenhou/chiihou, nine terminals)
    last = None
    deposits = [0] * n
    pending = -1  # seat whose riichi discard is not yet answered
    kan_standing = False  # a kan was just made: it breaks ippatsu once it stands (not robbed)
    for ev in h.events:
        if kan_standing:
            # the kan was not robbed (chankan): now it breaks everybody's ippatsu. A ron on the
            # added tile comes before this and keeps the robber's ippatsu (一発 + 搶槓).
            for other in seats:
                other.ippatsu = False
            kan_standing = False
        # a riichi discard that was not ronned puts its stick down before anything else happens
        if pending >= 0:
            seats[pending].riichi_pending = False
            deposits[pending] += 1
            pending = -1
        if isinstance(ev, Draw):
            st = seats[ev.seat]
            st.hand.append(ev.tile)
            st.drawn_any = True
            if counts_replacements or not ev.is_rinshan:
                draws_total += 1
        elif isinstance(ev, Discard):
            st = seats[ev.seat]
            try:
                st.hand.remove(ev.tile)
            except ValueError:
                _remove(st, ev.tile, where, ev.seat)  # raises the LogError naming the tile
            st.river.append(ev.tile)
            st.kan_from = None
            if st.ippatsu and not ev.is_riichi:
                st.ippatsu = False
            if ev.is_riichi:
                if st.riichi:
                    raise LogError(f"{where}: seat {ev.seat} declares riichi twice")
                if any(m.is_open for m in st.melds):
                    raise LogError(f"{where}: seat {ev.seat} declares riichi with an open hand")
                st.riichi = True
                st.double_riichi = clean_first_turn and not st.discarded_any
                st.ippatsu = True
                st.riichi_pending = True
                pending = ev.seat
            st.discarded_any = True
        elif isinstance(ev, Call):
            st = seats[ev.seat]
            m = ev.meld
            rest = list(m.tiles)
            rest.remove(m.called)
            for t in rest:
                _remove(st, t, where, ev.seat)
            seats[m.source].called_away += 1
            st.melds.append(m)
            clean_first_turn = False
            for other in seats:
                other.ippatsu = False
            _note_pao(st, m, rules)
            if m.kind == "kan":
                st.kan_from = m.source
        elif isinstance(ev, Kan):
            st = seats[ev.seat]
            m = ev.meld
            if m.kind == "ankan":
                for t in m.tiles:
                    _remove(st, t, where, ev.seat)
                st.melds.append(m)
            else:
                _remove(st, ev.added, where, ev.seat)
                k = T.plain(ev.added)
                idx = next((i for i, x in enumerate(st.melds) if x.kind == "pon" and T.plain(x.tiles[0]) == k), None)
                if idx is None:
                    raise LogError(f"{where}: seat {ev.seat} adds {ev.added} to a pon it does not have")
                st.melds[idx] = m
            clean_first_turn = False
            kan_standing = True
        elif isinstance(ev, Nuki):
            st = seats[ev.seat]
            _remove(st, ev.tile, where, ev.seat)
            st.north += 1
            for other in seats:
                other.ippatsu = False
            clean_first_turn = False
        last = ev
    res = h.result
    start = list(scores) if scores is not None else list(h.scores[:n])
    sticks_before = h.sticks
    out: dict[str, Any] = {"hand": h.index, "round": h.round_label, "honba": h.honba,
                           "outcome": res.outcome}
    dora_out = [D.dora_of(t, is_sanma=n == 3) for t in h.dora_indicators]
    deltas = [0] * n
    wins_row: list[dict[str, Any]] | None = None
    if res.outcome == "win":
        # a ronned riichi discard puts no stick down
        wins_in = res.wins
        discarder = None
        if wins_in and wins_in[0].from_seat != wins_in[0].seat:
            discarder = wins_in[0].from_seat
        for s_idx, st in enumerate(seats):
            if st.riichi_pending:
                st.riichi_pending = False
                if s_idx == discarder and isinstance(last, Discard) and last.seat == s_idx:
                    st.riichi = False
                    st.double_riichi = False
                else:
                    deposits[s_idx] += 1
        if len(wins_in) >= 3 and rules.triple_ron == "head_bump" and discarder is not None:
            first = order_from(discarder, [w.seat for w in wins_in], n)[0]
            wins_in = tuple(w for w in wins_in if w.seat == first)
        payments = []
        win_out = []
        for w in wins_in:
            score, pay, points = _score_one(h, rules, seats, w.seat, w.from_seat, last, draws_total, live_total,
                                            clean_first_turn, where)
            payments.append(pay)
            entry = {"seat": w.seat, "from": w.from_seat, "han": score.han, "fu": score.fu,
                     "yakuman": score.yakuman, "yaku": [[k, v] for k, v in score.yaku], "points": points}
            if pay.pao_seat is not None:
                entry["pao"] = pay.pao_seat
            win_out.append(entry)
        sticks = sticks_before + sum(deposits)
        if len(payments) >= 3 and rules.triple_ron == "abort":
            out["outcome"] = "abortive_draw"
        else:
            deltas = win_deltas(payments, dealer=h.dealer, rules=rules, honba=h.honba, sticks=sticks)
        out["deltas"] = deltas
        if out["outcome"] == "win":
            wins_row = win_out
    else:
        for s_idx, st in enumerate(seats):
            if st.riichi_pending:
                st.riichi_pending = False
                deposits[s_idx] += 1
        if res.outcome == "exhaustive_draw":
            tenpai = []
            for st in seats:
                counts = [0] * 34
                held = [0] * 34
                for t in st.hand:
                    counts[T.to_34(t)] += 1
                    held[T.to_34(t)] += 1
                for m in st.melds:
                    for t in m.tiles:
                        held[T.to_34(t)] += 1
                if len(st.hand) != 13 - 3 * len(st.melds):
                    raise LogError(f"{where}: at the draw a seat holds {len(st.hand)} tiles with "
                                   f"{len(st.melds)} meld(s)")
                tenpai.append(bool(waits_34(counts, len(st.melds), held)))
            nagashi = [i for i, st in enumerate(seats) if rules.has_nagashi_mangan
                       and is_nagashi(st.river, st.called_away)]
            if nagashi:
                deltas = nagashi_deltas(nagashi, dealer=h.dealer, rules=rules)
                out["nagashi"] = nagashi
            else:
                deltas = noten_deltas(tenpai, rules=rules)
            out["tenpai"] = tenpai
        out["deltas"] = deltas
    after = [start[i] - deposits[i] * rules.riichi_cost + deltas[i] for i in range(n)]
    if n == 3:  # the log's seat order has four places; the empty fourth seat stays 0 / noten
        out["deltas"] = list(out["deltas"]) + [0]
        after.append(0)
        if "tenpai" in out:
            out["tenpai"] = out["tenpai"] + [False]
    out["scores_after"] = after
    out["dora_indicators"] = list(h.dora_indicators)
    out["dora"] = dora_out
    if wins_row is not None:
        out["wins"] = wins_row
    return out


def pao_liability(melds: Sequence[Meld], rules: RuleSet) -> tuple[str, int] | None:
    """Liability (包, pao) created by the LAST meld of ``melds`` (a pon or open kan just called):
    the third dragon set, the fourth wind set, or (where the profile says) the fourth kan.
    Returns (yakuman name, liable seat) or None.

    >>> from controller.rules.melds import Meld
    >>> from controller.rules.ruleset import load
    >>> shown = [Meld("pon", ("5z",) * 3, "5z", 1), Meld("pon", ("7z",) * 3, "7z", 2)]
    >>> pao_liability(shown + [Meld("pon", ("6z",) * 3, "6z", 3)], load("tenhou"))
    ('daisangen', 3)
    """
    if not melds:
        return None
    m = melds[-1]
    if m.kind not in ("pon", "kan") or m.source is None:
        return None
    k = T.plain(m.tiles[0])
    triplets = [T.plain(x.tiles[0]) for x in melds if x.kind != "chi"]
    if k in _DRAGONS and "daisangen" in rules.pao_yakuman and sum(1 for t in triplets if t in _DRAGONS) == 3:
        return ("daisangen", m.source)
    if k in _WIND_SET and "daisuushii" in rules.pao_yakuman and sum(1 for t in triplets if t in _WIND_SET) == 4:
        return ("daisuushii", m.source)
    if m.kind == "kan" and "suukantsu" in rules.pao_yakuman and sum(1 for x in melds if x.is_kan) == 4:
        return ("suukantsu", m.source)
    return None


def _note_pao(st: _Seat, m: Meld, rules: RuleSet) -> None:
    if st.pao is None:
        st.pao = pao_liability(st.melds, rules)


def _score_one(h: LogHand, rules: RuleSet, seats: list[_Seat], seat: int, from_seat: int, last, draws_total: int,
               live_total: int, clean_first_turn: bool, where: str):
    n = h.players
    st = seats[seat]
    is_tsumo = seat == from_seat
    is_chankan = False
    is_rinshan = False
    if is_tsumo:
        if not (isinstance(last, Draw) and last.seat == seat):
            raise LogError(f"{where}: seat {seat} declares tsumo but did not just draw")
        concealed = list(st.hand)
        win_tile = last.tile
        is_rinshan = last.is_rinshan
    else:
        if isinstance(last, Discard) and last.seat == from_seat:
            win_tile = last.tile
        elif isinstance(last, Kan) and last.seat == from_seat:
            win_tile = last.added if last.meld.kind == "kakan" else last.meld.tiles[0]
            is_chankan = True
        elif isinstance(last, Nuki) and last.seat == from_seat:
            win_tile = last.tile  # a north set aside may be robbed; Tenhou scores it as a plain ron
        else:
            raise LogError(f"{where}: seat {seat} declares ron from seat {from_seat}, whose last action "
                           f"was not a discard or a kan")
        concealed = list(st.hand) + [win_tile]
    if len(concealed) != 14 - 3 * len(st.melds):
        raise LogError(f"{where}: winner seat {seat} holds {len(concealed)} tiles with {len(st.melds)} meld(s)")
    seat_wind = _WINDS[(seat - h.dealer) % n]
    round_wind = h.round_wind
    first_draw = is_tsumo and clean_first_turn and not st.discarded_any
    is_haitei = is_tsumo and not is_rinshan and draws_total >= live_total
    is_houtei = not is_tsumo and not is_chankan and draws_total >= live_total
    is_riichi = st.riichi
    ura = list(h.ura_indicators) if is_riichi else []
    try:
        score = score_win(
            concealed, win_tile, st.melds, is_tsumo=is_tsumo, seat_wind=seat_wind, round_wind=round_wind,
            is_riichi=is_riichi and not st.double_riichi, is_double_riichi=st.double_riichi,
            is_ippatsu=st.ippatsu and is_riichi, is_rinshan=is_rinshan, is_chankan=is_chankan,
            is_haitei=is_haitei, is_houtei=is_houtei,
            is_tenhou=first_draw and seat == h.dealer, is_chiihou=first_draw and seat != h.dealer,
            dora_indicators=h.dora_indicators, ura_indicators=ura, north_count=st.north, honba=h.honba,
            rules=rules)
    except ValueError as err:
        raise LogError(f"{where}: winner seat {seat}: {err}") from None
    if not score.ok:
        raise LogError(f"{where}: seat {seat} declares a win but the hand "
                       f"{T.fmt(T.sorted_tiles(concealed))} + {len(st.melds)} meld(s) on {win_tile} "
                       f"does not score ({score.error})")
    if is_chankan and last.meld.kind == "ankan" and not any(n.startswith("kokushi") for n in score.yakuman_names):
        raise LogError(f"{where}: seat {seat} robs a closed kan without thirteen orphans (kokushi)")
    pao_seat = None
    pao_base = 0
    if st.pao is not None and st.pao[0] in score.yakuman_names and st.pao[1] != seat:
        pao_seat = st.pao[1]
        per = 12000 if rules.has_big_yakuman_base else 8000
        pao_base = score.base if rules.pao_other_yakuman == "all" else per * _yakuman_units(score, st.pao[0])
    if is_tsumo and is_rinshan and rules.has_rinshan_pao and st.kan_from is not None and pao_seat is None:
        # 大明槓嶺上開花包牌 (S002:L274-278): paid as a ron by the discarder of the open kan's tile
        pay = WinPayment(seat, score.base, st.kan_from, st.kan_from, 0)
        return score, pay, ron_amount(score.base, is_dealer=seat == h.dealer)
    pay = WinPayment(seat, score.base, None if is_tsumo else from_seat, pao_seat, pao_base)
    if is_tsumo:
        d, o = tsumo_amounts(score.base, is_dealer=seat == h.dealer, rules=rules)
        others = [s for s in range(n) if s != seat]
        points = sum(d if s == h.dealer else o for s in others)
    else:
        points = ron_amount(score.base, is_dealer=seat == h.dealer)
    return score, pay, points


def _yakuman_units(score, name: str) -> int:
    for k, v in score.yaku:
        if k == name:
            return max(1, v // 13)
    return 1


def replay_game(game: LogGame, rules: RuleSet | None = None) -> list[dict[str, Any]]:
    """Replay every hand of a parsed log. Raises LogError on the first hand that cannot be replayed."""
    rules = rules or rules_for_log(game)
    return [replay_hand(h, rules, game.source) for h in game.hands]
