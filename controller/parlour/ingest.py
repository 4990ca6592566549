"""The parlour's receiver: one persistent MQTT session, messages committed before they are acknowledged.

The session is persistent (``clean_session = false`` and a fixed client id): while the
parlour service is down, the broker keeps its QoS 1 messages and delivers them when it is
back. paho's network thread only queues what arrives; the writer thread commits each batch
to the parlour store (``ParlourStore.ingest``) and then acknowledges the batch's messages
(``manual_ack``), so a message the broker was told about is on disk.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import time
from typing import Any

from controller import mqtt_link as L
from controller.parlour.store import ParlourStore

log = logging.getLogger(__name__)


class Ingest:
    """Subscribe to ``jantaku/<parlour>/+/+`` and feed the store."""

    def __init__(self, store: ParlourStore, *, parlour: str, host: str, port: int, client_id: str,
                 username: str = "", password: str = "", tls: bool = False, ca_file: str = "",
                 cert_file: str = "", key_file: str = "", keepalive_s: int = 30, batch_max: int = 500) -> None:
        self.store, self.parlour = store, parlour
        self.host, self.port, self.keepalive_s = host, port, keepalive_s
        self.batch_max = batch_max
        self._q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._stop = threading.Event()
        self.connected = threading.Event()
        self.error = ""
        self._sub_mid = -1
        self.client = L.make_client(client_id, username=username, password=password, tls=tls, ca_file=ca_file,
                                    cert_file=cert_file, key_file=key_file, clean_session=False, manual_ack=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self._writer = threading.Thread(target=self._write_loop, name="parlour-ingest", daemon=True)

    def start(self) -> None:
        self._writer.start()
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive_s)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
        self._stop.set()
        self._q.put(None)
        self._writer.join(10)

    # paho's network thread
    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self.error = f"broker {self.host}:{self.port} refused the parlour: {reason_code}"
            log.warning("parlour: %s", self.error)
            return
        self.error = ""
        # connected counts from the broker's SUBACK, not from CONNACK: a broker stopped between the
        # two may never have taken the subscription into the persistent session, and what tables
        # publish before the parlour subscribes again goes to nobody (CI: a test that stopped the
        # broker the moment the parlour was "connected" lost the 50 events it then waited for)
        self._sub_mid = client.subscribe(L.topic(self.parlour, "+", "+"), qos=1)[1]
        log.info("parlour: connected to %s:%d (session present: %s)", self.host, self.port,
                 getattr(flags, "session_present", "?"))

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties=None) -> None:
        if mid != self._sub_mid:
            return
        refused = [rc for rc in reason_codes if rc.is_failure]
        if refused:
            self.error = (f"broker {self.host}:{self.port} refused the parlour's subscription to "
                          f"{L.topic(self.parlour, '+', '+')}: {refused[0]} (check its ACL)")
            log.warning("parlour: %s", self.error)
            return
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if self.connected.is_set():
            log.warning("parlour: lost the broker %s:%d (%s)", self.host, self.port, reason_code)
        self.connected.clear()

    def _on_message(self, client, userdata, message) -> None:
        self._q.put((message.topic, bytes(message.payload), message.mid, message.qos, time.time()))

    # the writer thread
    def _write_loop(self) -> None:
        while not self._stop.is_set():
            item = self._q.get()
            if item is None:
                break
            batch = [item]
            while len(batch) < self.batch_max:
                try:
                    more = self._q.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._stop.set()
                    break
                batch.append(more)
            try:
                self.store.ingest([(t, p) for t, p, _, _, _ in batch])
            except sqlite3.Error:                  # a store that fails: acknowledge nothing, say so
                log.exception("parlour: batch of %d not stored; not acknowledged", len(batch))
                continue
            for _, _, mid, qos, _ in batch:
                if qos > 0:
                    self.client.ack(mid, qos)
