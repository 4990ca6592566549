"""Fixtures for the parlour tests: a real Mosquitto on loopback, the parlour service, simulated tables."""

from __future__ import annotations

import json
import os
import time

import pytest

from controller.config import MqttConfig
from controller.mqtt_publish import MqttPublisher
from controller.parlour.service import Parlour, ParlourConfig
from tests.fixtures.mosquitto import Mosquitto, have_mosquitto

PARLOUR = "p1"
TABLES = ("t1", "t2", "t3", "t4")
PASSWORDS = {"parlour": "counter-pw", **{t: f"pw-{t}" for t in TABLES}}


def wait_for(predicate, timeout_s: float = 60.0, what: str = "condition"):
    """Poll ``predicate`` until it returns a true value (generous: the machine may be loaded)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


@pytest.fixture
def broker(tmp_path):
    if not have_mosquitto():
        if os.environ.get("CI"):
            pytest.fail("no mosquitto under CI: ./dev test should have installed it")
        pytest.skip("no mosquitto: apt-get install mosquitto (./dev test does)")
    b = Mosquitto(tmp_path / "broker", users=PASSWORDS, parlour=PARLOUR)
    b.start()
    yield b
    b.stop()


@pytest.fixture
def parlour(tmp_path, broker):
    cfg = ParlourConfig(name=PARLOUR, data_dir=str(tmp_path / "parlour"), port=broker.port, username="parlour",
                        password=PASSWORDS["parlour"], keepalive_s=5, token="counter-token")
    p = Parlour(cfg, env={})
    p.start()
    wait_for(p.ingest.connected.is_set, what="the parlour's broker session")
    yield p
    p.stop()


def table_cfg(broker, table: str, *, port: int | None = None, keepalive_s: int = 2, **extra) -> MqttConfig:
    return MqttConfig(enabled=True, port=port or broker.port, parlour=PARLOUR, username=table,
                      password=PASSWORDS[table], keepalive_s=keepalive_s, state_interval_s=0.05, **extra)


@pytest.fixture
def make_table(tmp_path, broker):
    made: list[MqttPublisher] = []

    def make(table: str, *, port: int | None = None, folder=None, **extra) -> MqttPublisher:
        pub = MqttPublisher(table_cfg(broker, table, port=port, **extra), table, folder or tmp_path / f"table-{table}",
                            client_id=f"jantaku-{table}-test", env={})
        pub.start()
        made.append(pub)
        return pub
    yield make
    for pub in made:
        pub.stop()


def event(seq: int, *, kind: str = "button", **fields) -> tuple:
    """A committed event as the daemon hands it over: (event_seq, t_wall, kind, record, head hash)."""
    record = {"kind": kind, "now": float(seq), **({"seat": 0, "action": "ok"} if kind == "button" else {}), **fields}
    return seq, time.time(), kind, record, f"{seq:064x}"


def state_message(version: int, view: dict, event_seq: int = 0) -> str:
    return json.dumps({"type": "state", "version": version, "seq": event_seq, "state": view})
