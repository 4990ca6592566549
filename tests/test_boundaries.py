"""The simulator is a backend at the device edge (issue 16): the product never imports it, and it
needs only the wire codec, the event vocabulary, the pure rules engine and the table geometry.

- statically: no module of ``controller/``, ``firmware_bridge/``, ``vision/`` imports
  ``hardware.sim`` (except the tile-model training tools named below, which draw their training
  crops with the simulator's tile art and are never run by the daemon); no module of
  ``hardware/sim`` imports the daemon's configuration, the tracker's checks, the daemon or the
  panel;
- at run time: the daemon started on the embedded default (the simulated table, physical) and
  on the event-level simulation holds no ``hardware.sim`` module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("controller", "firmware_bridge", "vision")
# no exemption: the classifier's training tools live in hardware/sim/training beside the renderer
TRAINING_TOOLS: set[str] = set()
SIM_FORBIDDEN = ("controller.config", "controller.integrity", "controller.daemon", "controller.panel",
                 "controller.game", "controller.cli")


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module an ``import`` / ``from ... import`` names in ``path`` (also inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def _is(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_product_packages_never_import_the_simulator():
    bad = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in TRAINING_TOOLS:
                continue
            bad += [f"{rel}:{line}: {name}" for line, name in _imports(path) if _is(name, "hardware.sim")
                    or name == "hardware" or _is(name, "hardware")]
    assert not bad, "product modules import the simulator:\n" + "\n".join(bad)


def test_the_simulator_needs_no_daemon_config_checks_or_panel():
    bad = []
    for path in sorted((ROOT / "hardware" / "sim").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in _imports(path):
            hit = next((f for f in SIM_FORBIDDEN if _is(name, f)), None)
            if hit is not None:
                bad.append(f"{rel}:{line}: {name}")
    assert not bad, "the simulator imports the daemon's side:\n" + "\n".join(bad)


def test_the_boundary_check_sees_an_import(tmp_path):
    """The static scan finds imports at module level and inside functions, plain and from-imports."""
    probe = tmp_path / "probe.py"
    probe.write_text("import os\ndef f():\n    from hardware.sim import scene\n    import hardware.sim.mcu\n")
    names = [n for _, n in _imports(probe)]
    assert "hardware.sim.scene" in names and "hardware.sim.mcu" in names and "os" in names


_RUNTIME = r"""
import json, sys, tempfile
from pathlib import Path
from controller import config as C
from controller.daemon_parts import build_parts
from controller.storage import EventStore
out = {}
for simulation in ("physical", "events"):
    data = Path(tempfile.mkdtemp())
    path = data / "t.toml"
    path.write_text(f'[storage]\ndata_dir = "{data}"\n[game]\nsimulation = "{simulation}"\nspeed = 0\n')
    cfg = C.load(str(path))
    store = EventStore.open(data)
    parts = build_parts(cfg, store)
    out[simulation] = sorted(p.name for p in parts)
    for p in parts:
        close = getattr(p, "close", None)
        if close is not None:
            close()
    store.close()
out["sim_modules"] = sorted(m for m in sys.modules if m == "hardware" or m.startswith("hardware."))
print(json.dumps(out))
"""


def test_the_daemons_parts_for_the_simulated_table_load_no_simulator_module():
    res = subprocess.run([sys.executable, "-c", _RUNTIME], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["sim_modules"] == [], out
    assert out["physical"] and out["events"], out
