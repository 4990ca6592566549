"""The parlour board in headless Chromium, fed by simulated tables through a real Mosquitto."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request

import cv2
import numpy as np
import pytest

from controller.panel.server import bind
from controller.parlour.service import serve
from tests.parlour.conftest import event, state_message, wait_for

pytestmark = pytest.mark.browser


class BoardServer:
    """The board's web app on a free loopback port, in its own thread and loop."""

    def __init__(self, parlour) -> None:
        self.sock = bind("127.0.0.1", 0, fallback=False)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._ready = threading.Event()
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(parlour),), daemon=True)
        self._thread.start()
        self._ready.wait(30)

    async def _main(self, parlour) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready.set()
        await serve(parlour, self.sock, self._stop)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)


def _view(table: str, *, scores=(25000, 25000, 25000, 25000), names=("A", "B", "C", "D"), finished=False,
          settlement=None, hands=0, round_="E1", machine="playing") -> dict:
    return {"table": table, "ruleset": "tenhou", "round": round_, "honba": 0, "hand_index": hands, "dealer": 0,
            "first_dealer_chair": 0, "finished": finished, "settlement": settlement,
            "seats": [{"wind": w, "name": n, "score": s, "riichi": i == 1, "is_dealer": i == 0}
                      for i, (w, n, s) in enumerate(zip("ESWN", names, scores, strict=True))],
            "hands": [{"hand": i} for i in range(hands)], "alerts": [], "machine": {"state": machine, "reason": ""}}


def _post(url: str, body: dict, token: str) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def test_the_board_shows_tables_live_an_alert_offline_tables_and_the_fees_of_the_games(
        parlour, make_table, page, artifacts_dir, tmp_path):
    board = BoardServer(parlour)
    tables = {name: make_table(name) for name in ("t1", "t2", "t3")}
    version = {name: 1 for name in tables}
    try:
        for name, pub in tables.items():
            pub.state(1, state_message(1, _view(name)), _view(name))
        page.goto(f"{board.url}/?lang=en")
        page.wait_for_function("document.querySelectorAll('.table.online').length === 3", timeout=60_000)
        assert page.locator("#table-t1 .seat").count() == 4

        # live: a new score at t1 appears without reloading
        version["t1"] += 1
        view = _view("t1", scores=(33000, 17000, 25000, 25000), round_="E2")
        tables["t1"].state(version["t1"], state_message(version["t1"], view), view)
        page.wait_for_function("document.querySelector('#table-t1')?.textContent.includes('33000')", timeout=60_000)
        assert page.locator("#table-t1 .round-name").text_content() == "E2"

        # an alert at t2, with its evidence picture
        folder = tables["t2"].folder / "evidence"
        folder.mkdir(parents=True)
        frame = np.zeros((90, 160, 3), np.uint8)
        cv2.putText(frame, "5p x5", (10, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
        (folder / "00000001-fifth_tile.jpg").write_bytes(cv2.imencode(".jpg", frame)[1].tobytes())
        tables["t2"].committed(*event(1, kind="alert", rule="fifth_tile", hand_index=0, seat=2, tile="5p",
                                      message="a fifth 5p is face up"))
        tables["t2"].evidence(1, "00000001-fifth_tile.jpg")
        page.wait_for_selector("#table-t2 .alert[data-rule=fifth_tile] img", timeout=60_000)
        page.wait_for_function("document.querySelector('#table-t2 .alert img')?.naturalWidth === 160", timeout=60_000)
        assert "a fifth 5p is face up" in page.locator("#table-t2 .alert").text_content()

        # t3 goes away: shown offline
        tables["t3"].stop()
        page.wait_for_selector("#table-t3.offline", timeout=60_000)
        page.screenshot(path=str(artifacts_dir / "parlour_board.png"), full_page=True)

        # the counter: four players checked in at t1 play two games there
        for chair, name in enumerate("ABCD"):
            _post(f"{board.url}/api/visits", {"name": name, "table": "t1", "chair": chair}, "counter-token")
        games = [(False, None, 4), (True, [45.0, 5.0, -15.0, -35.0], 8), (False, None, 0), (True, [-5.0, 30.0, -5.0, -20.0], 8)]
        for finished, settlement, hands in games:
            version["t1"] += 1
            view = _view("t1", finished=finished, settlement=settlement, hands=hands)
            tables["t1"].state(version["t1"], state_message(version["t1"], view), view)
            wait_for(lambda v=version["t1"]: tables["t1"]._state_sent == v, what="the state sent")
        page.goto(f"{board.url}/counter?lang=ja")
        page.wait_for_function("document.querySelectorAll('tr.visit .games').length === 4 && "
                               "[...document.querySelectorAll('tr.visit .games')].every(e => e.textContent === '2')",
                               timeout=60_000)
        fee_rule = parlour.counter.fees.rule_of("t1")
        expected = 2 * 4 * fee_rule.game_fee + 2 * fee_rule.top_prize
        assert page.locator("#fees-total").text_content() == str(expected)
        assert page.locator("h1").text_content() == "カウンター"
        a_balance = -2 * fee_rule.game_fee - fee_rule.top_prize + round((45.0 - 5.0) * fee_rule.rate)
        assert page.locator("tr.visit").first.locator(".balance").text_content() == str(a_balance)
        page.screenshot(path=str(artifacts_dir / "parlour_counter.png"), full_page=True)
        page.goto(f"{board.url}/table/t1?lang=zh")
        page.wait_for_function("document.querySelector('#games-played')?.textContent === '2'", timeout=60_000)
        assert page.locator("#hands").text_content() == "16"
    finally:
        board.close()
