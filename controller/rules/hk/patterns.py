"""The Hong Kong fan table of seed 003 (S003:L137-145), one small class per pattern.

Each pattern states its facts as class attributes (name, kanji, fan from the seed's 番 column;
``fan = None`` where the seed gives none) and one predicate, ``is_present(hand)``, like the
yaku classes of the ``mahjong`` package. The table is a lookup of the single best pattern, not
a sum (RULINGS "Hong Kong"): 混碰 is 4 (not 2 + 2), 清碰 5, 九莲宝灯 6 without 清一色.

Patterns the seed lists without a value (全求人, 立直, 三数, 清四碰) are recognised and shown
with no fan unless the profile gives one (``HKRules.extra_fan``): fan values are never invented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.rules.hk.arrange import Arrangement

WINDS_34 = (27, 28, 29, 30)
DRAGONS_34 = (31, 32, 33)
TERMINALS_34 = (0, 8, 9, 17, 18, 26)


@dataclass(frozen=True)
class HKHandView:
    """What the predicates see: one arrangement plus the situation of the win."""

    arrangement: Arrangement
    is_self_draw: bool = False
    is_ready_declared: bool = False  # 立直/报听 declared before the win

    @property
    def suits(self) -> set[int]:
        return {k // 9 for k in self.arrangement.kinds_present if k < 27}

    @property
    def has_honors(self) -> bool:
        return any(k >= 27 for k in self.arrangement.kinds_present)

    @property
    def triplet_kinds(self) -> list[int]:
        return [g.first for g in self.arrangement.sets if g.is_triplet]

    @property
    def pair_kind(self) -> int | None:
        pair = self.arrangement.pair
        return pair.first if pair else None


class Pattern:
    """A fan-table row: subclasses set the facts and override :meth:`is_present`."""

    name: ClassVar[str]
    kanji: ClassVar[str]
    fan: ClassVar[int | None]
    description: ClassVar[str]

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:  # pragma: no cover (abstract)
        raise NotImplementedError


class JiHu(Pattern):
    name, kanji, fan = "ji_hu", "鸡胡", 0
    description = "any complete hand; chow, pung and kong may be called"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return True


class PingHu(Pattern):
    name, kanji, fan = "ping_hu", "平胡", 1
    description = "all sets are chows, no pung"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        sets = hand.arrangement.sets
        return bool(sets) and all(g.kind == "chow" for g in sets)


class PengPengHu(Pattern):
    name, kanji, fan = "peng_peng_hu", "碰碰胡", 2
    description = "all sets are pungs or kongs, no chow"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        sets = hand.arrangement.sets
        return bool(sets) and all(g.is_triplet for g in sets)


class HunYiSe(Pattern):
    name, kanji, fan = "hun_yi_se", "混一色", 2
    description = "honors and one suit only"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return len(hand.suits) == 1 and hand.has_honors


class QingYiSe(Pattern):
    name, kanji, fan = "qing_yi_se", "清一色", 4
    description = "one suit only"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return len(hand.suits) == 1 and not hand.has_honors


class HunPeng(Pattern):
    name, kanji, fan = "hun_peng", "混碰", 4
    description = "混一色 + 碰碰胡"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return HunYiSe.is_present(hand) and PengPengHu.is_present(hand)


class QingPeng(Pattern):
    name, kanji, fan = "qing_peng", "清碰", 5
    description = "清一色 + 碰碰胡"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return QingYiSe.is_present(hand) and PengPengHu.is_present(hand)


class HunYaoJiu(Pattern):
    name, kanji, fan = "hun_yao_jiu", "混幺九", 5
    description = "terminals and honors only (both)"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        kinds = hand.arrangement.kinds_present
        return (not hand.arrangement.is_thirteen_orphans and hand.has_honors
                and any(k in TERMINALS_34 for k in kinds)
                and all(k in TERMINALS_34 or k >= 27 for k in kinds))


class XiaoSanYuan(Pattern):
    name, kanji, fan = "xiao_san_yuan", "小三元", 5
    description = "pungs of two dragons and a pair of the third"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        pungs = [k for k in hand.triplet_kinds if k in DRAGONS_34]
        return len(pungs) == 2 and hand.pair_kind in DRAGONS_34


class XiaoSiXi(Pattern):
    name, kanji, fan = "xiao_si_xi", "小四喜", 5
    description = "pungs of three winds and a pair of the fourth"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        pungs = [k for k in hand.triplet_kinds if k in WINDS_34]
        return len(pungs) == 3 and hand.pair_kind in WINDS_34


class ZiYiSe(Pattern):
    name, kanji, fan = "zi_yi_se", "字一色", 6
    description = "honors only, in pungs"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return not hand.arrangement.is_thirteen_orphans and all(k >= 27 for k in hand.arrangement.kinds_present)


class QingYaoJiu(Pattern):
    name, kanji, fan = "qing_yao_jiu", "清幺九", 6
    description = "terminals only, in pungs"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return all(k in TERMINALS_34 for k in hand.arrangement.kinds_present)


class DaSanYuan(Pattern):
    name, kanji, fan = "da_san_yuan", "大三元", 6
    description = "pungs of all three dragons"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return sum(1 for k in hand.triplet_kinds if k in DRAGONS_34) == 3


class DaSiXi(Pattern):
    name, kanji, fan = "da_si_xi", "大四喜", 6
    description = "pungs of all four winds"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return sum(1 for k in hand.triplet_kinds if k in WINDS_34) == 4


class JiuLianBaoDeng(Pattern):
    name, kanji, fan = "jiu_lian_bao_deng", "九莲宝灯", 6
    description = "1112345678999 of one suit, concealed, plus any tile of that suit (清一色 not added)"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        arr = hand.arrangement
        if any(g.is_open for g in arr.sets) or any(g.kind == "kong" for g in arr.sets) or len(hand.suits) != 1:
            return False
        if hand.has_honors:
            return False
        base = min(arr.kinds_present) // 9 * 9
        counts = arr.tiles_34[base:base + 9]
        need = (3, 1, 1, 1, 1, 1, 1, 1, 3)
        return sum(counts) == 14 and all(c >= n for c, n in zip(counts, need, strict=True))


class ShiSanYao(Pattern):
    name, kanji, fan = "shi_san_yao", "十三幺", 6
    description = "one of each terminal and honor, any one doubled"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return hand.arrangement.is_thirteen_orphans


class QuanQiuRen(Pattern):
    name, kanji, fan = "quan_qiu_ren", "全求人", None
    description = "four sets called (chow, pung, open kong), single wait on the pair, won on a discard"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        sets = hand.arrangement.sets
        return (not hand.is_self_draw and len(sets) == 4 and all(g.is_open for g in sets))


class LiZhi(Pattern):
    name, kanji, fan = "li_zhi", "立直", None
    description = "ready hand declared (报听): no more calls, only the wait"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        return hand.is_ready_declared


class SanShu(Pattern):
    name, kanji, fan = "san_shu", "三数", None
    description = "the hand uses three numbers (winds count as one, dragons as one)"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        numbers = set()
        for k in hand.arrangement.kinds_present:
            numbers.add("wind" if k in WINDS_34 else "dragon" if k in DRAGONS_34 else k % 9)
        return len(numbers) <= 3


class QingSiPeng(Pattern):
    name, kanji, fan = "qing_si_peng", "清四碰", None
    description = "four called pungs of one suit (an open kong counts)"

    @classmethod
    def is_present(cls, hand: HKHandView) -> bool:
        sets = hand.arrangement.sets
        called = [g for g in sets if g.is_triplet and g.is_open and g.first < 27]
        return len(called) == 4 and len({g.first // 9 for g in called}) == 1


PATTERNS: tuple[type[Pattern], ...] = (
    JiHu, PingHu, PengPengHu, HunYiSe, QingYiSe, HunPeng, QingPeng, HunYaoJiu, XiaoSanYuan, XiaoSiXi,
    ZiYiSe, QingYaoJiu, DaSanYuan, DaSiXi, JiuLianBaoDeng, ShiSanYao, QuanQiuRen, LiZhi, SanShu, QingSiPeng,
)
UNVALUED: tuple[str, ...] = tuple(p.name for p in PATTERNS if p.fan is None)
