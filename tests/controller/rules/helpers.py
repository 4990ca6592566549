"""Test helpers: hands in mpsz notation through one helper, as mahjong's tests do."""

from controller.rules import tiles as T
from controller.rules.melds import parse_meld
from controller.rules.scoring import score_win


def hand(text: str, win: str | None = None, melds: tuple[str, ...] = (), **kw):
    """Score ``text`` (standing tiles, winning tile included or appended) with ``win``."""
    tiles = T.parse(text)
    ms = [parse_meld(m) for m in melds]
    if win is not None and len(tiles) == 13 - 3 * len(ms):
        tiles.append(win)
    return score_win(tiles, win or tiles[-1], ms, **kw)
