"""The staff view in headless Chromium on a daemon showing a hand's result: a score correction
that does not add up is refused with the reason and changes nothing; one that adds up changes
the scores, shows in the history with who and why, and its undo gives the scores back; a
confirm of the hand then applies the result. Screenshot: artifacts/staff-view.png."""

from __future__ import annotations

import httpx
import pytest

from controller.daemon_parts import write_feed
from tests.integration.daemonproc import DaemonProc, free_port, write_config
from tests.integration.test_panel_browser_display import sample_events

pytestmark = pytest.mark.browser
TOKEN = "staff-browser-token"


def test_staff_forms_refuse_bad_input_apply_good_and_undo(tmp_path, page, artifacts_dir):
    events, oks = sample_events()
    feed = tmp_path / "feed.jsonl"
    write_feed(feed, [(0.0, e) for e in events[:oks[0]]])
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN, feed=str(feed),
                       speed=0.0)
    daemon = DaemonProc(cfg)
    url = daemon.wait_ready()
    try:
        page.goto(f"{url}staff")
        page.wait_for_function("window.__jantaku.state && window.__jantaku.state.pending_result", timeout=120_000)
        page.fill("#token", TOKEN)
        page.click("#token-save")
        page.wait_for_function("document.getElementById('token-msg').textContent === 'token accepted'", timeout=30_000)
        page.fill("#by", "Mika")
        before = httpx.get(f"{url}api/state", timeout=30).json()
        scores = [s["score"] for s in before["seats"]]
        page.select_option("#what", "scores")
        inputs = page.query_selector_all(".score-input")
        assert [int(i.input_value()) for i in inputs] == scores
        inputs[0].fill(str(scores[0] + 1000))
        page.fill("#reason", "recount")
        page.click("#correct")
        page.wait_for_function("document.getElementById('msg').textContent.includes('do not add up')", timeout=30_000)
        assert httpx.get(f"{url}api/state", timeout=30).json()["seats"] == before["seats"]
        inputs[1].fill(str(scores[1] - 1000))
        page.click("#correct")
        page.wait_for_function("document.getElementById('msg').textContent.includes('done')", timeout=30_000)
        after = httpx.get(f"{url}api/state", timeout=30).json()
        assert [s["score"] for s in after["seats"]] == [scores[0] + 1000, scores[1] - 1000] + scores[2:]
        page.wait_for_selector("#history li button.undo", timeout=30_000)
        assert "by Mika: recount" in page.text_content("#history")
        page.screenshot(path=str(artifacts_dir / "staff-view.png"), full_page=True)
        page.click("#history li button.undo")
        page.wait_for_function("document.getElementById('msg').textContent.includes('undo 1: done')", timeout=30_000)
        assert httpx.get(f"{url}api/state", timeout=30).json()["seats"] == before["seats"]
        # a confirm of another hand is refused with the reason; the hand shown confirms
        res = httpx.post(f"{url}api/staff/confirm", json={"hand_index": 98}, timeout=30,
                         headers={"Authorization": f"Bearer {TOKEN}"})
        assert res.status_code == 409 and "hand 99 is not the hand at the table (hand 1)" in res.json()["error"]
        page.click("#confirm")
        page.wait_for_function("window.__jantaku.state.hand_index === 1", timeout=30_000)
    finally:
        assert daemon.stop() == 0


def test_the_chombo_form_names_the_rulesets_rule_and_applies_it(tmp_path, page):
    """A game played by the ``league`` profile ([payments] chombo = "deduction"): the penalty form
    says so; a chombo takes 20,000 off the player alone; a penalty of another kind is refused
    and changes nothing; undo gives the points back."""
    import dataclasses

    events, oks = sample_events()
    events = [dataclasses.replace(events[0], ruleset="league")] + events[1:oks[0] - 20]
    feed = tmp_path / "feed.jsonl"
    write_feed(feed, [(0.0, e) for e in events])
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN, feed=str(feed),
                       speed=0.0)
    daemon = DaemonProc(cfg)
    url = daemon.wait_ready()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        page.goto(f"{url}staff")
        page.wait_for_function("window.__jantaku.state && window.__jantaku.state.phase === 'play'", timeout=120_000)
        page.fill("#token", TOKEN)
        page.click("#token-save")
        page.wait_for_function("document.getElementById('token-msg').textContent === 'token accepted'", timeout=30_000)
        page.wait_for_function("document.getElementById('chombo-rule').textContent.includes('20,000 points off')",
                               timeout=30_000)
        before = httpx.get(f"{url}api/state", timeout=30).json()
        res = httpx.post(f"{url}api/staff/correct", headers=auth, timeout=30,
                         json={"what": "penalty", "reason": "x", "data": {"seat": 1, "kind": "yellow_card", "by": "Mika"}})
        assert res.status_code == 409 and "chombo only" in res.json()["error"]
        assert httpx.get(f"{url}api/state", timeout=30).json()["seats"] == before["seats"]
        page.fill("#by", "Mika")
        page.select_option("#what", "penalty")
        page.select_option('.form[data-what="penalty"] select[name="seat"]', "2")
        page.fill("#reason", "won on a wrong wait")
        page.click("#correct")
        page.wait_for_function("document.getElementById('msg').textContent.includes('done')", timeout=30_000)
        after = httpx.get(f"{url}api/state", timeout=30).json()
        scores = [s["score"] for s in before["seats"]]
        assert [s["score"] for s in after["seats"]] == [x - (20000 if i == 2 else 0) for i, x in enumerate(scores)]
        page.wait_for_selector("#history li button.undo", timeout=30_000)
        page.click("#history li button.undo")
        page.wait_for_function("document.getElementById('msg').textContent.includes('undo 1: done')", timeout=30_000)
        assert httpx.get(f"{url}api/state", timeout=30).json()["seats"] == before["seats"]
    finally:
        assert daemon.stop() == 0
