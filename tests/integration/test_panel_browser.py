"""The panel in headless Chromium: renders the state, updates live over the WebSocket,
reconnects after the daemon restarts. A screenshot is kept under artifacts/."""

from __future__ import annotations

import contextlib
import json

import httpx
import pytest

from controller import events as ev
from controller.daemon_parts import write_feed
from controller.panel.app import STATIC
from tests.integration.daemonproc import DaemonProc, free_port, write_config

pytestmark = pytest.mark.browser
TOKEN = "browser-test-token"


@contextlib.contextmanager
def showing_a_result(tmp_path, page, events: list[ev.Event]):
    """The daemon fed ``events`` (a hand up to its result, before anyone presses ok), the display
    open in ``page`` once the result to confirm shows; yields the served state."""
    feed = tmp_path / "hand.jsonl"
    write_feed(feed, [(0.0, e) for e in events])
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN, feed=str(feed),
                       speed=0.0)
    daemon = DaemonProc(cfg)
    url = daemon.wait_ready()
    try:
        page.goto(url)
        page.wait_for_function("window.__jantaku.state && window.__jantaku.state.pending_result", timeout=60_000)
        state = httpx.get(f"{url}api/state", timeout=30).json()
        page.wait_for_timeout(200)
        yield state
    finally:
        assert daemon.stop() == 0


def feed_items(extra: list[ev.Event]) -> list[tuple[float, ev.Event]]:
    base = [ev.Lid(is_open=True, now=1.0), ev.McuFault(code="lift_jam", detail="wall 2", now=1.5)]
    return [(0.0, e) for e in base + extra]


def test_panel_renders_updates_live_and_reconnects(tmp_path, page, artifacts_dir):
    port = free_port()
    data = tmp_path / "data"
    feed1, feed2 = tmp_path / "feed1.jsonl", tmp_path / "feed2.jsonl"
    write_feed(feed1, feed_items([]))
    write_feed(feed2, feed_items([ev.McuFault(code="belt_slip", detail="lane 3", now=9.0)]))
    cfg1 = write_config(tmp_path / "one.toml", data=data, port=port, token=TOKEN, feed=str(feed1))
    cfg2 = write_config(tmp_path / "two.toml", data=data, port=port, token=TOKEN, feed=str(feed2))

    daemon = DaemonProc(cfg1)
    url = daemon.wait_ready()
    try:
        page.goto(url)
        page.wait_for_selector('#conn[data-connected="true"]', timeout=30_000)
        state = httpx.get(f"{url}api/state", timeout=30).json()
        # renders the state: round, the four seats with their scores, the machine (the socket opens
        # before its first state is drawn: wait for the drawing, on a loaded machine a while)
        page.wait_for_function("(want) => document.querySelector('#round').textContent.trim().startsWith(want)",
                               arg={"E": "East", "S": "South"}[state["round"][0]], timeout=30_000)
        for seat in range(4):
            shown = page.text_content(f"#score-{seat}").replace(",", "")
            assert int(shown) == state["seats"][seat]["score"]
        page.wait_for_selector('#machine[data-state="halted"]', timeout=30_000)
        assert "stopped" in page.text_content("#machine") and "lift_jam" in page.text_content("#machine-alert")
        # live: a staff reset is pushed over the WebSocket without a reload
        messages = page.evaluate("window.__jantaku.messages")
        res = httpx.post(f"{url}api/staff/reset", json={"reason": "jam cleared"},
                         headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        assert res.status_code == 200
        page.wait_for_selector('#machine[data-state="idle"]', timeout=30_000)
        assert page.evaluate("window.__jantaku.messages") > messages
        assert page.evaluate("window.__jantaku.connects") == 1
        page.screenshot(path=str(artifacts_dir / "panel-table-display.png"), full_page=True)
    finally:
        assert daemon.stop() == 0

    # the daemon is gone: the page says so and keeps the last state
    page.wait_for_selector('#conn[data-connected="false"]', timeout=30_000)
    assert page.get_attribute("#machine", "data-state") == "idle"

    daemon = DaemonProc(cfg2)
    daemon.wait_ready()
    try:
        page.wait_for_function("window.__jantaku.connects >= 2", timeout=30_000)
        page.wait_for_selector('#conn[data-connected="true"]', timeout=30_000)
        # the restarted daemon rebuilt its state from the log and goes on live
        page.wait_for_selector('#machine[data-state="halted"]', timeout=30_000)
        assert "belt_slip" in page.text_content("#machine-alert")
        page.screenshot(path=str(artifacts_dir / "panel-after-restart.png"), full_page=True)
    finally:
        assert daemon.stop() == 0
    assert (artifacts_dir / "panel-table-display.png").stat().st_size > 10_000


def test_staff_page_asks_for_the_token(tmp_path, page):
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN)
    daemon = DaemonProc(cfg)
    url = daemon.wait_ready()
    try:
        page.goto(f"{url}staff")
        page.fill("#reset-reason", "test")
        page.click("#reset")
        page.wait_for_function("document.getElementById('msg').textContent.includes('401')", timeout=30_000)
        page.fill("#token", TOKEN)
        page.click("#token-save")
        page.wait_for_function("document.getElementById('token-msg').textContent === 'token accepted'",
                               timeout=30_000)
        page.click("#reset")
        page.wait_for_function("document.getElementById('msg').textContent.includes('done')", timeout=30_000)
    finally:
        assert daemon.stop() == 0


def test_display_shows_a_hand_of_a_recorded_game(tmp_path, page, artifacts_dir):
    from controller.daemon_parts import SAMPLE_GAME
    from hardware.sim import script as sim_script
    script = sim_script.load_script(str(SAMPLE_GAME))
    script.hands = script.hands[:1]
    events = sim_script.events_of(script)
    # the first hand up to its result, shown for confirmation (before anyone presses ok)
    cut = next(i for i, e in enumerate(events) if isinstance(e, ev.Button) and e.action == "ok")
    with showing_a_result(tmp_path, page, events[:cut]) as state:
        # dora indicators and dora as tile pictures, the rivers, the result with yaku, han and points
        shown = page.eval_on_selector_all("#dora-indicators img", "els => els.map(e => e.alt)")
        assert shown and shown == state["dora_indicators"]
        assert page.eval_on_selector_all("#dora img", "els => els.map(e => e.alt)") == state["dora"]
        rivers = page.eval_on_selector_all(".seat .river", "els => els.map(e => e.querySelectorAll('img').length)")
        assert sorted(rivers) == sorted(len(s["discards"]) for s in state["seats"]) and sum(rivers) > 10
        for seat in range(4):
            assert int(page.text_content(f"#score-{seat}").replace(",", "")) == state["seats"][seat]["score"]
        result = page.text_content("#result")
        win = state["pending_result"]["wins"][0]
        assert "to confirm" in result and f"{win['han']} han" in result and f"{win['points']:,} points" in result
        en = json.loads((STATIC / "i18n" / "en.json").read_text(encoding="utf-8"))
        assert all(en["yaku"][name][0] in result for name, _han in win["yaku"])   # by name, not the code id
        page.screenshot(path=str(artifacts_dir / "panel-recorded-hand.png"), full_page=True)


def test_display_shows_a_hong_kong_hand_in_fan_with_its_flowers(tmp_path, page, artifacts_dir):
    """A Hong Kong hand (tracked by controller.tracker.fan.family) up to its result: the fan, the points and
    every seat's flowers set aside, as tile pictures."""
    from tests.controller.test_game_fan import hk_hand
    table = hk_hand()
    start = ev.StartGame(ruleset="hk", players=("A", "B", "C", "D"), now=0.0)
    with showing_a_result(tmp_path, page, [start, *table.events]) as state:
        win = state["pending_result"]["wins"][0]
        result = page.text_content("#result")
        assert f"{win['fan']} fan" in result and f"{win['points']:,} points" in result and " han " not in result
        flowers = page.eval_on_selector_all(
            ".seat", "els => els.map(e => [Number(e.dataset.seat), [...e.querySelectorAll('.flowers img')].map(i => i.alt)])")
        assert sorted(flowers) == [[i, seat["flowers"]] for i, seat in enumerate(state["seats"])]
        assert any(seat["flowers"] for seat in state["seats"])
        assert state["dora_indicators"] == [] and page.is_hidden(".centre .dora")     # no dora in these rules
        assert page.evaluate("[...document.querySelectorAll('.flowers img')].every(i => i.naturalWidth > 0)")
        page.screenshot(path=str(artifacts_dir / "panel-hk-hand.png"), full_page=True)


def test_display_shows_a_three_player_hand_with_three_seats(tmp_path, page, artifacts_dir):
    """A three-player (sanma) hand up to its result: three seats with their scores, the fourth
    place empty, the north set aside among the melds."""
    from tests.controller.test_game_sanma import riichi_pon_nuki_tsumo
    table = riichi_pon_nuki_tsumo()
    start = ev.StartGame(ruleset="sanma", players=("A", "B", "C"), now=0.0)
    with showing_a_result(tmp_path, page, [start, *table.events]) as state:
        assert len(state["seats"]) == 3
        for seat in range(3):
            assert int(page.text_content(f"#score-{seat}").replace(",", "")) == state["seats"][seat]["score"]
        assert page.query_selector("#score-3") is None and page.is_hidden('.seat[data-seat="3"]')
        melds = page.eval_on_selector_all('.seat[data-seat="2"] .melds img', "els => els.map(e => e.alt)")
        assert "4z" in melds
        result = page.text_content("#result")
        assert "Win" in result and "seat 4" not in result
        assert len(page.query_selector_all("#payments td")) == 3
        page.screenshot(path=str(artifacts_dir / "panel-sanma-hand.png"), full_page=True)
