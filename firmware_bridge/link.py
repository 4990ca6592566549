"""The serial link to the table MCU: port, reader thread, retransmission, heartbeats, reconnection.

A ``Link`` owns one serial port (pyserial) and two threads:

- the *reader* opens the port (and re-opens it after it vanished, as when a USB adapter is
  pulled and plugged back), reads bytes, resynchronises at every 0x00 after garbage, matches
  replies to requests, acknowledges MCU events and drops duplicates;
- the *timer* retransmits unanswered requests (bounded: by each request's deadline), sends a
  heartbeat ``ping`` when nothing else went out for ``heartbeat_s`` (the MCU's deadman needs
  one valid frame per ``deadman_ms``), and declares the link lost after ``link_timeout_s``
  without a valid frame from the MCU, as seen by a reader that ran and found the line quiet
  (a reader that was not scheduled is behind, not deaf), then re-identifies with ``hello``;
  while up it also sends ``hello`` (same session) every ``hello_every_s``, so an event the MCU
  parked after its bounded retransmission is sent again (PROTOCOL.md §4).

Both threads need the process's GIL, which one long C call elsewhere in the daemon can hold
for longer than the deadman time. So the link also starts a heartbeat *keeper* process
(``firmware_bridge.keeper``, ``keeper=True``): it gets the port's file descriptor and a lease
with every frame the link writes, and pings in the timer's stead only while the leases stop, for at most
``keeper_grace_s`` (3 s), or ``keeper_busy_grace_s`` (10 s) while this process keeps using the
CPU (busy, not hung); it exits the moment this process is gone, so a dead host still
trips the deadman within ``deadman_ms``.

Threads never touch the caller's state: everything the link learns is handed to ``sink``
(``LinkUp``, ``LinkLost``, and each new MCU ``Event``); the daemon passes a sink that posts
into its asyncio loop (``loop.call_soon_threadsafe``). ``request`` is thread-safe and
returns a ``concurrent.futures.Future`` resolved with the MCU's reply.
"""

from __future__ import annotations

import concurrent.futures
import logging
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import serial

from firmware_bridge import protocol as p
from firmware_bridge.errors import BridgeError, LinkError, LinkTimeout
from firmware_bridge.keeper import KEEPER_SEQ, Keeper
from firmware_bridge.link_types import LinkLost, LinkStats, LinkUp, McuEvent, _Pending

__all__ = ["JOB_WINDOW", "MAX_QUEUED", "TRAFFIC", "Link", "LinkLost", "LinkStats", "LinkUp", "McuEvent"]

log = logging.getLogger(__name__)
TRAFFIC = 5      # log level for per-frame traffic (below DEBUG)

_REPLY_FOR: dict[type[p.Command], type[p.Reply]] = {p.Hello: p.Identify, p.Ping: p.Pong,
                                                    p.GetStatus: p.Status, p.Bye: p.Ack}
MAX_QUEUED = 128
# At most this many job commands between the oldest unanswered one and the newest sent, so a
# retransmitted job is still in the MCU's job table (>= 2 x JOB_WINDOW entries, PROTOCOL.md).
JOB_WINDOW = 16


class Link:
    """One serial link to one MCU. See the module docstring.

    ``port`` is a device path (``/dev/ttyACM0``, a pty, a symlink) or a pyserial URL.
    Nothing is opened before ``start()``; a port that cannot be opened is retried every
    ``reopen_s`` and reported through ``LinkLost`` (and ``wait_up`` raises naming it).
    """

    def __init__(self, port: str, *, sink: Callable[[object], None] | None = None,
                 baudrate: int = 115200, heartbeat_s: float = 0.1, link_timeout_s: float = 1.0,
                 reply_timeout_s: float = 1.0, reopen_s: float = 0.25, min_rto_s: float = 0.001,
                 max_rto_s: float = 0.2, name: str = "link", keeper: bool = True,
                 keeper_grace_s: float = 3.0, keeper_busy_grace_s: float = 10.0,
                 hello_every_s: float = 1.0) -> None:
        for label, value, lo, hi in (("heartbeat_s", heartbeat_s, 0.01, 10.0),
                                     ("link_timeout_s", link_timeout_s, 0.05, 60.0),
                                     ("reply_timeout_s", reply_timeout_s, 0.005, 60.0),
                                     ("reopen_s", reopen_s, 0.01, 60.0),
                                     ("min_rto_s", min_rto_s, 0.0002, 1.0),
                                     ("max_rto_s", max_rto_s, min_rto_s, 10.0),
                                     ("keeper_grace_s", keeper_grace_s, 0.0, 30.0),
                                     ("keeper_busy_grace_s", keeper_busy_grace_s, keeper_grace_s, 60.0),
                                     ("hello_every_s", hello_every_s, 0.1, 60.0)):
            if not lo <= value <= hi:
                raise BridgeError(f"{name} {port}: option '{label}' is {value}, must be {lo}..{hi}")
        self.port = port
        self.sink = sink or (lambda ev: None)
        self.baudrate = baudrate
        self.heartbeat_s = heartbeat_s
        self.link_timeout_s = link_timeout_s
        self.reply_timeout_s = reply_timeout_s
        self.reopen_s = reopen_s
        self.min_rto_s = min_rto_s
        self.max_rto_s = max_rto_s
        self.name = name
        self.use_keeper = keeper
        self.keeper_grace_s = keeper_grace_s
        self.keeper_busy_grace_s = keeper_busy_grace_s
        self.hello_every_s = hello_every_s
        self._keeper: Keeper | None = None
        self._lease_at = 0.0
        self._empty_read_at = 0.0         # the last read that found the line quiet (see _tick)
        self.write_timeouts = 0           # writes pyserial gave up on (see _write)
        self.session = random.getrandbits(32)
        self._job = random.randrange(1, 0xFFFF)
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._ser: serial.SerialBase | None = None
        self._decoder = p.FrameDecoder()
        self._pending: dict[int, _Pending] = {}
        self._seq = random.randrange(256)
        self._jobs_sent = 0
        self._seen_events: OrderedDict[int, p.Event] = OrderedDict()
        self._events_boot: int | None = None   # the MCU boot that the seen events came from
        self._running = False
        self._threads: list[threading.Thread] = []
        self._is_up = False
        self._up_event = threading.Event()
        self._lost_reported = False
        self.identify: p.Identify | None = None
        self.boot_id: int | None = None
        self.last_error = "not started"
        self._last_rx = 0.0
        self._last_tx = 0.0
        self._hello: _Pending | None = None
        self._hello_at = 0.0              # when the last new hello went out
        self._srtt: float | None = None
        self._rttvar = 0.0
        self._rto = max(min_rto_s, 0.02)
        self._stats = {"sent_frames": 0, "retransmits": 0, "rx_frames": 0, "rx_errors": 0,
                       "duplicate_events": 0, "reconnects": 0}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Start the threads; the port is opened (and re-opened) by the reader."""
        with self._lock:
            if self._running:
                return
            self._running = True
        if self.use_keeper and self._keeper is None:
            try:
                self._keeper = Keeper.spawn(p.encode(p.Ping(), KEEPER_SEQ), period_s=self.heartbeat_s,
                                            takeover_s=2 * self.heartbeat_s, grace_s=self.keeper_grace_s,
                                            busy_grace_s=self.keeper_busy_grace_s)
            except OSError as err:
                log.warning("%s %s: no heartbeat keeper (%s); a busy host may trip the deadman",
                            self.name, self.port, err)
        for target, label in ((self._reader, "reader"), (self._timer, "timer")):
            t = threading.Thread(target=target, name=f"{self.name}-{label}", daemon=True)
            t.start()
            self._threads.append(t)

    def wait_up(self, timeout_s: float) -> p.Identify:
        """Block until the MCU identified itself; ``LinkTimeout`` naming the last problem otherwise."""
        t0 = time.monotonic()
        if not self._up_event.wait(timeout_s):
            raise LinkTimeout(f"{self.name} {self.port}: not up after {timeout_s} s ({self.last_error})")
        keeper = self._keeper
        if keeper is not None and not keeper.wait_ready(max(1.0, timeout_s - (time.monotonic() - t0))):
            log.warning("%s %s: the heartbeat keeper is not running yet", self.name, self.port)
        assert self.identify is not None
        return self.identify

    @classmethod
    def open(cls, port: str, *, timeout_s: float = 3.0, **kwargs: object) -> Link:
        """Start a link and wait for the MCU; ``LinkError`` naming the port and the problem if not."""
        link = cls(port, **kwargs)  # type: ignore[arg-type]
        link.start()
        try:
            link.wait_up(timeout_s)
        except LinkTimeout as err:
            link.close()
            raise LinkError(str(err)) from err
        return link

    def close(self, *, bye_timeout_s: float = 0.3) -> None:
        """Say ``bye`` (the MCU disarms its deadman), stop the threads, close the port, fail what waits."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.stop()                 # gone before the bye: no keeper ping re-arms the deadman
        if self._is_up and self._running:
            try:
                self.request(p.Bye(), timeout_s=bye_timeout_s).result(bye_timeout_s + 0.5)
            except (BridgeError, concurrent.futures.TimeoutError) as err:
                log.warning("%s %s: no answer to bye (%s); the MCU's deadman will act", self.name,
                            self.port, err)
        with self._lock:
            self._running = False
            self._wake.notify_all()
            pending = list(self._pending.values())
            self._pending.clear()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=2.0)
        self._threads.clear()
        self._close_port()
        for pend in pending:
            if not pend.future.done():
                pend.future.set_exception(BridgeError(f"{self.name} {self.port}: link closed"))

    def __enter__(self) -> Link:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_up(self) -> bool:
        return self._is_up

    def stats(self) -> LinkStats:
        with self._lock:
            return LinkStats(rto_ms=self._rto * 1000, **self._stats)

    def next_job(self) -> int:
        """A fresh job id (1..65535) for this session."""
        with self._lock:
            self._job = self._job % 0xFFFF + 1
            return self._job

    # ------------------------------------------------------------------ requests
    def request(self, msg: p.Command, *, timeout_s: float | None = None) -> concurrent.futures.Future:
        """Send ``msg``; the future resolves with its ``Reply`` (``Ack``, ``Identify``, ...).

        Retransmits until answered or until ``timeout_s`` (default ``reply_timeout_s``) has
        passed, then fails with ``LinkTimeout``. While the link is down the request waits
        (its deadline still runs). Raises ``FieldError`` at once for an out-of-range field.
        """
        if isinstance(msg, p.EvAck):
            raise BridgeError(f"{self.name}: evack is sent by the link itself")
        msg.check()
        timeout_s = self.reply_timeout_s if timeout_s is None else timeout_s
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if not self._running:
                raise BridgeError(f"{self.name} {self.port}: link not started")
            if len(self._pending) >= MAX_QUEUED:
                raise BridgeError(f"{self.name} {self.port}: {len(self._pending)} requests waiting, "
                                  f"at most {MAX_QUEUED}")
            seq = self._alloc_seq()
            pend = _Pending(msg, seq, p.encode(msg, seq), future, time.monotonic() + timeout_s)
            self._pending[seq] = pend
            if self._is_up and self._may_send(pend):
                self._transmit(pend)
            self._wake.notify_all()
        return future

    def _alloc_seq(self) -> int:
        for _ in range(256):
            self._seq = (self._seq + 1) & 0xFF
            if self._seq != KEEPER_SEQ and self._seq not in self._pending:
                return self._seq
        raise BridgeError(f"{self.name} {self.port}: no free sequence number")

    def _may_send(self, pend: _Pending) -> bool:
        """A job command goes out first only inside the job window; caller holds the lock."""
        if pend.tries or not isinstance(pend.msg, p.JobCommand):
            return True
        oldest = min((pd.job_index for pd in self._pending.values() if pd.job_index is not None),
                     default=None)
        return oldest is None or self._jobs_sent - oldest < JOB_WINDOW

    def _transmit(self, pend: _Pending) -> None:
        """Send (or resend) ``pend``; caller holds the lock."""
        now = time.monotonic()
        if pend.tries:
            self._stats["retransmits"] += 1
        else:
            pend.first_sent = now
            if isinstance(pend.msg, p.JobCommand):
                pend.job_index = self._jobs_sent
                self._jobs_sent += 1
        pend.tries += 1
        pend.next_due = now + self._rto
        # A retransmission goes out twice: on a noisy line the second copy usually gets through,
        # and the MCU's job table makes the copy harmless (PROTOCOL.md "Retransmission").
        self._write(b"\x00" + pend.frame * (2 if pend.tries > 1 else 1))

    def _write(self, data: bytes) -> None:
        ser = self._ser
        if ser is None:
            return
        try:
            with self._write_lock:
                ser.write(data)
        except serial.SerialTimeoutException:
            # pyserial's write deadline passed, which a thread that was not scheduled (the GIL, a
            # loaded machine) sees too: the frame may be cut short, the 0x00 before the next one
            # resynchronises and retransmission recovers it. A port that is really gone fails
            # its reads, and a silent MCU is link_timeout_s of silence.
            self.write_timeouts += 1
            log.debug("%s %s: write timed out (a busy host?); the frame is resent if it needs an answer",
                      self.name, self.port)
            return
        except (serial.SerialException, OSError, TypeError, AttributeError) as err:
            self._port_lost(f"write failed: {err}")
            return
        self._last_tx = time.monotonic()
        self._stats["sent_frames"] += 1
        keeper = self._keeper
        if keeper is not None and self._last_tx >= self._lease_at:
            keeper.lease()          # a frame went out just now: the keeper stays quiet
            self._lease_at = self._last_tx + self.heartbeat_s / 4
        log.log(TRAFFIC, "%s tx %s", self.name, data.hex())

    # ------------------------------------------------------------------ reader thread
    def _reader(self) -> None:
        while self._running:
            ser = self._ser
            if ser is None:
                if not self._open_port():
                    with self._lock:
                        self._wake.wait(self.reopen_s)
                continue
            try:
                data = ser.read(ser.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError, AttributeError) as err:
                if self._running:
                    self._port_lost(f"read failed: {err}")
                continue
            if data:
                self._on_bytes(data)
                continue
            # the read found the line quiet; but this thread may have waited for the GIL since (a
            # long C call elsewhere), and the MCU may have answered meanwhile: the line counts as
            # quiet at this moment only if nothing is waiting to be read after it
            quiet_at = time.monotonic()
            try:
                waiting = ser.in_waiting
            except (serial.SerialException, OSError, TypeError, AttributeError):
                waiting = 0       # the next read says whether the port is gone
            if not waiting:
                self._empty_read_at = quiet_at   # the reader ran and the line was quiet

    def _open_port(self) -> bool:
        try:
            ser = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=0.05,
                                        write_timeout=0.5, exclusive=True) \
                if "://" in self.port else serial.Serial(self.port, baudrate=self.baudrate, timeout=0.05,
                                                         write_timeout=0.5, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as err:
            self._report_lost(f"cannot open port: {err}")
            return False
        with self._lock:
            if not self._running:
                ser.close()
                return False
            self._ser = ser
            keeper = self._keeper
            if keeper is not None and hasattr(ser, "fileno"):
                try:
                    keeper.port(ser.fileno())
                except (OSError, ValueError, serial.SerialException):
                    pass              # a port without a file descriptor (a URL): no keeper for it
            self._decoder = p.FrameDecoder()
            self._last_rx = time.monotonic()
            self._stats["reconnects"] += 1
            self._send_hello()
        log.info("%s %s: port open, identifying", self.name, self.port)
        return True

    def _close_port(self) -> None:
        with self._lock:
            ser, self._ser = self._ser, None
            keeper = self._keeper
            if keeper is not None:
                keeper.port_closed()
        if ser is not None:
            try:
                ser.close()
            except (serial.SerialException, OSError):
                pass

    def _port_lost(self, reason: str) -> None:
        self._close_port()
        self._report_lost(reason)

    def _report_lost(self, reason: str) -> None:
        with self._lock:
            self.last_error = reason
            was_up = self._is_up
            self._is_up = False
            self._up_event.clear()
            first = not self._lost_reported
            self._lost_reported = True
        if was_up or first:
            log.warning("%s %s: link lost: %s", self.name, self.port, reason)
            self._emit(LinkLost(self.port, reason))

    def _on_bytes(self, data: bytes) -> None:
        now = time.monotonic()
        for item in self._decoder.feed(data):
            if isinstance(item, p.ProtocolError):
                self._stats["rx_errors"] += 1
                log.debug("%s %s: bad frame dropped: %s", self.name, self.port, item)
                continue
            self._last_rx = now
            self._stats["rx_frames"] += 1
            msg = item.msg
            if isinstance(msg, p.Event):
                self._on_event(item.seq, msg, now)
            elif isinstance(msg, p.Reply):
                self._on_reply(item.seq, msg, now)

    def _on_reply(self, seq: int, msg: p.Reply, now: float) -> None:
        with self._lock:
            pend = self._pending.get(seq)
            if pend is None or not self._matches(pend.msg, msg):
                return      # a late answer to a request already answered: harmless
            del self._pending[seq]
            if pend.tries == 1:       # Karn: sample only unambiguous round trips
                self._sample_rtt(now - pend.first_sent)
            if pend is self._hello:
                self._hello = None
            if pend.job_index is not None:
                self._wake.notify_all()       # the job window may have room now
        if isinstance(msg, p.Identify):
            self._on_identify(msg)
        if not pend.future.done():
            pend.future.set_result(msg)

    @staticmethod
    def _matches(cmd: p.Command, reply: p.Reply) -> bool:
        if isinstance(cmd, p.JobCommand):
            return isinstance(reply, p.Ack) and reply.job in (cmd.job, 0)
        return isinstance(reply, _REPLY_FOR.get(type(cmd), p.Ack))

    def _sample_rtt(self, rtt: float) -> None:
        if self._srtt is None:
            self._srtt, self._rttvar = rtt, rtt / 2
        else:
            self._rttvar = 0.75 * self._rttvar + 0.25 * abs(self._srtt - rtt)
            self._srtt = 0.875 * self._srtt + 0.125 * rtt
        self._rto = min(self.max_rto_s, max(self.min_rto_s, self._srtt + 4 * self._rttvar))

    def _on_identify(self, ident: p.Identify) -> None:
        if ident.proto != p.PROTOCOL_VERSION:
            self._report_lost(f"MCU speaks protocol {ident.proto}, this host {p.PROTOCOL_VERSION}")
            return
        with self._lock:
            rebooted = self.boot_id is not None and ident.boot_id != self.boot_id
            self._events_of_boot(ident.boot_id)
            self.boot_id = ident.boot_id
            self.identify = ident
            was_up = self._is_up
            self._is_up = True
            self._lost_reported = False
            self.last_error = ""
            self._up_event.set()
            if not was_up:
                for pend in self._pending.values():    # resume what waited while down
                    if pend.msg is not None and not isinstance(pend.msg, p.Hello):
                        pend.next_due = 0.0
            self._wake.notify_all()
        # the periodic hello of an up link reports nothing, unless it shows a reboot whose boot
        # event was lost
        if not was_up or rebooted:
            log.info("%s %s: up: %s firmware %s, %d tiles, %d walls%s", self.name, self.port,
                     ident.model, ident.firmware_version, ident.tiles, ident.walls,
                     " (MCU rebooted)" if rebooted else "")
            self._emit(LinkUp(self.port, ident, rebooted))

    def _on_event(self, seq: int, msg: p.Event, now: float) -> None:
        with self._lock:
            self._write(b"\x00" + p.encode(p.EvAck(), seq))
            if isinstance(msg, p.Boot):
                self._events_of_boot(msg.boot_id)
            if self._seen_events.get(seq) == msg:
                self._stats["duplicate_events"] += 1
                return
            self._seen_events[seq] = msg
            self._seen_events.move_to_end(seq)
            while len(self._seen_events) > 128:
                self._seen_events.popitem(last=False)
        if isinstance(msg, p.Boot) and self.boot_id is not None and msg.boot_id != self.boot_id:
            # The MCU restarted under us: identify again (the LinkUp will say rebooted).
            with self._lock:
                self._is_up = False
                self._up_event.clear()
                self._send_hello()
        self._emit(McuEvent(msg, now))

    def _events_of_boot(self, boot_id: int) -> None:
        """Caller holds the lock. A new boot numbers its events afresh: forget the old boot's.
        Whichever comes first of the boot event and the identify that shows the new boot clears
        them, and only once (the other then finds the same boot), so an event of the new boot seen
        between the two is still known when the MCU sends it again."""
        if self._events_boot is not None and boot_id != self._events_boot:
            self._seen_events.clear()
        self._events_boot = boot_id

    def _emit(self, ev: object) -> None:
        try:
            self.sink(ev)
        except Exception:  # a broken sink must not kill the reader thread
            log.exception("%s %s: event sink failed on %r", self.name, self.port, ev)

    # ------------------------------------------------------------------ timer thread
    def _send_hello(self) -> None:
        """Caller holds the lock. One hello in flight at a time."""
        if self._hello is not None and self._hello.seq in self._pending:
            self._transmit(self._hello)
            return
        seq = self._alloc_seq()
        hello = p.Hello(session=self.session)
        pend = _Pending(hello, seq, p.encode(hello, seq), concurrent.futures.Future(),
                        time.monotonic() + max(self.reopen_s, 0.2))
        self._pending[seq] = pend
        self._hello = pend
        self._hello_at = time.monotonic()
        self._transmit(pend)
        pend.next_due = time.monotonic() + max(self._rto, 0.05)

    def _timer(self) -> None:
        while True:
            with self._lock:
                if not self._running:
                    return
                now = time.monotonic()
                wait = self._tick(now)
                self._wake.wait(max(0.0002, wait))

    def _tick(self, now: float) -> float:
        """Retransmit, time out, heartbeat, detect silence. Returns seconds until the next duty."""
        next_due = now + self.heartbeat_s
        expired: list[_Pending] = []
        for pend in list(self._pending.values()):
            if now >= pend.deadline:
                del self._pending[pend.seq]
                if pend is self._hello:
                    self._hello = None
                expired.append(pend)
                continue
            is_hello = isinstance(pend.msg, p.Hello)
            may_send = self._may_send(pend)      # else held until an answer frees the job window
            if (self._is_up or is_hello) and self._ser is not None and now >= pend.next_due and may_send:
                self._transmit(pend)
                if is_hello:
                    pend.next_due = now + max(self._rto, 0.05)
            if (self._is_up or is_hello) and may_send:
                next_due = min(next_due, pend.next_due)
            next_due = min(next_due, pend.deadline)
        for pend in expired:
            if not pend.future.done():
                pend.future.set_exception(LinkTimeout(
                    f"{self.name} {self.port}: no reply to '{pend.msg.NAME}'"
                    f"{' job ' + str(pend.msg.job) if isinstance(pend.msg, p.JobCommand) else ''} "
                    f"after {pend.tries} tries"
                    f"{'' if self._is_up else ' (link down: ' + self.last_error + ')'}"))
        if self._ser is None:
            return min(next_due - now, self.reopen_s)
        if self._is_up:
            silent = now - self._last_rx > self.link_timeout_s
            if silent and self._empty_read_at - self._last_rx > self.link_timeout_s:
                self._lock.release()
                try:
                    self._report_lost(f"no valid frame from the MCU for {self.link_timeout_s} s")
                finally:
                    self._lock.acquire()
                return 0.0
            if self._hello is None:
                # same session (the MCU keeps its job table): it re-sends every event it parked
                # (PROTOCOL.md §4), which a link that stays up would otherwise never get
                if now - self._hello_at >= self.hello_every_s:
                    self._send_hello()
                next_due = min(next_due, self._hello_at + self.hello_every_s)
            if now - self._last_tx >= self.heartbeat_s and not any(
                    isinstance(pd.msg, p.Ping) for pd in self._pending.values()):
                seq = self._alloc_seq()
                ping = p.Ping()
                pend = _Pending(ping, seq, p.encode(ping, seq), concurrent.futures.Future(),
                                now + self.link_timeout_s)
                self._pending[seq] = pend
                self._transmit(pend)
            next_due = min(next_due, self._last_tx + self.heartbeat_s)
        elif self._hello is None:
            self._send_hello()
            next_due = min(next_due, now + self.reopen_s)
        return next_due - now
