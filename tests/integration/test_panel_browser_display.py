"""The table display in headless Chromium, as players read it from their chairs: a hand in
play, a win, a draw with waits and the game's end of the sample game (fed to a real daemon),
in Japanese, Chinese and English at 1280x720 and 1920x1080. Every screen fits without
scrolling (nothing drawn outside the window, no seat or result box overflowing), the rivers
are in rows of six with the riichi tile sideways, and no English is left in ja or zh.
Screenshots are kept under artifacts/display-*.png."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from controller import events as ev
from controller.daemon_parts import write_feed
from tests.integration.daemonproc import DaemonProc, free_port, write_config

pytestmark = pytest.mark.browser
TOKEN = "display-test-token"
SIZES = ((1280, 720), (1920, 1080))
LANGS = ("ja", "zh", "en")
I18N = Path(__file__).resolve().parents[2] / "controller" / "panel" / "static" / "i18n"

FITS = """() => {
  const W = innerWidth, H = innerHeight, bad = [];
  const de = document.documentElement;
  if (de.scrollHeight > H + 1 || de.scrollWidth > W + 1) bad.push(`page ${de.scrollWidth}x${de.scrollHeight}`);
  for (const node of document.querySelectorAll('.seat, .result, .finished, .river')) {
    if (node.hidden || !node.offsetParent && getComputedStyle(node).position !== 'fixed') continue;
    if (node.scrollHeight > node.clientHeight + 2 || node.scrollWidth > node.clientWidth + 2)
      bad.push(`${node.className} overflows ${node.scrollWidth}x${node.scrollHeight} > ${node.clientWidth}x${node.clientHeight}`);
    const r = node.getBoundingClientRect();
    if (r.width && (r.right > W + 1 || r.bottom > H + 1 || r.left < -1 || r.top < -1)) bad.push(`${node.className} outside`);
  }
  return bad;
}"""

ROWS = """() => [...document.querySelectorAll('.seat .river')].map((river) => {
  const tops = [...river.querySelectorAll('.tile')].map((t) => Math.round(t.getBoundingClientRect().bottom));
  const rows = {};
  for (const top of tops) rows[top] = (rows[top] || 0) + 1;
  return Object.keys(rows).sort((a, b) => a - b).map((k) => rows[k]);
})"""


def sample_events() -> tuple[list[ev.Event], list[int]]:
    from controller.daemon_parts import SAMPLE_GAME
    from hardware.sim import script as sim_script
    events = sim_script.events_of(sim_script.load_script(str(SAMPLE_GAME)))
    oks = [i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok"]
    return events, oks


def scenarios() -> dict[str, tuple[list[ev.Event], str]]:
    """name -> (events fed, the condition the display waits for)."""
    events, oks = sample_events()
    win_at = next(i for i in range(oks[1], oks[0], -1) if isinstance(events[i], ev.Button)
                  and events[i].action == "tsumo")
    from controller.daemon_parts import SAMPLE_GAME
    from hardware.sim import script as sim_script
    faulty = sim_script.events_of(sim_script.load_script(str(SAMPLE_GAME), injects=[sim_script.Fault("fifth_tile", 0, None)]))
    f_ok = next(i for i, e in enumerate(faulty) if isinstance(e, ev.Button) and e.action == "ok")
    return {
        # hand 1 held by a fifth tile, and the machine stopped by a fault
        "held": (faulty[:f_ok] + [ev.McuFault(code="lift_jam", detail="wall 2", now=faulty[f_ok].now)],
                 "s.result_held && s.machine.state === 'halted'"),
        # hand 2 (East 2) late in play: a riichi stands, its tile sideways in the river
        "play": (events[:win_at - 2], "s.phase === 'play' && s.seats.some((x) => x.riichi)"),
        "win": (events[:oks[1]], "s.pending_result && s.pending_result.outcome === 'win'"),
        "draw": (events[:oks[4]], "s.pending_result && s.pending_result.outcome === 'exhaustive_draw'"
                                  " && s.result_view.tenpai.length"),
        "end": (events, "s.finished && s.final"),
    }


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One daemon per scenario, each fed its events; name -> (url, state)."""
    out, procs = {}, []
    try:
        for name, (events, cond) in scenarios().items():
            tmp = tmp_path_factory.mktemp(name)
            feed = tmp / "feed.jsonl"
            write_feed(feed, [(0.0, e) for e in events])
            cfg = write_config(tmp / "t.toml", data=tmp / "data", port=free_port(), token=TOKEN, feed=str(feed),
                               speed=0.0)
            proc = DaemonProc(cfg)
            procs.append(proc)
            out[name] = (proc.wait_ready(), cond)
        yield out
    finally:
        for proc in procs:
            assert proc.stop() == 0


def open_display(browser, url: str, cond: str, lang: str, size: tuple[int, int], query: str = ""):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{url}?lang={lang}{query}")
    page.wait_for_function(f"(() => {{ const s = window.__jantaku.state; return window.__jantaku.rendered && s && ({cond}); }})",
                           timeout=120_000)
    page.wait_for_function("[...document.images].every((i) => i.complete)", timeout=30_000)
    return context, page


def english_words(text: str, names: list[str]) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    return re.findall(r"[A-Za-z]{2,}", text)


@pytest.mark.parametrize("name", ["play", "win", "draw", "end", "held"])
def test_display_fits_one_screen_in_every_language(browser, served, artifacts_dir, name):
    url, cond = served[name]
    state = httpx.get(f"{url}api/state", timeout=30).json()
    names = [s["name"] for s in state["seats"]]
    for lang in LANGS:
        for size in SIZES:
            context, page = open_display(browser, url, cond, lang, size)
            try:
                page.screenshot(path=str(artifacts_dir / f"display-{name}-{lang}-{size[0]}x{size[1]}.png"))
                assert page.evaluate(FITS) == [], (name, lang, size)
                text = page.inner_text("body")
                if lang != "en":
                    assert english_words(text, names) == [], (name, lang)
                # river tiles big enough to read from a chair: at least 3.4% of the width
                widths = page.eval_on_selector_all(".seat .river .tile:not(.sideways)",
                                                   "els => els.map((e) => e.getBoundingClientRect().width)")
                assert widths and min(widths) >= 0.034 * size[0] * 0.8, (name, size, min(widths or [0]))
            finally:
                context.close()


def test_a_held_result_and_a_stopped_machine_are_shown_in_words(browser, served):
    url, cond = served["held"]
    context, page = open_display(browser, url, cond, "ja", (1280, 720))
    try:
        assert "卓機が停止しました" in page.text_content("#machine-alert")
        assert "五枚目の牌" in page.text_content("#alerts") and page.query_selector("#alerts .tile") is not None
        assert "係員確認待ち" in page.text_content("#result")
    finally:
        context.close()


def test_play_rivers_in_rows_of_six_riichi_sideways_and_turn(browser, served):
    url, cond = served["play"]
    state = httpx.get(f"{url}api/state", timeout=30).json()
    context, page = open_display(browser, url, cond, "en", (1280, 720))
    try:
        rows = page.evaluate(ROWS)
        for seat, got in zip(state["seats"], rows, strict=True):
            n = len(seat["discards"])
            assert got == [6] * (n // 6) + ([n % 6] if n % 6 else []), (got, n)
        sideways = page.eval_on_selector_all('.seat .river .tile[data-sideways="true"]', "els => els.length")
        assert sideways == sum(d["sideways"] for s in state["seats"] for d in s["discards"]) >= 1
        called = page.eval_on_selector_all('.seat .river .tile[data-called="true"]', "els => els.length")
        assert called == sum(d["called"] for s in state["seats"] for d in s["discards"])
        assert state["turn"] is not None
        assert page.get_attribute(f'.seat[data-seat="{state["turn"]}"]', "class").split().count("turn") == 1
        assert page.query_selector_all(".seat.turn") and len(page.query_selector_all(".seat.turn")) == 1
        # places and gaps: the leader is 1st, every gap the difference of the scores shown
        for i, seat in enumerate(state["seats"]):
            for j, gap in enumerate(seat["gaps"]):
                assert gap == (None if i == j else seat["score"] - state["seats"][j]["score"])
        places = sorted(s["place"] for s in state["seats"])
        assert places == [1, 2, 3, 4]
    finally:
        context.close()


def test_win_shows_hand_tile_yaku_by_name_limit_and_ura(browser, served):
    url, cond = served["win"]
    state = httpx.get(f"{url}api/state", timeout=30).json()
    win = state["result_view"]["wins"][0]
    assert win["limit"] == "haneman" and win["hand"] and win["win_tile"]
    assert state["result_view"]["ura_indicators"]
    ja = json.loads((I18N / "ja.json").read_text(encoding="utf-8"))
    context, page = open_display(browser, url, cond, "ja", (1280, 720))
    try:
        text = page.text_content("#result")
        assert "跳満" in text and f"{win['han']} 翻" in text and f"{win['fu']} 符" in text
        for yaku, _han in win["yaku"]:
            kanji, reading = ja["yaku"][yaku]
            assert kanji in text and reading in text
        shown = page.eval_on_selector_all("#result .hand .tile", "els => els.map((e) => e.dataset.tile)")
        assert sorted(shown) == sorted(win["hand"])
        assert page.get_attribute("#result .hand .tile.win", "data-tile") == win["win_tile"]
        ura = page.eval_on_selector_all("#result .indicators .tile", "els => els.map((e) => e.dataset.tile)")
        assert ura == state["result_view"]["dora_indicators"] + state["result_view"]["ura_indicators"]
        assert len(page.query_selector_all("#payments td")) == 4
    finally:
        context.close()


def test_draw_shows_tenpai_hands_and_waits(browser, served):
    url, cond = served["draw"]
    state = httpx.get(f"{url}api/state", timeout=30).json()
    tenpai = state["result_view"]["tenpai"]
    assert tenpai and all(tp["waits"] for tp in tenpai)
    context, page = open_display(browser, url, cond, "zh", (1920, 1080))
    try:
        assert "荒牌流局" in page.text_content("#result h2")
        for tp in tenpai:
            waits = page.eval_on_selector_all(f'#result .tenpai-row[data-seat="{tp["seat"]}"] .wait-tiles .tile',
                                              "els => els.map((e) => e.dataset.tile)")
            assert waits == tp["waits"]
    finally:
        context.close()


def test_end_ranks_with_uma_and_final_points(browser, served):
    url, cond = served["end"]
    state = httpx.get(f"{url}api/state", timeout=30).json()
    final = state["final"]
    assert [r["place"] for r in final] == [1, 2, 3, 4]
    assert [r["score"] for r in final] == sorted((s["score"] for s in state["seats"]), reverse=True)
    assert [r["points"] for r in final] == [state["settlement"][r["seat"]] for r in final]
    assert [r["uma_oka"] for r in final] == [40.0, 10.0, -10.0, -20.0]   # tenhou: uma 20/10 and oka 20 to first
    context, page = open_display(browser, url, cond, "en", (1280, 720))
    try:
        rows = page.eval_on_selector_all("#final tr[data-seat]", "els => els.map((e) => Number(e.dataset.seat))")
        assert rows == [r["seat"] for r in final]
        assert "1st" in page.text_content("#final") and "Game over" in page.text_content("#finished")
    finally:
        context.close()


def test_view_turned_towards_a_seat(browser, served):
    url, cond = served["play"]
    context, page = open_display(browser, url, cond, "en", (1280, 720), "&seat=2")
    try:
        order = page.eval_on_selector_all(".seat", "els => els.map((e) => [Number(e.dataset.seat), e.getBoundingClientRect().left])")
        assert [seat for seat, _ in sorted(order, key=lambda x: x[1])] == [2, 3, 0, 1]
        assert page.get_attribute('.seat[data-seat="2"]', "class").split().count("own") == 1
    finally:
        context.close()
