"""The event store's checks before and around SQLite: its errors, the file and folder checks,
the read-only connection (see ``controller.storage``)."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import struct
import tempfile
import urllib.parse
from pathlib import Path

from controller.config import TableError

DB_NAME = "events.sqlite"
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StorageError(TableError, OSError):
    """The event store cannot be used; the message names the file and what is wrong."""


class ChainBroken(StorageError):
    """The hash chain does not hold at ``seq``."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


class LostTail(StorageError):
    """The log ends at ``last_seq`` but its head anchor says ``anchored_seq``: the tail is lost."""

    def __init__(self, message: str, last_seq: int, anchored_seq: int) -> None:
        super().__init__(message)
        self.last_seq, self.anchored_seq = last_seq, anchored_seq


class StorageFull(StorageError):
    """The disk (or the data folder's file system) is full; nothing was written."""


def _is_full(err: BaseException) -> bool:
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return (getattr(err, "sqlite_errorcode", None) == getattr(sqlite3, "SQLITE_FULL", 13)
            or "disk is full" in str(err))


def _check_file(path: Path) -> None:
    """Refuse files that are plainly not an SQLite database, before SQLite sees them.

    SQLite treats an empty file as a new database, so a file truncated to nothing would
    otherwise be reset without a word. A file shorter than its header says is not refused
    here: its newest pages may be in the WAL; SQLite's reading decides (see ``_size_note``).
    """
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            header = fh.read(100)
    except OSError as err:
        raise StorageError(f"event store {path}: cannot read: {err.strerror or err}") from err
    if size < 100:
        raise StorageError(f"event store {path}: file is {size} bytes, too short for a database "
                           "(truncated?); refusing to start. Move it aside to start a new log.")
    if header[:16] != _SQLITE_MAGIC:
        raise StorageError(f"event store {path}: not an SQLite database (bad header); refusing to start")


def _size_note(path: Path) -> str:
    """' (the file is N bytes, its header says M pages: truncated)' when so, else ''."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            header = fh.read(100)
        page_size = struct.unpack(">H", header[16:18])[0]
        page_size = 65536 if page_size == 1 else page_size
        change_counter, n_pages = struct.unpack(">II", header[24:32])
        valid_for = struct.unpack(">I", header[92:96])[0]
    except (OSError, struct.error):
        return ""
    if n_pages and valid_for == change_counter and size < page_size * n_pages:
        return f"; the file is {size} bytes, its header says {n_pages} pages of {page_size} bytes (truncated)"
    return ""


def _folder_problem(folder: Path) -> str | None:
    """Why the table cannot write in ``folder`` (read-only, no permission), or None."""
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=folder)
    except OSError as err:
        what = "read-only" if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM) else "not writable"
        return f"data folder {folder} is {what} ({err.strerror}); the table must write its log there"
    os.close(fd)
    os.unlink(probe)
    return None


def connect_read_only(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """A read-only connection; where SQLite cannot read in place (a WAL on a read-only
    folder without its index file), one to a private copy of the database and its WAL."""
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn, None
    except sqlite3.OperationalError:
        pass
    tmp = tempfile.mkdtemp(prefix="jantaku-verify-")
    for suffix in ("", "-wal"):
        src = Path(str(path) + suffix)
        if src.exists():
            shutil.copyfile(src, Path(tmp) / (DB_NAME + suffix))
    conn = sqlite3.connect(Path(tmp) / DB_NAME, isolation_level=None, check_same_thread=False)
    return conn, tmp
