"""A full disk halts the table; it resumes by itself once space is back.

The daemon never applies an event it has not stored. When the disk is full
(``StorageFull`` from the store) the :class:`DiskGuard`:

1. keeps the event that could not be stored, and every later part event (MCU, buttons,
   camera), in order in memory (``backlog``); staff requests are refused (503) meanwhile;
2. deletes the store's ``events.reserve`` file and, in the room it leaves, records the halt
   as ``McuFault(code="disk_full")`` from source ``storage``: the machine cycle halts the
   way it does for any fault (motors stopped, motor power off). Where even that cannot be
   stored, the motors are stopped directly, and the fault is recorded first once space is back;
3. shows ``disk full: ...`` as the machine's state on the table display and the staff view;
4. every ``RETRY_S`` checks the free space; once there is room again it stores the backlog
   in order (each then applied as usual), makes the reserve again and records
   ``Reset(reason="disk space is back")`` (only when the cycle is halted for this cause: a
   fault of its own still waits for the operator), so the table goes on.

Nothing stored is ever lost: a failed write leaves the log as it was.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from controller import events as ev
from controller.storage import RESERVE_BYTES, StorageFull

if TYPE_CHECKING:
    from controller.daemon import Daemon

log = logging.getLogger(__name__)

SOURCE = "storage"
FAULT_CODE = "disk_full"
RETRY_S = 1.0
MAX_BACKLOG = 20000
MIN_FREE_BYTES = 2 * RESERVE_BYTES


class DiskGuard:
    """The daemon's disk-full state: ``message`` ("" while the disk has room)."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.message = ""
        self.backlog: deque[Any] = deque()
        self.dropped = 0
        self._recorded = False
        self._next_try = 0.0
        self.halts = 0

    def holding(self, item: Any) -> bool:
        """While halted: keep (or refuse) ``item`` instead of storing it; True when it was taken."""
        if not self.message:
            return False
        self._keep(item)
        return True

    def _keep(self, item: Any) -> None:
        if item.future is not None:
            if not item.future.done():
                item.future.set_exception(StorageFull(self.message))
            return
        if len(self.backlog) >= MAX_BACKLOG:
            self.dropped += 1
            if self.dropped == 1:
                log.error("disk full: backlog of %d events is full; later part events are dropped", MAX_BACKLOG)
            return
        self.backlog.append(item)

    def halt(self, item: Any, err: StorageFull) -> None:
        """The store could not take ``item``: halt the table."""
        store = self.daemon.store
        self.message = (f"disk full: {store.folder} has no room for the event log; "
                        "new play is refused until space is back")
        self.halts += 1
        log.error("%s (%s)", self.message, err)
        self._keep(item)
        self._recorded = False
        if store.release_reserve():
            self._recorded = self._store_fault()
        if not self._recorded:
            from controller.cycle import StopMotors
            self.daemon._dispatch(StopMotors(reason=self.message), store.last_seq)
        self._next_try = time.monotonic() + RETRY_S
        self.daemon.publish()

    def _store_fault(self) -> bool:
        fault = ev.McuFault(code=FAULT_CODE, detail=f"no room for the event log in {self.daemon.store.folder}",
                            now=self.daemon.now())
        try:
            self.daemon.accept(SOURCE, fault)
        except StorageFull:
            return False
        return True

    def tick(self) -> None:
        """Called from the loop: once there is room again, store the backlog and resume."""
        if not self.message or time.monotonic() < self._next_try:
            return
        self._next_try = time.monotonic() + RETRY_S
        store = self.daemon.store
        try:
            free = shutil.disk_usage(store.folder).free
        except OSError:
            return
        if free < MIN_FREE_BYTES:
            return
        stored = 0
        try:
            if not self._recorded:
                if not self._store_fault():
                    return
                self._recorded = True
            while self.backlog:
                item = self.backlog[0]
                self.daemon.accept(item.source, item.event, item.src_seq)
                self.backlog.popleft()
                stored += 1
            if not store.restore_reserve():
                return
            cycle = self.daemon.core.cycle_state
            reason = getattr(cycle, "reason", "") if cycle is not None else ""
            self.message = ""
            if FAULT_CODE in reason:
                self.daemon.accept(SOURCE, ev.Reset(reason="disk space is back", now=self.daemon.now()))
        except StorageFull:
            return
        finally:
            if stored:
                self.daemon.publish()
        log.warning("disk space is back in %s: the table resumes (%d events kept while halted now stored)",
                    store.folder, stored)
        self.daemon.publish()

    def status(self) -> dict[str, Any]:
        return {"full": bool(self.message), "message": self.message, "backlog": len(self.backlog),
                "dropped": self.dropped, "halts": self.halts}
