"""The staff enrolment page in headless Chromium, against a running daemon whose camera (a file)
sees the enrolment mat on the felt: capture, check the crops, fix one, save; the set in use."""

from __future__ import annotations

import json

import cv2
import httpx
import numpy as np
import pytest

from hardware.sim.mat_photo import mat_photo
from hardware.sim.scene import SceneRenderer, TableState, pose_camera
from tests.integration.daemonproc import DaemonProc, free_port, write_config
from vision.enrol import TileSet
from vision.layout import load_profile

TOKEN = "enrol-token"


def table_with_mat() -> np.ndarray:
    renderer = SceneRenderer(load_profile("riichi4"), pose_camera(dict(tilt_deg=0.0, roll_deg=0.0, distance_mm=1000.0)))
    felt = renderer.render(TableState(), seed=1)
    h, w = felt.shape[:2]
    quad = np.float32([[w / 2 - 250, h / 2 - 170], [w / 2 + 245, h / 2 - 178], [w / 2 + 252, h / 2 + 172],
                       [w / 2 - 248, h / 2 + 170]])
    return mat_photo(seed=2, background=felt, quad=quad)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("enrolpanel")
    frame = tmp / "camera.png"
    cv2.imwrite(str(frame), table_with_mat())
    cfg = write_config(tmp / "table.toml", data=tmp / "data", port=free_port(), token=TOKEN)
    text = cfg.read_text().replace('[camera]\nsource = "off"', f'[camera]\nsource = "file"\ndevice = "{frame}"\nfps = 2')
    cfg.write_text(text)
    proc = DaemonProc(cfg)
    url = proc.wait_ready(timeout_s=120)
    yield url, tmp / "data"
    assert proc.stop() == 0


def _status(url):
    r = httpx.get(f"{url}api/staff/enrol/status", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert r.status_code == 200
    return r.json()


def test_enrolment_routes_need_the_token(daemon):
    url, _data = daemon
    assert httpx.get(f"{url}api/staff/enrol/status", timeout=30).status_code == 401
    assert httpx.post(f"{url}api/staff/enrol/capture", timeout=30).status_code == 401
    r = httpx.post(f"{url}api/staff/enrol/save", headers={"Authorization": f"Bearer {TOKEN}"},
                   content=json.dumps({"labels": ["1m"]}), timeout=30)
    assert r.status_code == 400 and "one label per place" in r.json()["error"]
    assert _status(url)["tile_set"].startswith("none")


def test_capture_check_fix_and_save_in_the_page(daemon, page):
    url, data = daemon
    page.goto(f"{url}staff")
    assert page.get_attribute("#enrol-link", "href") == "/staff/enrol"
    page.goto(f"{url}staff/enrol")
    page.fill("#token", TOKEN)
    page.click("#token-save")
    page.wait_for_function("document.getElementById('token-msg').textContent === 'token accepted'", timeout=30_000)
    assert page.text_content("#set-in-use").startswith("none")
    page.click("#capture")
    page.wait_for_function("document.querySelectorAll('#places select').length === 46", timeout=90_000)
    assert "46 places cut" in page.text_content("#job-msg")
    page.wait_for_function("[...document.querySelectorAll('#places img')].every(i => i.naturalWidth > 0)",
                           timeout=30_000)
    labels = page.eval_on_selector_all("#places select", "els => els.map(e => e.value)")
    assert labels[0] == "1m" and labels[-1] == "back"
    page.select_option('#places select[data-place="46"]', "")      # leave the back out
    page.click("#save")
    page.wait_for_function("document.getElementById('job-msg').textContent.startsWith('saved')", timeout=90_000)
    assert "45 kinds" in page.text_content("#set-in-use")
    ts = TileSet.load(data / "tile_set.json")
    assert len(ts.kinds) == 45 and "back" not in ts.kinds
    # the pictures it was made from are kept, for making the set again after a model update
    rows = (data / "tile_set_pictures" / "labels.csv").read_text().splitlines()
    assert rows[0] == "file,label" and [r.split(",")[1] for r in rows[1:]] == labels[:45]
    parts = httpx.get(f"{url}api/staff/status", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30).json()["parts"]
    assert "45 kinds" in parts["camera"]["tile_set"]
    page.click("#add-confirmed")
    page.wait_for_function("document.getElementById('job-msg').textContent.includes('no confirmed crops')",
                           timeout=30_000)
    assert page.text_content("#history").strip() == "nothing confirmed yet"


def test_reading_confidence_per_kind_over_days(daemon, page):
    url, data = daemon
    from vision.confirmed import ConfirmedStore
    store = ConfirmedStore(data / "confirmed")
    crop = np.full((40, 40, 3), 200, np.uint8)
    store.keep([("5p", crop, "5p", 0.97), ("7s", crop, "7s", 0.95)], now=86400 * 100)
    store.keep([("5p", crop, "6p", 0.6), ("7s", crop, "7s", 0.96)], now=86400 * 101)   # a worn 5p
    page.goto(f"{url}staff/enrol")
    page.fill("#token", TOKEN)
    page.click("#token-save")
    page.wait_for_selector("table.confidence", timeout=30_000)
    rows = page.eval_on_selector_all("table.confidence tr", "trs => trs.map(t => t.innerText.split('\\t'))")
    assert rows[0][1:] == ["04-11", "04-12"], rows
    by_kind = {r[0]: r[1:] for r in rows[1:]}
    assert by_kind["5p"] == ["0.97", "0.00"] and by_kind["7s"] == ["0.95", "0.96"]
    assert page.eval_on_selector_all("table.confidence td.low", "tds => tds.length") == 1
    assert page.text_content("#confirmed-count") == "4"
    # added to the set the page saved (the test before): kept beside its mat pictures, so the set
    # made again after a model update holds them too
    page.click("#add-confirmed")
    page.wait_for_function("document.getElementById('job-msg').textContent.startsWith('saved')", timeout=90_000)
    ts = TileSet.load(data / "tile_set.json")
    assert ts.count == 45 + 4
    rows = (data / "tile_set_pictures" / "labels.csv").read_text().splitlines()[1:]
    assert len(rows) == ts.count and [r.split(",")[1] for r in rows[45:]].count("5p") == 2
