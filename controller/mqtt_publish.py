"""The table's publisher to the parlour's broker (``[mqtt]``, off by default).

The daemon's loop only hands things over (``committed``, ``state``, ``evidence``: a queue
put, never a wait); everything else happens in the publisher's own thread and paho's network
thread, so a broker that is down or slow never holds the table back.

The publisher's thread

1. takes the committed events in the log's order, without gaps (a missing one, e.g. after a
   crash between the event's commit and the outbox, is read back from ``events.sqlite``), and
   writes each as a message to the durable outbox (``controller.outbox``) with the next
   ``(boot, seq)``;
2. while connected, sends the outbox's rows oldest first at QoS 1, at most ``window`` in
   flight, and drops a row when the broker acknowledges it; on reconnect paho sends the
   unacknowledged ones again first, in order (the receiver drops copies by ``(table, boot, seq)``);
3. sends the newest public state, retained, at most once per ``state_interval_s`` and again
   after each reconnect.

The Last Will (retained ``online: false``) tells the parlour when the table goes silent past
1.5 keep-alives. The chain head ``(event_seq, hash)`` of the event log travels with each event.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import queue
import sqlite3
import threading
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any

from controller import mqtt_link as L
from controller.config import Config, MqttConfig
from controller.outbox import Outbox, OutboxError

log = logging.getLogger(__name__)

EVIDENCE_BACKLOG_MAX = 5000       # past this many waiting messages, alert pictures are not queued


class MqttPublisher:
    """One table's link to the parlour. ``start()``, hand things over, ``stop()``."""

    def __init__(self, cfg: MqttConfig, table: str, folder: str | Path, *, events_db: str | Path | None = None,
                 client_id: str | None = None, env: dict[str, str] | None = None) -> None:
        self.cfg, self.table = cfg, table
        self.folder = Path(folder)
        self.events_db = Path(events_db) if events_db is not None else self.folder / "events.sqlite"
        self.client_id = client_id or cfg.client_id or L.client_id(table, L.board_serial())
        self.boot = uuid.uuid4().hex[:12]
        self.seq = 0
        self._env = dict(os.environ) if env is None else env
        self._in: queue.SimpleQueue[tuple] = queue.SimpleQueue()
        self._acks: deque[int] = deque()
        self._early: set[int] = set()             # acks that came before their mid was noted
        self._wait_s = 0.2
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._inflight: dict[int, int] = {}       # paho mid -> outbox row id
        self._handed = 0                          # the last outbox row handed to paho
        self._connected = threading.Event()
        self._state_msg: tuple[int, str] | None = None
        self._milestone: tuple | None = None
        self._state_sent = -1
        self._state_at = 0.0
        self._thread: threading.Thread | None = None
        self._client: Any = None
        self._outbox: Outbox | None = None
        self.last_event_seq = 0
        self.sent = 0
        self.error = ""

    # -- the daemon's side (its loop thread): hand over, never wait ----------------------------

    def committed(self, event_seq: int, t_wall: float, kind: str, record: dict[str, Any], head_hash: str) -> None:
        self._in.put(("event", event_seq, t_wall, kind, record, head_hash))
        self._wake.set()

    def state(self, version: int, message: str, view: dict[str, Any] | None = None) -> None:
        """The panel's newest state message (a JSON text, ``controller.panel.hub``) and its view.

        States are coalesced (the newest goes out, retained), except the milestones: a hand
        ended or the game finished or a new alert. Those go through the outbox as well, in
        order with the events, so the parlour counts every hand and game.
        """
        self._state_msg = (version, message)
        if view is not None:
            key = (view.get("finished"), len(view.get("hands") or ()), len(view.get("alerts") or ()),
                   (view.get("machine") or {}).get("state"),
                   tuple(view.get("players") or ()) or tuple(s.get("name", "") for s in view.get("seats") or ()))
            if key != self._milestone:
                self._milestone = key
                self._in.put(("milestone", version, message))
        self._wake.set()

    def evidence(self, alert_seq: int, path: str | Path) -> None:
        if self.cfg.evidence:
            self._in.put(("evidence", alert_seq, str(path)))
            self._wake.set()

    # -- running ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Open the outbox and note where the log stands, then publish from the publisher's thread.

        Called before the daemon commits anything new: a new outbox starts at the log's head
        (the parlour gets the events from now on), an existing one where it stopped.
        """
        try:
            self._outbox = Outbox(self.folder)
            last = self._outbox.last_event_seq
            if last is None:
                last = self._log_head()
                self._outbox.add([], last_event_seq=last)
            self.last_event_seq = last
        except OutboxError as err:
            self.error = str(err)
            log.error("mqtt: %s; the parlour gets nothing from this table", err)
            return
        self._thread = threading.Thread(target=self._run, name="mqtt-publish", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    @property
    def is_connected(self) -> bool:
        return self._connected.is_set()

    def status(self) -> dict[str, Any]:
        return {"connected": self.is_connected, "client_id": self.client_id, "boot": self.boot,
                "sent": self.sent, "in_flight": len(self._inflight), "error": self.error}

    def _topic(self, kind: str) -> str:
        return L.topic(self.cfg.parlour, self.table, kind)

    def _run(self) -> None:
        outbox = self._outbox
        try:
            self._handed = 0
            self._client = self._connect()
            while not self._stop.is_set():
                self._wake.wait(self._wait_s)
                self._wake.clear()
                self._wait_s = 0.2
                try:
                    self._take_in(outbox)
                    self._ack(outbox)
                    self._send(outbox)
                except (OutboxError, sqlite3.Error, OSError, ValueError, TypeError) as err:
                    # never die quietly: say so, wait a little, try again (the rows are kept)
                    self.error = f"{type(err).__name__}: {err}"
                    log.exception("mqtt: publishing failed; trying again")
                    self._stop.wait(1.0)
            self._take_in(outbox)
            self._send(outbox)
            self._goodbye()
        except OutboxError as err:
            self.error = str(err)
            log.error("mqtt: %s; publishing stopped", err)
        finally:
            if self._client is not None:
                self._client.loop_stop()
            outbox.close()

    def _connect(self):
        cfg = self.cfg
        client = L.make_client(self.client_id, username=cfg.username,
                               password=L.password_of(cfg.password, cfg.password_file, self._env),
                               tls=cfg.tls, ca_file=cfg.ca_file, cert_file=cfg.cert_file, key_file=cfg.key_file)
        client.will_set(self._topic("online"), L.dumps({"table": self.table, "boot": self.boot, "online": False}),
                        qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.connect_async(cfg.host, cfg.port, keepalive=cfg.keepalive_s)
        client.loop_start()
        return client

    # paho's network thread --------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self.error = f"broker {self.cfg.host}:{self.cfg.port} refused the connection: {reason_code}"
            log.warning("mqtt: %s", self.error)
            return
        self.error = ""
        client.publish(self._topic("online"), L.dumps({"table": self.table, "boot": self.boot, "online": True,
                                                       "t_wall": time.time(), "client_id": self.client_id}),
                       qos=1, retain=True)
        self._state_sent = -1                    # the retained state again, at once
        self._state_at = 0.0
        self._connected.set()
        log.info("mqtt: connected to %s:%d as %s", self.cfg.host, self.cfg.port, self.client_id)
        self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if self._connected.is_set():
            log.warning("mqtt: lost the broker %s:%d (%s); the outbox keeps what comes meanwhile",
                        self.cfg.host, self.cfg.port, reason_code)
        self._connected.clear()

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self._acks.append(mid)
        self._wake.set()

    # the publisher's thread -------------------------------------------------------------------

    def _log_head(self) -> int:
        if not self.events_db.exists():
            return 0
        try:
            with _read_only(self.events_db) as conn:
                row = conn.execute("SELECT MAX(seq) FROM events").fetchone()
        except sqlite3.Error as err:
            log.warning("mqtt: the event log %s cannot be read (%s); publishing from the next event", self.events_db, err)
            return 0
        return int(row[0] or 0)

    def _from_log(self, after: int, upto: int) -> list[tuple]:
        """Events ``after < seq <= upto`` read back from the event log."""
        try:
            with _read_only(self.events_db) as conn:
                rows = conn.execute("SELECT seq, t_wall, kind, payload, hash FROM events WHERE seq > ? AND seq <= ? "
                                    "ORDER BY seq", (after, upto)).fetchall()
        except sqlite3.Error as err:
            log.warning("mqtt: events %d..%d cannot be read back from %s (%s); the parlour misses them",
                        after + 1, upto, self.events_db, err)
            return []
        return [("event", s, t, k, json.loads(p), h) for s, t, k, p, h in rows]

    def _message(self, kind: str, body: dict[str, Any]) -> tuple[str, bytes, bool]:
        self.seq += 1
        msg = {"table": self.table, "boot": self.boot, "seq": self.seq, "type": kind, "t_pub": time.time(), **body}
        return self._topic(kind), L.dumps(msg), False

    def _take_in(self, outbox: Outbox) -> None:
        items: list[tuple] = []
        while True:
            try:
                items.append(self._in.get_nowait())
            except queue.Empty:
                break
        if not items:
            return
        rows: list[tuple[str, bytes, bool]] = []
        last = self.last_event_seq
        for item in items:
            if item[0] == "evidence":
                rows.extend(self._evidence_row(item[1], item[2]))
                continue
            if item[0] == "milestone":
                row = self._state_row(item[1], item[2], is_milestone=True)
                if row is not None:
                    rows.append(row)
                continue
            _, seq, t_wall, kind, record, head = item
            if seq <= last:
                continue                          # already taken (from the log on start)
            if seq > last + 1:
                for missed in self._from_log(last, seq - 1):
                    rows.append(self._event_row(*missed[1:]))
            rows.append(self._event_row(seq, t_wall, kind, record, head))
            last = seq
        outbox.add(rows, last_event_seq=last)
        self.last_event_seq = last

    def _event_row(self, seq: int, t_wall: float, kind: str, record: dict[str, Any], head: str):
        kind_topic = "alert" if kind == "alert" else "fault" if kind in L.FAULT_KINDS else "event"
        return self._message(kind_topic, {"event_seq": seq, "t_wall": t_wall, "kind": kind, "record": record,
                                          "head": {"seq": seq, "hash": head}})

    def _evidence_row(self, alert_seq: int, path: str) -> list[tuple[str, bytes, bool]]:
        file = Path(path) if Path(path).is_absolute() else self.folder / "evidence" / path
        if self._outbox is not None and self._outbox.pending() > EVIDENCE_BACKLOG_MAX:
            # a long outage: keep the outbox to events (the picture stays in the table's evidence/)
            log.warning("mqtt: %d messages wait for the broker; the evidence of alert %d is not queued",
                        self._outbox.pending(), alert_seq)
            return []
        try:
            jpeg = file.read_bytes()
        except OSError as err:
            log.warning("mqtt: evidence of alert %d not sent: %s", alert_seq, err)
            return []
        return [self._message("evidence", {"alert_seq": alert_seq, "name": file.name,
                                           "jpeg": base64.b64encode(jpeg).decode("ascii")})]

    def _ack(self, outbox: Outbox) -> None:
        done = []
        while self._acks:
            self._early.add(self._acks.popleft())
        for mid in list(self._early):
            row_id = self._inflight.pop(mid, None)
            if row_id is not None:
                done.append(row_id)
                self._early.discard(mid)
        outbox.done(done)
        self.sent += len(done)

    def _send(self, outbox: Outbox) -> None:
        if not self._connected.is_set() or self._client is None:
            return
        room = self.cfg.window - len(self._inflight)
        if room > 0:
            for row in outbox.after(self._handed, room):
                info = self._client.publish(row.topic, row.payload, qos=1, retain=row.is_retained)
                self._inflight[info.mid] = row.id
                self._handed = row.id
        self._send_state()

    def _send_state(self) -> None:
        msg = self._state_msg
        now = time.monotonic()
        if msg is None or msg[0] == self._state_sent or now - self._state_at < self.cfg.state_interval_s:
            if msg is not None and msg[0] != self._state_sent:   # not yet: look again when due
                self._wait_s = max(0.01, min(self._wait_s, self.cfg.state_interval_s - (now - self._state_at)))
            return
        row = self._state_row(*msg, is_milestone=False)
        if row is not None:
            self._client.publish(row[0], row[1], qos=1, retain=True)
        self._state_sent, self._state_at = msg[0], now

    def _state_row(self, version: int, text: str, *, is_milestone: bool) -> tuple[str, bytes, bool] | None:
        try:
            panel = json.loads(text)
        except ValueError:
            return None
        if is_milestone:
            self.seq += 1
        body = {"table": self.table, "boot": self.boot, "seq": self.seq, "type": "state", "version": version,
                "is_milestone": is_milestone, "event_seq": panel.get("seq"), "t_pub": time.time(),
                "state": panel.get("state", {})}
        return self._topic("state"), L.dumps(body), True

    def _goodbye(self) -> None:
        """A clean stop: say offline (the Last Will is for an unclean one) and let paho send it."""
        if self._client is None or not self._connected.is_set():
            return
        deadline = time.monotonic() + 2.0
        while self._inflight and time.monotonic() < deadline:
            time.sleep(0.02)
        info = self._client.publish(self._topic("online"), L.dumps(
            {"table": self.table, "boot": self.boot, "online": False, "t_wall": time.time()}), qos=1, retain=True)
        try:
            info.wait_for_publish(timeout=2.0)
        except (RuntimeError, ValueError):
            pass
        self._client.disconnect()


class _read_only:
    """A read-only connection to the event log (the daemon owns the writing one)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> sqlite3.Connection:
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5.0)
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def start(cfg: Config, folder: Path, hub: Any = None) -> MqttPublisher | None:
    """The daemon's publisher when ``[mqtt] enabled``, started (with the panel hub's state); else None."""
    if not cfg.mqtt.enabled:
        return None
    publisher = MqttPublisher(cfg.mqtt, cfg.table.name, folder)
    if hub is not None and hub.version:           # the state the daemon last published
        publisher.state(hub.version, hub.message, hub.state)
    publisher.start()
    log.info("mqtt: publishing to %s:%d as %s (topics %s)", cfg.mqtt.host, cfg.mqtt.port, publisher.client_id,
             L.topic(cfg.mqtt.parlour, cfg.table.name, "#"))
    return publisher
