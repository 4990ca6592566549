"""Scoring a riichi win: yaku, han, fu and the base points ``a``, through the ``mahjong`` package.

:func:`score_win` maps a :class:`~controller.rules.ruleset.RuleSet` onto ``mahjong``'s
``OptionalRules``/``HandConfig``, lets ``HandCalculator`` pick the highest reading, and returns
a :class:`WinScore` with our own yaku names (English romaji, see :data:`YAKU_NAMES`). Dora, red
fives (any number per suit), ura dora and sanma north dora are counted here, and the limits
(mangan … yakuman, kiriage, counted-yakuman mode, 大役満, 青天井) are applied here, so every
profile option of the rulings is honoured. Payments are :mod:`controller.rules.payments`.

A hand that cannot score is an answer, not an exception: ``WinScore.error`` is one of
:class:`HandError`. Impossible input (15 tiles, a fifth copy) raises ValueError.

>>> from controller.rules import tiles as T
>>> s = score_win(T.parse("123m456p789s22233z"), "3z", seat_wind="4z", round_wind="1z", is_riichi=True,
...               dora_indicators=["4p"])
>>> s.han, s.fu, s.yaku, s.base
(2, 40, (('riichi', 1), ('dora', 1)), 640)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.yaku_config import YakuConfig
from mahjong.meld import Meld as MjMeld

from controller.rules import dora as D
from controller.rules import tiles as T
from controller.rules.melds import Meld
from controller.rules.ruleset import RuleSet, load
from controller.rules.waits import check_hand


class HandError:
    """Coded reasons a complete-looking hand does not score (``WinScore.error``)."""

    NOT_WINNING = "hand_not_winning"
    NO_YAKU = "no_yaku"
    TWO_HAN_MINIMUM = "two_han_minimum"      # 二翻縛: 5+ honba need 2 han without dora


_RENAME = {"daburu_riichi": "double_riichi", "daburu_open_riichi": "double_open_riichi",
           "daburu_kokushi": "kokushi_13_wait", "suuankou_tanki": "suuankou_tanki",
           "daburu_chuuren_poutou": "junsei_chuuren_poutou", "shosuushi": "shousuushii",
           "daisuushi": "daisuushii", "tsuisou": "tsuuiisou", "ryuisou": "ryuuiisou",
           "chinroto": "chinroutou", "honroto": "honroutou", "sanshoku": "sanshoku_doujun",
           "seat_wind_east": "seat_wind_east", "renhou_yakuman": "renhou"}


def _yaku_names() -> dict[int, str]:
    cfg = YakuConfig()
    out = {}
    for attr, value in vars(cfg).items():
        if hasattr(value, "yaku_id"):
            out[value.yaku_id] = _RENAME.get(attr, attr)
    return out


YAKU_NAMES: dict[int, str] = _yaku_names()
"""``mahjong`` yaku id -> our romaji name (riichi, tsumo, pinfu, tanyao, yakuhai winds as
``seat_wind_east``/``round_wind_south``, haku, hatsu, chun, ..., dora, aka_dora, ura_dora)."""

_WIND_34 = {"1z": 27, "2z": 28, "3z": 29, "4z": 30}


@dataclass(frozen=True)
class WinScore:
    """The value of one win. ``base`` is ``a`` of the payment formulas (0 when ``error``)."""

    han: int = 0
    fu: int = 0
    yaku: tuple[tuple[str, int], ...] = ()
    yakuman: int = 0                 # yakuman multiplier (0: none)
    base: int = 0
    limit: str = ""                  # "", mangan, haneman, baiman, sanbaiman, yakuman, kazoe_yakuman, ...
    is_open: bool = False
    error: str | None = None
    yakuman_names: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


def base_points(han: int, fu: int, rules: RuleSet, yakuman: int = 0) -> tuple[int, str]:
    """Base points ``a`` and limit name for han/fu (or a yakuman multiplier).

    >>> rs = load("tenhou")
    >>> base_points(2, 70, rs), base_points(4, 30, rs), base_points(13, 30, rs), base_points(0, 0, rs, 2)
    ((1120, ''), (1920, ''), (8000, 'kazoe_yakuman'), (16000, 'yakuman'))
    """
    if yakuman:
        per = 12000 if rules.has_big_yakuman_base else 8000
        return per * yakuman, "yakuman"
    if rules.has_aotenjou:
        return fu * 2 ** (2 + han), ""
    if han >= 13:
        if rules.kazoe == "sanbaiman":
            return 6000, "sanbaiman"
        if rules.kazoe == "multiple":
            return 8000 * (han // 13), "kazoe_yakuman"
        return 8000, "kazoe_yakuman"
    if han >= 11:
        return 6000, "sanbaiman"
    if han >= 8:
        return 4000, "baiman"
    if han >= 6:
        return 3000, "haneman"
    if han >= 5:
        return 2000, "mangan"
    base = fu * 2 ** (2 + han)
    if base >= 2000 or (rules.has_kiriage and base >= 1920):
        return 2000, "mangan"
    return base, ""


def round_fu(fu: int) -> int:
    """Fu round up to the next 10, except chiitoitsu's 25.

    >>> [round_fu(x) for x in (32, 64, 30, 25)]
    [40, 70, 30, 25]
    """
    return fu if fu == 25 else -(-fu // 10) * 10


class _Slots:
    """Hands out distinct 136-indices per tile kind: a red five takes the aka slot (``4k``) when
    free, plain fives keep it for last, so ``mahjong`` counts exactly the red fives as aka dora."""

    def __init__(self) -> None:
        self.free: dict[int, list[int]] = {}
        self.extra_red = 0  # red fives beyond the one per suit mahjong can tell apart

    def take(self, tile: str) -> int:
        k = T.to_34(tile)
        free = self.free.setdefault(k, [0, 1, 2, 3] if k not in (4, 13, 22) else [1, 2, 3, 0])
        if tile in T.REDS:
            slot = 0 if 0 in free else free[0]
            if slot != 0:
                self.extra_red += 1
        else:
            slot = free[0]
        free.remove(slot)
        return 4 * k + slot


def _to_136(hand: Sequence[str], slots: _Slots) -> list[int]:
    """136-indices for mpsz tiles, red fives first so that they get the aka slots."""
    return [slots.take(t) for t in sorted(hand, key=lambda x: 0 if x in T.REDS else 1)]


@functools.lru_cache(maxsize=64)
def _options(rules: RuleSet) -> OptionalRules:
    return OptionalRules(
        has_open_tanyao=rules.has_open_tanyao,
        has_aka_dora=rules.has_aka_dora,
        has_double_yakuman=rules.has_double_yakuman,
        kazoe_limit={"yakuman": HandConstants.KAZOE_LIMITED, "sanbaiman": HandConstants.KAZOE_SANBAIMAN,
                     "multiple": HandConstants.KAZOE_NO_LIMIT}[rules.kazoe],
        kiriage=rules.has_kiriage,
        fu_for_pinfu_tsumo=rules.has_pinfu_tsumo_30fu,
        is_three_player=rules.is_sanma,
    )


def _mj_meld(m: Meld, slots: _Slots) -> tuple[MjMeld, list[int]]:
    tiles136 = sorted(slots.take(t) for t in sorted(m.tiles, key=lambda x: 0 if x in T.REDS else 1))
    kind = {"chi": MjMeld.CHI, "pon": MjMeld.PON, "kan": MjMeld.KAN, "kakan": MjMeld.SHOUMINKAN,
            "ankan": MjMeld.KAN}[m.kind]
    return MjMeld(meld_type=kind, tiles=tiles136, opened=m.is_open), tiles136


def score_win(
    concealed: Sequence[str],
    win_tile: str,
    melds: Sequence[Meld] = (),
    *,
    is_tsumo: bool = False,
    seat_wind: str = "1z",
    round_wind: str = "1z",
    is_riichi: bool = False,
    is_double_riichi: bool = False,
    is_ippatsu: bool = False,
    is_rinshan: bool = False,
    is_chankan: bool = False,
    is_haitei: bool = False,
    is_houtei: bool = False,
    is_tenhou: bool = False,
    is_chiihou: bool = False,
    dora_indicators: Sequence[str] = (),
    ura_indicators: Sequence[str] = (),
    north_count: int = 0,
    honba: int = 0,
    rules: RuleSet | None = None,
) -> WinScore:
    """Score a complete hand. ``concealed`` holds the standing tiles including ``win_tile``.

    Raises ValueError for impossible input (wrong tile count, a fifth copy, win tile not in hand,
    contradictory flags such as ippatsu without riichi or rinshan on a ron).
    """
    rules = rules or load("tenhou")
    check_hand(concealed, melds, extra=1)
    if win_tile not in concealed:
        raise ValueError(f"winning tile {win_tile!r} is not in the hand {T.fmt(concealed)}")
    for w, name in ((seat_wind, "seat wind"), (round_wind, "round wind")):
        if w not in _WIND_34:
            raise ValueError(f"{name} {w!r} must be one of 1z 2z 3z 4z")
    return _score(tuple(concealed), win_tile, tuple(melds), is_tsumo, seat_wind, round_wind, is_riichi,
                  is_double_riichi, is_ippatsu, is_rinshan, is_chankan, is_haitei, is_houtei, is_tenhou,
                  is_chiihou, tuple(dora_indicators), tuple(ura_indicators), north_count, honba, rules)


def _score(concealed, win_tile, melds, is_tsumo, seat_wind, round_wind, is_riichi, is_double_riichi,
           is_ippatsu, is_rinshan, is_chankan, is_haitei, is_houtei, is_tenhou, is_chiihou,
           dora_indicators, ura_indicators, north_count, honba, rules) -> WinScore:
    slots = _Slots()
    # melds first: a red five called into a meld keeps its aka slot as it did on the table
    mj_melds = []
    meld136: list[int] = []
    for m in melds:
        mm, t136 = _mj_meld(m, slots)
        mj_melds.append(mm)
        meld136.extend(t136)
    hand136 = _to_136(concealed, slots)
    extra_red = slots.extra_red
    all136 = hand136 + meld136
    win136 = next(t for t, src in zip(hand136, sorted(concealed, key=lambda x: 0 if x in T.REDS else 1),
                                      strict=True) if src == win_tile)
    config = HandConfig(
        is_tsumo=is_tsumo, is_riichi=is_riichi or is_double_riichi, is_ippatsu=is_ippatsu,
        is_rinshan=is_rinshan, is_chankan=is_chankan, is_haitei=is_haitei, is_houtei=is_houtei,
        is_daburu_riichi=is_double_riichi, is_tenhou=is_tenhou, is_chiihou=is_chiihou,
        player_wind=_WIND_34[seat_wind], round_wind=_WIND_34[round_wind], options=_options(rules),
    )
    sanma = rules.is_sanma
    dora136 = [4 * T.to_34(t) + 1 for t in dora_indicators] if rules.has_kan_dora or len(dora_indicators) < 2 \
        else [4 * T.to_34(dora_indicators[0]) + 1]
    ura136 = [4 * T.to_34(t) + 1 for t in ura_indicators] if rules.has_ura_dora else []
    result = HandCalculator.estimate_hand_value(all136, win136, melds=mj_melds, dora_indicators=dora136,
                                                config=config, ura_dora_indicators=ura136)
    held_north = sum(1 for t in concealed if t == "4z") + sum(1 for m in melds for t in m.tiles if t == "4z")
    north_yakuhai = sanma and rules.north in ("yakuhai", "both") and held_north >= 3
    if north_yakuhai and result.error == HandCalculator.ERR_NO_YAKU and round_wind != "4z":
        # sanma has no north seat: a north set is yakuhai by profile. mahjong values the round
        # wind, so score once more with north as the round wind (the real one gave no yaku).
        config = HandConfig(
            is_tsumo=is_tsumo, is_riichi=is_riichi or is_double_riichi, is_ippatsu=is_ippatsu,
            is_rinshan=is_rinshan, is_chankan=is_chankan, is_haitei=is_haitei, is_houtei=is_houtei,
            is_daburu_riichi=is_double_riichi, is_tenhou=is_tenhou, is_chiihou=is_chiihou,
            player_wind=_WIND_34[seat_wind], round_wind=_WIND_34["4z"], options=_options(rules))
        result = HandCalculator.estimate_hand_value(all136, win136, melds=mj_melds, dora_indicators=dora136,
                                                    config=config, ura_dora_indicators=ura136)
        north_yakuhai = False  # already counted, as round_wind_north
    if result.error:
        err = result.error
        code = {HandCalculator.ERR_HAND_NOT_WINNING: HandError.NOT_WINNING,
                HandCalculator.ERR_NO_YAKU: HandError.NO_YAKU}.get(err)
        if code is None:  # contradictory situation flags, e.g. ippatsu without riichi
            raise ValueError(f"impossible situation: {err.replace('_', ' ')}")
        return WinScore(error=code)
    yaku: list[tuple[str, int]] = []
    yakuman_names = []
    yakuman = 0
    is_open = bool(result.is_open_hand)
    for y in result.yaku:
        name = YAKU_NAMES.get(y.yaku_id, y.name.lower().replace(" ", "_"))
        if y.is_yakuman:
            n = (y.han_open if is_open and y.han_open else y.han_closed) // 13
            yakuman += n
            yakuman_names.append(name)
            yaku.append((name, 13 * n))
            continue
        han = y.han_open if is_open and y.han_open else y.han_closed
        yaku.append((name, han))
    fu = result.fu
    if yakuman:
        if not rules.has_multiple_yakuman:
            yakuman = 1
        base, limit = base_points(0, 0, rules, yakuman)
        return WinScore(13 * yakuman, fu, tuple(yaku), yakuman, base, limit, is_open, None, tuple(yakuman_names))
    # our own additions: extra red fives and north dora (sanma nukidora)
    if extra_red and rules.has_aka_dora:
        yaku = _add(yaku, "aka_dora", extra_red)
    yaku = [("north", h) if n == "round_wind_north" and sanma else (n, h) for n, h in yaku]
    if north_yakuhai:
        yaku.insert(0, ("north", 1))
    if sanma and rules.north in ("dora", "both"):
        north_count += held_north  # norths kept in hand count as dora too
    if north_count and sanma and rules.north in ("nukidora", "dora", "both"):
        nd = north_count * (1 + sum(1 for t in dora_indicators if D.dora_of(t, is_sanma=True) == "4z"))
        yaku = _add(yaku, "dora", nd)  # north dora (抜きドラ) count as dora, as Tenhou shows them
        if (is_riichi or is_double_riichi) and rules.has_ura_dora:
            nu = north_count * sum(1 for t in ura_indicators if D.dora_of(t, is_sanma=True) == "4z")
            if nu:
                yaku = _add(yaku, "ura_dora", nu)
    names = [n for n, _ in yaku]
    extra_fu = 0
    if sanma and rules.north in ("yakuhai", "both") and round_wind != "4z" and "chiitoitsu" not in names \
            and sum(1 for t in concealed if t == "4z") == 2:
        # two norths can only be the pair: a valued pair (2 fu), which no pinfu hand has. mahjong
        # values the real round wind only, so the pair is valued here (pinfu's own fu given back)
        extra_fu = 2
        if "pinfu" in names:
            yaku = [(n, h) for n, h in yaku if n != "pinfu"]
            names.remove("pinfu")
            extra_fu += 2 if is_tsumo else 0
            if not any(n not in ("dora", "aka_dora", "ura_dora") for n in names):
                return WinScore(error=HandError.NO_YAKU)
        fu = max(round_fu(sum(d["fu"] for d in result.fu_details) + extra_fu), 30 if is_open else 20)
    if rules.has_chiitoitsu_50fu and "chiitoitsu" in names:
        yaku = [(n, 1 if n == "chiitoitsu" else h) for n, h in yaku]
        fu = 50
    if not rules.has_rinshan_tsumo_fu and is_rinshan and result.fu_details:
        raw = sum(d["fu"] for d in result.fu_details if d["reason"] != "tsumo") + extra_fu - (2 if extra_fu > 2 else 0)
        fu = max(round_fu(raw), 30 if is_open else 20)
    han = sum(h for _, h in yaku)
    yaku_han = sum(h for n, h in yaku if n not in ("dora", "aka_dora", "ura_dora"))
    if rules.two_han_minimum_honba and honba >= rules.two_han_minimum_honba and yaku_han < 2:
        return WinScore(han, fu, tuple(yaku), 0, 0, "", is_open, HandError.TWO_HAN_MINIMUM)
    base, limit = base_points(han, fu, rules)
    return WinScore(han, fu, tuple(yaku), 0, base, limit, is_open, None, ())


def _add(yaku: list[tuple[str, int]], name: str, n: int) -> list[tuple[str, int]]:
    out = list(yaku)
    for i, (k, h) in enumerate(out):
        if k == name:
            out[i] = (k, h + n)
            return out
    out.append((name, n))
    return out
