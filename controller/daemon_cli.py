"""``tablectl run | demo | verify-log | export``: the daemon's command line.

    tablectl run [--config FILE] [--data DIR] [--host H] [--port N]
    tablectl demo --script FILE [--speed N|max] [--port PORT] [--inject RULE@HAND[:SEAT]] ...
    tablectl verify-log [--config FILE] [--data DIR]
    tablectl export [--config FILE] [--data DIR] [--out FILE]

``run`` prints the panel's address on stdout once it listens and keeps running until
SIGTERM/SIGINT. Exit status: 0 stopped cleanly; 1 a failure while running; 2 refused to
start (bad config, a data folder that is read-only or cannot be made, a database that is
corrupt, truncated, whose chain is broken or whose tail is lost): always one line on stderr,
never a traceback.

``verify-log`` reads the log (read-only, in place or from a private copy): exit 0 when the
chain holds and the log reaches its head anchor, 1 when a row is bad (named) or the tail is
lost, 2 when there is no log to read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

from controller import config as config_mod
from controller.bodies import BodyError, parse_json
from controller.config import Config, ConfigError, TableError
from controller.storage import ChainBroken, EventStore, StorageError

log = logging.getLogger("controller.daemon")

# contracts/table-api.md "Injected faults", then the tracker's other alert rules the simulator can
# commit too (hardware.sim.script.INJECTABLE_RULES)
INJECT_RULES = ("missing_tile", "fifth_tile", "wrong_red", "other_back", "taken_back", "extra_draw",
                "out_of_turn", "wrong_hand_size", "moved_indicator",
                "stack_count", "set_mismatch", "kuikae", "last_discard_call", "furiten_ron")
_INJECT = re.compile(r"^([a-z_]+)@(\d+)(?::([0-3]))?$")


def parse_inject(text: str) -> dict:
    """``RULE@HAND[:SEAT]`` -> ``{"rule", "hand", "seat"}``; ArgumentTypeError naming what is wrong."""
    match = _INJECT.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"--inject {text!r}: expected RULE@HAND[:SEAT], e.g. fifth_tile@2:1")
    rule, hand, seat = match.groups()
    if rule not in INJECT_RULES:
        raise argparse.ArgumentTypeError(f"--inject {text!r}: rule {rule!r} is not one of {', '.join(INJECT_RULES)}")
    return {"rule": rule, "hand": int(hand), "seat": None if seat is None else int(seat)}


def _speed(text: str) -> float:
    if text == "max":
        return 0.0
    try:
        value = float(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"--speed {text!r}: a number or 'max'") from err
    if value <= 0:
        raise argparse.ArgumentTypeError(f"--speed {text!r}: must be above 0 (or 'max')")
    return value


def _load(args: argparse.Namespace) -> Config:
    cfg = config_mod.load(args.config)
    changes: dict[str, dict] = {}
    if getattr(args, "data", None):
        changes["storage"] = {"data_dir": str(args.data)}
    panel: dict = {}
    if getattr(args, "host", None):
        panel["host"] = args.host
    if getattr(args, "port", None) is not None:
        panel["port"] = args.port
        panel["port_fallback"] = False
    if panel:
        changes["panel"] = panel
    return config_mod.replace(cfg, **changes) if changes else cfg


def staff_token(cfg: Config, folder: Path) -> tuple[str, str]:
    """The staff token and where it came from: config/env, or ``<data>/staff_token`` (made once, 0600)."""
    if cfg.panel.token:
        return cfg.panel.token, "config"
    path = folder / "staff_token"
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token, str(path)
    token = secrets.token_urlsafe(18)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token, str(path)


def _model_hash() -> str:
    """sha256 (first 16 hex) of the shipped tile model, or 'absent' (for the start banner)."""
    import hashlib
    path = Path(__file__).resolve().parent.parent / "vision" / "models" / "tiles.onnx"
    if not path.is_file():
        return "absent"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def serve(cfg: Config, *, injects: list[dict] | None = None, print_address: bool = True) -> int:
    """Open the store, build the parts, run the loop until stopped. Return the exit status."""
    from controller.daemon import Daemon, __version__
    from controller.daemon_parts import build_parts
    from controller.daemon_sys import SystemdNotifier, setup_logging

    setup_logging(cfg.log.level, cfg.log.format)
    folder = config_mod.data_dir(cfg)
    try:
        store = EventStore.open(folder, synchronous=cfg.storage.synchronous,
                                evidence_budget_mb=cfg.storage.evidence_budget_mb)
    except StorageError as err:
        return _refuse(err)
    try:
        token, token_from = staff_token(cfg, folder)
        cfg = config_mod.replace(cfg, panel={"token": token})
        log.info("jantaku daemon %s starting", __version__, extra={
            "config": cfg.source, "backend": cfg.table.backend, "table": cfg.table.name,
            "data": str(folder), "events": store.last_seq, "head": store.head_hash[:16],
            "staff_token": token_from, "firmware": cfg.firmware.port, "camera": cfg.camera.source,
            "gpio": cfg.gpio.pin_factory, "model": _model_hash()})
        parts = build_parts(cfg, store, injects=injects)
        daemon = Daemon(cfg, store, parts=parts, notifier=SystemdNotifier())

        def ready(d: Daemon) -> None:
            if print_address and d.panel_url:
                print(f"panel: {d.panel_url}", flush=True)
                print(f"staff: {d.panel_url}staff (token: {token_from})", flush=True)
            elif print_address:
                print("panel: off", flush=True)

        return asyncio.run(daemon.run(on_ready=ready))
    except (TableError, OSError) as err:
        # raised before the loop ran (a part that cannot be built, the log that cannot be
        # replayed, the token file that cannot be written): a refusal to start
        return _refuse(err)
    finally:
        store.close()


def _refuse(err: BaseException) -> int:
    """A failure to start: one line on stderr (and in the log), exit status 2."""
    text = " ".join(str(err).split()) or type(err).__name__
    log.error("refusing to start: %s", text)
    print(f"tablectl: {text}", file=sys.stderr)
    return 2


def _cmd_run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="tablectl run", description="run the table daemon")
    p.add_argument("--config", help="table.toml (default: the embedded simulated table)")
    p.add_argument("--data", help="data folder for the event store (overrides [storage] data_dir)")
    p.add_argument("--host", help="panel address to listen on")
    p.add_argument("--port", type=int, help="panel port (no fallback to a free one)")
    args = p.parse_args(argv)
    try:
        cfg = _load(args)
    except ConfigError as err:
        print(f"tablectl run: {err}", file=sys.stderr)
        return 2
    return serve(cfg)


def _cmd_demo(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="tablectl demo",
                                description="run the daemon with the simulated table playing a recorded game")
    p.add_argument("--script", required=True, help="a tenhou.net/6 JSON log, or a script the simulated players wrote")
    p.add_argument("--speed", type=_speed, default=1.0, help="time scale, or 'max'")
    p.add_argument("--port", type=int, help="panel port")
    p.add_argument("--inject", type=parse_inject, action="append", default=[], metavar="RULE@HAND[:SEAT]",
                   help="the simulated table commits fault RULE in hand HAND (0-based), by SEAT where given; "
                        f"RULE: {', '.join(INJECT_RULES)}")
    p.add_argument("--data", help="data folder (default: a fresh temporary one)")
    p.add_argument("--simulation", choices=("physical", "events"), default="physical",
                   help="physical (default): the simulated table's MCU on a pty, dice buttons on mock pins and "
                        "camera stream, met by the daemon's own firmware, GPIO and camera parts; events: its "
                        "events fed straight in")
    args = p.parse_args(argv)
    script = Path(args.script)
    try:
        log_json = parse_json(script.read_bytes(), max_bytes=64 * 1024 * 1024, max_depth=32, what="the script")
        is_played = isinstance(log_json, dict) and isinstance(log_json.get("hands"), list) \
            and isinstance(log_json.get("ruleset"), str)     # a script the simulated players wrote
        if not is_played and (not isinstance(log_json, dict) or not isinstance(log_json.get("log"), list)):
            raise ValueError('expected an object with a "log" list (tenhou.net/6), or a played script '
                             '(an object with "ruleset" and "hands")')
    except (OSError, ValueError, BodyError) as err:
        print(f"tablectl demo: --script {script}: {err}", file=sys.stderr)
        return 2
    data = args.data or tempfile.mkdtemp(prefix="jantaku-demo-")
    cfg = config_mod.load(None)
    panel = {"port": args.port, "port_fallback": False} if args.port is not None else {}
    cfg = config_mod.replace(cfg, table={"backend": "sim"}, storage={"data_dir": data},
                             game={"script": str(script.resolve()), "speed": args.speed, "loop": False,
                                   "simulation": args.simulation,
                                   **({"ruleset": log_json["ruleset"]} if is_played else {})},
                             **({"panel": panel} if panel else {}))
    return serve(cfg, injects=args.inject)


def _open_existing(argv: list[str], prog: str) -> tuple[argparse.Namespace, EventStore]:
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--config")
    p.add_argument("--data")
    if prog.endswith("export"):
        p.add_argument("--out", default="-", help="output file (default: stdout)")
    args = p.parse_args(argv)
    cfg = _load(args)
    store = EventStore.open(config_mod.data_dir(cfg), create=False, verify=False, read_only=True)
    return args, store


def _cmd_verify(argv: list[str]) -> int:
    from controller.storage_head import read_head
    try:
        _args, store = _open_existing(argv, "tablectl verify-log")
    except (TableError, ValueError, OSError) as err:
        print(f"tablectl verify-log: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    try:
        n = store.verify_chain()
        problem = store.schema_problem()
        if problem:
            print(f"BROKEN: {problem}")
            return 1
        lost = store.tail_problem()
        anchored = read_head(store.head_path)
    except ChainBroken as err:
        print(f"BROKEN: {err}")
        return 1
    finally:
        store.close()
    if lost:
        print(f"LOST TAIL: {lost} (the chain holds up to seq {n})")
        return 1
    anchor = (f"head anchor at seq {anchored.seq}" if anchored is not None
              else f"no head anchor ({store.head_path.name} absent: the tail cannot be checked)")
    print(f"ok: {n} events, chain intact, head {store.head_hash}, {anchor}")
    return 0


def _cmd_export(argv: list[str]) -> int:
    from controller.daemon_export import export_games
    try:
        args, store = _open_existing(argv, "tablectl export")
    except (TableError, ValueError) as err:
        print(f"tablectl export: {err}", file=sys.stderr)
        return 2
    try:
        games = export_games(store)
    finally:
        store.close()
    text = "\n".join(json.dumps(g, ensure_ascii=False) for g in games) + ("\n" if games else "")
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
    print(f"exported {len(games)} finished game(s)", file=sys.stderr)
    return 0


def main(command: str, argv: list[str]) -> int:
    handlers = {"run": _cmd_run, "demo": _cmd_demo, "verify-log": _cmd_verify, "export": _cmd_export}
    handler = handlers.get(command)
    if handler is None:
        print(f"tablectl: {command!r} is not a daemon command", file=sys.stderr)
        return 2
    return handler(argv)
