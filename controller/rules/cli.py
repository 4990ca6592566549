"""``tablectl score | waits | settle | replay``: the rules engine on the command line.

Hands are written in mpsz (``123m456p789s11z``, ``0m/0p/0s`` red fives). Melds are given with
``--meld KIND:TILES`` (repeatable): ``chi:312s`` (the called tile first), ``pon:777z``,
``kan:5555m`` (open kan), ``kakan:2222s`` (added kan), ``ankan:9999p`` (closed kan).
Winds are ``E S W N`` or ``1z``..``4z``. Bad input gives one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.rules import tiles as T
from controller.rules.melds import Meld, MeldError, parse_meld
from controller.rules.ruleset import PROFILE_NAMES, RuleSetError, load

_WIND_ARGS = {"e": "1z", "s": "2z", "w": "3z", "n": "4z", "east": "1z", "south": "2z", "west": "3z",
              "north": "4z", "1z": "1z", "2z": "2z", "3z": "3z", "4z": "4z"}
REPLAY_KEYS = ("hand", "round", "honba", "outcome", "deltas", "scores_after", "dora_indicators", "dora", "wins",
               "tenpai")
WIN_KEYS = ("seat", "from", "han", "fu", "yakuman", "yaku", "points")


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with one line, never a traceback
        raise _UsageError(f"{self.prog}: {message}")


def _wind(text: str) -> str:
    w = _WIND_ARGS.get(text.strip().lower())
    if w is None:
        raise argparse.ArgumentTypeError(f"wind {text!r} must be E, S, W, N or 1z..4z")
    return w


def _rules_arg(parser: argparse.ArgumentParser, default: str | None = "tenhou") -> None:
    parser.add_argument("--rules", default=default, metavar="PROFILE",
                        help=f"ruleset profile ({', '.join(PROFILE_NAMES)}); default {default or 'from the log'}")


def _riichi_rules(name: str):
    rules = load(name)
    if rules.family != "riichi":
        raise ValueError(f"profile {name!r} is {rules.family} rules; this command scores riichi "
                         f"(use tenhou, seed002 or sanma)")
    return rules


def _melds(texts: Sequence[str]) -> list[Meld]:
    return [parse_meld(t) for t in texts]


def _score_parser(prog: str) -> _Parser:
    p = _Parser(prog=prog, description="Score one riichi hand: yaku, han, fu and payment.",
                epilog="Example: tablectl score 123m456p789s11z22z --win 2z --tsumo --seat-wind S --dora 1z. "
                       "Melds: --meld pon:777z, chi:312s (called tile first), kan:5555m, kakan:2222s, "
                       "ankan:9999p. Exit status: 0 scored, 1 no win (no yaku / not complete), 2 bad input.")
    p.add_argument("hand", help="standing tiles in mpsz, with or without the winning tile")
    p.add_argument("--win", required=True, metavar="TILE", help="the winning tile, e.g. 2z or 0p")
    p.add_argument("--tsumo", action="store_true", help="won by self-draw (default: ron)")
    p.add_argument("--meld", action="append", default=[], metavar="KIND:TILES", help="a meld (repeatable)")
    p.add_argument("--seat-wind", type=_wind, default="1z", metavar="WIND", help="seat wind (E = dealer)")
    p.add_argument("--round-wind", type=_wind, default="1z", metavar="WIND", help="round wind")
    p.add_argument("--riichi", action="store_true", help="declared riichi")
    p.add_argument("--double-riichi", action="store_true", help="declared riichi on the first turn")
    p.add_argument("--ippatsu", action="store_true", help="won within one turn of riichi")
    for flag, text in (("rinshan", "won on the kan replacement tile"), ("chankan", "robbed a kan"),
                       ("haitei", "tsumo on the last tile"), ("houtei", "ron on the last discard"),
                       ("tenhou", "dealer's first draw"), ("chiihou", "non-dealer's first draw")):
        p.add_argument(f"--{flag}", action="store_true", help=text)
    p.add_argument("--dora", nargs="*", default=[], metavar="IND", help="dora indicators")
    p.add_argument("--ura", nargs="*", default=[], metavar="IND", help="ura dora indicators (riichi only)")
    p.add_argument("--north", type=int, default=0, help="sanma: norths set aside (nukidora)")
    p.add_argument("--honba", type=int, default=0, help="counters on the table (300 per ron, 100 each on tsumo)")
    p.add_argument("--sticks", type=int, default=0, help="riichi sticks on the table")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _rules_arg(p)
    return p


def _cmd_score(argv: list[str]) -> int:
    from controller.rules.payments import WinPayment, ron_amount, tsumo_amounts, win_deltas
    from controller.rules.scoring import score_win

    a = _score_parser("tablectl score").parse_args(argv)
    rules = _riichi_rules(a.rules)
    melds = _melds(a.meld)
    hand = T.parse(a.hand)
    win = T.check(a.win)
    want = 14 - 3 * len(melds)
    if len(hand) == want - 1:
        hand.append(win)
    elif len(hand) == want and win not in hand:
        raise ValueError(f"the winning tile {win} is not in the hand {a.hand}")
    elif len(hand) != want:
        raise ValueError(f"hand has {len(hand)} tiles; with {len(melds)} meld(s) give {want - 1} tiles "
                         f"(or {want} including the winning tile)")
    if a.honba < 0 or a.sticks < 0 or a.north < 0:
        raise ValueError("--honba, --sticks and --north must be >= 0")
    s = score_win(hand, win, melds, is_tsumo=a.tsumo, seat_wind=a.seat_wind, round_wind=a.round_wind,
                  is_riichi=a.riichi, is_double_riichi=a.double_riichi, is_ippatsu=a.ippatsu, is_rinshan=a.rinshan,
                  is_chankan=a.chankan, is_haitei=a.haitei, is_houtei=a.houtei, is_tenhou=a.tenhou,
                  is_chiihou=a.chiihou, dora_indicators=[T.check(t) for t in a.dora],
                  ura_indicators=[T.check(t) for t in a.ura], north_count=a.north, honba=a.honba, rules=rules)
    out: dict = {"error": s.error}
    if s.ok:
        seat = "1z2z3z4z".index(a.seat_wind) // 2
        dealer = 0
        pay = WinPayment(seat, s.base, None if a.tsumo else (seat + 1) % rules.players)
        deltas = win_deltas([pay], dealer=dealer, rules=rules, honba=a.honba, sticks=a.sticks)
        if a.tsumo:
            from_dealer, from_other = tsumo_amounts(s.base, is_dealer=seat == 0, rules=rules)
            h = a.honba * rules.honba_tsumo_each
            payment = (f"{from_other + h} all" if seat == 0 else f"{from_other + h} / {from_dealer + h}")
        else:
            payment = str(ron_amount(s.base, is_dealer=seat == 0) + a.honba * rules.honba_ron)
        out = {"han": s.han, "fu": s.fu, "yakuman": s.yakuman, "limit": s.limit, "base": s.base,
               "yaku": [[k, v] for k, v in s.yaku], "payment": payment, "total": deltas[seat], "error": None}
    if a.json:
        print(json.dumps(out, ensure_ascii=False))
    elif not s.ok:
        print(f"no win: {s.error}")
    else:
        yaku = ", ".join(f"{k} {v}" for k, v in s.yaku)
        limit = f" {out['limit']}" if out["limit"] else ""
        print(f"{s.han} han {s.fu} fu{limit}: {yaku}")
        print(f"payment {out['payment']} (winner +{out['total']})")
    return 0 if s.ok else 1


def _cmd_waits(argv: list[str]) -> int:
    from controller.rules.waits import shanten, tenpai_discards, waits

    p = _Parser(prog="tablectl waits", description="List the waits of a hand (13 tiles less 3 per meld), or "
                "for a hand of 14 (less 3 per meld) the discards that leave it tenpai.",
                epilog="Example: tablectl waits 6667m123p456s111z; with melds: --meld ankan:6666m")
    p.add_argument("hand", help="standing tiles in mpsz")
    p.add_argument("--meld", action="append", default=[], metavar="KIND:TILES", help="a meld (repeatable)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    melds = _melds(a.meld)
    hand = T.parse(a.hand)
    if len(hand) == 14 - 3 * len(melds):  # a hand before its discard: which discards leave it tenpai
        options = tenpai_discards(hand, melds)
        sh = shanten(hand, melds)
        if a.json:
            print(json.dumps({"discards": options, "shanten": sh}))
        elif sh < 0:
            print("complete hand")
        else:
            print("\n".join(f"discard {t}: waits {' '.join(w)}" for t, w in options.items())
                  or f"no discard leaves it tenpai (shanten {sh})")
        return 0
    w = waits(hand, melds)
    sh = shanten(hand, melds)
    if a.json:
        print(json.dumps({"waits": w, "tenpai": bool(w), "shanten": sh}))
    else:
        print(f"waits: {' '.join(w)}" if w else f"not tenpai (shanten {sh})")
    return 0


def _cmd_settle(argv: list[str]) -> int:
    from controller.rules.settlement import settle

    p = _Parser(prog="tablectl settle", description="Final settlement of end scores (return, uma, oka).",
                epilog="Example: tablectl settle 54300 29000 19700 -3000 --rules seed002")
    p.add_argument("scores", nargs="+", type=int, help="end scores in seat order (from the first dealer)")
    p.add_argument("--sticks", type=int, default=0, help="riichi sticks left on the table")
    p.add_argument("--json", action="store_true")
    _rules_arg(p)
    a = p.parse_args(argv)
    result = settle(a.scores, rules=load(a.rules), sticks=a.sticks)
    if a.json:
        print(json.dumps({"points": result}))
    else:
        print(" ".join(f"{x:+.1f}" for x in result))
    return 0


def _cmd_replay(argv: list[str]) -> int:
    from controller.rules.replay import replay_game, rules_for_log
    from controller.rules.tenhou import load_log

    p = _Parser(prog="tablectl replay", description="Replay tenhou.net/6 logs hand by hand "
                "(one JSON object per hand; see contracts/replay.md).")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="one JSON object per hand (the contract's form)")
    _rules_arg(p, default=None)
    a = p.parse_args(argv)
    for name in a.files:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ValueError(f"{name}: cannot read: {getattr(err, 'strerror', None) or err}") from None
        try:
            game = load_log(text, name)
            rules = _riichi_rules(a.rules) if a.rules else rules_for_log(game)
            rows = replay_game(game, rules)
        except (KeyError, IndexError, TypeError, AttributeError, RecursionError) as err:
            # the parser names what it checks; anything it missed is still a malformed log, not a crash
            raise ValueError(f"{name}: malformed log ({type(err).__name__}: {err})") from None
        lines = []
        for h in rows:
            row = {k: h[k] for k in REPLAY_KEYS if k in h}
            if "wins" in row:
                row["wins"] = [{k: w[k] for k in WIN_KEYS} for w in row["wins"]]
            if a.json:
                lines.append(json.dumps(row, ensure_ascii=False))
            else:
                lines.append(f"{name} #{row['hand']} {row['round']}-{row['honba']} {row['outcome']} "
                             f"{row['deltas']} -> {row['scores_after']}")
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


_COMMANDS = {"score": _cmd_score, "waits": _cmd_waits, "settle": _cmd_settle, "replay": _cmd_replay}


def main(command: str, argv: list[str]) -> int:
    """Entry point used by ``controller.cli``: run ``command`` with ``argv``; return the exit status."""
    from controller.rules.tenhou import LogError

    handler = _COMMANDS.get(command)
    if handler is None:
        print(f"tablectl: {command!r} is not a rules command", file=sys.stderr)
        return 2
    try:
        return handler(list(argv))
    except _UsageError as err:
        print(str(err), file=sys.stderr)
        return 2
    except SystemExit as err:  # --help
        return int(err.code or 0)
    except (LogError, RuleSetError, MeldError, T.TileError, ValueError) as err:
        print(f"tablectl {command}: {err}", file=sys.stderr)
        return 2
