"""Game flow: round names, dealer rotation, honba, the riichi stick pool, game end."""

from __future__ import annotations

_WIND_LETTERS = "ESWN"


def round_name(round_index: int, players: int = 4) -> str:
    """``E1``..``E4``, ``S1``.. from the 0-based round index.

    >>> round_name(0), round_name(5), round_name(8), round_name(3, players=3)
    ('E1', 'S2', 'W1', 'S1')
    """
    wind = _WIND_LETTERS[(round_index // players) % 4]
    return f"{wind}{round_index % players + 1}"
