"""Learning from play: crops of tiles whose label staff confirmed, kept within a size budget.

When staff confirm (or correct, then confirm) a hand's result, the revealed tiles' labels are
known; their crops are kept here (``<data>/confirmed/<kind>/*.png``) so the set can be refreshed
from them (``tablectl enrol --add-confirmed``). Every kept crop also records how sure the
classifier was and whether it read it right (``readings.jsonl``), so the staff view can show
this table's per-kind reading confidence over time: a worn or swapped set shows as a drop.

The crops stay within ``budget_mb``: past it the oldest crops of the kind with the most crops go
first (the readings log is small and kept, cut to its newest ``MAX_READINGS`` lines).

>>> import tempfile, numpy as np
>>> store = ConfirmedStore(tempfile.mkdtemp())
>>> store.keep([("5p", np.zeros((40, 40, 3), np.uint8), "5p", 0.9)], now=86400.0)
1
>>> [k for k, _ in store.samples()], store.history()["5p"][0]["mean_confidence"]
(['5p'], 0.9)
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np

from vision.decode import CLASSES

log = logging.getLogger(__name__)

MAX_READINGS = 50_000
DEFAULT_BUDGET_MB = 20.0


class ConfirmedStore:
    """The confirmed crops of one table, under ``root`` (created on first use)."""

    def __init__(self, root: str | Path, *, budget_mb: float = DEFAULT_BUDGET_MB) -> None:
        self.root = Path(root)
        self.budget_bytes = int(budget_mb * 1_000_000)
        self._seq = 0

    @property
    def readings_path(self) -> Path:
        return self.root / "readings.jsonl"

    def keep(self, samples: Iterable[tuple[str, np.ndarray, str, float]], *, now: float | None = None) -> int:
        """Keep ``(label, BGR crop, what the classifier read, its confidence)`` per tile; returns how many.

        Labels that are not tile classes (``none``, ``?``) are skipped. Never raises for a bad crop
        (logged and skipped): it is called from the daemon's result confirmation.
        """
        now = time.time() if now is None else float(now)
        kept, lines = 0, []
        for label, crop, read_as, confidence in samples:
            if label not in CLASSES or label == "none" or not isinstance(crop, np.ndarray) or crop.size == 0:
                continue
            folder = self.root / label
            try:
                folder.mkdir(parents=True, exist_ok=True)
                self._seq += 1
                name = f"{int(now * 1000):015d}_{os.getpid() % 100000:05d}_{self._seq:06d}.png"
                if not cv2.imwrite(str(folder / name), crop):
                    raise OSError("cv2.imwrite failed")
            except (OSError, cv2.error) as err:
                log.warning("confirmed crops: cannot keep a %s crop: %s", label, err)
                continue
            kept += 1
            lines.append(json.dumps({"t": round(now, 3), "kind": label, "read": str(read_as),
                                     "confidence": round(float(confidence), 4)}))
        if lines:
            try:
                with open(self.readings_path, "a", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
            except OSError as err:
                log.warning("confirmed crops: cannot log readings: %s", err)
            self.enforce_budget()
        return kept

    def _files(self) -> dict[str, list[Path]]:
        out: dict[str, list[Path]] = {}
        if not self.root.is_dir():
            return out
        for kind in CLASSES:
            folder = self.root / kind
            if folder.is_dir():
                files = sorted(folder.glob("*.png"))
                if files:
                    out[kind] = files
        return out

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for files in self._files().values() for p in files)

    def enforce_budget(self) -> int:
        """Delete the oldest crops of the fullest kinds until under the budget; returns how many went."""
        files = self._files()
        sizes = {p: p.stat().st_size for fs in files.values() for p in fs}
        total = sum(sizes.values())
        removed = 0
        while total > self.budget_bytes and files:
            kind = max(files, key=lambda k: (len(files[k]), k))
            victim = files[kind].pop(0)
            if not files[kind]:
                del files[kind]
            try:
                victim.unlink()
            except OSError as err:
                log.warning("confirmed crops: cannot remove %s: %s", victim, err)
            total -= sizes[victim]
            removed += 1
        self._trim_readings()
        return removed

    def _trim_readings(self) -> None:
        path = self.readings_path
        try:
            if not path.is_file() or path.stat().st_size < MAX_READINGS * 60:
                return
            lines = path.read_text(encoding="utf-8").splitlines()
            if len(lines) > MAX_READINGS:
                tmp = path.with_name(path.name + ".tmp")
                tmp.write_text("\n".join(lines[-MAX_READINGS:]) + "\n", encoding="utf-8")
                os.replace(tmp, path)
        except OSError as err:
            log.warning("confirmed crops: cannot trim the readings log: %s", err)

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in self._files().items()}

    def samples(self, *, per_kind: int = 8) -> list[tuple[str, np.ndarray]]:
        """The newest ``per_kind`` crops of each kind, as ``(label, BGR crop)``."""
        out = []
        for kind, files in self._files().items():
            for p in files[-per_kind:]:
                img = cv2.imread(str(p), cv2.IMREAD_COLOR)
                if img is not None:
                    out.append((kind, img))
        return out

    def history(self, *, bucket_s: float = 86400.0) -> dict[str, list[dict]]:
        """Per kind, per time bucket (a day by default): how many were read, how sure, how many right."""
        acc: dict[str, dict[int, list[float]]] = {}
        path = self.readings_path
        if not path.is_file():
            return {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    r = json.loads(line)
                    kind, t, conf, ok = r["kind"], float(r["t"]), float(r["confidence"]), r["read"] == r["kind"]
                except (ValueError, KeyError, TypeError):
                    continue
                b = acc.setdefault(kind, {}).setdefault(int(t // bucket_s), [0, 0.0, 0])
                b[0] += 1
                b[1] += conf if ok else 0.0
                b[2] += int(ok)
        return {kind: [{"from": k * bucket_s, "n": int(v[0]), "mean_confidence": round(v[1] / v[0], 4),
                        "right": round(v[2] / v[0], 4)} for k, v in sorted(buckets.items())]
                for kind, buckets in sorted(acc.items(), key=lambda kv: CLASSES.index(kv[0]))}
