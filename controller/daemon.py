"""The table daemon: one asyncio loop that owns the table.

Every input (firmware frames, GPIO lines, camera reads, panel actions) arrives as a
``controller.events`` event on one queue. For each one the loop

1. commits it to the event store (``controller.storage``): nothing is applied or shown
   before it is on disk;
2. applies it to the pure state machines (``Core``: the game tracker ``controller.game`` and
   the machine cycle ``controller.cycle``), which return commands;
3. sends the commands to the parts (MCU, lamps, camera, panel), and publishes the new state
   to the panel's WebSocket clients.

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
import importlib
import logging
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller import events as ev
from controller.config import Config, TableError
from controller.daemon_sys import TRAFFIC, SystemdNotifier
from controller.storage import EventStore, StorageError

log = logging.getLogger(__name__)

__version__ = "0.1.0"


class Part(Protocol):
    """A table part as the daemon sees it.

    Must provide: ``name``; ``start(post)`` (begin posting events through ``post``);
    ``stop()``; ``handle(command) -> bool`` (carry out a command it knows, True if it did);
    ``status() -> dict`` (plain data for the staff view). May provide ``latest_jpeg()``
    (the camera: the current frame as evidence), ``calibration_jpeg()`` (the staff's check
    picture) and ``runs_machine_cycle = True`` (it carries out ``controller.cycle``'s
    commands, so the cycle's phase is the machine state shown).
    """

    name: str

    async def start(self, post: Callable[..., None]) -> None: ...
    async def stop(self) -> None: ...
    def handle(self, command: ev.Command) -> bool: ...
    def status(self) -> dict[str, Any]: ...


_IMPORT_ERRORS: dict[str, str] = {}


def _optional(module: str) -> Any | None:
    """Import a module of another part if this build has it (and it imports); else None, said loudly."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name and module.startswith(err.name):
            return None
        _IMPORT_ERRORS[module] = f"{module} cannot be imported: {err}"
    except ImportError as err:
        _IMPORT_ERRORS[module] = f"{module} cannot be imported: {err}"
    log.error("%s; running without it", _IMPORT_ERRORS[module])
    return None


class Core:
    """The pure side the loop drives: game tracker + machine cycle, and the table view.

    ``apply(event)`` returns the commands; it never does I/O. Used alike by the live loop,
    by the rebuild on start, by ``tablectl export`` and by tests.
    """

    def __init__(self, table: str, ruleset: str) -> None:
        self.table, self.ruleset = table, ruleset
        self.game = _optional("controller.game")
        self.cycle = _optional("controller.cycle")
        self.game_state: Any = self._initial(self.game)
        self.cycle_state: Any = self._initial(self.cycle)
        self.machine: dict[str, Any] = {"state": "idle", "reason": "", "faults": [], "lid_open": False,
                                        "estop": False, "link": "unknown"}
        self.applied = 0
        self.last_event_kind = ""
        self.machine_from_cycle = False     # set by the daemon when a part runs the cycle's commands
        self.errors: list[str] = [msg for name, msg in _IMPORT_ERRORS.items()
                                  if name in ("controller.game", "controller.cycle")]

    def _initial(self, module: Any) -> Any:
        if module is None:
            return None
        for name in ("initial_state", "new_state", "initial"):
            factory = getattr(module, name, None)
            if callable(factory):
                try:
                    return factory()
                except TypeError:
                    return factory(table=self.table)
        state_cls = getattr(module, "State", None) or getattr(module, "GameState", None) or getattr(
            module, "CycleState", None)
        return state_cls() if state_cls is not None else None

    def apply(self, event: ev.Event) -> list[ev.Command]:
        commands: list[ev.Command] = []
        game_cmds = self._step("game_state", self.game, event)
        commands.extend(game_cmds)
        commands.extend(self._step("cycle_state", self.cycle, event))
        for cmd in game_cmds:
            if isinstance(cmd, ev.Lift):  # the game asks for the next walls; the cycle decides when
                commands.extend(self._step("cycle_state", self.cycle, cmd))
        self._machine(event)
        self.applied += 1
        self.last_event_kind = event.KIND
        return commands

    def _step(self, attr: str, module: Any, event: Any) -> list[ev.Command]:
        step = getattr(module, "step", None) if module is not None else None
        if step is None:
            return []
        try:
            new_state, cmds = step(getattr(self, attr), event, event.now)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            # A tracker bug or an event it cannot take must not stop the table: keep the
            # state as it was and say so (the event itself is safely stored).
            msg = f"{module.__name__}.step could not take {event.KIND}: {err}"
            log.warning(msg)
            self.errors = (self.errors + [msg])[-20:]
            return []
        setattr(self, attr, new_state)
        return list(cmds or ())

    def _machine(self, event: ev.Event) -> None:
        """Machine status for the panel (faults, e-stop, lid, link); the cycle owns the motors."""
        m = self.machine
        if isinstance(event, ev.McuFault):
            m["state"], m["reason"] = "halted", f"{event.code}: {event.detail}".rstrip(": ")
            m["faults"] = (m["faults"] + [{"code": event.code, "detail": event.detail, "now": event.now}])[-20:]
        elif isinstance(event, ev.EStop):
            m["estop"] = event.is_pressed
            if event.is_pressed:
                m["state"], m["reason"] = "halted", "emergency stop pressed"
        elif isinstance(event, ev.Lid):
            m["lid_open"] = event.is_open
        elif isinstance(event, ev.LinkLost):
            m["link"] = "lost"
            m["state"], m["reason"] = "halted", f"MCU link lost {event.reason}".strip()
        elif isinstance(event, ev.LinkRestored):
            m["link"] = "ok"
        elif isinstance(event, ev.Reset) or (isinstance(event, ev.Correction) and event.what in ("retry", "continue")):
            if not m["estop"]:     # a reset (or staff's retry / continue) clears the faults it answers
                m["state"], m["reason"], m["faults"] = "idle", "", []
        elif isinstance(event, (ev.StackReady, ev.LiftDone, ev.DiceResult)) and m["state"] != "halted":
            m["state"] = {"mcu.stack_ready": "walls built", "mcu.lift_done": "walls lifted",
                          "mcu.dice_result": "playing"}[event.KIND]
        if self.machine_from_cycle and self.cycle_state is not None:
            # a firmware part carries out the cycle's commands: the cycle is the machine's truth
            m["state"] = getattr(self.cycle_state, "state", m["state"])
            m["reason"] = getattr(self.cycle_state, "reason", m["reason"])

    def view(self) -> dict[str, Any]:
        """The state for ``GET /api/state`` and the panel (see contracts/table-api.md)."""
        from controller.panel.view import table_view
        return table_view(self)


def _plain(obj: Any) -> Any:
    """A dataclass/namedtuple state as plain data (for the panel), else as is."""
    import dataclasses
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if hasattr(obj, "value") and hasattr(obj, "name") and type(obj).__module__ != "builtins":
        return obj.value
    return obj


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
        from controller.panel.hub import PanelHub
        self.cfg = cfg
        self.store = store
        self.parts = list(parts)
        self.notifier = notifier or SystemdNotifier()
        self.clock = clock
        self.core = Core(cfg.table.name, cfg.game.ruleset)
        self.core.machine_from_cycle = any(getattr(p, "runs_machine_cycle", False) for p in self.parts)
        self.hub = PanelHub(self)
        self._queue: asyncio.Queue[_Item] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = asyncio.Event()
        self.is_healthy = True
        self.panel_url: str | None = None
        self.started_at = time.time()
        self._status_line = ""
        self.part_errors: dict[str, str] = {}
        self._server_task: asyncio.Task | None = None

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
        commands = self.core.apply(event)
        for command in commands:
            self._dispatch(command, stored.seq)
        self.hub.publish()
        return stored.seq

    def _dispatch(self, command: ev.Command, seq: int, depth: int = 0) -> None:
        if isinstance(command, ev.RaiseAlert):
            alert = command.alert
            if depth > 2:
                return
            alert_seq = self.accept("integrity", alert)
            if alert_seq is not None:
                self._keep_evidence(alert_seq, alert)
            log.warning("alert %s seat=%s tile=%s: %s", alert.rule, alert.seat, alert.tile, alert.message)
            return
        if isinstance(command, ev.Show):
            self.hub.show(command.what, command.data)
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
        server_task = None
        if self.cfg.panel.enabled:
            from controller.panel.server import start_panel
            server_task, self.panel_url = await start_panel(self)
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
                await stop_panel(self, server_task)
            self.notifier.close()
            log.info("stopped")
        return status

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
        try:
            seq = self.accept(item.source, item.event, item.src_seq)
        except StorageError as err:
            self.is_healthy = False
            if item.future is not None and not item.future.done():
                item.future.set_exception(err)
            raise
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
