"""The simulated MCU's process shell: the pty, the line faults, the main loop, the control socket.

``hardware/sim/mcu.py`` is the firmware logic (``SimMcu``); this module gives it a body: the
master side of a pseudo-terminal (``PtyPort``), a byte-level fault layer per direction, one
``select`` loop (``SimProcess``) and the simulator-only control socket (``ControlServer``,
see PROTOCOL.md §9). ``tablectl sim-mcu`` (``hardware/sim/cli.py``) runs it.
"""

from __future__ import annotations

import errno
import heapq
import json
import logging
import os
import random
import select
import socket
import sys
import time
import tty

from firmware_bridge import protocol as p
from hardware.sim.mcu import OUT_BUFFER_MAX, SET_HOPPER, SET_STACKED, SET_TABLE, SimMcu
from hardware.sim.mcu_faults import ByteFaults, LineFaultRates

log = logging.getLogger("hardware.sim.shell")


class PtyPort:
    """The master side of a pty; the slave path (and an optional stable symlink) for the host."""

    def __init__(self, link: str | None) -> None:
        self.link = link
        self.master = -1
        self.slave = -1
        self.path = ""
        self.open()

    def open(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)            # no echo, no line discipline: a plain byte pipe
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        if self.link:
            tmp = f"{self.link}.tmp{os.getpid()}"
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, self.link)

    def close(self) -> None:
        """Unplug: the host's reads fail and the link path disappears."""
        if self.link and os.path.lexists(self.link):
            os.unlink(self.link)
        for fd in (self.master, self.slave):
            if fd >= 0:
                os.close(fd)
        self.master = self.slave = -1

    @property
    def is_open(self) -> bool:
        return self.master >= 0


class SimProcess:
    """The simulator's main loop: pty + line faults + SimMcu + control socket."""

    def __init__(self, mcu_args: dict[str, object], *, link: str | None, control: str | None,
                 rx_rates: LineFaultRates, tx_rates: LineFaultRates, seed: int,
                 stats_path: str | None = None, parent_pid: int | None = None) -> None:
        self.port = PtyPort(link)
        self.parent_pid = parent_pid
        self._parent_check_at = 0.0
        self.rx_faults = ByteFaults(rx_rates, seed + 1)
        self.tx_faults = ByteFaults(tx_rates, seed + 2)
        self._out = bytearray()
        self._delayed: list[tuple[float, int, bytes, str]] = []
        self._delay_n = 0
        self._rx_buf = bytearray()
        self.silent_until = 0.0
        self.replug_at: float | None = None
        self.stats_path = stats_path
        self.running = True
        self.mcu = SimMcu(send=self._send, **mcu_args)  # type: ignore[arg-type]
        self.control = ControlServer(control, self) if control else None

    # bytes out: through the tx faults, then buffered (a UART never blocks the firmware)
    def _send(self, data: bytes) -> None:
        if time.monotonic() < self.silent_until or not self.port.is_open:
            return
        data, delay = self.tx_faults.apply(data)
        if delay:
            self._delay_n += 1
            heapq.heappush(self._delayed, (time.monotonic() + delay, self._delay_n, data, "tx"))
            return
        self._queue_out(data)

    def _queue_out(self, data: bytes) -> None:
        if len(self._out) + len(data) > OUT_BUFFER_MAX:
            return       # host not reading: bytes fall on the floor, as on a real UART
        self._out += data
        self._flush()

    def _flush(self) -> None:
        while self._out and self.port.is_open:
            try:
                n = os.write(self.port.master, self._out)
            except BlockingIOError:
                return
            except OSError as err:
                if err.errno in (errno.EIO, errno.EBADF):
                    self._out.clear()
                    return
                raise
            del self._out[:n]

    def _receive(self, data: bytes) -> None:
        data, delay = self.rx_faults.apply(data)
        if delay:
            self._delay_n += 1
            heapq.heappush(self._delayed, (time.monotonic() + delay, self._delay_n, data, "rx"))
            return
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        start = 0
        while True:
            idx = data.find(0, start)
            if idx < 0:
                self._rx_buf += data[start:]
                if len(self._rx_buf) > p.MAX_FRAME + 2:
                    self._rx_buf.clear()
                    self.mcu.rx_errors += 1
                return
            self._rx_buf += data[start:idx]
            chunk = bytes(self._rx_buf)
            self._rx_buf.clear()
            start = idx + 1
            if chunk:
                self.mcu.on_frame_bytes(chunk)

    def replug(self, down_s: float) -> None:
        self.port.close()
        self._out.clear()
        self._rx_buf.clear()
        self.replug_at = time.monotonic() + down_s
        self.mcu._note("unplugged", down_s=down_s)

    def garbage(self, n: int) -> None:
        self._queue_out(bytes(random.Random(n).getrandbits(8) for _ in range(n)))

    def announce(self) -> None:
        info = {"port": self.port.path, "link": self.port.link, "control": self.control.path
                if self.control else None, "pid": os.getpid(), "boot_id": self.mcu.state.boot_id}
        print(json.dumps(info), flush=True)

    def parent_gone(self, now: float) -> bool:
        """True once the process that started us died (``--parent-pid``): then we end too.

        Checked every 100 ms in the loop: ``getppid()`` changes when the parent dies (we are
        re-parented to init or a subreaper), whichever thread of the parent started us. (Linux's
        ``PR_SET_PDEATHSIG`` fires when the *thread* that forked exits, e.g. an asyncio
        ``to_thread`` worker, so it is not used.)
        """
        if self.parent_pid is None or now < self._parent_check_at:
            return False
        self._parent_check_at = now + 0.1
        return os.getppid() != self.parent_pid

    def _read_port(self) -> None:
        """Take every byte the host has written so far (a UART's receive interrupt never waits).

        Runs before ``mcu.poll`` in each turn of the loop, so a simulator that was not scheduled
        for a while (a loaded machine) sees the host's frames before it judges the deadman.
        """
        while self.port.is_open:
            try:
                data = os.read(self.port.master, 4096)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:
                if err.errno == errno.EIO:      # no slave open right now: nothing to read
                    return
                raise
            if not data:
                return
            self._receive(data)

    def run(self) -> None:
        readable: list = []
        writable: list = []
        while self.running:
            now = time.monotonic()
            if self.parent_gone(now):
                self.mcu._note("parent_gone", parent_pid=self.parent_pid)
                break
            if self.replug_at is not None and now >= self.replug_at:
                self.replug_at = None
                self.port.open()
                self.mcu._note("replugged", port=self.port.path)
            if self.port.is_open and self.port.master in writable:
                self._flush()
            self._read_port()
            for fd in readable:
                if self.control and fd != self.port.master:
                    self.control.handle(fd)
            while self._delayed and self._delayed[0][0] <= now:
                _, _, data, direction = heapq.heappop(self._delayed)
                self._queue_out(data) if direction == "tx" else self._feed(data)
            self.mcu.poll()
            deadlines = [d for d in (self.mcu.next_deadline(), self.replug_at,
                                     self._delayed[0][0] if self._delayed else None) if d is not None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 0.05
            timeout = min(timeout, 0.05)
            rlist = [self.port.master] if self.port.is_open else []
            wlist = [self.port.master] if self._out and self.port.is_open else []
            if self.control:
                rlist += self.control.fds()
            try:
                readable, writable, _ = select.select(rlist, wlist, [], timeout)
            except InterruptedError:
                readable, writable = [], []

    def write_stats(self) -> None:
        if not self.stats_path:
            return
        stats = {"executed": {str(j): n for j, n in self.mcu.executed.items()},
                 "rx_errors": self.mcu.rx_errors, "rx_frames": self.mcu.rx_frames,
                 "rx_line": self.rx_faults.counts(), "tx_line": self.tx_faults.counts()}
        tmp = self.stats_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(stats, fh)
        os.replace(tmp, self.stats_path)

    def shutdown(self) -> None:
        self.write_stats()
        if self.control:
            self.control.close()
            self.control = None
        if self.port.is_open:
            self.port.close()


class ControlServer:
    """Unix socket, one JSON object per line each way. Simulator-only; never on the wire."""

    def __init__(self, path: str, sim: SimProcess) -> None:
        self.path = path
        self.sim = sim
        if os.path.exists(path):
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        self.sock.setblocking(False)
        self.clients: dict[int, tuple[socket.socket, bytearray]] = {}

    def fds(self) -> list[int]:
        return [self.sock.fileno(), *self.clients]

    def handle(self, fd: int) -> None:
        if fd == self.sock.fileno():
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return
            conn.settimeout(2.0)         # a client that stops reading is dropped, never waited on
            self.clients[conn.fileno()] = (conn, bytearray())
            return
        if fd not in self.clients:
            return
        conn, buf = self.clients[fd]
        try:
            data = conn.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop(fd)
            return
        buf += data
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            try:
                reply = self.execute(json.loads(line))
            except (ValueError, KeyError, TypeError) as err:
                reply = {"ok": False, "error": str(err)}
            except Exception as err:    # a test hook must never take the simulated MCU down
                log.exception("control: %s failed", line[:200])
                reply = {"ok": False, "error": f"{type(err).__name__}: {err}"}
            try:
                conn.sendall(json.dumps(reply).encode() + b"\n")
            except OSError:             # the client went away: forget it, the MCU runs on
                self._drop(fd)
                return

    def _drop(self, fd: int) -> None:
        conn, _ = self.clients.pop(fd, (None, None))
        if conn is not None:
            conn.close()

    def _restore(self, req: dict[str, object]) -> None:
        """The machine as a table left it (a world started again over a game under way): each
        set ``table`` / ``stacked`` / ``hopper``, the walls up or down, the centre open or shut.
        Only while no motor runs."""
        mcu = self.sim.mcu
        if mcu.motions:
            raise ValueError("restore: motors are running")
        names = {"hopper": SET_HOPPER, "stacked": SET_STACKED, "table": SET_TABLE}
        sets = [names.get(str(n)) for n in req.get("sets", ())]  # type: ignore[union-attr]
        if len(sets) != 2 or None in sets or sets.count(SET_TABLE) > 1:
            raise ValueError(f"restore: sets {req.get('sets')!r} must be two of hopper, stacked, table "
                             "(at most one on the table)")
        st = mcu.state
        st.sets = [int(x) for x in sets if x is not None]
        st.walls_up = (1 << mcu.model.walls) - 1 if req.get("walls_up") and SET_TABLE in st.sets else 0
        st.centre_open = bool(req.get("centre_open"))
        mcu._note("restored", sets=list(st.sets), walls_up=st.walls_up, centre_open=st.centre_open)

    def execute(self, req: dict[str, object]) -> dict[str, object]:
        sim, mcu = self.sim, self.sim.mcu
        cmd = req.get("cmd")
        if cmd == "state":
            return {"ok": True, "now": time.monotonic(), "port": sim.port.path, **mcu.snapshot()}
        if cmd == "dice":
            rolls = [tuple(int(v) for v in roll) for roll in req["values"]]  # type: ignore[union-attr]
            for roll in rolls:
                if not 2 <= len(roll) <= 3 or any(not 1 <= v <= 6 for v in roll):
                    raise ValueError(f"dice: roll {roll} must be 2 or 3 values of 1..6")
            mcu.dice_queue.extend(rolls)
        elif cmd == "lift_counts":
            stacks = tuple(int(v) for v in req["stacks"])  # type: ignore[union-attr]
            tiles = tuple(int(v) for v in req.get("tiles", [2 * s for s in stacks]))  # type: ignore[union-attr]
            mcu.lift_override = (stacks, tiles)
        elif cmd == "lane_counts":
            mcu.lane_override = tuple(int(v) for v in req["counts"])  # type: ignore[union-attr]
        elif cmd == "inject":
            mcu.arm_fault(str(req["fault"]), int(req.get("detail", p.NO_DETAIL)),  # type: ignore[arg-type]
                          int(req.get("value", 0)))  # type: ignore[arg-type]
        elif cmd == "lid":
            mcu.set_lid(bool(req["open"]))
        elif cmd == "press":
            mcu.press(int(req["seat"]), str(req["action"]))  # type: ignore[arg-type]
        elif cmd == "temp":
            mcu.set_temperature(int(req["c"]))  # type: ignore[arg-type]
        elif cmd == "reboot":
            mcu.boot(cause=int(req.get("cause", 1)))  # type: ignore[arg-type]
        elif cmd == "silence":
            sim.silent_until = time.monotonic() + float(req["s"])  # type: ignore[arg-type]
        elif cmd == "lose_events":
            mcu.lose_events = bool(req["on"])
            mcu._note("lose_events", on=mcu.lose_events)
        elif cmd == "garbage":
            sim.garbage(int(req.get("n", 64)))  # type: ignore[arg-type]
        elif cmd == "replug":
            sim.replug(float(req.get("down_s", 1.0)))  # type: ignore[arg-type]
        elif cmd == "line":
            for direction, faults in (("rx", sim.rx_faults), ("tx", sim.tx_faults)):
                rates = LineFaultRates(**req.get(direction, {}))  # type: ignore[arg-type]
                rates.check()
                faults.rates = rates
        elif cmd == "stats":
            return {"ok": True, "executed": {str(j): n for j, n in mcu.executed.items()},
                    "rx_line": sim.rx_faults.counts(), "tx_line": sim.tx_faults.counts()}
        elif cmd == "log":
            return {"ok": True, "lines": mcu.log_lines[-int(req.get("n", 200)):]}  # type: ignore[arg-type]
        elif cmd == "restore":
            self._restore(req)
        elif cmd == "quit":
            sim.running = False
        else:
            raise ValueError(f"control: unknown cmd {cmd!r}")
        return {"ok": True}

    def close(self) -> None:
        for conn, _ in self.clients.values():
            conn.close()
        self.sock.close()
        if os.path.exists(self.path):
            os.unlink(self.path)


def setup_logging(path: str | None, verbose: bool) -> None:
    handler: logging.Handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger("hardware.sim")
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose or path else logging.WARNING)
