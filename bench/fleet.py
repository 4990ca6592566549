"""Fleet benchmark: many simulated tables publishing to the parlour through a real Mosquitto.

    python bench/fleet.py --quick        # 200 tables, 12 s
    python bench/fleet.py [--tables N] [--seconds S] [--interval S]

Starts Mosquitto on a free loopback port (the test set-up: password file, per-table ACL,
persistence), the parlour service (``tablectl parlour``, its own process, as at the counter),
and N simulated tables: lightweight MQTT clients (paho, one login per table, QoS 1, the
messages a table sends: ``(table, boot, seq)``, the event, its publish time), all driven from
one thread, not N daemons. Each table sends one event every ``interval`` seconds (spread over
the interval). At the end the parlour's SQLite is read: the latency is publish (the table's
clock) to stored (the row inserted in the parlour's committing transaction), same machine.

Last line: ``fleet tables=N events=E lost=L duplicated=D p99_ms=X``.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PARLOUR = "fleet"


class SimTable:
    """One table's MQTT client, driven by ``Fleet`` (no thread of its own)."""

    def __init__(self, name: str, port: int) -> None:
        from controller import mqtt_link as L
        self.name, self.L = name, L
        self.client = L.make_client(f"jantaku-{name}-bench", username=name, password=f"pw-{name}")
        self.client.on_publish = self._on_publish
        self.client.on_connect = lambda c, u, f, rc, p=None: setattr(self, "is_connected", not rc.is_failure)
        self.is_connected = False
        self.seq = 0
        self.acked = 0
        self.boot = os.urandom(6).hex()
        self.client.connect("127.0.0.1", port, keepalive=30)

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self.acked += 1

    def publish(self) -> None:
        self.seq += 1
        body = {"table": self.name, "boot": self.boot, "seq": self.seq, "type": "event", "event_seq": self.seq,
                "kind": "vision.discard", "t_wall": time.time(), "t_pub": time.time(),
                "record": {"kind": "vision.discard", "now": float(self.seq), "seat": self.seq % 4, "tile": "5m",
                           "is_riichi": False}, "head": {"seq": self.seq, "hash": f"{self.seq:064x}"}}
        self.client.publish(self.L.topic(PARLOUR, self.name, "event"), self.L.dumps(body), qos=1)


class Fleet:
    """N SimTables over one selector: reads, writes and keep-alives for all of them."""

    def __init__(self, tables: list[SimTable]) -> None:
        self.tables = tables
        self.sel = selectors.DefaultSelector()
        for t in tables:
            self.sel.register(t.client.socket(), selectors.EVENT_READ, t)
        self._misc_at = 0.0

    def pump(self, timeout_s: float) -> None:
        for t in self.tables:
            if t.client.want_write():
                t.client.loop_write()
        for key, _ in self.sel.select(timeout_s):
            key.data.client.loop_read()
        now = time.monotonic()
        if now - self._misc_at > 1.0:
            self._misc_at = now
            for t in self.tables:
                t.client.loop_misc()

    def close(self) -> None:
        for t in self.tables:
            t.client.disconnect()
            t.client.loop_write()


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as c:
            return c.execute("SELECT COUNT(*) FROM messages WHERE type='event'").fetchone()[0]
    except sqlite3.Error:
        return 0


def run(n_tables: int, seconds: float, interval_s: float) -> str:
    from tests.fixtures.mosquitto import Mosquitto
    work = Path(tempfile.mkdtemp(prefix="jt-fleet-"))
    names = [f"t{i:03d}" for i in range(n_tables)]
    broker = Mosquitto(work / "broker", users={"parlour": "pw-parlour", **{n: f"pw-{n}" for n in names}},
                       parlour=PARLOUR)
    broker.start()
    (work / "parlour.pw").write_text("pw-parlour\n")
    data = work / "parlour"
    parlour = subprocess.Popen([sys.executable, "-m", "controller.cli", "parlour", "--broker", f"127.0.0.1:{broker.port}",
                                "--parlour", PARLOUR, "--data", str(data), "--port", "0", "--username", "parlour",
                                "--password-file", str(work / "parlour.pw"), "--token", "bench"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=open(work / "parlour.log", "w"), text=True)
    try:
        url = parlour.stdout.readline().split(" ", 1)[1].strip()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url + "api/board", timeout=30) as resp:
                if json.loads(resp.read())["link"]["connected"]:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError("the parlour did not connect to the broker")
        tables = [SimTable(n, broker.port) for n in names]
        fleet = Fleet(tables)
        deadline = time.monotonic() + 60
        while not all(t.is_connected for t in tables):
            fleet.pump(0.01)
            if time.monotonic() > deadline:
                raise RuntimeError("not every table connected")
        # each table publishes once per interval, the tables spread evenly over it
        t0 = time.monotonic()
        slot = interval_s / n_tables
        due = [t0 + i * slot for i in range(n_tables)]
        while time.monotonic() - t0 < seconds:
            now = time.monotonic()
            for i, t in enumerate(tables):
                if due[i] <= now:
                    t.publish()
                    due[i] += interval_s
            fleet.pump(min(0.005, slot))
        sent = sum(t.seq for t in tables)
        deadline = time.monotonic() + 60
        while (sum(t.acked for t in tables) < sent or _count(data / "parlour.sqlite") < sent) \
                and time.monotonic() < deadline:
            fleet.pump(0.05)
        fleet.close()
        with sqlite3.connect(f"file:{data / 'parlour.sqlite'}?mode=ro", uri=True, timeout=10) as c:
            rows = c.execute("SELECT tbl, event_seq, (t_stored - t_pub) * 1000 FROM messages WHERE type='event'").fetchall()
        keys = [(tbl, s) for tbl, s, _ in rows]
        expected = {(t.name, s) for t in tables for s in range(1, t.seq + 1)}
        lost = len(expected - set(keys))
        duplicated = len(keys) - len(set(keys))
        lat = sorted(ms for _, _, ms in rows)
        p50 = lat[len(lat) // 2] if lat else float("nan")
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan")
        rate = sent / seconds
        print(f"fleet: {n_tables} tables, {sent} events in {seconds:.0f} s ({rate:.0f}/s), p50 {p50:.1f} ms, "
              f"max {lat[-1] if lat else float('nan'):.1f} ms", flush=True)
        return (f"fleet tables={n_tables} events={sent} lost={lost} duplicated={duplicated} p99_ms={p99:.1f}")
    finally:
        parlour.terminate()
        try:
            parlour.wait(timeout=30)
        except subprocess.TimeoutExpired:
            parlour.kill()
        broker.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="200 tables for 12 s")
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between two events of one table (a table at play: about 1 a second)")
    args = ap.parse_args()
    if args.quick:
        args.tables, args.seconds = 200, 12.0
    print(run(args.tables, args.seconds, args.interval))
    return 0


if __name__ == "__main__":
    sys.exit(main())
