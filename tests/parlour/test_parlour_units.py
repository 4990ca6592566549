"""The parlour's pure parts and its store without a broker: config, fees, counter, ingestion, client id."""

from __future__ import annotations

import json

import pytest

from controller import config
from controller import mqtt_link as L
from controller.config import ConfigError
from controller.outbox import Outbox
from controller.parlour import fees as F
from controller.parlour.counter import Counter
from controller.parlour.service import parse as parse_parlour
from controller.parlour.store import ParlourError, ParlourStore


def test_mqtt_is_off_by_default_and_its_options_are_checked():
    assert config.load().mqtt.enabled is False
    cfg = config.parse({"mqtt": {"enabled": True, "parlour": "ginza", "keepalive_s": 10}})
    assert cfg.mqtt.enabled and cfg.mqtt.parlour == "ginza" and cfg.mqtt.keepalive_s == 10


@pytest.mark.parametrize("section, message", [
    ({"brokr": "x"}, r"unknown option 'brokr' in section \[mqtt\]"),
    ({"parlour": "a/b"}, "one MQTT topic level"),
    ({"parlour": "#"}, "one MQTT topic level"),
    ({"keepalive_s": 0}, "must be at least 1"),
    ({"password": "a", "password_file": "/x"}, "not both"),
    ({"ca_file": "ca.crt"}, "need tls = true"),
    ({"tls": True, "cert_file": "c.crt"}, "go together"),
], ids=["unknown", "slash", "wildcard", "keepalive", "two-passwords", "ca-without-tls", "cert-without-key"])
def test_bad_mqtt_options_are_refused_by_name(section, message):
    with pytest.raises(ConfigError, match=message):
        config.parse({"mqtt": section})


def test_the_parlour_config_refuses_unknown_keys():
    assert parse_parlour({"parlour": {"name": "p1"}, "broker": {"port": 1884}}).port == 1884
    with pytest.raises(ConfigError, match="unknown option 'prot'"):
        parse_parlour({"broker": {"prot": 1}})
    with pytest.raises(ConfigError, match="unknown section"):
        parse_parlour({"brokers": {}})


def test_the_client_id_comes_from_the_board_serial_before_the_machine_id(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/machine-id").write_text("cloned0cloned0cloned0cloned0aaaa\n")
    assert L.board_serial(tmp_path) == "cloned0cloned0cloned0cloned0aaaa"
    (tmp_path / "proc/cpuinfo").write_text("processor\t: 0\nHardware\t: BCM2835\nSerial\t\t: 10000000ab12cd34\n")
    assert L.board_serial(tmp_path) == "10000000ab12cd34"
    assert L.client_id("t7", "10000000ab12cd34") == "jantaku-t7-10000000ab12cd34"
    assert L.client_id("t7", "10000000ab12cd34") != L.client_id("t7", "10000000ab12cd35")


def test_the_outbox_keeps_rows_in_order_across_a_reopen(tmp_path):
    box = Outbox(tmp_path)
    box.add([("jantaku/p/t/event", f"m{i}".encode(), False) for i in range(5)], last_event_seq=5)
    box.close()
    box = Outbox(tmp_path)
    rows = box.after(0, 10)
    assert [r.payload for r in rows] == [b"m0", b"m1", b"m2", b"m3", b"m4"] and box.last_event_seq == 5
    box.done([rows[0].id, rows[2].id])
    assert [r.payload for r in box.after(0, 10)] == [b"m1", b"m3", b"m4"]
    assert [r.payload for r in box.after(rows[3].id, 10)] == [b"m4"]


FEES = F.parse({"tables": {"default": "free", "vip": "private"},
                "rules": {"free": {"kind": "per_game", "game_fee": 400, "top_prize": 500, "rate": 50},
                          "private": {"kind": "per_hour", "hour_fee": 800, "block_minutes": 30}}})


def test_fee_rules_per_game_and_per_hour():
    lines = F.game_lines(FEES.rule_of("t1"), [52.3, 3.0, -14.3, -41.0], [51300, 23000, 15700, 10000])
    assert lines[0] == [("game_fee", -400), ("top_prize", -500), ("settlement", 2615)]
    assert lines[3] == [("game_fee", -400), ("settlement", -2050)]
    rule = FEES.rule_of("vip")
    assert F.hour_charge(rule, 30 * 60) == -400 and F.hour_charge(rule, 31 * 60) == -800
    assert F.game_lines(rule, [10.0, 0, 0, -10.0], [1, 1, 1, 1])[0] == []


@pytest.mark.parametrize("raw, message", [
    ({"rules": {"a": {"kind": "per_week"}}}, "must be one of"),
    ({"rules": {"a": {"game_fe": 1}}}, "unknown option 'game_fe'"),
    ({"rules": {"a": {}}, "tables": {"t1": "b"}}, "no such rule"),
    ({"rules": {"a": {"game_fee": -1}}}, "at least 0"),
], ids=["kind", "unknown-key", "missing-rule", "negative"])
def test_bad_fee_rules_are_refused(raw, message):
    with pytest.raises(ConfigError, match=message):
        F.parse(raw)


def test_the_shipped_fee_rules_load():
    assert F.load().rule_of("any").kind == "per_game"


def _finished(table: str, seq: int, settlement, names=("A", "B", "C", "D"), hands: int = 8) -> tuple[str, bytes]:
    state = {"table": table, "finished": True, "ruleset": "tenhou", "first_dealer_chair": 0,
             "seats": [{"name": n, "score": 25000} for n in names], "settlement": settlement,
             "hands": [{"i": i} for i in range(hands)]}
    return (L.topic("p1", table, "state"),
            L.dumps({"table": table, "boot": "b1", "seq": seq, "type": "state", "is_milestone": True,
                     "t_pub": 1000.0 + seq, "event_seq": seq, "state": state}))


def _new_game(table: str, seq: int) -> tuple[str, bytes]:
    return (L.topic("p1", table, "state"),
            L.dumps({"table": table, "boot": "b1", "seq": seq, "type": "state", "is_milestone": True,
                     "t_pub": 1000.0 + seq, "state": {"finished": False, "seats": [], "hands": []}}))


def test_a_finished_game_charges_the_players_seated_and_the_counter_closes_the_visits(tmp_path):
    store = ParlourStore(tmp_path)
    counter = Counter(store, FEES)
    names = ["A", "B", "C", "D"]
    visits = [counter.check_in(name=n, table="t1", chair=i, now=0.0) for i, n in enumerate(names)]
    with pytest.raises(ParlourError, match="taken by A"):
        counter.check_in(member="77", table="t1", chair=0)
    store.ingest([_finished("t1", 1, [40.0, 10.0, -15.0, -35.0])])
    store.ingest([_finished("t1", 1, [40.0, 10.0, -15.0, -35.0])])           # a duplicate: no second game
    assert store.duplicates == 1
    store.ingest([_new_game("t1", 2), _finished("t1", 3, [-20.0, 45.0, -5.0, -20.0])])
    counter.move(visits[3], table="t2", chair=1, now=10.0)                    # D changes tables: t1's next game is not D's
    store.ingest([_new_game("t1", 4), _finished("t1", 5, [30.0, 0.0, -10.0, -20.0])])
    bills = {b["name"]: b for b in counter.open_visits()}
    assert bills["A"]["games"] == 3 and bills["D"]["games"] == 2
    assert bills["A"]["balance"] == -3 * 400 - 500 * 2 + round((40 - 20 + 30) * 50)
    assert bills["B"]["balance"] == -3 * 400 - 500 + round((10 + 45 + 0) * 50)
    assert bills["D"]["balance"] == -2 * 400 + round((-35 - 20) * 50)
    bill = counter.close(visits[3], now=20.0)
    assert not bill["is_open"] and bill["owes"] == -bills["D"]["balance"]
    assert [b["name"] for b in counter.open_visits()] == ["A", "B", "C"]
    c = store.reader()
    assert c.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 3
    assert c.execute("SELECT COUNT(*) FROM hands").fetchone()[0] == 3 * 8
    c.close()


def test_hours_at_a_private_table_are_charged_when_the_visit_closes(tmp_path):
    store = ParlourStore(tmp_path)
    counter = Counter(store, FEES)
    v = counter.check_in(member="1234", table="vip", chair=2, now=0.0)
    bill = counter.close(v, now=61 * 60.0)                                  # 61 minutes: three started half hours
    assert bill["name"] == "#1234" and bill["balance"] == -3 * 400 and bill["owes"] == 1200


def test_messages_that_are_not_a_tables_own_are_dropped(tmp_path):
    store = ParlourStore(tmp_path)
    bad = [("jantaku/p1/t1/event", b"not json"),
           ("jantaku/p1/t1/event", L.dumps({"table": "t2", "boot": "b", "seq": 1})),     # names another table
           ("jantaku/p1/t1/event", L.dumps({"table": "t1", "boot": "b"})),               # no seq
           ("jantaku/p1/t1/nonsense", L.dumps({"table": "t1", "boot": "b", "seq": 1}))]
    assert store.ingest(bad) == (0, 0)
    ok = ("jantaku/p1/t1/alert", L.dumps({"table": "t1", "boot": "b", "seq": 1, "type": "alert", "event_seq": 9,
                                           "kind": "alert", "record": {"rule": "fifth_tile", "seat": 2, "tile": "5p",
                                                                        "hand_index": 0, "message": "5p x5"}}))
    assert store.ingest([ok, ok]) == (1, 1)
    c = store.reader()
    assert json.loads(json.dumps(dict(c.execute("SELECT rule, seat, tile FROM alerts").fetchone()))) == {
        "rule": "fifth_tile", "seat": 2, "tile": "5p"}
    c.close()


def test_a_malformed_message_is_dropped_alone_and_the_rest_of_its_batch_is_stored(tmp_path):
    store = ParlourStore(tmp_path)
    poison = (L.topic("p1", "t1", "state"), L.dumps({"table": "t1", "boot": "b", "seq": 1, "type": "state",
                                                      "is_milestone": True, "t_pub": "soon", "state": {"hands": 3}}))
    good = (L.topic("p1", "t1", "event"), L.dumps({"table": "t1", "boot": "b", "seq": 2, "type": "event",
                                                    "event_seq": 1, "kind": "button", "record": {}}))
    assert store.ingest([poison, good]) == (1, 0)
    c = store.reader()
    assert [r[0] for r in c.execute("SELECT seq FROM messages")] == [2]
    c.close()


def test_machine_statistics_build_cycle_and_faults_per_day(tmp_path):
    from controller.parlour import views
    store = ParlourStore(tmp_path)
    day = 1_780_000_000.0                       # a fixed UTC day
    events = [(1, "mcu.lift_done", day), (2, "mcu.stack_ready", day + 58.0), (3, "mcu.lift_done", day + 600.0),
              (4, "mcu.stack_ready", day + 662.0), (5, "mcu.fault", day + 700.0), (6, "mcu.fault", day + 86400.0)]
    batch = []
    for seq, kind, t in events:
        kind_topic = "fault" if kind == "mcu.fault" else "event"
        record = {"kind": kind, "now": t, **({"code": "lift_jam", "detail": "wall 2"} if kind == "mcu.fault" else {})}
        batch.append((L.topic("p1", "t9", kind_topic), L.dumps({"table": "t9", "boot": "b", "seq": seq,
                      "type": kind_topic, "event_seq": seq, "kind": kind, "t_wall": t, "record": record})))
    store.ingest(batch + batch[:2])                                         # copies change nothing
    c = store.reader()
    stats = views.stats(c)["t9"]
    history = views.table_history(c, "t9")
    c.close()
    assert stats["build_cycle_s"] == 60.0 and stats["build_cycles"] == 2
    assert sorted(stats["faults_per_day"].values()) == [1, 1] and len(stats["faults_per_day"]) == 2
    assert [f["code"] for f in history["faults"]] == ["lift_jam", "lift_jam"]
