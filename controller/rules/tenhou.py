"""Reading tenhou.net/6 JSON game logs into typed hands and a timeline of events.

A log is ``{"log": [HAND, ...], "rule": {...}, "name": [...], ...}``; each HAND is
``[[round, honba, sticks], scores, dora_indicators, ura_indicators,
haipai0, draws0, discards0, ..., haipai3, draws3, discards3, result]``.
Tiles are numbers 11-19 (man), 21-29 (pin), 31-39 (sou), 41-47 (E S W N haku hatsu chun),
51/52/53 (red 5m/5p/5s). Draw lists hold tiles or call strings (``c`` chi, ``p`` pon,
``m`` open kan); discard lists hold tiles, ``60`` (tsumogiri), ``rNN`` (riichi), ``a``/``k``
strings (closed / added kan, declared instead of a discard) and ``0`` (the discard slot
after an open kan), ``f44`` (sanma north extraction).

The result entry is kept as data (:class:`Result`) for tests; the replay never reads its
point changes or yaku strings. Errors are :class:`LogError` naming the file, the hand and
the problem.

>>> tile_of(51), tile_of(47), code_of("0s")
('0m', '7z', 53)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from controller.rules.melds import Meld, MeldError

_TILE = {}
for _s, _suit in ((1, "m"), (2, "p"), (3, "s")):
    for _n in range(1, 10):
        _TILE[_s * 10 + _n] = f"{_n}{_suit}"
for _n in range(1, 8):
    _TILE[40 + _n] = f"{_n}z"
_TILE.update({51: "0m", 52: "0p", 53: "0s"})
_CODE = {v: k for k, v in _TILE.items()}

# result names (as Tenhou writes them) -> (outcome, our name)
RESULT_KINDS: dict[str, tuple[str, str]] = {
    "和了": ("win", "win"),
    "流局": ("exhaustive_draw", "exhaustive_draw"),
    "全員聴牌": ("exhaustive_draw", "exhaustive_draw"),
    "全員聽牌": ("exhaustive_draw", "exhaustive_draw"),
    "全員不聴": ("exhaustive_draw", "exhaustive_draw"),
    "流し満貫": ("exhaustive_draw", "nagashi_mangan"),
    "九種九牌": ("abortive_draw", "nine_terminals"),
    "四家立直": ("abortive_draw", "four_riichi"),
    "三家和了": ("abortive_draw", "triple_ron"),
    "四風連打": ("abortive_draw", "four_winds"),
    "四槓散了": ("abortive_draw", "four_kans"),
}


class LogError(ValueError):
    """A log that cannot be replayed; the message names file, hand and problem."""


def tile_of(code: Any) -> str:
    """mpsz tile of a Tenhou tile number. Raises KeyError/TypeError for others."""
    if type(code) is not int:
        raise TypeError(f"tile number expected, got {code!r}")
    return _TILE[code]


def code_of(tile: str) -> int:
    return _CODE[tile]


class Draw(NamedTuple):
    seat: int
    tile: str
    is_rinshan: bool = False


class Discard(NamedTuple):
    seat: int
    tile: str
    is_tsumogiri: bool = False
    is_riichi: bool = False


class Call(NamedTuple):
    """A chi, pon or open kan taking the last discard (``meld.source`` is the discarder)."""

    seat: int
    meld: Meld


class Kan(NamedTuple):
    """A closed kan (``ankan``) or added kan (``kakan``, ``added`` = the tile added) on one's own turn."""

    seat: int
    meld: Meld
    added: str | None = None


class Nuki(NamedTuple):
    """Sanma: a north set aside (抜きドラ); a replacement tile follows."""

    seat: int
    tile: str


Event = Draw | Discard | Call | Kan | Nuki


@dataclass(frozen=True)
class WinRecord:
    seat: int
    from_seat: int
    pao_seat: int
    deltas: tuple[int, ...]       # recorded; never read by the replay
    text: tuple[str, ...]         # recorded point string and yaku strings; never read by the replay


@dataclass(frozen=True)
class Result:
    name: str                      # Tenhou's name, e.g. 和了, 流局, 九種九牌
    outcome: str                   # win | exhaustive_draw | abortive_draw
    kind: str                      # win | exhaustive_draw | nagashi_mangan | nine_terminals | ...
    wins: tuple[WinRecord, ...] = ()
    deltas: tuple[tuple[int, ...], ...] = ()   # recorded; never read by the replay


@dataclass
class LogHand:
    index: int
    round: int           # 0 = East 1, 4 = South 1, ...
    honba: int
    sticks: int
    scores: tuple[int, ...]
    dora_indicators: list[str]
    ura_indicators: list[str]
    haipai: list[list[str]]
    events: list[Event]
    result: Result
    players: int = 4
    rounds_per_wind: int = 4  # Tenhou numbers sanma rounds E1=0..E3=2, S1=4 (4); some tools use 3

    @property
    def dealer(self) -> int:
        return self.round % self.rounds_per_wind

    @property
    def round_wind(self) -> str:
        """``1z`` east .. ``4z`` north."""
        return f"{(self.round // self.rounds_per_wind) % 4 + 1}z"

    @property
    def round_label(self) -> str:
        """``E1``, ``S3``, ..."""
        return f"{'ESWN'[(self.round // self.rounds_per_wind) % 4]}{self.round % self.rounds_per_wind + 1}"


@dataclass
class LogGame:
    hands: list[LogHand]
    rule: dict = field(default_factory=dict)
    names: list[str] = field(default_factory=list)
    players: int = 4
    source: str = "<log>"


def _tile(code: Any, where: str) -> str:
    tile = _TILE.get(code) if type(code) is int else None
    if tile is None:
        raise LogError(f"{where}: {code!r} is not a tile number (11-47, 51-53)")
    return tile


def _codes(text: str, where: str) -> list[str]:
    if len(text) % 2 or not text.isdigit():
        raise LogError(f"{where}: cannot read tiles in call {text!r}")
    return [_tile(int(text[i:i + 2]), where) for i in range(0, len(text), 2)]


def _split_call(text: str, where: str) -> tuple[str, int, list[str]]:
    """'47p4747' -> ('p', 2, ['7z', '7z', '7z']) with the called tile first in the list."""
    pos = next((i for i, ch in enumerate(text) if ch.isalpha()), -1)
    if pos < 0 or pos % 2:
        raise LogError(f"{where}: cannot read call {text!r}")
    letter = text[pos]
    rest = text[:pos] + text[pos + 1:]
    tiles = _codes(rest, where)
    k = pos // 2
    called = tiles[k]
    others = tiles[:k] + tiles[k + 1:]
    return letter, pos, [called] + others


def _source(letter: str, pos: int, seat: int, players: int, where: str, text: str) -> int:
    if letter == "c":
        offsets = {0: -1}
    elif letter in ("p", "k"):
        offsets = {0: -1, 2: -2, 4: 1}
    else:  # m
        offsets = {0: -1, 2: -2, 6: 1}
    if pos not in offsets:
        raise LogError(f"{where}: call {text!r} has its marker at an impossible place")
    # Tenhou places sanma's seats 0, 1, 2 on a four-seat table with seat 3 empty, and writes the
    # source of a call in those four-seat terms (seat 0 takes from seat 2 "across").
    src = (seat + offsets[pos]) % 4
    if src >= players:
        raise LogError(f"{where}: call {text!r} takes from the empty fourth seat")
    return src


_CALLS: dict[tuple[str, int, int], tuple[str, Meld, str | None]] = {}


def _meld_from_call(text: str, seat: int, players: int, where: str) -> tuple[str, Meld, str | None]:
    key = (text, seat, players)
    got = _CALLS.get(key)
    if got is None:
        got = _read_call(text, seat, players, where)
        if len(_CALLS) < 20000:
            _CALLS[key] = got
    return got


def _read_call(text: str, seat: int, players: int, where: str) -> tuple[str, Meld, str | None]:
    letter, pos, tiles = _split_call(text, where)
    try:
        if letter == "c":
            return "c", Meld("chi", tuple(tiles), tiles[0], _source("c", pos, seat, players, where, text)), None
        if letter == "p":
            return "p", Meld("pon", tuple(tiles), tiles[0], _source("p", pos, seat, players, where, text)), None
        if letter == "m":
            return "m", Meld("kan", tuple(tiles), tiles[0], _source("m", pos, seat, players, where, text)), None
        if letter == "k":
            # the added tile follows the marker; the pon's called tile is the next one
            added = tiles[0]
            meld = Meld("kakan", tuple(tiles), tiles[1], _source("k", pos, seat, players, where, text))
            return "k", meld, added
        if letter == "a":
            return "a", Meld("ankan", tuple(tiles), None, None), None
    except MeldError as err:
        raise LogError(f"{where}: call {text!r}: {err}") from None
    raise LogError(f"{where}: unknown call letter {letter!r} in {text!r}")


def _parse_result(raw: Any, where: str) -> Result:
    if not isinstance(raw, list) or not raw or not isinstance(raw[0], str):
        raise LogError(f"{where}: result entry is missing or not [name, ...]")
    name = raw[0]
    if name not in RESULT_KINDS:
        raise LogError(f"{where}: unknown result {name!r}")
    outcome, kind = RESULT_KINDS[name]
    rest = raw[1:]
    deltas: list[tuple[int, ...]] = []
    wins: list[WinRecord] = []
    if outcome == "win":
        if len(rest) < 2 or len(rest) % 2:
            raise LogError(f"{where}: win result needs [deltas, [who, from, pao, ...]] pairs")
        for i in range(0, len(rest), 2):
            d, info = rest[i], rest[i + 1]
            if not (isinstance(info, list) and len(info) >= 2 and all(type(x) is int for x in info[:2])):
                raise LogError(f"{where}: win entry {info!r} lacks [who, from, ...]")
            pao = info[2] if len(info) > 2 and type(info[2]) is int else info[0]
            dd = tuple(int(x) for x in d) if isinstance(d, list) and all(type(x) is int for x in d) else ()
            wins.append(WinRecord(info[0], info[1], pao, dd, tuple(str(x) for x in info[3:])))
            deltas.append(dd)
    else:
        for d in rest:
            if isinstance(d, list) and all(type(x) is int for x in d):
                deltas.append(tuple(d))
    return Result(name, outcome, kind, tuple(wins), tuple(deltas))


class _Dead(Exception):
    """This reading of the draw/discard lists runs into a contradiction."""


def _timeline(hand_raw: list, players: int, dealer: int, where: str) -> list[Event]:
    """Interleave the per-seat draw and discard lists into one timeline.

    When a discard could be the one a later call takes (the same tile from the same seat
    discarded twice), both readings are tried: the call first, then passing it by.
    """
    draws = [list(hand_raw[5 + 3 * s]) for s in range(players)]
    discs = [list(hand_raw[6 + 3 * s]) for s in range(players)]
    ctx = _Ctx(draws, discs, players, where)
    events: list[Event] = []
    try:
        _run(ctx, events, [0] * players, [0] * players, dealer, True, False, None)
    except _Dead as dead:
        raise LogError(str(dead)) from None
    return events


class _Ctx:
    """The lists of one hand and what the interleaving loop looks up on every step."""

    __slots__ = ("draws", "discs", "players", "where", "nd", "nc", "is_call", "others")

    def __init__(self, draws: list, discs: list, players: int, where: str) -> None:
        self.draws, self.discs, self.players, self.where = draws, discs, players, where
        self.nd = [len(d) for d in draws]
        self.nc = [len(d) for d in discs]
        self.is_call = [[type(x) is str for x in d] for d in draws]
        self.others = [[(s + k) % players for k in range(1, players)] for s in range(players)]


def _run(ctx: _Ctx, events: list, di: list[int], ci: list[int], seat: int, need_draw: bool, rinshan: bool,
         last_draw: str | None) -> None:
    draws, discs, players, where = ctx.draws, ctx.discs, ctx.players, ctx.where
    nd, nc, is_call, others = ctx.nd, ctx.nc, ctx.is_call, ctx.others
    get = _TILE.get
    append = events.append
    for _guard in range(1000):
        if need_draw:
            i = di[seat]
            if i >= nd[seat]:
                break
            item = draws[seat][i]
            last_draw = get(item) if type(item) is int else None
            if last_draw is None:
                if is_call[seat][i]:
                    raise _Dead(f"{where}: seat {seat} draw #{i} is {item!r} where a drawn tile belongs")
                _tile(item, f"{where}: seat {seat} draw #{i}")
            di[seat] = i + 1
            append(Draw(seat, last_draw, rinshan))
            rinshan = False
        j = ci[seat]
        if j >= nc[seat]:
            break
        item = discs[seat][j]
        ci[seat] = j + 1
        tile = get(item) if type(item) is int else None
        if tile is not None:
            append(Discard(seat, tile, False, False))
        elif item == 60 and type(item) is int:
            if last_draw is None:
                raise _Dead(f"{where}: seat {seat} discard #{j}: tsumogiri (60) right after a call, "
                            f"with no drawn tile")
            tile = last_draw
            append(Discard(seat, tile, True, False))
        else:
            w = f"{where}: seat {seat} discard #{j}"
            if not isinstance(item, str):
                if item == 0 and type(item) is int:
                    raise _Dead(f"{w}: placeholder 0 where no open kan was made")
                _tile(item, w)
            if item.startswith("r"):
                body = item[1:]
                if not body.isdigit():
                    raise LogError(f"{w}: cannot read riichi {item!r}")
                code = int(body)
                if code == 60:
                    if last_draw is None:
                        raise _Dead(f"{w}: tsumogiri riichi without a drawn tile")
                    tile = last_draw
                    append(Discard(seat, tile, True, True))
                else:
                    tile = _tile(code, w)
                    append(Discard(seat, tile, False, True))
            elif item.startswith("f"):
                append(Nuki(seat, _tile(int(item[1:]) if item[1:].isdigit() else -1, w)))
                need_draw, rinshan = True, True
                continue
            else:
                letter, meld, added = _meld_from_call(item, seat, players, w)
                if letter not in ("a", "k"):
                    raise LogError(f"{w}: call {item!r} cannot be made in place of a discard")
                append(Kan(seat, meld, added))
                need_draw, rinshan = True, True
                continue
        last_draw = None
        # who takes it: pon / open kan (any seat) before chi (next seat)
        for q in others[seat]:
            i = di[q]
            if i < nd[q] and is_call[q][i]:
                break
        else:
            seat = (seat + 1) % players
            need_draw = True
            continue
        taker = None
        for prio in ("pm", "c"):
            for q in others[seat]:
                i = di[q]
                if i >= nd[q] or not is_call[q][i]:
                    continue
                letter, meld, _ = _meld_from_call(draws[q][i], q, players, f"{where}: seat {q} draw #{i}")
                if letter in prio and meld.called == tile and meld.source == seat:
                    taker = (q, letter, meld)
                    break
            if taker:
                break
        if taker is not None:
            q, letter, meld = taker
            mark = len(events)
            di2, ci2 = list(di), list(ci)
            di2[q] += 1
            append(Call(q, meld))
            try:
                if letter == "m":
                    if ci2[q] >= nc[q] or discs[q][ci2[q]] != 0:
                        raise _Dead(f"{where}: seat {q} open kan {meld.notation()} is not followed by the 0 slot")
                    ci2[q] += 1
                    _run(ctx, events, di2, ci2, q, True, True, None)
                else:
                    _run(ctx, events, di2, ci2, q, False, False, None)
                return
            except _Dead as first:
                del events[mark:]
                try:
                    _run(ctx, events, di, ci, (seat + 1) % players, True, False, None)
                    return
                except _Dead:
                    del events[mark:]
                    raise first from None
        seat = (seat + 1) % players
        need_draw = True
    else:
        raise _Dead(f"{where}: the hand does not end")
    for s in range(players):
        left_d, left_c = nd[s] - di[s], nc[s] - ci[s]
        if left_d > 0 or left_c > 0:
            item = draws[s][di[s]] if left_d > 0 else discs[s][ci[s]]
            raise _Dead(f"{where}: seat {s} has {left_d} draw(s) and {left_c} discard(s) that never happen "
                        f"(next {item!r}: a call with no matching discard?)")


def parse_hand(raw: Any, index: int, players: int = 4, source: str = "<log>", rounds_per_wind: int = 4) -> LogHand:
    where = f"{source}: hand {index}"
    if not isinstance(raw, list) or len(raw) != 17:
        raise LogError(f"{where}: expected 17 entries (header, scores, dora, ura, 4 x 3 lists, result), "
                       f"got {len(raw) if isinstance(raw, list) else type(raw).__name__}")
    head = raw[0]
    if not (isinstance(head, list) and len(head) == 3 and all(type(x) is int and x >= 0 for x in head)):
        raise LogError(f"{where}: header {head!r} is not [round, honba, sticks]")
    scores = raw[1]
    if not (isinstance(scores, list) and len(scores) == 4 and all(type(x) is int for x in scores)):
        raise LogError(f"{where}: scores {scores!r} are not four whole numbers")
    for k in (2, 3):
        if not isinstance(raw[k], list):
            raise LogError(f"{where}: {'dora' if k == 2 else 'ura'} indicators are not a list")
    dora = [_tile(c, f"{where}: dora indicator") for c in raw[2]]
    ura = [_tile(c, f"{where}: ura indicator") for c in raw[3]]
    if not 1 <= len(dora) <= 5:
        raise LogError(f"{where}: {len(dora)} dora indicators, expected 1 to 5")
    haipai = []
    for s in range(4):
        for k in range(3):
            if not isinstance(raw[4 + 3 * s + k], list):
                raise LogError(f"{where}: seat {s} list {k} is not a list")
        if s < players:
            raw_hp = raw[4 + 3 * s]
            hp = [_TILE.get(c) if type(c) is int else None for c in raw_hp]
            if None in hp:
                _tile(raw_hp[hp.index(None)], f"{where}: seat {s} haipai")
            if len(hp) != 13:
                raise LogError(f"{where}: seat {s} starts with {len(hp)} tiles, expected 13")
            haipai.append(hp)
    result = _parse_result(raw[16], where)
    round_, honba, sticks = head
    per_wind = 4 if players == 4 else rounds_per_wind
    dealer = round_ % per_wind
    if dealer >= players:
        raise LogError(f"{where}: round {round_} has no dealer among {players} players")
    events = _timeline(raw, players, dealer, where)
    return LogHand(index, round_, honba, sticks, tuple(scores), dora, ura, haipai, events, result, players, per_wind)


def parse_log(data: Any, source: str = "<log>") -> LogGame:
    """Parse a decoded tenhou.net/6 JSON object. Raises LogError."""
    if not isinstance(data, dict) or not isinstance(data.get("log"), list):
        raise LogError(f"{source}: not a tenhou.net/6 log (no \"log\" list)")
    rule = data.get("rule") if isinstance(data.get("rule"), dict) else {}
    players = 4
    hands_raw = data["log"]
    if not hands_raw:
        raise LogError(f"{source}: the log has no hands")
    disp = str(rule.get("disp", ""))
    first = hands_raw[0]
    if "三" in disp or (isinstance(first, list) and len(first) == 17 and first[13] == [] and first[14] == []):
        players = 3
    per_wind = 4
    if players == 3 and any(isinstance(h, list) and h and isinstance(h[0], list) and h[0] and type(h[0][0]) is int
                            and h[0][0] % 4 == 3 for h in hands_raw):
        per_wind = 3  # a log numbering sanma rounds 0, 1, 2, 3 = S1, ...
    hands = [parse_hand(h, i, players, source, per_wind) for i, h in enumerate(hands_raw)]
    names = data.get("name") if isinstance(data.get("name"), list) else []
    return LogGame(hands, rule, [str(n) for n in names], players, source)


def load_log(text: str, source: str = "<log>") -> LogGame:
    """Decode JSON text and parse it. Raises LogError (bad JSON included)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LogError(f"{source}: not valid JSON ({err.msg} at line {err.lineno})") from None
    return parse_log(data, source)
