"""A small tmpfs for the storage fault tests (a full disk, a read-only disk): real mounts, as root.

``tmpfs(size)`` mounts one and yields its path, or skips the test where mounting is not
allowed (not root, or no CAP_SYS_ADMIN in a container); ``remount(path, ro=...)`` flips it
read-only and back.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=30)


@contextlib.contextmanager
def tmpfs(size: str = "4m") -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    where = Path(tempfile.mkdtemp(prefix="jantaku-tmpfs-"))
    done = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
    if done.returncode != 0:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        _run("umount", "-l", str(where))
        with contextlib.suppress(OSError):
            where.rmdir()


def remount(path: Path, *, ro: bool) -> None:
    done = _run("mount", "-o", f"remount,{'ro' if ro else 'rw'}", str(path))
    assert done.returncode == 0, done.stderr


def fill_up(folder: Path, name: str = "filler") -> Path:
    """Write a file until the file system is full; return it (delete it to free the space)."""
    path = folder / name
    chunk = b"\xa5" * 65536
    with open(path, "wb", buffering=0) as fh:
        while True:
            try:
                fh.write(chunk)
            except OSError:
                break
        for size in (4096, 512, 1):
            while True:
                try:
                    fh.write(chunk[:size])
                except OSError:
                    break
    return path
