"""Scratch folders of the simulated parts (the MCU process's pty link and control socket).

``make_scratch(kind)`` makes ``<tmp>/jantaku-<kind>-<pid>-XXXX`` for this process, after
removing the folders that earlier runs left behind (a run killed with SIGKILL cannot remove
its own): those whose owner process is gone, and folders of the older unnamed form
(``jantaku-<kind>-XXXX``) not touched for ``STALE_S``. A folder of a live process is never
touched. The part that made a folder still removes it at its stop.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

KINDS = ("simtable", "sim")
STALE_S = 6 * 3600.0
_NAME = re.compile(r"^jantaku-(?P<kind>[a-z]+)-(?:(?P<pid>\d+)-)?[A-Za-z0-9_]+$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_scratch(root: str | Path | None = None, *, now: float | None = None) -> list[Path]:
    """Remove the scratch folders of runs that are gone; return what was removed."""
    root = Path(root or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    for path in entries:
        match = _NAME.match(path.name)
        if not match or match["kind"] not in KINDS or not path.is_dir() or path.is_symlink():
            continue
        try:
            if path.stat().st_uid != os.geteuid():
                continue
            if match["pid"] is not None:
                if int(match["pid"]) == os.getpid() or _alive(int(match["pid"])):
                    continue
            elif now - path.stat().st_mtime < STALE_S:
                continue
        except OSError:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    if removed:
        log.info("removed %d scratch folder(s) left by earlier runs", len(removed))
    return removed


def make_scratch(kind: str, root: str | Path | None = None) -> Path:
    """A new scratch folder of this process for ``kind`` (one of ``KINDS``), after the sweep."""
    if kind not in KINDS:
        raise ValueError(f"scratch kind {kind!r} is not one of {', '.join(KINDS)}")
    sweep_scratch(root)
    return Path(tempfile.mkdtemp(prefix=f"jantaku-{kind}-{os.getpid()}-", dir=root))
