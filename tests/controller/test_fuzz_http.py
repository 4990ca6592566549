"""Fuzz every panel route and the WebSocket of a running daemon (a real process, a game under way):
malformed, oversized, nested and non-finite bodies, with and without the token. No answer is
5xx, the daemon never exits, and a refused request stores nothing. Also: the global limit on
staff-token failures, and a game in progress replaced only when the request names it."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time

import httpx
import pytest
import websockets

from controller.daemon_parts import write_feed
from controller.storage import DB_NAME
from tests.integration.daemonproc import DaemonProc, free_port, write_config
from tests.integration.test_crash_restart import scripted_game

TOKEN = "fuzz-token-0123456789"
ACTIONS = ("start_game", "confirm", "correct", "declare", "void_hand", "reset", "launch", "")
GETS = ("", "staff", "api/state", "api/staff/status", "api/staff/calibration.jpg", "api/staff/evidence/x.jpg",
        "api/staff/evidence/..%2f..%2fetc%2fpasswd", "static/panel.js", "static/../../pyproject.toml", "ws")
VALID = {
    "start_game": {"ruleset": "tenhou", "players": ["a", "b", "c", "d"]},
    "confirm": {"hand_index": 0},
    "correct": {"what": "scores", "reason": "fix", "data": {"scores": [25000, 25000, 25000, 25000]}},
    "declare": {"seat": 1, "action": "tsumo", "reason": "button broken"},
    "void_hand": {"reason": "tile-set error"},
    "reset": {"reason": "jam cleared"},
}


def panel_rows(data) -> int:
    conn = sqlite3.connect(f"file:{data / DB_NAME}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute("SELECT COUNT(*) FROM events WHERE source='panel'").fetchone()[0]
    finally:
        conn.close()


def _mutate(rng: random.Random, value):
    """A value bent the ways clients bend them."""
    pick = rng.randrange(12)
    if pick == 0:
        return float("nan")
    if pick == 1:
        return rng.choice([float("inf"), -float("inf")])
    if pick == 2:
        deep = 0
        for _ in range(rng.choice([9, 50, 3000])):
            deep = [deep]
        return deep
    if pick == 3:
        return "x" * rng.choice([41, 501, 70000])
    if pick == 4:
        return rng.choice([-1, 2**70, True, None, 1.5, "0", [], {}])
    if pick == 5 and isinstance(value, dict):
        return {**value, rng.choice(["extra", "__proto__", "hand_index", ""]): 1}
    if pick == 6 and isinstance(value, dict) and value:
        out = dict(value)
        out.pop(rng.choice(list(out)))
        return out
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        return {**value, key: _mutate(rng, value[key])}
    if isinstance(value, list) and value:
        out = list(value)
        out[rng.randrange(len(out))] = _mutate(rng, out[0])
        return out
    return value


def _raw(rng: random.Random, body) -> bytes:
    try:
        text = json.dumps(body)          # NaN/Infinity as JSON's non-standard literals
    except (ValueError, RecursionError):
        text = "[" * 5000
    raw = bytearray(text.encode())
    pick = rng.randrange(8)
    if pick == 0 and raw:
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    elif pick == 1:
        raw = raw[: rng.randrange(len(raw) + 1)]
    elif pick == 2:
        raw = bytearray(rng.choice([b"", b"null", b"[]", b'"x"', b"1e999", b"{" * 100000, b"\xff\xfe",
                                    b'{"reason": "a", "reason": "b"}', b'{"hand_index": 1e400}']))
    return bytes(raw)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    feed = tmp / "game.jsonl"
    write_feed(feed, [(0.05, e) for _d, e in scripted_game(hands=2)])
    cfg = write_config(tmp / "table.toml", data=tmp / "data", port=free_port(), token=TOKEN, feed=str(feed),
                       max_failures=1000)
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    yield url, tmp / "data", proc
    assert proc.proc.poll() is None, "the daemon exited under the fuzz"
    assert proc.stop() == 0


@pytest.mark.slow
def test_fuzzed_requests_get_no_5xx_and_refused_ones_store_nothing(table):
    url, data, proc = table
    rng = random.Random(16)
    answers: dict[int, int] = {}
    with httpx.Client(timeout=30) as client:
        for k in range(1500):
            action = rng.choice(ACTIONS)
            body = _mutate(rng, VALID.get(action, {"reason": "x"}))
            raw = _raw(rng, body)
            headers = {}
            if rng.random() < 0.8:
                headers["Authorization"] = f"Bearer {TOKEN}" if rng.random() < 0.9 else "Bearer nope"
            if rng.random() < 0.1:
                headers["Content-Type"] = rng.choice(["text/plain", "application/x-www-form-urlencoded"])
            before = panel_rows(data)
            if k % 10 == 9:
                res = client.request(rng.choice(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]),
                                     f"{url}{rng.choice(GETS)}", headers=headers, content=raw)
            else:
                res = client.post(f"{url}api/staff/{action}", headers=headers, content=raw)
            answers[res.status_code] = answers.get(res.status_code, 0) + 1
            assert res.status_code < 500, (action, raw[:200], res.status_code, res.text[:300])
            if res.status_code >= 300:
                assert panel_rows(data) == before, (action, raw[:200], res.status_code, res.text[:300])
            assert proc.proc.poll() is None
    assert answers.get(200, 0) > 20 and answers.get(400, 0) > 300 and answers.get(401, 0) > 50, answers
    assert httpx.get(f"{url}api/state", timeout=30).status_code == 200


def test_the_websocket_survives_any_frame(table):
    url, data, proc = table
    ws_url = url.replace("http://", "ws://") + "ws"
    rng = random.Random(5)

    async def hammer():
        for k in range(60):
            try:
                async with websockets.connect(ws_url, max_size=2**24, open_timeout=30) as ws:
                    first = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    assert first["type"] == "state"
                    for _ in range(5):
                        frame = rng.choice([b"\x00" * rng.choice([1, 70000]), "{" * 5000, '{"x": NaN}',
                                            json.dumps({"type": "staff", "action": "reset"}), "x" * 100000])
                        await ws.send(frame)
                    if k % 3 == 0:
                        await ws.close(code=rng.choice([1000, 1001, 4000]))
            except (websockets.ConnectionClosed, OSError):
                pass      # the server may close a connection that sent a too-large frame (1009)

    before = panel_rows(data)
    asyncio.run(hammer())
    assert proc.proc.poll() is None and panel_rows(data) == before
    assert httpx.get(f"{url}api/state", timeout=30).status_code == 200


def _staff(url, action, body):
    return httpx.post(f"{url}api/staff/{action}", json=body, headers={"Authorization": f"Bearer {TOKEN}"},
                      timeout=30)


def test_a_game_in_progress_is_replaced_only_when_named(table):
    url, data, proc = table
    deadline = time.monotonic() + 60
    while httpx.get(f"{url}api/state", timeout=30).json().get("phase") in (None, "idle"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    before = panel_rows(data)
    res = _staff(url, "start_game", VALID["start_game"])
    assert res.status_code == 409 and "a game is in progress" in res.json()["error"]
    named = res.json()["replace_game"]
    assert f'"replace_game": "{named}"' in res.json()["error"] and panel_rows(data) == before
    assert _staff(url, "start_game", {**VALID["start_game"], "replace_game": "E9 hand 99"}).status_code == 409
    res = _staff(url, "start_game", {**VALID["start_game"], "replace_game": named})
    if res.status_code == 409:           # the game moved on between the two requests: name it again
        named = res.json()["replace_game"]
        res = _staff(url, "start_game", {**VALID["start_game"], "replace_game": named})
    assert res.status_code == 200 and panel_rows(data) == before + 1
    res = _staff(url, "confirm", {"hand_index": -1})
    assert res.status_code == 400 and "hand_index" in res.json()["error"]
    res = httpx.post(f"{url}api/staff/correct", content=b'{"what": "scores", "reason": "r", "data": {"s": [1e999]}}',
                     headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert res.status_code == 400 and "out of range" in res.json()["error"]
    assert panel_rows(data) == before + 1


def test_staff_token_failures_are_limited_across_addresses(tmp_path):
    cfg = write_config(tmp_path / "t.toml", data=tmp_path / "data", port=free_port(), token=TOKEN, max_failures=5)
    proc = DaemonProc(cfg)
    url = proc.wait_ready()
    try:
        codes = []
        for i in range(100):
            transport = httpx.HTTPTransport(local_address=f"127.0.{i // 250}.{i % 250 + 2}")
            with httpx.Client(transport=transport, timeout=30) as client:
                codes.append(client.post(f"{url}api/staff/reset", json={"reason": "x"},
                                         headers={"Authorization": f"Bearer guess{i}"}).status_code)
        assert codes[:20] == [401] * 20           # 4 x 5 failures from everyone together,
        assert set(codes[20:]) == {429}           # then every guess is turned away, wherever from
        res = httpx.post(f"{url}api/staff/reset", json={"reason": "x"},
                         headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
        assert res.status_code == 429 and "all addresses" in res.json()["error"]
        assert httpx.get(f"{url}api/state", timeout=30).status_code == 200
    finally:
        assert proc.stop() == 0
