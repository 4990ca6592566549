"""Enrolment benchmark: ``tablectl enrol DIR --out SET_FILE`` on 37 kinds x 4 pictures.

    python bench/enrol.py

Writes 148 phone-photo-sized JPEG pictures (a 300x400 face on a table, one random set design,
any quarter turn; seeds fixed) with their ``labels.csv`` to a temporary folder, then runs the
whole command as a subprocess (start-up and imports included) and times it on the wall clock;
the contract's limit is 60 s on a 2-core machine. The last line is::

    enrol kinds=37 pictures=148 seconds=X
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controller.rules.tiles import KINDS_34, REDS  # noqa: E402
from hardware.sim import tile_art  # noqa: E402

PER_KIND = 4


def photo(tile: str, style, rng: np.random.Generator) -> np.ndarray:
    w, h = 300, 400
    img = np.full((h + 40, w + 40, 3), rng.integers(60, 140, 3).tolist(), np.uint8)
    body = tile_art.tile_body_topdown(tile, w, h - 30, thickness_px=30, back_colour="green", style=style)
    tile_art.blit(img, body, np.float32([[20, 20], [20 + w, 20], [20 + w, 20 + h], [20, 20 + h]]))
    return np.ascontiguousarray(np.rot90(img, int(rng.integers(4))))


def main() -> int:
    rng = np.random.default_rng(2026)
    style = tile_art.random_style(rng)
    kinds = list(KINDS_34) + list(REDS)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "set"
        folder.mkdir()
        with open(folder / "labels.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "label"])
            for kind in kinds:
                for i in range(PER_KIND):
                    name = f"{kind}_{i}.jpg"
                    cv2.imwrite(str(folder / name), photo(kind, style, rng), [cv2.IMWRITE_JPEG_QUALITY, 90])
                    w.writerow([name, kind])
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "controller.cli", "enrol", str(folder), "--out",
                              str(Path(tmp) / "table.set")], env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            return 1
        print(run.stdout.strip())
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"enrol kinds={len(kinds)} pictures={len(kinds) * PER_KIND} seconds={seconds:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
