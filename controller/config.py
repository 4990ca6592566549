"""The table's one configuration file, read once at start into frozen dataclasses.

``hardware/table.toml`` is the embedded default (the simulated table). A file has one
section per part, named like its module (Klipper: ``[fan]`` loads ``extras/fan.py``); each
section is parsed with typed getters, defaults and bounds, and an unknown section or key
stops the start with its section and name (Klipper's ``ConfigValidate.check_unused``).
The raw TOML is dropped after parsing.

Environment overrides exist for development only: ``TABLE_BACKEND`` (``sim``/``serial``)
and ``JANTAKU_STAFF_TOKEN`` (the staff token, so it need not sit in a file).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.errors import TableError  # the one root of the table's errors

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "hardware" / "table.toml"

BACKENDS = ("sim", "serial")


class ConfigError(TableError, ValueError):
    """A configuration file that cannot be used; the message names the section and key."""


@dataclass(frozen=True)
class TableConfig:
    name: str = "t1"
    backend: str = "sim"


@dataclass(frozen=True)
class StorageConfig:
    data_dir: str = ""                 # "" = $STATE_DIRECTORY (systemd) or ./var/<table name>
    evidence_budget_mb: float = 200.0  # evidence frames (JPEG) are rotated past this; events never
    synchronous: str = "full"          # SQLite synchronous: "full" survives power loss


@dataclass(frozen=True)
class FirmwareConfig:
    port: str = "sim"                  # "sim" = start the simulated MCU on a pty; "off"; else a device path
    baudrate: int = 250000
    timeout_s: float = 2.0


@dataclass(frozen=True)
class GpioConfig:
    pin_factory: str = "mock"          # gpiozero pin factory: mock | lgpio | rpigpio | native
    pinmap: str = ""                   # file under hardware/pinmaps/ ("" = the part's default)


@dataclass(frozen=True)
class CameraConfig:
    source: str = "rendered"           # rendered (the simulated table's stream) | stream | v4l2 | file | off
    device: str = "/dev/video0"
    fps: float = 10.0
    calibration: str = ""              # calibration file ("" = none yet)
    tile_set: str = ""                 # tile set file from 'tablectl enrol' ("" = none), relative to the data folder


@dataclass(frozen=True)
class GameConfig:
    ruleset: str = "tenhou"
    script: str = ""                   # sim only: tenhou.net/6 log the players act out ("" sample, "off")
    speed: float = 1.0                 # sim only: time scale of the simulated players (0 = max)
    loop: bool = True                  # sim only: start the script again after the game ends
    feed: str = ""                     # sim only: JSONL of events played straight into the loop (tests)
    simulation: str = "events"         # sim only: events (perfect eyes) | physical (MCU pty, buttons, camera)


@dataclass(frozen=True)
class PanelConfig:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080
    port_fallback: bool = True         # take a free port when `port` is in use
    token: str = ""                    # staff token ("" = $JANTAKU_STAFF_TOKEN or <data_dir>/staff_token)
    max_failures: int = 5              # failed staff logins allowed per window per client
    failure_window_s: float = 60.0
    language: str = "en"               # the table display's language: ja | zh | en (a screen may ask ?lang=)


@dataclass(frozen=True)
class MqttConfig:
    """The parlour link (hardware/MQTT.md): off by default, the table needs no broker."""
    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 1883
    parlour: str = "parlour"           # topic level: jantaku/<parlour>/<table>/...
    username: str = ""                 # "" = no login
    password: str = ""                 # or $JANTAKU_MQTT_PASSWORD, or password_file
    password_file: str = ""
    tls: bool = False
    ca_file: str = ""                  # "" = the system's CAs (with tls)
    cert_file: str = ""                # client certificate (optional, with tls)
    key_file: str = ""
    keepalive_s: int = 30              # the broker marks the table offline (Last Will) after 1.5x this
    client_id: str = ""                # "" = jantaku-<table>-<board serial>
    window: int = 64                   # messages in flight (not yet acknowledged by the broker)
    state_interval_s: float = 0.5      # at most one retained state message per interval
    evidence: bool = True              # alerts' evidence pictures go to the parlour too


@dataclass(frozen=True)
class LogConfig:
    level: str = "INFO"
    format: str = "logfmt"             # logfmt | json


@dataclass(frozen=True)
class Config:
    table: TableConfig = field(default_factory=TableConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    firmware: FirmwareConfig = field(default_factory=FirmwareConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    game: GameConfig = field(default_factory=GameConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    log: LogConfig = field(default_factory=LogConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    source: str = "<defaults>"         # the file it came from, for the start banner


class _Section:
    """Typed getters over one TOML table; remembers which keys were read."""

    def __init__(self, name: str, raw: dict[str, Any], origin: str) -> None:
        self.name, self.raw, self.origin = name, raw, origin
        self.used: set[str] = set()

    def _where(self, key: str) -> str:
        return f"{self.origin}: [{self.name}] {key}"

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        return self.raw.get(key, default)

    def str(self, key: str, default: str, *, choices: tuple[str, ...] | None = None) -> str:
        value = self._get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"{self._where(key)} is {value!r}, must be a string")
        if choices is not None and value not in choices:
            raise ConfigError(f"{self._where(key)} is {value!r}, must be one of {', '.join(choices)}")
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise ConfigError(f"{self._where(key)} is {value!r}, must be true or false")
        return value

    def int(self, key: str, default: int, *, minval: int | None = None, maxval: int | None = None) -> int:
        value = self._get(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(f"{self._where(key)} is {value!r}, must be an integer")
        self._bounds(key, value, minval, maxval)
        return value

    def float(self, key: str, default: float, *, minval: float | None = None,
              maxval: float | None = None) -> float:
        value = self._get(key, default)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ConfigError(f"{self._where(key)} is {value!r}, must be a number")
        self._bounds(key, value, minval, maxval)
        return float(value)

    def _bounds(self, key: str, value: float, minval: float | None, maxval: float | None) -> None:
        if minval is not None and value < minval:
            raise ConfigError(f"{self._where(key)} is {value!r}, must be at least {minval}")
        if maxval is not None and value > maxval:
            raise ConfigError(f"{self._where(key)} is {value!r}, must be at most {maxval}")

    def check_unused(self) -> None:
        unknown = sorted(set(self.raw) - self.used)
        if unknown:
            raise ConfigError(f"{self.origin}: unknown option {unknown[0]!r} in section [{self.name}]")


def _parse_table(s: _Section) -> TableConfig:
    name = s.str("name", "t1")
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ConfigError(f"{s.origin}: [table] name is {name!r}, must be letters, digits, '-' or '_'")
    return TableConfig(name=name, backend=s.str("backend", "sim", choices=BACKENDS))


def _parse_storage(s: _Section) -> StorageConfig:
    return StorageConfig(
        data_dir=s.str("data_dir", ""),
        evidence_budget_mb=s.float("evidence_budget_mb", 200.0, minval=1.0, maxval=1_000_000.0),
        synchronous=s.str("synchronous", "full", choices=("full", "normal")),
    )


def _parse_firmware(s: _Section) -> FirmwareConfig:
    return FirmwareConfig(
        port=s.str("port", "sim"),
        baudrate=s.int("baudrate", 250000, minval=1200, maxval=4_000_000),
        timeout_s=s.float("timeout_s", 2.0, minval=0.05, maxval=60.0),
    )


def _parse_gpio(s: _Section) -> GpioConfig:
    return GpioConfig(
        pin_factory=s.str("pin_factory", "mock", choices=("mock", "lgpio", "rpigpio", "native")),
        pinmap=s.str("pinmap", ""),
    )


def _parse_camera(s: _Section) -> CameraConfig:
    return CameraConfig(
        source=s.str("source", "rendered", choices=("rendered", "stream", "v4l2", "file", "off")),
        device=s.str("device", "/dev/video0"),
        fps=s.float("fps", 10.0, minval=0.5, maxval=120.0),
        calibration=s.str("calibration", ""),
        tile_set=s.str("tile_set", ""),
    )


def _parse_game(s: _Section) -> GameConfig:
    return GameConfig(
        ruleset=s.str("ruleset", "tenhou"),
        script=s.str("script", ""),
        speed=s.float("speed", 1.0, minval=0.0, maxval=10_000.0),
        loop=s.bool("loop", True),
        feed=s.str("feed", ""),
        simulation=s.str("simulation", "events", choices=("physical", "events")),
    )


def _parse_panel(s: _Section) -> PanelConfig:
    return PanelConfig(
        enabled=s.bool("enabled", True),
        host=s.str("host", "127.0.0.1"),
        port=s.int("port", 8080, minval=0, maxval=65535),
        port_fallback=s.bool("port_fallback", True),
        token=s.str("token", ""),
        max_failures=s.int("max_failures", 5, minval=1, maxval=1000),
        failure_window_s=s.float("failure_window_s", 60.0, minval=1.0, maxval=86400.0),
        language=s.str("language", "en", choices=("ja", "zh", "en")),
    )


def _parse_log(s: _Section) -> LogConfig:
    return LogConfig(
        level=s.str("level", "INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR")),
        format=s.str("format", "logfmt", choices=("logfmt", "json")),
    )


def _topic_level(s: _Section, key: str, default: str) -> str:
    value = s.str(key, default)
    if not value or any(c in value for c in "/+#\0") or value.strip() != value:
        raise ConfigError(f"{s._where(key)} is {value!r}, must be one MQTT topic level (no '/', '+', '#')")
    return value


def _parse_mqtt(s: _Section) -> MqttConfig:
    cfg = MqttConfig(
        enabled=s.bool("enabled", False),
        host=s.str("host", "127.0.0.1"),
        port=s.int("port", 1883, minval=1, maxval=65535),
        parlour=_topic_level(s, "parlour", "parlour"),
        username=s.str("username", ""),
        password=s.str("password", ""),
        password_file=s.str("password_file", ""),
        tls=s.bool("tls", False),
        ca_file=s.str("ca_file", ""),
        cert_file=s.str("cert_file", ""),
        key_file=s.str("key_file", ""),
        keepalive_s=s.int("keepalive_s", 30, minval=1, maxval=3600),
        client_id=s.str("client_id", ""),
        window=s.int("window", 64, minval=1, maxval=10_000),
        state_interval_s=s.float("state_interval_s", 0.5, minval=0.0, maxval=60.0),
        evidence=s.bool("evidence", True),
    )
    if cfg.password and cfg.password_file:
        raise ConfigError(f"{s.origin}: [mqtt] give password or password_file, not both")
    if (cfg.ca_file or cfg.cert_file or cfg.key_file) and not cfg.tls:
        raise ConfigError(f"{s.origin}: [mqtt] ca_file/cert_file/key_file need tls = true")
    if bool(cfg.cert_file) != bool(cfg.key_file):
        raise ConfigError(f"{s.origin}: [mqtt] cert_file and key_file go together")
    return cfg


_SECTIONS = {
    "table": _parse_table, "storage": _parse_storage, "firmware": _parse_firmware, "gpio": _parse_gpio,
    "camera": _parse_camera, "game": _parse_game, "panel": _parse_panel, "log": _parse_log,
    "mqtt": _parse_mqtt,
}


def parse(raw: dict[str, Any], *, origin: str = "<config>", env: dict[str, str] | None = None) -> Config:
    """Parse a TOML document (already loaded) into a Config; raise ConfigError naming the problem."""
    for name, value in raw.items():
        if name not in _SECTIONS:
            raise ConfigError(f"{origin}: unknown section [{name}] (known: {', '.join(_SECTIONS)})")
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: {name} must be a section [{name}], not a value")
    parsed: dict[str, Any] = {}
    for name, parser in _SECTIONS.items():
        section = _Section(name, raw.get(name, {}), origin)
        parsed[name] = parser(section)
        section.check_unused()
    env = dict(os.environ) if env is None else env
    backend = env.get("TABLE_BACKEND")
    if backend:
        if backend not in BACKENDS:
            raise ConfigError(f"environment: TABLE_BACKEND is {backend!r}, must be one of {', '.join(BACKENDS)}")
        parsed["table"] = TableConfig(name=parsed["table"].name, backend=backend)
    token = env.get("JANTAKU_STAFF_TOKEN")
    if token:
        p: PanelConfig = parsed["panel"]
        parsed["panel"] = PanelConfig(**{**p.__dict__, "token": token})
    cfg = Config(**parsed, source=origin)
    _check_backend(cfg)
    return cfg


def _check_backend(cfg: Config) -> None:
    """The simulated parts belong to the sim backend and the real ones to serial."""
    if cfg.table.backend == "serial":
        if cfg.firmware.port in ("sim", "off"):
            raise ConfigError(f"{cfg.source}: [firmware] port is {cfg.firmware.port!r}, but [table] backend is 'serial': "
                              "give the serial device (e.g. /dev/ttyAMA0)")
        if cfg.camera.source in ("rendered", "off"):
            raise ConfigError(f"{cfg.source}: [camera] source is {cfg.camera.source!r}, but [table] backend is 'serial'")
        if cfg.gpio.pin_factory == "mock":
            raise ConfigError(f"{cfg.source}: [gpio] pin_factory is 'mock', but [table] backend is 'serial'")


def load(path: str | Path | None = None, *, env: dict[str, str] | None = None) -> Config:
    """Read a config file (default: the embedded ``hardware/table.toml``)."""
    file = Path(path) if path is not None else DEFAULT_PATH
    try:
        with open(file, "rb") as fh:
            raw = tomllib.load(fh)
    except FileNotFoundError as err:
        raise ConfigError(f"config file {file} does not exist") from err
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"config file {file}: not valid TOML: {err}") from err
    return parse(raw, origin=str(file), env=env)


def data_dir(cfg: Config, env: dict[str, str] | None = None) -> Path:
    """Where the event database lives: the configured folder, systemd's StateDirectory, or ./var/<table>."""
    env = dict(os.environ) if env is None else env
    if cfg.storage.data_dir:
        return Path(cfg.storage.data_dir)
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    return Path("var") / cfg.table.name


def replace(cfg: Config, **sections: dict[str, Any]) -> Config:
    """A copy of ``cfg`` with some options of some sections changed (for the CLI and tests)."""
    changes: dict[str, Any] = {}
    for name, values in sections.items():
        current = getattr(cfg, name)
        changes[name] = type(current)(**{**current.__dict__, **values})
    return Config(**{**cfg.__dict__, **changes})
