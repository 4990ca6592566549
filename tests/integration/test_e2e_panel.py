"""End to end (issue 7) in headless Chromium: a recorded game played physically by the simulated
table, followed live on the panel; after every hand the panel shows the recorded scores and the
hand's result, and at the end the recorded final scores."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_e2e_demo import Demo, _sample, recorded

pytestmark = pytest.mark.browser
GAME = "mjai-reviewer__2019050417gm-0029-0000-4f2a8622.json"      # three hands of a real game
# paced so that each hand's confirmed result stays on screen while the next walls are prepared
SPEED = "40"

SHOWS = """([hand, scores]) => {
  const box = document.getElementById("result");
  const head = box && !box.hidden ? box.querySelector("h2") : null;
  if (!head || box.dataset.pending !== "false" || !head.textContent.includes(`hand ${hand + 1}`)) return false;
  return scores.every((s, i) => {
    const node = document.getElementById(`score-${i}`);
    return node && Number(node.textContent.replace(/,/g, "")) === s;
  });
}"""


def test_panel_in_chromium_follows_a_game_played_physically(tmp_path, page, artifacts_dir):
    path = _sample(GAME)
    after, final = recorded(path)
    demo = Demo(path, tmp_path, speed=SPEED).ready()
    try:
        page.goto(demo.url)
        page.wait_for_selector('#conn[data-connected="true"]', timeout=60_000)
        for hand, scores in enumerate(after):
            page.wait_for_function(SHOWS, arg=[hand, scores], timeout=120_000)
        page.wait_for_selector("#finished:not([hidden])", timeout=60_000)
        shown = [int(page.text_content(f"#score-{i}").replace(",", "")) for i in range(4)]
        assert shown == final == json.loads(path.read_text())["sc"][0::2]
        assert page.text_content("#hand-index").strip() == str(len(after))
        page.screenshot(path=str(artifacts_dir / "e2e-panel-final.png"), full_page=True)
    finally:
        demo.stop()
