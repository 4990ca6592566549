"""The table display's read model (controller.panel.display) on the sample game as the tracker
followed it: places and gaps, the all-last "what each needs", and every yaku, limit and
abortive draw named in each language."""

from __future__ import annotations

import json
from pathlib import Path

from controller import game as G
from controller.panel import display as D
from controller.rules import scoring as SC
from controller.rules.scoring import YAKU_NAMES
from tests.integration.test_panel_browser_display import sample_events

I18N = Path(__file__).resolve().parents[2] / "controller" / "panel" / "static" / "i18n"


def test_every_yaku_limit_draw_and_alert_is_named_in_every_language():
    from controller.events import ALERT_RULES
    for lang in ("ja", "zh", "en"):
        d = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        assert set(YAKU_NAMES.values()) <= set(d["yaku"]), lang
        assert {"mangan", "haneman", "baiman", "sanbaiman", "yakuman"} <= set(d["limit"])
        assert {"nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron", "exhaustive_draw"} <= set(d["draw"])
        assert set(ALERT_RULES) <= set(d["alert"]), lang
        assert set(json.loads((I18N / "en.json").read_text())["ui"]) == set(d["ui"]), lang
    ja = json.loads((I18N / "ja.json").read_text(encoding="utf-8"))
    assert [ja["limit"][k] for k in ("mangan", "haneman", "baiman", "sanbaiman", "yakuman")] == \
        ["満貫", "跳満", "倍満", "三倍満", "役満"]
    assert [ja["draw"][k] for k in ("nine_terminals", "four_winds", "four_riichi", "four_kans", "triple_ron")] == \
        ["九種九牌", "四風連打", "四家立直", "四開槓", "三家和"]


def _all_last():
    events, _oks = sample_events()
    s = G.new_state()
    for e in events:
        s, _ = G.step(s, e, e.now)
        if s.phase == "play" and s.round == 7 and len(s.seats[s.dealer].river) >= 2:
            return s
    raise AssertionError("no all-last hand in play")


def _gain(rules, row_hand, kind, seat, leader, dealer, honba, sticks):
    base, _ = SC.base_points(row_hand["han"], row_hand["fu"], rules)
    up = lambda x: -(-x // 100) * 100   # noqa: E731
    if kind in ("direct", "ron"):
        ron = up(base * (6 if seat == dealer else 4)) + 300 * honba
        return (2 * ron if kind == "direct" else ron) + 1000 * sticks
    each = up(base * (2 if seat == dealer else 1))
    dpay = 0 if seat == dealer else up(base * 2)
    total = (each * 3 if seat == dealer else each * 2 + dpay) + 300 * honba + 1000 * sticks
    return total + (dpay if leader == dealer else each) + 100 * honba


def test_all_last_needs_take_the_lead_and_nothing_cheaper_would():
    s = _all_last()
    out = G.public_state(s)
    D.seat_extras(out, s)
    rows = D.needs_view(out, s, s.rules)
    scores = [x["score"] for x in out["seats"]]
    leader = max(range(4), key=lambda i: (scores[i], -i))
    assert rows and {r["seat"] for r in rows} == set(range(4)) - {leader}
    hands = sorted(D._HANDS, key=lambda hf: SC.base_points(hf[0], hf[1], s.rules)[0])
    for r in rows:
        assert r["gap"] == scores[leader] - scores[r["seat"]] > 0
        for kind in ("direct", "ron", "tsumo"):
            if r[kind] is None:
                continue
            args = (s.rules, r[kind], kind, r["seat"], leader, out["dealer"], out["honba"], out["riichi_sticks"])
            assert _gain(*args) > r["gap"], (r, kind)
            k = hands.index((r[kind]["han"], r[kind]["fu"]))
            if k:
                cheaper = {"han": hands[k - 1][0], "fu": hands[k - 1][1]}
                assert _gain(s.rules, cheaper, *args[2:]) <= r["gap"], (r, kind)
    # places and gaps follow the scores
    for i, seat in enumerate(out["seats"]):
        assert seat["place"] == 1 + sum(scores[j] > scores[i] or (scores[j] == scores[i] and j < i) for j in range(4))
