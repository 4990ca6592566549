"""The panel's HTTP API against a running daemon: the contract, read-only public API, the staff gate."""

import json
import sqlite3
import time

import httpx
import pytest

from controller.panel.app import rulesets
from controller.storage import DB_NAME
from tests.integration.daemonproc import DaemonProc, free_port, write_config

TOKEN = "correct horse battery staple"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("panel")
    cfg = write_config(tmp / "table.toml", data=tmp / "data", port=free_port(), token=TOKEN, max_failures=3)
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    yield url, tmp / "data"
    assert proc.stop() == 0


def count_events(data):
    conn = sqlite3.connect(data / DB_NAME)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


def staff(url, action, body, token=TOKEN, raw=None):
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    content = raw if raw is not None else json.dumps(body)
    return httpx.post(f"{url}api/staff/{action}", content=content, headers=headers, timeout=30)


def test_state_has_the_contract_fields(daemon):
    url, _ = daemon
    state = httpx.get(f"{url}api/state", timeout=30).json()
    for key in ("table", "ruleset", "round", "honba", "riichi_sticks", "hand_index", "dealer", "finished",
                "seats", "dora_indicators", "dora", "live_wall", "last_result", "alerts"):
        assert key in state, key
    assert state["table"] == "t1" and len(state["seats"]) == 4
    assert {"wind", "score", "riichi"} <= set(state["seats"][0])
    assert isinstance(state["alerts"], list) and isinstance(state["finished"], bool)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_public_api_is_read_only(daemon, method):
    url, data = daemon
    before = count_events(data)
    assert httpx.request(method, f"{url}api/state", json={"honba": 5}, timeout=30).status_code == 405
    assert count_events(data) == before


@pytest.mark.parametrize("body, raw, words", [
    (None, "{not json", "not JSON"),
    (None, "[1, 2]", "JSON object"),
    ({"reason": ""}, None, "reason"),
    ({"reason": "ok", "extra": 1}, None, "unknown field 'extra'"),
    ({}, None, "missing field 'reason'"),
], ids=["bad-json", "not-object", "empty-reason", "unknown-field", "missing-field"])
def test_malformed_staff_requests_are_4xx_and_change_nothing(daemon, body, raw, words):
    url, data = daemon
    before = count_events(data)
    state = httpx.get(f"{url}api/state", timeout=30).json()
    res = staff(url, "reset", body, raw=raw)
    assert 400 <= res.status_code < 500 and words in res.json()["error"]
    assert count_events(data) == before
    assert httpx.get(f"{url}api/state", timeout=30).json() == state


@pytest.mark.parametrize("action, body, words", [
    ("declare", {"seat": 7, "action": "tsumo", "reason": "button broken"}, "seat 0..3"),
    ("declare", {"seat": 1, "action": "fly", "reason": "x"}, "action 'fly'"),
    ("start_game", {"ruleset": "tenhou", "players": ["a", "b"]}, "4 names"),
    ("start_game", {"ruleset": "no-such-rules", "players": ["a", "b", "c", "d"]}, "ruleset"),
    ("confirm", {"hand_index": "two"}, "hand_index"),
    ("correct", {"what": "discard", "reason": "misread", "data": [1]}, "data"),
    ("launch", {}, "unknown staff action"),
], ids=["bad-seat", "bad-action", "three-players", "bad-ruleset", "bad-type", "bad-data", "bad-route"])
def test_invalid_staff_actions_are_refused(daemon, action, body, words):
    url, data = daemon
    if action == "start_game" and words == "ruleset" and not rulesets():
        pytest.skip("no ruleset profiles in this build yet")
    before = count_events(data)
    res = staff(url, action, body)
    assert 400 <= res.status_code < 500 and words in res.json()["error"]
    assert count_events(data) == before


def test_staff_action_with_token_is_stored_then_shown(daemon):
    url, data = daemon
    before = count_events(data)
    res = staff(url, "reset", {"reason": "lid closed again after a jam"})
    assert res.status_code == 200
    assert res.json()["seq"] == before + 1 == count_events(data)
    status = httpx.get(f"{url}api/staff/status", headers={"X-Staff-Token": TOKEN}, timeout=30).json()
    assert status["events"] == before + 1 and status["machine"]["state"] == "idle"


def test_staff_pages_need_the_token_and_failures_are_rate_limited(tmp_path):
    cfg = write_config(tmp_path / "table.toml", data=tmp_path / "data", port=free_port(), token=TOKEN,
                       max_failures=3)
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    try:
        assert staff(url, "reset", {"reason": "x"}, token=None).status_code == 401
        assert httpx.get(f"{url}api/staff/status", timeout=30).status_code == 401
        assert staff(url, "reset", {"reason": "x"}, token=TOKEN[:-1]).status_code == 401
        assert count_events(tmp_path / "data") == 0
        # three failures in the window: now even the right token is turned away for a while
        res = staff(url, "reset", {"reason": "x"}, token=TOKEN)
        assert res.status_code == 429 and int(res.headers["Retry-After"]) > 0
        assert httpx.get(f"{url}api/staff/calibration.jpg", headers={"X-Staff-Token": TOKEN},
                         timeout=30).status_code == 429
        assert count_events(tmp_path / "data") == 0
        # the public view is not affected
        assert httpx.get(f"{url}api/state", timeout=30).status_code == 200
    finally:
        assert proc.stop() == 0



@pytest.fixture(scope="module")
def at_a_result(tmp_path_factory):
    """A daemon fed the sample game's first hand up to its result (before anyone presses ok)."""
    from controller.daemon_parts import write_feed
    from tests.integration.test_panel_browser_display import sample_events
    tmp = tmp_path_factory.mktemp("result")
    events, oks = sample_events()
    feed = tmp / "feed.jsonl"
    write_feed(feed, [(0.0, e) for e in events[:oks[0]]])
    cfg = write_config(tmp / "table.toml", data=tmp / "data", port=free_port(), token=TOKEN, feed=str(feed), speed=0.0)
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    deadline = time.monotonic() + 120
    while not httpx.get(f"{url}api/state", timeout=30).json().get("pending_result"):
        assert time.monotonic() < deadline, "the fed hand never reached its result"
        time.sleep(0.1)
    yield url, tmp / "data"
    assert proc.stop() == 0


@pytest.mark.parametrize("action, body, words", [
    ("confirm", {"hand_index": 98}, "hand 99 is not the hand at the table (hand 1)"),
    ("correct", {"what": "scores", "reason": "x", "data": {"scores": [26000, 25000, 25000, 25000]}}, "do not add up"),
    ("correct", {"what": "discard", "reason": "x", "data": {"seat": 1, "index": 40, "tile": "5p"}}, "does not exist"),
    ("correct", {"what": "discard", "reason": "x", "data": {"seat": 1, "index": 0, "tile": "5x"}}, "not a tile"),
    ("correct", {"what": "dismiss_alert", "reason": "x", "data": {"index": 3}}, "there is no alert"),
    ("correct", {"what": "undo", "reason": "x", "data": {"id": 5}}, "does not exist"),
    ("correct", {"what": "remove_discard", "reason": "x", "data": {"seat": 0, "index": 0}}, "correct its tile"),
    ("correct", {"what": "retry", "reason": "x", "data": {}}, "not stopped"),
    ("correct", {"what": "launch", "reason": "x", "data": {}}, "unknown correction"),
], ids=["confirm-hand-99", "scores-sum", "discard-index", "discard-tile", "alert-index", "undo-id", "remove",
        "retry-not-stopped", "unknown"])
def test_staff_actions_that_cannot_apply_are_refused_in_plain_words(at_a_result, action, body, words):
    url, data = at_a_result
    before, state = count_events(data), httpx.get(f"{url}api/state", timeout=30).json()
    res = staff(url, action, body)
    assert res.status_code == 409 and words in res.json()["error"], res.json()
    assert count_events(data) == before
    after = httpx.get(f"{url}api/state", timeout=30).json()
    assert after == state
    assert "could not be applied" not in json.dumps(after)       # players never see staff errors
