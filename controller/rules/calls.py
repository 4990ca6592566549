"""Call legality: kuikae (食い替え), the last discard, kan timing, riichi conditions, and a closed
kan after riichi that would change the waits (暗槓詐立).

>>> from controller.rules import tiles as T
>>> from controller.rules.melds import parse_meld
>>> kuikae_banned(parse_meld("chi:423p"), "4p", mode="both"), kuikae_banned(parse_meld("chi:123p"), "4p", mode="both")
(True, True)
>>> kuikae_banned(parse_meld("chi:456p"), "1p", mode="both"), kuikae_banned(parse_meld("chi:756p"), "1p", mode="both")
(False, False)
>>> riichi_kan_changes_waits(T.parse("6667m123p456s111z"), "6m")
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.rules import tiles as T
from controller.rules.melds import Meld
from controller.rules.ruleset import RuleSet
from controller.rules.waits import waits


def kuikae_banned(meld: Meld, discard: str, *, mode: str = "both") -> bool:
    """Is discarding ``discard`` right after calling ``meld`` a banned swap?

    ``mode``: ``both`` bans the called tile (現物) and, for a chi taken at one end, the tile on
    the far side (筋); ``genbutsu`` bans only the called tile; ``allowed`` bans nothing.
    """
    if mode not in ("both", "genbutsu", "allowed"):
        raise ValueError(f"unknown kuikae mode {mode!r}")
    if mode == "allowed" or meld.called is None:
        return False
    called = T.plain(meld.called)
    if T.plain(discard) == called:
        return True
    if mode == "genbutsu" or meld.kind != "chi":
        return False
    n, suit = int(called[0]), called[1]
    low = min(int(T.plain(t)[0]) for t in meld.tiles)
    if n == low and n + 3 <= 9:
        return T.plain(discard) == f"{n + 3}{suit}"
    if n == low + 2 and n - 3 >= 1:
        return T.plain(discard) == f"{n - 3}{suit}"
    return False


def kuikae_reason(meld: Mapping[str, Any], discard: str, rules: RuleSet) -> str | None:
    """Is ``discard`` right after the call ``meld`` banned (喰い替え)? Returns the reason or None.

    Profile ``kuikae``: "both" bans the called kind and the other end of a chi (suji), "genbutsu"
    only the called kind, "allowed" nothing (RULINGS: calls).
    """
    if rules.kuikae == "allowed" or meld.get("kind") not in ("chi", "pon"):
        return None
    called = meld["called"]
    if T.plain(discard) == T.plain(called):
        return f"discards {discard} right after calling the same tile (kuikae)"
    if rules.kuikae != "both" or meld["kind"] != "chi" or discard[1] != called[1]:
        return None
    others = sorted(int(T.plain(t)[0]) for t in meld["tiles"] if t != called)[:2]
    c = int(T.plain(called)[0])
    d = int(T.plain(discard)[0])
    if len(others) == 2 and ((c < others[0] and d == others[1] + 1) or (c > others[1] and d == others[0] - 1)):
        return f"discards {discard} right after chi on {called}: the other end of the same run (suji kuikae)"
    return None


def can_call_discard(live_tiles_left: int) -> bool:
    """The last discard of a hand (no live tile left) cannot be called (S002: 最後打出的牌不可被吃、碰、杠)."""
    return live_tiles_left > 0


def can_declare_kan(kind: str, *, live_tiles_left: int, just_drew: bool, is_discard_call: bool = False) -> bool:
    """Kan timing: never when no live tile is left (haitei); closed and added kans only right
    after one's own draw; an open kan only on another's discard."""
    if live_tiles_left <= 0:
        return False
    if kind in ("ankan", "kakan"):
        return just_drew and not is_discard_call
    if kind == "kan":
        return is_discard_call
    raise ValueError(f"{kind!r} is not a kan kind")


def can_add_to_pon(pon: Meld, hand: Sequence[str], *, just_drew: bool) -> bool:
    """An added kan needs the fourth tile, self-drawn, in hand, on one's own turn after a draw."""
    if pon.kind != "pon":
        return False
    return just_drew and any(T.plain(t) == T.plain(pon.tiles[0]) for t in hand)


def riichi_refusal(concealed14: Sequence[str], melds: Sequence[Meld], *, points: int, live_tiles_left: int,
                   rules: RuleSet) -> str | None:
    """Why riichi may not be declared now (None: allowed).

    Needs a closed hand, a discard that leaves it tenpai, at least ``riichi_min_live_tiles``
    live tiles, and 1000 points where negative scores end the game.
    """
    if any(m.is_open for m in melds):
        return "open hand"
    if live_tiles_left < rules.riichi_min_live_tiles:
        return f"only {live_tiles_left} live tiles left (need {rules.riichi_min_live_tiles})"
    if rules.has_tobi and points < rules.riichi_cost:
        return f"{points} points: a riichi stick costs {rules.riichi_cost}"
    for i in range(len(concealed14)):
        rest = list(concealed14[:i]) + list(concealed14[i + 1:])
        if waits(rest, melds):
            return None
    return "no discard leaves the hand tenpai"


def riichi_kan_changes_waits(hand13: Sequence[str], kan_tile: str, melds: Sequence[Meld] = ()) -> bool:
    """Would a closed kan of ``kan_tile`` (holding three, drawing the fourth) change the waits?

    6667m waits on 5, 7 and 8; after the kan of 6666m only on 7: changed (暗槓詐立).
    """
    before = waits(hand13, melds)
    kind = T.plain(kan_tile)
    rest = list(hand13)
    taken = []
    for _ in range(3):
        idx = next((i for i, t in enumerate(rest) if T.plain(t) == kind), None)
        if idx is None:
            raise ValueError(f"hand {T.fmt(hand13)} does not hold three {kind} for a closed kan")
        taken.append(rest.pop(idx))
    kan = Meld("ankan", tuple(taken + [kan_tile]))
    after = waits(rest, list(melds) + [kan])
    return before != after

