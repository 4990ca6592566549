"""The table daemon: one asyncio loop that owns the table.

Every input (firmware frames, GPIO lines, camera reads, panel actions) arrives as a
``controller.events`` event on one queue. For each one the loop

1. commits it to the event store (``controller.storage``): nothing is applied or shown
   before it is on disk;
2. applies it to the pure state machines (``Core``, :mod:`controller.daemon_core`: the game
   tracker ``controller.tracker`` and the machine cycle ``controller.cycle``), which return
   commands;
3. sends the commands to the parts (MCU, lamps, camera, panel), and hands the panel's hub the
   new read model (:class:`controller.panel.facade.ReadModel`).

The panel reaches the daemon only through :class:`PanelDoor` (the panel's
:class:`controller.panel.facade.Table`: ``snapshot()``, ``submit(event)``, ``status()``); it
never imports this module.

On start the state is rebuilt by replaying the whole log through the same ``Core``; the
commands of replayed events are dropped (they were carried out the first time).

Parts only post events (threads through ``Daemon.post``, which is thread-safe) and carry
out commands; they never touch the state. systemd's watchdog is fed only from this loop,
only while it is healthy. SIGTERM and SIGINT stop it cleanly (parts first, the simulator
process included).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from controller import events as ev
from controller.config import Config, PanelConfig, TableError
from controller.daemon_core import Core
from controller.daemon_sys import TRAFFIC, SystemdNotifier
from controller.panel.evidence import evidence_for_alert
from controller.panel.facade import ReadModel
from controller.panel.hub import PanelHub
from controller.panel.staff_view import evidence_of, staff_extras
from controller.storage import EventStore, StorageError, StorageFull
from controller.tracker.checks import Refused
from controller.tracker.engine import check_staff

__all__ = ["Core", "Daemon", "PanelDoor", "Part"]

log = logging.getLogger(__name__)

__version__ = "0.1.0"


class Part(Protocol):
    """A table part as the daemon sees it.

    Must provide: ``name``; ``start(post)`` (begin posting events through ``post``);
    ``stop()``; ``handle(command) -> bool`` (carry out a command it knows, True if it did);
    ``status() -> dict`` (plain data for the staff view). May provide ``latest_jpeg()``
    (the camera: the current frame as evidence), ``calibration_jpeg()`` (the staff's check
    picture), ``runs_machine_cycle = True`` (it carries out ``controller.cycle``'s
    commands, so the cycle's phase is the machine state shown) and ``resume(position)``
    (called after the log's replay, before ``start``: where the table stands,
    ``controller.daemon_resume``).
    """

    name: str

    async def start(self, post: Callable[..., None]) -> None: ...
    async def stop(self) -> None: ...
    def handle(self, command: ev.Command) -> bool: ...
    def status(self) -> dict[str, Any]: ...


@dataclass
class _Item:
    source: str
    event: ev.Event
    src_seq: int | None = None
    future: asyncio.Future | None = None


class Daemon:
    """The loop. Build it with a config, an open store and the parts; then ``await run()``."""

    def __init__(self, cfg: Config, store: EventStore, *, parts: Sequence[Part] = (),
                 notifier: SystemdNotifier | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg = cfg
        self.store = store
        self.parts = list(parts)
        self.notifier = notifier or SystemdNotifier()
        self.clock = clock
        self.core = Core(cfg.table.name, cfg.game.ruleset)
        self.core.machine_from_cycle = any(getattr(p, "runs_machine_cycle", False) for p in self.parts)
        self.core.language = cfg.panel.language     # the table display's language
        self.hub = PanelHub()
        self.door = PanelDoor(self)
        self._queue: asyncio.Queue[_Item] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = asyncio.Event()
        self.is_healthy = True
        self.panel_url: str | None = None
        self.started_at = time.time()
        self._status_line = ""
        self.part_errors: dict[str, str] = {}
        self._server_task: asyncio.Task | None = None
        from controller.daemon_disk import DiskGuard
        self.disk = DiskGuard(self)     # a full disk halts the table until space is back
        self.mqtt: Any = None                     # controller.mqtt_publish, when [mqtt] enabled

    # -- inputs ---------------------------------------------------------------------------

    def post(self, source: str, event: ev.Event, src_seq: int | None = None) -> None:
        """Hand an event to the loop; safe from any thread."""
        item = _Item(source, event, src_seq)
        loop, queue = self._loop, self._queue
        if loop is None or queue is None:
            raise RuntimeError("daemon: post() before the loop runs")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            queue.put_nowait(item)
        else:
            loop.call_soon_threadsafe(queue.put_nowait, item)

    async def submit(self, source: str, event: ev.Event) -> int:
        """Hand an event to the loop and wait until it is committed and applied; return its seq."""
        assert self._loop is not None and self._queue is not None
        future: asyncio.Future = self._loop.create_future()
        self._queue.put_nowait(_Item(source, event, None, future))
        return await future

    def now(self) -> float:
        return self.clock()

    # -- the pipeline -----------------------------------------------------------------------

    def rebuild(self) -> int:
        """Replay the stored log through the Core (commands dropped); return the number of events."""
        n = 0
        for stored in self.store.events():
            try:
                event = ev.from_record(stored.payload)
            except ev.EventError as err:
                raise StorageError(f"event store {self.store.path}: seq {stored.seq} cannot be read back: "
                                   f"{err}") from err
            self.core.apply(event)  # type: ignore[arg-type]
            n += 1
        return n

    def accept(self, source: str, event: ev.Event, src_seq: int | None = None) -> int | None:
        """Commit, apply, carry out, publish. Return the new seq (None: a duplicate, dropped)."""
        record = ev.to_record(event)
        stored = self.store.append(source, event.KIND, record, src_seq=src_seq)
        if stored is None:
            log.log(TRAFFIC, "duplicate %s #%s from %s dropped", event.KIND, src_seq, source)
            return None
        log.log(TRAFFIC, "event %d %s from %s", stored.seq, event.KIND, source)
        if isinstance(event, ev.ConfirmResult):   # learning from play: the hands as confirmed
            for part in self.parts:
                getattr(part, "on_confirm", lambda _state: None)(self.core.game_state)
        commands = self.core.apply(event)
        for command in commands:
            self._dispatch(command, stored.seq)
        self.publish()
        if self.mqtt is not None:                 # hand over only: the publisher never blocks the loop
            self.mqtt.committed(stored.seq, stored.t_wall, stored.kind, stored.payload, self.store.head_hash)
            self.mqtt.state(self.hub.version, self.hub.message, self.hub.state)
        return stored.seq

    def publish(self) -> None:
        """Hand the panel's hub the read model of the state as it is now."""
        state = self.core.view()
        if self.disk.message:      # a full disk halts the table (controller.daemon_disk)
            state = {**state, "machine": {**state.get("machine", {}), "state": "halted",
                                          "reason": self.disk.message}}
        self.hub.publish(ReadModel.of(state, self.store.last_seq))

    def _dispatch(self, command: ev.Command, seq: int, depth: int = 0) -> None:
        if isinstance(command, ev.RaiseAlert):
            alert = command.alert
            if depth > 2:
                return
            try:
                alert_seq = self.accept("integrity", alert)
            except StorageFull as err:
                self.disk.halt(_Item("integrity", alert), err)
                return
            if alert_seq is not None:
                self._keep_evidence(alert_seq, alert)
            log.warning("alert %s seat=%s tile=%s: %s", alert.rule, alert.seat, alert.tile, alert.message)
            return
        if isinstance(command, ev.Show):
            self.hub.show(command.what, command.data, self.store.last_seq)
        handled = False
        for part in self.parts:
            try:
                handled = part.handle(command) or handled
            except TableError as err:
                log.warning("%s could not carry out %s: %s", part.name, command.KIND, err)
        if not handled and not isinstance(command, ev.Show):
            log.debug("no part carries out %s", command.KIND)

    def _keep_evidence(self, seq: int, alert: ev.Alert) -> None:
        for part in self.parts:
            grab = getattr(part, "latest_jpeg", None)
            if grab is None:
                continue
            jpeg = grab()
            if jpeg:
                try:
                    name = self.store.save_evidence(seq, alert.rule, jpeg)
                    self.hub.evidence[seq] = name
                    if self.mqtt is not None:
                        self.mqtt.evidence(seq, name)
                except OSError as err:
                    log.warning("evidence for alert %d not kept: %s", seq, err)
            return

    # -- running --------------------------------------------------------------------------

    def request_stop(self) -> None:
        self._stop.set()

    async def run(self, on_ready: Callable[[Daemon], None] | None = None) -> int:
        """Run until stopped; return the exit status."""
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                self._loop.add_signal_handler(sig, self.request_stop)
        t0 = time.monotonic()
        n = self.rebuild()
        self.hub.evidence.update(self.store.evidence_kept())
        log.info("state rebuilt from %d events in %.3f s", n, time.monotonic() - t0)
        self._resume_parts()
        server_task = None
        self.publish()
        if self.cfg.mqtt.enabled:
            from controller import mqtt_publish
            self.mqtt = mqtt_publish.start(self.cfg, self.store.folder, self.hub)
        if self.cfg.panel.enabled:
            from controller.panel.server import start_panel
            server_task, self.panel_url = await start_panel(self.door)
        self._server_task = server_task
        started: list[Part] = []
        status = 0
        try:
            for part in self.parts:
                try:
                    await part.start(self.post)
                except (TableError, OSError, RuntimeError) as err:
                    # a part that cannot start halts the table, not the daemon: the panel says why
                    log.exception("part %s did not start", part.name)
                    self.part_errors[part.name] = str(err)
                    self.core.machine.update(state="halted", reason=f"{part.name} did not start: {err}")
                    started.append(part)
                    continue
                started.append(part)
                log.info("part %s started", part.name)
            if n and self.core.machine_from_cycle and self.core.cycle_state.state not in ("idle", "halted"):
                # the machine was mid-cycle when the daemon stopped: its motion is asked for again
                self.post("daemon", ev.HostRestarted(now=self.now()))
            self.notifier.notify(READY=1, STATUS=self._status())
            log.info("ready", extra={"panel": self.panel_url or "off", "events": self.store.last_seq})
            if on_ready is not None:
                on_ready(self)
            await self._main_loop()
        except StorageError:
            log.exception("event store failed; stopping (no event may be lost)")
            status = 1
        finally:
            self.notifier.notify(STOPPING=1, STATUS="stopping")
            for part in reversed(started):
                try:
                    await asyncio.wait_for(part.stop(), timeout=10)
                except (TimeoutError, TableError, OSError) as err:
                    log.warning("part %s did not stop cleanly: %s", part.name, err)
            if server_task is not None:
                from controller.panel.server import stop_panel
                await stop_panel(server_task)
            if self.mqtt is not None:
                self.mqtt.stop()
            self.notifier.close()
            log.info("stopped")
        return status

    def _resume_parts(self) -> None:
        """Tell the parts where the table stands, as the replayed log has it (the optional part
        hook ``resume(position)``, ``controller.daemon_resume``): the camera's tracker starts from
        what the game knows, the simulated players from where the game is."""
        from controller.daemon_resume import table_position, tracker_seed
        core = self.core
        position = table_position(core.game_state, core.cycle_state, core.games)
        if position is None:
            return
        position = {**position, "seed": tracker_seed(core.game_state)}
        log.info("table position: game %d hand %d, %s", position["games"], position["hand"],
                 " ".join(f"{k}={v}" for k, v in position["done"].items()))
        for part in self.parts:
            resume = getattr(part, "resume", None)
            if resume is not None:
                resume(position)

    async def _main_loop(self) -> None:
        assert self._queue is not None
        interval = self.notifier.watchdog_interval_s
        next_watchdog = time.monotonic()
        stop_wait = asyncio.ensure_future(self._stop.wait())
        try:
            while not self._stop.is_set():
                timeout = 1.0 if interval is None else max(0.0, next_watchdog - time.monotonic())
                get = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait({get, stop_wait}, timeout=timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
                if get in done:
                    self._handle(get.result())
                    # drain what is already queued before the next watchdog check
                    while not self._queue.empty() and not self._stop.is_set():
                        self._handle(self._queue.get_nowait())
                else:
                    get.cancel()
                self.disk.tick()
                if self._server_task is not None and self._server_task.done() and self.is_healthy:
                    # the panel died under us: say so and let the watchdog restart the daemon
                    self.is_healthy = False
                    log.error("panel server stopped unexpectedly; no more watchdog pings")
                if interval is not None and time.monotonic() >= next_watchdog and self.is_healthy:
                    self.notifier.notify(WATCHDOG=1)
                    next_watchdog = time.monotonic() + interval
                status = self._status()
                if status != self._status_line:
                    self._status_line = status
                    self.notifier.notify(STATUS=status)
        finally:
            stop_wait.cancel()

    def _handle(self, item: _Item) -> None:
        if self.disk.holding(item):
            return
        try:
            seq = self.accept(item.source, item.event, item.src_seq)
        except StorageFull as err:
            self.disk.halt(item, err)
            return
        except StorageError as err:
            self.is_healthy = False
            if item.future is not None and not item.future.done():
                item.future.set_exception(err)
            raise
        except Exception as err:  # noqa: BLE001 - one bad event must not stop the table
            log.exception("event %s from %s could not be taken", item.event.KIND, item.source)
            if item.future is not None and not item.future.done():
                item.future.set_exception(err)
            return
        if item.future is not None and not item.future.done():
            item.future.set_result(seq)

    def _status(self) -> str:
        view = self.hub.state
        machine = self.core.machine
        text = f"{view.get('round', '?')} honba {view.get('honba', 0)}; machine {machine['state']}"
        if machine.get("reason"):
            text += f" ({machine['reason']})"
        return text

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the current view (for tests and the bench)."""
        return copy.deepcopy(self.hub.state)


class PanelDoor:
    """The daemon as the panel sees it (:class:`controller.panel.facade.Table`): the read model as
    last published, staff actions submitted to the loop, the staff view's status, the camera's
    picture and the evidence frames. Nothing else of the daemon is reachable from the panel."""

    def __init__(self, daemon: Daemon) -> None:
        self._daemon = daemon
        self.hub = daemon.hub
        self.table_name = daemon.cfg.table.name

    @property
    def panel(self) -> PanelConfig:
        return self._daemon.cfg.panel

    def snapshot(self) -> dict[str, Any]:
        return self.hub.state or self._daemon.core.view()

    async def submit(self, event: ev.Event) -> int:
        return await self._daemon.submit("panel", event)

    def now(self) -> float:
        return self._daemon.now()

    def status(self) -> dict[str, Any]:
        d = self._daemon
        parts = {}
        for part in d.parts:
            try:
                parts[part.name] = part.status()
            except Exception as err:  # noqa: BLE001 - a status call must not break the staff view
                parts[part.name] = {"error": str(err)}
        return {
            "table": d.cfg.table.name, "backend": d.cfg.table.backend,
            "machine": d.core.machine, "parts": parts, "tracker_errors": d.core.errors,
            "part_errors": d.part_errors,
            "events": d.store.last_seq, "head_hash": d.store.head_hash,
            "head_anchor": d.store.anchor_state(), "disk": d.disk.status(),
            "evidence": {str(k): v for k, v in d.hub.evidence.items()},
            **staff_extras(d.core.game_state, d.core.machine, evidence_of(d.hub.evidence, d.store)),
            "uptime_s": round(time.time() - d.started_at, 1), "clients": d.hub.n_clients,
        }

    def refusal(self) -> str | None:
        """Why the table takes no staff action now (a full disk), or None."""
        return self._daemon.disk.message or None

    def camera(self) -> Any | None:
        return next((p for p in self._daemon.parts if getattr(p, "reader", None) is not None), None)

    def data_dir(self) -> Path:
        from controller.config import data_dir
        return data_dir(self._daemon.cfg)

    @property
    def tile_set_name(self) -> str:
        return self._daemon.cfg.camera.tile_set

    def why_not(self, event: ev.Event) -> str | None:
        """Why the staff action ``event`` cannot apply to the game as it is now (checked on a copy:
        nothing changes), or None."""
        core = self._daemon.core
        try:
            check_staff(core.game_state, event, self._daemon.now(), core.machine)
        except Refused as err:
            return str(err)
        return None

    def evidence_cut(self, path: Path, alert: str | None) -> bytes | None:
        return evidence_for_alert(self._daemon.core.game_state, self._daemon.parts, path, alert)

    def picture(self) -> bytes | None:
        for part in self._daemon.parts:
            picture = getattr(part, "calibration_jpeg", None) or getattr(part, "latest_jpeg", None)
            if picture is not None:
                jpeg = picture()
                if jpeg:
                    return jpeg
        return None

    def evidence_path(self, name: str):
        return self._daemon.store.evidence_path(name)
