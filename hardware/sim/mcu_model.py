"""The simulated MCU's data: firmware constants, the table models, the job table's records, the
motions and the observable machine state (:mod:`hardware.sim.mcu` is the firmware logic)."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge import protocol as p

FIRMWARE_VERSION = (1, 0, 0)
JOB_TABLE_SIZE = 32      # >= 2 x the host's job window (PROTOCOL.md)
EVENT_WINDOW = 8
EVENT_RTO_S = (0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.0, 1.0)   # bounded: 8 tries, then parked
OUT_BUFFER_MAX = 64 * 1024
OVERHEAT_C = 80

# Real-table durations in seconds (multiplied by --time-scale).
DURATIONS_S = {"lift": 6.0, "centre": 2.0, "shuffle": 60.0, "roll_dice": 1.5, "deal": 8.0,
               "flip_dora": 2.0}
SHUFFLE_LIMIT_S = 80.0
# Which part a fault hits, and how far into the motion (fraction of its duration).
FAULT_PART = {"head_jam": "shuffle", "chain_rod_stuck": "shuffle", "lane_count": "shuffle",
              "shuffle_timeout": "shuffle", "overheat": "shuffle", "limit_switch_stuck": "lift",
              "lift_stall": "lift", "dice_dead": "roll_dice", "centre_jam": "centre",
              "lid_open": "any"}
PART_OF = {p.Lift: "lift", p.Centre: "centre", p.Shuffle: "shuffle", p.RollDice: "roll_dice",
           p.Deal: "deal", p.FlipDora: "deal"}
SET_HOPPER, SET_SHUFFLING, SET_STACKED, SET_TABLE = 0, 1, 2, 3


@dataclass(frozen=True)
class TableModel:
    """What the simulated table is: tile count, walls, capabilities."""

    model: str = "JT-SIM-4"
    tiles: int = 136
    walls: int = 4
    caps: frozenset[str] = frozenset({"centre", "display", "lid_sensor", "lane_sensors", "three_dice",
                                      "seat_buttons"})

    @property
    def stacks_per_wall(self) -> int:
        return self.tiles // self.walls // 2

    @property
    def lanes(self) -> int:
        return self.walls

    @property
    def caps_mask(self) -> int:
        return sum(p.CAPABILITIES[c] for c in self.caps)

    @staticmethod
    def named(name: str) -> TableModel:
        """``riichi`` (136, 4 walls), ``flowers`` (144), ``sanma`` (108, 3 walls), ``full`` (+deal, dora)."""
        base = {"centre", "display", "lid_sensor", "lane_sensors", "three_dice", "seat_buttons"}
        models = {
            "riichi": TableModel("JT-SIM-4", 136, 4, frozenset(base)),
            "flowers": TableModel("JT-SIM-4F", 144, 4, frozenset(base)),
            "sanma": TableModel("JT-SIM-3", 108, 3, frozenset(base)),
            "full": TableModel("JT-SIM-4D", 136, 4, frozenset(base | {"deal", "dora_flip"})),
        }
        if name not in models:
            raise ValueError(f"sim-mcu: table model {name!r} unknown, one of {sorted(models)}")
        return models[name]


@dataclass
class JobRecord:
    """One entry of the job table: what the command was and what it answered."""

    msg: p.JobCommand
    ack: p.Ack
    completion: p.Event | None = None


@dataclass
class Motion:
    job: int
    msg: p.JobCommand
    part: str
    started: float
    timer: int
    fault_timer: int | None = None


@dataclass
class OutEvent:
    seq: int
    msg: p.Event
    tries: int = 0
    due: float = 0.0
    parked: bool = False


@dataclass
class SimState:
    """Everything observable about the simulated machine (answers the control ``state`` query)."""

    boot_id: int
    fault: int = 0
    fault_detail: str = ""
    motor_power: bool = False
    lid_open: bool = False
    centre_open: bool = False
    walls_up: int = 0
    sets: list[int] = field(default_factory=lambda: [SET_STACKED, SET_HOPPER])
    temp_c: int = 35
    deadman_ms: int = 500
    displays: dict[int, str] = field(default_factory=dict)
