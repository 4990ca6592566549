"""``tablectl export``: the finished games of an event store as tenhou.net/6 JSON.

The stored events are replayed through the game tracker (``controller.tracker``), exactly as
the daemon rebuilds its state. Each hand that was confirmed is taken as the tracker saw it
(its ``LogHand``: scores, indicators, haipai, draws, discards, calls and kans, result) and
written in Tenhou's array form; a game appears once it is finished. Voided hands are not
in the export (they never happened, as far as the scores go).

Output per game: ``{"title": [...], "name": [4 names], "rule": {"disp", "aka"}, "log": [hand...]}``
with each hand ``[[round, honba, sticks], scores, dora, ura, haipai0, draws0, discards0, ...,
result]``. The yaku strings of a win are left out (minimal, valid): the replay computes them.
"""

from __future__ import annotations

import time
from typing import Any

from controller import events as ev
from controller.rules import tenhou as TH
from controller.storage import EventStore, StorageError

TSUMOGIRI = 60


class ExportError(StorageError, ValueError):
    """A hand that cannot be written in tenhou.net/6 form."""


def _code(tile: str) -> int:
    return TH.code_of(tile)


def _call_text(seat: int, meld: Any, added: str | None = None) -> str:
    """Tenhou's call string: the marker's place says from whom the tile came."""
    kind = meld.kind
    if kind == "ankan":
        codes = [str(_code(t)) for t in meld.tiles]
        return "".join(codes[:3]) + "a" + codes[3]
    called = meld.called
    others = list(meld.tiles)
    others.remove(called)
    if kind == "kakan":
        others.remove(added)
    offset = (meld.source - seat) % 4  # 3: the seat before (kamicha), 2: across, 1: the next seat
    if kind == "chi":
        return "c" + str(_code(called)) + "".join(str(_code(t)) for t in others)
    if kind in ("pon", "kakan"):
        index = {3: 0, 2: 1, 1: 2}[offset]
        marker = "p" + str(_code(called)) if kind == "pon" else "k" + str(_code(added)) + str(_code(called))
    elif kind in ("kan", "daiminkan"):
        index = {3: 0, 2: 1, 1: 3}[offset]
        marker = "m" + str(_code(called))
    else:
        raise ExportError(f"meld kind {kind!r} has no tenhou.net/6 form")
    codes = [str(_code(t)) for t in others]
    return "".join(codes[:index]) + marker + "".join(codes[index:])


def hand_json(hand: TH.LogHand, result: dict[str, Any]) -> list:
    """One hand in tenhou.net/6 form from the tracker's LogHand and its computed result."""
    if hand.players != 4:
        raise ExportError("only four-player hands can be exported")
    draws: list[list] = [[] for _ in range(4)]
    discards: list[list] = [[] for _ in range(4)]
    last_draw: list[str | None] = [None] * 4
    for item in hand.events:
        if isinstance(item, TH.Draw):
            draws[item.seat].append(_code(item.tile))
            last_draw[item.seat] = item.tile
        elif isinstance(item, TH.Discard):
            value: int | str = TSUMOGIRI if item.is_tsumogiri else _code(item.tile)
            discards[item.seat].append(f"r{value}" if item.is_riichi else value)
            last_draw[item.seat] = None
        elif isinstance(item, TH.Call):
            draws[item.seat].append(_call_text(item.seat, item.meld))
            if item.meld.kind in ("kan", "daiminkan"):
                discards[item.seat].append(0)  # an open kan discards nothing; Tenhou writes 0
        elif isinstance(item, TH.Kan):
            discards[item.seat].append(_call_text(item.seat, item.meld, item.added))
        else:
            raise ExportError(f"hand {hand.index}: {type(item).__name__} has no tenhou.net/6 form here")
    out: list = [[hand.round, hand.honba, hand.sticks], list(hand.scores),
                 [_code(t) for t in hand.dora_indicators], [_code(t) for t in hand.ura_indicators]]
    for seat in range(4):
        out += [[_code(t) for t in hand.haipai[seat]], draws[seat], discards[seat]]
    out.append(_result_json(hand, result))
    return out


def _result_json(hand: TH.LogHand, result: dict[str, Any]) -> list:
    deltas = list(result.get("deltas") or [0, 0, 0, 0])
    if result.get("outcome") == "win":
        entry: list = ["和了"]
        for i, win in enumerate(result.get("wins", [])):
            text = (f"{win.get('yakuman', 0)}倍役満{win['points']}点" if win.get("yakuman")
                    else f"{win['fu']}符{win['han']}飜{win['points']}点")
            entry += [deltas if i == 0 else [0, 0, 0, 0], [win["seat"], win["from"], win["seat"], text]]
        return entry
    if result.get("outcome") == "exhaustive_draw":
        return ["流局", deltas]
    return [hand.result.name]


def export_games(store: EventStore) -> list[dict[str, Any]]:
    """Every finished game in the store, oldest first (needs the game tracker)."""
    from controller import tracker as G
    from controller.tracker.riichi.record import log_hand
    games: list[dict[str, Any]] = []
    state = G.new_state()
    hands: list[list] = []
    started_at = 0.0
    for stored in store.events():
        event = ev.from_record(stored.payload)
        if isinstance(event, ev.StartGame):
            hands, started_at = [], stored.t_wall
        before = state
        state, _ = G.step(state, event, event.now)  # type: ignore[arg-type]
        # a three-player game has no tenhou.net/6 form here yet: it is exported as its score sheet
        is_riichi = isinstance(state, G.GameState) and len(state.seats) == 4
        if is_riichi and isinstance(before, G.GameState) and before.result is not None \
                and state.last_result is not before.last_result:
            lh = log_hand(before, before.draw_kind or "win")
            hands.append(hand_json(lh, before.result))
        if state.finished and not before.finished:
            title = [f"jantaku table {state.table}", time.strftime("%Y-%m-%d %H:%M", time.gmtime(started_at))]
            if is_riichi:
                games.append({"title": title, "name": list(state.players),
                              "rule": {"disp": state.ruleset, "aka": 1 if state.red_fives else 0}, "log": hands})
            else:
                # Hong Kong / Chinese and three-player games have no tenhou.net/6 form: the score sheet and
                # final scores
                games.append({"title": title, "name": list(state.players), "rule": {"disp": state.ruleset},
                              "sheet": [dict(row) for row in state.history],
                              "sc": [seat.score for seat in state.seats]})
    return games
