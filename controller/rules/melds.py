"""Melds (副露): chi, pon, open kan, added kan, closed kan; and their mpsz notation.

Notation (used by the command line and tests): ``KIND:TILES``, e.g. ``chi:0p46p`` (the
first tile is the one called), ``pon:777z``, ``kan:5555m`` (open kan, 大明槓), ``kakan:2222s``
(added kan, 加槓), ``ankan:9999p`` (closed kan, 暗槓).

>>> m = parse_meld("chi:312s")
>>> m.kind, m.tiles, m.called, m.is_open
('chi', ('3s', '1s', '2s'), '3s', True)
>>> parse_meld("ankan:1111z").is_open
False
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules import tiles as T

KINDS = ("chi", "pon", "kan", "kakan", "ankan")


class MeldError(ValueError):
    """A meld that cannot exist (wrong tiles for its kind, unknown kind)."""


@dataclass(frozen=True)
class Meld:
    """One meld. ``tiles`` in mpsz (red fives kept); ``called`` the tile taken from ``source``.

    ``source`` is the seat the called tile came from (absolute seat), None for a closed kan or
    when unknown.
    """

    kind: str
    tiles: tuple[str, ...]
    called: str | None = None
    source: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise MeldError(f"unknown meld kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        plain = [T.plain(T.check(t)) for t in self.tiles]
        size = 3 if self.kind in ("chi", "pon") else 4
        if len(plain) != size:
            raise MeldError(f"{self.kind} needs {size} tiles, got {len(plain)}: {T.fmt(self.tiles)}")
        if self.kind == "chi":
            idx = sorted(T.to_34(t) for t in plain)
            if plain[0][1] == "z" or idx != [idx[0], idx[0] + 1, idx[0] + 2] or len({t[1] for t in plain}) != 1:
                raise MeldError(f"chi must be three numbers in a row of one suit, got {T.fmt(self.tiles)}")
        elif len(set(plain)) != 1:
            raise MeldError(f"{self.kind} must be {size} equal tiles, got {T.fmt(self.tiles)}")

    @property
    def is_open(self) -> bool:
        return self.kind != "ankan"

    @property
    def is_kan(self) -> bool:
        return self.kind in ("kan", "kakan", "ankan")

    @property
    def kind_34(self) -> int:
        """The lowest tile kind of the meld (0..33)."""
        return min(T.to_34(t) for t in self.tiles)

    def notation(self) -> str:
        return f"{self.kind}:{T.fmt(self.tiles)}"


def parse_meld(text: str) -> Meld:
    """Parse ``KIND:TILES``. Raises MeldError (a ValueError) naming the problem."""
    kind, sep, rest = text.partition(":")
    if not sep:
        raise MeldError(f"meld {text!r}: expected KIND:TILES like pon:777z, chi:312s, ankan:1111m")
    try:
        tiles = T.parse(rest)
    except T.TileError as err:
        raise MeldError(f"meld {text!r}: {err}") from None
    return Meld(kind.strip().lower(), tuple(tiles), tiles[0] if kind not in ("ankan",) and tiles else None)
