"""Scratch folders left by a SIGKILLed run are removed when the next run makes its own."""

import os
import signal
import subprocess
import sys
import time

from firmware_bridge.scratch import make_scratch, sweep_scratch

MAKER = """
import sys, time
from firmware_bridge.scratch import make_scratch
print(make_scratch(sys.argv[1], sys.argv[2]), flush=True)
time.sleep(600)
"""


def _spawn(kind, root):
    proc = subprocess.Popen([sys.executable, "-c", MAKER, kind, str(root)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ})
    return proc, proc.stdout.readline().strip()


def test_a_killed_runs_folder_goes_and_a_live_ones_stays(tmp_path):
    killed, killed_dir = _spawn("simtable", tmp_path)
    live, live_dir = _spawn("sim", tmp_path)
    try:
        assert os.path.isdir(killed_dir) and os.path.isdir(live_dir)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(timeout=30)
        assert os.path.isdir(killed_dir)                 # SIGKILL: nobody removed it
        legacy_old = tmp_path / "jantaku-simtable-abc123"
        legacy_new = tmp_path / "jantaku-sim-def456"
        other = tmp_path / "jantaku-demo-xyz"
        for d in (legacy_old, legacy_new, other):
            d.mkdir()
        old = time.time() - 7 * 3600
        os.utime(legacy_old, (old, old))
        mine = make_scratch("simtable", tmp_path)        # the next run starts
        assert not os.path.exists(killed_dir) and not legacy_old.exists()
        assert os.path.isdir(live_dir) and legacy_new.exists() and other.exists() and mine.is_dir()
        assert sweep_scratch(tmp_path) == []             # our own folder is never swept
    finally:
        live.kill()
        live.wait(timeout=30)
