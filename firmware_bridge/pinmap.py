"""Pin maps: which GPIO line is which (data in ``hardware/pinmaps/*.toml``), validated on load."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.errors import PinMapError

PINMAP_DIR = Path(__file__).resolve().parent.parent / "hardware" / "pinmaps"
DEFAULT_PINMAP = PINMAP_DIR / "jantaku-hat-rev1.toml"
GPIO_RANGE = range(2, 28)          # BCM 2..27 on a 40-pin header
PULLS = ("up", "down", "none")
LEVELS = ("high", "low")


@dataclass(frozen=True)
class InputLine:
    pin: int
    pull: str = "up"
    active: str = "low"
    bounce_s: float | None = None


@dataclass(frozen=True)
class OutputLine:
    pin: int
    active: str = "high"

    @property
    def is_active_high(self) -> bool:
        return self.active == "high"


@dataclass(frozen=True)
class PinMap:
    board: str
    seats: int
    estop: InputLine
    lid: InputLine
    dice_buttons: tuple[InputLine, ...]
    lamps: tuple[OutputLine, ...]
    status_led: OutputLine
    buzzer: OutputLine
    relay: OutputLine
    source: str = ""

    def pins(self) -> list[tuple[str, int]]:
        named = [("estop", self.estop.pin), ("lid", self.lid.pin), ("status_led", self.status_led.pin),
                 ("buzzer", self.buzzer.pin), ("relay", self.relay.pin)]
        named += [(f"dice_buttons[{i}]", b.pin) for i, b in enumerate(self.dice_buttons)]
        named += [(f"lamps[{i}]", lamp.pin) for i, lamp in enumerate(self.lamps)]
        return named


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """Read and validate a pin map (default: the HAT rev 1); ``PinMapError`` names file, key and value."""
    src = Path(path) if path else DEFAULT_PINMAP
    try:
        data = tomllib.loads(src.read_text(encoding="utf-8"))
    except OSError as err:
        raise PinMapError(f"pin map {src}: cannot read: {err}") from err
    except tomllib.TOMLDecodeError as err:
        raise PinMapError(f"pin map {src}: not valid TOML: {err}") from err
    return parse_pinmap(data, str(src))


def parse_pinmap(data: dict, source: str = "<pin map>") -> PinMap:
    def fail(msg: str) -> PinMapError:
        return PinMapError(f"pin map {source}: {msg}")

    def keys(section: str, table: object, allowed: set[str], required: set[str]) -> dict:
        if not isinstance(table, dict):
            raise fail(f"[{section}] must be a table")
        unknown = set(table) - allowed
        if unknown:
            raise fail(f"[{section}] unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(allowed))})")
        missing = required - set(table)
        if missing:
            raise fail(f"[{section}] missing key {sorted(missing)[0]!r}")
        return table

    def pin(section: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_RANGE:
            raise fail(f"[{section}] pin is {value!r}, must be a BCM GPIO number 2..27")
        return value

    def choice(section: str, name: str, value: object, options: tuple[str, ...]) -> str:
        if value not in options:
            raise fail(f"[{section}] {name} is {value!r}, must be one of {', '.join(options)}")
        return str(value)

    def bounce(section: str, value: object) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise fail(f"[{section}] bounce_s is {value!r}, must be 0..1 seconds")
        return float(value) or None

    top = keys("top level", data, {"board", "seats", "estop", "lid", "dice_buttons", "lamps", "status_led",
                                   "buzzer", "relay"},
               {"board", "seats", "estop", "lid", "dice_buttons", "lamps", "status_led", "buzzer", "relay"})
    seats = top["seats"]
    if seats not in (3, 4):
        raise fail(f"seats is {seats!r}, must be 3 or 4")
    inputs = {}
    for name in ("estop", "lid"):
        t = keys(name, top[name], {"pin", "pull", "active", "bounce_s"}, {"pin", "active"})
        inputs[name] = InputLine(pin(name, t["pin"]), choice(name, "pull", t.get("pull", "up"), PULLS),
                                 choice(name, "active", t["active"], LEVELS), bounce(name, t.get("bounce_s")))
    t = keys("dice_buttons", top["dice_buttons"], {"pins", "pull", "active", "bounce_s"}, {"pins", "active"})
    if not isinstance(t["pins"], list) or len(t["pins"]) != seats:
        raise fail(f"[dice_buttons] pins is {t['pins']!r}, must list {seats} pins (one per seat)")
    pull = choice("dice_buttons", "pull", t.get("pull", "up"), PULLS)
    active = choice("dice_buttons", "active", t["active"], LEVELS)
    buttons = tuple(InputLine(pin("dice_buttons", p), pull, active, bounce("dice_buttons", t.get("bounce_s")))
                    for p in t["pins"])
    t = keys("lamps", top["lamps"], {"pins", "active"}, {"pins"})
    if not isinstance(t["pins"], list) or len(t["pins"]) != seats:
        raise fail(f"[lamps] pins is {t['pins']!r}, must list {seats} pins (one per seat)")
    lamp_active = choice("lamps", "active", t.get("active", "high"), LEVELS)
    lamps = tuple(OutputLine(pin("lamps", p), lamp_active) for p in t["pins"])
    outputs = {}
    for name in ("status_led", "buzzer", "relay"):
        t = keys(name, top[name], {"pin", "active"}, {"pin"})
        outputs[name] = OutputLine(pin(name, t["pin"]), choice(name, "active", t.get("active", "high"), LEVELS))
    pm = PinMap(str(top["board"]), seats, inputs["estop"], inputs["lid"], buttons, lamps, outputs["status_led"],
                outputs["buzzer"], outputs["relay"], source)
    seen: dict[int, str] = {}
    for name, number in pm.pins():
        if number in seen:
            raise fail(f"GPIO{number} is used twice: {seen[number]} and {name}")
        seen[number] = name
    return pm
