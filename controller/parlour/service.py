"""``tablectl parlour``: the counter's service (broker session, parlour store, board).

Configuration: ``--config parlour.toml`` (sections ``[parlour]``, ``[broker]``, ``[board]``;
unknown keys refused) and options that override it::

    tablectl parlour --broker 127.0.0.1:1883 --parlour p1 --data var/parlour --port 8090 \\
        [--username parlour --password-file FILE] [--tls --ca-file ca.crt] [--fees fees.toml] [--token T]

The counter token: ``[board] token``, ``$JANTAKU_COUNTER_TOKEN``, or the file ``counter_token``
made once in the data folder. Prints ``board: URL`` when it serves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import sys
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.config import ConfigError, _Section, _topic_level

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParlourConfig:
    name: str = "parlour"
    data_dir: str = "var/parlour"
    fees: str = ""
    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password: str = ""
    password_file: str = ""
    tls: bool = False
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    keepalive_s: int = 30
    client_id: str = ""
    board_host: str = "127.0.0.1"
    board_port: int = 8090
    token: str = ""


def parse(raw: dict[str, Any], origin: str = "<parlour>") -> ParlourConfig:
    for key in raw:
        if key not in ("parlour", "broker", "board"):
            raise ConfigError(f"{origin}: unknown section [{key}] (known: parlour, broker, board)")
    p, b, w = (_Section(n, raw.get(n, {}), origin) for n in ("parlour", "broker", "board"))
    cfg = ParlourConfig(
        name=_topic_level(p, "name", "parlour"), data_dir=p.str("data_dir", "var/parlour"), fees=p.str("fees", ""),
        host=b.str("host", "127.0.0.1"), port=b.int("port", 1883, minval=1, maxval=65535),
        username=b.str("username", ""), password=b.str("password", ""), password_file=b.str("password_file", ""),
        tls=b.bool("tls", False), ca_file=b.str("ca_file", ""), cert_file=b.str("cert_file", ""),
        key_file=b.str("key_file", ""), keepalive_s=b.int("keepalive_s", 30, minval=1, maxval=3600),
        client_id=b.str("client_id", ""),
        board_host=w.str("host", "127.0.0.1"), board_port=w.int("port", 8090, minval=0, maxval=65535),
        token=w.str("token", ""))
    for s in (p, b, w):
        s.check_unused()
    return cfg


class Parlour:
    """The service's parts, for the CLI and the tests: ``start()`` / ``stop()``."""

    def __init__(self, cfg: ParlourConfig, env: dict[str, str] | None = None) -> None:
        from controller import mqtt_link as L
        from controller.parlour import fees as F
        from controller.parlour.counter import Counter
        from controller.parlour.ingest import Ingest
        from controller.parlour.records import RecordsWorker
        from controller.parlour.store import ParlourStore
        env = dict(os.environ) if env is None else env
        self.cfg = cfg
        self.store = ParlourStore(cfg.data_dir)
        self.counter = Counter(self.store, F.load(cfg.fees or None))
        self.token = cfg.token or env.get("JANTAKU_COUNTER_TOKEN") or self._token_file()
        self.ingest = Ingest(self.store, parlour=cfg.name, host=cfg.host, port=cfg.port,
                             client_id=cfg.client_id or f"jantaku-parlour-{cfg.name}", username=cfg.username,
                             password=L.password_of(cfg.password, cfg.password_file, env), tls=cfg.tls,
                             ca_file=cfg.ca_file, cert_file=cfg.cert_file, key_file=cfg.key_file,
                             keepalive_s=cfg.keepalive_s)
        self.records = RecordsWorker(self.store)

    def _token_file(self) -> str:
        path = Path(self.cfg.data_dir) / "counter_token"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(18) + "\n")
            path.chmod(0o600)
        return path.read_text().strip()

    def status(self) -> dict[str, Any]:
        return {"connected": self.ingest.connected.is_set(), "error": self.ingest.error,
                "stored": self.store.stored, "duplicates": self.store.duplicates}

    def app(self):
        from controller.parlour.board import create_app
        return create_app(self.store, self.counter, parlour=self.cfg.name, token=self.token, status=self.status)

    def start(self) -> None:
        self.ingest.start()
        self.records.start()

    def stop(self) -> None:
        self.ingest.stop()
        self.records.stop()
        self.store.close()


async def serve(parlour: Parlour, sock: socket.socket, stop: asyncio.Event) -> None:
    import uvicorn

    from controller.panel.server import _Server
    server = _Server(uvicorn.Config(parlour.app(), log_level="warning", lifespan="off", access_log=False,
                                    timeout_graceful_shutdown=2))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    await stop.wait()
    server.should_exit = True
    await asyncio.wait_for(task, timeout=10)


def _options(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="tablectl parlour", description="the parlour's counter service and board")
    ap.add_argument("--config", help="parlour.toml ([parlour], [broker], [board])")
    ap.add_argument("--broker", help="HOST:PORT of the MQTT broker")
    ap.add_argument("--parlour", help="the parlour's topic level (jantaku/<parlour>/...)")
    ap.add_argument("--data", help="data folder (parlour.sqlite)")
    ap.add_argument("--port", type=int, help="the board's port (0 = a free one)")
    ap.add_argument("--host", help="the board's address")
    ap.add_argument("--username")
    ap.add_argument("--password-file")
    ap.add_argument("--tls", action="store_true", default=None)
    ap.add_argument("--ca-file")
    ap.add_argument("--fees", help="fee rules (default: controller/parlour/fees.toml)")
    ap.add_argument("--token", help="the counter token")
    return ap.parse_args(argv)


def config_of(args: argparse.Namespace) -> ParlourConfig:
    cfg = ParlourConfig()
    if args.config:
        try:
            with open(args.config, "rb") as fh:
                cfg = parse(tomllib.load(fh), args.config)
        except FileNotFoundError as err:
            raise ConfigError(f"config file {args.config} does not exist") from err
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"config file {args.config}: not valid TOML: {err}") from err
    changes: dict[str, Any] = {}
    if args.broker:
        host, _, port = args.broker.rpartition(":")
        if not host or not port.isdigit():
            raise ConfigError(f"--broker {args.broker!r}: give HOST:PORT")
        changes.update(host=host, port=int(port))
    for opt, key in (("parlour", "name"), ("data", "data_dir"), ("port", "board_port"), ("host", "board_host"),
                     ("username", "username"), ("password_file", "password_file"), ("tls", "tls"),
                     ("ca_file", "ca_file"), ("fees", "fees"), ("token", "token")):
        value = getattr(args, opt)
        if value is not None:
            changes[key] = value
    return replace(cfg, **changes)


def main(command: str, argv: list[str]) -> int:
    from controller.daemon_sys import setup_logging
    from controller.panel.server import bind
    from controller.parlour.store import ParlourError
    args = _options(argv)
    try:
        cfg = config_of(args)
        setup_logging("INFO", "logfmt")
        parlour = Parlour(cfg)
        sock = bind(cfg.board_host, cfg.board_port, fallback=False)
    except (ConfigError, ParlourError, OSError) as err:
        print(f"tablectl parlour: {err}", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    print(f"board: http://{host}:{port}/", flush=True)
    log.info("parlour %s: broker %s:%d, data %s", cfg.name, cfg.host, cfg.port, cfg.data_dir)
    parlour.start()

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        await serve(parlour, sock, stop)
    try:
        asyncio.run(run())
    finally:
        parlour.stop()
    return 0
