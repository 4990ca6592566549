"""What the table and the parlour share about the MQTT link: topics, messages, the client set-up.

Topics (``hardware/MQTT.md``): ``jantaku/<parlour>/<table>/<type>`` with ``type`` one of

- ``state``    retained, QoS 1: the table's public state (``GET /api/state``), newest only;
- ``event``    QoS 1: each committed event of the table's log (``record``: ``controller.events``);
- ``alert``    QoS 1: an integrity alert (an event of kind ``alert``);
- ``fault``    QoS 1: a machine fault (``mcu.fault``, ``mcu.link_lost``, the emergency stop);
- ``evidence`` QoS 1: an alert's evidence picture (JPEG, base64);
- ``online``   retained, QoS 1: ``{"online": true|false}``; the Last Will sets it false.

Every message is one JSON object with ``table``, ``boot`` (a new id each start of the
daemon), ``seq`` (counting from 1 within a boot) and ``type``; the receiver keeps one copy per
``(table, boot, seq)``.
"""

from __future__ import annotations

import json
import logging
import ssl
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PREFIX = "jantaku"
TYPES = ("state", "event", "alert", "fault", "evidence", "online")
FAULT_KINDS = ("mcu.fault", "mcu.link_lost", "estop")


def topic(parlour: str, table: str, kind: str) -> str:
    return f"{PREFIX}/{parlour}/{table}/{kind}"


def parse_topic(name: str) -> tuple[str, str, str] | None:
    """(parlour, table, type) of one of our topics, else None."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != PREFIX or parts[3] not in TYPES:
        return None
    return parts[1], parts[2], parts[3]


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def board_serial(root: Path = Path("/")) -> str:
    """The board's serial number (Raspberry Pi: /proc/cpuinfo ``Serial`` or the device tree), else
    the machine id. The machine id is copied with a cloned SD card; the board's serial is not."""
    try:
        for line in (root / "proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "serial" and value.strip().strip("0"):
                return value.strip().lower()
    except OSError:
        pass
    for path in ("sys/firmware/devicetree/base/serial-number", "etc/machine-id", "var/lib/dbus/machine-id"):
        try:
            value = (root / path).read_text(errors="replace").strip("\x00 \n").lower()
        except OSError:
            continue
        if value:
            if "machine-id" in path:
                log.warning("mqtt: no board serial number; the client id uses the machine id "
                            "(give each cloned SD card its own: [mqtt] client_id)")
            return value
    return "unknown"


def client_id(table: str, serial: str) -> str:
    """``jantaku-<table>-<serial>``: stable for a board, different on every board."""
    clean = "".join(c for c in serial if c.isalnum())[-16:] or "unknown"
    return f"jantaku-{table}-{clean}"


def password_of(password: str, password_file: str, env: dict[str, str]) -> str:
    if password_file:
        return Path(password_file).read_text().strip()
    return password or env.get("JANTAKU_MQTT_PASSWORD", "")


def make_client(client_id_: str, *, username: str = "", password: str = "", tls: bool = False,
                ca_file: str = "", cert_file: str = "", key_file: str = "", clean_session: bool = True,
                manual_ack: bool = False, protocol: str = "3.1.1"):
    """A paho client with the login and TLS set (not connected)."""
    import paho.mqtt.client as mqtt
    proto = mqtt.MQTTv5 if protocol == "5" else mqtt.MQTTv311
    kwargs: dict[str, Any] = {"callback_api_version": mqtt.CallbackAPIVersion.VERSION2,
                              "client_id": client_id_, "protocol": proto, "manual_ack": manual_ack}
    if proto != mqtt.MQTTv5:
        kwargs["clean_session"] = clean_session
    client = mqtt.Client(**kwargs)
    if username:
        client.username_pw_set(username, password or None)
    if tls:
        client.tls_set(ca_certs=ca_file or None, certfile=cert_file or None, keyfile=key_file or None,
                       cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.reconnect_delay_set(min_delay=1, max_delay=8)
    return client
