"""Tables and the parlour through a real Mosquitto on loopback: ACL, restarts, a dropped network."""

from __future__ import annotations

import contextlib
import socket
import threading
import time

from controller import mqtt_link as L
from tests.fixtures.mosquitto import Blackhole
from tests.parlour.conftest import PARLOUR, PASSWORDS, event, wait_for


def _events_of(parlour, table: str) -> list[int]:
    c = parlour.store.reader()
    try:
        return [r[0] for r in c.execute("SELECT event_seq FROM messages WHERE tbl=? AND type IN "
                                        "('event', 'alert', 'fault') ORDER BY event_seq", (table,))]
    finally:
        c.close()


def _v5_client(broker, user: str, password: str):
    client = L.make_client(f"acl-probe-{user}", username=user, password=password, protocol="5")
    result: dict = {}
    client.on_connect = lambda c, u, f, rc, p=None: result.setdefault("connack", rc)
    client.on_publish = lambda c, u, mid, rc, p=None: result.setdefault(mid, rc)
    client.connect("127.0.0.1", broker.port, keepalive=5)
    client.loop_start()
    return client, result


def test_a_table_may_publish_only_under_its_own_topic(broker, parlour):
    client, result = _v5_client(broker, "t1", PASSWORDS["t1"])
    try:
        wait_for(lambda: "connack" in result, what="CONNACK")
        assert not result["connack"].is_failure
        body = L.dumps({"table": "t2", "boot": "forged", "seq": 1, "type": "event", "event_seq": 1, "kind": "button",
                        "record": {}})
        forged = client.publish(L.topic(PARLOUR, "t2", "event"), body, qos=1)
        own = client.publish(L.topic(PARLOUR, "t1", "event"), L.dumps(
            {"table": "t1", "boot": "b", "seq": 1, "type": "event", "event_seq": 1, "kind": "button", "record": {}}),
            qos=1)
        wait_for(lambda: forged.mid in result and own.mid in result, what="both PUBACKs")
        assert result[forged.mid].getName() == "Not authorized"          # the ACL refused it (MQTT 5: 0x87)
        assert not result[own.mid].is_failure
        wait_for(lambda: _events_of(parlour, "t1") == [1], what="t1's own event on the board")
        assert _events_of(parlour, "t2") == []
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_wrong_password_is_refused(broker):
    client, result = _v5_client(broker, "t1", "not-the-password")
    try:
        wait_for(lambda: "connack" in result, what="CONNACK")
        assert result["connack"].is_failure
    finally:
        client.loop_stop()


class _HoldAfterConnack:
    """A loopback relay to the broker that passes the client's bytes and the broker's CONNACK (4
    bytes in MQTT 3.1.1) but holds whatever the broker sends after it until :meth:`release`."""

    def __init__(self, target_port: int) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.held = bytearray()
        self.released = False
        self.client: socket.socket | None = None
        self._lock = threading.Lock()
        self.target_port = target_port
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        client, _ = self.listener.accept()
        self.client = client
        upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
        threading.Thread(target=self._pump_up, args=(client, upstream), daemon=True).start()
        passed = 0
        while data := upstream.recv(65536):
            if passed < 4:
                head, data = data[:4 - passed], data[4 - passed:]
                client.sendall(head)
                passed += len(head)
            with self._lock:
                self.held += data
                if self.released:
                    self._flush()

    @staticmethod
    def _pump_up(client: socket.socket, upstream: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := client.recv(65536):
                upstream.sendall(data)

    def _flush(self) -> None:
        if self.held and self.client is not None:
            self.client.sendall(bytes(self.held))
            self.held.clear()

    def release(self) -> None:
        with self._lock:
            self.released = True
            self._flush()


def test_the_parlour_counts_itself_connected_only_once_the_broker_took_its_subscription(broker, tmp_path):
    """CI: a broker stopped the moment the parlour was "connected" (CONNACK) had not yet taken its
    subscription into the persistent session, and the 50 events tables published next went to
    nobody. Connected now counts from the SUBACK."""
    from controller.parlour.service import Parlour, ParlourConfig
    relay = _HoldAfterConnack(broker.port)
    p = Parlour(ParlourConfig(name=PARLOUR, data_dir=str(tmp_path / "parlour"), port=relay.port,
                              username="parlour", password=PASSWORDS["parlour"], keepalive_s=30, token="x"), env={})
    p.start()
    try:
        wait_for(lambda: len(relay.held) >= 5, what="the broker's SUBACK, held back by the relay")
        assert not p.ingest.connected.is_set()          # CONNACK alone: the session may not hold the subscription
        relay.release()
        wait_for(p.ingest.connected.is_set, what="connected once the SUBACK arrives")
    finally:
        p.stop()


def test_no_event_lost_or_doubled_while_the_broker_restarts_and_a_network_drops(broker, parlour, make_table):
    hole = Blackhole(broker.port)
    tables = {"t1": make_table("t1"), "t2": make_table("t2", port=hole.port), "t3": make_table("t3")}
    wait_for(lambda: all(p.is_connected for p in tables.values()), what="all tables connected")
    sent = {name: 0 for name in tables}
    stop = threading.Event()

    def feed() -> None:
        while not stop.is_set():
            for name, pub in tables.items():
                sent[name] += 1
                pub.committed(*event(sent[name]))
            time.sleep(0.02)
    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        wait_for(lambda: min(sent.values()) > 50, what="some events out")
        broker.restart(down_s=1.5)                                    # every table loses the broker
        wait_for(lambda: all(p.is_connected for p in tables.values()), what="tables back after the restart")
        n_before = sent["t2"]
        hole.drop()                                                   # t2's network goes silent
        wait_for(lambda: not tables["t2"].is_connected, what="t2 noticing its network is gone")
        wait_for(lambda: sent["t2"] > n_before + 100, what="t2 publishing into its outbox meanwhile")
        hole.restore()
        wait_for(lambda: tables["t2"].is_connected, what="t2 back")
        wait_for(lambda: min(sent.values()) > n_before + 200, what="more events")
    finally:
        stop.set()
        feeder.join()
    for name, n in sent.items():
        wait_for(lambda name=name, n=n: len(_events_of(parlour, name)) >= n, timeout_s=120,
                 what=f"all {n} events of {name} on the board")
        got = _events_of(parlour, name)
        assert got == list(range(1, n + 1)), f"{name}: lost or doubled events"
    hole.close()


def test_the_outbox_keeps_what_a_table_publishes_without_a_broker(broker, parlour, make_table, tmp_path):
    folder = tmp_path / "table-t4"
    broker.stop()
    first = make_table("t4", folder=folder)
    for seq in range(1, 41):
        first.committed(*event(seq))
    wait_for(lambda: first.last_event_seq == 40, what="the events in the outbox")
    first.stop()                                                        # the daemon stops, nothing was sent
    broker.start()
    second = make_table("t4", folder=folder)                           # the next start sends them, in order
    for seq in range(41, 51):
        second.committed(*event(seq))
    wait_for(lambda: len(_events_of(parlour, "t4")) >= 50, what="all 50 events")
    assert _events_of(parlour, "t4") == list(range(1, 51))
    c = parlour.store.reader()
    boots = [r[0] for r in c.execute("SELECT boot FROM messages WHERE tbl='t4' ORDER BY event_seq")]
    c.close()
    assert boots[0] == first.boot and boots[-1] == second.boot



def test_a_table_publishes_over_tls_with_the_parlours_ca(tmp_path, make_table):
    from controller.config import MqttConfig
    from controller.mqtt_publish import MqttPublisher
    from controller.parlour.service import Parlour, ParlourConfig
    from tests.fixtures.mosquitto import Mosquitto
    broker = Mosquitto(tmp_path / "tls-broker", users=PASSWORDS, parlour=PARLOUR, tls=True)
    broker.start()
    parlour = Parlour(ParlourConfig(name=PARLOUR, data_dir=str(tmp_path / "parlour"), port=broker.tls_port,
                                    username="parlour", password=PASSWORDS["parlour"], tls=True,
                                    ca_file=str(broker.ca_file), token="x"), env={})
    table = MqttPublisher(MqttConfig(enabled=True, port=broker.tls_port, parlour=PARLOUR, username="t3",
                                     password=PASSWORDS["t3"], tls=True, ca_file=str(broker.ca_file)),
                          "t3", tmp_path / "t3", client_id="jantaku-t3-tls", env={})
    try:
        parlour.start()
        wait_for(parlour.ingest.connected.is_set, what="the parlour over TLS")
        table.start()
        for seq in range(1, 6):
            table.committed(*event(seq))
        wait_for(lambda: _events_of(parlour, "t3") == [1, 2, 3, 4, 5], what="t3's events over TLS")
        assert f"on port {broker.tls_port}" in broker.log.read_text()         # the TLS listener, not a plain one
    finally:
        table.stop()
        parlour.stop()
        broker.stop()


def test_a_second_parlours_broker_bridged_to_the_first_brings_its_tables_to_its_board(tmp_path):
    from controller.config import MqttConfig
    from controller.mqtt_publish import MqttPublisher
    from controller.parlour.service import Parlour, ParlourConfig
    from tests.fixtures.mosquitto import Mosquitto, free_port
    # the first parlour's broker (p1) gives the bridge its login and write access to p2's topics only,
    # and its counter's login read access to them
    first = Mosquitto(tmp_path / "first", users={**PASSWORDS, "bridge-p2": "pw-bridge"}, parlour=PARLOUR,
                      acl_extra="\nuser bridge-p2\ntopic write jantaku/p2/#\n\nuser parlour\ntopic read jantaku/p2/#\n")
    first.start()
    second = Mosquitto(tmp_path / "second", users={"s1": "pw-s1"}, parlour="p2", port=free_port(), conf_extra=f"""
connection to-first
address 127.0.0.1:{first.port}
remote_username bridge-p2
remote_password pw-bridge
remote_clientid bridge-p2
cleansession false
bridge_protocol_version mqttv311
notifications false
topic jantaku/p2/# out 1
""")
    second.start()
    board = Parlour(ParlourConfig(name="p2", data_dir=str(tmp_path / "board"), port=first.port, username="parlour",
                                  password=PASSWORDS["parlour"], token="x"), env={})
    table = MqttPublisher(MqttConfig(enabled=True, port=second.port, parlour="p2", username="s1", password="pw-s1",
                                     state_interval_s=0.05), "s1", tmp_path / "s1", client_id="jantaku-s1-x", env={})
    try:
        board.start()
        wait_for(board.ingest.connected.is_set, what="the board's session at the first parlour")
        wait_for(lambda: "bridge-p2" in first.log.read_text(), what="the bridge connected")
        table.start()
        for seq in range(1, 21):
            table.committed(*event(seq))
        wait_for(lambda: _events_of(board, "s1") == list(range(1, 21)), what="the second parlour's events")
        c = board.store.reader()
        assert c.execute("SELECT online FROM tables WHERE tbl='s1'").fetchone()[0] == 1
        c.close()
    finally:
        table.stop()
        board.stop()
        second.stop()
        first.stop()
